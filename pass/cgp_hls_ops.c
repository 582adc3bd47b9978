/* cgp_hls_ops.c: from LLVM IR to the FPGA core's dependence graphs (docs/model.md 11.9): the
   nest. The marked loop is found by its !llvm.loop location in the optimised module; each loop it
   contains gets its depth, its enclosing loop, its static trip count (cgp_hls_trips.c) and the
   graph of its own operations, those in none of its nested loops (cgp_hls_graph.c, which
   describes the graph). Calls go one way: this file calls cgp_hls_graph.c and cgp_hls_trips.c
   (cgp_hls_internal.h). */
#include "cgp_hls_ops.h"
#include "cgp_hls_internal.h"

#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_cfg.h"
#include "cgp_mark.h"

static int loop_matches(const cgp_loop *l, const cgp_kernel_pragma *k) {
  return l->line == k->for_line && l->col == k->for_col && (!l->file[0] || cgp_pass_same_file(l->file, k->file));
}

static int nest_of(LLVMValueRef fn, const cgp_cfg *cfg, const cgp_loop *loops, size_t nl, size_t top,
                   const cgp_kernel_pragma *k, cgp_hls_nest *out, char *err, size_t errlen) {
  size_t *idx = malloc(nl * sizeof *idx);
  unsigned char *own = malloc(cfg->n ? cfg->n : 1);
  if (!idx || !own) goto oom;
  unsigned n = 0;
  for (size_t i = 0; i < nl; i++)
    if (cgp_loop_contains(&loops[top], &loops[i])) idx[n++] = i;
  out->loops = calloc(n, sizeof *out->loops);
  if (!out->loops) goto oom;
  out->n_loops = n;
  const cgp_loop *view[CGP_FPGA_MAX_LOOPS];
  for (unsigned i = 0; i < n && i < CGP_FPGA_MAX_LOOPS; i++) view[i] = &loops[idx[i]];
  for (unsigned i = 0; i < n; i++) {
    const cgp_loop *l = &loops[idx[i]];
    cgp_hls_loop *hl = &out->loops[i];
    cgp_fpga_ddg_init(&hl->ddg);
    hl->line = l->line;
    hl->col = l->col;
    hl->trips = cgp_hls_trip_count(cfg, l);
    hl->parent = -1;
    size_t best = 0;
    for (unsigned j = 0; j < n; j++) {
      const cgp_loop *p = &loops[idx[j]];
      if (j == i || !cgp_loop_contains(p, l)) continue;
      hl->depth++;
      if (hl->parent < 0 || p->nblocks < best) hl->parent = (int)j, best = p->nblocks;
    }
    for (size_t bi = 0; bi < cfg->n; bi++) {
      own[bi] = l->in[bi];
      for (unsigned j = 0; j < n && own[bi]; j++)
        if (j != i && cgp_loop_contains(l, &loops[idx[j]]) && loops[idx[j]].in[bi]) own[bi] = 0;
    }
    builder b = {.cfg = cfg, .l = l, .own = own, .nest = out, .hl = hl, .k = k, .err = err, .errlen = errlen,
                 .nest_loops = view, .n_nest = n < CGP_FPGA_MAX_LOOPS ? n : CGP_FPGA_MAX_LOOPS};
    int rc = cgp_hls_build_loop(&b);
    free(b.rec);
    if (rc) {
      if (!err[0]) snprintf(err, errlen, "%s:%u:%u: error: out of memory reading the loop's operations", k->file,
                            l->line, l->col);
      free(idx);
      free(own);
      return -1;
    }
  }
  (void)fn;
  free(idx);
  free(own);
  return 0;
oom:
  free(idx);
  free(own);
  snprintf(err, errlen, "%s:%u:%u: error: out of memory", k->file, k->for_line, k->for_col);
  return -1;
}

int cgp_hls_nest_ops(LLVMModuleRef m, const cgp_kernel_pragma *k, cgp_hls_nest *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (errlen) err[0] = '\0';
  unsigned md = LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), "llvm.loop", 9);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn)) continue;
    cgp_cfg cfg;
    if (cgp_cfg_build(fn, &cfg)) continue;
    cgp_loop *loops = NULL;
    size_t nl = cgp_cfg_loops(&cfg, md, &loops);
    int rc = 1;
    for (size_t i = 0; i < nl && rc == 1; i++)
      if (loop_matches(&loops[i], k)) rc = nest_of(fn, &cfg, loops, nl, i, k, out, err, errlen);
    cgp_cfg_loops_free(loops, nl);
    cgp_cfg_free(&cfg);
    if (rc == 0) return 0;
    if (rc < 0) {
      cgp_hls_nest_free(out);
      return -1;
    }
  }
  snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': its loop is not in the optimised code (is it dead, or "
           "in a function never compiled?)", k->file, k->for_line, k->for_col, k->name);
  return -1;
}

void cgp_hls_nest_free(cgp_hls_nest *n) {
  for (unsigned i = 0; i < n->n_loops; i++) {
    cgp_fpga_ddg_free(&n->loops[i].ddg);
    free(n->loops[i].line_of);
    free(n->loops[i].acc);
  }
  free(n->loops);
  free(n->arrays);
  memset(n, 0, sizeof *n);
}

unsigned cgp_hls_innermost(const cgp_hls_nest *n) {
  for (unsigned i = 0; i < n->n_loops; i++) {
    int has_child = 0;
    for (unsigned j = 0; j < n->n_loops; j++)
      if (n->loops[j].parent == (int)i) has_child = 1;
    if (!has_child) return i;
  }
  return 0;
}
