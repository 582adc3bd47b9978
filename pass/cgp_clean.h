/* cgp_clean.h: an uninstrumented copy of a thread body, for the threads the runtime does not
   trace. Internal to pass/. */
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

#endif
