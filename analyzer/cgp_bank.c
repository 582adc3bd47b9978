/* cgp_bank.c: shared-memory bank conflicts of one warp access (MODEL.md section 8).
   Word = bank_bytes-aligned unit, bank = word mod banks. An access of elem bytes touches every
   word it overlaps; lanes touching the same word are served by one broadcast, so only distinct
   words count. The degree is the most distinct words any one bank must serve. */
#include "cgp_analyzer.h"

unsigned cgp_bank_conflict_degree(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
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

/* Passes (wavefronts) one shared-memory warp access takes: its degree, except that an access of
   more than 8 bytes a lane is served a half-warp at a time (lanes 0-15, then 16-31), each half
   its own degree (docs/model.md 8b: Nsight Compute counts 2 wavefronts for a 16-byte load every
   lane reads at one address, 32 for one at a 128-byte lane stride). 0 as the degree's. */
unsigned cgp_bank_wavefronts(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem, unsigned banks,
                             unsigned bank_bytes) {
  if (elem <= 8 || !lane) return cgp_bank_conflict_degree(addr, n, elem, banks, bank_bytes);
  uint64_t half[2][CGP_WARP];
  unsigned nh[2] = {0, 0}, total = 0;
  for (unsigned l = 0; l < n && l < CGP_WARP; l++) {
    unsigned h = lane[l] >= CGP_WARP / 2;
    half[h][nh[h]++] = addr[l];
  }
  for (int h = 0; h < 2; h++) {
    if (!nh[h]) continue;
    unsigned d = cgp_bank_conflict_degree(half[h], nh[h], elem, banks, bank_bytes);
    if (!d) return 0;
    total += d;
  }
  return total;
}
