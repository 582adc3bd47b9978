/* `cgpredict fpga FILE.c` (driver/cgp_fpga_cmd.c, docs/model.md 11.9): the FPGA estimate of a
   source's marked nests from the compiler alone. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Run a shell command; its stdout and stderr in out (NUL-terminated); returns its exit status. */
static int run(char *out, size_t cap, const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(driver_fpga, atax_json_has_the_nest_trips_il_and_cycles) {
  static char out[65536];
  cr_assert_eq(run(out, sizeof out, "%s fpga %s/benchmarks/fpga/atax.c --device zcu102 --baseline --json", CGP_DRIVER,
                   CGP_SOURCE_DIR), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *k = cJSON_GetArrayItem(j, 0);
  cr_assert_str_eq(cJSON_GetObjectItem(k, "kernel")->valuestring, "atax");
  cJSON *loops = cJSON_GetObjectItem(k, "loops");
  cr_assert_eq(cJSON_GetArraySize(loops), 2);
  cJSON *outer = cJSON_GetArrayItem(loops, 0), *inner = cJSON_GetArrayItem(loops, 1);
  cr_assert_eq(cJSON_GetObjectItem(outer, "trips")->valueint, 128);
  cr_assert_eq(cJSON_GetObjectItem(inner, "trips")->valueint, 128);
  cr_assert_eq(cJSON_GetObjectItem(inner, "depth")->valueint, 1);
  int il = cJSON_GetObjectItem(k, "innermost_il")->valueint, oil = cJSON_GetObjectItem(outer, "il")->valueint;
  cr_assert_eq(cJSON_GetObjectItem(inner, "il")->valueint, il);
  /* 11.5: 128 x (IL_outer + 128 x IL + exit 1), whatever the ILs are */
  cr_assert_eq(cJSON_GetObjectItem(k, "cycles")->valuedouble, 128.0 * (oil + 128.0 * il + 1));
  cr_assert_str_eq(cJSON_GetObjectItem(inner, "ii_bound_by")->valuestring, "recurrence");
  cJSON_Delete(j);
}

Test(driver_fpga, text_output_and_refusals_name_the_place) {
  static char out[65536];
  cr_assert_eq(run(out, sizeof out, "%s fpga %s/benchmarks/fpga/gemm.c 2>&1", CGP_DRIVER, CGP_SOURCE_DIR), 0, "%s", out);
  cr_assert(strstr(out, "kernel gemm") && strstr(out, "latency:") && strstr(out, "resources: DSP"),
            "%s", out);
  char dir[] = "/tmp/cgp-fpga-drv.XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/call.c", dir);
  FILE *f = fopen(path, "w");
  fputs("float ext(float);\nvoid f(float *a) {\n#pragma cgpredict kernel name(f)\n  for (int i = 0; i < 8; i++)\n"
        "    a[i] = ext(a[i]);\n}\n", f);
  fclose(f);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s 2>&1", CGP_DRIVER, path), 1, "%s", out);
  cr_assert(strstr(out, "call.c:5:") && strstr(out, "'ext'"), "%s", out);
  /* no pragma; an unknown device; a GPU device */
  f = fopen(path, "w");
  fputs("void g(void) {}\n", f);
  fclose(f);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s 2>&1", CGP_DRIVER, path), 1, "%s", out);
  cr_assert(strstr(out, "no `#pragma cgpredict kernel`"), "%s", out);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --device jetson-tk1 2>&1", CGP_DRIVER, path), 2, "%s", out);
  cr_assert_eq(run(out, sizeof out, "%s fpga 2>&1", CGP_DRIVER), 2, "%s", out);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

Test(driver_fpga, compiler_flags_after_the_double_dash_reach_clang) {
  static char out[65536];
  char dir[] = "/tmp/cgp-fpga-drv.XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/n.c", dir);
  FILE *f = fopen(path, "w");
  fputs("void f(float *a) {\n#pragma cgpredict kernel name(f)\n  for (int i = 0; i < N; i++)\n    a[i] *= 2.0f;\n}\n", f);
  fclose(f);
  cr_assert_neq(run(out, sizeof out, "%s fpga %s --json 2>&1", CGP_DRIVER, path), 0, "N is undefined: %s", out);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --json -- -DN=77", CGP_DRIVER, path), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "loops"), 0);
  cr_assert_eq(cJSON_GetObjectItem(l, "trips")->valueint, 77);
  cJSON_Delete(j);
  /* a bound known at run time only: trips and cycles null, the text says why */
  f = fopen(path, "w");
  fputs("void f(float *a, int n) {\n#pragma cgpredict kernel name(f)\n  for (int i = 0; i < n; i++)\n"
        "    a[i] *= 2.0f;\n}\n", f);
  fclose(f);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --json", CGP_DRIVER, path), 0, "%s", out);
  j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "cycles")), "%s", out);
  l = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "loops"), 0);
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(l, "trips")), "%s", out);
  cJSON_Delete(j);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s", CGP_DRIVER, path), 0, "%s", out);
  cr_assert(strstr(out, "latency: unknown (a trip count is not static"), "%s", out);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* The nine Lina baseline kernels from their C (benchmarks/fpga): the iteration latencies
   docs/model.md 11.5 derives kernel by kernel on the ZCU102 (Vivado's for all but gemm, whose 13
   is Lina's estimate too; Vivado reports 12), and atax's and mvt's cycles, Vivado's exactly. */
Test(driver_fpga, lina_kernels_iteration_latencies_as_derived) {
  static const struct { const char *k; int il; double cycles; } want[] = {
    {"atax", 9, 147712}, {"bicg", 10, 655872}, {"convolution2d", 38, 603540}, {"convolution3d", 62, 1675860},
    {"gemm", 13, 0}, {"gesummv", 10, 0}, {"mvt", 10, 655872}, {"syr2k", 14, 0}, {"syrk", 13, 27377920}};
  static char out[65536];
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    cr_assert_eq(run(out, sizeof out, "%s fpga %s/benchmarks/fpga/%s.c --baseline --json 2>&1", CGP_DRIVER, CGP_SOURCE_DIR,
                     want[i].k), 0, "%s", out);
    cJSON *j = cJSON_Parse(out);
    cr_assert_not_null(j, "%s", out);
    cJSON *k = cJSON_GetArrayItem(j, 0);
    cr_expect_eq(cJSON_GetObjectItem(k, "innermost_il")->valueint, want[i].il, "%s", want[i].k);
    if (want[i].cycles > 0)
      cr_expect_eq(cJSON_GetObjectItem(k, "cycles")->valuedouble, want[i].cycles, "%s", want[i].k);
    cJSON_Delete(j);
  }
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

/* The pragma's fpga(...) directives (docs/model.md 11.10) on zc702, by hand: sum += a[i] * b[i],
   1024 floats, pipelined, unrolled by 4, both arrays cyclic 4. The read's data at (1, 2.0 ns), the
   fmul from 2 ready at (5, 8.75), four fadds chained through the sum, each 5 cycles (latency 4 and
   a cycle to chain after its last stage): 6-10, 11-15, 16-20, 21-25: IL 26, II 4 x 5 = 20 (the
   recurrence), 256 iterations: 20 x 255 + 26 = 5126 cycles. Errors name the directive. */
Test(driver_fpga, directives_give_the_design_and_their_errors_name_the_directive) {
  static char out[65536];
  char dir[] = "/tmp/cgp-fpga-drv.XXXXXX", path[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/dot.c", dir);
  write_file(path, "float dot(float a[1024], float b[1024]) {\n  float s = 0;\n"
                   "#pragma cgpredict kernel name(dot) fpga(pipeline(i) unroll(i, 4) partition(a, cyclic, 4) "
                   "partition(b, cyclic, 4))\n  for (int i = 0; i < 1024; i++)\n    s += a[i] * b[i];\n  return s;\n}\n");
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --device zc702 --json", CGP_DRIVER, path), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *k = cJSON_GetArrayItem(j, 0), *l = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "loops"), 0);
  cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "design"), "from")->valuestring, "directives");
  cr_expect_eq(cJSON_GetObjectItem(l, "il")->valueint, 26);
  cr_expect_eq(cJSON_GetObjectItem(l, "ii")->valueint, 20);
  cr_expect_str_eq(cJSON_GetObjectItem(l, "ii_bound_by")->valuestring, "recurrence");
  cr_expect_eq(cJSON_GetObjectItem(k, "cycles")->valuedouble, 5126);
  cJSON_Delete(j);
  static const struct { const char *clause, *where, *msg; } bad[] = {
    {"fpga(pipeline(q))", "m.c:2:39:", "pipeline(q): no loop of the nest has the induction variable 'q' (its loops: i j)"},
    {"fpga(unroll(i, 2), partition(Z, cyclic, 2))", "m.c:2:53:", "partition(Z, ...): no array of that name"},
    {"fpga(partition(A, cyclic, 2, 3))", "m.c:2:39:", "dimension 3, but A has 2"},
    {"fpga(unroll(i, 2))", "m.c:2:39:", "unroll(i, 2): i holds loops that are not unrolled"},
    {"fpga(unroll(i 2))", "m.c:2:48:", "unroll(LOOP, FACTOR): expected ','"},
    {"fpga(pipeline(i) unroll(j, 2))", "m.c:2:51:", "unroll(j, 2): j is inside the pipelined loop i"},
  };
  snprintf(path, sizeof path, "%s/m.c", dir);
  for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
    char src[1024];
    snprintf(src, sizeof src, "void m(float A[8][8]) {\n#pragma cgpredict kernel name(m) %s\n"
             "  for (int i = 0; i < 8; i++)\n    for (int j = 0; j < 8; j++) A[i][j] *= 2.0f;\n}\n", bad[b].clause);
    write_file(path, src);
    cr_expect_eq(run(out, sizeof out, "%s fpga %s 2>&1", CGP_DRIVER, path), 1, "%s", out);
    cr_expect(strstr(out, bad[b].where) && strstr(out, bad[b].msg), "%s: %s", bad[b].clause, out);
  }
  write_file(path, "void m(float A[8][8], int n) {\n#pragma cgpredict kernel name(m) fpga(pipeline(i))\n"
                   "  for (int i = 0; i < 8; i++)\n    for (int j = 0; j < n; j++) A[i][j] *= 2.0f;\n}\n");
  cr_expect_eq(run(out, sizeof out, "%s fpga %s 2>&1", CGP_DRIVER, path), 1, "%s", out);
  cr_expect(strstr(out, "m.c:2:39:") && strstr(out, "pipeline(i): the loops inside a pipelined loop are fully "
                                                     "unrolled, and j has no static trip count"), "%s", out);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* The search (docs/model.md 11.11) on b[i] = a[i] * 3, 256 floats, zc702. Per loop choice (none,
   i) and unroll u in 1, 2, ..., 64 (all divide 256) it tries no partition and cyclic u capped at
   64, 32, ..., 2, skipping caps that change nothing: u = 2^m gives m + 1 designs, 1 + 2 + ... + 7 =
   28 per choice, 56 in all. A copy's IL is 7 (data at (1, 2.0 ns), the fmul 2-5, the store in 6);
   pipelined, unrolled by 64 with both arrays cyclic 64, every bank has one read and one write a
   window: II 1, 4 windows: 3 + 7 = 10 cycles, 64 fmuls of 3 DSPs = 192 of the ZC702's 220. Not
   pipelined the same unroll takes 4 x 7 = 28; the baseline 256 x 7 = 1792. */
Test(driver_fpga, search_keeps_the_fastest_design_that_fits) {
  static char out[65536];
  char dir[] = "/tmp/cgp-fpga-drv.XXXXXX", path[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/scale.c", dir);
  write_file(path, "void scale(float a[256], float b[256]) {\n#pragma cgpredict kernel name(scale)\n"
                   "  for (int i = 0; i < 256; i++)\n    b[i] = a[i] * 3.0f;\n}\n");
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --device zc702 --json", CGP_DRIVER, path), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *k = cJSON_GetArrayItem(j, 0), *ds = cJSON_GetObjectItem(k, "design");
  cr_expect_str_eq(cJSON_GetObjectItem(ds, "from")->valuestring, "search");
  cr_expect_str_eq(cJSON_GetObjectItem(ds, "summary")->valuestring,
                   "pipeline i, unroll i x64, partition a cyclic 64, partition b cyclic 64");
  cr_expect_eq(cJSON_GetObjectItem(ds, "designs_tried")->valueint, 56);
  cr_expect_eq(cJSON_GetObjectItem(k, "cycles")->valuedouble, 10);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "resources"), "dsp")->valueint, 192);
  cJSON_Delete(j);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --device zc702 --baseline --json", CGP_DRIVER, path), 0, "%s", out);
  j = cJSON_Parse(out);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "cycles")->valuedouble, 1792);
  cJSON_Delete(j);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* adi's first kernel: -O1 versions the i2 loop behind a run-time check that rows of X and B do
   not overlap, so the nest holds two loops of one `for`, only one of which runs. The first is
   estimated, the other is marked and left out: 1024 x (IL_i1 + 1023 x IL_i2 + 1), not twice the
   inner term (docs/model.md 11.10). */
Test(driver_fpga, a_loop_the_optimiser_versioned_is_estimated_once) {
  static char out[65536];
  char dir[] = "/tmp/cgp-fpga-drv.XXXXXX", path[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/adi.c", dir);
  write_file(path, "#define N 1024\nvoid adi1(float (*A)[N], float (*B)[N], float (*X)[N]) {\n"
                   "#pragma cgpredict kernel name(adi1)\n  for (int i1 = 0; i1 < N; i1++)\n"
                   "    for (int i2 = 1; i2 < N; i2++) {\n"
                   "      X[i1][i2] = X[i1][i2] - X[i1][i2 - 1] * A[i1][i2] / B[i1][i2 - 1];\n"
                   "      B[i1][i2] = B[i1][i2] - A[i1][i2] * A[i1][i2] / B[i1][i2 - 1];\n    }\n}\n");
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --baseline --json", CGP_DRIVER, path), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *k = cJSON_GetArrayItem(j, 0), *loops = cJSON_GetObjectItem(k, "loops");
  cr_assert_eq(cJSON_GetArraySize(loops), 3, "two versions of i2: %s", out);
  cJSON *outer = cJSON_GetArrayItem(loops, 0), *inner = cJSON_GetArrayItem(loops, 1), *other = cJSON_GetArrayItem(loops, 2);
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(other, "another_version")), "%s", out);
  cr_expect_null(cJSON_GetObjectItem(inner, "another_version"));
  double il0 = cJSON_GetObjectItem(outer, "il")->valuedouble, il1 = cJSON_GetObjectItem(inner, "il")->valuedouble;
  cr_expect_eq(cJSON_GetObjectItem(k, "cycles")->valuedouble, 1024.0 * (il0 + 1023.0 * il1 + 1));
  cJSON_Delete(j);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* MachSuite's stencil2d (benchmarks/fpga/stencil2d.c: r 126, c 62, k1 3 holding k2 3; int32 on
   pointer arguments) on the ZC702 (docs/model.md 11.10, 11.11). The search now pipelines c with
   k1 and k2 fully unrolled. Designs tried: none (1: k2's 3 trips take no unroll); r not tried
   (its window, 2 + 62 x (4 + 3 x (5 + 3 x 8)) = 5644 operations, is above 4096); c unrolled 1
   (none, then filter and orig cyclic by the 9 copies of k1 x k2 rounded to 8, then 4, 2: 4) and
   2 (none, orig 16 (2 x 9), filter 8, sol 2; caps 32 and 16 change nothing; 8, 4, 2: 5); k1
   (none, cyclic 2: 2); k2 (1): 13. Kept: c unrolled 2, orig and filter cyclic 4: orig's 18 reads
   of 64 k1 + c + k2 fall in bank (c + k2) mod 4, 3, 6, 6, 3 of them: II 3 on 2 ports (filter's
   bank 0 holds elements 0, 4, 8, read by both copies: 6, II 3 too); 31 windows, r: 126 x (1 +
   3 x 30 + IL + 1). pipeline(c) written in the pragma, unpartitioned: 9 reads of orig on 2
   ports, II 5; pipeline(r) is refused for its window. */
Test(driver_fpga, stencil2d_pipelines_c_over_its_two_level_nest) {
  static char out[65536];
  cr_assert_eq(run(out, sizeof out, "%s fpga %s/benchmarks/fpga/stencil2d.c --device zc702 --search --json", CGP_DRIVER,
                   CGP_SOURCE_DIR), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *k = cJSON_GetArrayItem(j, 0), *ds = cJSON_GetObjectItem(k, "design"), *loops = cJSON_GetObjectItem(k, "loops");
  cr_expect_str_eq(cJSON_GetObjectItem(ds, "pipeline")->valuestring, "c");
  cr_expect_str_eq(cJSON_GetObjectItem(ds, "summary")->valuestring,
                   "pipeline c, unroll c x2, partition sol cyclic 2, partition filter cyclic 4, partition orig cyclic 4");
  cr_expect_eq(cJSON_GetObjectItem(ds, "designs_tried")->valueint, 13);
  cr_expect_eq(cJSON_GetObjectItem(ds, "designs_refused")->valueint, 0);
  cJSON *c = cJSON_GetArrayItem(loops, 1);
  cr_expect_str_eq(cJSON_GetObjectItem(c, "name")->valuestring, "c");
  cr_expect_eq(cJSON_GetObjectItem(c, "ii")->valueint, 3);
  for (int l = 2; l < 4; l++) {
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(loops, l), "unroll")->valueint, 3);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(loops, l), "pipelined")));
  }
  double il = cJSON_GetObjectItem(c, "il")->valuedouble;
  cr_expect_eq(cJSON_GetObjectItem(k, "cycles")->valuedouble, 126 * (1 + 3 * 30 + il + 1));
  cJSON_Delete(j);
  char dir[] = "/tmp/cgp-fpga-drv.XXXXXX", path[256], cmd[768];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/stencil_c.c", dir);
  snprintf(cmd, sizeof cmd, "sed 's/name(stencil2d)/name(stencil2d) fpga(pipeline(c))/' %s/benchmarks/fpga/stencil2d.c > %s",
           CGP_SOURCE_DIR, path);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(run(out, sizeof out, "%s fpga %s --device zc702 --json 2>&1", CGP_DRIVER, path), 0, "%s", out);
  j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  c = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "loops"), 1);
  cr_expect_eq(cJSON_GetObjectItem(c, "ii")->valueint, 5);
  cr_expect_str_eq(cJSON_GetObjectItem(c, "ii_bound_by")->valuestring, "memory ports");
  cJSON_Delete(j);
  snprintf(cmd, sizeof cmd, "sed 's/name(stencil2d)/name(stencil2d) fpga(pipeline(r))/' %s/benchmarks/fpga/stencil2d.c > %s",
           CGP_SOURCE_DIR, path);
  cr_assert_eq(system(cmd), 0);
  cr_expect_neq(run(out, sizeof out, "%s fpga %s --device zc702 2>&1", CGP_DRIVER, path), 0, "%s", out);
  cr_expect(strstr(out, "its window passes 4096 operations"), "%s", out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}
