/* End-to-end, folded loops (docs/pipeline.md, "Folded loops"): a leaf loop of one block with
   affine addresses runs without a hook per iteration while threads are traced whole, and the
   runtime issues its iterations itself, whole periods at once. What must hold: the report is
   the one a hook in every iteration gives (CGPREDICT_FOLD=0), byte for byte but for the count of
   iterations folded, and the program's output is the plain build's. */
#include "e2e_util.h"

#define N 300
#define M 40
#define M_LONG 80

/* Kernels chosen by argv[1] (0: all). Each is a case of the fold's argument: a store every
   iteration (period 1), eighteen loads and no store (the held values' slots turn: period 16), a
   load of one address and no store (the held value is evicted and loaded again: never periodic),
   trip counts of 0 to 6 with a step of -3, an index read from memory (not folded), one address
   computed anew each iteration (x[k * zero], zero 0 at run time), rows of 5000 iterations and a
   loop that ends between two windows of traced iterations. */
static const char *program =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#define N 300\n"
    "#define M 40\n"
    "#define M_LONG 80\n"
    "float A[N][M_LONG], B[M][N], C[N][N], x[M], y[N], z[N];\n"
    "float P0[N][M_LONG], P1[N][M_LONG], P2[N][M_LONG], P3[N][M_LONG], P4[N][M_LONG], P5[N][M_LONG],\n"
    "      P6[N][M_LONG], P7[N][M_LONG], P8[N][M_LONG];\n"
    "int idx[M];\n"
    "#define ROWS 64\n"
    "#define LONG 5000\n"
    "float R[ROWS][LONG], w[LONG], o[ROWS];\n"
    "long zero;                   /* 0, unknown to the compiler */\n"
    "int main(int argc, char **argv) {\n"
    "  int which = argc > 1 ? atoi(argv[1]) : 0;\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int k = 0; k < M_LONG; k++) {\n"
    "      A[i][k] = (i * 7 + k) % 11;\n"
    "      if (k < M) B[k][i] = (i + 3 * k) % 5;\n"
    "      P0[i][k] = P1[i][k] = P2[i][k] = P3[i][k] = P4[i][k] = P5[i][k] = P6[i][k] = P7[i][k] = P8[i][k] = (i + k) % 3;\n"
    "    }\n"
    "  for (int k = 0; k < M; k++) { x[k] = k % 4; idx[k] = (k * 17) % M; }\n"
    "  for (int i = 0; i < ROWS; i++)\n"
    "    for (int k = 0; k < LONG; k++) { R[i][k] = (i + k) % 7; if (!i) w[k] = k % 3; }\n"
    "  if (!which || which == 1) {\n"
    "#pragma cgpredict kernel name(product) block(64,4)\n"
    "    for (int i = 0; i < N; i++)\n"
    "      for (int j = 0; j < N; j++) {\n"
    "        C[i][j] = 0;\n"
    "        for (int k = 0; k < M; k++) C[i][j] += A[i][k] * B[k][j];\n"
    "      }\n"
    "  }\n"
    "  if (!which || which == 2) {\n"
    "#pragma cgpredict kernel name(many_loads) block(128)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float s = 0;\n"
    "      for (int k = 0; k < M_LONG; k++)\n"
    "        s += P0[i][k] * P1[i][k] + P2[i][k] * P3[i][k] + P4[i][k] * P5[i][k] + P6[i][k] * P7[i][k] + P8[i][k] +\n"
    "             P0[i][k] * P1[i][k] + P2[i][k] * P3[i][k] + P4[i][k] * P5[i][k] + P6[i][k] * P7[i][k] + P8[i][k];\n"
    "      y[i] = s;\n"
    "    }\n"
    "  }\n"
    "  if (!which || which == 3) {\n"
    "#pragma cgpredict kernel name(invariant_load) block(128)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float s = 0;\n"
    "      for (int k = 0; k < M; k++) s += A[i][k] * x[i % M];\n"
    "      z[i] = s;\n"
    "    }\n"
    "#pragma cgpredict kernel name(short_trips) block(32)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float s = 0;\n"
    "      for (int k = 3 * (i % 7); k > 0; k -= 3) s += A[i][k];\n"
    "      y[i] += s;\n"
    "    }\n"
    "#pragma cgpredict kernel name(indirect) block(128)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float s = 0;\n"
    "      for (int k = 0; k < M; k++) s += A[i][idx[k]];\n"
    "      z[i] += s;\n"
    "    }\n"
    "  }\n"
    "  if (!which || which == 4) {\n"
    "#pragma cgpredict kernel name(zero_stride) block(128)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float s = 0;\n"
    "      for (int r = 0; r < 3; r++)\n"
    "        for (int k = 0; k < M; k++) s += x[k * zero] + A[i][k];\n"
    "      y[i] = s;\n"
    "    }\n"
    "  }\n"
    "  if (!which || which == 5) {\n"
    "#pragma cgpredict kernel name(long_rows) block(32)\n"
    "    for (int i = 0; i < ROWS; i++) {\n"
    "      float s = 0;\n"
    "      for (int k = 0; k < LONG; k++) s += R[i][k] * w[k];\n"
    "      o[i] = s;\n"
    "      for (int k = 0; k < 100 + i; k++) R[i][k] *= 0.5f;\n"
    "    }\n"
    "  }\n"
    "  if (!which || which == 6) {\n"
    "#pragma cgpredict kernel name(own_tiles) block(64)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float t[M], u[M];\n"
    "      short q[M];\n"
    "      for (int k = 0; k < M; k++) t[k] = A[i][k];\n"
    "      for (int k = 0; k < M; k++) u[k] = t[k] * 2 + x[k];\n"
    "      float s = 0;\n"
    "      for (int k = 0; k < M; k++) s += u[M - 1 - k] * t[k];\n"
    "      for (int k = 0; k < M; k++) q[k] = (short)(k + i);\n"
    "      for (int k = 0; k < M; k++) s += q[k];\n"
    "      y[i] = s;\n"
    "    }\n"
    "  }\n"
    "  double sum = 0;\n"
    "  for (int i = 0; i < N; i++) { sum += y[i] + z[i]; for (int j = 0; j < N; j++) sum += C[i][j]; }\n"
    "  for (int i = 0; i < ROWS; i++) sum += o[i] + R[i][i];\n"
    "  printf(\"%.1f\\n\", sum);\n"
    "  return 0;\n"
    "}\n";

static void build(void) {
  write_file("prog.c", program);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain prog.c"), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("%s build -- cc -O2 -o prog prog.c", CGP_DRIVER), 0, "build failed: %s", read_file("err.txt"));
}

/* Runs kernels `which` with CGPREDICT_FOLD=fold and `env`; checks the output against the plain
   build's; returns the report. */
static cJSON *run(int which, int fold, const char *env) {
  cr_assert_eq(sh("./plain %d", which), 0);
  char *plain = strdup(read_file("out.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_TRACE=0 CGPREDICT_FOLD=%d CGPREDICT_DEVICE=jetson-tk1,gpgpusim-qv100 "
                  "CGPREDICT_REPORT=r%d.json %s ./prog %d", fold, fold, env, which),
               0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), plain);
  free(plain);
  char name[16];
  snprintf(name, sizeof name, "r%d.json", fold);
  return report(name);
}

static double folded(cJSON *r) { return num(cJSON_GetObjectItem(r, "runtime"), "folded_iterations"); }

/* Both runs of every kernel, reports equal but for the fold count (and the run's id); returns the
   fold's count. */
static double fold_changes_nothing(int which, const char *env) {
  cJSON *each = run(which, 0, env), *fold = run(which, 1, env);
  cr_assert_eq(folded(each), 0, "CGPREDICT_FOLD=0 folds nothing");
  double n = folded(fold);
  cJSON_DeleteItemFromObject(cJSON_GetObjectItem(each, "runtime"), "folded_iterations");
  cJSON_DeleteItemFromObject(cJSON_GetObjectItem(fold, "runtime"), "folded_iterations");
  cJSON_DeleteItemFromObject(cJSON_GetObjectItem(each, "runtime"), "run_id");   /* each run's own */
  cJSON_DeleteItemFromObject(cJSON_GetObjectItem(fold, "runtime"), "run_id");
  char *a = cJSON_PrintUnformatted(each), *b = cJSON_PrintUnformatted(fold);
  cr_assert_str_eq(a, b, "the folded run's report differs from the hooked run's");
  free(a);
  free(b);
  cJSON_Delete(each);
  cJSON_Delete(fold);
  return n;
}

TestSuite(e2e_fold, .init = setup, .fini = teardown, .timeout = 300);

Test(e2e_fold, every_kernel_reports_what_a_hook_in_every_iteration_reports) {
  build();
  cr_assert_gt(fold_changes_nothing(0, "CGPREDICT_SAMPLE=full"), 0);
  cr_assert_gt(fold_changes_nothing(0, "CGPREDICT_ITERATIONS=all"), 0, "sampled threads traced whole fold too");
}

/* The product's k loop stores C[i][j] every iteration, which clears the held values: iteration 2
   leaves the state of iteration 1 moved on by one iteration, so iterations 3 to M - 1 of each of
   the N * N threads are folded. */
Test(e2e_fold, a_loop_storing_every_iteration_folds_all_but_its_first_three) {
  build();
  cr_assert_eq(fold_changes_nothing(1, "CGPREDICT_SAMPLE=full"), (double)N * N * (M - 3));
}

/* Nine new addresses a iteration turn the 16 slots of held values by 9: the state repeats every
   16 iterations, once every slot has been replaced since the lane began. */
Test(e2e_fold, held_values_turning_through_their_slots_fold_by_whole_periods) {
  build();
  double n = fold_changes_nothing(2, "CGPREDICT_SAMPLE=full");
  cr_assert_gt(n, 0);
  cr_assert_eq((long long)n % 16, 0, "%g iterations folded: whole periods of 16", n);
}

/* x[i % M] is held, evicted when the slots come round to it, loaded again: no two windows alike,
   nothing folded; the other two kernels are not foldable or too short. */
Test(e2e_fold, loops_whose_state_never_repeats_are_issued_one_by_one) {
  build();
  cr_assert_eq(fold_changes_nothing(3, "CGPREDICT_SAMPLE=full"), 0);
}

/* x[k * zero] is one address computed anew each iteration: not held from one iteration to the
   next (its stamp moves), so loaded every iteration; two new addresses a iteration turn the
   slots by 2 (period 8), leaving iterations after the last whole period and a loop entered
   three times per thread, where a stamp off by one would hold x. */
Test(e2e_fold, an_address_computed_anew_but_equal_is_loaded_in_every_iteration) {
  build();
  cr_assert_gt(fold_changes_nothing(4, "CGPREDICT_SAMPLE=full"), 0);
}

/* Sampling inside threads (the default): a folded loop's iterations in a window of traced ones
   fold, not past its end, and those sampling skips are skipped at once, as the instrumented code
   skips them one by one. long_rows's loop of 5000 iterations has windows at 0, 2048 and 4096,
   its loop of 100 + i iterations ends inside the first gap; the other kernels' loops are traced
   whole. Before, the fold was off while iterations were sampled. */
Test(e2e_fold, sampled_iterations_fold_inside_their_windows_and_skip_the_rest_at_once) {
  build();
  cr_assert_gt(fold_changes_nothing(5, ""), 0);
  cr_assert_gt(fold_changes_nothing(0, ""), 0);
  cr_assert_gt(fold_changes_nothing(0, "CGPREDICT_SAMPLE=skip"), 0);
}

/* A thread's own arrays in local memory (Rodinia's lud copies its tiles into three): a word of
   such an array sits at (offset / 4 * 32 + lane) * 4, so a loop stepping its floats by one moves
   the address 128 bytes an iteration, and folds as a global array's does. Before, every loop
   that reached local memory was issued iteration by iteration (a hook's work each). The loops
   over `short q[M]`, whose address moves by turns (two shorts a word), still are; the report is
   the same either way. */
Test(e2e_fold, loops_over_a_threads_own_arrays_fold_where_their_words_step_evenly) {
  build();
  cJSON *r = run(6, 1, "");
  cJSON *k = kernel_named(r, "own_tiles");
  int local = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) local += cJSON_IsTrue(cJSON_GetObjectItem(m, "local_memory"));
  cr_assert_geq(local, 6, "t, u and q are local memory: %d sites", local);
  cJSON_Delete(r);
  cr_assert_gt(fold_changes_nothing(6, ""), 10 * N, "the float loops fold");
}
