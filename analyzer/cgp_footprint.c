/* cgp_footprint.c: the bytes a kernel reads and writes, as address ranges (docs/model.md
   section 12, "What the host copies").

   A CUDA port copies to the device what its kernels read and back what they write. The runtime
   traces a sample, so each static site's range is measured on the sample and carried to the
   whole launch in two steps, both exact for an affine access and exact outright when nothing was
   sampled away (`full` mode, CGPREDICT_ITERATIONS=all):
   - along a sampled leaf loop: a warp instruction standing for `skipped` executions per
     iteration of a window of `window` iterations stands for the iterations up to window x
     skipped further on, so its range reaches delta x window x skipped beyond it, delta being the
     address step between two consecutive traced iterations (cgp_footprint_event);
   - along the grid: the blocks not traced lie between and after the traced ones; a site's
     lowest and highest address move with the block number as they moved from the launch's
     first traced batch to its last one, and are carried on to the grid's end that way
     (cgp_extent_final). A site whose range does not move (every block reads all of B in GEMM)
     keeps it.
   The ranges of a kernel's sites are then merged into one set (cgp_ranges): what is read, and
   what is written, each byte counted once. Ranges are in the GPU's address space (the
   runtime's cudaMalloc placement), where arrays keep their sizes and never overlap. */
#include <stdlib.h>
#include <string.h>

#include "cgp_analyzer.h"

void cgp_footprint_event(uint64_t lo, uint64_t hi, int64_t delta, double skipped, unsigned window,
                         uint64_t *out_lo, uint64_t *out_hi) {
  *out_lo = lo;
  *out_hi = hi;
  if (!(skipped > 0) || delta == 0) return;
  double reach = (double)delta * (double)window * skipped;   /* bytes, signed */
  if (reach > 0) {
    double h = (double)hi + reach;
    *out_hi = h >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)h;
  } else {
    double l = (double)lo + reach;
    *out_lo = l <= 0 ? 0 : (uint64_t)l;
  }
}

void cgp_extent_reset(cgp_extent *e) {
  memset(e, 0, sizeof *e);
  e->lo = UINT64_MAX;
}

static void track_note(cgp_extent_track *t, uint64_t end_block, uint64_t lo, uint64_t hi) {
  if (!t->batches || end_block < t->first_end) {
    t->first_end = end_block;
    t->first_lo = lo;
    t->first_hi = hi;
  } else if (end_block == t->first_end) {       /* the same batch again (another window's turn) */
    if (lo < t->first_lo) t->first_lo = lo;
    if (hi > t->first_hi) t->first_hi = hi;
  }
  if (!t->batches || end_block > t->last_end) {
    t->last_end = end_block;
    t->last_lo = lo;
    t->last_hi = hi;
  } else if (end_block == t->last_end) {
    if (lo < t->last_lo) t->last_lo = lo;
    if (hi > t->last_hi) t->last_hi = hi;
  }
  t->batches++;
}

void cgp_extent_note(cgp_extent *e, uint64_t end_block, uint64_t lo, uint64_t hi, int row_end) {
  if (lo >= hi) return;
  track_note(&e->all, end_block, lo, hi);
  if (row_end) track_note(&e->rows, end_block, lo, hi);
  if (lo < e->lo) e->lo = lo;
  if (hi > e->hi) e->hi = hi;
}

int cgp_extent_final(const cgp_extent *e, uint64_t blocks, uint64_t *lo, uint64_t *hi) {
  if (!e->all.batches || e->lo >= e->hi) return 0;
  *lo = e->lo;
  *hi = e->hi;
  /* from the batches ending rows of blocks when two did (the grid ends a row too), else from all */
  const cgp_extent_track *t = e->rows.last_end > e->rows.first_end ? &e->rows : &e->all;
  if (blocks <= t->last_end || t->last_end <= t->first_end) return 1;
  double span = (double)(t->last_end - t->first_end), ahead = (double)(blocks - t->last_end);
  double up = ((double)t->last_hi - (double)t->first_hi) / span * ahead;
  double down = ((double)t->first_lo - (double)t->last_lo) / span * ahead;
  if (up > 0) {
    double h = (double)t->last_hi + up;
    uint64_t x = h >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)h;
    if (x > *hi) *hi = x;
  }
  if (down > 0) {
    double l = (double)t->last_lo - down;
    uint64_t x = l <= 0 ? 0 : (uint64_t)l;
    if (x < *lo) *lo = x;
  }
  return 1;
}

/* ---- range sets --------------------------------------------------------------------------------
   Invariant: r->n ranges [lo, hi), sorted by lo, disjoint and not touching (hi < next lo). Past
   CGP_RANGES_MAX ranges the two closest are joined, which only counts more bytes (the gap). */

void cgp_ranges_init(cgp_ranges *r) { memset(r, 0, sizeof *r); }

void cgp_ranges_free(cgp_ranges *r) {
  free(r->r);
  cgp_ranges_init(r);
}

static void join_closest(cgp_ranges *r) {
  size_t best = 0;
  for (size_t i = 1; i + 1 < r->n; i++)
    if (r->r[i + 1].lo - r->r[i].hi < r->r[best + 1].lo - r->r[best].hi) best = i;
  r->r[best].hi = r->r[best + 1].hi;
  memmove(&r->r[best + 1], &r->r[best + 2], (r->n - best - 2) * sizeof *r->r);
  r->n--;
}

int cgp_ranges_add(cgp_ranges *r, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return 0;
  /* first range that ends at or after lo: everything before it stays */
  size_t a = 0;
  while (a < r->n && r->r[a].hi < lo) a++;
  size_t b = a;                                 /* ranges a .. b-1 touch [lo, hi) */
  while (b < r->n && r->r[b].lo <= hi) b++;
  if (b > a) {
    if (r->r[a].lo < lo) lo = r->r[a].lo;
    if (r->r[b - 1].hi > hi) hi = r->r[b - 1].hi;
    r->r[a].lo = lo;
    r->r[a].hi = hi;
    memmove(&r->r[a + 1], &r->r[b], (r->n - b) * sizeof *r->r);
    r->n -= b - a - 1;
    return 0;
  }
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 8;
    if (cap > CGP_RANGES_MAX + 1) cap = CGP_RANGES_MAX + 1;
    if (r->n == cap) return -1;
    cgp_range *bigger = realloc(r->r, cap * sizeof *bigger);
    if (!bigger) return -1;
    r->r = bigger;
    r->cap = cap;
  }
  memmove(&r->r[a + 1], &r->r[a], (r->n - a) * sizeof *r->r);
  r->r[a].lo = lo;
  r->r[a].hi = hi;
  r->n++;
  if (r->n > CGP_RANGES_MAX) join_closest(r);
  return 0;
}

int cgp_ranges_merge(cgp_ranges *dst, const cgp_ranges *src) {
  for (size_t i = 0; i < src->n; i++)
    if (cgp_ranges_add(dst, src->r[i].lo, src->r[i].hi) != 0) return -1;
  return 0;
}

uint64_t cgp_ranges_bytes(const cgp_ranges *r) {
  uint64_t n = 0;
  for (size_t i = 0; i < r->n; i++) n += r->r[i].hi - r->r[i].lo;
  return n;
}

int cgp_ranges_add_outside(cgp_ranges *r, uint64_t lo, uint64_t hi, const cgp_ranges *not) {
  for (size_t i = 0; i < not->n && lo < hi; i++) {
    const cgp_range *x = &not->r[i];
    if (x->hi <= lo) continue;
    if (x->lo >= hi) break;                     /* sorted: none further overlaps */
    if (x->lo > lo && cgp_ranges_add(r, lo, x->lo) != 0) return -1;
    lo = x->hi;
  }
  return lo < hi ? cgp_ranges_add(r, lo, hi) : 0;
}
