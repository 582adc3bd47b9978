/* cgp_fpga_ddg.c: the data-dependence graph of one iteration window (docs/model.md 11.3): its
   storage, and the true dependences through memory found from the addresses each memory
   operation touches in consecutive windows, as the trace gives them. */
#include "cgp_fpga.h"

#include <stdlib.h>
#include <string.h>

void cgp_fpga_ddg_init(cgp_fpga_ddg *g) { memset(g, 0, sizeof *g); }

void cgp_fpga_ddg_free(cgp_fpga_ddg *g) {
  free(g->nodes);
  free(g->edges);
  memset(g, 0, sizeof *g);
}

int cgp_fpga_ddg_add(cgp_fpga_ddg *g, cgp_fpga_opkind op, cgp_fpga_type type, unsigned width, int array,
                     unsigned bank) {
  if ((unsigned)op >= CGP_FOP_COUNT || g->n_nodes >= 1u << 24) return -1;
  if (g->n_nodes == g->cap_nodes) {
    unsigned cap = g->cap_nodes ? 2 * g->cap_nodes : 64;
    cgp_fpga_node *bigger = realloc(g->nodes, cap * sizeof *bigger);
    if (!bigger) return -1;
    g->nodes = bigger;
    g->cap_nodes = cap;
  }
  int mem = op == CGP_FOP_LOAD || op == CGP_FOP_STORE;
  g->nodes[g->n_nodes] = (cgp_fpga_node){.op = op, .type = type, .width = width,
                                         .array = mem ? array : CGP_FPGA_NO_ARRAY, .bank = mem ? bank : 0};
  return (int)g->n_nodes++;
}

int cgp_fpga_ddg_edge(cgp_fpga_ddg *g, unsigned from, unsigned to, unsigned distance, int memory) {
  if (from >= g->n_nodes || to >= g->n_nodes || (distance == 0 && from >= to)) return -1;
  if (g->n_edges == g->cap_edges) {
    unsigned cap = g->cap_edges ? 2 * g->cap_edges : 64;
    cgp_fpga_edge *bigger = realloc(g->edges, cap * sizeof *bigger);
    if (!bigger) return -1;
    g->edges = bigger;
    g->cap_edges = cap;
  }
  g->edges[g->n_edges++] = (cgp_fpga_edge){.from = from, .to = to, .distance = distance, .memory = memory != 0};
  return 0;
}

static int is_mem(const cgp_fpga_node *n) { return n->op == CGP_FOP_LOAD || n->op == CGP_FOP_STORE; }

/* Does a store of window w, node s, write `a` after node `after` (exclusive) of that window and
   before node `before` (exclusive)? */
static int stored_between(const cgp_fpga_ddg *g, const uint64_t *addr, unsigned w, unsigned after, unsigned before,
                          uint64_t a) {
  for (unsigned s = after + 1; s < before; s++)
    if (g->nodes[s].op == CGP_FOP_STORE && addr[(size_t)w * g->n_nodes + s] == a) return 1;
  return 0;
}

int cgp_fpga_ddg_memory_edges(cgp_fpga_ddg *g, const uint64_t *addr, unsigned windows) {
  unsigned n = g->n_nodes;
  if (!windows) return -1;
  for (unsigned v = 0; v < n; v++) {
    if (g->nodes[v].op != CGP_FOP_LOAD) continue;
    uint64_t a = addr[v];
    /* within the window: the last store before v to its address */
    for (unsigned u = v; u-- > 0;)
      if (g->nodes[u].op == CGP_FOP_STORE && addr[u] == a) {
        if (cgp_fpga_ddg_edge(g, u, v, 0, 1)) return -1;
        break;
      }
  }
  /* carried: a store of window 0 that is the last to write its address in that window, and the
     first later load of the address with no store to it in between, d windows later */
  for (unsigned u = 0; u < n; u++) {
    if (g->nodes[u].op != CGP_FOP_STORE) continue;
    uint64_t a = addr[u];
    if (stored_between(g, addr, 0, u, n, a)) continue;
    int done = 0;
    for (unsigned d = 1; d < windows && !done; d++)
      for (unsigned v = 0; v < n && !done; v++) {
        if (!is_mem(&g->nodes[v]) || addr[(size_t)d * n + v] != a) continue;
        done = 1; /* the first access of a later window to the address: a load depends on u, a store ends it */
        if (g->nodes[v].op == CGP_FOP_LOAD && cgp_fpga_ddg_edge(g, u, v, d, 1)) return -1;
      }
  }
  return 0;
}
