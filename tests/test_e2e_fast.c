/* End-to-end, the recording hot path's specialisations (cgp_rt_internal.h, RT_FAST_*: lane_right's
   matrix path, cgp_rt_mem_block's loops, cgp_rt_bb's straight-line block): each is the general
   path's result by the tracker's primitives, so CGPREDICT_FAST=0, which turns them all off, must
   leave every report as it is, byte for byte but for the run's id and the CPU's measured times.
   Mutation-checked, each failing both comparisons: a column with another lane's bit
   (rt_tracker_column; `unrolled`), lane_right dropping the lane's block marks (`unrolled`), the
   checked loop storing another address (`guarded`), cgp_rt_bb's straight-line block not recorded
   (`cycle`). A lane that keeps the last rank of the one before (rt_tracker_next_lane) changes no
   report, rightly: its first event spills it to its record, which the warp's build reads as the
   matrix. The switch also makes every cache the general bitmap of positions, where a small fully
   associative one (the TK1's L2, every L1) is otherwise a recency list (cgp_l2_list.c): a list
   whose hits do not move their line to the front fails both comparisons. */
#include "e2e_util.h"

/* Kernels, each a case of the hot path: `unrolled`, a 2-D product with its k loop written out (a
   straight-line body: lanes record into their warp's matrix, all sites quiet and ranked: the
   all-quiet loop and lane_right's matrix path; 100 columns, so rows end mid-warp); `guarded`, a
   2-D stencil whose border threads take another block (block marks, masked lanes); `fw`, a load
   served from a register (the checked loop, RT_FAST_BLOCK without RT_FAST_QUIET); `cycle`, a goto
   back into the body (lanes out of program order spill from the matrix to their records);
   `scale`, a load hoisted out of the nest (lane_right's general path); `product`, a k loop (no
   matrix: the general path whatever the switch, the control). Twelve launches each: the default
   mode analyses some (4) and runs the others untraced, timed. */
static const char *program =
    "#include <stdio.h>\n"
    "#define NI 40\n"
    "#define NJ 100\n"
    "#define NK 4\n"
    "#define N 8192\n"
    "float A[NI][NK], B[NK][NJ], C[NI][NJ], D[NI][NJ], E[NI][NJ];\n"
    "float c[4] = {3, 1, 4, 1}, x[N], y[N], z[N], w[N], a[N], v[N];\n"
    "int main(int argc, char **argv) {\n"
    "  (void)argv;\n"
    "  int k = argc;\n"
    "  for (int i = 0; i < NI; i++)\n"
    "    for (int j = 0; j < NJ; j++) { E[i][j] = (i * 3 + j) % 7; if (j < NK) A[i][j] = (i + j) % 5; }\n"
    "  for (int q = 0; q < NK; q++)\n"
    "    for (int j = 0; j < NJ; j++) B[q][j] = (q * 7 + j) % 3;\n"
    "  for (int i = 0; i < N; i++) { x[i] = i % 7; z[i] = i % 5; a[i] = i % 3; }\n"
    "  for (int rep = 0; rep < 12; rep++) {\n"
    "#pragma cgpredict kernel name(unrolled) dims(2)\n"
    "  for (int i = 0; i < NI; i++)\n"
    "    for (int j = 0; j < NJ; j++)\n"
    "      C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j] + A[i][2] * B[2][j] + A[i][3] * B[3][j];\n"
    "#pragma cgpredict kernel name(guarded) dims(2)\n"
    "  for (int i = 0; i < NI; i++)\n"
    "    for (int j = 0; j < NJ; j++) {\n"
    "      if (i > 0 && j > 0 && i < NI - 1 && j < NJ - 1)\n"
    "        D[i][j] = E[i - 1][j] + E[i][j - 1] + E[i][j] + E[i][j + 1] + E[i + 1][j];\n"
    "      else\n"
    "        D[i][j] = 0;\n"
    "    }\n"
    "#pragma cgpredict kernel name(fw)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    w[i] = z[i];\n"
    "    y[i] = x[i] * z[i] + x[i];\n"
    "  }\n"
    "#pragma cgpredict kernel name(cycle)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    float s = 0;\n"
    "    int t = 0;\n"
    "    if (i & k) goto mid;\n"
    "  top:\n"
    "    s += a[i];\n"
    "  mid:\n"
    "    t++;\n"
    "    if (t < 3) goto top;\n"
    "    v[i] = s;\n"
    "  }\n"
    "#pragma cgpredict kernel name(scale)\n"
    "  for (int i = 0; i < N; i++)\n"
    "    z[i] = c[0] * x[i];\n"
    "#pragma cgpredict kernel name(product) dims(2)\n"
    "  for (int i = 0; i < NI; i++)\n"
    "    for (int j = 0; j < NJ; j++) {\n"
    "      float s = 0;\n"
    "      for (int q = 0; q < NK; q++) s += A[i][q] * B[q][j];\n"
    "      E[i][j] = s;\n"
    "    }\n"
    "  }\n"
    "  double sum = 0;\n"
    "  for (int i = 0; i < NI; i++)\n"
    "    for (int j = 0; j < NJ; j++) sum += C[i][j] + D[i][j] + E[i][j];\n"
    "  for (int i = 0; i < N; i++) sum += y[i] + w[i] + v[i] + z[i];\n"
    "  printf(\"%.1f\\n\", sum);\n"
    "  return 0;\n"
    "}\n";

static char plain_out[4096];   /* the plain build's output */

static void build(void) {
  write_file("prog.c", program);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain prog.c && ./plain"), 0, "%s", read_file("err.txt"));
  snprintf(plain_out, sizeof plain_out, "%s", read_file("out.txt"));
  cr_assert_eq(sh("%s build -- cc -O2 -o prog prog.c", CGP_DRIVER), 0, "build failed: %s", read_file("err.txt"));
}

/* The program's report with CGPREDICT_FAST=fast and `env`, its output the plain build's, as text
   with what varies dropped (the caller frees it). */
static char *run(int fast, const char *env) {
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_TRACE=0 CGPREDICT_FAST=%d CGPREDICT_DEVICE=jetson-tk1,gpgpusim-qv100 "
                  "CGPREDICT_REPORT=r%d.json %s ./prog",
                  fast, fast, env),
               0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), plain_out);
  char name[16];
  snprintf(name, sizeof name, "r%d.json", fast);
  cJSON *r = report(name);
  drop_varying(r);
  char *text = cJSON_PrintUnformatted(r);
  cJSON_Delete(r);
  return text;
}

/* The reports with the specialisations and without are equal; one kernel's JSON is compared
   first, so that a failure names the kernel. */
static void fast_changes_nothing(const char *env) {
  char *general = run(0, env);
  char *fast = run(1, env);
  cJSON *g = cJSON_Parse(general), *f = cJSON_Parse(fast), *kg;
  cr_assert(g && f);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(g, "kernels")), 6, "every kernel reported");
  cJSON_ArrayForEach(kg, cJSON_GetObjectItem(g, "kernels")) {
    const char *name = cJSON_GetObjectItem(kg, "name")->valuestring;
    char *a = cJSON_PrintUnformatted(kg), *b = cJSON_PrintUnformatted(kernel_named(f, name));
    cr_assert_str_eq(a, b, "%s: kernel %s differs with the hot path's specialisations", env, name);
    free(a);
    free(b);
  }
  cr_assert_str_eq(general, fast, "%s: the reports differ with the hot path's specialisations", env);
  cJSON_Delete(g);
  cJSON_Delete(f);
  free(general);
  free(fast);
}

TestSuite(e2e_fast, .init = setup, .fini = teardown, .timeout = 300);

Test(e2e_fast, full_mode_reports_are_those_of_the_general_path) {
  build();
  fast_changes_nothing("CGPREDICT_SAMPLE=full");
}

/* The default mode samples blocks and launches and times the threads it leaves untraced. */
Test(e2e_fast, sampled_reports_are_those_of_the_general_path) {
  build();
  fast_changes_nothing("CGPREDICT_SAMPLE=run");
}

Test(e2e_fast, a_switch_other_than_0_or_1_is_refused) {
  build();
  cr_assert_eq(sh("CGPREDICT_FAST=2 CGPREDICT_REPORT=r.json ./prog"), 0);
  cr_assert_not_null(strstr(read_file("err.txt"), "CGPREDICT_FAST: expected 0 or 1"), "%s", read_file("err.txt"));
  cr_assert_null(read_file("r.json"), "a report was written");
}
