/* cgp_ptx.c: the LLVM-IR-to-PTX instruction mapping of MODEL.md section 6, in one table.
   A loop iteration in -O1 IR is phi + add + icmp + br: the add, the compare and the conditional
   branch count one each, the phi nothing, as nvcc's PTX for the same loop (add, setp, bra). */
#include "cgp_pass.h"
#include "cgp_abi.h"

#include <llvm-c/Core.h>
#include <string.h>

/* Calls to these compile to one PTX instruction (or an SFU approximation nvcc emits inline). The
   marked file is compiled with -fno-builtin (driver/cgp_build.c), so C's own abs() and friends stay
   calls: abs, labs, llabs (abs.s32/.s64), fma (fma.rn), trunc, round, rint (cvt.rzi/.rni) and
   copysign (a bit operation) are one instruction and touch no memory (Parboil's sad: abs() was
   warned of as "its memory accesses are not traced"). */
static const char *const cgp_math_calls[] = {
  "sqrt", "sqrtf", "fabs", "fabsf", "exp", "expf", "log", "logf", "sin", "sinf", "cos", "cosf",
  "pow", "powf", "fmin", "fminf", "fmax", "fmaxf", "floor", "floorf", "ceil", "ceilf",
  "abs", "labs", "llabs", "fma", "fmaf", "trunc", "truncf", "round", "roundf", "rint", "rintf",
  "copysign", "copysignf", NULL
};

/* C's other math functions that read and write no memory (not frexp, modf or sincos, which write
   through a pointer): CUDA's device versions are sequences of instructions whose length this
   table does not know, counted as one (a lower bound, said at the call: cgp_pass_call_is_sequence). */
static const char *const cgp_math_sequences[] = {
  "tan", "tanf", "atan", "atanf", "atan2", "atan2f", "asin", "asinf", "acos", "acosf", "sinh", "sinhf",
  "cosh", "coshf", "tanh", "tanhf", "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf", "exp2", "exp2f",
  "expm1", "expm1f", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "cbrt", "cbrtf", "hypot", "hypotf",
  "erf", "erff", "erfc", "erfcf", "fmod", "fmodf", "remainder", "remainderf", "lgamma", "lgammaf", "tgamma",
  "tgammaf", "ldexp", "ldexpf", "nearbyint", "nearbyintf", "fdim", "fdimf", NULL
};

static int in_list(const char *const *list, const char *name) {
  for (int i = 0; list[i]; i++)
    if (strcmp(name, list[i]) == 0) return 1;
  return 0;
}

static int is_math_call(const char *name) {
  if (in_list(cgp_math_calls, name) || in_list(cgp_math_sequences, name)) return 1;
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

static const char *callee_name(LLVMValueRef inst) {
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  size_t len = 0;
  return (callee && LLVMIsAFunction(callee)) ? LLVMGetValueName2(callee, &len) : "";
}

/* A debug or lifetime marker, or one of our hooks: no instruction of the kernel. */
static int is_marker_call(const char *name) {
  return strncmp(name, "llvm.dbg.", 9) == 0 || strncmp(name, "llvm.lifetime.", 14) == 0 ||
         strncmp(name, CGP_HOOK_PREFIX, strlen(CGP_HOOK_PREFIX)) == 0;
}

static unsigned call_cost(LLVMValueRef inst, int *core) {
  const char *name = callee_name(inst);
  if (is_marker_call(name)) return 0;
  *core = is_math_call(name);
  return 1;
}

int cgp_pass_call_is_register_only(LLVMValueRef call) {
  const char *name = callee_name(call);
  return is_marker_call(name) || is_math_call(name);
}

int cgp_pass_call_is_sequence(LLVMValueRef call) { return in_list(cgp_math_sequences, callee_name(call)); }

unsigned cgp_pass_ptx_cost(LLVMValueRef inst, int *core) {
  *core = 0;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad: case LLVMStore: case LLVMAtomicRMW: case LLVMAtomicCmpXchg:
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

/* ---- functional units ------------------------------------------------------------------------

   Only instructions that run on CUDA cores (core != 0 above) count; memory instructions,
   branches and calls to other functions run on no arithmetic unit. Each counts k times, k its
   PTX-equivalent count:
     - sfu:  fdiv and frem (f32 division is a reciprocal approximation on the SFU plus an fma),
             calls and intrinsics of sqrt, exp, log, sin, cos and pow;
     - fp64: every instruction with a double operand or result, sfu ones included (the double
             versions are fp64 instruction sequences, so a double sqrt counts in sfu and fp64);
     - fp32: other instructions with a float or half operand or result that are not sfu;
     - int:  the rest (integer arithmetic, compares, selects, address adds, int<->int casts). */

static int is_sfu_call(const char *name) {
  static const char *const sfu[] = {"sqrt", "sqrtf", "exp", "expf", "log", "logf", "sin", "sinf",
                                    "cos", "cosf", "pow", "powf", NULL};
  for (int i = 0; sfu[i]; i++)
    if (strcmp(name, sfu[i]) == 0) return 1;
  return strncmp(name, "llvm.sqrt.", 10) == 0 || strncmp(name, "llvm.exp", 8) == 0 ||
         strncmp(name, "llvm.log", 8) == 0 || strncmp(name, "llvm.sin.", 9) == 0 ||
         strncmp(name, "llvm.cos.", 9) == 0 || strncmp(name, "llvm.pow", 8) == 0;
}

/* 2 if inst has a double operand or result, 1 if a float or half one, else 0. */
static int fp_width(LLVMValueRef inst) {
  int w = 0;
  int n = LLVMGetNumOperands(inst);
  for (int o = -1; o < n; o++) {
    LLVMTypeRef t = LLVMTypeOf(o < 0 ? inst : LLVMGetOperand(inst, (unsigned)o));
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMVectorTypeKind) k = LLVMGetTypeKind(LLVMGetElementType(t));
    if (k == LLVMDoubleTypeKind) return 2;
    if (k == LLVMFloatTypeKind || k == LLVMHalfTypeKind) w = 1;
  }
  return w;
}

unsigned cgp_pass_ptx_units(LLVMValueRef inst, cgp_ptx_units *u) {
  int core = 0;
  unsigned k = cgp_pass_ptx_cost(inst, &core);
  if (!k || !core) return k;
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  int sfu = op == LLVMFDiv || op == LLVMFRem;
  if (op == LLVMCall) {
    LLVMValueRef callee = LLVMGetCalledValue(inst);
    size_t len = 0;
    sfu = callee && LLVMIsAFunction(callee) && is_sfu_call(LLVMGetValueName2(callee, &len));
  }
  int w = fp_width(inst);
  if (sfu) u->sfu += k;
  if (w == 2) u->fp64 += k;
  else if (w == 1 && !sfu) u->fp32 += k;
  else if (w == 0) u->integer += k;
  return k;
}
