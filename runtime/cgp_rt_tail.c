/* cgp_rt_tail.c: a run's untraced last launches put into the L2 (docs/model.md 5b, "A run's
   untraced last launches warm the caches by their footprint's law"). Launch sampling leaves most
   of a long run untraced, its last launches too when its length is not known yet; the kernel
   after it then finds in the L2 what the last traced launch left, not what the run's last ones
   did. Where the run's traced launches show a law (each site's range moving rigidly, the same
   bytes a launch: cgp_rt_footprint.c), the launches before the run's end that the L2 holds are
   referenced from it, oldest first. Both the run (cgp_rt_nest.c, at the run's end) and a trace
   replay (cgp_rt_trace.c, at its 'T' record) call rt_tail_warm, each for its devices. */
#include "cgp_rt_internal.h"

#include <math.h>
#include <stdlib.h>

#define RT_TAIL_MAX 65536              /* launches referenced at most */
#define RT_TAIL_MAX_BYTES (UINT64_C(32) << 20)   /* bytes of ranges referenced at most: 2^20
                                                    32-byte units, what RT_TAIL_EVENTS charges */

/* Launch p's ranges as pairs (lo, hi) in r[2i], r[2i + 1]: 0 where the law does not reach p
   (a step or a distance past 2^31, or a range leaving the address space). */
static int pairs_at(const rt_law *l, uint64_t p, uint64_t *r) {
  const int64_t far = INT64_C(1) << 31;
  uint64_t gap = p >= l->ref ? p - l->ref : l->ref - p;
  if (gap >= (uint64_t)far) return 0;
  int64_t dp = p >= l->ref ? (int64_t)gap : -(int64_t)gap;
  for (uint32_t i = 0; i < l->n; i++) {
    if (l->delta[i] <= -far || l->delta[i] >= far || l->lo[i] > INT64_MAX / 2 || l->hi[i] > INT64_MAX / 2) return 0;
    int64_t m = dp * l->delta[i], a = (int64_t)l->lo[i] + m, b = (int64_t)l->hi[i] + m;
    if (a < 0 || b < a) return 0;
    r[2 * i] = (uint64_t)a;
    r[2 * i + 1] = (uint64_t)b;
  }
  return 1;
}

uint64_t rt_tail_launches(const rt_tail *t, uint64_t cap_bytes) {
  const rt_law *l = &t->law;
  size_t n = l->n;
  uint64_t *r = n ? malloc(4 * n * sizeof *r) : NULL, k = 0;
  if (!t->len || !r || !pairs_at(l, t->len, r)) { free(r); return 0; }
  uint64_t sum = 0;                  /* the bytes a launch references (past the most: the most + 1) */
  for (size_t i = 0; i < n; i++) {
    uint64_t b = r[2 * i + 1] - r[2 * i];
    sum += b <= RT_TAIL_MAX_BYTES ? b : RT_TAIL_MAX_BYTES + 1;
  }
  uint64_t one = rt_ranges_union(r, n), both = one;
  /* what the last launch adds to the one before it */
  if (t->len > 1 && pairs_at(l, t->len, r) && pairs_at(l, t->len - 1, r + 2 * n)) both = rt_ranges_union(r, 2 * n);
  uint64_t adds = both - one, budget = 16 * cap_bytes < RT_TAIL_MAX_BYTES ? 16 * cap_bytes : RT_TAIL_MAX_BYTES;
  k = adds ? 1 + (2 * cap_bytes + adds - 1) / adds : 1;
  uint64_t most = sum > RT_TAIL_MAX_BYTES ? 0 : sum > budget ? 1 : budget / sum;
  if (k > most) k = most;
  if (k > RT_TAIL_MAX) k = RT_TAIL_MAX;
  if (k > t->len) k = t->len;
  free(r);
  return k;
}

int rt_tail_warm(rt_session *s, rt_kernel *k, size_t d, const rt_tail *t) {
  uint64_t n = rt_tail_launches(t, cgp_l2_capacity_bytes(&s->dev[d]));
  if (!n) return 0;
  if (t->streak && t->streak <= t->len - n + 1) return 1;   /* traced: the L2 holds them */
  cgp_analysis_set *an = rt_kernel_analyses(s, k, d);
  size_t m = t->law.n;
  uint64_t *r = malloc(4 * m * sizeof *r);
  if (!an || !r) { free(r); return 0; }
  uint64_t *lo = r + 2 * m, *hi = lo + m;
  for (uint64_t p = t->len - n + 1; p <= t->len; p++) {
    if (!pairs_at(&t->law, p, r)) continue;
    for (size_t i = 0; i < m; i++) { lo[i] = r[2 * i]; hi[i] = r[2 * i + 1]; }
    cgp_analysis_warm(an, lo, hi, m);
  }
  free(r);
  return 1;
}

/* ---- where a run's launches leave what the L2 holds (docs/model.md 5b) ---------------------- */

#define RT_EDGE_PROBES 16     /* units probed per range of a launch */
#define RT_EDGE_CHANGE 0.5    /* a launch's held share this far from the next launch's: an edge */

/* The share of run position p's ranges, by the law, that the L2 holds now (RT_EDGE_PROBES units
   of each range, evenly spread; ub: the L2's unit), or -1 where the law does not reach p. */
static double held_share(const cgp_l2 *l2, uint64_t ub, const rt_law *law, uint64_t p, uint64_t *r) {
  if (!pairs_at(law, p, r)) return -1;
  unsigned probed = 0, held = 0;
  for (uint32_t i = 0; i < law->n; i++) {
    if (!(r[2 * i] < r[2 * i + 1])) continue;
    uint64_t u0 = r[2 * i] / ub, u1 = (r[2 * i + 1] - 1) / ub, n = u1 - u0 + 1;
    uint64_t step = n > RT_EDGE_PROBES ? n / RT_EDGE_PROBES : 1;
    for (uint64_t u = u0; u <= u1 && probed < UINT32_MAX; u += step) {
      held += (unsigned)cgp_l2_holds(l2, u);
      probed++;
    }
  }
  return probed ? (double)held / probed : -1;
}

uint64_t rt_law_edge(const cgp_l2 *l2, uint64_t ub, const rt_law *law, uint64_t p, uint64_t span) {
  if (!l2 || !ub || span < 3 || !law->n) return 0;
  uint64_t *r = malloc(2 * law->n * sizeof *r);
  if (!r) return 0;
  double first = held_share(l2, ub, law, p + 1, r);
  uint64_t lo = 1, hi = 0;                      /* lo: like the first; hi: past the edge */
  for (uint64_t e = 2; first >= 0 && e < span; e = e < span / 2 ? 2 * e : span - 1) {
    double f = held_share(l2, ub, law, p + e, r);
    if (f < 0) break;
    if (fabs(f - first) > RT_EDGE_CHANGE) { hi = e; break; }
    lo = e;
    if (e == span - 1) break;
  }
  while (hi && hi - lo > 1) {                   /* the first launch past it, by halves */
    uint64_t mid = lo + (hi - lo) / 2;
    double f = held_share(l2, ub, law, p + mid, r);
    if (f >= 0 && fabs(f - first) > RT_EDGE_CHANGE) hi = mid;
    else lo = mid;
  }
  free(r);
  return hi;
}
