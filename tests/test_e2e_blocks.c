/* End-to-end: `cgpredict blocks` (docs/model.md section 8d): one run per candidate shape, the
   times per shape in the report's block_whatif, the fastest offered where it gains; a tiled
   kernel keeps its tile's shape. */
#include "e2e_util.h"

TestSuite(e2e_blocks, .init = setup, .fini = teardown, .timeout = 600);

/* A transpose-like 2-D kernel in 8x8 blocks: a warp spans four rows of eight, four segments of
   each array per load or store; blocks 32 wide make each row a warp's. */
static const char *narrow_src =
  "#include <stdio.h>\n"
  "#define N 512\n"
  "static float a[N][N], c[N][N];\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) a[i][j] = (float)((i * 7 + j) % 11);\n"
  "#pragma cgpredict kernel name(narrow) dims(2) block(8,8)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) c[i][j] = a[i][j] * 2.0f + 1.0f;\n"
  "  printf(\"%.1f\\n\", c[N - 1][N - 1]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_blocks, the_fastest_candidate_shape_is_offered_with_its_time) {
  write_file("n.c", narrow_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o n n.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json %s blocks -- ./n", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), "15.0\n");               /* the baseline run's own output */
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "narrow");
  /* the report is the baseline's: its own 8x8 */
  cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "block"), 0)->valuedouble, 8);
  /* the eight 2-D candidates, each with a time */
  cJSON *wi = cJSON_GetObjectItem(k, "block_whatif"), *w, *best = NULL;
  cr_assert_eq(cJSON_GetArraySize(wi), 8);
  double best_ms = 0;
  cJSON_ArrayForEach(w, wi) {
    double ms = num(cJSON_GetObjectItem(w, "time_ms"), "jetson-tk1");
    if (!best || ms < best_ms) { best = w; best_ms = ms; }
  }
  /* coalesced rows beat the 8-wide blocks, and the suggestion names the fastest */
  cJSON *p = prediction(k, "jetson-tk1");
  cr_assert_lt(best_ms, 0.99 * num(p, "time_ms"));
  cJSON *sug = item_where(p, "suggestions", "kind", "block");
  cr_expect_float_eq(num(sug, "predicted_ms"), best_ms, 1e-12);
  char want[64];
  snprintf(want, sizeof want, "block(%.0f,%.0f)", cJSON_GetArrayItem(cJSON_GetObjectItem(best, "block"), 0)->valuedouble,
           cJSON_GetArrayItem(cJSON_GetObjectItem(best, "block"), 1)->valuedouble);
  cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(sug, "change")), want), "%s",
            cJSON_GetStringValue(cJSON_GetObjectItem(sug, "change")));
  cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(best, "block"), 0)->valuedouble >= 32, 1);
  /* `cgpredict report` keeps it: the suggestion comes from block_whatif, not from the run */
  cr_assert_eq(sh("%s report r.json --json > again.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cJSON *again = report("again.json");
  item_where(prediction(kernel_named(again, "narrow"), "jetson-tk1"), "suggestions", "kind", "block");
  cJSON_Delete(again);
  cJSON_Delete(r);
}

Test(e2e_blocks, a_tiled_kernel_keeps_its_tiles_shape) {
  cr_assert_eq(sh("%s build -- cc -O2 -DNI=256 -DNJ=256 -DNK=256 -o t %s/benchmarks/polybench/gemm_tiled.c", CGP_DRIVER,
                  CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json %s blocks -- ./t", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0);
  cr_expect_null(cJSON_GetObjectItem(k, "block_whatif"));
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(prediction(k, "jetson-tk1"), "suggestions"))
    cr_expect_str_neq(cJSON_GetStringValue(cJSON_GetObjectItem(s, "kind")), "block");
  cJSON_Delete(r);
}
