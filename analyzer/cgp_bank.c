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
