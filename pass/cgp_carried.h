/* cgp_carried.h: what a scalar carried by a mapped loop from one iteration to the next is
   (docs/pipeline.md, "Carried scalars"): an induction variable each thread computes from its
   index, a reduction (x = x op e, op associative) or a recurrence, and where the source updates
   it. Pure analysis of a loop of cgp_cfg.h; the pass (cgp_hazards.c) turns it into warnings
   and the descriptor's "carried" entries. Internal to pass/. */
#ifndef CGP_CARRIED_H
#define CGP_CARRIED_H

#include <stddef.h>
#include <llvm-c/Core.h>

#include "cgp_cfg.h"

/* Is header phi of l stepped by a loop-invariant amount each iteration (an induction variable)? */
int cgp_carried_affine(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi);
/* Does the value phi receives from an iteration of l depend on phi itself through l's
   instructions? iv[0..niv): the thread indices, where the walk stops; insts: l's instruction
   count (cgp_loop_instructions). 1 when unsure. */
int cgp_carried_recurrence(const cgp_cfg *cfg, const cgp_loop *l, size_t insts, LLVMValueRef phi,
                           const LLVMValueRef *iv, unsigned niv);
/* Is phi a reduction: every update x = x op e with one associative op ("+", "*", "min", "max",
   "&", "|", "^"), its values used by nothing else in l? Then *op and *update (the first update). */
int cgp_carried_reduction(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi, const char **op,
                          LLVMValueRef *update);
/* Is phi a flag: every value an iteration hands it is its own (not set) or one value fixed before
   l (`stop = true`; a boolean set by `or`), through phis and selects, and nothing else in l reads
   it? Every thread that sets it sets the same value: a benign race. *value: that value. */
int cgp_carried_flag(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi, LLVMValueRef *value);
/* The instruction with the line where the source updates phi's variable in l (from: the value an
   iteration hands back), or NULL. */
LLVMValueRef cgp_carried_update(LLVMContextRef ctx, const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi,
                                LLVMValueRef from);
/* The instructions of loop l. */
size_t cgp_loop_instructions(const cgp_cfg *cfg, const cgp_loop *l);

#endif
