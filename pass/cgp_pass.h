/* cgp_pass.h: the instrumentation pass. Takes the bitcode clang made of one translation unit and
   the pragmas found in its source, and instruments exactly the marked loop nests: every load and
   store of a thread body reports its address, every block reports its execution, every thread
   reports its coordinates. The runtime (runtime/cgp_rt.h) receives these calls. */
#ifndef CGP_PASS_H
#define CGP_PASS_H

#include <stddef.h>
#include <llvm-c/Types.h>
#include "cgp_pragma.h"

/* 1 if x is one of v[0..n): the pass's small lists of values (allocas shared by a nest's threads,
   a slice's instructions). */
static inline int cgp_pass_value_in(const LLVMValueRef *v, size_t n, LLVMValueRef x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return 1;
  return 0;
}

/* Phase 1, on the module clang -O1 -Xclang -disable-llvm-passes made: mark every source-level
   access to non-private memory with a call to cgp_rt_site (the CUDA reading: arrays may alias),
   have the calls a marked nest of k[0..nk) makes inlined there, and the calls of those callees in
   turn (CUDA's __device__ functions are inlined; their accesses are the kernel's), then run the -O1
   pipeline (no vectorization, interleaving or unrolling). 0 on success. */
int cgp_pass_prepare_module(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk, char *err, size_t errlen);

/* Phase 2: instrument the marked loop nests of module m (prepared by phase 1; a module that
   was not prepared is traced as compiled, in the noalias reading). On failure returns nonzero and writes
   `file:line:col: error: ...` into err; warnings (one per line, same form) go to warn. */
int cgp_pass_instrument_module(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk,
                               char *err, size_t errlen, char *warn, size_t warnlen);

/* Read unoptimized bitcode from bc_in, run both phases, verify, write bitcode to bc_out. */
int cgp_pass_instrument_file(const char *bc_in, const char *bc_out,
                             const cgp_kernel_pragma *k, size_t nk,
                             char *err, size_t errlen, char *warn, size_t warnlen);

/* PTX-equivalent instruction count of one LLVM instruction (MODEL.md section 6); sets *core to 1
   when those instructions run on CUDA cores. Exposed for tests. */
unsigned cgp_pass_ptx_cost(LLVMValueRef inst, int *core);

/* PTX-equivalent instructions by the functional unit that runs them (cgp_ptx.c says how each
   instruction counts; an instruction may count in two units). */
typedef struct cgp_ptx_units {
  unsigned fp32, fp64, integer, sfu;
} cgp_ptx_units;

/* Add inst's PTX-equivalent instructions to *u; returns cgp_pass_ptx_cost(inst). */
unsigned cgp_pass_ptx_units(LLVMValueRef inst, cgp_ptx_units *u);

/* A call that writes no memory on the GPU: a hook, a debug or lifetime marker, or a math function
   computed in registers (the table cgp_pass_ptx_cost counts as one instruction). */
int cgp_pass_call_is_register_only(LLVMValueRef call);
/* 1 if the call is to a math function CUDA computes in registers by a sequence of instructions of
   unknown length (tanf, atan2f, fmodf ...), counted as one instruction. */
int cgp_pass_call_is_sequence(LLVMValueRef call);

#endif
