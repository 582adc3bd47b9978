/* cgp_sites.c: questions about one instruction that every step of phase 2 asks: is it an access,
   phase 1's marker (cgp_mark.h), a real call, a memory site of the nest in its reading, and which
   address and base a site reports. Calls nothing else of phase 2. */
#include "cgp_instrument_internal.h"
#include "cgp_mark.h"
#include <string.h>

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

/* A call other than an intrinsic or a marker. */
int cgp_is_real_call(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t len = 0;
  const char *name = (callee && LLVMIsAFunction(callee)) ? LLVMGetValueName2(callee, &len) : "";
  return strncmp(name, "llvm.", 5) != 0 && strcmp(name, CGP_SITE_MARKER) != 0;
}

/* Is i a memory site of the nest in its reading? *kind gets its CGP_SITE_* kind. */
int cgp_site_kind(const pass_ctx *pc, const nest *n, LLVMValueRef i, int *kind) {
  LLVMValueRef ptr;
  if (!n->may_alias) return (*kind = cgp_pass_access_kind(i, &ptr)) >= 0;
  if (!cgp_is_marker(pc, i)) return 0;
  *kind = (int)LLVMConstIntGetZExtValue(LLVMGetOperand(i, 2));
  return 1;
}

/* Address and base pointer of a site. */
void cgp_site_pointers(const pass_ctx *pc, LLVMValueRef i, LLVMValueRef *ptr, LLVMValueRef *base) {
  if (cgp_is_marker(pc, i)) {
    *ptr = LLVMGetOperand(i, 0);
    *base = LLVMGetOperand(i, 1);
    return;
  }
  cgp_pass_access_kind(i, ptr);
  *base = cgp_pass_underlying_base(*ptr);
}

int cgp_site_local_memory(const pass_ctx *pc, LLVMValueRef i) {
  LLVMValueRef ptr, base;
  cgp_site_pointers(pc, i, &ptr, &base);
  return cgp_local_memory_tagged(cgp_pass_underlying_base(base));
}
