/* cgp_pass.h: the instrumentation pass. Takes the bitcode clang made of one translation unit and
   the pragmas found in its source, and instruments exactly the marked loop nests: every load and
   store of a thread body reports its address, every block reports its execution, every thread
   reports its coordinates. The runtime (runtime/cgp_rt.h) receives these calls. */
#ifndef CGP_PASS_H
#define CGP_PASS_H

#include <stddef.h>
#include <llvm-c/Types.h>
#include "cgp_pragma.h"

/* Version of the contract between instrumented code and the runtime (hook signatures and the
   kernel descriptor's JSON schema). */
#define CGP_PASS_ABI 1

/* Instrument the marked loop nests of module m. On failure returns nonzero and writes
   `file:line:col: error: ...` into err; warnings (one per line, same form) go to warn. */
int cgp_pass_instrument_module(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk,
                               char *err, size_t errlen, char *warn, size_t warnlen);

/* Read bitcode from bc_in, instrument, verify, write bitcode to bc_out. */
int cgp_pass_instrument_file(const char *bc_in, const char *bc_out,
                             const cgp_kernel_pragma *k, size_t nk,
                             char *err, size_t errlen, char *warn, size_t warnlen);

/* PTX-equivalent instruction count of one LLVM instruction (MODEL.md section 6); sets *core to 1
   when those instructions run on CUDA cores. Exposed for tests. */
unsigned cgp_pass_ptx_cost(LLVMValueRef inst, int *core);

#endif
