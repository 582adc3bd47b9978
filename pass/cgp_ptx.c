/* cgp_ptx.c: the LLVM-IR-to-PTX instruction mapping of MODEL.md section 6, in one table.
   A loop iteration in -O1 IR is phi + add + icmp + br: the add, the compare and the conditional
   branch count one each, the phi nothing, as nvcc's PTX for the same loop (add, setp, bra). */
#include "cgp_pass.h"

#include <llvm-c/Core.h>
#include <string.h>

/* Calls to these compile to one PTX instruction (or an SFU approximation nvcc emits inline). */
static const char *const cgp_math_calls[] = {
  "sqrt", "sqrtf", "fabs", "fabsf", "exp", "expf", "log", "logf", "sin", "sinf", "cos", "cosf",
  "pow", "powf", "fmin", "fminf", "fmax", "fmaxf", "floor", "floorf", "ceil", "ceilf", NULL
};

static int is_math_call(const char *name) {
  for (int i = 0; cgp_math_calls[i]; i++)
    if (strcmp(name, cgp_math_calls[i]) == 0) return 1;
  return strncmp(name, "llvm.sqrt.", 10) == 0 || strncmp(name, "llvm.fabs.", 10) == 0 ||
         strncmp(name, "llvm.fmuladd.", 13) == 0 || strncmp(name, "llvm.fma.", 9) == 0 ||
         strncmp(name, "llvm.exp", 8) == 0 || strncmp(name, "llvm.log", 8) == 0 ||
         strncmp(name, "llvm.pow.", 9) == 0 || strncmp(name, "llvm.minnum.", 12) == 0 ||
         strncmp(name, "llvm.maxnum.", 12) == 0 || strncmp(name, "llvm.floor.", 11) == 0;
}

/* An fmul whose only user is an fadd/fsub in the same block becomes part of an fma. */
static int fuses_into_fma(LLVMValueRef inst) {
  LLVMUseRef u = LLVMGetFirstUse(inst);
  if (!u || LLVMGetNextUse(u)) return 0;
  LLVMValueRef user = LLVMGetUser(u);
  if (!LLVMIsAInstruction(user) || LLVMGetInstructionParent(user) != LLVMGetInstructionParent(inst))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(user);
  return op == LLVMFAdd || op == LLVMFSub;
}

static unsigned call_cost(LLVMValueRef inst, int *core) {
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  size_t len = 0;
  const char *name = (callee && LLVMIsAFunction(callee)) ? LLVMGetValueName2(callee, &len) : "";
  if (strncmp(name, "llvm.dbg.", 9) == 0 || strncmp(name, "llvm.lifetime.", 14) == 0 ||
      strncmp(name, "cgp_rt_", 7) == 0)
    return 0;
  *core = is_math_call(name);
  return 1;
}

unsigned cgp_pass_ptx_cost(LLVMValueRef inst, int *core) {
  *core = 0;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad: case LLVMStore:
    return 1;
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
  case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMICmp: case LLVMFCmp: case LLVMSelect:
  case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
  case LLVMFAdd: case LLVMFSub: case LLVMFDiv: case LLVMFRem: case LLVMFNeg:
  case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI: case LLVMFPToSI:
  case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt:
  case LLVMExtractElement: case LLVMInsertElement:
    *core = 1;
    return 1;
  case LLVMFMul:
    if (fuses_into_fma(inst)) return 0;
    *core = 1;
    return 1;
  case LLVMGetElementPtr:
    /* one address add when some index varies; a constant offset folds into ld/st */
    for (int i = 1; i < LLVMGetNumOperands(inst); i++)
      if (!LLVMIsConstant(LLVMGetOperand(inst, (unsigned)i))) { *core = 1; return 1; }
    return 0;
  case LLVMBr:
    return LLVMIsConditional(inst) ? 1 : 0;
  case LLVMSwitch:
    return 1;
  case LLVMCall:
    return call_cost(inst, core);
  default:                                   /* phi, casts that vanish, alloca, ret ... */
    return 0;
  }
}
