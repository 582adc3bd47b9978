/* cgp_hls_affine.c: the element a load or store touches, as an affine function of the nest's
   iteration numbers (docs/model.md 11.10), read from the IR: a GEP's indices through casts, adds,
   subtracts, multiplies and shifts by constants, an or that adds (a constant below the lowest bit
   the other operand can set), down to constants and the header phis of the
   nest's loops (a phi starting at s, stepping by t: s + t x n_L; s may itself be affine, as a
   triangular loop's j = i + ...). A term the nest cannot change (an argument, a value computed
   before the nest) is taken as 0 and the access marked affine 2 (up to that term: its banks are
   right relative to its own copies; its extent is unknown). Anything else (a load in the nest, a
   call) is not affine.
   Bytes are converted to elements of the access's width; an offset that is not a whole number of
   elements is not affine. */
#include "cgp_hls_ops.h"

#include <llvm-c/Core.h>
#include <string.h>

#include "cgp_cfg.h"
#include "cgp_mark.h"

typedef struct {
  const cgp_cfg *cfg;
  const cgp_loop *const *loops;
  unsigned n;
  int invariant; /* a term fixed for the whole nest (an argument, a value computed before it) was taken as 0 */
} nest_view;

/* A value the nest cannot change: an argument, a global, or an instruction outside its loops. */
static int nest_invariant(const nest_view *v, LLVMValueRef x) {
  if (LLVMIsAArgument(x) || LLVMIsAGlobalValue(x)) return 1;
  if (!LLVMIsAInstruction(x) || !v->n) return 0;
  size_t b = cgp_cfg_index(v->cfg, LLVMGetInstructionParent(x));
  return b < v->cfg->n && !v->loops[0]->in[b];
}

static int64_t type_bytes(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: return 2;
  case LLVMFloatTypeKind: return 4;
  case LLVMDoubleTypeKind: return 8;
  case LLVMPointerTypeKind: return 8;
  case LLVMIntegerTypeKind: return (LLVMGetIntTypeWidth(t) + 7) / 8;
  case LLVMArrayTypeKind: {
    int64_t e = type_bytes(LLVMGetElementType(t));
    return e < 0 ? -1 : e * (int64_t)LLVMGetArrayLength(t);
  }
  default: return -1;
  }
}

static void scale(cgp_fpga_access *a, int64_t k) {
  a->offset *= k;
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) a->coef[l] *= k;
}

static void add(cgp_fpga_access *a, const cgp_fpga_access *b, int64_t sign) {
  a->offset += sign * b->offset;
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) a->coef[l] += sign * b->coef[l];
}

static int affine_int(nest_view *v, LLVMValueRef x, cgp_fpga_access *a, unsigned depth);

/* A header phi of loop L of the nest: start + step x n_L. */
static int induction(nest_view *v, LLVMValueRef phi, cgp_fpga_access *a, unsigned depth) {
  size_t blk = cgp_cfg_index(v->cfg, LLVMGetInstructionParent(phi));
  for (unsigned l = 0; l < v->n && l < CGP_FPGA_MAX_LOOPS; l++) {
    if (v->loops[l]->header != blk) continue;
    if (LLVMCountIncoming(phi) != 2) return -1;
    LLVMValueRef start = NULL, next = NULL;
    for (unsigned i = 0; i < 2; i++) {
      size_t from = cgp_cfg_index(v->cfg, LLVMGetIncomingBlock(phi, i));
      if (from < v->cfg->n && v->loops[l]->in[from]) next = LLVMGetIncomingValue(phi, i);
      else start = LLVMGetIncomingValue(phi, i);
    }
    if (!start || !next || !LLVMIsAInstruction(next) || LLVMGetInstructionOpcode(next) != LLVMAdd) return -1;
    LLVMValueRef o0 = LLVMGetOperand(next, 0), o1 = LLVMGetOperand(next, 1);
    if (o0 != phi || !LLVMIsAConstantInt(o1)) return -1;
    if (affine_int(v, start, a, depth + 1)) return -1;
    a->coef[l] += LLVMConstIntGetSExtValue(o1);
    return 0;
  }
  return -1;
}

static int affine_int(nest_view *v, LLVMValueRef x, cgp_fpga_access *a, unsigned depth) {
  memset(a, 0, sizeof *a);
  if (depth > 32) return -1;
  if (LLVMIsAConstantInt(x)) return a->offset = LLVMConstIntGetSExtValue(x), 0;
  if (nest_invariant(v, x)) return v->invariant = 1, 0; /* e.g. adi's row i1, an argument: taken as 0 */
  if (!LLVMIsAInstruction(x)) return -1;
  cgp_fpga_access b;
  switch (LLVMGetInstructionOpcode(x)) {
  case LLVMSExt: case LLVMZExt: case LLVMTrunc: return affine_int(v, LLVMGetOperand(x, 0), a, depth + 1);
  case LLVMAdd: case LLVMSub:
    if (affine_int(v, LLVMGetOperand(x, 0), a, depth + 1) || affine_int(v, LLVMGetOperand(x, 1), &b, depth + 1))
      return -1;
    add(a, &b, LLVMGetInstructionOpcode(x) == LLVMAdd ? 1 : -1);
    return 0;
  case LLVMMul:
    for (unsigned i = 0; i < 2; i++)
      if (LLVMIsAConstantInt(LLVMGetOperand(x, i))) {
        if (affine_int(v, LLVMGetOperand(x, 1 - i), a, depth + 1)) return -1;
        scale(a, LLVMConstIntGetSExtValue(LLVMGetOperand(x, i)));
        return 0;
      }
    return -1;
  case LLVMShl:
    if (!LLVMIsAConstantInt(LLVMGetOperand(x, 1)) || LLVMConstIntGetZExtValue(LLVMGetOperand(x, 1)) > 62 ||
        affine_int(v, LLVMGetOperand(x, 0), a, depth + 1))
      return -1;
    scale(a, (int64_t)1 << LLVMConstIntGetZExtValue(LLVMGetOperand(x, 1)));
    return 0;
  case LLVMOr: { /* x | c with c below x's lowest possible set bit is x + c (instcombine's 2 i + 1) */
    if (!LLVMIsAConstantInt(LLVMGetOperand(x, 1)) || affine_int(v, LLVMGetOperand(x, 0), a, depth + 1)) return -1;
    uint64_t bits = (uint64_t)a->offset, c = LLVMConstIntGetZExtValue(LLVMGetOperand(x, 1));
    for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) bits |= (uint64_t)a->coef[l];
    uint64_t low = bits & (~bits + 1); /* the lowest set bit (0: x is 0) */
    if (low && c >= low) return -1;
    a->offset += (int64_t)c;
    return 0;
  }
  case LLVMPHI: return induction(v, x, a, depth);
  default: return -1;
  }
}

/* Byte offset of pointer p from its underlying object. */
static int affine_ptr(nest_view *v, LLVMValueRef p, cgp_fpga_access *a, unsigned depth) {
  memset(a, 0, sizeof *a);
  if (depth > 32) return -1;
  while (LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p)) p = LLVMGetOperand(p, 0);
  if (cgp_pass_underlying_base(p) == p) return 0;
  if (!LLVMIsAGetElementPtrInst(p)) return -1;
  if (affine_ptr(v, LLVMGetOperand(p, 0), a, depth + 1)) return -1;
  LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
  unsigned n = (unsigned)LLVMGetNumOperands(p);
  for (unsigned i = 1; i < n; i++) {
    if (i > 1) {
      if (LLVMGetTypeKind(t) != LLVMArrayTypeKind) return -1; /* a struct field: not modelled */
      t = LLVMGetElementType(t);
    }
    int64_t size = type_bytes(t);
    cgp_fpga_access b;
    if (size < 0 || affine_int(v, LLVMGetOperand(p, i), &b, depth + 1)) return -1;
    scale(&b, size);
    add(a, &b, 1);
  }
  return 0;
}

int cgp_hls_access(const cgp_cfg *cfg, const cgp_loop *const *loops, unsigned n_loops, LLVMValueRef ptr,
                   unsigned width_bits, cgp_fpga_access *out) {
  nest_view v = {cfg, loops, n_loops, 0};
  cgp_fpga_access a;
  memset(out, 0, sizeof *out);
  int64_t w = (width_bits + 7) / 8;
  if (affine_ptr(&v, ptr, &a, 0) || !w || a.offset % w) return 0;
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++)
    if (a.coef[l] % w) return 0;
  a.offset /= w;
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) a.coef[l] /= w;
  a.affine = v.invariant ? 2 : 1;
  *out = a;
  return 1;
}

unsigned cgp_hls_inner_dims(LLVMValueRef ptr, uint64_t *dims, unsigned cap) {
  while (LLVMIsABitCastInst(ptr) || LLVMIsAAddrSpaceCastInst(ptr)) ptr = LLVMGetOperand(ptr, 0);
  if (!LLVMIsAGetElementPtrInst(ptr)) return 0;
  unsigned n = 0;
  for (LLVMTypeRef t = LLVMGetGEPSourceElementType(ptr); LLVMGetTypeKind(t) == LLVMArrayTypeKind && n < cap;
       t = LLVMGetElementType(t))
    dims[n++] = LLVMGetArrayLength(t);
  return n;
}
