/* cgp_fpga_design.c: one design of a nest (unroll factors, the pipelined loop, array partitions)
   estimated with the core (docs/model.md 11.10).

   Each loop not inside the pipelined one gets a window: its own operations, then (pipelined)
   every nested loop's iteration copied once per trip, that iteration holding the loops nested in
   it the same way, at any depth (fully unrolled, as HLS does inside a pipelined loop), and that
   whole iteration copied `unroll` times. In the copies a dependence of
   distance d from iteration t - d becomes one within the window when t - d falls in it, else one
   of distance ceil((d - t) / unroll) windows; an induction variable's update (i + 1) is copied
   as i + c, in parallel: its copies depend on the previous window, not on each other. The bank
   of each load and store is its array's partition applied to its element at the copy's iteration
   numbers (the loops outside the window at iteration 0). The window is scheduled (pipelined or
   not) and the nest composed by 11.5. */
#include "cgp_fpga.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  cgp_fpga_ddg g;
  unsigned *loop, *node;               /* per window node: the nest loop and node it copies */
  uint32_t (*iter)[CGP_FPGA_MAX_LOOPS]; /* per window node: iteration numbers within the window */
  unsigned cap;
} window;

static void window_free(window *w) {
  cgp_fpga_ddg_free(&w->g);
  free(w->loop);
  free(w->node);
  free(w->iter);
  memset(w, 0, sizeof *w);
}

/* Append a copy of node v of loop l with iteration numbers it (NULL: all 0); -1 on failure. */
static int copy_node(window *w, const cgp_fpga_nest *n, unsigned l, unsigned v, const uint32_t *it) {
  const cgp_fpga_node *src = &n->loops[l].ddg->nodes[v];
  if (w->g.n_nodes >= CGP_FPGA_MAX_WINDOW) return -1;
  int x = cgp_fpga_ddg_add(&w->g, src->op, src->type, src->width, src->array, 0);
  if (x < 0) return -1;
  w->g.nodes[x].induction = src->induction;
  if ((unsigned)x >= w->cap) {
    unsigned cap = w->cap ? 2 * w->cap : 64;
    unsigned *lp = realloc(w->loop, cap * sizeof *lp), *np = lp ? realloc(w->node, cap * sizeof *np) : NULL;
    if (lp) w->loop = lp;
    if (np) w->node = np;
    uint32_t(*ip)[CGP_FPGA_MAX_LOOPS] = np ? realloc(w->iter, cap * sizeof *ip) : NULL;
    if (!ip) return -1;
    w->iter = ip;
    w->cap = cap;
  }
  w->loop[x] = l;
  w->node[x] = v;
  if (it) memcpy(w->iter[x], it, sizeof w->iter[x]);
  else memset(w->iter[x], 0, sizeof w->iter[x]);
  return x;
}

/* Append `copies` copies of loop l's graph (iteration numbers base, loop l's set to the copy).
   Edges of distance d reach copy c from copy c - d; those from before the first copy are kept
   (distance ceil((d - c) / copies)) when carried is set, else dropped (a fully unrolled loop's
   first iteration has no predecessor). Induction updates chain to the previous window. */
static int append_copies(window *w, const cgp_fpga_nest *n, unsigned l, unsigned copies, const uint32_t *base,
                         int carried) {
  const cgp_fpga_ddg *g = n->loops[l].ddg;
  unsigned first = w->g.n_nodes;
  uint32_t it[CGP_FPGA_MAX_LOOPS];
  memcpy(it, base, sizeof it);
  for (unsigned c = 0; c < copies; c++) {
    it[l] = base[l] + c;
    for (unsigned v = 0; v < g->n_nodes; v++)
      if (copy_node(w, n, l, v, it) < 0) return -1;
  }
  for (unsigned c = 0; c < copies; c++)
    for (unsigned e = 0; e < g->n_edges; e++) {
      const cgp_fpga_edge *ed = &g->edges[e];
      unsigned to = first + c * g->n_nodes + ed->to;
      if (ed->distance && g->nodes[ed->from].induction && ed->from == ed->to) {
        if (carried && cgp_fpga_ddg_edge(&w->g, to, to, 1, 0)) return -1; /* i + c: from the last window */
        continue;
      }
      int64_t t = (int64_t)c - ed->distance;
      if (t >= 0) {
        if (cgp_fpga_ddg_edge(&w->g, first + (unsigned)t * g->n_nodes + ed->from, to, 0, ed->memory)) return -1;
      } else if (carried) {
        int64_t back = (-t + copies - 1) / copies, src = t + back * copies;
        if (cgp_fpga_ddg_edge(&w->g, first + (unsigned)src * g->n_nodes + ed->from, to, (unsigned)back, ed->memory))
          return -1;
      }
    }
  return 0;
}

/* Append window a `copies` times to b as iterations of loop l (the unroll of a combined window);
   a's edges are mapped as append_copies maps a loop's: those from before the first copy are kept
   when carried is set, else dropped (the copies are a fully unrolled loop's iterations), and so
   are the induction updates' chains to the previous window. */
static int unroll_window(const window *a, const cgp_fpga_nest *n, unsigned l, unsigned copies, window *b,
                         int carried) {
  unsigned first = b->g.n_nodes, m = a->g.n_nodes;
  for (unsigned c = 0; c < copies; c++)
    for (unsigned v = 0; v < m; v++) {
      uint32_t it[CGP_FPGA_MAX_LOOPS];
      memcpy(it, a->iter[v], sizeof it);
      it[l] += c;
      if (copy_node(b, n, a->loop[v], a->node[v], it) < 0) return -1;
    }
  for (unsigned c = 0; c < copies; c++)
    for (unsigned e = 0; e < a->g.n_edges; e++) {
      const cgp_fpga_edge *ed = &a->g.edges[e];
      unsigned to = first + c * m + ed->to;
      if (ed->distance && a->g.nodes[ed->from].induction && ed->from == ed->to) {
        if (carried && cgp_fpga_ddg_edge(&b->g, to, to, 1, 0)) return -1;
        continue;
      }
      int64_t t = (int64_t)c - ed->distance;
      if (t >= 0) {
        if (cgp_fpga_ddg_edge(&b->g, first + (unsigned)t * m + ed->from, to, 0, ed->memory)) return -1;
      } else if (carried) {
        int64_t back = (-t + copies - 1) / copies, src = t + back * copies;
        if (cgp_fpga_ddg_edge(&b->g, first + (unsigned)src * m + ed->from, to, (unsigned)back, ed->memory))
          return -1;
      }
    }
  return 0;
}

/* Append `copies` iterations of loop l to w: one iteration is l's own operations and, when
   nested is set, every loop nested in l fully unrolled (its trips iterations, each one such
   iteration, at any depth: HLS unrolls every loop inside a pipelined one); the iteration is then
   copied as unroll_window copies it (carried: l's dependences on iterations before the first
   copy are kept, else dropped). Iteration numbers from base. */
static int append_iterations(window *w, const cgp_fpga_nest *n, unsigned l, unsigned copies, const uint32_t *base,
                             int carried, int nested) {
  window one = {0};
  int rc = append_copies(&one, n, l, 1, base, 1);
  for (unsigned c = 0; !rc && nested && c < n->n_loops; c++)
    if (n->loops[c].parent == (int)l && !n->loops[c].skip)
      rc = append_iterations(&one, n, c, (unsigned)n->loops[c].trips, base, 0, 1);
  if (!rc) rc = unroll_window(&one, n, l, copies, w, carried);
  window_free(&one);
  return rc;
}

/* The array of the design's partition: nest's shape, one dimension partitioned. */
static cgp_fpga_array partitioned(const cgp_fpga_nest *n, const cgp_fpga_design *ds, unsigned a) {
  cgp_fpga_array r = n->arrays[a];
  for (unsigned k = 0; k < CGP_FPGA_MAX_DIMS; k++) r.part[k] = CGP_PART_NONE, r.factor[k] = 0;
  if (ds->part[a] != CGP_PART_NONE && ds->part_dim[a] < r.ndims) {
    r.part[ds->part_dim[a]] = ds->part[a];
    r.factor[ds->part_dim[a]] = ds->factor[a];
  }
  return r;
}

/* Each load and store's bank: its element at the copy's iteration numbers, split row-major. */
static void set_banks(window *w, const cgp_fpga_nest *n, const cgp_fpga_array *arr) {
  for (unsigned x = 0; x < w->g.n_nodes; x++) {
    cgp_fpga_node *nd = &w->g.nodes[x];
    if (nd->array < 0 || (unsigned)nd->array >= n->n_arrays) continue;
    const cgp_fpga_access *acc = n->loops[w->loop[x]].acc ? &n->loops[w->loop[x]].acc[w->node[x]] : NULL;
    nd->bank = 0;
    if (!acc || !acc->affine) continue;
    int64_t e = acc->offset;
    for (unsigned l = 0; l < n->n_loops; l++) e += acc->coef[l] * (int64_t)w->iter[x][l];
    const cgp_fpga_array *a = &arr[nd->array];
    uint64_t idx[CGP_FPGA_MAX_DIMS], flat = e < 0 ? 0 : (uint64_t)e;
    for (unsigned k = a->ndims; k-- > 0;) idx[k] = flat % a->dims[k], flat /= a->dims[k];
    nd->bank = (unsigned)cgp_fpga_bank(a, idx);
  }
}

static int inside(const cgp_fpga_nest *n, unsigned l, int p) {
  for (int q = n->loops[l].parent; q >= 0; q = n->loops[q].parent)
    if (q == p) return 1;
  return 0;
}

void cgp_fpga_design_baseline(cgp_fpga_design *ds) {
  memset(ds, 0, sizeof *ds);
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) ds->unroll[l] = 1;
  ds->pipeline = -1;
}

static int check(const cgp_fpga_nest *n, const cgp_fpga_design *ds, char *err, size_t errlen) {
  if (n->n_loops < 1 || n->n_loops > CGP_FPGA_MAX_LOOPS || n->n_arrays > CGP_FPGA_MAX_ARRAYS)
    return snprintf(err, errlen, "a nest of 1 to %d loops and at most %d arrays", CGP_FPGA_MAX_LOOPS,
                    CGP_FPGA_MAX_ARRAYS), -1;
  int p = ds->pipeline;
  if (p >= (int)n->n_loops) return snprintf(err, errlen, "no loop %d in the nest", p), -1;
  if (p >= 0 && n->loops[p].skip) return snprintf(err, errlen, "loop %d is another version of a loop", p), -1;
  for (unsigned l = 0; l < n->n_loops; l++) {
    if (n->loops[l].skip) continue;
    int leaf = 1;
    for (unsigned c = 0; c < n->n_loops; c++) leaf &= n->loops[c].parent != (int)l || n->loops[c].skip;
    if (!ds->unroll[l]) return snprintf(err, errlen, "loop %u: unroll factor 0 (1 = not unrolled)", l), -1;
    if (p >= 0 && inside(n, l, p)) {
      if (!n->loops[l].trips) return snprintf(err, errlen, "loop %u: inside the pipelined loop it is fully unrolled, "
                                              "which needs a static trip count", l), -1;
      continue;
    }
    if (ds->unroll[l] > 1 && !leaf && (int)l != p)
      return snprintf(err, errlen, "loop %u: unrolling a loop that holds loops not unrolled is not modelled (unroll "
                      "an innermost loop, or pipeline the loop)", l), -1;
  }
  return 0;
}

/* Schedule loop l's window under design ds (pipelined when l is the pipelined loop). */
static int schedule_loop(const cgp_fpga_device *d, const cgp_fpga_nest *n, const cgp_fpga_design *ds,
                         const cgp_fpga_array *arr, const unsigned *ports, unsigned l, cgp_fpga_estimate *e,
                         cgp_fpga_usage *u, char *err, size_t errlen) {
  window w = {0};
  uint32_t zero[CGP_FPGA_MAX_LOOPS] = {0};
  int p = ds->pipeline, rc = append_iterations(&w, n, l, ds->unroll[l], zero, 1, (int)l == p);
  if (rc) {
    window_free(&w);
    return snprintf(err, errlen, "loop %u: its window passes %d operations (or memory ran out): a smaller unroll%s",
                    l, CGP_FPGA_MAX_WINDOW, (int)l == p ? ", or pipeline a loop inside it" : ""), -1;
  }
  set_banks(&w, n, arr);
  cgp_fpga_limits lim = {.n_arrays = n->n_arrays, .ports = ports, .write_ports = ports};
  cgp_fpga_sched s;
  if (cgp_fpga_schedule(d, &w.g, &lim, (int)l == p, &s, err, errlen)) {
    window_free(&w);
    return -1;
  }
  e->il[l] = s.il;
  e->ii[l] = s.ii;
  unsigned b = s.ii_memory > s.ii_units ? s.ii_memory : s.ii_units;
  e->ii_bound[l] = s.ii_recurrence > b ? s.ii_recurrence : (b ? b : 1);
  e->bound[l] = s.bound;
  e->window[l] = w.g.n_nodes;
  rc = cgp_fpga_sched_usage(d, &w.g, &s, u);
  if (rc) snprintf(err, errlen, "loop %u: cannot cost its operators", l);
  cgp_fpga_sched_free(&s);
  window_free(&w);
  return rc;
}

int cgp_fpga_design_eval(const cgp_fpga_device *d, const cgp_fpga_nest *n, const cgp_fpga_design *ds,
                         cgp_fpga_estimate *e, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  if (check(n, ds, err, errlen)) return -1;
  cgp_fpga_array arr[CGP_FPGA_MAX_ARRAYS];
  unsigned ports[CGP_FPGA_MAX_ARRAYS];
  for (unsigned a = 0; a < n->n_arrays; a++) {
    arr[a] = partitioned(n, ds, a);
    if (cgp_fpga_array_check(&arr[a], err, errlen)) return -1;
    ports[a] = cgp_fpga_is_registers(&arr[a]) ? CGP_FPGA_UNLIMITED : 0;
    if (n->on_chip[a]) {
      e->bram18k += cgp_fpga_bram18k(d, &arr[a]);
      e->ff += cgp_fpga_array_ff(&arr[a]);
    }
  }
  int p = ds->pipeline;
  cgp_fpga_loop tree[CGP_FPGA_MAX_LOOPS], kids[CGP_FPGA_MAX_LOOPS][CGP_FPGA_MAX_LOOPS];
  e->known = 1;
  for (unsigned l = 0; l < n->n_loops; l++) {
    int in_p = p >= 0 && inside(n, l, p);
    e->unroll[l] = in_p ? (unsigned)n->loops[l].trips : ds->unroll[l];
    if (in_p || n->loops[l].skip) continue;
    e->known &= n->loops[l].trips != 0;
    cgp_fpga_usage u;
    if (schedule_loop(d, n, ds, arr, ports, l, e, &u, err, errlen)) return -1;
    e->scheduled[l] = 1;
    e->dsp += u.dsp, e->lut += u.lut, e->ff += u.ff;
  }
  /* children before parents: a parent's array of children is filled when it is read */
  for (unsigned l = n->n_loops; l-- > 0;) {
    if (!e->scheduled[l]) continue;
    unsigned nc = 0;
    for (unsigned c = 0; c < n->n_loops; c++)
      if (n->loops[c].parent == (int)l && e->scheduled[c]) kids[l][nc++] = tree[c];
    tree[l] = (cgp_fpga_loop){.trips = n->loops[l].trips, .unroll = ds->unroll[l], .il = e->il[l], .ii = e->ii[l],
                              .pipelined = (int)l == p, .children = nc ? kids[l] : NULL, .n_children = nc};
  }
  if (e->known && cgp_fpga_loop_latency(d, &tree[0], &e->cycles, err, errlen)) return -1;
  for (unsigned l = 0; e->known && l < n->n_loops; l++)
    if (e->scheduled[l] && cgp_fpga_loop_latency(d, &tree[l], &e->latency[l], err, errlen)) return -1;
  e->fits = e->dsp <= d->dsp && e->bram18k <= d->bram18k && e->lut <= d->lut && e->ff <= d->ff;
  return 0;
}
