/* cgp_fpga_sched.c: the list schedule of one iteration window and its initiation interval
   (docs/model.md 11.2-11.4).

   Time is (cycle, offset in ns). An operation starts where its last input is ready. A
   combinational one (latency 0) chains into that cycle when offset + delay fits the budget
   (period less uncertainty), else starts the next cycle; one slower than the whole budget spans
   ceil(delay / budget) cycles from a cycle boundary. A registered one (latency L >= 1) starts in
   that cycle when its first stage's delay fits after the offset, and its result is ready in cycle
   start + L, which it occupies (the cycle its result is captured in), at offset delay: its last
   stage has the same delay as its first (docs/model.md 11.2), so a consumer chains into that
   cycle only if its own delay fits after it. A value
   stored to memory can be loaded the cycle after the store's. Memory operations take a port of
   their array's bank in the cycle they start (at most `ports` accesses, `write_ports` of them
   writes); a capped operator kind takes one of its operators in that cycle. In a pipelined loop
   these reservations are taken modulo II, as a modulo schedule does. */
#include "cgp_fpga.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A resource use per cycle slot: memory (array >= 0, bank) or operator kind (array = -1 - op). */
typedef struct slot {
  int64_t array;
  uint64_t bank, cycle;
  unsigned uses, writes, used;
} slot;

typedef struct table {
  slot *s;
  size_t cap, n;
} table;

static uint64_t hash(int64_t a, uint64_t b, uint64_t c) {
  uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full ^ c * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

static slot *lookup(table *t, int64_t a, uint64_t b, uint64_t c, int create) {
  if (create && (t->n + 1) * 2 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    slot *bigger = calloc(cap, sizeof *bigger);
    if (!bigger) return NULL;
    for (size_t i = 0; i < t->cap; i++)
      if (t->s[i].used) {
        size_t j = hash(t->s[i].array, t->s[i].bank, t->s[i].cycle) & (cap - 1);
        while (bigger[j].used) j = (j + 1) & (cap - 1);
        bigger[j] = t->s[i];
      }
    free(t->s);
    t->s = bigger;
    t->cap = cap;
  }
  if (!t->cap) return NULL;
  for (size_t j = hash(a, b, c) & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
    slot *s = &t->s[j];
    if (!s->used) {
      if (!create) return NULL;
      *s = (slot){.array = a, .bank = b, .cycle = c, .used = 1};
      t->n++;
      return s;
    }
    if (s->array == a && s->bank == b && s->cycle == c) return s;
  }
}

typedef struct ctx {
  const cgp_fpga_device *d;
  const cgp_fpga_ddg *g;
  const cgp_fpga_limits *lim;
  double budget;
  unsigned *in_start, *in_edges; /* incoming edges within the window, CSR by target */
} ctx;

static unsigned ports_of(const ctx *x, int array, int write) {
  const cgp_fpga_limits *l = x->lim;
  const unsigned *p = l && (unsigned)array < l->n_arrays ? (write ? l->write_ports : l->ports) : NULL;
  if (p && p[array]) return p[array];
  return write ? x->d->bram_write_ports : x->d->bram_ports;
}

/* The stores of each bank not placed yet (slot key PENDING), so that in a modulo schedule a read
   never takes the last port of a slot that a later write of its bank needs (below). */
#define PENDING UINT64_MAX

/* Write capacity left in bank (array, bank) over the ii slots: sum of min(free write ports, free
   ports); `extra` slot sl counted with one more read. */
static uint64_t write_room(table *t, int array, uint64_t bank, unsigned ii, unsigned p, unsigned w, uint64_t sl) {
  uint64_t room = 0;
  for (uint64_t k = 0; k < ii; k++) {
    slot *s = lookup(t, array, bank, k, 0);
    unsigned uses = (s ? s->uses : 0) + (k == sl), writes = s ? s->writes : 0;
    unsigned fp = uses < p ? p - uses : 0, fw = writes < w ? w - writes : 0;
    room += fp < fw ? fp : fw;
  }
  return room;
}

/* Can node v take its resources in cycle c (slot c mod ii when pipelined)? take: reserve them
   (-1 when out of memory). In a modulo schedule a read that would fill its slot is refused when
   the bank's remaining write room would fall below its stores still to place: with 2 ports and
   1 write, reads taking both ports of one slot leave two stores of the same window without a
   slot at II 2, though read+write, read+write fits. */
static int fits(const ctx *x, table *t, unsigned v, unsigned c, unsigned ii, int take) {
  const cgp_fpga_node *nd = &x->g->nodes[v];
  uint64_t sl = ii ? c % ii : c;
  if (nd->op == CGP_FOP_LOAD || nd->op == CGP_FOP_STORE) {
    unsigned p = ports_of(x, nd->array, 0), w = ports_of(x, nd->array, 1), write = nd->op == CGP_FOP_STORE;
    if (p == CGP_FPGA_UNLIMITED) return 1;
    slot *s = lookup(t, nd->array, nd->bank, sl, take);
    slot *pend = lookup(t, nd->array, nd->bank, PENDING, 0);
    if (take) {
      if (!s) return -1;
      s->uses++;
      s->writes += write;
      if (write && pend && pend->uses) pend->uses--;
      return 1;
    }
    if (s && (s->uses >= p || (write && s->writes >= w))) return 0;
    if (ii && !write && pend && pend->uses && (s ? s->uses : 0) + 1 >= p &&
        write_room(t, nd->array, nd->bank, ii, p, w, sl) < pend->uses)
      return 0;
    return 1;
  }
  unsigned cap = x->lim ? x->lim->units[nd->op] : 0;
  if (!cap) return 1;
  slot *s = lookup(t, -1 - (int64_t)nd->op, 0, sl, take);
  if (take) {
    if (!s) return -1;
    s->uses++;
    return 1;
  }
  return !s || s->uses < cap;
}

/* Start, ready and finish of node v when its inputs are ready at (c, t): the chaining rule. */
static void place(const ctx *x, const cgp_fpga_node *nd, unsigned c, double t, cgp_fpga_sched *s, unsigned v) {
  double B = x->budget, dl = nd->delay_ns;
  if (nd->latency == 0) {
    if (dl > B) {
      unsigned st = t > 0 ? c + 1 : c, k = (unsigned)(dl / B);
      if (k * B < dl) k++;
      s->start[v] = st, s->start_ns[v] = 0, s->ready[v] = s->finish[v] = st + k - 1, s->ready_ns[v] = dl - (k - 1) * B;
    } else if (t + dl <= B) {
      s->start[v] = s->ready[v] = s->finish[v] = c, s->start_ns[v] = t, s->ready_ns[v] = t + dl;
    } else {
      s->start[v] = s->ready[v] = s->finish[v] = c + 1, s->start_ns[v] = 0, s->ready_ns[v] = dl;
    }
  } else {
    int next = t > 0 && t + dl > B;
    s->start[v] = c + next, s->start_ns[v] = next ? 0 : t;
    s->ready[v] = s->finish[v] = s->start[v] + nd->latency, s->ready_ns[v] = dl; /* its last stage's delay */
  }
}

/* One list-scheduling pass in node order; ii = 0: resources per absolute cycle. 0 on success, 1
   when some operation finds no free slot in ii consecutive cycles (the caller raises II), -1
   when out of memory. */
static int pass(const ctx *x, unsigned ii, cgp_fpga_sched *s) {
  table t = {0};
  const cgp_fpga_ddg *g = x->g;
  for (unsigned v = 0; ii && v < g->n_nodes; v++)
    if (g->nodes[v].op == CGP_FOP_STORE) {
      slot *p = lookup(&t, g->nodes[v].array, g->nodes[v].bank, PENDING, 1);
      if (!p) return -1;
      p->uses++;
    }
  for (unsigned v = 0; v < g->n_nodes; v++) {
    unsigned c = 0;
    double off = 0;
    for (unsigned k = x->in_start[v]; k < x->in_start[v + 1]; k++) {
      const cgp_fpga_edge *e = &g->edges[x->in_edges[k]];
      unsigned rc = e->memory ? s->finish[e->from] + 1 : s->ready[e->from];
      double rt = e->memory ? 0 : s->ready_ns[e->from];
      if (rc > c || (rc == c && rt > off)) c = rc, off = rt;
    }
    for (unsigned tried = 0;; tried++) {
      place(x, &g->nodes[v], c, off, s, v);
      if (fits(x, &t, v, s->start[v], ii, 0)) break;
      if (ii && tried >= ii) {
        free(t.s);
        return 1;
      }
      c = s->start[v] + 1, off = 0;
    }
    if (fits(x, &t, v, s->start[v], ii, 1) < 0) {
      free(t.s);
      return -1;
    }
  }
  free(t.s);
  s->il = 0;
  for (unsigned v = 0; v < g->n_nodes; v++)
    if (s->finish[v] + 1 > s->il) s->il = s->finish[v] + 1;
  return 0;
}

static unsigned ceil_div(uint64_t a, uint64_t b) { return (unsigned)((a + b - 1) / b); }

/* The recurrence bound of a schedule: over loop-carried edges u -> v of distance k,
   ceil((when u's result is usable - v's start) / k), the result usable one cycle later when it is
   ready later in its cycle than v starts, a store's one cycle after the store. */
static unsigned rec_bound(const cgp_fpga_ddg *g, const cgp_fpga_sched *s) {
  unsigned ii = 0;
  for (unsigned i = 0; i < g->n_edges; i++) {
    const cgp_fpga_edge *e = &g->edges[i];
    if (!e->distance) continue;
    int64_t avail = e->memory ? (int64_t)s->finish[e->from] + 1
                              : (int64_t)s->ready[e->from] + (s->ready_ns[e->from] > s->start_ns[e->to]);
    int64_t gap = avail - (int64_t)s->start[e->to];
    if (gap > 0 && ceil_div((uint64_t)gap, e->distance) > ii) ii = ceil_div((uint64_t)gap, e->distance);
  }
  return ii;
}

/* Memory and unit bounds from the window's counts. */
static int resource_bounds(const ctx *x, cgp_fpga_sched *s, int *unit_op) {
  table t = {0};
  const cgp_fpga_ddg *g = x->g;
  unsigned count[CGP_FOP_COUNT] = {0};
  for (unsigned v = 0; v < g->n_nodes; v++) {
    const cgp_fpga_node *nd = &g->nodes[v];
    count[nd->op]++;
    if (nd->op != CGP_FOP_LOAD && nd->op != CGP_FOP_STORE) continue;
    if (ports_of(x, nd->array, 0) == CGP_FPGA_UNLIMITED) continue;
    slot *sl = lookup(&t, nd->array, nd->bank, 0, 1);
    if (!sl) { free(t.s); return -1; }
    sl->uses++;
    sl->writes += nd->op == CGP_FOP_STORE;
    unsigned b = ceil_div(sl->uses, ports_of(x, nd->array, 0)), bw = ceil_div(sl->writes, ports_of(x, nd->array, 1));
    if (bw > b) b = bw;
    if (b > s->ii_memory) s->ii_memory = b, s->bound_array = nd->array, s->bound_bank = nd->bank;
  }
  free(t.s);
  for (unsigned op = 0; op < CGP_FOP_COUNT; op++) {
    unsigned cap = x->lim ? x->lim->units[op] : 0;
    if (cap && ceil_div(count[op], cap) > s->ii_units) s->ii_units = ceil_div(count[op], cap), *unit_op = (int)op;
  }
  return 0;
}

static int alloc_sched(cgp_fpga_sched *s, unsigned n) {
  memset(s, 0, sizeof *s);
  s->n = n;
  size_t m = n ? n : 1;
  s->start = calloc(m, sizeof *s->start), s->ready = calloc(m, sizeof *s->ready), s->finish = calloc(m, sizeof *s->finish);
  s->start_ns = calloc(m, sizeof *s->start_ns), s->ready_ns = calloc(m, sizeof *s->ready_ns);
  return s->start && s->ready && s->finish && s->start_ns && s->ready_ns ? 0 : -1;
}

void cgp_fpga_sched_free(cgp_fpga_sched *s) {
  free(s->start), free(s->ready), free(s->finish), free(s->start_ns), free(s->ready_ns);
  memset(s, 0, sizeof *s);
}

/* Latency and delay of every node from the device's table. */
static int bind_ops(const cgp_fpga_device *d, cgp_fpga_ddg *g, double budget, char *err, size_t errlen) {
  for (unsigned v = 0; v < g->n_nodes; v++) {
    cgp_fpga_node *nd = &g->nodes[v];
    const cgp_fpga_impl *m = cgp_fpga_pick_impl(d, nd->op, nd->type, nd->width, budget);
    if (!m) {
      static const char *const types[] = {"int", "float", "mem"};
      snprintf(err, errlen, "device %s: no operator entry for %s (%s), node %u", d->name, cgp_fpga_op_name(nd->op),
               (unsigned)nd->type < 3 ? types[nd->type] : "?", v);
      return -1;
    }
    nd->latency = m->latency;
    nd->delay_ns = m->delay_ns;
  }
  return 0;
}

/* Incoming edges within the window, grouped by target (CSR). */
static int index_edges(ctx *x) {
  const cgp_fpga_ddg *g = x->g;
  x->in_start = calloc(g->n_nodes + 1, sizeof *x->in_start);
  x->in_edges = calloc(g->n_edges ? g->n_edges : 1, sizeof *x->in_edges);
  if (!x->in_start || !x->in_edges) return -1;
  for (unsigned i = 0; i < g->n_edges; i++)
    if (!g->edges[i].distance) x->in_start[g->edges[i].to + 1]++;
  for (unsigned v = 0; v < g->n_nodes; v++) x->in_start[v + 1] += x->in_start[v];
  unsigned *fill = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *fill);
  if (!fill) return -1;
  for (unsigned i = 0; i < g->n_edges; i++) {
    unsigned v = g->edges[i].to;
    if (!g->edges[i].distance) x->in_edges[x->in_start[v] + fill[v]++] = i;
  }
  free(fill);
  return 0;
}

int cgp_fpga_schedule(const cgp_fpga_device *d, cgp_fpga_ddg *g, const cgp_fpga_limits *lim, int pipelined,
                      cgp_fpga_sched *s, char *err, size_t errlen) {
  ctx x = {.d = d, .g = g, .lim = lim, .budget = cgp_fpga_budget_ns(d)};
  int unit_op = -1;
  if (errlen) err[0] = '\0';
  memset(s, 0, sizeof *s);
  if (!(x.budget > 0)) {
    snprintf(err, errlen, "device %s: no clock budget (clock %g MHz, uncertainty %g %%)", d->name, d->clock_mhz,
             d->clock_uncertainty_pct);
    return -1;
  }
  if (!d->bram_ports || !d->bram_write_ports) {
    snprintf(err, errlen, "device %s: a BRAM bank needs at least one port and one write port", d->name);
    return -1;
  }
  if (bind_ops(d, g, x.budget, err, errlen)) return -1;
  int rc = alloc_sched(s, g->n_nodes) || index_edges(&x) || pass(&x, 0, s) || resource_bounds(&x, s, &unit_op) ? -1 : 0;
  if (!rc) {
    s->ii_recurrence = rec_bound(g, s);
    unsigned ii = 1;
    s->bound = CGP_II_NONE;
    if (s->ii_memory > ii) ii = s->ii_memory, s->bound = CGP_II_MEMORY;
    if (s->ii_units > ii) ii = s->ii_units, s->bound = CGP_II_UNITS;
    if (s->ii_recurrence > ii) ii = s->ii_recurrence, s->bound = CGP_II_RECURRENCE;
    if (s->bound == CGP_II_UNITS) s->bound_array = unit_op;
    /* pipelined: raise II until the modulo schedule keeps every recurrence */
    for (unsigned tries = 0; pipelined && !rc; tries++) {
      int got = tries > 4096 ? 1 : pass(&x, ii, s);
      if (got < 0 || tries > 4096) {
        snprintf(err, errlen, got < 0 ? "out of memory scheduling %u operations" : "no modulo schedule found up to II %u",
                 got < 0 ? g->n_nodes : ii);
        rc = -1;
        break;
      }
      if (got > 0) { /* no free slot at this II: the next one */
        ii++;
        continue;
      }
      unsigned need = rec_bound(g, s);
      if (need <= ii) break;
      ii = need, s->bound = CGP_II_RECURRENCE;
    }
    s->ii = pipelined && !rc ? ii : 0;
  }
  if (rc && !err[0]) snprintf(err, errlen, "out of memory scheduling %u operations", g->n_nodes);
  if (rc) cgp_fpga_sched_free(s);
  free(x.in_start);
  free(x.in_edges);
  return rc;
}
