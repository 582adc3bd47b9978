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
   object is an alloca (a local scalar or array: a register on the GPU) are not marked, nor reads
   of a global scalar (in CUDA a kernel argument), except an access in a nest to a local array or
   struct declared outside it (cgp_shared_locals), and an access to a thread's own array indexed
   by a variable, which is in CUDA local memory (cgp_local.c). A struct copied whole
   (llvm.memcpy) is a load and a store (copy_accesses). Then the -O1 pipeline runs as clang -O1
   would run it, without vectorization, interleaving or unrolling, so that loop shapes and
   !llvm.loop locations match what the second phase (cgp_instrument.c) expects.

   This file is phase 1's driver: the marker, marking each function, inlining the nests' callees
   and the -O1 pipeline. Which locals are shared or private is cgp_private.c's, which private
   arrays are in local memory cgp_local.c's; what an access is
   (its kind, base, size; whether it lies in a nest) is cgp_access.c's (cgp_mark_internal.h). */
#include "cgp_pass.h"
#include "cgp_abi.h"
#include "cgp_mark.h"
#include "cgp_mark_internal.h"

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

/* Some instruction of fn lies in a marked nest: its locals declared outside the nests are the
   host function's (cgp_shared_locals); a function without one is a nest's callee or no kernel's,
   whose locals are each call's, so each thread's. */
static int has_nest(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (cgp_in_nest(i, k, nk)) return 1;
  return 0;
}

static void mark_function(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef marker,
                          unsigned md_dbg, const cgp_kernel_pragma *k, size_t nk) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  enum { MAX_SHARED = 256 };
  LLVMValueRef shared[MAX_SHARED];
  /* a function without a nest has no local shared by a nest's threads: its locals are each call's */
  size_t nshared = nk && has_nest(fn, k, nk) ? cgp_shared_locals(fn, k, nk, shared, MAX_SHARED) : 0;
  /* the user's OpenMP private(...) says so: each thread's, as if declared in the nest */
  nshared = cgp_omp_private(m, k, nk, shared, nshared);
  LLVMValueRef outside[MAX_SHARED];          /* declared outside the nests, private or not */
  size_t noutside = nshared;
  memcpy(outside, shared, noutside * sizeof *outside);
  nshared = cgp_privatize(m, fn, k, nk, shared, nshared);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  unsigned md_size = LLVMGetMDKindIDInContext(ctx, CGP_SITE_SIZE_MD, strlen(CGP_SITE_SIZE_MD));
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(ctx), 0), i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef ty = LLVMGlobalGetValueType(marker);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef ptrs[2];
      int kinds[2];
      unsigned n;
      unsigned long long bytes;
      if (!cgp_inst_accesses(td, i, ptrs, kinds, &n, &bytes)) continue;
      for (unsigned a = 0; a < n; a++) {
        LLVMValueRef ptr = ptrs[a], base = cgp_pass_underlying_base(ptr);
        if (kinds[a] == CGP_SITE_LOAD && cgp_kernel_argument(ptr)) continue;
        if (LLVMIsAAllocaInst(base)) {
          if (cgp_pass_value_in(shared, nshared, base)) {
            if (!cgp_in_nest(i, k, nk)) continue;
          } else if (nk && !cgp_pass_value_in(outside, noutside, base) && cgp_local_memory_alloca(base)) {
            cgp_local_memory_tag(base);  /* a thread's own array in local memory (cgp_local.c): in
                                            any function, for a nest's callees are inlined into it */
          } else {
            continue;
          }
        }
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef args[3] = {LLVMBuildPointerCast(b, ptr, i8p, ""), LLVMBuildPointerCast(b, base, i8p, ""),
                                LLVMConstInt(i32, (unsigned long long)kinds[a], 0)};
        LLVMValueRef call = LLVMBuildCall2(b, ty, marker, args, 3, "");
        LLVMValueRef loc = LLVMGetMetadata(i, md_dbg);
        if (loc) LLVMSetMetadata(call, md_dbg, loc);
        LLVMValueRef size = LLVMConstInt(i32, bytes, 0);
        LLVMSetMetadata(call, md_size, LLVMMDNodeInContext(ctx, &size, 1));
        LLVMValueRef stored = LLVMIsAStoreInst(i) ? LLVMGetOperand(i, 0) : NULL;
        if (stored && (LLVMIsAConstantInt(stored) || LLVMIsAConstantFP(stored)))   /* the same in every thread */
          LLVMSetMetadata(call, LLVMGetMDKindIDInContext(ctx, CGP_STORED_CONSTANT_MD, strlen(CGP_STORED_CONSTANT_MD)),
                          LLVMMDNodeInContext(ctx, &stored, 1));
      }
    }
}

/* What the pipeline tells the context while it runs: an error is kept for the caller; remarks
   and warnings are dropped. They are about the marked module, markers and all, not the user's
   code: a `#pragma omp simd` loop whose vectorization the pipeline must try (a forced hint
   outranks the options below) printed "loop not vectorized: call instruction cannot be
   vectorized", the call being a site marker (a marked nest holding such a loop, as Rodinia's lud
   and nw copy their tiles, in a -fopenmp file). The user's compiler has given
   the source's own diagnostics (cgp_build.c). */
typedef struct {
  char *err;
  size_t errlen;
  int failed;
} o1_diags;

static void o1_diag(LLVMDiagnosticInfoRef d, void *ctx) {
  o1_diags *o = ctx;
  if (LLVMGetDiagInfoSeverity(d) != LLVMDSError || o->failed) return;
  char *msg = LLVMGetDiagInfoDescription(d);
  snprintf(o->err, o->errlen, "internal error: the -O1 pipeline failed: %s", msg ? msg : "");
  LLVMDisposeMessage(msg);
  o->failed = 1;
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
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMDiagnosticHandler old = LLVMContextGetDiagnosticHandler(ctx);
  void *old_ctx = LLVMContextGetDiagnosticContext(ctx);
  o1_diags diags = {err, errlen, 0};
  LLVMContextSetDiagnosticHandler(ctx, o1_diag, &diags);
  LLVMErrorRef e = LLVMRunPasses(m, "default<O1>", tm, opts);
  LLVMContextSetDiagnosticHandler(ctx, old, old_ctx);
  LLVMDisposePassBuilderOptions(opts);
  if (tm) LLVMDisposeTargetMachine(tm);
  if (e) {
    char *s = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "internal error: the -O1 pipeline failed: %s", s);
    LLVMDisposeErrorMessage(s);
    return -1;
  }
  return diags.failed ? -1 : 0;
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
            /* an invoke too: clang -fopenmp makes the calls of an `omp simd` loop invokes (cfd's
               compute_flux_contribution), and inlines them alike */
            LLVMOpcode op = LLVMGetInstructionOpcode(i);
            if ((op != LLVMCall && op != LLVMInvoke) || (pass == 0 && !cgp_in_nest(i, k, nk))) continue;
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
            if (!has_nest(callee, k, nk)) cgp_thread_locals_tag(callee, k, nk, 1);   /* each call's */
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
    if (LLVMCountBasicBlocks(fn) == 0 || strncmp(LLVMGetValueName2(fn, &len), CGP_HOOK_PREFIX, strlen(CGP_HOOK_PREFIX)) == 0) continue;
    mark_function(m, b, fn, marker, md_dbg, k, nk);
    if (nk && has_nest(fn, k, nk)) cgp_thread_locals_tag(fn, k, nk, 0);
  }
  LLVMDisposeBuilder(b);
  inline_callees(m, k, nk);
  return cgp_pass_run_o1(m, err, errlen);
}
