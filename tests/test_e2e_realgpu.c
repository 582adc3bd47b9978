/* End-to-end: what a real GPU adds (docs/model.md sections 4b and 7b) reaches the report through the
   runtime: the L2 the analyzer simulates holds l2_keep_bytes, and every prediction carries its
   launches and the host's cost of synchronising after each. */
#include "e2e_util.h"

/* Two launches of an element-wise kernel over 32 KB in and 32 KB out (TK1: 64-byte lines). */
static const char *twice_src =
  "#include <stdio.h>\n"
  "#define N 8192\n"
  "static float a[N], c[N];\n"
  "static void sweep(void) {\n"
  "#pragma cgpredict kernel name(sweep) block(256)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    c[i] = a[i] * 3.0f;\n"
  "}\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++) a[i] = (float)(i % 13);\n"
  "  sweep();\n"
  "  sweep();\n"
  "  printf(\"%.1f\\n\", c[N - 1]);\n"
  "  return 0;\n"
  "}\n";

TestSuite(e2e_realgpu, .init = setup, .fini = teardown, .timeout = 300);

/* devs/kept.json: the TK1 keeping 32 KB of its 128 KB L2 for a kernel's data, and paying 10 us on
   the host per synchronised launch. */
static void make_kept_device(void) {
  cr_assert_eq(sh("mkdir -p devs && sed -e 's/\"name\": \"jetson-tk1\"/\"name\": \"kept\"/' "
                  "-e 's/\"l2_bytes\": 131072,/\"l2_bytes\": 131072, \"l2_keep_bytes\": 32768, "
                  "\"host_sync_launch_s\": 1e-05,/' "
                  "-e 's/\"sources\": {/\"sources\": {\"l2_keep_bytes\": \"a test value\", "
                  "\"host_sync_launch_s\": \"a test value\",/' %s/devices/jetson-tk1.json > devs/kept.json && "
                  "cp %s/devices/jetson-tk1.json devs/",
                  CGP_SOURCE_DIR, CGP_SOURCE_DIR), 0);
}

Test(e2e_realgpu, the_second_launch_finds_only_what_the_l2_keeps) {
  /* a[] is 512 lines, c[] 512 more: 64 KB fit the TK1's 128 KB, so the second launch hits on all of
     a[] (half of the two launches' loads: 0.5); they do not fit 32 KB, and an LRU swept by a
     64 KB cycle keeps none of it (0). */
  make_kept_device();
  write_file("t.c", twice_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,kept "
                  "CGPREDICT_REPORT=r.json ./t"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "sweep");
  cr_assert_eq(num(k, "launches"), 2);
  cJSON *by = cJSON_GetObjectItem(site(k, 7, "load", "a"), "by_device");
  cr_expect_float_eq(num(cJSON_GetObjectItem(by, "jetson-tk1"), "l2_hit_rate"), 0.5, 1e-9);
  cr_expect_float_eq(num(cJSON_GetObjectItem(by, "kept"), "l2_hit_rate"), 0.0, 1e-9);
  cJSON_Delete(r);
}

Test(e2e_realgpu, predictions_carry_launches_and_the_host_sync_cost) {
  /* 2 launches x 10 us = 0.02 ms on the device that states it, 0 on the TK1; never in time_ms */
  make_kept_device();
  write_file("t.c", twice_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,kept "
                  "CGPREDICT_REPORT=r.json ./t"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "sweep");
  cJSON *kept = prediction(k, "kept"), *tk1 = prediction(k, "jetson-tk1");
  cr_expect_float_eq(num(kept, "launches"), 2, 1e-12);
  cr_expect_float_eq(num(kept, "host_sync_ms"), 0.02, 1e-12);
  cr_expect_float_eq(num(tk1, "host_sync_ms"), 0.0, 0);
  cJSON_Delete(r);
}
