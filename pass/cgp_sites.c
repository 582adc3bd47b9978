/* cgp_sites.c: questions about one instruction that every step of phase 2 asks: is it an access,
   phase 1's marker (cgp_mark.h), a real call, a memory site of the nest in its reading, and which
   address and base a site reports. Calls nothing else of phase 2. */
#include "cgp_phase2.h"
#include "cgp_mark.h"
#include <string.h>

int cgp_is_noalias_argument(LLVMValueRef v) {
  if (!LLVMIsAArgument(v)) return 0;
  LLVMValueRef fn = LLVMGetParamParent(v);
  unsigned idx = 0;
  while (LLVMGetParam(fn, idx) != v) idx++;
  return LLVMGetEnumAttributeAtIndex(fn, idx + 1, LLVMGetEnumAttributeKindForName("noalias", 7)) != NULL;
}

LLVMValueRef cgp_allocation_of(LLVMValueRef v) {
  v = cgp_pass_underlying_base(v);
  if (LLVMIsAAllocaInst(v) || cgp_is_noalias_argument(v)) return v;
  if (!LLVMIsACallInst(v)) return NULL;
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMValueRef callee = LLVMGetCalledValue(v);
  int na = LLVMGetCallSiteEnumAttribute(v, LLVMAttributeReturnIndex, noalias) != NULL ||
           (LLVMIsAFunction(callee) && LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeReturnIndex, noalias) != NULL);
  return na ? v : NULL;
}

LLVMValueRef cgp_first_non_phi(LLVMBasicBlockRef bb) {
  LLVMValueRef i = LLVMGetFirstInstruction(bb);
  while (i && LLVMIsAPHINode(i)) i = LLVMGetNextInstruction(i);
  return i;
}

int cgp_is_mem(LLVMValueRef i) {
  LLVMValueRef ptr;
  return cgp_pass_access_kind(i, &ptr) >= 0;
}

int cgp_is_marker(const pass_ctx *pc, LLVMValueRef i) {
  return pc->f_site && LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == pc->f_site;
}

/* A call (or invoke) other than an intrinsic or a marker. */
int cgp_is_real_call(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall && LLVMGetInstructionOpcode(i) != LLVMInvoke) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t len = 0;
  const char *name = (callee && LLVMIsAFunction(callee)) ? LLVMGetValueName2(callee, &len) : "";
  return strncmp(name, "llvm.", 5) != 0 && strcmp(name, CGP_SITE_MARKER) != 0;
}

/* Base b (the nest's callees inlined) is a thread's own scalar, struct or constantly indexed
   array (phase 1's !cgp.thread_local, not local memory). Reached through a callee's pointer or
   reference parameter (std::max's `const float &` bound to a temporary, a helper's `float *out`
   given `&sum`), phase 1 marked it in the callee, where it was a parameter; inlined, it is a
   register of the thread on the GPU, as nvcc keeps it, and no memory access. */
static int thread_register_at(LLVMValueRef b, int depth) {
  if (depth > 0 && (LLVMIsASelectInst(b) || LLVMIsAPHINode(b))) {   /* std::max's result: one of two */
    int first = LLVMIsASelectInst(b) ? 1 : 0, n = LLVMIsASelectInst(b) ? 3 : (int)LLVMCountIncoming(b);
    for (int o = first; o < n; o++) {
      LLVMValueRef v = LLVMIsASelectInst(b) ? LLVMGetOperand(b, (unsigned)o) : LLVMGetIncomingValue(b, (unsigned)o);
      if (!thread_register_at(cgp_pass_underlying_base(v), depth - 1)) return 0;
    }
    return 1;
  }
  return cgp_thread_local_tagged(b) && !cgp_local_memory_tagged(b) && !cgp_local_memory_alloca(b);
}

static int thread_register(LLVMValueRef b) { return thread_register_at(b, 4); }

/* Is i a memory site of the nest in its reading? *kind gets its CGP_SITE_* kind. */
int cgp_site_kind(const pass_ctx *pc, const nest *n, LLVMValueRef i, int *kind) {
  LLVMValueRef ptr, base;
  if (!n->may_alias) {
    if ((*kind = cgp_pass_access_kind(i, &ptr)) < 0) return 0;
  } else {
    if (!cgp_is_marker(pc, i)) return 0;
    *kind = (int)LLVMConstIntGetZExtValue(LLVMGetOperand(i, 2));
  }
  cgp_site_pointers(pc, i, &ptr, &base);
  return !thread_register(base);
}

/* Address and base pointer of a site. */
void cgp_site_pointers(const pass_ctx *pc, LLVMValueRef i, LLVMValueRef *ptr, LLVMValueRef *base) {
  if (cgp_is_marker(pc, i)) {
    *ptr = LLVMGetOperand(i, 0);
    /* phase 1's base, walked again: a helper that returned a pointer into an array (`at(g, i, j)`)
       was its own base there, and is the address arithmetic into the array once inlined */
    *base = cgp_pass_underlying_base(LLVMGetOperand(i, 1));
    return;
  }
  cgp_pass_access_kind(i, ptr);
  *base = cgp_pass_underlying_base(*ptr);
}

int cgp_site_local_memory(const pass_ctx *pc, LLVMValueRef i) {
  LLVMValueRef ptr, base;
  cgp_site_pointers(pc, i, &ptr, &base);
  return cgp_local_memory_tagged(base);           /* cgp_site_pointers' base: underlying already */
}

/* p is the same address for the whole thread: an argument, a global, a stack slot, or constant
   offsets from one (a struct's field, a parameter's copy). */
static int fixed_address(LLVMValueRef p) {
  for (int guard = 0; guard < 16; guard++) {
    if (LLVMIsAArgument(p) || LLVMIsAGlobalValue(p) || LLVMIsAAllocaInst(p) || LLVMIsAConstant(p)) return 1;
    if (LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    if (!LLVMIsAGetElementPtrInst(p)) return 0;
    for (int o = 1; o < LLVMGetNumOperands(p); o++)
      if (!LLVMIsAConstant(LLVMGetOperand(p, (unsigned)o))) return 0;
    p = LLVMGetOperand(p, 0);
  }
  return 0;
}

/* v is computed, through casts, integer arithmetic, selects and phis (at most `depth` steps
   back), from a value loaded at an address that is not fixed: an index read from an array. */
static int from_loaded_index(LLVMValueRef v, int depth) {
  if (depth <= 0 || !LLVMIsAInstruction(v)) return 0;
  if (LLVMIsALoadInst(v)) return !fixed_address(LLVMGetOperand(v, 0));
  if (LLVMIsAPHINode(v)) {
    for (unsigned o = 0; o < LLVMCountIncoming(v); o++)
      if (from_loaded_index(LLVMGetIncomingValue(v, o), depth - 1)) return 1;
    return 0;
  }
  if (!LLVMIsACastInst(v) && !LLVMIsABinaryOperator(v) && !LLVMIsASelectInst(v)) return 0;
  for (int o = LLVMIsASelectInst(v) ? 1 : 0; o < LLVMGetNumOperands(v); o++)
    if (from_loaded_index(LLVMGetOperand(v, (unsigned)o), depth - 1)) return 1;
  return 0;
}

int cgp_site_index_loaded(const pass_ctx *pc, LLVMValueRef i) {
  LLVMValueRef p, base;
  cgp_site_pointers(pc, i, &p, &base);
  for (int guard = 0; guard < 16; guard++) {
    if (LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    if (!LLVMIsAGetElementPtrInst(p)) return 0;
    for (int o = 1; o < LLVMGetNumOperands(p); o++)
      if (from_loaded_index(LLVMGetOperand(p, (unsigned)o), 8)) return 1;
    p = LLVMGetOperand(p, 0);                     /* a row's pointer loaded (rows[i][j]) is no gather */
  }
  return 0;
}
