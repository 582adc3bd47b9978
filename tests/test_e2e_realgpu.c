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

/* devs/kept.json: the TK1 keeping 32 KB of its 128 KB L2 for a kernel's data, paying 10 us on the
   host per synchronised launch, and a million cycles (1.17 ms) per launch on the GPU. */
static void make_kept_device(void) {
  cr_assert_eq(sh("mkdir -p devs && sed -e 's/\"name\": \"jetson-tk1\"/\"name\": \"kept\"/' "
                  "-e 's/\"l2_bytes\": 131072,/\"l2_bytes\": 131072, \"l2_keep_bytes\": 32768, "
                  "\"host_sync_launch_s\": 1e-05,/' "
                  "-e 's/\"launch_overhead_cycles\": 0,/\"launch_overhead_cycles\": 1000000,/' "
                  "-e 's/\"sources\": {/\"sources\": {\"l2_keep_bytes\": \"a test value\", "
                  "\"host_sync_launch_s\": \"a test value\",/' %s/devices/jetson-tk1.json > devs/kept.json && "
                  "cp %s/devices/jetson-tk1.json devs/",
                  CGP_SOURCE_DIR, CGP_SOURCE_DIR), 0);
}

/* twice_src built and run on the TK1 and devs/kept.json in sampling mode `mode`; its report. */
static cJSON *run_twice(const char *mode) {
  make_kept_device();
  write_file("t.c", twice_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=%s CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,kept "
                  "CGPREDICT_REPORT=r.json ./t", mode), 0, "%s", read_file("err.txt"));
  return report("r.json");
}

Test(e2e_realgpu, the_second_launch_finds_only_what_the_l2_keeps) {
  /* a[] is 512 lines, c[] 512 more: 64 KB fit the TK1's 128 KB, so the second launch hits on all of
     a[] (half of the two launches' loads: 0.5); they do not fit 32 KB, and an LRU swept by a
     64 KB cycle keeps none of it (0). */
  cJSON *r = run_twice("full");
  cJSON *k = kernel_named(r, "sweep");
  cr_assert_eq(num(k, "launches"), 2);
  cJSON *by = cJSON_GetObjectItem(site(k, 7, "load", "a"), "by_device");
  cr_expect_float_eq(num(cJSON_GetObjectItem(by, "jetson-tk1"), "l2_hit_rate"), 0.5, 1e-9);
  cr_expect_float_eq(num(cJSON_GetObjectItem(by, "kept"), "l2_hit_rate"), 0.0, 1e-9);
  cJSON_Delete(r);
}

Test(e2e_realgpu, predictions_carry_launches_and_the_host_sync_cost) {
  /* 2 launches x 10 us = 0.02 ms on the device that states it, 0 on the TK1; never in time_ms */
  cJSON *r = run_twice("run");
  cJSON *k = kernel_named(r, "sweep");
  cJSON *kept = prediction(k, "kept"), *tk1 = prediction(k, "jetson-tk1");
  cr_expect_float_eq(num(kept, "launches"), 2, 1e-12);
  cr_expect_float_eq(num(kept, "host_sync_ms"), 0.02, 1e-12);
  cr_expect_float_eq(num(tk1, "host_sync_ms"), 0.0, 0);
  /* what each device's file leaves out: the TK1 all four, devs/kept.json only the L2 bandwidths */
  const char *tk1_lacks[] = {"launch floor", "L2 read bandwidth", "L2 write bandwidth", "host synchronisation cost"};
  cJSON *nm = cJSON_GetObjectItem(tk1, "not_modelled"), *km = cJSON_GetObjectItem(kept, "not_modelled");
  cr_assert_eq(cJSON_GetArraySize(nm), 4);
  for (int i = 0; i < 4; i++) cr_expect_str_eq(cJSON_GetArrayItem(nm, i)->valuestring, tk1_lacks[i]);
  cr_assert_eq(cJSON_GetArraySize(km), 2);
  cr_expect_str_eq(cJSON_GetArrayItem(km, 0)->valuestring, "L2 read bandwidth");
  cJSON_Delete(r);
  /* the summary says both: the host's cost apart, and the launch floor the TK1 does not model */
  cr_assert_eq(sh("CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,kept CGPREDICT_REPORT=r.json ./t"), 0);
  const char *err = read_file("err.txt");
  cr_expect_not_null(strstr(err, "host, kept: a program that synchronises after every launch (cudaDeviceSynchronize) "
                                 "adds 0.020 ms (2 launches x 10.00 us), not in the times above"), "%s", err);
  cr_expect_not_null(strstr(err, "note: on kept the launch's fixed cost binds"), "%s", err);
  cr_expect_not_null(strstr(err, "jetson-tk1 models no launch cost (none measured)"), "%s", err);
  cr_expect_not_null(strstr(err, "note, jetson-tk1: its file has no measured launch floor, host synchronisation cost "
                                 "(benchmarks/microbench has not run on it)"), "%s", err);
}

/* ---- The sample follows the GPU's block order (docs/model.md section 4c) ---- */

/* The same element-wise kernel ascending, then descending, over 1 MB in and 1 MB out: 8x the
   TK1's 128 KB L2. On a GPU both start at block 0, where the L2 holds nothing of theirs (the
   ascending sweep ends on the arrays' last lines, the descending one starts its block 0 on the
   first): the same misses, the same time. Traced in C order, the descending sweep began on the
   lines the ascending one had just left (and in a sampled run on those of its windows). */
static const char *updown_src =
  "#include <stdio.h>\n"
  "#define N (1 << 18)\n"
  "static float b[N], c[N];\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++) b[i] = (float)(i % 7);\n"
  "#pragma cgpredict kernel name(up)\n"
  "  for (int i = 0; i < N; i++) c[i] = b[i] * 3.0f;\n"
  "#pragma cgpredict kernel name(down)\n"
  "  for (int i = N - 1; i >= 0; i--) c[i] = b[i] * 3.0f;\n"
  "  printf(\"%.1f\\n\", c[5]);\n"
  "  return 0;\n"
  "}\n";

static void expect_up_equals_down(const char *mode, const char *memory_mb) {
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=%s CGPREDICT_MEMORY_MB=%s CGPREDICT_REPORT=r.json ./ud",
                  mode, memory_mb), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *up = kernel_named(r, "up"), *down = kernel_named(r, "down");
  double tu = num(prediction(up, "jetson-tk1"), "time_ms"), td = num(prediction(down, "jetson-tk1"), "time_ms");
  cr_expect(fabs(td - tu) <= 0.05 * tu, "%s, %s MB: down %g ms against up %g ms", mode, memory_mb, td, tu);
  for (int line = 7; line <= 9; line += 2) {
    cJSON *k = line == 7 ? up : down;
    cr_expect_str_eq(cJSON_GetObjectItem(site(k, line, "load", "b"), "class")->valuestring, "coalesced");
    cr_expect_float_eq(num(site(k, line, "load", "b"), "l2_hit_rate"), 0.0, 1e-9, "%s, line %d", mode, line);
  }
  cJSON_Delete(r);
}

Test(e2e_realgpu, a_descending_sweep_after_an_ascending_one_is_predicted_alike) {
  write_file("ud.c", updown_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o ud ud.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *modes[] = {"run", "skip", "full"};
  for (int m = 0; m < 3; m++) {
    expect_up_equals_down(modes[m], "64");
    expect_up_equals_down(modes[m], "1");     /* the descending sweep keeps the GPU's first blocks */
  }
}

/* Twenty launches, each reading the plane the one before it read and the next one (3DCONV's
   pattern): 32 KB planes, a 128 KB L2 on the TK1. Launches 0, 1, 3, 7 and 15 are analysed; each
   analysed launch finds its first plane in the L2 only if the launch just before it went through
   the caches: the one before an analysed launch is traced for them (docs/model.md section 4c). */
static const char *planes_src =
  "#include <stdio.h>\n"
  "#define P 8192\n"
  "static float a[21][P], b[P];\n"
  "static void step(int t) {\n"
  "#pragma cgpredict kernel name(planes)\n"
  "  for (int i = 0; i < P; i++)\n"
  "    b[i] = a[t][i] + a[t + 1][i];\n"
  "}\n"
  "int main(void) {\n"
  "  for (int t = 0; t < 21; t++) for (int i = 0; i < P; i++) a[t][i] = (float)(t + i % 5);\n"
  "  for (int t = 0; t < 20; t++) step(t);\n"
  "  printf(\"%.1f\\n\", b[3]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_realgpu, an_analysed_launch_finds_what_the_launch_before_it_left) {
  write_file("p.c", planes_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  double hit[2][2], ms[2];
  const char *modes[] = {"full", "run"};
  for (int m = 0; m < 2; m++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r.json ./p", modes[m]), 0, "%s",
                 read_file("err.txt"));
    cJSON *r = report("r.json");
    cJSON *k = kernel_named(r, "planes");
    cJSON *first = NULL, *second = NULL, *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(k, "memory"))
      if (strcmp(cJSON_GetObjectItem(s, "kind")->valuestring, "load") == 0) {
        if (!first) first = s;
        else if (!second) second = s;
      }
    cr_assert(first && second);
    hit[m][0] = num(first, "l2_hit_rate");
    hit[m][1] = num(second, "l2_hit_rate");
    ms[m] = num(prediction(k, "jetson-tk1"), "time_ms");
    cJSON_Delete(r);
  }
  /* full: a[t] hits in 19 launches of 20 (0.95), a[t + 1] in none. run: a site's rate is over the
     launches analysed, 0, 1, 3, 7 (docs/model.md 5b; then 31, past the 20): a[t] hits in all but
     launch 0 (3 / 4); without the launch before each traced, launches 3 and 7 found nothing
     (1 / 4) */
  cr_expect_float_eq(hit[0][0], 0.95, 1e-9);
  cr_expect_float_eq(hit[0][1], 0.0, 1e-9);
  cr_expect_float_eq(hit[1][0], 3.0 / 4.0, 1e-9, "%g", hit[1][0]);
  cr_expect_float_eq(hit[1][1], 0.0, 1e-9);
  cr_expect(fabs(ms[1] - ms[0]) <= 0.03 * ms[0], "run %g ms, full %g ms", ms[1], ms[0]);
}

/* A sampled launch cut by the memory budget in its first window stood for that window's region
   only: the windows that never opened took their blocks with them (a 2048x2048 grid of 4096
   blocks predicted as 1056, 4 times too fast). The last window open now stands for the rest of the
   grid, as `full` mode's does: cut at 1 MB or not, the same grid (before: 4224 of 16384 blocks,
   0.0070 ms against 0.0191), and the time within 25 % (measured +15 %: the few warps of a 1 MB
   sample see colder caches). */
static const char *wide_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N 2048\n"
  "int main(void) {\n"
  "  float (*a)[N] = malloc(sizeof(float[N][N])), (*c)[N] = malloc(sizeof(float[N][N]));\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) a[i][j] = (float)((i + j) % 5);\n"
  "#pragma cgpredict kernel name(wide) dims(2)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) c[i][j] = a[i][j] * 2.0f + a[j][i];\n"
  "  printf(\"%.1f\\n\", c[N - 1][N - 2]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_realgpu, a_launch_cut_by_the_budget_still_stands_for_its_whole_grid) {
  write_file("w.c", wide_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o w w.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  double t[2];
  for (int c = 0; c < 2; c++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_MEMORY_MB=%d CGPREDICT_DEVICE=jetson-tk1,h100-sxm5 "
                    "CGPREDICT_REPORT=r%d.json ./w", c ? 1 : 1024, c), 0, "%s", read_file("err.txt"));
    cJSON *r = report(c ? "r1.json" : "r0.json");
    cJSON *k = kernel_named(r, "wide");
    cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(k, "partial")), c == 1, "run %d: partial as the budget says", c);
    cJSON *an = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0), "analysis");
    cr_expect_eq(num(cJSON_GetObjectItem(an, "h100-sxm5"), "blocks"), 2048 / 32 * (2048 / 8), "run %d", c);
    t[c] = num(prediction(k, "h100-sxm5"), "time_ms");
    cJSON_Delete(r);
  }
  cr_expect_float_eq(t[1], t[0], 0.25 * t[0], "cut %g ms, whole %g ms", t[1], t[0]);
}
