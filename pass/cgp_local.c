/* cgp_local.c: which thread-private arrays live in CUDA local memory (issue 30 item 10a;
   docs/pipeline.md, "Per-thread arrays in local memory").

   nvcc keeps a per-thread array in registers only when every index into it is a constant it can
   resolve at compile time (registers are not addressable); an array indexed by a value known only
   at run time goes to local memory, which is off-chip like global memory, cached in L1/L2, and
   interleaved per thread (CUDA C Programming Guide, "Device Memory Accesses", "Local Memory").
   clang's SROA makes the same split on the CPU: an alloca whose every access has a constant
   index is promoted to registers (its accesses vanish at -O1), one with a variable index stays in
   memory. So the rule here is the compilers' rule: a thread-private alloca is in local memory when
   some address computed from it has a variable index. Judgement call: an array indexed only by
   constants but too large for the register file (over 255 registers a thread) would also be
   placed in local memory by nvcc; SROA still splits it on the CPU, so it is left untraced, as
   registers. Phase 1 (cgp_mark.c) marks the accesses of such an alloca, in the nest and in the
   functions the nest calls (inlined into it), and tags the alloca with !cgp.local_memory, which
   survives inlining; phase 2 names its sites `local_memory` in the descriptor (cgp_sites.c).
   Calls nothing else of the pass. */
#include "cgp_pass.h"
#include "cgp_mark.h"
#include "cgp_mark_internal.h"

#include <llvm-c/Core.h>
#include <string.h>

/* Some address derived from v (through GEPs and casts) has a non-constant GEP index. */
static int variably_indexed(LLVMValueRef v, int depth) {
  if (depth == 0) return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == v) {
      unsigned n = (unsigned)LLVMGetNumOperands(user);
      for (unsigned o = 1; o < n; o++)
        if (!LLVMIsAConstant(LLVMGetOperand(user, o))) return 1;
      if (variably_indexed(user, depth - 1)) return 1;
    } else if (LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user)) {
      if (variably_indexed(user, depth - 1)) return 1;
    }
  }
  return 0;
}

int cgp_local_memory_alloca(LLVMValueRef a) {
  enum { DEPTH = 16 };                     /* GEPs and casts between the alloca and an address */
  return a && LLVMIsAAllocaInst(a) && variably_indexed(a, DEPTH);
}

void cgp_local_memory_tag(LLVMValueRef a) { cgp_pass_tag_alloca(a, CGP_LOCAL_MEMORY_MD); }

int cgp_local_memory_tagged(LLVMValueRef a) { return cgp_pass_alloca_tagged(a, CGP_LOCAL_MEMORY_MD); }
