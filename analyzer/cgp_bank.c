/* cgp_bank.c: shared-memory bank conflicts of one warp access (MODEL.md section 8).
   Word = bank_bytes-aligned unit, bank = word mod banks. An access of elem bytes touches every
   word it overlaps; lanes touching the same word are served by one broadcast, so only distinct
   words count. The degree is the most distinct words any one bank must serve. */
#include "cgp_analyzer.h"

#include <string.h>

/* The slow, obviously correct form: distinct words collected one by one, then for each word the
   words in its bank counted. Kept as the reference the fast form is tested against. */
unsigned cgp_bank_conflict_degree_ref(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                      unsigned bank_bytes) {
  uint64_t word[CGP_BANK_MAX_WORDS];
  unsigned nw = 0, degree = 1;
  if (!banks || !bank_bytes) return 0;
  for (unsigned l = 0; l < n; l++) {
    uint64_t last = (addr[l] + (elem ? elem : 1) - 1) / bank_bytes;
    for (uint64_t w = addr[l] / bank_bytes; w <= last; w++) {
      unsigned i = 0;
      while (i < nw && word[i] != w) i++;
      if (i < nw) continue;
      if (nw == CGP_BANK_MAX_WORDS) return 0;
      word[nw++] = w;
    }
  }
  for (unsigned i = 0; i < nw; i++) {
    unsigned same_bank = 0;
    for (unsigned j = 0; j < nw; j++) same_bank += word[j] % banks == word[i] % banks;
    if (same_bank > degree) degree = same_bank;
  }
  return degree;
}

/* The same in O(words log words): the words sorted (insertion sort: a warp's are mostly in order)
   and made distinct, then counted per bank. Bank sizes and counts that are powers of two (every
   NVIDIA GPU's: 4- or 8-byte banks, 32 of them) divide by shifts and masks, not divisions (32 a
   call: 10 % of ATAX's run in the what-if tiling's shared accesses). */
unsigned cgp_bank_conflict_degree(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                  unsigned bank_bytes) {
  return cgp_bank_conflict_degree_known(addr, n, elem, banks, bank_bytes, -1);
}

unsigned cgp_bank_conflict_degree_known(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                        unsigned bank_bytes, int affine) {
  enum { MAX_ALL = 2048, MAX_BANKS = 256 };
  uint64_t word[MAX_ALL];
  unsigned nw = 0;
  if (!banks || !bank_bytes) return 0;
  if (banks > MAX_BANKS) return cgp_bank_conflict_degree_ref(addr, n, elem, banks, bank_bytes);
  int p2 = cgp_is_pow2(bank_bytes), b2 = cgp_is_pow2(banks);
  unsigned sh = p2 ? cgp_log2(bank_bytes) : 0;
#define WORD_OF(a) (p2 ? (a) >> sh : (a) / bank_bytes)
#define OFFSET_OF(a) (p2 ? (a) & (bank_bytes - 1) : (a) % bank_bytes)
  affine = n >= 2 && elem && (affine >= 0 ? affine : cgp_affine(addr, n));
  if (affine) {                                        /* lanes on one stride */
    uint64_t d = addr[1] - addr[0];
    uint64_t step = (int64_t)d < 0 ? 0 - d : d;        /* |stride|, modulo 2^64 */
    /* no word skipped between the lowest lane's and the highest's: a stride of at most a word,
       or at most the element (the lanes' bytes meet), from one lane to the next, so the distinct
       words are one run of consecutive words, whose banks are consecutive too: a run of W words
       puts ceil(W / banks) in its fullest bank (a float a lane on 8-byte banks: 16 words, 1) */
    if (step <= bank_bytes || step <= elem) {
      uint64_t lo = (int64_t)d < 0 ? addr[n - 1] : addr[0], hi = ((int64_t)d < 0 ? addr[0] : addr[n - 1]) + elem - 1;
      uint64_t words = WORD_OF(hi) - WORD_OF(lo) + 1;
      if (words > CGP_BANK_MAX_WORDS || hi < lo) return 0;
      return (unsigned)((words + banks - 1) / banks);
    }
    /* further apart than a word (so not 0), every lane inside one word: with a stride of whole
       words each lane sits where lane 0 does in its word */
    if (elem <= bank_bytes && OFFSET_OF(step) == 0 && OFFSET_OF(addr[0]) + elem <= bank_bytes) {
      /* words w0 + l s, all distinct: lane l's bank repeats every banks / gcd(s, banks) lanes */
      uint64_t s = WORD_OF(step) % banks, a = banks, b = s;
      while (b) { uint64_t t = a % b; a = b; b = t; }
      uint64_t period = banks / a;             /* a = gcd(s, banks); s = 0 mod banks: period 1 */
      return (unsigned)((n + period - 1) / period);
    }
  }
  for (unsigned l = 0; l < n; l++) {
    if (l && addr[l] == addr[l - 1]) continue;          /* a broadcast lane: the same words */
    uint64_t last = WORD_OF(addr[l] + (elem ? elem : 1) - 1);
    for (uint64_t w = WORD_OF(addr[l]); w <= last; w++) {
      if (nw == MAX_ALL) return cgp_bank_conflict_degree_ref(addr, n, elem, banks, bank_bytes);
      unsigned i = nw++;
      while (i > 0 && word[i - 1] > w) { word[i] = word[i - 1]; i--; }
      word[i] = w;
    }
  }
#undef WORD_OF
#undef OFFSET_OF
  unsigned distinct = 0, count[MAX_BANKS], degree = 1;
  memset(count, 0, banks * sizeof *count);
  for (unsigned i = 0; i < nw; i++) {
    if (i && word[i] == word[i - 1]) continue;
    if (++distinct > CGP_BANK_MAX_WORDS) return 0;
    unsigned c = ++count[b2 ? word[i] & (banks - 1) : word[i] % banks];
    if (c > degree) degree = c;
  }
  return degree;
}

/* Passes (wavefronts) one shared-memory warp access takes: its degree, except that an access of
   more than 8 bytes a lane is served a half-warp at a time (lanes 0-15, then 16-31), each half
   its own degree (docs/model.md 8b: Nsight Compute counts 2 wavefronts for a 16-byte load every
   lane reads at one address, 32 for one at a 128-byte lane stride). 0 as the degree's. */
unsigned cgp_bank_wavefronts(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem, unsigned banks,
                             unsigned bank_bytes) {
  return cgp_bank_wavefronts_known(addr, lane, n, elem, banks, bank_bytes, -1);
}

unsigned cgp_bank_wavefronts_known(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem,
                                   unsigned banks, unsigned bank_bytes, int affine) {
  if (elem <= 8 || !lane) return cgp_bank_conflict_degree_known(addr, n, elem, banks, bank_bytes, affine);
  uint64_t half[2][CGP_WARP];
  unsigned nh[2] = {0, 0}, total = 0;
  for (unsigned l = 0; l < n && l < CGP_WARP; l++) {
    unsigned h = lane[l] >= CGP_WARP / 2;
    half[h][nh[h]++] = addr[l];
  }
  for (int h = 0; h < 2; h++) {
    if (!nh[h]) continue;
    /* (lanes ascending: each half is a run of the whole, on its stride where the whole is) */
    unsigned d = cgp_bank_conflict_degree_known(half[h], nh[h], elem, banks, bank_bytes, affine == 1 ? 1 : -1);
    if (!d) return 0;
    total += d;
  }
  return total;
}
