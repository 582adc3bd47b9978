/* cgp_access.c: phase 1's view of a memory access (cgp_mark.c marks them, cgp_private.c asks
   which locals' accesses stay unmarked): the pointer an address is indexed from, an access's kind
   and size, the size a marker call stands for, a read that is a kernel argument, whether an
   instruction lies in a marked nest, and a constant-length memcpy/memset as a read and a write.
   Calls nothing else of the pass. */
#include "cgp_pass.h"
#include "cgp_mark.h"
#include "cgp_mark_internal.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The pointer p is indexed from: down GEPs and casts, instructions or constant expressions. */
LLVMValueRef cgp_pass_underlying_base(LLVMValueRef p) {
  for (int guard = 0; guard < 64; guard++) {
    LLVMValueRef next = p;
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p)) {
      next = LLVMGetOperand(p, 0);
    } else if (LLVMIsAConstantExpr(p)) {
      LLVMOpcode op = LLVMGetConstOpcode(p);
      if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast) next = LLVMGetOperand(p, 0);
    }
    if (next == p) break;
    p = next;
  }
  return p;
}

/* kind of a memory access (CGP_SITE_LOAD ...), or -1; *ptr gets its address */
int cgp_pass_access_kind(LLVMValueRef i, LLVMValueRef *ptr) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMLoad: *ptr = LLVMGetOperand(i, 0); return CGP_SITE_LOAD;
  case LLVMStore: *ptr = LLVMGetOperand(i, 1); return CGP_SITE_STORE;
  case LLVMAtomicRMW: case LLVMAtomicCmpXchg: *ptr = LLVMGetOperand(i, 0); return CGP_SITE_ATOMIC;
  default: return -1;
  }
}

unsigned long long cgp_pass_access_size(LLVMTargetDataRef td, LLVMValueRef i) {
  LLVMTypeRef ty;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore: ty = LLVMTypeOf(LLVMGetOperand(i, 0)); break;
  case LLVMAtomicCmpXchg: ty = LLVMTypeOf(LLVMGetOperand(i, 2)); break;
  default: ty = LLVMTypeOf(i); break;
  }
  return LLVMStoreSizeOfType(td, ty);
}

static unsigned md_kind(LLVMValueRef v, const char *md) {
  return LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)), md, strlen(md));
}

void cgp_pass_tag_alloca(LLVMValueRef a, const char *md) {
  if (!LLVMGetMetadata(a, md_kind(a, md)))
    LLVMSetMetadata(a, md_kind(a, md), LLVMMDNodeInContext(LLVMGetTypeContext(LLVMTypeOf(a)), NULL, 0));
}

int cgp_pass_alloca_tagged(LLVMValueRef a, const char *md) {
  return a && LLVMIsAAllocaInst(a) && LLVMGetMetadata(a, md_kind(a, md)) != NULL;
}

LLVMValueRef cgp_pass_site_stored_constant(LLVMValueRef marker) {
  LLVMValueRef md = LLVMGetMetadata(marker, md_kind(marker, CGP_STORED_CONSTANT_MD));
  LLVMValueRef v = NULL;
  if (md && LLVMGetMDNodeNumOperands(md) == 1) LLVMGetMDNodeOperands(md, &v);
  return v && (LLVMIsAConstantInt(v) || LLVMIsAConstantFP(v)) ? v : NULL;
}

unsigned long long cgp_pass_site_size(LLVMTargetDataRef td, LLVMValueRef marker) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(marker));
  LLVMValueRef md = LLVMGetMetadata(marker, LLVMGetMDKindIDInContext(ctx, CGP_SITE_SIZE_MD, strlen(CGP_SITE_SIZE_MD)));
  if (md && LLVMGetMDNodeNumOperands(md) == 1) {
    LLVMValueRef v;
    LLVMGetMDNodeOperands(md, &v);
    if (v && LLVMIsAConstantInt(v)) return LLVMConstIntGetZExtValue(v);
  }
  LLVMValueRef p = LLVMGetOperand(marker, 0);          /* no size: the address's pointee type */
  while (LLVMIsABitCastInst(p) || (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMBitCast))
    p = LLVMGetOperand(p, 0);
  return LLVMStoreSizeOfType(td, LLVMGetElementType(LLVMTypeOf(p)));
}

/* A read of a global scalar (`float *a` holding a malloc'd array, `int n`): in CUDA the value
   is a kernel argument, not a global memory access. */
int cgp_kernel_argument(LLVMValueRef ptr) {
  if (!LLVMIsAGlobalVariable(ptr)) return 0;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMGlobalGetValueType(ptr));
  return k != LLVMArrayTypeKind && k != LLVMStructTypeKind && k != LLVMVectorTypeKind;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int cgp_pass_same_file(const char *a, const char *b) { return strcmp(base_name(a), base_name(b)) == 0; }

/* Instruction i lies in a marked nest: its debug location is in the lines of a marked `for` of
   its file (cgp_pass_same_file). */
int cgp_in_nest(LLVMValueRef i, const cgp_kernel_pragma *k, size_t nk) {
  unsigned len = 0, line = LLVMGetDebugLocLine(i);
  const char *spelled = LLVMGetDebugLocFilename(i, &len);
  if (!spelled || !line) return 0;
  char file[4096];
  snprintf(file, sizeof file, "%.*s", (int)len, spelled);
  for (size_t n = 0; n < nk; n++)
    if (line >= k[n].for_line && line <= k[n].for_end_line && cgp_pass_same_file(file, k[n].file))
      return 1;
  return 0;
}


/* A copy the compiler made a call (a struct assigned whole, `q = pos[k]`, `a[i + 1] = a[i]`:
   clang emits llvm.memcpy; `s = (vec3){0}`: llvm.memset), with a constant length: its source
   (kind load) and destination (kind store) as accesses of that many bytes, as nvcc's loads and
   stores of the struct's fields move them; *n accesses, *len bytes. 0 for any other call or a
   length known only at run time (a real memcpy of a buffer: a loop of accesses on a GPU, left
   untraced). */
static int copy_accesses(LLVMValueRef i, LLVMValueRef ptr[2], int kind[2], unsigned *n, unsigned long long *len) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t nlen = 0;
  const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &nlen) : "";
  int set = strncmp(name, "llvm.memset.", 12) == 0;
  if (!set && strncmp(name, "llvm.memcpy.", 12) != 0 && strncmp(name, "llvm.memmove.", 13) != 0) return 0;
  LLVMValueRef l = LLVMGetOperand(i, 2);
  if (!LLVMIsAConstantInt(l) || (*len = LLVMConstIntGetZExtValue(l)) == 0 || *len > UINT32_MAX) return 0;
  *n = 0;
  if (!set) { ptr[*n] = LLVMGetOperand(i, 1); kind[(*n)++] = CGP_SITE_LOAD; }    /* read, then written */
  ptr[*n] = LLVMGetOperand(i, 0); kind[(*n)++] = CGP_SITE_STORE;
  return 1;
}

/* The memory instruction i's accesses: a load, store or atomic (one), or a memcpy/memmove's read
   and write (two); *bytes their size. 0 when i accesses no memory. */
int cgp_inst_accesses(LLVMTargetDataRef td, LLVMValueRef i, LLVMValueRef ptrs[2], int kinds[2], unsigned *n,
                      unsigned long long *bytes) {
  *n = 1;
  *bytes = 0;
  kinds[0] = cgp_pass_access_kind(i, &ptrs[0]);
  if (kinds[0] >= 0) {
    *bytes = cgp_pass_access_size(td, i);
    return 1;
  }
  return copy_accesses(i, ptrs, kinds, n, bytes);
}
