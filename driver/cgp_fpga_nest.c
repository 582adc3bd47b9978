/* cgp_fpga_nest.c: from the compiler's nest (pass/cgp_hls_ops.h) and the pragma's `fpga(...)`
   directives to the model's nest and design (model/cgp_fpga.h; docs/model.md 11.10).

   A loop is named by its induction variable as the source writes it: the identifier before the
   first '=' of the `for`'s init (`for (int k = 0; ...` is k). A pointer argument's size is not in
   the IR: its outermost dimension is the extent its affine accesses reach at the static trip
   counts (unknown when one of them is not affine or not static). A loop the optimiser
   versioned (two loops of one `for` under one parent) is estimated once: the first version. */
#include "cgp_fpga_nest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN_EXTENT ((uint64_t)1 << 40)

void cgp_fpga_loop_names(const char *file, const cgp_hls_nest *n, char (*names)[CGP_FPGA_NAME]) {
  FILE *f = fopen(file, "r");
  for (unsigned l = 0; l < n->n_loops && l < CGP_FPGA_MAX_LOOPS; l++) {
    snprintf(names[l], CGP_FPGA_NAME, "line%u", n->loops[l].line);
    if (!f) continue;
    rewind(f);
    char buf[4096];
    unsigned line = 0;
    while (fgets(buf, sizeof buf, f) && ++line < n->loops[l].line) {}
    if (line != n->loops[l].line || n->loops[l].col < 1 || n->loops[l].col > strlen(buf)) continue;
    const char *p = buf + n->loops[l].col - 1, *eq;
    if (strncmp(p, "for", 3) || !(p = strchr(p, '(')) || !(eq = strchr(p, '='))) continue;
    const char *semi = strchr(p, ';');
    if (semi && semi < eq) continue;
    const char *end = eq;
    while (end > p && isspace((unsigned char)end[-1])) end--;
    const char *start = end;
    while (start > p && (isalnum((unsigned char)start[-1]) || start[-1] == '_')) start--;
    if (start < end && (size_t)(end - start) < CGP_FPGA_NAME) snprintf(names[l], CGP_FPGA_NAME, "%.*s", (int)(end - start), start);
  }
  if (f) fclose(f);
}

int cgp_fpga_nest_of(const cgp_hls_nest *h, cgp_fpga_nest *n, char *err, size_t errlen) {
  memset(n, 0, sizeof *n);
  if (h->n_loops > CGP_FPGA_MAX_LOOPS || h->n_arrays > CGP_FPGA_MAX_ARRAYS)
    return snprintf(err, errlen, "the nest has %u loops and %u arrays; the FPGA model takes at most %d and %d",
                    h->n_loops, h->n_arrays, CGP_FPGA_MAX_LOOPS, CGP_FPGA_MAX_ARRAYS), -1;
  n->n_loops = h->n_loops;
  n->n_arrays = h->n_arrays;
  for (unsigned l = 0; l < h->n_loops; l++) {
    n->loops[l] = (cgp_fpga_nest_loop){.trips = h->loops[l].trips, .parent = h->loops[l].parent,
                                       .ddg = &h->loops[l].ddg, .acc = h->loops[l].acc};
    /* two loops of one `for` under one parent: versions the optimiser made (a run-time alias
       check picks one); HLS has one loop: the first is kept, the other and its loops skipped */
    for (unsigned e = 0; e < l; e++)
      if ((h->loops[e].line == h->loops[l].line && h->loops[e].col == h->loops[l].col &&
           h->loops[e].parent == h->loops[l].parent && h->loops[l].line) ||
          (h->loops[l].parent == (int)e && n->loops[e].skip))
        n->loops[l].skip = 1;
  }
  for (unsigned a = 0; a < h->n_arrays; a++) {
    const cgp_hls_array *ha = &h->arrays[a];
    cgp_fpga_array *fa = &n->arrays[a];
    fa->width_bits = ha->width_bits;
    fa->ndims = ha->ndims ? ha->ndims : 1;
    for (unsigned k = 0; k < fa->ndims; k++) fa->dims[k] = ha->dims[k] ? ha->dims[k] : 1;
    n->on_chip[a] = ha->elems != 0;
    if (n->on_chip[a]) continue;
    /* a pointer argument: the outermost dimension from the last element its accesses reach */
    uint64_t last = 0, inner = 1;
    int known = 1;
    for (unsigned k = 1; k < fa->ndims; k++) inner *= fa->dims[k];
    for (unsigned l = 0; l < h->n_loops; l++)
      for (unsigned v = 0; v < h->loops[l].ddg.n_nodes; v++) {
        if (h->loops[l].ddg.nodes[v].array != (int)a) continue;
        const cgp_fpga_access *acc = &h->loops[l].acc[v];
        int64_t e = acc->offset;
        known &= acc->affine == 1;
        for (unsigned q = 0; q < h->n_loops && acc->affine == 1; q++) {
          if (!acc->coef[q]) continue;
          known &= h->loops[q].trips != 0;
          if (acc->coef[q] > 0) e += acc->coef[q] * (int64_t)(h->loops[q].trips - 1);
        }
        if (e >= 0 && (uint64_t)e > last) last = (uint64_t)e;
      }
    fa->dims[0] = known ? last / inner + 1 : UNKNOWN_EXTENT;
  }
  return 0;
}

static int find_loop(char (*names)[CGP_FPGA_NAME], unsigned nl, const char *name) {
  for (unsigned l = 0; l < nl; l++)
    if (!strcmp(names[l], name)) return (int)l;
  return -1;
}

int cgp_fpga_design_of(const cgp_kernel_pragma *k, const cgp_hls_nest *h, const cgp_fpga_nest *n,
                       char (*names)[CGP_FPGA_NAME], cgp_fpga_design *ds, char *err, size_t errlen) {
  cgp_fpga_design_baseline(ds);
  for (unsigned q = 0; q < k->n_knobs; q++) {
    const cgp_fpga_knob *kn = &k->knobs[q];
    int prefix = snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': ", k->file, kn->line, kn->col, k->name);
    char *msg = err + (prefix > 0 && (size_t)prefix < errlen ? prefix : 0);
    size_t left = errlen - (size_t)(msg - err);
    if (kn->kind == CGP_KNOB_PARTITION) {
      int a = -1;
      for (unsigned i = 0; i < h->n_arrays; i++)
        if (!strcmp(h->arrays[i].name, kn->name)) a = (int)i;
      if (a < 0) {
        int w = snprintf(msg, left, "partition(%s, ...): no array of that name is read or written in the nest (its "
                         "arrays:", kn->name);
        for (unsigned i = 0; i < h->n_arrays && w > 0 && (size_t)w < left; i++)
          w += snprintf(msg + w, left - (size_t)w, " %s", h->arrays[i].name);
        if (w > 0 && (size_t)w < left) snprintf(msg + w, left - (size_t)w, ")");
        return -1;
      }
      if (kn->dim > n->arrays[a].ndims)
        return snprintf(msg, left, "partition(%s, ...): dimension %u, but %s has %u", kn->name, kn->dim, kn->name,
                        n->arrays[a].ndims), -1;
      if (kn->part == CGP_PART_BLOCK && kn->dim == 1 && n->arrays[a].dims[0] == UNKNOWN_EXTENT)
        return snprintf(msg, left, "partition(%s, block, ...): the size of %s's first dimension is not known (a "
                        "pointer whose accesses are not all affine with static trip counts)", kn->name, kn->name), -1;
      ds->part[a] = (cgp_fpga_part)kn->part;
      ds->factor[a] = kn->factor;
      ds->part_dim[a] = kn->dim - 1;
      continue;
    }
    int l = find_loop(names, n->n_loops, kn->name);
    if (l < 0) {
      int w = snprintf(msg, left, "%s(%s%s): no loop of the nest has the induction variable '%s' (its loops:",
                       kn->kind == CGP_KNOB_UNROLL ? "unroll" : "pipeline", kn->name,
                       kn->kind == CGP_KNOB_UNROLL ? ", ..." : "", kn->name);
      for (unsigned i = 0; i < n->n_loops && w > 0 && (size_t)w < left; i++)
        w += snprintf(msg + w, left - (size_t)w, " %s", names[i]);
      if (w > 0 && (size_t)w < left) snprintf(msg + w, left - (size_t)w, ")");
      return -1;
    }
    if (kn->kind == CGP_KNOB_PIPELINE) ds->pipeline = l;
    else ds->unroll[l] = kn->factor;
  }
  /* what the model does not take, said at the directive */
  for (unsigned q = 0; q < k->n_knobs; q++) {
    const cgp_fpga_knob *kn = &k->knobs[q];
    if (kn->kind == CGP_KNOB_PIPELINE)
      for (unsigned c = 0; c < n->n_loops; c++) {
        int in = 0;
        for (int q = n->loops[c].parent; q >= 0 && !in; q = n->loops[q].parent) in = q == ds->pipeline;
        if (!in || n->loops[c].skip || n->loops[c].trips) continue;
        return snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': pipeline(%s): the loops inside a pipelined "
                        "loop are fully unrolled, and %s has no static trip count; pipeline %s or a loop inside it",
                        k->file, kn->line, kn->col, k->name, kn->name, names[c], names[c]), -1;
      }
    if (kn->kind != CGP_KNOB_UNROLL) continue;
    int l = find_loop(names, n->n_loops, kn->name), leaf = 1;
    for (unsigned c = 0; c < n->n_loops; c++) leaf &= n->loops[c].parent != l || n->loops[c].skip;
    for (int q = n->loops[l].parent; q >= 0 && ds->pipeline >= 0; q = n->loops[q].parent)
      if (q == ds->pipeline)
        return snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': unroll(%s, %u): %s is inside the pipelined loop "
                        "%s, which unrolls it completely", k->file, kn->line, kn->col, k->name, kn->name, kn->factor,
                        kn->name, names[ds->pipeline]), -1;
    if (!leaf && l != ds->pipeline)
      return snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': unroll(%s, %u): %s holds loops that are not "
                      "unrolled; unroll an innermost loop, or pipeline %s (its inner loops are then unrolled)",
                      k->file, kn->line, kn->col, k->name, kn->name, kn->factor, kn->name, kn->name), -1;
  }
  err[0] = '\0';
  return 0;
}
