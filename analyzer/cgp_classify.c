/* cgp_classify.c: class and transactions of one warp memory instruction (MODEL.md section 3).
   Transactions are the distinct L2 lines the active lanes touch, which is exact for strided,
   misaligned and partial warps; the paper's fixed 32/2/1 are what it gives for 4-byte
   elements and 64-byte lines in the clean cases. */
#include "cgp_analyzer.h"

const char *cgp_class_name(cgp_class c) {
  static const char *const names[CGP_NCLASS] = {"constant", "coalesced", "uncoalesced"};
  return (unsigned)c < CGP_NCLASS ? names[c] : "unknown";
}

cgp_class cgp_classify(const uint64_t *addr, unsigned n, unsigned elem) {
  int same = 1;
  uint64_t widest = 0;
  for (unsigned l = 1; l < n; l++) {
    uint64_t d = addr[l] > addr[l - 1] ? addr[l] - addr[l - 1] : addr[l - 1] - addr[l];
    if (d) same = 0;
    if (d > widest) widest = d;
  }
  if (same) return CGP_CLASS_CONST;
  return widest <= elem ? CGP_CLASS_COAL : CGP_CLASS_UNCOAL;
}

unsigned cgp_lines(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, uint64_t *out) {
  unsigned k = 0;
  int pow2 = cgp_is_pow2(line_bytes);
  unsigned shift = pow2 ? cgp_log2(line_bytes) : 0;
  uint64_t span = (elem ? elem : 1) - 1;
  for (unsigned l = 0; l < n; l++) {
    uint64_t first = pow2 ? addr[l] >> shift : addr[l] / line_bytes;
    uint64_t last = pow2 ? (addr[l] + span) >> shift : (addr[l] + span) / line_bytes;
    for (uint64_t m = first; m <= last; m++) {
      if (k && out[k - 1] == m) continue;     /* ascending lanes: the common case, O(1) */
      unsigned i = k;                         /* else insertion sort, dropping duplicates */
      while (i > 0 && out[i - 1] > m) i--;
      if (i > 0 && out[i - 1] == m) continue;
      for (unsigned j = k; j > i; j--) out[j] = out[j - 1];
      out[i] = m;
      k++;
    }
  }
  return k;
}
