/* cgp_classify.c: class and transactions of one warp memory instruction (MODEL.md section 3).
   Transactions are the distinct L2 lines the active lanes touch, which is exact for strided,
   misaligned and partial warps; the paper's fixed 32/2/1 are what it gives for 4-byte
   elements and 64-byte lines in the clean cases. */
#include "cgp_analyzer.h"

const char *cgp_class_name(cgp_class c) {
  static const char *const names[CGP_NCLASS] = {"constant", "coalesced", "uncoalesced"};
  return (unsigned)c < CGP_NCLASS ? names[c] : "unknown";
}

int cgp_affine(const uint64_t *addr, unsigned n) {
  if (n < 2) return 0;
  uint64_t d = addr[1] - addr[0], off = 0;    /* fixed work per lane, no branch: vectorized */
  for (unsigned l = 2; l < n; l++) off |= (addr[l] - addr[l - 1]) ^ d;
  return off == 0;
}

cgp_class cgp_classify(const uint64_t *addr, unsigned n, unsigned elem) {
  return cgp_classify_known(addr, n, elem, cgp_affine(addr, n));
}

cgp_class cgp_classify_known(const uint64_t *addr, unsigned n, unsigned elem, int affine) {
  if (affine && n >= 2) {                     /* every neighbour d apart: widest is |d| */
    uint64_t d = addr[1] > addr[0] ? addr[1] - addr[0] : addr[0] - addr[1];
    return !d ? CGP_CLASS_CONST : d <= elem ? CGP_CLASS_COAL : CGP_CLASS_UNCOAL;
  }
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

cgp_class cgp_classify_lanes(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem, int affine) {
  if (!lane || n < 2 || (unsigned)(lane[n - 1] - lane[0]) == n - 1) return cgp_classify_known(addr, n, elem, affine);
  int same = 1, within = 1;                   /* lanes between two active ones would fill the gap */
  for (unsigned l = 1; l < n; l++) {
    uint64_t d = addr[l] > addr[l - 1] ? addr[l] - addr[l - 1] : addr[l - 1] - addr[l];
    same &= d == 0;
    within &= d <= (uint64_t)elem * (unsigned)(lane[l] - lane[l - 1]);
  }
  return same ? CGP_CLASS_CONST : within ? CGP_CLASS_COAL : CGP_CLASS_UNCOAL;
}

int cgp_on_thread_stride(const uint64_t *addr, const uint8_t *lane, const uint64_t *thread, unsigned n, int dims) {
  if (n < 3 || !lane || !thread) return 1;
  if (n > CGP_WARP) n = CGP_WARP;
  int64_t r[CGP_WARP];                         /* bytes per step of x, between neighbours of a row */
  unsigned m = 0;
  uint64_t p[3], q[3];
  cgp_thread_unkey(dims, thread[lane[0]], p);
  for (unsigned k = 1; k < n; k++) {
    cgp_thread_unkey(dims, thread[lane[k]], q);
    if (q[1] == p[1] && q[2] == p[2] && q[0] != p[0]) {
      int64_t dx = (int64_t)(q[0] - p[0]), da = (int64_t)(addr[k] - addr[k - 1]);
      if (dx == 1) r[m] = da;
      else if (dx == -1) r[m] = (int64_t)(UINT64_C(0) - (uint64_t)da);   /* (no INT64_MIN / -1) */
      else r[m] = da % dx == 0 ? da / dx : INT64_MIN + (int64_t)k;      /* no whole stride: unlike any */
      m++;
    }
    p[0] = q[0]; p[1] = q[1]; p[2] = q[2];
  }
  if (m < 2) return 1;
  int64_t cand = r[0];                         /* the majority, if any (Boyer and Moore's vote) */
  unsigned votes = 0;
  for (unsigned i = 0; i < m; i++) {
    if (!votes) cand = r[i];
    votes += r[i] == cand ? 1u : (unsigned)-1;
  }
  unsigned agree = 0;
  for (unsigned i = 0; i < m; i++) agree += r[i] == cand;
  return 4 * agree >= 3 * m;
}

/* Line m into out[0..k), ascending without duplicates: k + 1 if it was new, else k. */
static unsigned insert_line(uint64_t *out, unsigned k, uint64_t m) {
  unsigned i = k;
  while (i > 0 && out[i - 1] > m) i--;
  if (i > 0 && out[i - 1] == m) return k;
  for (unsigned j = k; j > i; j--) out[j] = out[j - 1];
  out[i] = m;
  return k + 1;
}

unsigned cgp_lines(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, uint64_t *out) {
  return cgp_lines_known(addr, n, elem, line_bytes, cgp_affine(addr, n), out);
}

/* An access's last byte, held at the top of the address space: an address within an element of
   2^64 (none a program makes; a hostile trace's can be) would otherwise wrap, and the walk from
   its first line to that "last" one would run on past 2^64 lines, out of out[]. */
static uint64_t last_byte(uint64_t addr, uint64_t span) { return addr + span >= addr ? addr + span : UINT64_MAX; }

unsigned cgp_lines_known(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, int affine,
                         uint64_t *out) {
  unsigned k = 0;
  uint64_t span = (elem ? elem : 1) - 1;
  if (cgp_is_pow2(line_bytes)) {             /* shifts; a lane within one line after the last
                                                one's (ascending lanes) in a compare or two */
    unsigned shift = cgp_log2(line_bytes);
    int down = 0;
    if (affine && n >= 2) {
      /* lanes on one stride d, in address order without wrapping: when |d| <= elem the
         elements leave no gap, so their lines are every line from the lowest to the highest;
         a descending stride is walked from its last lane (ascending, no insertion) */
      down = addr[n - 1] < addr[0];
      uint64_t lo = down ? addr[n - 1] : addr[0], hi = down ? addr[0] : addr[n - 1];
      uint64_t d = down ? addr[0] - addr[1] : addr[1] - addr[0];
      if (hi - lo == d * (n - 1) && hi + span >= hi) {
        if (d <= span + 1) {
          for (uint64_t m = lo >> shift;; m++) {
            out[k++] = m;
            if (m == (hi + span) >> shift) break;
          }
          return k;
        }
        /* a stride of whole lines with every element inside one (they all sit at one offset in
           their line): a line a lane, d / line_bytes lines apart (a column walk) */
        if (d >= line_bytes && (d & (line_bytes - 1)) == 0 && (lo & (line_bytes - 1)) + span < line_bytes) {
          uint64_t m = lo >> shift, dl = d >> shift;
          for (unsigned j = 0; j < n; j++) out[j] = m + j * dl;
          return n;
        }
      }
    }
    uint64_t top = 0;                        /* out[k - 1] when k > 0, in a register */
    for (unsigned j = 0; j < n; j++) {
      unsigned l = down ? n - 1 - j : j;
      uint64_t first = addr[l] >> shift, last = last_byte(addr[l], span) >> shift;
      if (first == last && k && first <= top) {
        if (first < top) k = insert_line(out, k, first);
        continue;
      }
      for (uint64_t m = first;; m++) {         /* (first <= last: no wrap) */
        if (!k || top < m) out[k++] = m;
        else k = insert_line(out, k, m);
        top = out[k - 1];
        if (m == last) break;
      }
    }
    return k;
  }
  for (unsigned l = 0; l < n; l++) {
    uint64_t first = addr[l] / line_bytes, last = last_byte(addr[l], span) / line_bytes;
    for (uint64_t m = first;; m++) {
      k = insert_line(out, k, m);
      if (m == last) break;
    }
  }
  return k;
}
