/* The instrumentation pass on small C programs compiled by clang-14 as the driver does. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  snprintf(cmd, sizeof cmd, "cd %s && clang-14 -O1 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops "
           "-fno-builtin -fno-discard-value-names -Wno-unknown-pragmas -emit-llvm -c k.c -o k.bc", dir);
  cr_assert_eq(system(cmd), 0);
  snprintf(path, sizeof path, "%s/k.bc", dir);
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  cr_assert_eq(LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg), 0);
  LLVMModuleRef m;
  cr_assert_eq(LLVMParseBitcodeInContext2(ctx, buf, &m), 0);
  LLVMDisposeMemoryBuffer(buf);
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

static unsigned count_calls(LLVMModuleRef m, const char *callee) {
  unsigned n = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        if (LLVMGetInstructionOpcode(i) != LLVMCall) continue;
        size_t len;
        LLVMValueRef c = LLVMGetCalledValue(i);
        if (LLVMIsAFunction(c) && strcmp(LLVMGetValueName2(c, &len), callee) == 0) n++;
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
  /* -O1 keeps C[i][j] in a register across k: load+store before, A and B inside, store after */
  cJSON *mem = cJSON_GetObjectItem(d, "mem");
  cr_assert_eq(cJSON_GetArraySize(mem), 5);
  cr_assert_eq(count_calls(m, "cgp.mem"), 5);
  cr_assert_eq(count_calls(m, "cgp_rt_thread"), 1);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_begin"), 1);
  cr_assert_eq(count_calls(m, "cgp_rt_kernel_end"), 1);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(d, "can_skip")));
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

Test(pass, dims_one_maps_only_the_outer_loop) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, gemm);
  cgp_kernel_pragma k = pragma("gemm", 5, 3, 1);
  char err[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, NULL, 0), 0, "%s", err);
  cJSON *d = descriptor(m);
  cr_assert_eq(cJSON_GetObjectItem(d, "dims")->valueint, 1);
  cr_assert_eq(count_calls(m, "cgp.mem"), 5);
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

Test(pass, marked_loop_missing_from_the_code_is_an_error) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile(ctx, gemm);
  cgp_kernel_pragma k = pragma("gemm", 7, 3, 0);
  char err[2048];
  cr_assert_neq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, NULL, 0), 0);
  cr_assert(strstr(err, "k.c:7:3: error:") && strstr(err, "not in the compiled code"), "%s", err);
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

Test(pass, loads_hoisted_out_of_the_thread_loop_are_charged_to_threads) {
  LLVMContextRef ctx = LLVMContextCreate();
  /* LICM lifts u[i] out of the j loop; in CUDA every thread (i, j) loads it */
  LLVMModuleRef m = compile(ctx,
    "float A[64][64], u[64], v[64];\nvoid f(void) {\n  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++) A[i][j] += u[i] * v[j];\n}\n");
  cgp_kernel_pragma k = pragma("f", 3, 3, 2);
  char err[2048], warn[2048];
  cr_assert_eq(cgp_pass_instrument_module(m, &k, 1, err, sizeof err, warn, sizeof warn), 0, "%s", err);
  cr_assert_eq(warn[0], '\0', "no access should be left untraced: %s", warn);
  cr_assert_eq(count_calls(m, "cgp_rt_hoisted"), 1);
  cr_assert_eq(count_calls(m, "cgp.mem"), 3);        /* A load, v load, A store */
  cJSON *d = descriptor(m), *site;
  int hoisted = 0;
  cJSON_ArrayForEach(site, cJSON_GetObjectItem(d, "mem"))
    if (cJSON_IsTrue(cJSON_GetObjectItem(site, "hoisted")))
      hoisted += strcmp(cJSON_GetObjectItem(site, "array")->valuestring, "u") == 0;
  cr_assert_eq(hoisted, 1);
  cJSON_Delete(d);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
