/* cgp_fpga_mem.c: the dependence graph's storage, and arrays on chip: which partition bank an
   element falls in and what the partitioned array costs in block RAM (docs/model.md 11.1, 11.6).

   Partitioning is per dimension, as Vivado/Vitis HLS's array_partition: cyclic by F puts element i
   in bank i mod F (each bank ceil(n / F) words), block by F in bank i / ceil(n / F), complete puts
   every element in its own bank (a register). The banks of several dimensions combine row-major.
   A bank is one memory; its block-RAM count is the fewest BRAM18Ks of one of the device's
   [width, depth] shapes that hold its words at the array's width. */
#include "cgp_fpga.h"

#include <stdio.h>
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

int cgp_fpga_array_check(const cgp_fpga_array *a, char *err, size_t errlen) {
  if (a->ndims < 1 || a->ndims > CGP_FPGA_MAX_DIMS) {
    snprintf(err, errlen, "an array has 1 to %d dimensions, not %u", CGP_FPGA_MAX_DIMS, a->ndims);
    return -1;
  }
  if (!a->width_bits) {
    snprintf(err, errlen, "an array's element width is at least 1 bit");
    return -1;
  }
  uint64_t banks = 1;
  for (unsigned k = 0; k < a->ndims; k++) {
    if (!a->dims[k]) {
      snprintf(err, errlen, "dimension %u: size 0", k + 1);
      return -1;
    }
    if ((a->part[k] == CGP_PART_CYCLIC || a->part[k] == CGP_PART_BLOCK) && !a->factor[k]) {
      snprintf(err, errlen, "dimension %u: a cyclic or block partition needs a factor of at least 1", k + 1);
      return -1;
    }
    if ((unsigned)a->part[k] > CGP_PART_COMPLETE) {
      snprintf(err, errlen, "dimension %u: unknown partition kind", k + 1);
      return -1;
    }
    uint64_t b = cgp_fpga_dim_banks(a, k);
    if (b > (1ull << 32) / banks) {
      snprintf(err, errlen, "dimension %u: more than 2^32 banks in all", k + 1);
      return -1;
    }
    banks *= b;
  }
  return 0;
}

/* Banks of dimension k: a factor above the size gives one element per bank (no empty banks). */
uint64_t cgp_fpga_dim_banks(const cgp_fpga_array *a, unsigned k) {
  uint64_t n = a->dims[k];
  switch (a->part[k]) {
  case CGP_PART_CYCLIC: return a->factor[k] < n ? a->factor[k] : n;
  case CGP_PART_BLOCK: {
    uint64_t f = a->factor[k] < n ? a->factor[k] : n, size = (n + f - 1) / f;
    return (n + size - 1) / size; /* block 10 by 4: blocks of 3, banks of 3, 3, 3, 1 */
  }
  case CGP_PART_COMPLETE: return n;
  default: return 1;
  }
}

uint64_t cgp_fpga_banks(const cgp_fpga_array *a) {
  uint64_t b = 1;
  for (unsigned k = 0; k < a->ndims; k++) b *= cgp_fpga_dim_banks(a, k);
  return b;
}

uint64_t cgp_fpga_bank(const cgp_fpga_array *a, const uint64_t *idx) {
  uint64_t bank = 0;
  for (unsigned k = 0; k < a->ndims; k++) {
    uint64_t n = a->dims[k], i = idx[k] < n ? idx[k] : n - 1, nb = cgp_fpga_dim_banks(a, k), b = 0;
    if (a->part[k] == CGP_PART_CYCLIC) b = i % nb;
    else if (a->part[k] == CGP_PART_BLOCK) b = i / ((n + nb - 1) / nb);
    else if (a->part[k] == CGP_PART_COMPLETE) b = i;
    bank = bank * nb + b;
  }
  return bank;
}

uint64_t cgp_fpga_bank_words(const cgp_fpga_array *a) {
  uint64_t w = 1;
  for (unsigned k = 0; k < a->ndims; k++) {
    uint64_t nb = cgp_fpga_dim_banks(a, k);
    w *= (a->dims[k] + nb - 1) / nb;
  }
  return w;
}

int cgp_fpga_is_registers(const cgp_fpga_array *a) {
  for (unsigned k = 0; k < a->ndims; k++)
    if (a->part[k] != CGP_PART_COMPLETE && a->dims[k] > 1) return 0;
  return 1;
}

uint64_t cgp_fpga_bram18k(const cgp_fpga_device *d, const cgp_fpga_array *a) {
  if (cgp_fpga_is_registers(a)) return 0;
  uint64_t words = cgp_fpga_bank_words(a), best = 0;
  for (unsigned i = 0; i < d->n_bram_configs; i++) {
    uint64_t w = d->bram_configs[i][0], depth = d->bram_configs[i][1];
    uint64_t blocks = (a->width_bits + w - 1) / w * ((words + depth - 1) / depth);
    if (!best || blocks < best) best = blocks;
  }
  return best * cgp_fpga_banks(a);
}

uint64_t cgp_fpga_array_ff(const cgp_fpga_array *a) {
  if (!cgp_fpga_is_registers(a)) return 0;
  uint64_t n = a->width_bits;
  for (unsigned k = 0; k < a->ndims; k++) n *= a->dims[k];
  return n;
}
