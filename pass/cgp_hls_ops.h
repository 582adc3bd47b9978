/* cgp_hls_ops.h: the operations an HLS schedule needs, read from LLVM IR (docs/model.md 11.9).
   For a marked loop nest of a module optimised as the pass optimises it (cgp_pass_run_o1), every
   loop of the nest with its static trip count and the data-dependence graph of its own operations
   (those in none of its nested loops) in the form the FPGA core schedules (model/cgp_fpga.h):
   operation kind, type and width, the array of each load and store, and the true dependences
   (SSA def-use; loop-carried through header phis at distance 1; through memory by the static
   rule of 11.9). No GPU behaviour depends on this: `cgpredict fpga` alone uses it. */
#ifndef CGP_HLS_OPS_H
#define CGP_HLS_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <llvm-c/Types.h>

#include "cgp_cfg.h"
#include "cgp_fpga.h"
#include "cgp_pragma.h"

#define CGP_HLS_NAME_MAX 64

/* An array a load or store names: the object its address is indexed from (a pointer argument, a
   global or a local array). elems 0: its size is not in the IR (a pointer argument: on an HLS
   top function it is a memory interface, not a memory of the design). */
typedef struct cgp_hls_array {
  char name[CGP_HLS_NAME_MAX];
  unsigned width_bits;
  uint64_t elems;
  LLVMValueRef base;
  /* dimensions, outermost first: a global or local array's from its type; a pointer argument's
     inner ones from the type its GEPs index (float (*A)[64]: dims {0, 64}), dims[0] 0 = unknown */
  unsigned ndims;
  uint64_t dims[CGP_FPGA_MAX_DIMS];
} cgp_hls_array;

/* One loop of the nest. loops[0] is the marked loop; a loop's nested loops follow it (preorder,
   in the order their headers are laid out). trips: 0 when not known statically. */
typedef struct cgp_hls_loop {
  unsigned line, col;
  uint64_t trips;
  int parent;        /* index of the enclosing loop of the nest, -1 for loops[0] */
  unsigned depth;    /* 0 for loops[0] */
  cgp_fpga_ddg ddg;  /* the loop's own operations, in program order */
  unsigned *line_of; /* per node of ddg: its source line (0 unknown) */
  cgp_fpga_access *acc; /* per node of ddg: the element a load or store touches (cgp_hls_access) */
} cgp_hls_loop;

typedef struct cgp_hls_nest {
  cgp_hls_loop *loops;
  unsigned n_loops;
  cgp_hls_array *arrays;
  unsigned n_arrays;
} cgp_hls_nest;

/* The loops of the nest k marks in m, each with its operations. 0, or nonzero with
   `file:line:col: error: ...` in err (no such loop; an operation no HLS table holds, such as a
   call, named by its own line). */
int cgp_hls_nest_ops(LLVMModuleRef m, const cgp_kernel_pragma *k, cgp_hls_nest *out, char *err, size_t errlen);
void cgp_hls_nest_free(cgp_hls_nest *n);

/* Index of the innermost loop of the nest that comes first (the first loop without nested loops). */
unsigned cgp_hls_innermost(const cgp_hls_nest *n);

/* The element (in units of width_bits) that ptr addresses, as an affine function of the iteration
   numbers of loops[0..n_loops) (pass/cgp_hls_affine.c, docs/model.md 11.10). 1 and *out filled
   when affine; 0 and out->affine 0 when not. */
int cgp_hls_access(const cgp_cfg *cfg, const cgp_loop *const *loops, unsigned n_loops, LLVMValueRef ptr,
                   unsigned width_bits, cgp_fpga_access *out);
/* The array dimensions of the type a GEP (through casts) indexes: float (*)[64] gives {64},
   [8 x [64 x float]] {8, 64}; at most cap; 0 when ptr is no GEP or indexes a scalar. */
unsigned cgp_hls_inner_dims(LLVMValueRef ptr, uint64_t *dims, unsigned cap);

#endif
