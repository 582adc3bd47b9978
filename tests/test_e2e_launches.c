/* End-to-end: the launches a sample stands for, recorded with their own grids (docs/model.md 4d).
   Ten launches of a 1-D kernel in blocks of 256 over n = 256 x (10 - launch) elements: grids of
   10, 9, ... 1 blocks, each block's work the same. Launches 0, 1, 3 and 7 are analysed (docs/model.md
   5b); launch 3 stands for launches 3 to 6 (7, 6, 5 and 4 blocks), launch 7 for 7 to 9 (3, 2, 1). */
#include "e2e_util.h"

TestSuite(e2e_launches, .init = setup, .fini = teardown, .timeout = 300);

/* A kernel's predicted time on the TK1. */
static double tk1_ms(cJSON *k) { return num(prediction(k, "jetson-tk1"), "time_ms"); }

/* Kernel `name`'s TK1 time in the default run (r[0]) within tol (a fraction) of `full`'s (r[1]). */
static void expect_like_full(cJSON *r[2], const char *name, double tol) {
  double run = tk1_ms(kernel_named(r[0], name)), full = tk1_ms(kernel_named(r[1], name));
  cr_expect(fabs(run - full) <= tol * full, "%s: run %g ms, full %g ms", name, run, full);
}

/* `src` run and in `full`: kernel `name`'s sample i traced fewer warps than its grid has, and its
   time is within tol of `full`'s. */
static void expect_sampled_like_full(const char *src, const char *name, int i, double tol) {
  cJSON *r[2];
  build_run_and_full_tk1(src, r);
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(kernel_named(r[0], name), "samples"), i);
  cr_assert_lt(num(s, "traced_warps"), num(s, "total_warps"), "the run sampled the grid");
  expect_like_full(r, name, tol);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

static const char *const SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "static void scale(int n, float *a) {\n"
  "#pragma cgpredict kernel name(scale) dims(1) block(256)\n"
  "  for (int i = 0; i < n; i++) a[i] = 2.0f * a[i];\n"
  "}\n"
  "int main(void) {\n"
  "  float *a = calloc(2560, sizeof *a);\n"
  "  for (int l = 0; l < 10; l++) scale(256 * (10 - l), a);\n"
  "  printf(\"%g\\n\", a[0]);\n"
  "  free(a);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_sample_stands_for_each_launch_at_its_own_grid) {
  write_file("k.c", SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o k k.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./k"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json"), *k = kernel_named(r, "scale"), *samples = cJSON_GetObjectItem(k, "samples");
  cr_assert_eq(cJSON_GetArraySize(samples), 4);
  const double want4[4][2] = {{7, 1}, {6, 1}, {5, 1}, {4, 1}}, want8[3][2] = {{3, 1}, {2, 1}, {1, 1}};
  cJSON *s4 = cJSON_GetArrayItem(samples, 2), *s8 = cJSON_GetArrayItem(samples, 3);
  cr_assert_eq(num(s4, "launch"), 3);
  cr_assert_eq(num(s8, "launch"), 7);
  cJSON *g4 = cJSON_GetObjectItem(s4, "launch_grids"), *g8 = cJSON_GetObjectItem(s8, "launch_grids");
  cr_assert_eq(cJSON_GetArraySize(g4), 4);
  cr_assert_eq(cJSON_GetArraySize(g8), 3);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++)
      cr_expect_eq(cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetArrayItem(g4, i), j)), want4[i][j], "[%d][%d]", i, j);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++)
      cr_expect_eq(cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetArrayItem(g8, i), j)), want8[i][j], "[%d][%d]", i, j);
  cr_expect_eq(num(s4, "weight"), 4);
  cJSON_Delete(r);
}

/* Every kernel's launch warms the caches for another kernel's analysed launch (docs/model.md 5b).
   A(t) writes plane t (16 KB: 16 blocks of 256 threads, a whole window on the TK1, so a traced
   launch of A is traced whole), B(t) right after reads it back: on the TK1 (128 KB of L2) B finds
   it there. B reads it with stride 1 up to launch 2 and stride 2 from launch 3 on, so B's
   analysed launches 1 and 3 differ and B is analysed densely (4, 5, 6 ...), while A's own
   schedule traces only launches 0, 1, 3, 7 and the ones before them (2, 6): A(4) and A(5) are
   traced only because B expects to analyse its next launch. Without that, B's launches 4 and 5
   found their plane missing; with it, `run` gives B's loads the hit rate `full` gives, and the
   same time within 3 %. */
static const char *const WARM_SRC =
  "#include <stdio.h>\n"
  "#define P 4096\n"
  "static float a[12][P], c[P];\n"
  "static void A(int t) {\n"
  "#pragma cgpredict kernel name(A)\n"
  "  for (int i = 0; i < P; i++) a[t][i] = (float)(t + i);\n"
  "}\n"
  "static void B(int t, int s) {\n"
  "#pragma cgpredict kernel name(B)\n"
  "  for (int i = 0; i < P / 2; i++) c[i] += a[t][i * s];\n"
  "}\n"
  "int main(void) {\n"
  "  for (int t = 0; t < 12; t++) { A(t); B(t, t < 3 ? 1 : 2); }\n"
  "  printf(\"%g\\n\", c[7]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, another_kernels_launch_warms_the_l2_for_an_analysed_one) {
  write_file("w.c", WARM_SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o w w.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  double hit[2], ms[2];
  const char *modes[] = {"full", "run"};
  for (int m = 0; m < 2; m++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r.json ./w", modes[m]), 0, "%s",
                 read_file("err.txt"));
    cJSON *r = report("r.json"), *k = kernel_named(r, "B"), *s;
    hit[m] = -1;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(k, "memory"))
      if (!strcmp(cJSON_GetObjectItem(s, "kind")->valuestring, "load")) hit[m] = num(s, "l2_hit_rate");
    ms[m] = tk1_ms(k);
    if (m == 1) {
      cJSON *samples = cJSON_GetObjectItem(k, "samples");
      cr_expect_eq(num(cJSON_GetArrayItem(samples, 3), "launch"), 4, "B is analysed densely from launch 3");
      cr_expect_eq(num(cJSON_GetArrayItem(samples, 4), "launch"), 5);
    }
    cJSON_Delete(r);
  }
  cr_expect_float_eq(hit[1], hit[0], 0.02, "run %g, full %g", hit[1], hit[0]);
  cr_expect(fabs(ms[1] - ms[0]) <= 0.03 * ms[0], "run %g ms, full %g ms", ms[1], ms[0]);
}

/* A launch stops tracing once three windows in a row are alike after its L2 turned over
   (docs/pipeline.md, "Sampling"). `scale` over 1024 blocks of 256 on the TK1 (windows of 16 blocks
   at 0, 32, 64, 128 ... 512), 2 KB of new lines a block: the TK1's 128 KB are taken in by the
   window at 64, which agrees with the one at 32, and the one at 128 agrees with it: it stands for
   the rest; `full` traces all 64 windows, and the time is the same within 2 %. `tri`'s thread i
   sums i / 256 + 1 elements: its per-warp work grows with the block, no window agrees with the one
   before it, and all six are traced. */
static const char *const STOP_SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N (256 * 1024)\n"
  "static void scale(float *b, const float *a) {\n"
  "#pragma cgpredict kernel name(scale) dims(1) block(256)\n"
  "  for (int i = 0; i < N; i++) b[i] = 3.0f * a[i];\n"
  "}\n"
  "static void tri(float *b, const float *a) {\n"
  "#pragma cgpredict kernel name(tri) dims(1) block(256)\n"
  "  for (int i = 0; i < N; i++) {\n"
  "    float s = 0;\n"
  "    for (int j = 0; j <= i / 256; j++) s += a[j];\n"
  "    b[i] = s;\n"
  "  }\n"
  "}\n"
  "int main(void) {\n"
  "  float *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);\n"
  "  for (int i = 0; i < N; i++) a[i] = (float)(i % 7);\n"
  "  scale(b, a);\n"
  "  tri(b, a);\n"
  "  printf(\"%g\\n\", b[N - 1]);\n"
  "  free(a);\n"
  "  free(b);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_launch_stops_tracing_once_a_window_agrees_with_the_ones_before) {
  write_file("s.c", STOP_SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o s s.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  double ms[2][2];
  const char *modes[] = {"full", "run"};
  for (int m = 0; m < 2; m++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r.json ./s",
                    modes[m]), 0, "%s", read_file("err.txt"));
    cJSON *r = report("r.json");
    const char *names[2] = {"scale", "tri"};
    for (int n = 0; n < 2; n++) {
      cJSON *k = kernel_named(r, names[n]), *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
      ms[n][m] = tk1_ms(k);
      const char *stop = cJSON_GetStringValue(cJSON_GetObjectItem(s, "stop"));
      cr_assert(stop, "%s: the sample says why it stopped", names[n]);
      if (m == 0) {
        cr_expect_str_eq(stop, "grid", "%s: full traces the grid", names[n]);
        cr_expect_eq(num(s, "windows"), 64, "%s: 1024 blocks in windows of 16", names[n]);
      } else if (n == 0) {
        cr_expect_str_eq(stop, "converged");
        cr_expect_eq(num(s, "windows"), 4, "windows 0, 32, 64 and 128");
        cr_expect_eq(num(s, "traced_warps"), (16 + 8 + 8 + 8) * 8,
                     "counted: the first window's 16 blocks, the second batch of 8 of the others, 8 warps a block");
      } else {
        cr_expect_str_eq(stop, "grid", "tri's windows never agree");
        cr_expect_eq(num(s, "windows"), 10, "windows at 0, 32, 64 and 128, then every 128 (rt_window_spacing)");
      }
    }
    cJSON_Delete(r);
  }
  cr_expect(fabs(ms[0][1] - ms[0][0]) <= 0.02 * ms[0][0], "scale: run %g ms, full %g ms", ms[0][1], ms[0][0]);
  cr_expect(fabs(ms[1][1] - ms[1][0]) <= 0.02 * ms[1][0], "tri: run %g ms, full %g ms", ms[1][1], ms[1][0]);
}

/* The first row of blocks stands only for itself in the test (docs/pipeline.md, "Sampling"): a
   stencil over 8190 x 126 threads (loops from 1) in 32 x 8 blocks on the TK1 has 256 blocks a row,
   so windows 0, 32, 64 and 128 lie in the first row, whose blocks have 7 warps (thread row 0 is
   outside the loop) where the rest have 8. Converging there made 7 warps a block stand for the
   grid (+2.3 % against `full`); past it, the windows at 256, 512 and 1024 are alike and the time
   is `full`'s within 0.5 %, as with every window traced (CGPREDICT_CONVERGE=0). The x bound is
   known only at run time, so the launch's windows are two batches (rt_row_blocks: no row known
   before the launch). */
static const char *const ROW_SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define NX 8192\n"
  "#define NY 128\n"
  "static void sten(float (*b)[NX], float (*a)[NX], int nx) {\n"
  "#pragma cgpredict kernel name(wide) dims(2) block(32,8)\n"
  "  for (int i = 1; i < NY - 1; i++)\n"
  "    for (int j = 1; j < nx - 1; j++)\n"
  "      b[i][j] = 0.2f * (a[i][j] + a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);\n"
  "}\n"
  "int main(int argc, char **argv) {\n"
  "  (void)argv;\n"
  "  float (*a)[NX] = calloc(NY, sizeof *a), (*b)[NX] = calloc(NY, sizeof *b);\n"
  "  for (int i = 0; i < NY; i++) for (int j = 0; j < NX; j++) a[i][j] = (float)((i * 7 + j) % 13);\n"
  "  sten(b, a, NX + argc - 1);\n"
  "  printf(\"%g\\n\", b[NY / 2][NX / 2]);\n"
  "  free(a);\n"
  "  free(b);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_window_in_the_grids_first_row_of_blocks_does_not_stop_the_trace) {
  write_file("w.c", ROW_SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o w w.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *runs[3] = {"CGPREDICT_SAMPLE=full", "CGPREDICT_SAMPLE=run", "CGPREDICT_SAMPLE=run CGPREDICT_CONVERGE=0"};
  double ms[3];
  for (int m = 0; m < 3; m++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 %s CGPREDICT_REPORT=r.json ./w", runs[m]), 0, "%s",
                 read_file("err.txt"));
    cJSON *r = report("r.json"), *k = kernel_named(r, "wide"), *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
    ms[m] = tk1_ms(k);
    if (m == 1) {
      cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s, "stop")), "converged");
      cr_expect_eq(num(s, "windows"), 7, "windows 0, 32, 64, 128 (the first row), 256, 512 and 1024");
      /* warps with an active thread: 256 blocks a row x (7 + 14 x 8 + 7) = 32256; 28672 (7 a block)
         when the first row stood for the grid */
      double warps = num(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "analysis"), "jetson-tk1"), "total_warps");
      cr_expect(fabs(warps - 32256) <= 0.01 * 32256, "active warps %g", warps);
    }
    cJSON_Delete(r);
  }
  cr_expect(fabs(ms[1] - ms[0]) <= 0.005 * ms[0], "run %g ms, full %g ms", ms[1], ms[0]);
  cr_expect(fabs(ms[1] - ms[2]) <= 1e-9 * ms[2], "run %g ms, every window %g ms", ms[1], ms[2]);
}

/* Three windows alike stop a launch only once its L2 has turned over (docs/pipeline.md,
   "Sampling"): PolyBench's LU at N = 512 on the TK1, whose kernel 2 misses on half its load
   transactions in the windows at blocks 32, 64 and 128 and on 56 % from block 256 on, where its
   blocks have brought the L2's 128 KB of new lines. Stopping at 128 made kernel 2 -27 % against
   every window traced (17.0 against 23.3 ms; `full` 22.2); now both are the same. */
Test(e2e_launches, windows_alike_stop_a_launch_only_once_the_l2_turned_over) {
  cr_assert_eq(sh("%s build -- cc -O2 -DN=512 -I%s/benchmarks/polybench -o lu %s/benchmarks/polybench/lu.c", CGP_DRIVER,
                  CGP_SOURCE_DIR, CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  double ms[2];
  for (int c = 0; c < 2; c++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_CONVERGE=%d CGPREDICT_REPORT=r.json ./lu", c), 0,
                 "%s", read_file("err.txt"));
    cJSON *r = report("r.json");
    ms[c] = tk1_ms(kernel_named(r, "lu_kernel2"));
    cJSON_Delete(r);
  }
  cr_expect(fabs(ms[1] - ms[0]) <= 0.02 * ms[0], "stopping %g ms, every window %g ms", ms[1], ms[0]);
}

/* A kernel settles only while its analysed launches keep as many lanes busy (docs/model.md 5b):
   PolyBench's LU at N = 150 on the TK1, whose kernel 1 is one block of 256 threads with the guard
   `j > k`, so each launch idles one more thread. Its launches 7 and 15 agreed in time (5 warps
   each, one more lane idle), so it settled and launch 15 stood for launches 15 to 62, of which
   those from 31 have a warp fewer: +4.22 % against `full`. Now launch 31 is analysed, differs,
   and the kernel is analysed densely from there. */
Test(e2e_launches, a_guard_idling_more_lanes_every_launch_keeps_the_schedule_from_settling) {
  cr_assert_eq(sh("%s build -- cc -O2 -DN=150 -I%s/benchmarks/polybench -o lu %s/benchmarks/polybench/lu.c", CGP_DRIVER,
                  CGP_SOURCE_DIR, CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  double ms[2];
  int has31 = 0;
  for (int f = 0; f < 2; f++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r.json ./lu",
                    f ? "full" : "run"), 0, "%s", read_file("err.txt"));
    cJSON *r = report("r.json"), *k = kernel_named(r, "lu_kernel1"), *s;
    ms[f] = tk1_ms(k);
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(k, "samples")) has31 |= !f && num(s, "launch") == 31;
    cJSON_Delete(r);
  }
  cr_expect(has31, "launch 31 not analysed: the schedule settled");
  cr_expect(fabs(ms[0] - ms[1]) <= 0.02 * ms[1], "sampled %g ms, full %g ms (%+.2f %%)", ms[0], ms[1],
            100 * (ms[0] / ms[1] - 1));
}

/* A device's prediction does not depend on which other devices the run analyses (issue 30 item 7,
   docs/pipeline.md "Sampling"): each device traces its own windows, sized by its own batch, and
   stops on its own. STOP_SRC's 1024 blocks: the TK1's windows are 16 blocks (0, 32, 64, 128 ...),
   the H100's 2112, one window for the whole grid; when the windows were 2 batches of the device
   with the most resident blocks, the TK1 beside the H100 was measured on one window of 1024
   blocks instead of its own (4 for scale, 6 for tri): tri on the TK1 was 10.26 ms alone and 14.85
   ms beside the H100. */
Test(e2e_launches, a_devices_prediction_is_the_same_alone_and_beside_another) {
  write_file("s.c", STOP_SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o s s.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *modes[] = {"run", "skip"}, *sets[] = {"jetson-tk1", "h100-sxm5", "jetson-tk1,h100-sxm5"};
  const char *names[2] = {"scale", "tri"};
  for (int m = 0; m < 2; m++) {
    double ms[3][2][2];                         /* [device set][kernel][device: TK1, H100] */
    for (int s = 0; s < 3; s++) {
      cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=%s CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r.json ./s", sets[s],
                      modes[m]), 0, "%s", read_file("err.txt"));
      cJSON *r = report("r.json");
      for (int n = 0; n < 2; n++) {
        cJSON *k = kernel_named(r, names[n]);
        ms[s][n][0] = s != 1 ? tk1_ms(k) : 0;
        ms[s][n][1] = s != 0 ? num(prediction(k, "h100-sxm5"), "time_ms") : 0;
      }
      cJSON_Delete(r);
    }
    for (int n = 0; n < 2; n++)
      for (int d = 0; d < 2; d++) {
        double alone = ms[d][n][d], beside = ms[2][n][d];
        cr_expect(fabs(beside - alone) <= 1e-9 * fabs(alone), "%s, %s on the %s: %.9g ms alone, %.9g ms beside the %s",
                  modes[m], names[n], d ? "H100" : "TK1", alone, beside, d ? "TK1" : "H100");
      }
  }
}

/* MachSuite's stencil3d in 32x8x1 blocks: loops from 1, so plane 0 of the 3-D grid holds no
   thread. A block's number needs the grid's height, which the sweep learns only at the next plane,
   so the first plane with threads was traced in no mode: `full` counted 116 blocks with a thread
   where 120 have one (900 warps, 870 counted), and the default mode's windows 108; its time was
   6.7 % under `full`'s. The mapped loops' constant bounds (the descriptor's extent) now give the
   grid's size before the sweep does. */
Test(e2e_launches, the_first_plane_with_threads_is_traced_when_plane_0_has_none) {
  double ms[2];
  cJSON *reports[2];
  build_run_and_full_tk1("#include <stdio.h>\n"
                    "#define H 32\n#define C 32\n#define R 16\n"
                    "static int in[H][C][R], out[H][C][R];\n"
                    "int main(void) {\n"
                    "  for (int i = 0; i < H; i++) for (int j = 0; j < C; j++) for (int k = 0; k < R; k++) in[i][j][k] = i + j * k;\n"
                    "#pragma cgpredict kernel name(st) dims(3) block(32,8,1)\n"
                    "  for (int i = 1; i < H - 1; i++)\n"
                    "    for (int j = 1; j < C - 1; j++)\n"
                    "      for (int k = 1; k < R - 1; k++)\n"
                    "        out[i][j][k] = 2 * in[i][j][k] + in[i - 1][j][k] + in[i + 1][j][k] + in[i][j - 1][k] + in[i][j][k + 1];\n"
                    "  printf(\"%d\\n\", out[5][6][7]);\n"
                    "  return 0;\n"
                    "}\n", reports);
  for (int f = 0; f < 2; f++) {
    cJSON *r = reports[f];
    cJSON *k = kernel_named(r, "st"), *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
    cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(s0, "analysis"), "jetson-tk1");
    if (f) {   /* every thread traced: 30 planes of 4 blocks; a warp is a row of 32 x, 30 rows a plane */
      cr_expect_eq(num(a, "blocks"), 30 * 4, "%g blocks with a thread", num(a, "blocks"));
      cr_expect_eq(num(a, "total_warps"), 30 * 30, "%g warps", num(a, "total_warps"));
      cr_expect_eq(num(s0, "traced_warps"), 30 * 30);
    }
    ms[f] = tk1_ms(k);
    cJSON_Delete(r);
  }
  cr_expect(fabs(ms[0] - ms[1]) <= 0.02 * ms[1], "run %g ms, full %g ms", ms[0], ms[1]);
}

/* Sampling inside a thread leaves in the L2 what the skipped iterations bring (docs/model.md 4c):
   kernel `walk`'s thread i sweeps row i of x (512 floats: iterations 256 on skipped after the
   first window), and kernel `last` reads each row's last element, where `walk` ended. The run's
   prediction of `last` was 5 times `full`'s (its lines had never entered the L2); now they agree
   within 1 %, and so do `walk`'s. */
static const char *const TAIL_SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N 512\n"
  "static void walk(float (*x)[N]) {\n"
  "#pragma cgpredict kernel name(walk) dims(1) block(256)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 1; j < N; j++) x[i][j] = 0.5f * x[i][j - 1] + x[i][j];\n"
  "}\n"
  "static void last(float (*x)[N], float *y) {\n"
  "#pragma cgpredict kernel name(last) dims(1) block(256)\n"
  "  for (int i = 0; i < N; i++) y[i] = 2.0f * x[i][N - 1];\n"
  "}\n"
  "int main(void) {\n"
  "  float (*x)[N] = calloc(N, sizeof *x), *y = calloc(N, sizeof *y);\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) x[i][j] = (float)((i + j) % 7);\n"
  "  walk(x);\n"
  "  last(x, y);\n"
  "  printf(\"%g\\n\", y[N / 2]);\n"
  "  free(x);\n"
  "  free(y);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, skipped_iterations_leave_their_lines_in_the_l2) {
  cJSON *r[2];
  build_run_and_full_tk1(TAIL_SRC, r);
  expect_like_full(r, "walk", 0.01);
  expect_like_full(r, "last", 0.01);
  cr_expect_gt(num(kernel_named(r[0], "walk"), "loop_iterations_skipped"), 0, "walk's iterations were sampled");
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* The lines the whole grid reads stay in the L2 across the blocks between two windows (docs/model.md
   4c): CORR's reduce kernel over 512 x 512 in 32 x 8 blocks on the TK1, whose every block reads
   mean[j] and sd[j] for its columns. The new lines of the untraced blocks used to evict them,
   the sampled windows missing 3.6 % of those loads where `full` misses none: +17 % against
   `full`; now within 0.5 %. */
static const char *const SHARED_SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N 512\n"
  "static void reduce(float (*d)[N], const float *mean, const float *sd) {\n"
  "#pragma cgpredict kernel name(reduce) dims(2) block(32,8)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      d[i][j] -= mean[j];\n"
  "      d[i][j] /= 22.6f * sd[j];\n"
  "    }\n"
  "}\n"
  "int main(void) {\n"
  "  float (*d)[N] = calloc(N, sizeof *d), *mean = calloc(N, sizeof *mean), *sd = calloc(N, sizeof *sd);\n"
  "  for (int j = 0; j < N; j++) { mean[j] = (float)(j % 5); sd[j] = 1.0f + (float)(j % 3); }\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) d[i][j] = (float)((i * 3 + j) % 11);\n"
  "  reduce(d, mean, sd);\n"
  "  printf(\"%g\\n\", d[N / 2][N / 2]);\n"
  "  free(d);\n"
  "  free(mean);\n"
  "  free(sd);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, lines_every_block_reads_stay_in_the_l2_between_windows) {
  expect_sampled_like_full(SHARED_SRC, "reduce", 0, 0.005);
}

/* A launch after another kernel's untraced launch found an L2 the run did not know (docs/model.md
   5b, "stand_in"): ADI's kernel 5, launched once per time step after kernel 4's N - 1 launches.
   Here `last` divides row N - 1, which `fwd`'s last launch of each step just wrote; the first
   step's last `fwd` launches ran untraced (nothing yet told the runtime `last` would follow). Where
   `fwd`'s footprint moves by a law (a row a launch), its untraced last launches are put into the L2
   as its run ends (5b, "A run's untraced last launches warm the caches"), so `last`'s launch 0
   found a known L2: it is analysed as it is, equal to `full`, with no note. Where `fwd` writes every
   other element of its row, a range twice the bytes it moves, there is no law: launch 0 missed
   every line `full` finds in the L2 (+95 % against `full`), and its launch 1, after the second
   step's warmed tail, stands in for it: equal to `full`. */
#define AFTER_SRC(FWD)                                                                              \
  "#include <stdio.h>\n"                                                                            \
  "#include <stdlib.h>\n"                                                                           \
  "#define N 200\n"                                                                                 \
  "static void fwd(float (*x)[N], const float (*a)[N], int i) {\n"                                  \
  "#pragma cgpredict kernel name(fwd) dims(1) block(256)\n" FWD                                     \
  "}\n"                                                                                             \
  "static void last(float (*x)[N], const float (*b)[N]) {\n"                                        \
  "#pragma cgpredict kernel name(last) dims(1) block(256)\n"                                        \
  "  for (int j = 0; j < N; j++) x[N - 1][j] = x[N - 1][j] / b[N - 1][j];\n"                        \
  "}\n"                                                                                             \
  "int main(void) {\n"                                                                              \
  "  float (*x)[N] = calloc(N, sizeof *x), (*a)[N] = calloc(N, sizeof *a), (*b)[N] = calloc(N, sizeof *b);\n" \
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { x[i][j] = 1; a[i][j] = 0.5f; b[i][j] = 2; }\n" \
  "  for (int t = 0; t < 2; t++) {\n"                                                               \
  "    for (int i = 1; i < N; i++) fwd(x, (const float (*)[N])a, i);\n"                              \
  "    last(x, (const float (*)[N])b);\n"                                                           \
  "  }\n"                                                                                           \
  "  printf(\"%g\\n\", x[N - 1][N / 2]);\n"                                                          \
  "  free(x);\n"                                                                                    \
  "  free(a);\n"                                                                                    \
  "  free(b);\n"                                                                                    \
  "  return 0;\n"                                                                                   \
  "}\n"

Test(e2e_launches, a_launch_after_an_untraced_one_stands_on_a_later_launch) {
  cJSON *r[2];
  build_run_and_full_tk1(
      AFTER_SRC("  for (int j = 0; j < N / 2; j++) x[i][2 * j] = x[i][2 * j] - x[i - 1][2 * j] * a[i][2 * j];\n"), r);
  cJSON *k = kernel_named(r[0], "last"), *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s0, "after_untraced")), "fwd");
  cr_expect_eq(num(s0, "stand_in"), 1);
  /* the whole sentence: it once ended at "whose L2 is" */
  cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(k, "l2_note")),
                   "predicted from launch 1, of the same grid, whose L2 is known"));
  cr_expect_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 1), "after_untraced"));
  expect_like_full(r, "last", 0.005);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

Test(e2e_launches, a_launch_after_a_tail_its_law_put_into_the_l2_is_analysed_as_it_is) {
  cJSON *r[2];
  build_run_and_full_tk1(AFTER_SRC("  for (int j = 0; j < N; j++) x[i][j] = x[i][j] - x[i - 1][j] * a[i][j];\n"), r);
  cJSON *k = kernel_named(r[0], "last"), *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  cr_expect_null(cJSON_GetObjectItem(s0, "after_untraced"));
  cr_expect_null(cJSON_GetObjectItem(s0, "stand_in"));
  cr_expect_null(cJSON_GetObjectItem(k, "l2_note"));
  expect_like_full(r, "last", 0.005);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* The l2_note is said where the launches it is about matter: `second`'s launch 0 follows
   `first`'s untraced last launches (every other element written: no law to warm them by), and
   stands for 1 of its launches. Of 300, that is under RT_L2_NOTE_SHARE (1 %): the sample says
   `after_untraced`, the kernel has no note (TSVC had it 105 times, for 1 launch in 2000 each); of
   20, 5 %: the note. */
#define NOTE_SHARE_SRC(LAUNCHES)                                                                   \
  "#include <stdio.h>\n"                                                                           \
  "#define N 4096\n"                                                                               \
  "static float x[N], y[N];\n"                                                                     \
  "static void first(int t) {\n"                                                                   \
  "#pragma cgpredict kernel name(first) dims(1) block(256)\n"                                      \
  "  for (int j = 0; j < N / 2; j++) x[2 * j] += (float)t;\n"                                      \
  "}\n"                                                                                            \
  "static void second(void) {\n"                                                                   \
  "#pragma cgpredict kernel name(second) dims(1) block(256)\n"                                     \
  "  for (int j = 0; j < N; j++) y[j] = y[j] * 0.5f + x[j];\n"                                     \
  "}\n"                                                                                            \
  "int main(void) {\n"                                                                             \
  "  for (int t = 0; t < 300; t++) first(t);\n"                                                    \
  "  for (int t = 0; t < " LAUNCHES "; t++) second();\n"                                           \
  "  printf(\"%g\\n\", y[7]);\n"                                                                   \
  "  return 0;\n"                                                                                  \
  "}\n"

Test(e2e_launches, an_l2_note_is_said_only_where_its_launches_matter) {
  const char *launches[2] = {"300", "20"};
  for (int i = 0; i < 2; i++) {
    cJSON *r = build_run_tk1(i ? NOTE_SHARE_SRC("20") : NOTE_SHARE_SRC("300"));
    cJSON *k = kernel_named(r, "second"), *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s0, "after_untraced")), "first", "%s launches",
                     launches[i]);
    /* a run's first launch is a shape of its own, the run's only one: nothing stands in for it */
    if (i) cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(k, "l2_note")),
                            "no later analysed launch of the same grid and shape (a run's first launch is a shape "
                            "of its own) can stand in for it"), "%s launches: 1 in 20 is 5 %%", launches[i]);
    else cr_expect_null(cJSON_GetObjectItem(k, "l2_note"), "%s launches: 1 in 300 is under 1 %%", launches[i]);
    cJSON_Delete(r);
  }
}

/* Windows stop doubling their gaps once 8 of them fit in the grid, and each gap between two windows
   is split between them (docs/pipeline.md, "Sampling": rt_window_spacing, rt_wstat_centre): work
   that grows along the grid (LU's kernel 2, whose active square grows toward the grid's end), here
   a thread of row i summing i / 8 elements of its column, 512 x 512 in 32 x 8 blocks on the TK1.
   Windows at 0, 32, 64, 128, 256 and 512, each standing for the blocks up to the next, counted
   21.3 loads a warp where the grid has 31.5: -32 % against `full`. Now 30.9 and -1.8 % (the rest:
   the L2 misses of b's lines the block row above brought in). */
static const char *const GROWS_SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N 512\n"
  "static void grows(float (*a)[N], float (*b)[N]) {\n"
  "#pragma cgpredict kernel name(grows) dims(2) block(32,8)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      float s = 0;\n"
  "      for (int k = 0; k < i / 8; k++) s += b[k][j];\n"
  "      a[i][j] = s;\n"
  "    }\n"
  "}\n"
  "int main(void) {\n"
  "  float (*a)[N] = calloc(N, sizeof *a), (*b)[N] = calloc(N, sizeof *b);\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) b[i][j] = (float)((i + 2 * j) % 7);\n"
  "  grows(a, b);\n"
  "  printf(\"%g\\n\", a[400][300]);\n"
  "  free(a);\n"
  "  free(b);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, windows_follow_work_that_grows_along_the_grid) {
  cJSON *r[2];
  build_run_and_full_tk1(GROWS_SRC, r);
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(kernel_named(r[0], "grows"), "samples"), 0);
  cr_assert_lt(num(s, "traced_warps"), num(s, "total_warps"), "the run sampled the grid");
  double loads = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "analysis"),
                                                                            "jetson-tk1"), "insts"), 1)->valuedouble;
  cr_expect(fabs(loads - 31.5) <= 0.02 * 31.5, "coalesced loads a warp %g, the grid's 31.5", loads);
  expect_like_full(r, "grows", 0.02);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* A window warms from the row of blocks above its counted batch where a row is longer than a
   batch and the L2 holds a row (docs/model.md 4c, rt_warm_extension): FDTD-2D's first step over
   512 x 512 in 32 x 8 blocks on the TK1 (tests/data/halo/fdtd_step1.c) (rows of 16 blocks, batches of 8), whose blocks read the
   row of hz above them, which the block above read too. A window of two batches left the counted
   half-row's halo untraced: its loads' DRAM transactions 6.2 % above `full`'s (1.417 against
   1.335 a load). Now launches 1 and 3 are within 0.5 % of `full`'s; launch 0, with no analysed
   launch before it to size the warming by, warms one batch as before. */

/* Sample i's DRAM transactions per load of its strided class (1: coalesced) on the TK1. */
static double load_dram(cJSON *r, int i) {
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(kernel_named(r, "step1"), "samples"), i);
  cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "analysis"), "jetson-tk1");
  return cJSON_GetArrayItem(cJSON_GetObjectItem(a, "dram_pw"), 1)->valuedouble;
}

Test(e2e_launches, a_stencils_window_warms_from_the_row_of_blocks_above) {
  cJSON *r[2];
  cr_assert_eq(sh("cp %s/tests/data/halo/fdtd_step1.c src.c", CGP_SOURCE_DIR), 0);
  build_run_and_full_tk1(read_file("src.c"), r);
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(kernel_named(r[0], "step1"), "samples"), 1);
  cr_assert_eq(num(s, "launch"), 1);
  cr_assert_lt(num(s, "traced_warps"), num(s, "total_warps"), "the run sampled the grid");
  for (int i = 1; i <= 2; i++) {   /* launches 1 and 3; `full`'s launches 1 and 2 are alike */
    double run = load_dram(r[0], i), full = load_dram(r[1], i);
    cr_expect(fabs(run - full) <= 0.005 * full, "sample %d: run %g, full %g DRAM transactions a load", i, run, full);
  }
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* Warming launches only where an analysed launch finds earlier launches' lines in the L2
   (docs/model.md 5b). `fresh(t)` reads plane t of 16 and writes plane t of another 16 (16 KB each,
   4 blocks of 256 on the TK1): no launch reads what an earlier one did, its launch 1 (the first check) finds nothing inherited,
   so the launch before its analysed launch 3 runs untraced, and the one before 7 (the recheck,
   its 4th analysed launch) is traced; its time is `full`'s. `again(t)` reads one 16 KB array
   every launch: launch 1 finds it in the TK1's 128 KB, and every launch before an analysed one
   (2, 6) is traced. Both analyse launches 0, 1, 3 and 7 of their 16 (then 31: settled). Before
   the rule, `fresh` had two warming launches too. */
static const char *const FRESH_SRC =
  "#include <stdio.h>\n"
  "#define P 4096\n"
  "static float a[16][P], o[16][P], b[P], c[P];\n"
  "static void fresh(int t) {\n"
  "#pragma cgpredict kernel name(fresh) block(256)\n"
  "  for (int i = 0; i < P; i++) o[t][i] = 2.0f * a[t][i];\n"
  "}\n"
  "static void again(int t) {\n"
  "#pragma cgpredict kernel name(again) block(256)\n"
  "  for (int i = 0; i < P; i++) c[i] += b[i] * (float)t;\n"
  "}\n"
  "int main(void) {\n"
  "  for (int t = 0; t < 16; t++) fresh(t);\n"
  "  for (int t = 0; t < 16; t++) again(t);\n"
  "  printf(\"%g %g\\n\", c[7], o[3][7]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, launches_before_analysed_ones_warm_the_l2_only_where_it_is_inherited) {
  write_file("f.c", FRESH_SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o f f.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  double ms[2];
  const char *modes[] = {"full", "run"};
  for (int m = 0; m < 2; m++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r.json ./f",
                    modes[m]), 0, "%s", read_file("err.txt"));
    cJSON *r = report("r.json"), *f = kernel_named(r, "fresh"), *a = kernel_named(r, "again");
    ms[m] = tk1_ms(f);
    if (m == 1) {
      cr_expect_eq(num(f, "launches_sampled"), 4);
      cr_expect_eq(num(f, "launches_warming"), 1);
      cr_expect_eq(num(f, "launches_warming_skipped"), 1);
      cr_expect_not_null(cJSON_GetObjectItem(f, "warming_note"));
      cr_expect_eq(num(a, "launches_warming"), 2);
      cr_expect_eq(num(a, "launches_warming_skipped"), 0);
      cr_expect_null(cJSON_GetObjectItem(a, "warming_note"));
    }
    cJSON_Delete(r);
  }
  cr_expect(fabs(ms[1] - ms[0]) <= 0.005 * ms[0], "run %g ms, full %g ms", ms[1], ms[0]);
}

/* Launches of one shape (docs/model.md 5b): a multigrid's residual, entered at five grid sizes in
   turn (n = 512 >> level, a bound the nest is entered with), 40 cycles. Its levels differ from each
   other, so the kernel's schedule went dense and stood each launch for the analysed one before it,
   another level's: 65 of 200 analysed, -5.3 % against `full`. Each size now recurs on a schedule
   of its own (0, 1, 3, 7, then 31 ... once settled, of its launches), its launches standing for
   its own analysed ones: 24 analysed, 19 of them on a shape's schedule, within 1 % of `full` (29,
   24 of them, before the settled schedule). A kernel whose sizes never come back (a grid shrinking once,
   LU's) keeps the kernel's schedule: no sample is given a shape. */
static const char *const LEVELS_SRC =
  "#include <stdio.h>\n"
  "#define M 512\n"
  "static float u[M][M], r[M][M];\n"
  "static void resid(int n) {\n"
  "#pragma cgpredict kernel name(resid) dims(2)\n"
  "  for (int i = 1; i < n - 1; i++)\n"
  "    for (int j = 1; j < n - 1; j++)\n"
  "      r[i][j] = u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j];\n"
  "}\n"
  "static void shrink(int n) {\n"
  "#pragma cgpredict kernel name(shrink)\n"
  "  for (int i = 0; i < n; i++) r[0][i] = u[1][i] * 2;\n"
  "}\n"
  "int main(void) {\n"
  "  for (int i = 0; i < M; i++) for (int j = 0; j < M; j++) u[i][j] = (i * 7 + j) % 13;\n"
  "  for (int cycle = 0; cycle < 40; cycle++)\n"
  "    for (int level = 0; level < 5; level++) resid(M >> level);\n"
  "  for (int n = M; n > M - 40; n--) shrink(n);\n"
  "  printf(\"%g\\n\", r[5][5]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, launches_of_one_shape_are_analysed_on_a_schedule_of_their_own) {
  write_file("l.c", LEVELS_SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o l l.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./l && "
                  "CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_SAMPLE=full CGPREDICT_REPORT=f.json ./l"),
               0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json"), *f = report("f.json");
  cJSON *k = kernel_named(r, "resid");
  cr_expect_eq(num(k, "launches"), 200);
  cr_expect_leq(num(k, "launches_sampled"), 32, "%g analysed", num(k, "launches_sampled"));
  double run = tk1_ms(k), full = tk1_ms(kernel_named(f, "resid"));
  cr_expect_lt(fabs(run - full), 0.01 * full, "run %g, full %g", run, full);
  int shaped = 0;
  double weights = 0;
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(k, "samples")) {
    shaped += cJSON_GetObjectItem(s, "shape") != NULL;
    weights += num(s, "weight");
  }
  cr_expect_geq(4 * shaped, 3 * cJSON_GetArraySize(cJSON_GetObjectItem(k, "samples")), "%d shaped", shaped);
  cr_expect_eq(weights, 200, "every launch stands with one sample");
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(kernel_named(r, "shrink"), "samples"))
    cr_expect_null(cJSON_GetObjectItem(s, "shape"), "a size that never comes back has no schedule of its own");
  cJSON_Delete(r);
  cJSON_Delete(f);
}

/* Runs of one kernel's launches (docs/model.md 5b), as ADI's kernels 4 and 5: per time step, `evict`
   brings 512 KB of other lines into the TK1's 128 KB L2, `down(i)` runs 127 times, each launch
   reading the rows the one before wrote, and `last` reads the rows `down`'s last launch wrote.
   The last launches of a run as long as the one before warm the L2 for `last`, which otherwise
   read its rows from DRAM (+49 % against `full`), and the first launch of each run, which finds
   `evict`'s lines, not the rows above, is a shape of its own: launch 127, the second run's first,
   stood for 128 launches (+10 %, 31 analysed). */
/* ADI's kernel 4: launch i reads row i - 1 and writes row i of X and B (and reads A's row i). */
#define DOWN_KERNEL \
  "static void down(int i) {\n" \
  "#pragma cgpredict kernel name(down) block(256)\n" \
  "  for (int j = 0; j < N; j++) {\n" \
  "    X[i][j] = X[i][j] - X[i - 1][j] * A[i][j] / B[i - 1][j];\n" \
  "    B[i][j] = B[i][j] - A[i][j] * A[i][j] / B[i - 1][j];\n" \
  "  }\n" \
  "}\n"
static const char *const RUNS_SRC =
  "#include <stdio.h>\n"
  "#define N 128\n"
  "static float X[N][N], A[N][N], B[N][N], Z[8 * N][N];\n"
  "static void evict(void) {\n"
  "#pragma cgpredict kernel name(evict) dims(2) block(32,8)\n"
  "  for (int i = 0; i < 8 * N; i++)\n"
  "    for (int j = 0; j < N; j++) Z[i][j] += 1.0f;\n"
  "}\n"
  DOWN_KERNEL
  "static void last(void) {\n"
  "#pragma cgpredict kernel name(last) block(256)\n"
  "  for (int j = 0; j < N; j++) X[N - 1][j] = X[N - 1][j] / B[N - 1][j];\n"
  "}\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) { X[i][j] = (float)(i + j) / N; A[i][j] = (float)(i * j % 7) / N; B[i][j] = 2.0f + (float)j / N; }\n"
  "  for (int t = 0; t < 4; t++) {\n"
  "    evict();\n"
  "    for (int i = 1; i < N; i++) down(i);\n"
  "    last();\n"
  "  }\n"
  "  printf(\"%g %g\\n\", X[N - 1][5], Z[3][3]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_run_of_launches_warms_the_kernel_after_it_and_opens_with_a_shape_of_its_own) {
  cJSON *r[2];
  build_run_and_full_tk1(RUNS_SRC, r);
  expect_like_full(r, "down", 0.005);
  expect_like_full(r, "last", 0.005);
  cJSON *down = kernel_named(r[0], "down"), *s;
  cr_expect_leq(num(down, "launches_sampled"), 16, "%g analysed", num(down, "launches_sampled"));
  int first_of_run = 0;
  double weights = 0;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(down, "samples")) {
    first_of_run += (int)num(s, "launch") % 127 == 0 && cJSON_GetObjectItem(s, "shape") != NULL;
    weights += num(s, "weight");
  }
  cr_expect_gt(first_of_run, 0, "a run's first launch analysed as a shape of its own");
  cr_expect_eq(weights, 508, "every launch stands with one sample");
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* A run's untraced last launches warm the caches by their footprint's law (docs/model.md 5b), as
   ADI's kernels 4 and 6 in one time step: `down(i)`, 255 launches, each reading row i - 1 and
   writing row i of X and B (rows of 1 KB), then `up(i)`, 16 launches, reading the rows `down`'s last
   launches wrote, which the TK1's 128 KB L2 holds (`full`: no DRAM load). The run's length is not
   known while it runs, so its last launches ran untraced: `up` read its rows from DRAM, +183 %
   against `full`; now from the law of `down`'s traced launches, equal to it. A replay for a twin
   of the TK1 (its device file under another name) from the trace's tail record gets what a run
   that analysed both gave it. */
static const char *const UNTRACED_TAIL_SRC =
  "#include <stdio.h>\n"
  "#define N 256\n"
  "static float X[N][N], A[N][N], B[N][N];\n"
  DOWN_KERNEL
  "static void up(int i) {\n"
  "#pragma cgpredict kernel name(up) block(256)\n"
  "  for (int j = 0; j < N; j++)\n"
  "    X[N - 2 - i][j] = (X[N - 2 - i][j] - X[N - 3 - i][j] * A[N - 3 - i][j]) / B[N - 2 - i][j];\n"
  "}\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      X[i][j] = (float)(i * j % 7) + 1.0f;\n"
  "      A[i][j] = (float)((i + j) % 5) + 1.0f;\n"
  "      B[i][j] = (float)((i * 3 + j) % 11) + 2.0f;\n"
  "    }\n"
  "  for (int i = 1; i < N; i++) down(i);\n"
  "  for (int i = 0; i < 16; i++) up(i);\n"
  "  printf(\"%g\\n\", X[5][5]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_runs_untraced_last_launches_warm_the_caches_by_their_footprints_law) {
  cJSON *r[2];
  build_run_and_full_tk1(UNTRACED_TAIL_SRC, r);
  cr_assert_lt(num(kernel_named(r[0], "down"), "launches_sampled"), 32, "the run's launches sampled");
  expect_like_full(r, "up", 0.005);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
  cr_assert_eq(sh("mkdir devs && cp %s/devices/jetson-tk1.json devs/ && "
                  "sed 's/\"name\": \"jetson-tk1\"/\"name\": \"tk1-twin\"/' devs/jetson-tk1.json > devs/tk1-twin.json",
                  CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICES_DIR=devs CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=a.json ./rf && "
                  "CGPREDICT_DEVICES_DIR=devs CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1,tk1-twin CGPREDICT_TRACE=0 "
                  "CGPREDICT_REPORT=b.json ./rf && "
                  "CGPREDICT_DEVICES_DIR=devs %s report a.json --device tk1-twin --json > x.json", CGP_DRIVER),
               0, "%s", read_file("err.txt"));
  cJSON *x = report("x.json"), *b = report("b.json");
  double rx = num(prediction(kernel_named(x, "up"), "tk1-twin"), "time_ms");
  double rb = num(prediction(kernel_named(b, "up"), "tk1-twin"), "time_ms");
  cr_expect(fabs(rx - rb) <= 1e-9 * rb, "replayed %.17g ms, run %.17g ms", rx, rb);
  cJSON_Delete(x);
  cJSON_Delete(b);
}

/* A window counts a whole row of blocks where a row is longer than a batch (docs/model.md 4c): a
   5-point stencil over 1000 x 1000 in 32 x 8 blocks, rows of 32 blocks whose last has 8 of its 32
   columns, batches of 8 blocks on the TK1. The counted batch, always the second quarter of a row,
   never held the row's edge: +1.9 % against `full`. */
static const char *const ROWS_SRC =
  "#include <stdio.h>\n"
  "#define N 1000\n"
  "static float a[N][N], b[N][N];\n"
  "static void step(void) {\n"
  "#pragma cgpredict kernel name(step) dims(2) block(32,8)\n"
  "  for (int i = 1; i < N - 1; i++)\n"
  "    for (int j = 1; j < N - 1; j++)\n"
  "      b[i][j] = 0.2f * (a[i][j] + a[i][j - 1] + a[i][j + 1] + a[i + 1][j] + a[i - 1][j]);\n"
  "}\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) a[i][j] = (float)((i * 13 + j) % 17);\n"
  "  for (int t = 0; t < 3; t++) step();\n"
  "  printf(\"%g\\n\", b[5][5]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_window_counts_a_whole_row_of_blocks) {
  expect_sampled_like_full(ROWS_SRC, "step", 1, 0.01);
}

/* A grid of at most two windows is traced whole (docs/pipeline.md, "Sampling"): NPB CG's sparse
   product, 7000 rows a thread each, is 28 blocks of 256 on the TK1, whose windows are 16 blocks,
   and the first window stood for the 12 blocks after it (+70 % against `full`, with its sampled
   rows). Here the threads past 4096 also read b on a stride of 128 bytes (uncoalesced), which the
   first window, threads 0 to 4095, never sees: sampled so, the kernel was -93 % against `full`.
   With a constant bound its grid is known from its first launch; with one known only at run time
   (`halves`, below) its first launch keeps the windows, and the next ones are traced whole (the
   grid of its last launch). */
#define HALVES_KERNEL(name, bound) \
  "static void " name "(int n) {\n" \
  "#pragma cgpredict kernel name(" name ") dims(1) block(256)\n" \
  "  for (int i = 0; i < " bound "; i++) c[i] = i < 4096 ? a[i] : a[i] + b[i * 32];\n" \
  "}\n"
#define HALVES_SRC(name, bound) \
  "#include <stdio.h>\n" \
  "#define R 7000\n" \
  "static float a[R], b[R * 32], c[R];\n" \
  HALVES_KERNEL(name, bound) \
  "int main(int argc, char **argv) {\n" \
  "  (void)argv;\n" \
  "  for (int i = 0; i < R; i++) a[i] = (float)(i % 7);\n" \
  "  for (int t = 0; t < 4; t++) " name "(R + argc - 1);\n" \
  "  printf(\"%g\\n\", c[5000]);\n" \
  "  return 0;\n" \
  "}\n"

/* Sample i's warps traced, against the warps that have a thread. */
static void expect_traced_whole(cJSON *k, int i, int whole) {
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), i);
  double traced = num(s, "traced_warps"), warps = ceil(num(s, "threads") / 32);
  cr_expect(whole ? traced == warps : traced < warps, "sample %d: %g warps of %g traced", i, traced, warps);
}

Test(e2e_launches, a_grid_of_at_most_two_windows_is_traced_whole) {
  cJSON *r[2];
  build_run_and_full_tk1(HALVES_SRC("fixed", "R"), r);
  expect_like_full(r, "fixed", 0.005);
  expect_traced_whole(kernel_named(r[0], "fixed"), 0, 1);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
  build_run_and_full_tk1(HALVES_SRC("halves", "n"), r);
  expect_traced_whole(kernel_named(r[0], "halves"), 0, 0);
  expect_traced_whole(kernel_named(r[0], "halves"), 1, 1);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* A grid of at most four windows (two of them, at blocks 0 and 2W) is traced whole where it has at
   most 2^18 threads (docs/pipeline.md, "Sampling"): two windows cannot tell whether they agree, and
   each stands for a gap as long as itself. Here 40 blocks of 256 on the TK1 (W = 16), whose
   blocks 16 to 31 (threads 4096 to 8191) also read b on a stride of 128 bytes, in the gap after
   the first window, which neither window traces: sampled so, the kernel was -48 % against
   `full`. A grid of 70 blocks keeps its windows. (LU's kernel 2 at N = 100: 36 blocks whose
   active square starts in the grid's third row of blocks, -5.5 % before.) */
#define GAP_SRC(name, rows) \
  "#include <stdio.h>\n" \
  "#define R " rows "\n" \
  "static float a[R], b[R * 32], c[R];\n" \
  "static void " name "(void) {\n" \
  "#pragma cgpredict kernel name(" name ") dims(1) block(256)\n" \
  "  for (int i = 0; i < R; i++) c[i] = i >= 4096 && i < 8192 ? a[i] + b[i * 32] : a[i];\n" \
  "}\n" \
  "int main(void) {\n" \
  "  for (int i = 0; i < R; i++) a[i] = (float)(i % 7);\n" \
  "  for (int t = 0; t < 2; t++) " name "();\n" \
  "  printf(\"%g\\n\", c[5000]);\n" \
  "  return 0;\n" \
  "}\n"

Test(e2e_launches, a_grid_of_at_most_four_windows_is_traced_whole) {
  cJSON *r[2];
  build_run_and_full_tk1(GAP_SRC("forty", "10240"), r);
  expect_traced_whole(kernel_named(r[0], "forty"), 0, 1);
  expect_like_full(r, "forty", 0.005);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
  build_run_and_full_tk1(GAP_SRC("seventy", "17920"), r);
  expect_traced_whole(kernel_named(r[0], "seventy"), 0, 0);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* A kernel's first launch (often its only one) takes its row of blocks from its x loop's constant
   bound (docs/model.md 4c, rt_row_blocks): GEMVER's kernel 1 at N = 500 in 32 x 8 blocks, rows of
   16 blocks whose last holds 20 columns. With no row known, its windows of two batches of 8 counted
   the right half of every row, the edge's block one in 8 instead of one in 16: this kernel -6.0 %
   against `full` on the TK1 (GEMVER's kernel 1 -5.4 %), +0.1 % now. */
static const char *const FIRST_ROW_SRC =
  "#include <stdio.h>\n"
  "#define N 500\n"
  "static float A[N][N], u[N], v[N];\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++) { u[i] = (float)(i % 7); v[i] = (float)(i % 5); }\n"
  "#pragma cgpredict kernel name(outer) dims(2) block(32,8)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++)\n"
  "      A[i][j] += u[i] * v[j];\n"
  "  printf(\"%g\\n\", A[7][9]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, a_first_launchs_window_counts_the_row_its_bound_gives) {
  expect_sampled_like_full(FIRST_ROW_SRC, "outer", 0, 0.005);
}

/* Lanes that leave a sampled loop at different iterations (thread j runs 1000 + 40 j of them,
   reading its own row: uncoalesced, a transaction a lane): the GPU issues the loads while any
   lane runs, but fewer lanes run the last iterations, and make fewer transactions. The windows'
   instructions stand for the longest lane's executions, their transactions for their lanes' own
   (docs/pipeline.md, "Sampling inside a thread"): within 1 % of `full`, where taking the longest
   lane's for every lane made the TK1's time +7.9 %. */
static const char *const EARLY_SRC =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define T 256\n"
  "#define W 12000\n"
  "static void rows(float *a, float *s) {\n"
  "#pragma cgpredict kernel name(rows) dims(1) block(128)\n"
  "  for (int j = 0; j < T; j++) {\n"
  "    float acc = 0;\n"
  "    for (int i = 0; i < 1000 + 40 * j; i++) acc += a[(size_t)j * W + i];\n"
  "    s[j] = acc;\n"
  "  }\n"
  "}\n"
  "int main(void) {\n"
  "  float *a = malloc(sizeof(float) * T * W), *s = calloc(T, sizeof *s);\n"
  "  for (size_t k = 0; k < (size_t)T * W; k++) a[k] = (float)(k % 7);\n"
  "  rows(a, s);\n"
  "  printf(\"%g %g\\n\", s[3], s[200]);\n"
  "  free(a);\n"
  "  free(s);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_launches, lanes_leaving_a_sampled_loop_early_make_their_own_transactions) {
  cJSON *r[2];
  build_run_and_full_tk1(EARLY_SRC, r);
  expect_like_full(r, "rows", 0.01);
  cr_expect_gt(num(kernel_named(r[0], "rows"), "loop_iterations_skipped"), 0, "the rows were sampled");
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}
