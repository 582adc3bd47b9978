/* cgp_bank.c: shared-memory bank conflicts of one warp access (MODEL.md section 8). */
#include "cgp_analyzer.h"

unsigned cgp_bank_conflict_degree(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                  unsigned bank_bytes) {
  uint64_t word[64];
  unsigned nw = 0, degree = 1;
  (void)elem;
  for (unsigned l = 0; l < n && nw < 64; l++) {       /* distinct words: the same word broadcasts */
    uint64_t w = addr[l] / bank_bytes;
    unsigned i = 0;
    while (i < nw && word[i] != w) i++;
    if (i == nw) word[nw++] = w;
  }
  for (unsigned i = 0; i < nw; i++) {
    unsigned same_bank = 0;
    for (unsigned j = 0; j < nw; j++) same_bank += word[j] % banks == word[i] % banks;
    if (same_bank > degree) degree = same_bank;
  }
  return degree;
}
