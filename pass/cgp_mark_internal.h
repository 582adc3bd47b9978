/* cgp_mark_internal.h: what the files of phase 1 (cgp_mark.c and the files it calls) share, one
   declaration per function one file gives another. Internal to pass/; what phase 2 and the HLS
   operations read of phase 1 is cgp_mark.h.

   Calls go one way: cgp_mark.c (the marking, the inlining of callees, the -O1 pipeline) calls
   cgp_private.c (shared and private locals) and cgp_access.c (an access's kind, base and size);
   cgp_private.c calls cgp_access.c, which calls nothing of phase 1; nor does cgp_local.c (which
   thread-private arrays are in local memory). */
#ifndef CGP_MARK_INTERNAL_H
#define CGP_MARK_INTERNAL_H

#include "cgp_pass.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stddef.h>

/* ---- cgp_access.c ---------------------------------------------------------------------------- */

/* A read of ptr is a kernel argument (a global scalar): not a memory access in CUDA. */
int cgp_kernel_argument(LLVMValueRef ptr);
/* Instruction i's debug location lies in the lines of one of the nk marked nests k. */
int cgp_in_nest(LLVMValueRef i, const cgp_kernel_pragma *k, size_t nk);
/* The memory accesses of instruction i (a load, store or atomic; a constant-length copy's read and
   write): *n addresses in ptrs, CGP_SITE_* in kinds, *bytes each. 0 when i accesses no memory. */
int cgp_inst_accesses(LLVMTargetDataRef td, LLVMValueRef i, LLVMValueRef ptrs[2], int kinds[2], unsigned *n,
                      unsigned long long *bytes);

/* ---- cgp_private.c --------------------------------------------------------------------------- */

/* The local arrays and structs of fn declared outside every marked nest (shared by its threads),
   at most cap, in out; their number. */
size_t cgp_shared_locals(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *out,
                         size_t cap);
/* Drops from shared[] the locals an OpenMP clause written with a nest's pragma makes private
   (the pragma's omp_private), naming them in m's !cgp.privatized for those nests; the number
   kept. They are then each thread's, as if declared inside the nest. */
size_t cgp_omp_private(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *shared, size_t nshared);
/* Drops from shared[] the locals every nest touching them has private, naming them in m's
   !cgp.privatized; the number kept. */
size_t cgp_privatize(LLVMModuleRef m, LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *shared,
                     size_t nshared);
/* Tags fn's locals that are each thread's own with !cgp.thread_local: every local when `whole`
   (fn is a nest's callee: each call has its own), else those declared in a nest (their
   llvm.dbg.declare, or for a temporary without one its llvm.lifetime.start, lies in it). */
void cgp_thread_locals_tag(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, int whole);

/* ---- cgp_local.c ----------------------------------------------------------------------------- */

/* Tags alloca a with !cgp.local_memory (once). */
void cgp_local_memory_tag(LLVMValueRef a);

#endif
