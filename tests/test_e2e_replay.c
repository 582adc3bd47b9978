/* End-to-end: which replayed predictions are "from partial batches" (docs/pipeline.md, "One trace,
   every device"). A device whose batch is larger than half the traced window has its batches cut
   at the window's end, which matters only where the window does not hold the kernel's grid: a
   kernel whose grid the window holds is replayed exactly and is not marked (before, every kernel
   of the device was, and the note advised CGPREDICT_DEVICE=all, 26 times slower). */
#include "e2e_util.h"

TestSuite(e2e_replay, .init = setup, .fini = teardown, .timeout = 300);

static const char *two_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define SMALL 2048\n"
  "#define BIG (1 << 20)\n"
  "int main(void) {\n"
  "  float *a = malloc(BIG * sizeof *a), *c = malloc(BIG * sizeof *c);\n"
  "  for (int i = 0; i < BIG; i++) a[i] = (float)(i % 9);\n"
  "#pragma cgpredict kernel name(small)\n"
  "  for (int i = 0; i < SMALL; i++) c[i] = a[i] * 2.0f;\n"
  "#pragma cgpredict kernel name(big)\n"
  "  for (int i = 0; i < BIG; i++) c[i] = a[i] + 1.0f;\n"
  "  printf(\"%.1f %.1f\\n\", c[SMALL - 1], c[BIG - 1]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_replay, only_a_kernel_whose_grid_the_window_did_not_hold_is_from_partial_batches) {
  write_file("t.c", two_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  /* the TK1's window: two batches of 8 blocks of 256 threads, 4096 threads */
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./t"), 0, "%s",
               read_file("err.txt"));
  cr_assert_eq(sh("%s report r.json --device jetson-tk1,h100-sxm5 --json > h.json", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cJSON *r = report("h.json");
  cJSON *small = prediction(kernel_named(r, "small"), "h100-sxm5"), *big = prediction(kernel_named(r, "big"), "h100-sxm5");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(small, "replayed")));
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(small, "partial_batches")), "2048 threads: the window holds them");
  cr_expect_null(cJSON_GetObjectItem(small, "replay_note"));
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(big, "partial_batches")));
  cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(big, "replay_note")), "CGPREDICT_DEVICE naming h100-sxm5"));
  cr_expect_null(cJSON_GetObjectItem(kernel_named(r, "big"), "replay_partial"));     /* internal, not kept */
  /* the small kernel replayed equals a run that analysed the H100 */
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1,h100-sxm5 CGPREDICT_REPORT=live.json ./t"), 0, "%s",
               read_file("err.txt"));
  cJSON *live = report("live.json");
  cr_expect_float_eq(num(small, "time_ms"), num(prediction(kernel_named(live, "small"), "h100-sxm5"), "time_ms"),
                     1e-9 * num(small, "time_ms"));
  cJSON_Delete(live);
  cJSON_Delete(r);
}
