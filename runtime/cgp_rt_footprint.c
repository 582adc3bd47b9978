/* cgp_rt_footprint.c: a kernel's read and written bytes, measured on the traced warps of one
   device's windows (the footprint does not depend on the device; cgp_rt_nest.c takes the trace's) and
   carried to the whole launch by analyzer/cgp_footprint.c (docs/model.md section 12). Per batch,
   each site's byte range over its warp instructions, each reaching over the leaf-loop iterations
   it stands for with the address step the batch's first warp showed between two consecutive
   traced iterations (trusted when two steps in a row agree: an indirect access has none); per
   launch, the sites' ranges carried to the grid's end and merged into the kernel's sets. */
#include <stdlib.h>
#include <string.h>

#include "cgp_rt_footprint.h"
#include "cgp_rt_witer.h"   /* rt_wevent */

struct rt_footprint {
  size_t nsites;
  const uint8_t *kind;                          /* cgp_mem_kind per site */
  uint64_t *lo, *hi;                            /* this batch's range per site (lo > hi: none) */
  uint64_t *w0_last;                            /* warp 0's last address per site (0: none yet) */
  int64_t *step, *step_prev;                    /* its last two steps */
  cgp_extent *ext;                              /* per site, over the launch's batches */
  cgp_ranges read, written;                     /* the kernel's, over its launches */
  int lost;                                     /* a range could not be kept (out of memory) */
  uint64_t row_blocks;                          /* blocks in a row of the grid (0: not known yet) */
  uint64_t *bytes;                              /* per site, this launch's traced bytes */
  struct {                                      /* the last traced launches, oldest first */
    uint64_t run, pos;
    int dense;                                  /* every range within its traced bytes */
    uint64_t *lo, *hi;                          /* per site (lo >= hi: none) */
  } pt[RT_LAW_POINTS];
  unsigned npt;
};

rt_footprint *rt_footprint_new(size_t nsites, const uint8_t *kind) {
  rt_footprint *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  size_t n = nsites ? nsites : 1;
  f->nsites = nsites;
  f->kind = kind;
  f->lo = malloc(n * sizeof *f->lo);
  f->hi = malloc(n * sizeof *f->hi);
  f->w0_last = calloc(n, sizeof *f->w0_last);
  f->step = calloc(n, sizeof *f->step);
  f->step_prev = calloc(n, sizeof *f->step_prev);
  f->ext = malloc(n * sizeof *f->ext);
  f->bytes = calloc(n, sizeof *f->bytes);
  int pts = 1;
  for (unsigned i = 0; i < RT_LAW_POINTS; i++) {
    f->pt[i].lo = malloc(n * sizeof *f->pt[i].lo);
    f->pt[i].hi = malloc(n * sizeof *f->pt[i].hi);
    pts &= f->pt[i].lo && f->pt[i].hi;
  }
  if (!f->lo || !f->hi || !f->w0_last || !f->step || !f->step_prev || !f->ext || !f->bytes || !pts) {
    rt_footprint_free(f);
    return NULL;
  }
  for (size_t s = 0; s < nsites; s++) cgp_extent_reset(&f->ext[s]);
  rt_footprint_batch_begin(f);
  return f;
}

void rt_footprint_free(rt_footprint *f) {
  if (!f) return;
  free(f->lo); free(f->hi); free(f->w0_last); free(f->step); free(f->step_prev); free(f->ext); free(f->bytes);
  for (unsigned i = 0; i < RT_LAW_POINTS; i++) { free(f->pt[i].lo); free(f->pt[i].hi); }
  cgp_ranges_free(&f->read);
  cgp_ranges_free(&f->written);
  free(f);
}

void rt_footprint_batch_begin(rt_footprint *f) {
  for (size_t s = 0; s < f->nsites; s++) {
    f->lo[s] = UINT64_MAX;
    f->hi[s] = 0;
    f->w0_last[s] = 0;
  }
}

void rt_footprint_event(rt_footprint *f, uint32_t sid, unsigned warp, const uint64_t *addr, unsigned nact,
                        unsigned size, double skipped_after, int affine) {
  if (sid >= f->nsites || !nact) return;
  uint64_t lo = addr[0], hi = addr[0];
  if (affine) {
    if (addr[nact - 1] < lo) lo = addr[nact - 1];
    else hi = addr[nact - 1];
  } else {
    for (unsigned l = 1; l < nact; l++) {
      if (addr[l] < lo) lo = addr[l];
      if (addr[l] > hi) hi = addr[l];
    }
  }
  hi += size;
  f->bytes[sid] += (uint64_t)nact * size;
  if (warp == 0) {
    if (f->w0_last[sid]) {
      f->step_prev[sid] = f->step[sid];
      f->step[sid] = (int64_t)(addr[0] - f->w0_last[sid]);
    }
    f->w0_last[sid] = addr[0];
  }
  int64_t step = f->step[sid] == f->step_prev[sid] ? f->step[sid] : 0;
  /* a window's runs stand for the iterations skipped after it (rt_wevent.skipped_after) */
  cgp_footprint_event(lo, hi, step, skipped_after, 1, &lo, &hi);
  if (lo < f->lo[sid]) f->lo[sid] = lo;
  if (hi > f->hi[sid]) f->hi[sid] = hi;
}

void rt_footprint_row_blocks(rt_footprint *f, uint64_t blocks) { f->row_blocks = blocks; }

void rt_footprint_batch_end(rt_footprint *f, uint64_t end_block) {
  int row_end = f->row_blocks && end_block % f->row_blocks == 0;
  for (size_t s = 0; s < f->nsites; s++)
    if (f->lo[s] < f->hi[s]) cgp_extent_note(&f->ext[s], end_block, f->lo[s], f->hi[s], row_end);
  rt_footprint_batch_begin(f);
}

void rt_footprint_launch_end(rt_footprint *f, uint64_t blocks, uint64_t run, uint64_t pos) {
  if (f->npt == RT_LAW_POINTS) {                /* the oldest point's arrays become the newest's */
    uint64_t *lo = f->pt[0].lo, *hi = f->pt[0].hi;
    memmove(&f->pt[0], &f->pt[1], (RT_LAW_POINTS - 1) * sizeof f->pt[0]);
    f->pt[RT_LAW_POINTS - 1].lo = lo;
    f->pt[RT_LAW_POINTS - 1].hi = hi;
    f->npt--;
  }
  uint64_t *plo = f->pt[f->npt].lo, *phi = f->pt[f->npt].hi;
  int dense = 1;
  for (size_t s = 0; s < f->nsites; s++) {
    uint64_t lo, hi;
    plo[s] = 1;
    phi[s] = 0;
    if (cgp_extent_final(&f->ext[s], blocks, &lo, &hi)) {
      int k = f->kind[s];
      if (k != CGP_STORE && cgp_ranges_add(&f->read, lo, hi) != 0) f->lost = 1;
      if (k != CGP_LOAD && cgp_ranges_add(&f->written, lo, hi) != 0) f->lost = 1;
      plo[s] = lo;
      phi[s] = hi;
      dense &= hi - lo <= f->bytes[s];
    }
    cgp_extent_reset(&f->ext[s]);
    f->bytes[s] = 0;
  }
  f->pt[f->npt].run = run;
  f->pt[f->npt].pos = pos;
  f->pt[f->npt].dense = dense;
  f->npt++;
  f->row_blocks = 0;
}

/* (b - a) / n if n divides it exactly (as signed bytes), else INT64_MIN. */
static int64_t exact_step(uint64_t a, uint64_t b, uint64_t n) {
  int64_t d = (int64_t)(b - a);
  if (n == 0 || n > INT64_MAX || d == INT64_MIN) return INT64_MIN;
  return d % (int64_t)n == 0 ? d / (int64_t)n : INT64_MIN;
}

int rt_footprint_law(const rt_footprint *f, uint64_t run, rt_law *law) {
  memset(law, 0, sizeof *law);
  if (f->npt < RT_LAW_POINTS) return 0;
  for (unsigned i = 0; i < RT_LAW_POINTS; i++)
    if (f->pt[i].run != run || !f->pt[i].dense || (i && f->pt[i].pos <= f->pt[i - 1].pos)) return 0;
  if (rt_law_new(law, f->nsites ? f->nsites : 1)) return 0;
  const unsigned last = RT_LAW_POINTS - 1;
  for (size_t s = 0; s < f->nsites; s++) {
    int has = f->pt[last].lo[s] < f->pt[last].hi[s];
    for (unsigned i = 0; i < last; i++)
      if ((f->pt[i].lo[s] < f->pt[i].hi[s]) != has) { rt_law_free(law); return 0; }
    if (!has) continue;
    /* the step between the last two, and every earlier point on the same line, the size kept */
    int64_t d = exact_step(f->pt[last - 1].lo[s], f->pt[last].lo[s], f->pt[last].pos - f->pt[last - 1].pos);
    for (unsigned i = 0; i < last && d != INT64_MIN; i++) {
      uint64_t gap = f->pt[last].pos - f->pt[i].pos;
      if (exact_step(f->pt[i].lo[s], f->pt[last].lo[s], gap) != d ||
          f->pt[i].hi[s] - f->pt[i].lo[s] != f->pt[last].hi[s] - f->pt[last].lo[s])
        d = INT64_MIN;
    }
    if (d == INT64_MIN) { rt_law_free(law); return 0; }
    law->lo[law->n] = f->pt[last].lo[s];
    law->hi[law->n] = f->pt[last].hi[s];
    law->delta[law->n++] = d;
  }
  law->ref = f->pt[last].pos;
  if (!law->n) rt_law_free(law);               /* no site with a range: nothing to carry */
  return law->lo != NULL;
}

int rt_law_new(rt_law *law, size_t n) {
  memset(law, 0, sizeof *law);
  law->lo = malloc(n * sizeof *law->lo);
  law->hi = malloc(n * sizeof *law->hi);
  law->delta = malloc(n * sizeof *law->delta);
  if (law->lo && law->hi && law->delta) return 0;
  rt_law_free(law);
  return -1;
}

void rt_law_free(rt_law *law) {
  free(law->lo);
  free(law->hi);
  free(law->delta);
  memset(law, 0, sizeof *law);
}

static int by_lo(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

uint64_t rt_ranges_union(uint64_t *r, size_t n) {
  qsort(r, n, 2 * sizeof *r, by_lo);
  uint64_t sum = 0, lo = 0, hi = 0;
  for (size_t i = 0; i < n; i++) {
    if (i && r[2 * i] <= hi) {
      if (r[2 * i + 1] > hi) hi = r[2 * i + 1];
      continue;
    }
    sum += hi - lo;
    lo = r[2 * i];
    hi = r[2 * i + 1];
  }
  return sum + hi - lo;
}

uint64_t rt_footprint_last_span(const rt_footprint *f) {
  if (!f->npt) return 0;
  const uint64_t *lo = f->pt[f->npt - 1].lo, *hi = f->pt[f->npt - 1].hi;
  uint64_t *r = malloc(2 * (f->nsites ? f->nsites : 1) * sizeof *r);
  if (!r) return 0;
  size_t n = 0;
  for (size_t s = 0; s < f->nsites; s++)
    if (lo[s] < hi[s]) { r[2 * n] = lo[s]; r[2 * n + 1] = hi[s]; n++; }
  uint64_t bytes = rt_ranges_union(r, n);
  free(r);
  return bytes;
}

const cgp_ranges *rt_footprint_read(const rt_footprint *f) { return &f->read; }
const cgp_ranges *rt_footprint_written(const rt_footprint *f) { return &f->written; }
int rt_footprint_lost(const rt_footprint *f) { return f->lost; }
