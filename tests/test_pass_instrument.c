/* The instrumentation pass on small C programs compiled by clang-14 as the driver does:
   unoptimized bitcode, then phase 1 (markers and -O1), then phase 2 (the marked nests). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_abi.h"
#include "cgp_pass.h"

static char dir[128];

static LLVMModuleRef compile(LLVMContextRef ctx, const char *src) {
  snprintf(dir, sizeof dir, "/tmp/cgp-pass.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  char path[256], cmd[1024];
  snprintf(path, sizeof path, "%s/k.c", dir);
  FILE *f = fopen(path, "w");
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd %s && clang-14 -O1 -Xclang -disable-llvm-passes -g -fno-vectorize "
           "-fno-slp-vectorize -fno-unroll-loops "
           "-fno-builtin -fno-discard-value-names -Wno-unknown-pragmas -emit-llvm -c k.c -o k.bc", dir);
  cr_assert_eq(system(cmd), 0);
  snprintf(path, sizeof path, "%s/k.bc", dir);
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  cr_assert_eq(LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg), 0);
  LLVMModuleRef m;
  cr_assert_eq(LLVMParseBitcodeInContext2(ctx, buf, &m), 0);
  LLVMDisposeMemoryBuffer(buf);
  char err[1024];
  cr_assert_eq(cgp_pass_prepare_module(m, NULL, 0, err, sizeof err), 0, "%s", err);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  return m;
}

static cgp_kernel_pragma pragma(const char *name, unsigned line, unsigned col, unsigned dims) {
  cgp_kernel_pragma k;
  memset(&k, 0, sizeof k);
  snprintf(k.name, sizeof k.name, "%s", name);
  snprintf(k.file, sizeof k.file, "k.c");
  k.for_line = line;
  k.for_col = col;
  k.dims = dims;
  return k;
}

/* Instruction i calls the function named `callee`. */
static int is_call_to(LLVMValueRef i, const char *callee) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  size_t len;
  LLVMValueRef c = LLVMGetCalledValue(i);
  return LLVMIsAFunction(c) && strcmp(LLVMGetValueName2(c, &len), callee) == 0;
}

static unsigned count_calls(LLVMModuleRef m, const char *callee) {
  unsigned n = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) n += is_call_to(i, callee);
  return n;
}

/* Blocks named `name` (or nameN, as LLVM makes names unique) in m, and the calls to cgp_* hooks or markers they hold. */
static unsigned count_blocks(LLVMModuleRef m, const char *name, unsigned *hook_calls, unsigned *loads) {
  unsigned n = 0;
  *hook_calls = *loads = 0;
  size_t len = strlen(name);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
      const char *bn = LLVMGetBasicBlockName(b);
      if (strncmp(bn, name, len) != 0 || strspn(bn + len, "0123456789") != strlen(bn + len)) continue;
      n++;
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        *loads += LLVMGetInstructionOpcode(i) == LLVMLoad;
        if (LLVMGetInstructionOpcode(i) != LLVMCall) continue;
        size_t cl;
        const char *callee = LLVMGetValueName2(LLVMGetCalledValue(i), &cl);
        *hook_calls += strncmp(callee, "cgp", 3) == 0;
      }
    }
  return n;
}

/* Calls in function fn to a block's flush, whatever its form (cgp.mem.flush, its folded
   .unless, the .v<n> that takes the addresses: pass/cgp_sink.c). */
static unsigned count_flushes(LLVMValueRef fn) {
  unsigned n = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMCall || !LLVMIsAFunction(LLVMGetCalledValue(i))) continue;
      size_t len;
      n += strncmp(LLVMGetValueName2(LLVMGetCalledValue(i), &len), "cgp.mem.flush", 13) == 0;
    }
  return n;
}

static cJSON *descriptor(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    size_t len;
    if (strncmp(LLVMGetValueName2(g, &len), "cgp.kernel", 10) != 0) continue;
    const char *s = LLVMGetAsString(LLVMGetInitializer(g), &len);
    return cJSON_Parse(s);
  }
  cr_assert_fail("no descriptor");
  return NULL;
}

static const char *gemm =
  "#define N 64\n"
  "float A[N][N], B[N][N], C[N][N];\n"
  "void gemm(float alpha, float beta) {\n"
  "#pragma cgpredict kernel name(gemm)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      C[i][j] *= beta;\n"
  "      for (int k = 0; k < N; k++)\n"
  "        C[i][j] += alpha * A[i][k] * B[k][j];\n"
  "    }\n"
  "}\n";

Test(pass, gemm_nest_maps_two_loops_and_hooks_every_access) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, gemm);
  cgp_kernel_pragma k = pragma("gemm", 5, 3, 0);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cJSON *d = descriptor(m);
  /* default dims: i and j are perfectly nested, k is not (C[i][j] *= beta stands before it) */
  cr_assert_eq(cJSON_GetObjectItem(d, "dims")->valueint, 2);
  /* the CUDA stream: C[i][j] *= beta loads and stores C; each k iteration loads A, B and C
     and stores C (the arrays may alias, so nvcc keeps no C in a register) */
  cJSON *mem = cJSON_GetObjectItem(d, "mem");
  cr_assert_eq(cJSON_GetArraySize(mem), 6);
  cr_assert_eq(count_flushes(LLVMGetNamedFunction(m, "gemm")), 2, "one flush per block with sites");
  cr_assert_eq(count_calls(m, "cgp_rt_site"), 0, "no marker is left");
  cr_assert_eq(count_calls(m, "cgp.bb"), 3, "every thread-body block reports itself");
  cr_assert_eq(count_calls(m, "cgp_rt_thread"), 1);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_begin"), 1);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_end"), 1);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(d, "can_skip")));
  /* threads the runtime does not trace run a clean copy of the body: its 3 blocks and the
     entry the thread loop's phis were split from (pass/cgp_chunk.c), the loads of C (before
     *= beta) and of A, B (the k loop: C stays in a register, as in a plain -O1 build), and no
     hook or marker */
  unsigned hooks, loads;
  unsigned nclean = count_blocks(m, "cgp.clean", &hooks, &loads);
  cr_assert_eq(nclean, 4, "%u clean blocks, %u loads", nclean, loads);
  cr_assert_eq(hooks, 0, "no hook in the clean copy");
  cr_assert_eq(loads, 3);
  /* PTX per k iteration, hand-counted from nvcc's loop: ld A, ld B, mul (alpha*A), fma, two
     address adds, add k, setp, bra = 9 */
  cJSON *blocks = cJSON_GetObjectItem(d, "blocks");
  cr_assert_eq(cJSON_GetArraySize(blocks), 3);
  int k_loop = 0;
  cJSON *b;
  cJSON_ArrayForEach(b, blocks)
    k_loop += cJSON_GetObjectItem(b, "mem")->valueint == 2 && cJSON_GetObjectItem(b, "total")->valueint == 9 &&
              cJSON_GetObjectItem(b, "core")->valueint == 6;
  cr_assert_eq(k_loop, 1, "the k loop block is 9 PTX instructions, 6 on cores");
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* The functions whose name starts with `prefix`; *jam gets how many of them hold a branch whose
   !llvm.loop asks to unroll and jam by 4. */
static unsigned count_functions(LLVMModuleRef m, const char *prefix, unsigned *jam) {
  unsigned n = 0, md = LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), "llvm.loop", 9);
  *jam = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    size_t len;
    if (strncmp(LLVMGetValueName2(fn, &len), prefix, strlen(prefix)) != 0) continue;
    n++;
    int asks = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
      LLVMValueRef id = LLVMGetMetadata(LLVMGetBasicBlockTerminator(b), md);
      for (unsigned o = 1; id && o < LLVMGetMDNodeNumOperands(id); o++) {
        LLVMValueRef ops[2], hint[2];
        LLVMGetMDNodeOperands(id, ops);
        if (LLVMGetMDNodeNumOperands(ops[o]) != 2) continue;
        LLVMGetMDNodeOperands(ops[o], hint);
        unsigned sl;
        const char *str = LLVMGetMDString(hint[0], &sl);
        asks |= str && !strncmp(str, "llvm.loop.unroll_and_jam.count", sl) && LLVMConstIntGetZExtValue(hint[1]) == 4;
      }
    }
    *jam += asks;
  }
  return n;
}

/* src's kernel `gemm` (its for at line:3) instrumented, the module verified: how many chunk
   functions it got (*jam: how many ask to be jammed by 4), and *threads the calls to cgp_rt_thread. */
static unsigned chunks_made(const char *src, unsigned line, unsigned *jam, unsigned *threads) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, src);
  cgp_kernel_pragma k = pragma("gemm", line, 3, 0);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  unsigned n = count_functions(m, "cgp.chunk.", jam);
  *threads = count_calls(m, "cgp_rt_thread");
  char *msg = NULL;
  cr_assert_eq(LLVMVerifyModule(m, LLVMReturnStatusAction, &msg), 0, "%s", msg);
  LLVMDisposeMessage(msg);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return n;
}

/* The clean copy's threads, where its body holds a loop, run four at a time in a function the
   final compile is asked to unroll and jam (pass/cgp_chunk.c): GEMM's k loop. CGPREDICT_CHUNK=0
   makes none. */
Test(pass, a_clean_body_with_a_loop_gets_a_chunk_function_to_jam) {
  for (int off = 0; off < 2; off++) {
    if (off) setenv("CGPREDICT_CHUNK", "0", 1);
    unsigned jam, threads, n = chunks_made(gemm, 5, &jam, &threads);
    cr_assert_eq(n, off ? 0 : 1, "%u chunk functions with CGPREDICT_CHUNK %s", n, off ? "0" : "unset");
    cr_assert_eq(jam, off ? 0 : 1);
    cr_assert_eq(threads, 1, "the chunk asks the runtime nothing");
  }
  unsetenv("CGPREDICT_CHUNK");
}

/* The chunk function's pointer arguments may be noalias only when each comes from its own
   allocation: a kernel function's restrict parameters are, plain ones are not (they may be one
   array), and then no chunk is made. */
static const char *gemm_params =
  "#define N 64\n"
  "void gemm(float *%s A, float *%s B, float *%s C) {\n"
  "#pragma cgpredict kernel name(gemm)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      float s = 0;\n"
  "      for (int k = 0; k < N; k++)\n"
  "        s += A[i * N + k] * B[k * N + j];\n"
  "      C[i * N + j] = s;\n"
  "    }\n"
  "}\n";

Test(pass, a_chunk_is_made_only_where_its_arrays_are_apart) {
  for (int restrict_ = 0; restrict_ < 2; restrict_++) {
    char src[1024];
    const char *q = restrict_ ? "restrict" : "";
    snprintf(src, sizeof src, gemm_params, q, q, q);
    unsigned jam, threads, n = chunks_made(src, 4, &jam, &threads);
    cr_assert_eq(n, (unsigned)restrict_, "%u chunk functions with %s parameters", n, restrict_ ? "restrict" : "plain");
  }
}

/* The sites of the descriptor of src (one kernel named k, its loop at line `line`, column 3, 1-D)
   as "array:kind:u" strings ("u" for a load the pass proved unwritten, "-" else), space-separated,
   in site order. */
static void unwritten_of(const char *src, unsigned line, char *out, size_t cap) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, src);
  cgp_kernel_pragma k = pragma("k", line, 3, 1);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cJSON *d = descriptor(m), *site;
  size_t used = 0;
  out[0] = '\0';
  cJSON_ArrayForEach(site, cJSON_GetObjectItem(d, "mem")) {
    int w = snprintf(out + used, cap - used, "%s%s:%s:%s", used ? " " : "", cJSON_GetObjectItem(site, "array")->valuestring,
                     cJSON_GetObjectItem(site, "kind")->valuestring,
                     cJSON_IsTrue(cJSON_GetObjectItem(site, "unwritten")) ? "u" : "-");
    if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
  }
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* A load is "unwritten" (the dependence check skips it) only where the pass proves that no store of
   the nest writes its array: every site's array its own allocation (globals, restrict parameters,
   malloc's results) and no call that may touch memory. A load of an array the nest also stores is
   not; nor is any load beside plain pointer parameters (they may alias), or beside a call to a
   function the file does not define (it may write a global). */
Test(pass, a_load_is_unwritten_only_where_no_store_of_the_nest_can_write_it) {
  char got[512];
  unwritten_of("#define N 64\nfloat A[N], B[N], C[N];\nvoid f(void) {\n#pragma cgpredict kernel name(k)\n"
               "  for (int i = 0; i < N; i++)\n    C[i] = A[i] + B[i] * C[i];\n}\n", 5, got, sizeof got);
  cr_assert_str_eq(got, "A:load:u B:load:u C:load:- C:store:-");
  unwritten_of("#define N 64\nvoid f(float *restrict A, float *restrict B, float *restrict C) {\n"
               "#pragma cgpredict kernel name(k)\n"
               "  for (int i = 0; i < N; i++)\n    C[i] = A[i] + B[i];\n}\n", 4, got, sizeof got);
  cr_assert(strstr(got, "A:load:u") && strstr(got, "B:load:u") && strstr(got, "C:store:-"), "restrict: %s", got);
  unwritten_of("#define N 64\nvoid f(float *A, float *B, float *C) {\n"
               "#pragma cgpredict kernel name(k)\n"
               "  for (int i = 0; i < N; i++)\n    C[i] = A[i] + B[i];\n}\n", 4, got, sizeof got);
  cr_assert(strstr(got, "A:load:-") && strstr(got, "B:load:-"), "plain pointers may alias: %s", got);
  unwritten_of("#include <stdlib.h>\n#define N 64\nvoid g(void);\nvoid f(void) {\n"
               "  float *A = malloc(N * 4), *C = malloc(N * 4);\n"
               "#pragma cgpredict kernel name(k)\n"
               "  for (int i = 0; i < N; i++) { C[i] = A[i]; }\n  free(A); free(C);\n}\n", 7, got, sizeof got);
  cr_assert(strstr(got, "A:load:u"), "malloc'd: %s", got);
  unwritten_of("#define N 64\nfloat A[N], C[N];\nvoid g(void);\nvoid f(void) {\n#pragma cgpredict kernel name(k)\n"
               "  for (int i = 0; i < N; i++) { g(); C[i] = A[i]; }\n}\n", 6, got, sizeof got);
  cr_assert_str_eq(got, "A:load:- C:store:-", "beside a call that may write A");
}

Test(pass, a_chunk_switch_other_than_0_or_1_is_refused) {
  setenv("CGPREDICT_CHUNK", "yes", 1);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, gemm);
  cgp_kernel_pragma k = pragma("gemm", 5, 3, 0);
  char err[2048], warn[2048];
  int rc = cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn);
  unsetenv("CGPREDICT_CHUNK");
  cr_assert_neq(rc, 0);
  cr_assert(strstr(err, "CGPREDICT_CHUNK is 'yes'"), "%s", err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* The block named `name` (exactly), or NULL. */
static LLVMBasicBlockRef block_named(LLVMModuleRef m, const char *name) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
      if (strcmp(LLVMGetBasicBlockName(b), name) == 0) return b;
  return NULL;
}

static const char *stencil =
  "#define N 1000\n"
  "float A[N], B[N];\n"
  "void st(int step) {\n"
  "#pragma cgpredict kernel name(st)\n"
  "  for (int i = 1; i < N - 1; i++)\n"
  "    B[i] = A[i - 1] + A[i] + A[i + 1];\n"
  "#pragma cgpredict kernel name(st2)\n"
  "  for (int i = 1; i < N - 1; i += 2)\n"
  "    B[i] = A[i - 1] + A[i] + A[i + 1];\n"
  "}\n";

Test(pass, untraced_threads_run_the_clean_copy_as_a_loop_of_its_own) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, stencil);
  cgp_kernel_pragma k[2] = {pragma("st", 5, 3, 1), pragma("st2", 8, 3, 1)};
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, k, 2, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  /* the copy of a 1-D nest's loop is the marked loop again: it must not be taken for a second
     instance of the kernel */
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_begin"), 2);
  cr_assert_eq(count_calls(m, "cgp_rt_thread"), 2);
  /* st steps by 1: its clean copy (one block) loops on itself over the threads the runtime
     granted, then reports the last one; st2 steps by 2: one thread per call, no loop */
  cr_assert_eq(count_calls(m, "cgp_rt_fast_end"), 1);
  LLVMBasicBlockRef c = block_named(m, "cgp.clean"), end = block_named(m, "cgp.fast.end");
  cr_assert_not_null(c);
  cr_assert_not_null(end);
  LLVMValueRef br = LLVMGetBasicBlockTerminator(c);
  cr_assert(LLVMIsConditional(br));
  cr_assert_eq(LLVMGetSuccessor(br, 0), c, "the copy's latch goes back to the copy");
  cr_assert_eq(LLVMGetSuccessor(br, 1), end);
  unsigned phis = 0, grant = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(c); i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i)) {
    size_t len;
    const char *nm = LLVMGetValueName2(i, &len);
    phis++;
    grant += strncmp(nm, "cgp.left", 8) == 0;
  }
  cr_assert_eq(phis, 2, "the thread index and the threads left");
  cr_assert_eq(grant, 1);
  unsigned hooks, loads;
  cr_assert_eq(count_blocks(m, "cgp.clean", &hooks, &loads), 2);
  cr_assert_eq(hooks, 0, "no hook in either clean copy");
  cr_assert_eq(loads, 6);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* A sum read after the loop leaves the nest on the edge its kernel_end hook sits on: the hook's
   block hands it on through a phi of its own, so the body stays closed and untraced threads run
   the clean copy. Before, the exit's phi took the sum straight from the body, across the hook's
   block, and no copy was made: every untraced thread ran the hooked body (XSBench 3.5x). */
Test(pass, a_sum_read_after_the_nest_leaves_the_clean_copy_in_place) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx,
    "float A[1000];\n"
    "float sum_of(int n) {\n"
    "  float s = 0;\n"
    "#pragma cgpredict kernel name(red)\n"
    "  for (int i = 0; i < n; i++)\n"
    "    s += A[i] * A[i];\n"
    "  return s;\n"
    "}\n");
  cgp_kernel_pragma k = pragma("red", 5, 3, 1);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  char *msg = NULL;
  cr_assert_eq(LLVMVerifyModule(m, LLVMReturnStatusAction, &msg), 0, "%s", msg);
  LLVMDisposeMessage(msg);
  unsigned hooks, loads;
  cr_assert_eq(count_blocks(m, "cgp.clean", &hooks, &loads), 1, "a clean copy of the one-block body");
  cr_assert_eq(hooks, 0);
  cr_assert_eq(loads, 1);
  unsigned through = 0;                          /* the sum's phi in the kernel_end block */
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(LLVMGetNamedFunction(m, "sum_of")); b; b = LLVMGetNextBasicBlock(b)) {
    int ends = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
      ends |= is_call_to(i, "cgp_rt_kernel_end");
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); ends && i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
      through += LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMFloatTypeKind && LLVMCountIncoming(i) == 2;
  }
  cr_assert_eq(through, 1, "from the hooked body and from its clean copy");
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* A nest entered with its bound as a value (n) tells the runtime its shape's key before it begins,
   one mixing the bound (cgp_rt_kernel_class, docs/model.md 5b); a nest with constant bounds does
   not call it. */
Test(pass, a_nest_entered_with_its_bound_says_its_shape) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx,
    "float A[1000];\n"
    "void by_n(int n) {\n"
    "#pragma cgpredict kernel name(by_n)\n"
    "  for (int i = 0; i < n; i++) A[i] = 1;\n"
    "}\n"
    "void fixed(void) {\n"
    "#pragma cgpredict kernel name(fixed)\n"
    "  for (int i = 0; i < 1000; i++) A[i] = 2;\n"
    "}\n");
  cgp_kernel_pragma k[2] = {pragma("by_n", 4, 3, 1), pragma("fixed", 8, 3, 1)};
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, k, 2, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_begin"), 2);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_class"), 1, "by_n's alone");
  LLVMValueRef by_n = LLVMGetNamedFunction(m, "by_n");
  int before = 0;                                /* in the block of by_n's kernel_begin, before it */
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(by_n); b; b = LLVMGetNextBasicBlock(b)) {
    int seen_class = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      seen_class |= is_call_to(i, "cgp_rt_kernel_class");
      if (is_call_to(i, "cgp_rt_kernel_begin")) before |= seen_class;
    }
  }
  cr_assert(before);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, dims_one_maps_only_the_outer_loop) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, gemm);
  cgp_kernel_pragma k = pragma("gemm", 5, 3, 1);
  char err[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, NULL, 0), 0, "%s", err);
  cJSON *d = descriptor(m);
  cr_assert_eq(cJSON_GetObjectItem(d, "dims")->valueint, 1);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")), 6);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, dims_beyond_the_nest_is_an_error) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx,
    "float a[64][64];\nvoid f(void) {\n  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 64; j++) a[i][j] = 0;\n"
    "  for (int i = 0; i < 64; i++) a[i][0] = 1;\n}\n");
  cgp_kernel_pragma k = pragma("f", 4, 5, 2);
  char err[2048];
  cr_assert_neq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, NULL, 0), 0);
  cr_assert(strstr(err, "k.c:4:5: error:"), "%s", err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* A marked loop the compiler removed (dead where it never runs: TSVC's s176 at a small size) is
   warned about, naming its place, and the module still builds; it was an error that failed the
   build of a valid program. */
Test(pass, marked_loop_missing_from_the_code_is_warned_about_and_the_module_builds) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, gemm);
  cgp_kernel_pragma k = pragma("gemm", 7, 3, 0);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cr_assert(strstr(warn, "k.c:7:3: warning: kernel 'gemm'") && strstr(warn, "not in the compiled code") &&
            strstr(warn, "neither instrumented nor predicted"), "%s", warn);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, carried_scalar_between_threads_is_reported) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx,
    "float a[64];\nfloat f(void) {\n  float s = 0;\n  for (int i = 0; i < 64; i++) { s = s * 0.5f + a[i]; a[i] = s; }\n  return s;\n}\n");
  cgp_kernel_pragma k = pragma("f", 4, 3, 1);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cr_assert(strstr(warn, "depend on each other"), "%s", warn);
  cJSON *d = descriptor(m);
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(d, "can_skip")), "a carried value cannot be skipped");
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* The loop bound reloaded every iteration (a store through a long * may change it), which the
   optimizer passes to the next iteration's body through a phi, as in Rodinia's srad (its `Nr`):
   no value depends on its own previous one, so nothing is carried and no warning is given; a
   running sum in the same loop still is. */
Test(pass, a_value_only_handed_to_the_next_iteration_is_not_carried) {
  const char *srcs[2] = {
      "long bound;\nvoid f(long *out) {\n  for (long i = 0; i < bound; i++) out[i] = 3 * i + bound;\n}\n",
      "long bound;\nlong f(long *out) {\n  long s = 0;\n  for (long i = 0; i < bound; i++) { s += out[i]; out[i] = s; }\n"
      "  return s;\n}\n"};
  const unsigned line[2] = {3, 4};
  for (int c = 0; c < 2; c++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = compile(ctx, srcs[c]);
    cgp_kernel_pragma k = pragma("f", line[c], 3, 1);
    char err[2048], warn[2048];
    cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
    if (c == 0) cr_assert_null(strstr(warn, "carried"), "%s", warn);
    else cr_assert(strstr(warn, "carried"), "the running sum: %s", warn);
    cJSON *d = descriptor(m);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "carried")), c, "case %d", c);
    cJSON_Delete(d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

/* A function the marked file only declares cannot be inlined: the warning names the call, says
   its accesses are not traced, and how to have them traced. */
Test(pass, a_call_to_a_function_of_another_file_is_named_with_the_remedy) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, "float a[64];\nvoid elsewhere(float *p);\nvoid f(void) {\n"
                                 "  for (int i = 0; i < 64; i++) elsewhere(&a[i]);\n}\n");
  cgp_kernel_pragma k = pragma("f", 4, 3, 1);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cr_assert(strstr(warn, "call to elsewhere inside the thread body") && strstr(warn, "not traced") &&
                strstr(warn, "define it there"),
            "%s", warn);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, loads_between_mapped_loops_are_charged_to_threads) {
  LLVMContextRef ctx = LLVMContextCreate();
  /* u[i] is read between the mapped loops; in CUDA every thread (i, j) loads it */
  LLVMModuleRef m = compile(ctx,
    "float A[64][64], u[64], v[64];\nvoid f(void) {\n  for (int i = 0; i < 64; i++) {\n"
    "    float t = u[i];\n    for (int j = 0; j < 64; j++) A[i][j] += t * v[j];\n  }\n}\n");
  cgp_kernel_pragma k = pragma("f", 3, 3, 2);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cr_assert_eq(warn[0], '\0', "no access should be left untraced: %s", warn);
  cr_assert_eq(count_calls(m, "cgp_rt_hoisted"), 1);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(descriptor(m), "mem")), 4);  /* + v, A, A */
  cJSON *d = descriptor(m), *site;
  int hoisted = 0;
  cJSON_ArrayForEach(site, cJSON_GetObjectItem(d, "mem"))
    if (cJSON_IsTrue(cJSON_GetObjectItem(site, "hoisted")))
      hoisted += strcmp(cJSON_GetObjectItem(site, "array")->valuestring, "u") == 0 &&
                 cJSON_GetObjectItem(site, "block")->valueint == -1;
  cr_assert_eq(hoisted, 1);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* ---- the CUDA memory stream (may_alias reading) and the descriptor for reconvergent warps ---- */

static cJSON *site(cJSON *d, int s) { return cJSON_GetArrayItem(cJSON_GetObjectItem(d, "mem"), s); }
static const char *str(cJSON *o, const char *key) { return cJSON_GetObjectItem(o, key)->valuestring; }
static int num(cJSON *o, const char *key) { return cJSON_GetObjectItem(o, key)->valueint; }

/* Instrument `src` with one pragma; returns the descriptor, the module stays in *mp. */
static cJSON *instrument(LLVMContextRef ctx, const char *src, cgp_kernel_pragma k, LLVMModuleRef *mp,
                         char *warn, size_t warnlen) {
  LLVMModuleRef m = compile(ctx, src);
  char err[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, warnlen), 0, "%s", err);
  *mp = m;
  return descriptor(m);
}

Test(pass, gemm_k_loop_traces_c_a_b_and_stores_c_every_iteration) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cJSON *d = instrument(ctx, gemm, pragma("gemm", 5, 3, 0), &m, NULL, 0);
  cr_assert_str_eq(str(d, "reading"), "may_alias");
  cJSON *loops = cJSON_GetObjectItem(d, "loops");
  cr_assert_eq(cJSON_GetArraySize(loops), 1, "the k loop");
  cJSON *kl = cJSON_GetArrayItem(loops, 0);
  cr_assert_eq(num(kl, "parent"), -1);
  cr_assert_eq(num(kl, "line"), 8);
  int kh = num(kl, "header");
  cJSON *kb = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "blocks"), kh);
  cr_assert_eq(num(kb, "loop"), 0, "the k loop's header lies in the k loop");
  /* sites of the k loop's block, in instruction order: clang evaluates the right-hand side of
     a compound assignment first, so A and B are loaded before C */
  const char *want[4][2] = {{"A", "load"}, {"B", "load"}, {"C", "load"}, {"C", "store"}};
  int seen = 0;
  for (int s = 0; s < cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")); s++) {
    cJSON *x = site(d, s);
    cr_assert_str_eq(str(x, "reading"), "may_alias");
    if (num(x, "block") != kh) continue;
    cr_assert_lt(seen, 4);
    cr_assert_eq(num(x, "order"), seen);
    cr_assert_str_eq(str(x, "array"), want[seen][0]);
    cr_assert_str_eq(str(x, "kind"), want[seen][1]);
    cr_assert_eq(num(x, "line"), 9);
    seen++;
  }
  cr_assert_eq(seen, 4);
  /* before k: C[i][j] *= beta, a load and a store in the j loop's first block */
  cr_assert_str_eq(str(site(d, 0), "array"), "C");
  cr_assert_str_eq(str(site(d, 0), "kind"), "load");
  cr_assert_str_eq(str(site(d, 1), "kind"), "store");
  cr_assert_eq(num(site(d, 1), "block"), num(site(d, 0), "block"));
  cr_assert_eq(num(site(d, 1), "order"), 1);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* Folded loops (docs/pipeline.md, "Folded loops"): the leaf loop of one block whose addresses
   are affine in its counter gets the fold (its hooks skipped while folded, cgp_rt_loop on its
   exit edge); a loop indexing through memory (idx[k]) or with a second block (the if) keeps a
   hook per iteration. */
Test(pass, only_one_block_loops_with_affine_addresses_are_folded) {
  static const char *src =
    "float A[64][64], x[64], y[64];\n"
    "int idx[64];\n"
    "void f(void) {\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) s += A[i][k] * x[k]; y[i] = s; }\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) s += A[i][idx[k]]; y[i] = s; }\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) if (A[i][k] > 0) s += x[k]; y[i] = s; }\n"
    "}\n";
  const char *names[3] = {"affine", "indirect", "two_blocks"};
  for (int which = 0; which < 3; which++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = compile(ctx, src);
    cgp_kernel_pragma k = pragma(names[which], 4 + (unsigned)which, 3, 1);
    char err[2048], warn[2048];
    cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
    unsigned folded = count_calls(m, "cgp.loop.unless");
    cr_assert_eq(folded, which == 0, "%s: %u folded loops", names[which], folded);
    cr_assert_eq(count_calls(m, "cgp_rt_loop"), which == 0, "the fold's shell calls the runtime");
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

/* Stores into the sites' address buffers (globals cgp.addrs*, cgp.bases*) in function fn. */
static unsigned buffer_stores(LLVMValueRef fn) {
  unsigned n = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMStore) continue;
      LLVMValueRef p = LLVMGetOperand(i, 1);
      while (LLVMIsAConstantExpr(p) || LLVMIsAGetElementPtrInst(p)) p = LLVMGetOperand(p, 0);
      size_t len;
      const char *name = LLVMIsAGlobalVariable(p) ? LLVMGetValueName2(p, &len) : "";
      n += strncmp(name, "cgp.addrs", 9) == 0 || strncmp(name, "cgp.bases", 9) == 0;
    }
  return n;
}

/* docs/pipeline.md, "The hooks' cost when nothing is traced": once instrumented, the user's
   function stores no site address; every block's flush, folded or not, hands the addresses to
   cgp.mem.flush.v<n>, whose traced path alone stores them (2 x n stores) before it calls the
   runtime. Before, the stores ran in every iteration, traced or not. */
Test(pass, the_sites_addresses_are_stored_only_on_the_traced_path) {
  static const char *src =
    "float A[64][64], x[64], y[64];\n"
    "int idx[64];\n"
    "void f(void) {\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) s += A[i][k] * x[k]; y[i] = s; }\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) if (A[i][k] > 0) s += x[k]; y[i] = s; }\n"
    "}\n";
  const char *names[2] = {"folded", "two_blocks"};
  for (int which = 0; which < 2; which++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    cJSON_Delete(instrument(ctx, src, pragma(names[which], 4 + (unsigned)which, 3, 1), &m, NULL, 0));
    cr_assert_eq(count_calls(m, "cgp.loop.unless"), which == 0, "%s: the fold still applies", names[which]);
    LLVMValueRef f = LLVMGetNamedFunction(m, "f");
    cr_assert_eq(buffer_stores(f), 0, "%s: f stores no address", names[which]);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
        cr_assert(!is_call_to(i, "cgp.mem.flush") && !is_call_to(i, "cgp.mem.flush.unless"),
                  "%s: f calls no flush that reads stored addresses", names[which]);
    unsigned shells = 0, calls = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      unsigned n;
      if (sscanf(name, "cgp.mem.flush.v%u", &n) != 1) continue;
      shells++;
      calls += count_calls(m, name);
      unsigned stores = 0;
      for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
          if (LLVMGetInstructionOpcode(i) == LLVMStore) {
            stores++;
            cr_assert(is_call_to(LLVMGetBasicBlockTerminator(b) == i ? i : LLVMGetPreviousInstruction(
                                     LLVMGetBasicBlockTerminator(b)), CGP_HOOK_MEM_BLOCK),
                      "%s: the stores share their block with the call to the runtime", name);
          }
      cr_assert_eq(stores, 2 * n, "%s: %s stores its %u addresses and bases", names[which], name, n);
    }
    cr_assert_gt(shells, 0, "%s", names[which]);
    cr_assert_gt(calls, 0, "%s", names[which]);
    char *msg = NULL;
    cr_assert_eq(LLVMVerifyModule(m, LLVMReturnStatusAction, &msg), 0, "%s", msg);
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

/* A block of more than 16 sites keeps its stores where they are (SINK_MAX_SITES, pass/cgp_sink.c):
   y[i] = x[i] + ... + x[i + 16] is 17 loads and a store, 36 stores in f; one of 16 sites is moved. */
Test(pass, a_block_of_many_sites_keeps_its_address_stores) {
  char src[2048];
  for (int many = 0; many < 2; many++) {
    int nload = many ? 17 : 15, at = snprintf(src, sizeof src, "float x[128], y[64];\nvoid f(void) {\n"
                                                                     "  for (int i = 0; i < 64; i++) y[i] = x[i]");
    for (int k = 1; k < nload; k++) at += snprintf(src + at, sizeof src - (size_t)at, " + x[i + %d]", k);
    snprintf(src + at, sizeof src - (size_t)at, ";\n}\n");
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    cJSON *d = instrument(ctx, src, pragma("many", 3, 3, 1), &m, NULL, 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")), nload + 1, "%d loads and a store", nload);
    unsigned kept = buffer_stores(LLVMGetNamedFunction(m, "f"));
    cr_assert_eq(kept, many ? 2u * (unsigned)(nload + 1) : 0u, "%d sites: %u stores left in f", nload + 1, kept);
    cJSON_Delete(d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

/* docs/model.md section 5e: a load in a loop that stores nothing (in the CUDA stream: an
   accumulator in a register) issues with the next iterations' loads, `overlap`; not in a loop that
   stores every iteration (y[i] +=), nor a load whose address another load of the loop gives
   (A[i][idx[k]]: idx[k] overlaps, A does not), nor across a call that may write memory, nor a load
   in no loop of the thread body. */
static int overlap_of(cJSON *d, const char *array, const char *kind) {
  int found = -1;
  for (int s = 0; s < cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")); s++) {
    cJSON *x = site(d, s);
    if (strcmp(str(x, "array"), array) != 0 || strcmp(str(x, "kind"), kind) != 0) continue;
    cr_assert_eq(found, -1, "one %s of %s", kind, array);
    found = cJSON_IsTrue(cJSON_GetObjectItem(x, "overlap"));
  }
  cr_assert_neq(found, -1, "a %s of %s", kind, array);
  return found;
}

Test(pass, loads_of_a_store_free_loop_overlap) {
  static const char *src =
    "float A[64][64], x[64], y[64], z[64];\n"
    "int idx[64];\n"
    "float g(float);\n"
    "void f(void) {\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) s += A[i][k] * x[k]; y[i] = s + z[i]; }\n"
    "  for (int i = 0; i < 64; i++) for (int k = 0; k < 64; k++) y[i] += A[i][k] * x[k];\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) s += A[i][idx[k]]; y[i] = s; }\n"
    "  for (int i = 0; i < 64; i++) { float s = 0; for (int k = 0; k < 64; k++) s += g(A[i][k]); y[i] = s; }\n"
    "}\n";
  const char *names[4] = {"register", "global", "indirect", "call"};
  for (int which = 0; which < 4; which++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    cJSON *d = instrument(ctx, src, pragma(names[which], 5 + (unsigned)which, 3, 1), &m, NULL, 0);
    switch (which) {
    case 0:
      cr_expect(overlap_of(d, "A", "load") && overlap_of(d, "x", "load"), "the k loop stores nothing");
      cr_expect(!overlap_of(d, "z", "load"), "z[i] is in no loop of the thread");
      break;
    case 1:
      cr_expect(!overlap_of(d, "A", "load") && !overlap_of(d, "x", "load") && !overlap_of(d, "y", "load"),
                "y[i] is stored every iteration");
      break;
    case 2:
      cr_expect(overlap_of(d, "idx", "load"), "idx[k]'s address is the loop's counter");
      cr_expect(!overlap_of(d, "A", "load"), "A's address is a loaded value");
      break;
    default:
      cr_expect(!overlap_of(d, "A", "load"), "g may write memory");
    }
    cJSON_Delete(d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

Test(pass, loop_invariant_load_is_traced_in_every_thread) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cJSON *d = instrument(ctx,
    "void f(int n, float *y, float *c, float *x) {\n  for (int i = 0; i < n; i++)\n    y[i] = c[0] * x[i];\n}\n",
    pragma("f", 2, 3, 1), &m, NULL, 0);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")), 3);
  int c = 0;
  for (int s = 0; s < 3; s++)
    if (strcmp(str(site(d, s), "array"), "c") == 0) {
      c++;
      cr_assert_geq(num(site(d, s), "block"), 0, "c[0] is read inside the thread loop");
      cr_assert_null(cJSON_GetObjectItem(site(d, s), "hoisted"));
      cr_assert_str_eq(str(site(d, s), "kind"), "load");
    }
  cr_assert_eq(c, 1);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, restrict_pointers_are_read_as_noalias) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cJSON *d = instrument(ctx,
    "void gemm(int n, float *restrict A, float *restrict B, float *restrict C) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < n; j++)\n"
    "      for (int k = 0; k < n; k++)\n"
    "        C[i * n + j] += A[i * n + k] * B[k * n + j];\n"
    "}\n", pragma("gemm", 2, 3, 2), &m, NULL, 0);
  cr_assert_str_eq(str(d, "reading"), "noalias");
  int kh = num(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "loops"), 0), "header"), in_k = 0;
  for (int s = 0; s < cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")); s++) {
    cJSON *x = site(d, s);
    cr_assert_str_eq(str(x, "reading"), "noalias");
    if (num(x, "block") != kh) continue;
    cr_assert_str_neq(str(x, "array"), "C", "C stays in a register across k");
    in_k++;
  }
  cr_assert_eq(in_k, 2, "A and B");
  cr_assert_eq(count_calls(m, "cgp_rt_site"), 0);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, noalias_clause_traces_the_compiled_accesses) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cgp_kernel_pragma k = pragma("gemm", 5, 3, 0);
  k.noalias = 1;
  cJSON *d = instrument(ctx, gemm, k, &m, NULL, 0);
  cr_assert_str_eq(str(d, "reading"), "noalias");
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")), 5, "C load+store before k, A, B, C store after");
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* The rpo of the block holding the first site of `array` with `kind`. */
static int rpo_of(cJSON *d, const char *array, const char *kind) {
  for (int s = 0; s < cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem")); s++)
    if (strcmp(str(site(d, s), "array"), array) == 0 && strcmp(str(site(d, s), "kind"), kind) == 0)
      return num(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "blocks"), num(site(d, s), "block")), "rpo");
  cr_assert_fail("no site of %s", array);
  return -1;
}

Test(pass, rpo_increases_along_the_body) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cJSON *d = instrument(ctx,
    "void f(int n, float *a, float *b, float *c, float *e) {\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    if (a[i] > 0) b[i] = 1; else c[i] = 2;\n"
    "    e[i] = 0;\n"
    "  }\n}\n", pragma("f", 2, 3, 1), &m, NULL, 0);
  cJSON *blocks = cJSON_GetObjectItem(d, "blocks"), *b;
  int nb = cJSON_GetArraySize(blocks);
  unsigned char used[64] = {0};
  cr_assert_leq(nb, 64);
  cJSON_ArrayForEach(b, blocks) {
    int r = num(b, "rpo");
    cr_assert(r >= 0 && r < nb && !used[r], "rpo numbers are 0..n-1, each once");
    used[r] = 1;
    cr_assert_eq(num(b, "loop"), -1, "no inner loop");
  }
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "loops")), 0);
  int ra = rpo_of(d, "a", "load"), rb = rpo_of(d, "b", "store"), rc = rpo_of(d, "c", "store"),
      re = rpo_of(d, "e", "store");
  cr_assert_eq(ra, 0, "the thread loop's header comes first");
  cr_assert(ra < rb && ra < rc && rb < re && rc < re, "a %d < b %d, c %d < e %d", ra, rb, rc, re);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(d, "acyclic")), "a branch makes no cycle");
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* A thread body with an inner loop, and one with a goto back into its middle (a cycle no natural
   loop makes), line 2, column 3. */
static const char *inner_loop_src =
    "void f(int n, int k, float *a, float *b) {\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    for (int t = 0; t < k; t++) b[i] += a[i + t];\n"
    "  }\n}\n";
static const char *goto_cycle_src =
    "void f(int n, int k, float *a, float *b) {\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    int t = 0;\n"
    "    if (i & k) goto mid;\n"
    "  top:\n"
    "    b[i] += a[i];\n"
    "  mid:\n"
    "    t++;\n"
    "    b[i] += a[i + t];\n"
    "    if (t < 3) goto top;\n"
    "  }\n}\n";

/* A thread body is acyclic when its only cycles are natural loops (an inner for: a back edge to
   a header that dominates it); a goto back into the middle of the body, entered at two places,
   is a cycle no natural loop makes (irreducible), so the descriptor says acyclic false, and the
   runtime keeps every load's forwarding check (docs/pipeline.md, "Reconvergent warps"). */
Test(pass, a_goto_back_into_the_body_is_a_cycle_no_loop_makes) {
  const char *src[2] = {inner_loop_src, goto_cycle_src};
  for (int irreducible = 0; irreducible < 2; irreducible++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    cJSON *d = instrument(ctx, src[irreducible], pragma("f", 2, 3, 1), &m, NULL, 0);
    cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(d, "acyclic")), !irreducible, "irreducible %d", irreducible);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "loops")), !irreducible, "the for is a loop, the goto not");
    cJSON_Delete(d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

Test(pass, sum_over_a_mapped_loop_is_a_carried_scalar) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  char warn[2048];
  cJSON *d = instrument(ctx,
    "float f(int n, float *a, int *b) {\n  float s = 0;\n  int t = 0;\n"
    "  for (int i = 0; i < n; i++) {\n    s += a[i];\n    t ^= b[i];\n  }\n  return s + t;\n}\n",
    pragma("f", 4, 3, 1), &m, warn, sizeof warn);
  cr_assert(strstr(warn, "depend on each other"), "%s", warn);
  cJSON *carried = cJSON_GetObjectItem(d, "carried"), *c;
  cr_assert_eq(cJSON_GetArraySize(carried), 2);
  int fl = 0, in = 0;
  cJSON_ArrayForEach(c, carried) {
    cr_assert_str_eq(str(c, "file"), "k.c");
    if (strcmp(str(c, "type"), "float") == 0) {
      fl++;
      cr_assert_eq(num(c, "line"), 5);
      cr_assert_eq(num(c, "column"), 7);
      cr_assert_str_eq(str(c, "variable"), "s");
      cr_assert_str_eq(str(c, "source_type"), "float");
    }
    if (strcmp(str(c, "type"), "int") == 0) { in++; cr_assert_eq(num(c, "line"), 6); cr_assert_str_eq(str(c, "variable"), "t"); }
  }
  cr_assert(fl == 1 && in == 1);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* Each carried scalar's warning names it, with its declared type (a typedef as written), at the
   line of the value the next iteration receives: two warnings that say which is which. */
Test(pass, a_carried_scalar_is_named_with_its_declared_type) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  char warn[4096];
  cJSON *d = instrument(ctx,
    "typedef unsigned long long u64;\ndouble f(int n, const double *a, const u64 *h, u64 *out) {\n"
    "  double sum = 0;\n  u64 hash = 5;\n"
    "  for (int i = 0; i < n; i++) {\n    sum += a[i];\n    hash = hash * 31 + h[i];\n  }\n"
    "  *out = hash;\n  return sum;\n}\n",
    pragma("f", 5, 3, 1), &m, warn, sizeof warn);
  cr_assert(strstr(warn, "k.c:6: warning: kernel 'f': 'sum' (double) is carried from one iteration of the "
                         "mapped loop at line 5 to the next (line 6)"), "%s", warn);
  cr_assert(strstr(warn, "k.c:7: warning: kernel 'f': 'hash' (u64) is carried"), "%s", warn);
  cJSON *carried = cJSON_GetObjectItem(d, "carried"), *c;
  cr_assert_eq(cJSON_GetArraySize(carried), 2);
  cJSON_ArrayForEach(c, carried) {
    int is_sum = strcmp(str(c, "variable"), "sum") == 0;
    cr_assert(is_sum || strcmp(str(c, "variable"), "hash") == 0, "%s", str(c, "variable"));
    cr_assert_str_eq(str(c, "source_type"), is_sum ? "double" : "u64");
    cr_assert_str_eq(str(c, "type"), is_sum ? "float" : "int");
  }
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* A mapped loop left by a break or a return is not a parallel loop: one "exits" entry and one
   warning per exiting block, at the break (the first test of the body, in the loop's header once
   rotated, is one too), and the test of a value read joined to the loop's (`i < n && a[i] !=
   key`). Not one: the loop's own test, two joined (`i < n && i < m`), a break out of a loop
   inside the thread body, a path that ends in exit() (an error check). */
Test(pass, a_break_out_of_a_mapped_loop_is_an_early_exit) {
  const char *srcs[4] = {
      "#include <stdlib.h>\nint f(int n, const int *a, int key) {\n  int found = -1;\n"
      "  for (int i = 0; i < n; i++) {\n    if (a[i] == key + 2) { found = i; break; }\n    if (a[i] < 0) exit(1);\n"
      "    if (a[i] == key + 1) return -2;\n  }\n  return found;\n}\n",
      "#include <stdlib.h>\nvoid f(int n, int m, int *a) {\n  for (int i = 0; i < n; i++) {\n"
      "    if (a[i] < 0) exit(1);\n    for (int j = 0; j < m; j++)\n      if (a[i * m + j] == 0) break;\n"
      "    a[i] = 0;\n  }\n}\n",
      "void f(int n, int m, float *a) {\n  for (int i = 0; i < n && i < m; i += 2)\n    a[i] *= 2;\n}\n",
      "int f(int n, const int *a, int key) {\n  int i = 0;\n  for (; i < n && a[i] != key; i++)\n    ;\n"
      "  return i;\n}\n"};
  const unsigned line[4] = {4, 3, 2, 3};
  const int want[4] = {2, 0, 0, 1};
  for (int c = 0; c < 4; c++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    char warn[4096];
    cJSON *d = instrument(ctx, srcs[c], pragma("f", line[c], 3, 1), &m, warn, sizeof warn);
    cJSON *exits = cJSON_GetObjectItem(d, "exits");
    cr_assert_eq(cJSON_GetArraySize(exits), want[c], "case %d: %s", c, warn);
    if (c == 0) {
      unsigned seen = 0;
      cJSON *x;
      cJSON_ArrayForEach(x, exits) {
        cr_assert_eq(num(x, "loop_line"), 4);
        seen |= 1u << (unsigned)num(x, "line");
      }
      cr_assert_eq(seen, 1u << 5 | 1u << 7, "the break (line 5) and the return (line 7): %#x", seen);
      cr_assert(strstr(warn, "k.c:5: warning: kernel 'f': the mapped loop at line 4 is left early at line 5"), "%s", warn);
    } else if (!want[c]) {
      cr_assert_null(strstr(warn, "left early"), "%s", warn);
    }
    cJSON_Delete(d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}

/* The functional-unit counts summed over the instructions of function `fn`. */
static cgp_ptx_units units_of(LLVMModuleRef m, const char *fn) {
  cgp_ptx_units u = {0};
  LLVMValueRef f = LLVMGetNamedFunction(m, fn);
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
      cgp_pass_ptx_units(i, &u);
  return u;
}

Test(pass, unit_counts_of_double_multiply_and_sqrtf) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx,
    "float sqrtf(float);\n"
    "void dmul(double *a, double *b) { *a = *a * *b; }\n"
    "void root(float *a) { *a = sqrtf(*a); }\n");
  cgp_ptx_units d = units_of(m, "dmul"), r = units_of(m, "root");
  cr_assert_eq(d.fp64, 1);
  cr_assert_eq(d.fp32 + d.sfu + d.integer, 0);
  cr_assert_eq(r.sfu, 1);
  cr_assert_eq(r.fp32 + r.fp64 + r.integer, 0);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* ---- pass defects ------------------------------------------------------------------------- */

Test(pass, goto_out_of_a_2d_nest_builds_and_ends_the_kernel_on_both_exits) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cJSON *d = instrument(ctx,
    "int printf(const char *, ...);\nfloat A[64][64];\n"
    "int main(int argc, char **argv) {\n  int n = argc + 63, i, j;\n"
    "  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {\n"
    "      if (A[i][j] > 10) goto out;\n      A[i][j] = i + j;\n    }\n"
    "out:\n  printf(\"%d %d\\n\", i, j);\n  return 0;\n}\n", pragma("main", 5, 3, 2), &m, NULL, 0);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_end"), 2, "the loop's exit and the goto");
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(d, "can_skip")), "j is used after the nest");
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

Test(pass, atomics_are_atomic_sites) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  cJSON *d = instrument(ctx,
    "int hist[16];\n_Atomic int total;\n"
    "void f(int n, int *a) {\n  for (int i = 0; i < n; i++) {\n"
    "    __atomic_fetch_add(&hist[a[i] & 15], 1, __ATOMIC_RELAXED);\n    total++;\n  }\n}\n",
    pragma("f", 4, 3, 1), &m, NULL, 0);
  int atomic = 0, n = cJSON_GetArraySize(cJSON_GetObjectItem(d, "mem"));
  for (int s = 0; s < n; s++)
    if (strcmp(str(site(d, s), "kind"), "atomic") == 0) {
      atomic++;
      cr_assert_eq(num(site(d, s), "size"), 4);
    }
  cr_assert_eq(atomic, 2, "hist[..] and total");
  cr_assert_eq(n, 3, "and the load of a[i]");
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* Stores into cgp_rt_block_seen (a block's mark) in m. */
static unsigned count_marks(LLVMModuleRef m) {
  LLVMValueRef seen = LLVMGetNamedGlobal(m, CGP_HOOK_BLOCK_SEEN);
  unsigned n = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && seen; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        if (LLVMGetInstructionOpcode(i) != LLVMStore) continue;
        LLVMValueRef p = LLVMGetOperand(i, 1);
        if (p == seen || (LLVMIsAConstantExpr(p) && LLVMGetOperand(p, 0) == seen)) n++;
      }
  return n;
}

/* A straight-line body (an if, no loop, no other cycle) marks each of its blocks in
   cgp_rt_block_seen, one store each and no cgp.bb call (cgp_abi.h, CGP_HOOK_BLOCK_SEEN); a body
   with a loop, or with a goto cycle, calls cgp.bb in every block as before. */
Test(pass, only_straight_line_bodies_mark_their_blocks) {
  const char *src[3] = {
    "void f(int n, int k, float *a, float *b) {\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    if (i > k) b[i] = a[i] * 2;\n"
    "  }\n}\n",
    inner_loop_src, goto_cycle_src};
  for (int c = 0; c < 3; c++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    cJSON *d = instrument(ctx, src[c], pragma("f", 2, 3, 1), &m, NULL, 0);
    unsigned nbb = (unsigned)cJSON_GetArraySize(cJSON_GetObjectItem(d, "blocks"));
    cr_assert_gt(nbb, 1, "case %d", c);
    cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(d, "block_seen")), c == 0, "case %d", c);
    cr_assert_eq(count_marks(m), c == 0 ? nbb : 0, "case %d: a mark per block, or none", c);
    cr_assert_eq(count_calls(m, "cgp.bb"), c == 0 ? 0 : nbb, "case %d: a call per block, or none", c);
    cJSON_Delete(d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}
