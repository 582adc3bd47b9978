/* cgp_deps_law.c: dependences beyond the traced threads, from each site's address law.

   The dependence check (cgp_an_deps.c) is exact among the threads it was fed: an analysed launch's
   first window. A conflict with a thread outside it is missed: TSVC's s1113,
   `a[i] = a[LEN_1D / 2] + b[i]`, every thread reading the element thread LEN_1D / 2 writes, was
   called parallel. Here, per site, the traced threads' addresses are checked against one affine
   law of the thread's coordinates,

       addr = base + stride[0] x + stride[1] y + stride[2] z,

   learned from the first access (base, at its thread) and, per coordinate, the first access whose
   thread differs from it in that coordinate alone; every access after that must fit, else the
   site has no law (a site in a loop of the thread, one indexed by data or by a branch). After the
   launch, cgp_laws_beyond solves two laws over the whole grid (each coordinate from the smallest
   the traced threads had to 1 + the largest the launch ran):
   - a load every thread makes at one address (all strides 0) and a store with a law: the thread
     whose store writes that address, if the grid has it, writes what every other thread reads;
   - two sites of one law but their bases (a[i] = a[i + 1000]): thread x + delta writes what
     thread x reads or writes, for the delta that takes one base to the other, if the grid holds
     two threads that far apart.
   Other pairs (different strides: a transpose in place) are not solved. A conflict the check
   already found between the same two sites is not said again. Only a site every thread of each
   of its warps ran has a law for the grid: a store under a condition (`if (i < 2000) c[i] = ...`)
   leaves lanes out of a warp, and thread 31999 would be said to write c[31999]. A law is still
   the traced threads': a condition that holds for every traced thread and not beyond them (`i <
   2048` with 2048 threads traced) is taken as every thread's, so what this finds is marked
   `extrapolated` and said so. */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint8_t seen, broken, store;
  uint8_t some;                 /* some warp ran it with fewer lanes than it has threads: a store
                                   under a condition (`if (i < 2000)`), not every thread's */
  uint8_t known;                /* bit d: stride[d] learned */
  int64_t t0[3];                /* the first access's thread */
  uint64_t a0;                  /* and its address */
  int64_t stride[3];            /* bytes per step of each coordinate */
} law;

struct cgp_laws {
  size_t nsid, cap;             /* sites seen this launch (1 + the largest), laws allocated */
  int dims;
  law *l;
  int64_t lo[3];                /* the smallest coordinates seen */
  int any;
};

cgp_laws *cgp_laws_new(void) { return calloc(1, sizeof(cgp_laws)); }

void cgp_laws_free(cgp_laws *s) {
  if (!s) return;
  free(s->l);
  free(s);
}

void cgp_laws_reset(cgp_laws *s, int dims) {
  if (s->nsid) memset(s->l, 0, s->nsid * sizeof *s->l);
  s->nsid = 0;
  s->dims = dims < 1 ? 1 : dims > 3 ? 3 : dims;
  s->any = 0;
}

/* Room for site sid (laws zeroed); 0 if out of memory. */
static int room(cgp_laws *s, uint32_t sid) {
  if (sid >= s->cap) {
    size_t n = s->cap ? s->cap : 64;
    while (n <= sid) n *= 2;
    law *p = realloc(s->l, n * sizeof *p);
    if (!p) return 0;
    memset(p + s->cap, 0, (n - s->cap) * sizeof *p);
    s->l = p;
    s->cap = n;
  }
  if (sid >= s->nsid) s->nsid = (size_t)sid + 1;
  return 1;
}

void cgp_laws_see(cgp_laws *s, uint32_t sid, uint64_t thread, uint64_t addr, int is_store, int whole) {
  if (!room(s, sid)) return;
  law *w = &s->l[sid];
  if (!whole) w->some = 1;
  uint64_t xyz[3];
  cgp_thread_unkey(s->dims, thread, xyz);
  int64_t t[3] = {(int64_t)xyz[0], (int64_t)xyz[1], (int64_t)xyz[2]};
  for (int d = 0; d < 3; d++)
    if (!s->any || t[d] < s->lo[d]) s->lo[d] = t[d];
  s->any = 1;
  if (w->broken) return;
  if (!w->seen) {
    w->seen = 1;
    w->store = (uint8_t)(is_store != 0);
    memcpy(w->t0, t, sizeof t);
    w->a0 = addr;
    return;
  }
  int64_t dt[3], off = (int64_t)(addr - w->a0);
  int unknown = -1, nunknown = 0;
  for (int d = 0; d < 3; d++) {
    dt[d] = t[d] - w->t0[d];
    if (!dt[d]) continue;
    if (w->known >> d & 1) off -= w->stride[d] * dt[d];
    else { unknown = d; nunknown++; }
  }
  if (nunknown == 0) {
    if (off != 0) w->broken = 1;              /* another address for a thread the law places */
  } else if (nunknown == 1) {
    if (off % dt[unknown]) w->broken = 1;
    else {
      w->stride[unknown] = off / dt[unknown];
      w->known |= (uint8_t)(1u << unknown);
    }
  }                                           /* two unknown at once: says nothing yet */
}

/* The address at thread t, by law w. */
static uint64_t at(const law *w, const int64_t t[3]) {
  uint64_t a = w->a0;
  for (int d = 0; d < 3; d++) a += (uint64_t)(w->stride[d] * (t[d] - w->t0[d]));
  return a;
}

/* Coordinates x (each in [lo, hi)) with sum_d stride[d] (x[d] - t0[d]) = off, by w's strides,
   largest first; a coordinate of stride 0 takes rest's. At each stride but the smallest the
   quotient rounded down and up are both tried (with row-major strides a coordinate's step is less
   than the next one's, so one of them is it: thread x - 1 of the next row is off / row rounded
   up); the smallest must divide what is left. 1 if found. */
static int solve_from(const law *w, const int order[3], int i, int n, int64_t rem, const int64_t lo[3],
                      const int64_t hi[3], int64_t x[3]) {
  if (i >= n || i >= 3) return rem == 0;
  int d = order[i];
  int64_t st = w->stride[d], q = rem / st;
  if (rem % st && (rem < 0) != (st < 0)) q--;             /* floor */
  for (int up = 0; up < (i + 1 < n ? 2 : 1); up++) {
    x[d] = w->t0[d] + q + up;
    if (x[d] >= lo[d] && x[d] < hi[d] && solve_from(w, order, i + 1, n, rem - (q + up) * st, lo, hi, x)) return 1;
  }
  return 0;
}

static int solve(const law *w, int dims, int64_t off, const int64_t lo[3], const int64_t hi[3], const int64_t rest[3],
                 int64_t x[3]) {
  int order[3], n = 0;
  for (int d = 0; d < dims; d++)
    if (w->stride[d]) order[n++] = d;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (llabs(w->stride[order[j]]) > llabs(w->stride[order[i]])) { int t = order[i]; order[i] = order[j]; order[j] = t; }
  for (int d = 0; d < 3; d++) x[d] = rest[d];
  if (!solve_from(w, order, 0, n, off, lo, hi, x)) return 0;
  for (int d = 0; d < 3; d++)
    if (x[d] < lo[d] || x[d] >= hi[d]) return 0;
  return 1;
}

/* A law for the whole grid: seen, not broken, run by every thread of its warps, every coordinate
   the grid spans learned. */
static int usable(const law *w, int dims, const int64_t lo[3], const int64_t hi[3]) {
  if (!w->seen || w->broken || w->some) return 0;
  for (int d = 0; d < dims; d++)
    if (hi[d] - lo[d] > 1 && !(w->known >> d & 1)) return 0;
  return 1;
}

static int already(const cgp_dep *found, size_t n, uint32_t a, uint32_t b) {
  for (size_t i = 0; i < n; i++)
    if ((found[i].first_sid == a && found[i].second_sid == b) || (found[i].first_sid == b && found[i].second_sid == a))
      return 1;
  return 0;
}

static uint64_t key(int dims, const int64_t t[3]) {
  return cgp_thread_key(dims, (uint64_t)t[0], (uint64_t)t[1], (uint64_t)t[2]);
}

/* The conflict of store site s at thread ts with site o at thread to (o a store: waw), in the
   order the nest runs them. */
static cgp_dep conflict(int dims, uint64_t order, uint32_t s, const int64_t ts[3], uint32_t o, const int64_t to[3],
                        int o_store, uint64_t addr) {
  uint64_t ks = key(dims, ts), ko = key(dims, to);
  int s_first = (ks ^ order) < (ko ^ order);
  cgp_dep d = {.count = 0, .addr = addr, .extrapolated = 1};
  d.kind = o_store ? CGP_DEP_WAW : s_first ? CGP_DEP_RAW : CGP_DEP_WAR;
  d.first_sid = s_first ? s : o;
  d.second_sid = s_first ? o : s;
  d.first_thread = s_first ? ks : ko;
  d.second_thread = s_first ? ko : ks;
  return d;
}

size_t cgp_laws_beyond(const cgp_laws *s, const uint64_t hi_in[3], uint64_t order, const cgp_dep *found, size_t nfound,
                       cgp_dep *out, size_t cap) {
  if (!s->any) return 0;
  int dims = s->dims;
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = d < dims ? s->lo[d] : 0;
    hi[d] = d < dims ? (int64_t)hi_in[d] : 1;
    if (hi[d] <= lo[d]) hi[d] = lo[d] + 1;
  }
  size_t n = 0;
  for (uint32_t si = 0; si < s->nsid && n < cap; si++) {
    const law *ws = &s->l[si];
    if (!ws->store || !usable(ws, dims, lo, hi)) continue;
    int moves = 0;
    for (int d = 0; d < dims; d++) moves |= ws->stride[d] != 0;
    if (!moves) continue;                     /* every thread's one element: the check sees that */
    for (uint32_t oi = 0; oi < s->nsid && n < cap; oi++) {
      const law *wo = &s->l[oi];
      if (oi == si || !usable(wo, dims, lo, hi) || already(found, nfound, si, oi) || already(out, n, si, oi)) continue;
      int uniform = 1, same = 1;
      for (int d = 0; d < dims; d++) {
        uniform &= wo->stride[d] == 0;
        same &= wo->stride[d] == ws->stride[d];
      }
      int64_t ts[3], to[3];
      if (uniform) {                          /* every thread at one address: who writes it? */
        if (wo->store) continue;              /* every thread writes it: the check sees that */
        uint64_t addr = wo->a0;
        if (!solve(ws, dims, (int64_t)(addr - ws->a0), lo, hi, lo, ts)) continue;
        memcpy(to, ts, sizeof to);            /* a reader beside it: the next thread, else the one before */
        int moved = 0;
        for (int d = 0; d < dims && !moved; d++) {
          if (to[d] + 1 < hi[d]) { to[d]++; moved = 1; }
          else if (to[d] - 1 >= lo[d]) { to[d]--; moved = 1; }
        }
        if (!moved) continue;                 /* a grid of one thread */
        out[n++] = conflict(dims, order, si, ts, oi, to, 0, addr);
      } else if (same) {                      /* thread x + delta's store meets thread x's access */
        int64_t base_o[3], delta[3];
        /* the store's law at o's first thread: the two differ by a constant number of bytes */
        int64_t off = (int64_t)(wo->a0 - at(ws, wo->t0));
        if (!off) continue;                   /* one element a thread: no conflict */
        int64_t wide_lo[3], wide_hi[3];
        for (int d = 0; d < 3; d++) {
          wide_lo[d] = wo->t0[d] - (hi[d] - lo[d]) + 1;
          wide_hi[d] = wo->t0[d] + (hi[d] - lo[d]);
        }
        if (!solve(ws, dims, (int64_t)(wo->a0 - ws->a0), wide_lo, wide_hi, wo->t0, base_o)) continue;
        for (int d = 0; d < 3; d++) delta[d] = base_o[d] - wo->t0[d];   /* store at o's thread + delta */
        int ok = 1;
        for (int d = 0; d < 3; d++) {
          to[d] = delta[d] >= 0 ? lo[d] : lo[d] - delta[d];
          ts[d] = to[d] + delta[d];
          ok &= ts[d] >= lo[d] && ts[d] < hi[d] && to[d] < hi[d];
        }
        if (!ok) continue;
        out[n++] = conflict(dims, order, si, ts, oi, to, wo->store, at(wo, to));
      }
    }
  }
  return n;
}
