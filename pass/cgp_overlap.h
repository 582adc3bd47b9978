/* cgp_overlap.h: loads whose latency overlaps the next iterations' (docs/model.md section 5e).
   Internal to pass/. */
#ifndef CGP_OVERLAP_H
#define CGP_OVERLAP_H

#include <llvm-c/Core.h>

#include "cgp_cfg.h"

/* Does loop l (its blocks, nested loops' included) write memory in the kernel's CUDA stream, or
   may it: with phase 1's marker function (`marker`, NULL when the module has none) a store or
   atomic marker, without it a store or atomic instruction; either way a fence, or a call other than
   a hook or a register-only math function? */
int cgp_overlap_loop_stores(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef marker);

/* 1 if a load of address `ptr` in loop l (its innermost loop) issues ahead of its use with the
   loads of the next iterations: l writes no memory and no load or call of l computes the
   address; 0 otherwise, or when l is NULL (a load in no loop). */
int cgp_overlap_load(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef ptr, LLVMValueRef marker);

#endif
