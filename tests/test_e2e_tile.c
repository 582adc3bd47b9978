/* test_e2e_tile.c: tiled C as a user writes it, predicted as its shared-memory CUDA port runs
   (docs/model.md section 8b): footprints, the copy, barriers, bank conflicts on 4- and 8-byte
   banks, the vector loads of the H100's compiler, and the errors a user meets. */
#include "e2e_util.h"

TestSuite(e2e_tile, .init = setup, .fini = teardown, .timeout = 300);

/* GEMM and SYRK at N = 128 (4 tiles of 32), one 32x32 block a 32x32 tile of C. Lines:
   gemm's reads at 13, syrk's at 25. */
static const char *tiled_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N 128\n"
  "static float A[N][N], B[N][N], C[N][N];\n"
  "static void gemm(void) {\n"
  "#pragma cgpredict kernel name(gemm_tiled) dims(2) block(32,32) shared(A, B) tile(32)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      float s = 0;\n"
  "      for (int kk = 0; kk < N; kk += 32)\n"
  "        for (int k = kk; k < kk + 32; k++)\n"
  "          s += A[i][k]\n"
  "             * B[k][j];\n"
  "      C[i][j] = s;\n"
  "    }\n"
  "}\n"
  "static void syrk(void) {\n"
  "#pragma cgpredict kernel name(syrk_tiled) dims(2) block(32,32) shared(A) tile(32)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      float s = 0;\n"
  "      for (int kk = 0; kk < N; kk += 32)\n"
  "        for (int k = kk; k < kk + 32; k++)\n"
  "          s += A[i][k]\n"
  "             * A[j][k];\n"
  "      C[i][j] = s;\n"
  "    }\n"
  "}\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (float)(i + j); B[i][j] = (float)(i - j); }\n"
  "  gemm(); syrk();\n"
  "  printf(\"%g\\n\", C[3][5]);\n"
  "  return 0;\n"
  "}\n";

/* `src` built as NAME and run in full mode on the TK1 and the H100; its report NAME.json. */
static cJSON *build_and_run(const char *name, const char *src) {
  char c[64], json[64];
  snprintf(c, sizeof c, "%s.c", name);
  snprintf(json, sizeof json, "%s.json", name);
  write_file(c, src);
  cr_assert_eq(sh("%s build -- cc -O2 -o %s %s", CGP_DRIVER, name, c), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_DEVICE=jetson-tk1,h100-sxm5 "
                  "CGPREDICT_REPORT=%s ./%s", json, name), 0, "%s", read_file("err.txt"));
  return report(json);
}

static cJSON *run_tiled(void) { return build_and_run("t", tiled_src); }

/* The prediction's suggestion of a kind ("tile", "pad", "coalesce"), or NULL. */
static cJSON *suggestion(cJSON *p, const char *kind) {
  cJSON *sg;
  cJSON_ArrayForEach(sg, cJSON_GetObjectItem(p, "suggestions"))
    if (cJSON_IsString(cJSON_GetObjectItem(sg, "kind")) && !strcmp(cJSON_GetObjectItem(sg, "kind")->valuestring, kind))
      return sg;
  return NULL;
}

static cJSON *stats(cJSON *k, const char *dev) {
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  return cJSON_GetObjectItem(cJSON_GetObjectItem(s, "analysis"), dev);
}

static double arr(cJSON *o, const char *key, int i) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(o, key), i)->valuedouble;
}

Test(e2e_tile, gemm_tiled_copies_two_32x32_tiles_and_meets_twice_a_tile) {
  cJSON *r = run_tiled();
  cJSON *k = kernel_named(r, "gemm_tiled");
  for (int d = 0; d < 2; d++) {
    cJSON *st = stats(k, d ? "h100-sxm5" : "jetson-tk1");
    cr_assert_not_null(st);
    /* two footprints of 32 x 32 floats; 4 tiles, each: one global load a warp and footprint, two
       barriers */
    cr_expect_float_eq(num(st, "smem_per_block"), 8192, 1e-9);
    cr_expect_float_eq(num(st, "smem_load_insts"), 8, 1e-9);
    cr_expect_float_eq(num(st, "sync_insts"), 8, 1e-9);
    /* the tile loads are coalesced global loads: 8 a warp (C[i][j] is stored, not loaded) */
    cr_expect_float_eq(arr(st, "insts", 1), 8, 1e-9);
    cr_expect_float_eq(arr(st, "insts", 0) + arr(st, "insts", 2), 0, 1e-9);
    /* B[k][j]: 32 shared loads a tile, stride one float, plus the copy's 8 shared stores: coalesced;
       A[i][k]: one address a warp, a float a load on the TK1 (its file states no vector loads),
       four (16 bytes) on the H100 */
    cr_expect_float_eq(arr(st, "smem_insts", 1), 4 * 32 + 8, 1e-9);
    cr_expect_float_eq(arr(st, "smem_insts", 0), d ? 4 * 8 : 4 * 32, 1e-9);
    cr_expect_float_eq(arr(st, "smem_conflict", 1), 1, 1e-9);
    /* a 16-byte load is served a half-warp at a time: two passes for one address */
    cr_expect_float_eq(arr(st, "smem_conflict", 0), d ? 2 : 1, 1e-9);
  }
  cJSON_Delete(r);
}

Test(e2e_tile, syrk_tiled_reads_its_second_tile_down_a_column) {
  cJSON *r = run_tiled();
  cJSON *k = kernel_named(r, "syrk_tiled");
  /* A[i][k] and A[j][k]: two footprints of one array */
  cr_expect_float_eq(num(stats(k, "h100-sxm5"), "smem_per_block"), 8192, 1e-9);
  cJSON *row = site(k, 24, "load", "A"), *col = site(k, 25, "load", "A");
  /* per site, the last device's degree is the report's (devices in order: TK1 first) */
  cJSON *by_row = cJSON_GetObjectItem(row, "by_device"), *by_col = cJSON_GetObjectItem(col, "by_device");
  cr_assert_not_null(by_row);
  cr_assert_not_null(by_col);
  /* TK1, 8-byte banks, a float a load: lanes 128 bytes apart fall on 2 of 32 banks: 16-way; the
     row tile broadcasts */
  cr_expect_float_eq(num(col, "bank_conflict_degree"), 16, 1e-9);
  cr_expect_float_eq(num(row, "bank_conflict_degree"), 1, 1e-9);
  /* H100: 16-byte loads down the column: each half-warp's 16 lanes on 4 banks: 16 + 16 passes */
  cJSON *st = stats(k, "h100-sxm5");
  cr_expect_float_eq(arr(st, "smem_insts", 2), 4 * 8, 1e-9);
  cr_expect_float_eq(arr(st, "smem_conflict", 2), 32, 1e-9);
  cJSON_Delete(r);
}

Test(e2e_tile, a_tile_clause_with_no_loop_stepping_by_it_is_an_error) {
  write_file("t.c",
             "float A[64][64], C[64][64];\n"
             "void f(void) {\n"
             "#pragma cgpredict kernel name(k) dims(2) block(32,32) shared(A) tile(32)\n"
             "  for (int i = 0; i < 64; i++)\n"
             "    for (int j = 0; j < 64; j++) {\n"
             "      float s = 0;\n"
             "      for (int kk = 0; kk < 64; kk += 16)\n"
             "        for (int k = kk; k < kk + 16; k++) s += A[i][k];\n"
             "      C[i][j] = s;\n"
             "    }\n"
             "}\n"
             "int main(void) { f(); return 0; }\n");
  cr_assert_neq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0);
  const char *err = read_file("err.txt");
  cr_expect(strstr(err, "t.c:4:3: error") && strstr(err, "tile(32) names no loop"), "%s", err);
}

Test(e2e_tile, a_shared_array_read_outside_the_tile_loop_is_named) {
  write_file("t.c",
             "#include <stdio.h>\n"
             "float A[64][64], C[64][64];\n"
             "void f(void) {\n"
             "#pragma cgpredict kernel name(k) dims(2) block(32,32) shared(A) tile(32)\n"
             "  for (int i = 0; i < 64; i++)\n"
             "    for (int j = 0; j < 64; j++) {\n"
             "      float s = A[j][i];\n"
             "      for (int kk = 0; kk < 64; kk += 32)\n"
             "        for (int k = kk; k < kk + 32; k++) s += A[i][k];\n"
             "      C[i][j] = s;\n"
             "    }\n"
             "}\n"
             "int main(void) { f(); printf(\"%g\\n\", C[1][2]); return 0; }\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./t"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *w = cJSON_GetObjectItem(kernel_named(r, "k"), "warnings");
  char *text = cJSON_PrintUnformatted(w);
  cr_expect(strstr(text, "line 7: this access to shared array 'A' is outside the tile loop (line 8)"), "%s", text);
  free(text);
  cJSON_Delete(r);
}

/* The naive GEMM of the same sizes: its what-if tiling (docs/model.md 8c) cuts its k loop by the
   block's x (32) and keeps A and B in shared memory, C in a register. */
#define NAIVE_GEMM(decl, call) \
  "#include <stdio.h>\n" \
  "#define N 128\n" \
  "static float A[N][N], B[N][N], C[N][N];\n" decl \
  "static void gemm(void) {\n" \
  "#pragma cgpredict kernel name(gemm) dims(2) block(32,32)\n" \
  "  for (int i = 0; i < N; i++)\n" \
  "    for (int j = 0; j < N; j++) {\n" call \
  "      C[i][j] = 0;\n" \
  "      for (int k = 0; k < N; k++)\n" \
  "        C[i][j] += A[i][k] * B[k][j];\n" \
  "    }\n" \
  "}\n" \
  "int main(void) {\n" \
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (float)(i + j); B[i][j] = (float)(i - j); }\n" \
  "  gemm();\n" \
  "  printf(\"%g\\n\", C[3][5]);\n" \
  "  return 0;\n" \
  "}\n"
static const char *naive_src = NAIVE_GEMM("", "");

Test(e2e_tile, naive_gemm_gets_a_tiling_suggestion_from_its_own_trace) {
  cJSON *r = build_and_run("n", naive_src);
  cJSON *k = kernel_named(r, "gemm");
  cJSON *wi = cJSON_GetObjectItem(k, "tiling_whatif");
  cr_assert_not_null(wi);
  cr_expect_float_eq(num(wi, "loop_line"), 9, 1e-9);
  cr_expect_float_eq(num(wi, "tile"), 32, 1e-9);
  char *text = cJSON_PrintUnformatted(wi);
  cr_expect(strstr(text, "\"shared\":[\"A\",\"B\"]") && strstr(text, "\"registers\":[\"C\"]") &&
            strstr(text, "\"accumulated\":[\"C\"]"), "%s", text);
  free(text);
  /* the what-if's stream is the tiled kernel's: as gemm_tiled_copies_two_32x32_tiles... */
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  cJSON *st = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "analysis_tiled"), "h100-sxm5");
  cr_assert_not_null(st);
  cr_expect_float_eq(num(st, "smem_per_block"), 8192, 1e-9);
  cr_expect_float_eq(num(st, "smem_load_insts"), 8, 1e-9);
  cr_expect_float_eq(num(st, "sync_insts"), 8, 1e-9);
  cr_expect_float_eq(arr(st, "insts", 1), 8, 1e-9);                 /* C no longer loaded: a register */
  cr_expect_float_eq(arr(st, "smem_insts", 0), 4 * 8, 1e-9);
  cr_expect_float_eq(arr(st, "smem_insts", 1), 4 * 32 + 8, 1e-9);
  /* offered on each device as a suggestion of kind "tile", faster than the naive kernel */
  for (int d = 0; d < 2; d++) {
    cJSON *p = prediction(k, d ? "h100-sxm5" : "jetson-tk1"), *tile = suggestion(p, "tile");
    cr_assert_not_null(tile, "no tiling suggestion on device %d", d);
    cr_expect_lt(num(tile, "predicted_ms"), num(p, "time_ms"));
    cr_expect(strstr(cJSON_GetObjectItem(tile, "change")->valuestring, "shared(A, B) tile(32)"));
    cr_expect(strstr(cJSON_GetObjectItem(tile, "change")->valuestring, "accumulate C in a register"));
    cr_expect_null(strstr(cJSON_GetObjectItem(tile, "change")->valuestring, "keep"));
  }
  cJSON_Delete(r);
}

/* A value the tile loop only reads at one address (w[i] in the k loop) is held in a register by
   the tiled code, read once: the suggestion says to keep it there, and to accumulate only what is
   written (before: "accumulate C, w in a register"; Rodinia streamcluster's dist() was told to
   accumulate p1 and p2, the two points it reads). */
Test(e2e_tile, a_value_the_tile_loop_only_reads_is_kept_not_accumulated) {
  const char *src =
    "#include <stdio.h>\n"
    "#define N 128\n"
    "static float A[N][N], w[N], C[N][N];\n"
    "static void gemm(void) {\n"
    "#pragma cgpredict kernel name(gemm) dims(2) block(32,32)\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++) {\n"
    "      C[i][j] = 0;\n"
    "      for (int k = 0; k < N; k++)\n"
    "        C[i][j] += A[k][j] * w[i];\n"
    "    }\n"
    "}\n"
    "int main(void) {\n"
    "  for (int i = 0; i < N; i++) { w[i] = (float)i; for (int j = 0; j < N; j++) A[i][j] = (float)(i + j); }\n"
    "  gemm();\n"
    "  printf(\"%g\\n\", C[3][5]);\n"
    "  return 0;\n"
    "}\n";
cJSON *r = build_and_run("w", src);
  cJSON *k = kernel_named(r, "gemm");
  cJSON *tile = suggestion(prediction(k, "jetson-tk1"), "tile");
  cr_assert_not_null(tile, "no tiling suggestion");
  const char *change = cJSON_GetObjectItem(tile, "change")->valuestring;
  cr_expect(strstr(change, "accumulate C in a register") &&
            strstr(change, "keep w in a register, loaded once before the tile loop"), "%s", change);
  cJSON_Delete(r);
}

/* SYRK tiled with its tiles padded by a float a row (shared(A pad(1))): lanes 33 words apart,
   conflict-free, read a float a load (a padded row is not 16-byte aligned); and the unpadded
   kernel is offered that padding, faster, on both devices. */
Test(e2e_tile, a_padded_column_tile_is_conflict_free_and_padding_is_suggested) {
  char *padded = strdup(tiled_src), *p = strstr(padded, "shared(A) tile(32)");
  cr_assert_not_null(p);
  char src[8192];
  snprintf(src, sizeof src, "%.*sshared(A pad(1)) tile(32)%s", (int)(p - padded), padded, p + strlen("shared(A) tile(32)"));
  free(padded);
  cJSON *r = build_and_run("p", src);
  cJSON *k = kernel_named(r, "syrk_tiled");
  cJSON *st = stats(k, "h100-sxm5");
  cr_expect_float_eq(num(st, "smem_per_block"), 2 * 33 * 32 * 4, 1e-9);
  cr_expect_float_eq(arr(st, "smem_insts", 2), 4 * 32, 1e-9);        /* the column tile, a float a load */
  cr_expect_float_eq(arr(st, "smem_conflict", 2), 1, 1e-9);
  cr_expect_float_eq(arr(st, "smem_insts", 0), 4 * 32, 1e-9);
  cr_expect_null(cJSON_GetObjectItem(k, "tiling_whatif"));             /* nothing left to pad */
  cJSON_Delete(r);
  r = run_tiled();
  k = kernel_named(r, "syrk_tiled");
  cJSON *wi = cJSON_GetObjectItem(k, "tiling_whatif");
  cr_assert_not_null(wi);
  cr_expect_str_eq(cJSON_GetObjectItem(wi, "kind")->valuestring, "pad");
  for (int d = 0; d < 2; d++) {
    cJSON *pr = prediction(k, d ? "h100-sxm5" : "jetson-tk1"), *pad = suggestion(pr, "pad");
    cr_assert_not_null(pad, "no padding suggestion on device %d", d);
    cr_expect_lt(num(pad, "predicted_ms"), num(pr, "time_ms"));
    cr_expect(strstr(cJSON_GetObjectItem(pad, "change")->valuestring, "shared(A pad(1))"));
  }
  cJSON_Delete(r);
}

/* MachSuite's blocked GEMM as a new user marks it (loopi, one thread per row, an inner loop of 8
   iterations updating prod): no tiling by 32 of a loop of 8, and prod, which the loop writes, is
   no read-only tile. */
Test(e2e_tile, no_tiling_suggestion_for_a_loop_shorter_than_the_tile) {
  write_file("b.c",
             "#include <stdio.h>\n"
             "#define R 64\n"
             "static double m1[R * R], m2[R * R], prod[R * R];\n"
             "static void bb(int jj, int kk) {\n"
             "#pragma cgpredict kernel name(rows) dims(1) block(64)\n"
             "  for (int i = 0; i < R; ++i)\n"
             "    for (int k = 0; k < 8; ++k) {\n"
             "      double t = m1[i * R + k + kk];\n"
             "      for (int j = 0; j < 8; ++j) prod[i * R + j + jj] += t * m2[(k + kk) * R + j + jj];\n"
             "    }\n"
             "}\n"
             "int main(void) {\n"
             "  for (int x = 0; x < R * R; x++) { m1[x] = x % 7; m2[x] = x % 5; }\n"
             "  for (int jj = 0; jj < R; jj += 8) for (int kk = 0; kk < R; kk += 8) bb(jj, kk);\n"
             "  printf(\"%g\\n\", prod[77]);\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o b b.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1,h100-sxm5 CGPREDICT_REPORT=b.json ./b"), 0, "%s",
               read_file("err.txt"));
  cJSON *r = report("b.json");
  cJSON *k = kernel_named(r, "rows");
  cr_expect_null(cJSON_GetObjectItem(k, "tiling_whatif"));
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  cr_expect_null(cJSON_GetObjectItem(s, "analysis_tiled"));
  cJSON_Delete(r);
}

/* A loop over one tile of up to RT_TILE_WHOLE (256) iterations is traced whole, though leaf loops
   are otherwise sampled after their first 64 iterations (docs/pipeline.md, "Sampling inside a
   thread"): GEMM tiled by 128 at N = 256, in the default mode, skips no iteration, and its tile
   tile statistics those of every iteration: 2 tiles, 4 barriers a warp. */
Test(e2e_tile, a_loop_over_one_tile_of_128_is_traced_whole) {
  write_file("t128.c",
             "#include <stdio.h>\n"
             "#define N 256\n"
             "static float A[N][N], B[N][N], C[N][N];\n"
             "int main(void) {\n"
             "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (float)(i + j); B[i][j] = (float)(i - j); }\n"
             "#pragma cgpredict kernel name(gemm128) dims(2) block(32,8) shared(A, B) tile(128)\n"
             "  for (int i = 0; i < N; i++)\n"
             "    for (int j = 0; j < N; j++) {\n"
             "      float s = 0;\n"
             "      for (int kk = 0; kk < N; kk += 128)\n"
             "        for (int k = kk; k < kk + 128; k++) s += A[i][k] * B[k][j];\n"
             "      C[i][j] = s;\n"
             "    }\n"
             "  printf(\"%g\\n\", C[3][5]);\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o t128 t128.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=t128.json ./t128"), 0, "%s",
               read_file("err.txt"));
  cJSON *r = report("t128.json");
  cJSON *k = kernel_named(r, "gemm128");
  cr_expect_null(cJSON_GetObjectItem(k, "loop_iterations_skipped"), "the loop over one tile was sampled");
  cJSON *st = stats(k, "jetson-tk1");
  cr_assert_not_null(st);
  cr_expect_float_eq(num(st, "sync_insts"), 4, 1e-9);
  /* A: the block's 8 rows by 128 floats; B: 128 rows by its 32 columns */
  cr_expect_float_eq(num(st, "smem_per_block"), 8 * 128 * 4 + 128 * 32 * 4, 1e-9, "%g", num(st, "smem_per_block"));
  cJSON_Delete(r);
}

/* An array an untraced call of the body is given (NPB EP's vranlc(2*NK, &t1, A, x-1), from another
   file, refilling the global x each iteration) may be written by it: no shared-memory tile for it,
   and the call's warning names it. Before: "tile the loop by 32 with x in shared memory". */
Test(e2e_tile, an_array_an_untraced_call_is_given_is_no_tile) {
  write_file("other.c", "void touch(float *p) { p[0] += 0.0f; }\n");
  write_file("g.c", NAIVE_GEMM("void touch(float *p);\n", "      touch(&B[0][0]);\n"));
  cr_assert_eq(sh("%s cc -O2 -o g g.c other.c 2>build.txt && CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 "
                  "CGPREDICT_REPORT=g.json ./g", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("build.txt"), "call to touch inside the thread body") &&
            strstr(read_file("build.txt"), "it is given B, which it may write"), "%s", read_file("build.txt"));
  cJSON *r = cJSON_Parse(read_file("g.json"));
  cr_assert_not_null(r);
  cJSON *wi = cJSON_GetObjectItem(kernel_named(r, "gemm"), "tiling_whatif");
  cr_assert_not_null(wi, "A is still a tile");
  char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(wi, "shared"));
  cr_expect_str_eq(text, "[\"A\"]");
  free(text);
  cJSON_Delete(r);
}
