/* cgp_hls_internal.h: what the files of the HLS operations (cgp_hls_ops.c and the files it calls)
   share: the builder of one loop's graph, and one declaration per function one file gives
   another. Internal to pass/.

   Calls go one way: cgp_hls_ops.c (the nest) calls cgp_hls_graph.c (one loop's graph, which calls
   cgp_hls_affine.c) and cgp_hls_trips.c (a loop's trip count). */
#ifndef CGP_HLS_INTERNAL_H
#define CGP_HLS_INTERNAL_H

#include "cgp_hls_ops.h"
#include "cgp_cfg.h"
#include "cgp_pragma.h"

#include <llvm-c/Core.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  LLVMValueRef inst;
  int first, last; /* its nodes (first..last, chained), -1: none */
  int mem;         /* load/store: the array's index */
} inst_rec;

typedef struct {
  const cgp_cfg *cfg;
  const cgp_loop *l;
  const unsigned char *own;    /* own[b]: block b is the loop's own (in no nested loop) */
  cgp_hls_nest *nest;
  cgp_hls_loop *hl;
  inst_rec *rec;
  size_t n_rec, cap_rec;
  const cgp_kernel_pragma *k;
  char *err;
  size_t errlen;
  const cgp_loop *const *nest_loops; /* the nest's loops, in its order (for affine addresses) */
  unsigned n_nest;
} builder;

/* ---- cgp_hls_graph.c ------------------------------------------------------------------------- */

/* Fills b->hl's graph with the operations of b->l's own blocks (b->own) and their value and
   memory edges; b->rec grows as it goes (the caller frees it). 0, or -1 (out of memory, or an
   operation no table holds: then b->err says which). */
int cgp_hls_build_loop(builder *b);

/* ---- cgp_hls_trips.c ------------------------------------------------------------------------- */

/* The static trip count of loop l: an induction variable from a constant, a constant step and an
   exit compare with a constant; 0 when not of that form (or above 2^26 iterations). */
uint64_t cgp_hls_trip_count(const cgp_cfg *cfg, const cgp_loop *l);

#endif
