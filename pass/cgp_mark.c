/* cgp_mark.c: phase 1 of the pass, on the module clang produced without optimizing it.

   A CUDA kernel receives its arrays as pointer arguments that may alias, so nvcc issues a load
   or store for nearly every access written in the source (an accumulator is stored every
   iteration, a value is reloaded after any store). The CPU optimizer, which sees global arrays
   or malloc'd memory, keeps such values in registers. To trace the CUDA stream, every
   source-level access to memory that is not thread-private is marked before any optimization:

       call void @cgp_rt_site(i8* addr, i8* base, i32 kind)     ; kind 0 load, 1 store, 2 atomic

   with the access's debug location and its size in bytes as !cgp.size metadata (the access itself
   may be optimized away). The marker only touches memory the module cannot see
   (inaccessiblememonly) and captures nothing, so the optimizer still keeps user values in
   registers, but it can neither delete, merge nor hoist the markers. Accesses whose underlying
   object is an alloca (a local scalar or array: a register or local memory on the GPU) are not
   marked, nor reads of a global scalar (in CUDA a kernel argument), except an access in a nest
   to a local array or struct declared outside it (shared_locals). A struct copied whole
   (llvm.memcpy) is a load and a store (copy_accesses). Then the -O1 pipeline runs as clang -O1
   would run it, without vectorization, interleaving or unrolling, so that loop shapes and
   !llvm.loop locations match what the second phase (cgp_instrument.c) expects. */
#include "cgp_pass.h"
#include "cgp_mark.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_fn_attr(LLVMContextRef ctx, LLVMValueRef f, unsigned idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(f, idx, LLVMCreateEnumAttribute(ctx, kind, 0));
}

LLVMValueRef cgp_pass_site_marker(LLVMModuleRef m) {
  LLVMValueRef f = LLVMGetNamedFunction(m, CGP_SITE_MARKER);
  if (f) return f;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(ctx), 0);
  LLVMTypeRef params[3] = {i8p, i8p, LLVMInt32TypeInContext(ctx)};
  f = LLVMAddFunction(m, CGP_SITE_MARKER, LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 3, 0));
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "inaccessiblememonly");
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "nounwind");
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "willreturn");
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "nomerge");    /* two arms' sites stay two, with their lines */
  /* The pointers are only reported, never used. `nonnull` (without noundef, so a null pointer
     only makes the unused argument poison, and nothing is inferred from it) keeps InstCombine
     from asking isKnownNonZero of every marker argument in order to add it: each answer walks
     the pointer's users with dominance queries that renumber the block, which made the -O1
     pipeline quadratic in the number of accesses of a block (4000 statements: 60 s instead of 3). */
  for (unsigned p = 1; p <= 2; p++) {
    add_fn_attr(ctx, f, p, "nocapture");
    add_fn_attr(ctx, f, p, "readnone");
    add_fn_attr(ctx, f, p, "nonnull");
  }
  return f;
}

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
static int kernel_argument(LLVMValueRef ptr) {
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
static int in_nest(LLVMValueRef i, const cgp_kernel_pragma *k, size_t nk) {
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

/* The local arrays and structs of fn that marked nests share: each alloca of an aggregate whose
   llvm.dbg.declare (at the variable's declaration) is outside every marked nest. Such an array
   is the host function's, one for all iterations (viterbi's DP table, declared before the loop
   over time steps): on a GPU it is global memory every thread reads and writes, so the nest's
   accesses to it are marked and traced and their dependences found. Declared inside a nest, a
   local is each iteration's, each thread's own (registers or local memory): not marked. A local
   without a declaration record (no -g) stays unmarked. Up to `cap` are found. */
static size_t shared_locals(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *out,
                            size_t cap) {
  size_t n = 0, len = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && n < cap; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetNumOperands(i) < 3) continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || strcmp(LLVMGetValueName2(callee, &len), "llvm.dbg.declare") != 0 ||
          in_nest(i, k, nk))
        continue;
      LLVMValueRef wrapped = LLVMGetOperand(i, 0), a = NULL;
      if (LLVMGetMDNodeNumOperands(wrapped) == 1) LLVMGetMDNodeOperands(wrapped, &a);
      if (!a || !LLVMIsAAllocaInst(a)) continue;
      LLVMTypeKind t = LLVMGetTypeKind(LLVMGetAllocatedType(a));
      if (t == LLVMArrayTypeKind || t == LLVMStructTypeKind || t == LLVMVectorTypeKind) out[n++] = a;
    }
  return n;
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

static void mark_function(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef marker,
                          unsigned md_dbg, const cgp_kernel_pragma *k, size_t nk) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  enum { MAX_SHARED = 256 };
  LLVMValueRef shared[MAX_SHARED];
  size_t nshared = nk ? shared_locals(fn, k, nk, shared, MAX_SHARED) : 0;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  unsigned md_size = LLVMGetMDKindIDInContext(ctx, CGP_SITE_SIZE_MD, strlen(CGP_SITE_SIZE_MD));
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(ctx), 0), i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef ty = LLVMGlobalGetValueType(marker);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef ptrs[2];
      int kinds[2];
      unsigned n = 1;
      unsigned long long bytes = 0;
      kinds[0] = cgp_pass_access_kind(i, &ptrs[0]);
      if (kinds[0] >= 0) bytes = cgp_pass_access_size(td, i);
      else if (!copy_accesses(i, ptrs, kinds, &n, &bytes)) continue;
      for (unsigned a = 0; a < n; a++) {
        LLVMValueRef ptr = ptrs[a], base = cgp_pass_underlying_base(ptr);
        if (kinds[a] == CGP_SITE_LOAD && kernel_argument(ptr)) continue;
        if (LLVMIsAAllocaInst(base)) {
          size_t j = 0;
          while (j < nshared && shared[j] != base) j++;
          if (j == nshared || !in_nest(i, k, nk)) continue;
        }
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef args[3] = {LLVMBuildPointerCast(b, ptr, i8p, ""), LLVMBuildPointerCast(b, base, i8p, ""),
                                LLVMConstInt(i32, (unsigned long long)kinds[a], 0)};
        LLVMValueRef call = LLVMBuildCall2(b, ty, marker, args, 3, "");
        LLVMValueRef loc = LLVMGetMetadata(i, md_dbg);
        if (loc) LLVMSetMetadata(call, md_dbg, loc);
        LLVMValueRef size = LLVMConstInt(i32, bytes, 0);
        LLVMSetMetadata(call, md_size, LLVMMDNodeInContext(ctx, &size, 1));
      }
    }
}

/* The -O1 pipeline of clang -O1 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops. */
int cgp_pass_run_o1(LLVMModuleRef m, char *err, size_t errlen) {
  static int inited;
  if (!inited) {
    LLVMInitializeNativeTarget();
    inited = 1;
  }
  const char *triple = LLVMGetTarget(m);
  char *deftriple = NULL;
  if (!triple || !triple[0]) triple = deftriple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target = NULL;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg) == 0)
    tm = LLVMCreateTargetMachine(target, triple, "", "", LLVMCodeGenLevelLess, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
  LLVMDisposeMessage(msg);
  LLVMDisposeMessage(deftriple);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(opts, 0);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, 0);
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, 0);
  LLVMPassBuilderOptionsSetLoopInterleaving(opts, 0);
  LLVMErrorRef e = LLVMRunPasses(m, "default<O1>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (tm) LLVMDisposeTargetMachine(tm);
  if (e) {
    char *s = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "internal error: the -O1 pipeline failed: %s", s);
    LLVMDisposeErrorMessage(s);
    return -1;
  }
  return 0;
}


/* The calls a marked nest makes to functions with a body, and the calls those functions make in
   turn, get `alwaysinline` as call-site attributes, so the -O1 pipeline's inliner inlines them
   and their marked accesses become the nest's sites, as nvcc inlines a kernel's __device__
   functions. Before this a call made the accesses behind it invisible (Rodinia's kmeans: the
   distance loop of find_nearest_point, the kernel's work, untraced). The functions themselves
   keep their attributes: a call outside the nests is inlined or not as clang -O1 decides, and a
   user's `noinline` holds there (a call-site `alwaysinline` outranks it at that call only). The
   calls inside a callee's own body are marked too, so its copy outside the nests has its callees
   inlined. A function that cannot be inlined (variadic, recursive past its first call) stays a
   call, which phase 2 warns about. */
static void inline_callees(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  unsigned never = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAttributeRef always_attr = LLVMCreateEnumAttribute(ctx, always, 0);
  size_t n = 0, cap = 0;
  LLVMValueRef *todo = NULL;                     /* callees whose calls are marked in turn, each once */
  for (int pass = 0; pass < 2; pass++)           /* pass 0: calls in the nests; 1: in the callees */
    for (size_t f = 0; pass == 0 ? f == 0 : f < n; f++) {
      LLVMValueRef first = pass == 0 ? LLVMGetFirstFunction(m) : todo[f];
      for (LLVMValueRef fn = first; fn; fn = pass == 0 ? LLVMGetNextFunction(fn) : NULL)
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
          for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (LLVMGetInstructionOpcode(i) != LLVMCall || (pass == 0 && !in_nest(i, k, nk))) continue;
            LLVMValueRef callee = LLVMGetCalledValue(i);
            size_t len = 0;
            if (!LLVMIsAFunction(callee) || LLVMCountBasicBlocks(callee) == 0 ||
                strncmp(LLVMGetValueName2(callee, &len), "cgp_", 4) == 0 ||
                LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
              continue;
            LLVMRemoveCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, never);
            LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex, always_attr);
            size_t j = 0;
            while (j < n && todo[j] != callee) j++;
            if (j < n) continue;
            if (n == cap) {
              LLVMValueRef *bigger = realloc(todo, (cap = cap ? 2 * cap : 8) * sizeof *todo);
              if (!bigger) { free(todo); return; }     /* its calls stay calls: phase 2 warns */
              todo = bigger;
            }
            todo[n++] = callee;
          }
    }
  free(todo);
}

int cgp_pass_prepare_module(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk, char *err, size_t errlen) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMValueRef marker = cgp_pass_site_marker(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  unsigned md_dbg = LLVMGetMDKindIDInContext(ctx, "dbg", 3);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    size_t len = 0;
    if (LLVMCountBasicBlocks(fn) == 0 || strncmp(LLVMGetValueName2(fn, &len), "cgp_rt_", 7) == 0) continue;
    mark_function(m, b, fn, marker, md_dbg, k, nk);
  }
  LLVMDisposeBuilder(b);
  inline_callees(m, k, nk);
  return cgp_pass_run_o1(m, err, errlen);
}
