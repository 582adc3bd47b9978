/* cgp_cfg.h: the little control-flow analysis the pass needs and the LLVM C API lacks
   (block numbering, predecessors, dominance by reachability, natural loops). Internal to pass/. */
#ifndef CGP_CFG_H
#define CGP_CFG_H

#include <stddef.h>
#include <llvm-c/Core.h>

/* The blocks of one function, numbered in layout order, with successor and predecessor lists. */
typedef struct cgp_cfg {
  size_t n;
  LLVMBasicBlockRef *bb;
  size_t **succ, *nsucc;
  size_t **pred, *npred;
  size_t *slot, nslot;      /* open-addressing hash: block -> index + 1 (0 = empty) */
} cgp_cfg;

/* A natural loop: its header, its latches (blocks with a back edge to the header) and its blocks. */
typedef struct cgp_loop {
  size_t header;
  size_t *latch; size_t nlatch;
  unsigned char *in;        /* in[b] != 0 iff block b belongs to the loop */
  size_t nblocks;
  LLVMValueRef loop_md;     /* the latch branch's !llvm.loop node, or NULL */
  unsigned line, col;       /* its start location (0 if none) */
  char file[256];           /* file name of the start location ("" if none) */
} cgp_loop;

/* Operand i of metadata node `node` (a MetadataAsValue), NULL if it has none. */
LLVMValueRef cgp_md_operand(LLVMValueRef node, unsigned i);
/* Operand i of metadata node `node` as a string of *len bytes (not NUL-terminated), NULL if it is
   none or empty. */
const char *cgp_md_string(LLVMValueRef node, unsigned i, unsigned *len);

/* Build the CFG of a function that has a body; returns 0 on success. */
int  cgp_cfg_build(LLVMValueRef fn, cgp_cfg *cfg);
void cgp_cfg_free(cgp_cfg *cfg);
/* Index of a block in the CFG, or cfg->n if it is not there (O(1)). */
size_t cgp_cfg_index(const cgp_cfg *cfg, LLVMBasicBlockRef b);
/* True iff every path from the entry block to `b` passes through `d`. */
int  cgp_cfg_dominates(const cgp_cfg *cfg, size_t d, size_t b);

/* All natural loops of the function (one per header, latches merged), in header layout order.
   `md_kind` is the metadata kind id of "llvm.loop". Returns the count; *loops is malloc'd. */
size_t cgp_cfg_loops(const cgp_cfg *cfg, unsigned md_kind, cgp_loop **loops);
void   cgp_cfg_loops_free(cgp_loop *loops, size_t n);
/* True iff loop `inner` is nested in (or equal to) loop `outer`. */
int    cgp_loop_contains(const cgp_loop *outer, const cgp_loop *inner);
/* Is v the same in every iteration of loop l: a constant, an argument, or an instruction outside l? */
int    cgp_loop_invariant(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v);

#endif
