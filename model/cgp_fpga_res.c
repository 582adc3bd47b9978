/* cgp_fpga_res.c: the operators a schedule instantiates and what they cost (docs/model.md 11.8).
   A shared operator kind needs as many instances as operations of that kind start in one cycle
   (one cycle slot modulo II when pipelined: each instance is fully pipelined and takes one new
   operation a cycle). The cheap integer operators (add, sub, shift, logic, icmp, select, cast)
   are never shared: each operation is its own instance, since a 2-input operator costs what the
   multiplexer to share it would (Kastner et al., ch. 4, section 4.4). */
#include "cgp_fpga.h"

#include <stdlib.h>
#include <string.h>

static int never_shared(cgp_fpga_opkind op) {
  return op == CGP_FOP_ADD || op == CGP_FOP_SUB || op == CGP_FOP_SHIFT || op == CGP_FOP_LOGIC || op == CGP_FOP_ICMP ||
         op == CGP_FOP_SELECT || op == CGP_FOP_CAST;
}

int cgp_fpga_sched_usage(const cgp_fpga_device *d, const cgp_fpga_ddg *g, const cgp_fpga_sched *s,
                         cgp_fpga_usage *u) {
  memset(u, 0, sizeof *u);
  if (s->n != g->n_nodes) return -1;
  unsigned span = s->ii ? s->ii : (s->il ? s->il : 1);
  unsigned *starts = calloc(span, sizeof *starts);
  if (!starts) return -1;
  double budget = cgp_fpga_budget_ns(d);
  /* per (op, type, width) group: the instances, then their cost from the implementation chosen */
  for (unsigned v = 0; v < g->n_nodes; v++) {
    const cgp_fpga_node *a = &g->nodes[v];
    if (a->op == CGP_FOP_LOAD || a->op == CGP_FOP_STORE) continue;
    int seen = 0;
    for (unsigned w = 0; w < v && !seen; w++)
      seen = g->nodes[w].op == a->op && g->nodes[w].type == a->type && g->nodes[w].width == a->width;
    if (seen) continue;
    unsigned count = 0, most = 0;
    memset(starts, 0, span * sizeof *starts);
    for (unsigned w = v; w < g->n_nodes; w++) {
      const cgp_fpga_node *b = &g->nodes[w];
      if (b->op != a->op || b->type != a->type || b->width != a->width) continue;
      count++;
      unsigned slot = s->ii ? s->start[w] % s->ii : s->start[w];
      if (slot < span && ++starts[slot] > most) most = starts[slot];
    }
    unsigned inst = never_shared(a->op) ? count : most;
    const cgp_fpga_impl *m = cgp_fpga_pick_impl(d, a->op, a->type, a->width, budget);
    if (!m) {
      free(starts);
      return -1;
    }
    u->units[a->op] += inst;
    u->dsp += (uint64_t)inst * m->dsp;
    u->lut += (uint64_t)inst * m->lut;
    u->ff += (uint64_t)inst * m->ff;
  }
  free(starts);
  return 0;
}
