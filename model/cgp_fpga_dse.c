/* cgp_fpga_dse.c: the design search (docs/model.md 11.11). Bounded and deterministic: for each
   choice of pipelined loop (none; an innermost loop; a loop whose nested loops, at any depth, all
   have static trips, so that they unroll into it, and, when they are more than one level deep,
   whose window at unroll 1 is within CGP_FPGA_MAX_WINDOW operations), each unroll factor u of the target (the
   pipelined loop, or with none every innermost loop) among the powers of two up to
   CGP_FPGA_SEARCH_MAX_UNROLL that divide its trip count, and each partitioning (none;
   every array the target's window reads or writes cyclic by the copies that index it, on the
   dimension the most copies index, with its factor capped at 64, 32, ..., 2), the design is estimated; the fastest whose resources fit the
   device is kept, ties to the one with fewer DSPs, then BRAM18Ks, LUTs, FFs (the first in this
   order on a full tie). Designs the model refuses (a window above CGP_FPGA_MAX_WINDOW) are
   counted, not kept. */
#include "cgp_fpga.h"

#include <stdio.h>
#include <string.h>

static int is_leaf(const cgp_fpga_nest *n, unsigned l) {
  for (unsigned c = 0; c < n->n_loops; c++)
    if (n->loops[c].parent == (int)l && !n->loops[c].skip) return 0;
  return 1;
}

static int inside(const cgp_fpga_nest *n, unsigned l, int p) {
  for (int q = n->loops[l].parent; q >= 0; q = n->loops[q].parent)
    if (q == p) return 1;
  return 0;
}

/* Operations of one iteration of l with every loop nested in it fully unrolled, as the window of
   l pipelined at unroll 1 holds them (stops counting past CGP_FPGA_MAX_WINDOW). */
static uint64_t unrolled_ops(const cgp_fpga_nest *n, unsigned l) {
  uint64_t ops = n->loops[l].ddg->n_nodes;
  for (unsigned c = 0; c < n->n_loops && ops <= CGP_FPGA_MAX_WINDOW; c++)
    if (n->loops[c].parent == (int)l && !n->loops[c].skip) {
      uint64_t t = n->loops[c].trips, o = unrolled_ops(n, c);
      ops = o && t > (CGP_FPGA_MAX_WINDOW + 1 - ops) / o ? CGP_FPGA_MAX_WINDOW + 1 : ops + t * o;
    }
  return ops;
}

/* Can l be pipelined: every loop inside it, at any depth, has static trips (they unroll into it);
   when it holds loops two or more levels deep, its window at unroll 1 must also be within
   CGP_FPGA_MAX_WINDOW operations (an outer loop over a large nest would only be refused). */
static int pipelinable(const cgp_fpga_nest *n, unsigned l) {
  int deep = 0;
  for (unsigned c = 0; c < n->n_loops; c++) {
    if (!inside(n, c, (int)l) || n->loops[c].skip) continue;
    if (!n->loops[c].trips) return 0;
    deep |= n->loops[c].parent != (int)l;
  }
  return !n->loops[l].skip && (!deep || unrolled_ops(n, l) <= CGP_FPGA_MAX_WINDOW);
}

/* The element of dimension k an access touches at iteration numbers it. */
static uint64_t dim_index(const cgp_fpga_array *a, const cgp_fpga_access *acc, const uint32_t *it, unsigned k) {
  int64_t e = acc->offset;
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) e += acc->coef[l] * (int64_t)it[l];
  uint64_t flat = e < 0 ? 0 : (uint64_t)e;
  for (unsigned j = a->ndims; j-- > k + 1;) flat /= a->dims[j];
  return flat % a->dims[k];
}

/* Partition every array the unrolled loops' copies index: per array, the dimension whose index
   moves with the most copies (the product of the copies of the unrolled loops that move it; the
   last dimension on a tie), cyclic by that product rounded down to a power of two, at most cap
   and the dimension's size. 0 when no array is partitioned. */
static int partition_for(const cgp_fpga_nest *n, const unsigned *copies, unsigned cap, cgp_fpga_design *ds) {
  int any = 0;
  for (unsigned a = 0; a < n->n_arrays; a++) {
    const cgp_fpga_array *arr = &n->arrays[a];
    uint64_t best = 1;
    unsigned best_k = 0;
    for (unsigned k = arr->ndims; k-- > 0;) {
      uint64_t f = 1;
      for (unsigned u = 0; u < n->n_loops; u++) {
        if (copies[u] < 2) continue;
        int moves = 0;
        for (unsigned l = 0; l < n->n_loops && !moves; l++)
          for (unsigned v = 0; v < n->loops[l].ddg->n_nodes && !moves; v++) {
            const cgp_fpga_access *acc = n->loops[l].acc ? &n->loops[l].acc[v] : NULL;
            if (n->loops[l].ddg->nodes[v].array != (int)a || !acc || !acc->affine) continue;
            uint32_t it0[CGP_FPGA_MAX_LOOPS] = {0}, it1[CGP_FPGA_MAX_LOOPS] = {0};
            it1[u] = 1;
            moves = dim_index(arr, acc, it0, k) != dim_index(arr, acc, it1, k);
          }
        if (moves) f *= copies[u];
      }
      if (f > best) best = f, best_k = k;
    }
    uint64_t p = 1;
    while (p * 2 <= best && p * 2 <= cap && p * 2 <= arr->dims[best_k]) p *= 2;
    ds->part[a] = p >= 2 ? CGP_PART_CYCLIC : CGP_PART_NONE;
    ds->factor[a] = p >= 2 ? (unsigned)p : 0;
    ds->part_dim[a] = best_k;
    any |= p >= 2;
  }
  return any;
}

/* a better than b: faster, then fewer DSP, BRAM18K, LUT, FF. */
static int better(const cgp_fpga_estimate *a, const cgp_fpga_estimate *b) {
  if (a->cycles != b->cycles) return a->cycles < b->cycles;
  if (a->dsp != b->dsp) return a->dsp < b->dsp;
  if (a->bram18k != b->bram18k) return a->bram18k < b->bram18k;
  if (a->lut != b->lut) return a->lut < b->lut;
  return a->ff < b->ff;
}

int cgp_fpga_search(const cgp_fpga_device *d, const cgp_fpga_nest *n, cgp_fpga_design *best, cgp_fpga_estimate *be,
                    cgp_fpga_search_count *count, char *err, size_t errlen) {
  memset(count, 0, sizeof *count);
  int found = 0;
  for (int p = -1; p < (int)n->n_loops; p++) {
    if (p >= 0 && !pipelinable(n, (unsigned)p)) continue;
    for (unsigned u = 1; u <= CGP_FPGA_SEARCH_MAX_UNROLL; u *= 2) {
      cgp_fpga_design ds;
      cgp_fpga_design_baseline(&ds);
      ds.pipeline = p;
      unsigned copies[CGP_FPGA_MAX_LOOPS] = {0};
      int ok = 1;
      for (unsigned l = 0; l < n->n_loops; l++) {
        if (n->loops[l].skip) continue;
        int target = p >= 0 ? (int)l == p : is_leaf(n, l);
        if (p >= 0 && inside(n, l, p)) copies[l] = (unsigned)n->loops[l].trips; /* fully unrolled into p */
        if (!target) continue;
        if (u > 1 && (!n->loops[l].trips || n->loops[l].trips % u)) ok = 0;
        ds.unroll[l] = u, copies[l] = u;
      }
      if (!ok) break;
      /* partitions: none, then the rule's with the factor capped at 64, 32, ..., 2 */
      static const unsigned caps[] = {0, 64, 32, 16, 8, 4, 2};
      for (unsigned ci = 0; ci < sizeof caps / sizeof *caps; ci++) {
        if (caps[ci]) {
          unsigned before[CGP_FPGA_MAX_ARRAYS];
          memcpy(before, ds.factor, sizeof before);
          if (!partition_for(n, copies, caps[ci], &ds)) break;
          if (ci > 1 && !memcmp(before, ds.factor, sizeof before)) continue; /* the cap changed nothing */
        }
        cgp_fpga_estimate e;
        count->tried++;
        if (cgp_fpga_design_eval(d, n, &ds, &e, err, errlen)) {
          count->refused++;
          continue;
        }
        if (!e.known) return snprintf(err, errlen, "a trip count is not static: no design can be timed"), -1;
        if (!e.fits) continue;
        count->fitting++;
        if (!found || better(&e, be)) *best = ds, *be = e, found = 1;
      }
    }
  }
  if (!found) return snprintf(err, errlen, "none of the %u designs tried fits %s", count->tried, d->name), -1;
  err[0] = '\0';
  return 0;
}
