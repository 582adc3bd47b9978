/* End-to-end, against `full` mode: the L2's edges. A launch whose bytes come near the L2's
   capacity is traced whole (rt_launch_at_cliff, runtime/cgp_rt_window.c); the launch where a run
   leaves what the L2 holds is analysed (rt_law_edge, runtime/cgp_rt_tail.c). */
#include "e2e_util.h"

TestSuite(e2e_cliff, .init = setup, .fini = teardown, .timeout = 300);

/* LU at N = 256 on the TK1 (128 KiB of L2): the update's launches sweep (256 - k)^2 floats, from
   256 KiB down, across the L2's capacity. Sampled in windows, a launch's traffic fit in the L2
   where the whole launch's did not, and the next launches found lines `full` missed: the row
   kernel +20.3 %, the update +3.7 % against `full`. Traced whole near the cliff: -0.15 % and
   +1.84 %. */
Test(e2e_cliff, launches_near_the_l2s_capacity_are_traced_whole_and_agree_with_full) {
  cJSON *r[2];
  build_run_and_full_tk1("#include <stdio.h>\n"
                         "#define N 256\n"
                         "float A[N][N];\n"
                         "int main(void) {\n"
                         "  for (int i = 0; i < N; i++)\n"
                         "    for (int j = 0; j < N; j++) A[i][j] = (i == j) ? N : (float)((i * 7 + j * 3) % 11) / 11;\n"
                         "  for (int k = 0; k < N; k++) {\n"
                         "#pragma cgpredict kernel name(row)\n"
                         "    for (int j = k + 1; j < N; j++) A[k][j] = A[k][j] / A[k][k];\n"
                         "#pragma cgpredict kernel name(update) dims(2)\n"
                         "    for (int i = k + 1; i < N; i++)\n"
                         "      for (int j = k + 1; j < N; j++) A[i][j] = A[i][j] - A[i][k] * A[k][j];\n"
                         "  }\n"
                         "  double s = 0;\n"
                         "  for (int i = 0; i < N; i++) s += A[i][i];\n"
                         "  printf(\"%.6e\\n\", s);\n"
                         "  return 0;\n"
                         "}\n",
                         r);
  const char *names[] = {"row", "update"};
  for (int i = 0; i < 2; i++) {
    double run = num(prediction(kernel_named(r[0], names[i]), "jetson-tk1"), "time_ms");
    double full = num(prediction(kernel_named(r[1], names[i]), "jetson-tk1"), "time_ms");
    cr_assert_lt(fabs(run / full - 1), 0.02, "%s: %g ms sampled, %g ms full (%+.2f %%)", names[i], run, full,
                 100 * (run / full - 1));
  }
  /* the update's launches 40 to 48 sweep about 210 x 210 floats (172 KiB): traced whole, every
     warp that has threads (rows k + 1 .. 255, the 32-wide warps from the one holding column k + 1;
     launch 40: 215 x 7) */
  cJSON *s;
  int seen = 0;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(kernel_named(r[0], "update"), "samples")) {
    int k = (int)num(s, "launch");
    if (k < 40 || k > 48) continue;
    cr_assert_eq(num(s, "traced_warps"), (255 - k) * ((256 - 32 * ((k + 1) / 32)) / 32), "launch %d", k);
    seen++;
  }
  cr_assert_gt(seen, 0);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* `down` then `up` over the 256 rows of a and b, `steps` time steps. */
static const char *sweeps(int steps) {
  static char src[2048];
  snprintf(src, sizeof src,
           "#include <stdio.h>\n"
           "#define N 256\n"
           "#define M 256\n"
           "float a[N][M], b[N][M];\n"
           "int main(void) {\n"
           "  for (int i = 0; i < N; i++)\n"
           "    for (int j = 0; j < M; j++) { a[i][j] = (float)(i %% 7) + j; b[i][j] = (float)j / (i + 1); }\n"
           "  for (int t = 0; t < %d; t++) {\n"
           "    for (int r = 0; r < N; r++) {\n"
           "#pragma cgpredict kernel name(down)\n"
           "      for (int j = 0; j < M; j++) { a[r][j] = a[r][j] * 0.5f + 1.0f; b[r][j] = b[r][j] + a[r][j]; }\n"
           "    }\n"
           "    for (int r = N - 1; r >= 0; r--) {\n"
           "#pragma cgpredict kernel name(up)\n"
           "      for (int j = 0; j < M; j++) b[r][j] = b[r][j] - a[r][j] * 0.25f;\n"
           "    }\n"
           "  }\n"
           "  double s = 0;\n"
           "  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) s += b[i][j];\n"
           "  printf(\"%%.6e\\n\", s);\n"
           "  return 0;\n"
           "}\n",
           steps);
  return src;
}

/* `down` sweeps rows 0 .. 255 of a and b (2 KiB a launch), then `up` sweeps them back: the TK1's
   128 KiB L2 holds down's last 64 rows, so up's launches 0 .. 63 hit and the rest miss. Its
   analysed launches 31 and 127 stood on either side of that edge: -19.36 % against `full`. The
   footprint's law puts up's later rows where the L2 can be asked (rt_law_edge): launch 64, the
   first that misses, is analysed, and up equals `full`. */
Test(e2e_cliff, the_launch_where_a_run_leaves_what_the_l2_holds_is_analysed) {
  cJSON *r[2];
  build_run_and_full_tk1(sweeps(1), r);
  cJSON *up = kernel_named(r[0], "up");
  double run = num(prediction(up, "jetson-tk1"), "time_ms");
  double full = num(prediction(kernel_named(r[1], "up"), "jetson-tk1"), "time_ms");
  cr_assert_lt(fabs(run / full - 1), 0.005, "up: %g ms sampled, %g ms full", run, full);
  cJSON *s;
  int edge = 0;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(up, "samples")) edge |= num(s, "launch") == 64;
  cr_assert(edge, "launch 64, the first to miss, is analysed");
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

/* The same sweeps, four time steps: each run of `up` again hits its first 64 launches and misses
   the rest, and each run of `down` from the second on finds up's last rows (the top ones) in the
   L2. An analysed launch stood for launches of the next run, and no edge was looked for on a
   shape's own schedule (every run's launches past its first are one shape): down +14.02 %, up
   +4.26 % against `full`. Now a later run's first two launches of the shape are analysed (its
   footprint's law is known from the third traced launch of the run) and its edges are looked
   for: down -0.18 %, up -0.19 %. */
Test(e2e_cliff, a_later_run_opens_with_analysed_launches_and_its_edges_are_found) {
  cJSON *r[2];
  build_run_and_full_tk1(sweeps(4), r);
  const char *names[] = {"down", "up"};
  for (int i = 0; i < 2; i++) {
    cJSON *k = kernel_named(r[0], names[i]);
    double run = num(prediction(k, "jetson-tk1"), "time_ms");
    double full = num(prediction(kernel_named(r[1], names[i]), "jetson-tk1"), "time_ms");
    cr_assert_lt(fabs(run / full - 1), 0.01, "%s: %g ms sampled, %g ms full (%+.2f %%)", names[i], run, full,
                 100 * (run / full - 1));
    /* the second run's launches 257 and 258 (its second and third; 256 opens it, a shape of its own) */
    cJSON *s;
    int opening = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(k, "samples")) opening += num(s, "launch") == 257 || num(s, "launch") == 258;
    cr_assert_eq(opening, 2, "%s: the second run opens with two analysed launches", names[i]);
  }
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}
