/* cgp_clean.h: an uninstrumented copy of a thread body, for the threads the runtime does not
   trace, and the block rewiring the pass's steps share. Internal to pass/. */
#ifndef CGP_CLEAN_H
#define CGP_CLEAN_H

#include <llvm-c/Core.h>

/* Appends to the function a copy of the blocks region[0..n) (region[0] is the entry the copy
   is entered by), without calls to `marker` or to llvm.dbg.* intrinsics. Branches leaving the
   region keep their targets, whose phis get the copied edges with the copied values. Returns
   the copy of region[0]; NULL, leaving the function unchanged, when a value of the region is
   used outside it other than by a phi on an edge from it (or on an indirect branch, callbr
   or invoke), or when memory runs out. `copy`, if not NULL, receives the copy of each region[i]. */
LLVMBasicBlockRef cgp_clone_clean(LLVMContextRef ctx, LLVMBuilderRef b, LLVMBasicBlockRef *region, size_t n,
                                  LLVMValueRef marker, LLVMBasicBlockRef *copy);

/* Appends to function fn a copy of the blocks region[0..n) (blocks "cgp.chunk"), every
   instruction but llvm.dbg.* calls cloned with its operands remapped to the copies and each
   old[k] replaced by new[k]; no region check and no phi outside patched: every edge the copy has
   out of it, and every value from outside it, is the caller's to see to. copy[i] receives the
   copy of region[i]. 0 when memory runs out (nothing copied). */
int cgp_clone_open(LLVMContextRef ctx, LLVMBuilderRef b, LLVMBasicBlockRef *region, size_t n, LLVMValueRef fn,
                   const LLVMValueRef *old, const LLVMValueRef *new, size_t nold, LLVMBasicBlockRef *copy);

/* LLVMInsertIntoBuilder, keeping i's own debug location: the builder stamps what it inserts
   with its current one (the last instruction it was positioned at), which on a moved
   llvm.dbg.value of an inlined function named another function's scope, and the module no
   longer verified (Rodinia's kmeans, once its distance function was inlined into the nest). */
void cgp_insert_keeping_loc(LLVMBuilderRef b, LLVMValueRef i);

/* The value phi receives from block `from`, NULL if none. */
LLVMValueRef cgp_incoming_for(LLVMValueRef phi, LLVMBasicBlockRef from);

/* Replace `old` by `new` as incoming block of every phi of `succ`; a phi rebuilt so that held
   one of track[0..ntrack) is replaced there by its new self. */
void cgp_retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef succ, LLVMBasicBlockRef old, LLVMBasicBlockRef new,
                       LLVMValueRef *track, size_t ntrack);

#endif
