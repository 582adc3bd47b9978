/* End-to-end: build small marked programs with the cgpredict driver, run them, read the report. */
#include "e2e_util.h"

static const char *mm_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N 128\n"
  "static void kern(float (*A)[N], float (*B)[N], float (*C)[N]) {\n"
  "#pragma cgpredict kernel name(mm) dims(2) block(32,8)\n"
  "  for (int i = 0; i < N; i++)\n"
  "    for (int j = 0; j < N; j++) {\n"
  "      C[i][j] = 0;\n"
  "      for (int k = 0; k < N; k++)\n"
  "        C[i][j] += A[i][k] * B[k][j] + A[j][k];\n"
  "    }\n"
  "}\n"
  "int main(void) {\n"
  "  float (*A)[N] = malloc(sizeof(float[N][N])), (*B)[N] = malloc(sizeof(float[N][N])), (*C)[N] = malloc(sizeof(float[N][N]));\n"
  "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (i + j) % 7; B[i][j] = (i * j) % 5; }\n"
  "  kern(A, B, C);\n"
  "  double s = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += C[i][j];\n"
  "  printf(\"sum %.1f\\n\", s);\n"
  "  fprintf(stderr, \"to stderr\\n\");\n"
  "  free(A); free(B); free(C);\n"
  "  return 3;\n"
  "}\n";

TestSuite(e2e, .init = setup, .fini = teardown, .timeout = 300);

Test(e2e, marked_matrix_product_classes_and_transactions) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o mm mm.c", CGP_DRIVER), 0, "build failed: %s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_REPORT=r.json ./mm"), 3);
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "mm");
  cr_assert_eq(num(k, "launches"), 1);
  /* grid: blocks per dimension, as CUDA's gridDim (128 / 32, 128 / 8); threads_extent: threads */
  cJSON *grid = cJSON_GetObjectItem(k, "grid"), *ext = cJSON_GetObjectItem(k, "threads_extent");
  cr_assert_eq(cJSON_GetArrayItem(grid, 0)->valuedouble, 4);
  cr_assert_eq(cJSON_GetArrayItem(grid, 1)->valuedouble, 16);
  cr_assert_eq(cJSON_GetArrayItem(ext, 0)->valuedouble, 128);
  cr_assert_eq(cJSON_GetArrayItem(ext, 1)->valuedouble, 128);
  /* A[i][k]: the whole warp reads one address; B[k][j]: 32 consecutive floats = 2 lines of 64 B;
     A[j][k]: 32 rows apart, 32 lines. */
  cJSON *a_ik = site(k, 10, "load", "A"), *b = site(k, 10, "load", "B");
  cr_assert_str_eq(cJSON_GetObjectItem(b, "class")->valuestring, "coalesced");
  cr_assert_float_eq(num(b, "transactions_per_warp"), 2.0, 1e-9);
  int seen_const = 0, seen_uncoal = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    if (strcmp(cJSON_GetObjectItem(m, "array")->valuestring, "A") != 0) continue;
    const char *cls = cJSON_GetObjectItem(m, "class")->valuestring;
    if (strcmp(cls, "constant") == 0) { seen_const = 1; cr_assert_float_eq(num(m, "transactions_per_warp"), 1.0, 1e-9); }
    if (strcmp(cls, "uncoalesced") == 0) { seen_uncoal = 1; cr_assert_float_eq(num(m, "transactions_per_warp"), 32.0, 1e-9); }
  }
  (void)a_ik;
  cr_assert(seen_const && seen_uncoal, "A[i][k] constant and A[j][k] uncoalesced expected");
  cJSON *p = prediction(k, "jetson-tk1");
  cr_assert_gt(num(p, "time_ms"), 0);
  cr_assert_eq(num(p, "b"), 8);     /* 256 threads a block: 2048 / 256 */
  cr_assert_eq(num(p, "n"), 64);
  cr_assert_eq(num(p, "batch"), 8); /* 4 x 16 = 64 blocks, 8 resident at a time on 1 SM */
  cJSON_Delete(r);
}

Test(e2e, program_output_and_exit_status_unchanged) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain mm.c"), 0);
  cr_assert_eq(sh("./plain"), 3);
  char *plain_out = read_file("out.txt"), *plain_err = read_file("err.txt");
  cr_assert_eq(sh("%s build -- cc -O2 -o mm mm.c", CGP_DRIVER), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 ./mm"), 3);
  cr_assert_str_eq(read_file("out.txt"), plain_out);
  cr_assert_str_eq(read_file("err.txt"), plain_err);
}

Test(e2e, cc_form_compiles_and_links_in_separate_steps) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("%s cc -O2 -c mm.c -o mm.o && %s cc -o mm mm.o", CGP_DRIVER, CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./mm"), 3);
  cJSON *r = report("r.json");
  kernel_named(r, "mm");
  cJSON_Delete(r);
}

Test(e2e, sampled_prediction_agrees_with_full_trace) {
  /* 1-D kernel over 64K threads: many blocks, so sampling traces a fraction of them. */
  write_file("v.c",
    "#include <stdio.h>\n#include <stdlib.h>\n#define N 65536\n#define M 64\n"
    "int main(void) {\n"
    "  float *a = malloc(sizeof(float) * N * M), *x = malloc(sizeof(float) * M), *y = malloc(sizeof(float) * N);\n"
    "  for (int i = 0; i < N * M; i++) a[i] = i % 13;\n"
    "  for (int j = 0; j < M; j++) x[j] = j;\n"
    "#pragma cgpredict kernel name(mv) dims(1)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    y[i] = 0;\n"
    "    for (int j = 0; j < M; j++) y[i] += a[j * N + i] * x[j];\n"
    "  }\n"
    "  double s = 0; for (int i = 0; i < N; i++) s += y[i];\n"
    "  printf(\"%%.1f\\n\", s);\n  free(a); free(x); free(y);\n  return 0;\n}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o v v.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=s.json ./v"), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_REPORT=f.json ./v"), 0);
  cJSON *s = report("s.json"), *f = report("f.json");
  double ts = num(prediction(kernel_named(s, "mv"), "jetson-tk1"), "time_ms");
  double tf = num(prediction(kernel_named(f, "mv"), "jetson-tk1"), "time_ms");
  cJSON *sample = cJSON_GetArrayItem(cJSON_GetObjectItem(kernel_named(s, "mv"), "samples"), 0);
  cr_assert_lt(num(sample, "traced_warps"), num(sample, "total_warps") / 2, "sampling traced most warps");
  cr_assert_lt(fabs(ts - tf) / tf, 0.03, "sampled %g ms vs full %g ms", ts, tf);
  cJSON_Delete(s);
  cJSON_Delete(f);
}

/* The iterations a thread traces of a loop of T (runtime/cgp_rt_lanes.h), by hand: [0, 64) and
   [2048 k, 2048 k + 64). */
static unsigned traced_iterations(unsigned T) {
  if (T <= 64) return T;
  unsigned n = 64;
  for (unsigned s = 2048; s < T; s += 2048) n += T - s < 64 ? T - s : 64;
  return n;
}

static cJSON *tk1_analysis(cJSON *k) {
  cJSON *sample = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(sample, "analysis"), "jetson-tk1");
  cr_assert_not_null(a, "no jetson-tk1 analysis");
  return a;
}

/* Builds SRC (written before) into EXE with the libraries LIBS and runs it on the TK1 twice, sampled
   (s.json) and with every iteration traced (a.json), the two outputs the same; the two reports. */
static void sampled_and_every_iteration(const char *src, const char *exe, const char *libs, cJSON **s, cJSON **a) {
  cr_assert_eq(sh("%s build -- cc -O2 -o %s %s %s", CGP_DRIVER, exe, src, libs), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=s.json ./%s > s.out", exe), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_ITERATIONS=all CGPREDICT_REPORT=a.json ./%s > a.out", exe), 0);
  cr_assert_str_eq(read_file("s.out"), read_file("a.out"));
  *s = report("s.json");
  *a = report("a.json");
}

Test(e2e, long_loops_are_sampled_inside_threads_and_counted_whole) {
  /* 1024 threads in 4 blocks of 256, all traced (one window), each running a j loop of 5000
     iterations (mv) or of 2000 + i (tri). In run mode the runtime traces 192 of mv's 5000
     iterations per thread (0-63, 2048-2111, 4096-4159), each window standing for the
     iterations up to the next one or to the loop's end: the warp instruction counts must be those
     of the run that traces every iteration (CGPREDICT_ITERATIONS=all), exactly, the prediction
     within 3 %, the report must count the iterations skipped, and the program's output must not
     change. A third kernel, cond, runs mv's loop with a guarded store in it (a loop of several
     blocks, whose skipped iterations the instrumented code counts itself, cgp_abi.h): its
     iterations skipped must be counted exactly too. A fourth, acc, keeps its sum in y[i]: it loads
     y[i] in its first iteration only (a register holds it after the store), so the first window's
     iteration 0 stands for itself alone: 1 load of y a warp, not 1 + 31 (docs/pipeline.md). */
  write_file("lp.c",
    "#include <stdio.h>\n#include <stdlib.h>\n#define N 1024\n#define M 5000\n"
    "int main(void) {\n"
    "  float *a = malloc(sizeof(float) * N * M), *x = malloc(sizeof(float) * M), *y = malloc(sizeof(float) * N),\n"
    "        *z = malloc(sizeof(float) * N), *w = calloc(64, sizeof(float));\n"
    "  for (long i = 0; i < (long)N * M; i++) a[i] = i % 13;\n"
    "  for (int j = 0; j < M; j++) x[j] = j % 7;\n"
    "#pragma cgpredict kernel name(mv) dims(1)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    float s = 0;\n"
    "    for (int j = 0; j < M; j++) s += a[i * M + j] * x[j];\n"
    "    y[i] = s;\n"
    "  }\n"
    "#pragma cgpredict kernel name(tri) dims(1)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    float s = 0;\n"
    "    for (int j = 0; j < 2000 + i; j++) s += a[i * M + j];\n"
    "    z[i] = s;\n"
    "  }\n"
    "#pragma cgpredict kernel name(acc) dims(1)\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < M; j++) y[i] = y[i] + a[i * M + j] * x[j];\n"
    "#pragma cgpredict kernel name(cond) dims(1)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    float s = 0;\n"
    "    for (int j = 0; j < M; j++) { s += a[i * M + j]; if (a[i * M + j] > 11) w[(i + j) % 64] = s; }\n"
    "  }\n"
    "  double t = 0; for (int i = 0; i < N; i++) t += y[i] + z[i];\n"
    "  for (int k = 0; k < 64; k++) t += w[k];\n"
    "  printf(\"%%.1f\\n\", t);\n  free(a); free(x); free(y); free(z); free(w);\n  return 0;\n}\n");
  cJSON *s, *a;
  sampled_and_every_iteration("lp.c", "lp", "", &s, &a);
  double skipped_tri = 0;
  for (unsigned i = 0; i < 1024; i++) skipped_tri += 2000 + i - traced_iterations(2000 + i);
  const char *names[3] = {"mv", "tri", "acc"};
  double skipped[3] = {1024.0 * (5000 - traced_iterations(5000)), skipped_tri, 1024.0 * (5000 - traced_iterations(5000))};
  cJSON *kc = kernel_named(s, "cond");
  cr_assert_eq(num(kc, "loop_iterations_skipped"), skipped[0], "cond: %g iterations skipped, by hand %g",
               num(kc, "loop_iterations_skipped"), skipped[0]);
  for (int n = 0; n < 3; n++) {
    cJSON *ks = kernel_named(s, names[n]), *ka = kernel_named(a, names[n]);
    cr_assert_eq(num(ks, "loop_iterations_skipped"), skipped[n], "%s: %g iterations skipped, by hand %g", names[n],
                 num(ks, "loop_iterations_skipped"), skipped[n]);
    cr_assert_null(cJSON_GetObjectItem(ka, "loop_iterations_skipped"));
    /* every class together: exact; the split may differ where lanes left the loop in skipped
       iterations (tri's last iteration, one lane active: constant, is stood for by a window's) */
    cJSON *as = tk1_analysis(ks), *aa = tk1_analysis(ka);
    double is = 0, ia = 0;
    for (int c = 0; c < 3; c++) {
      is += cJSON_GetArrayItem(cJSON_GetObjectItem(as, "insts"), c)->valuedouble;
      ia += cJSON_GetArrayItem(cJSON_GetObjectItem(aa, "insts"), c)->valuedouble;
    }
    cr_assert_float_eq(is, ia, 1e-9 * ia, "%s: %g warp instructions per warp against %g", names[n], is, ia);
    cr_assert_float_eq(num(as, "total_insts"), num(aa, "total_insts"), 1e-9 * num(aa, "total_insts"));
    double ts = num(prediction(ks, "jetson-tk1"), "time_ms"), ta = num(prediction(ka, "jetson-tk1"), "time_ms");
    cr_assert_lt(fabs(ts - ta) / ta, 0.03, "%s: sampled %g ms, every iteration %g ms", names[n], ts, ta);
  }
  double accs = num(cJSON_GetObjectItem(s, "runtime"), "traced_accesses");
  double acca = num(cJSON_GetObjectItem(a, "runtime"), "traced_accesses");
  cr_assert_lt(accs, acca / 4, "%g accesses traced against %g", accs, acca);
  cJSON_Delete(s);
  cJSON_Delete(a);
}

/* A load the thread's registers let go every few iterations (MRI-Q's x[i], y[i], z[i]: four new
   addresses an iteration turn the runtime's 16 held values over, so they are loaded again every
   4th iteration) makes a run of one element every 4 iterations. It ran at iteration 0 and again
   after it, so that element is no start-up: its 16 elements in the first window (0, 4 ... 60)
   stand for the skipped iterations at their rate over the window's 64 iterations. A k loop of
   256 iterations (64 traced, 192 skipped) then counts its coalesced loads as every iteration
   traced does, 192 a warp (185.14 before: the element at 0 taken for the start-up, the other 15
   spread over 63 iterations, 45.7 skipped loads a site where 48 ran). */
Test(e2e, a_load_reloaded_every_few_iterations_counts_its_skipped_loads_at_its_rate) {
  write_file("mq.c",
    "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "struct kv { float kx, ky, kz, phi; };\n#define NK 256\n#define NX 8192\n"
    "int main(void) {\n"
    "  struct kv *k = malloc(NK * sizeof *k);\n"
    "  float *x = malloc(NX * 4), *y = malloc(NX * 4), *z = malloc(NX * 4), *qr = malloc(NX * 4), *qi = malloc(NX * 4);\n"
    "  for (int i = 0; i < NK; i++) { k[i].kx = i * 0.01f; k[i].ky = i * 0.02f; k[i].kz = i * 0.03f; k[i].phi = 1.0f / (i + 1); }\n"
    "  for (int i = 0; i < NX; i++) { x[i] = i * 0.001f; y[i] = i * 0.002f; z[i] = i * 0.003f; }\n"
    "#pragma cgpredict kernel name(q) dims(1)\n"
    "  for (int i = 0; i < NX; i++) {\n"
    "    float r = 0.0f, m = 0.0f;\n"
    "    for (int j = 0; j < NK; j++) {\n"
    "      float e = 6.2831853f * (k[j].kx * x[i] + k[j].ky * y[i] + k[j].kz * z[i]);\n"
    "      r += k[j].phi * cosf(e);\n"
    "      m += k[j].phi * sinf(e);\n"
    "    }\n"
    "    qr[i] = r;\n    qi[i] = m;\n"
    "  }\n"
    "  double t = 0; for (int i = 0; i < NX; i++) t += qr[i] + qi[i];\n"
    "  printf(\"%%.3f\\n\", t);\n"
    "  free(k); free(x); free(y); free(z); free(qr); free(qi);\n  return 0;\n}\n");
  cJSON *s, *a;
  sampled_and_every_iteration("mq.c", "mq", "-lm", &s, &a);
  cJSON *ks = kernel_named(s, "q"), *ka = kernel_named(a, "q");
  cr_assert_eq(num(ks, "loop_iterations_skipped"), 8192.0 * 192);
  cJSON *as = tk1_analysis(ks), *aa = tk1_analysis(ka);
  for (int c = 0; c < 3; c++) {
    double is = cJSON_GetArrayItem(cJSON_GetObjectItem(as, "insts"), c)->valuedouble;
    double ia = cJSON_GetArrayItem(cJSON_GetObjectItem(aa, "insts"), c)->valuedouble;
    cr_assert_float_eq(is, ia, 1e-6 * (ia + 1), "class %d: %g warp instructions a warp sampled, %g traced", c, is, ia);
  }
  cr_assert_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(aa, "insts"), 1)->valuedouble, 192, 1e-9,
                     "the coalesced loads of x, y and z: 3 sites, 64 of the 256 iterations each");
  double ts = num(prediction(ks, "jetson-tk1"), "time_ms"), ta = num(prediction(ka, "jetson-tk1"), "time_ms");
  cr_assert_float_eq(ts, ta, 1e-6 * ta, "sampled %g ms, every iteration %g ms", ts, ta);
  cJSON_Delete(s);
  cJSON_Delete(a);
}

/* A leaf loop that gathers (x[col[j]]: an index the thread reads from memory) is traced whole, not
   sampled inside the thread (docs/pipeline.md, "Sampling inside a thread"): CSR rows of 8 to 200
   elements, a thread a row (NPB CG's spmv). In a window every lane of the warp is in the loop; in
   the iterations after it only the lanes of long rows, fewer and fewer, whose gathers the
   window's instructions, weighted by the longest lane, overcount; and the lines the skipped
   gathers read follow the data, which no span can give. Sampled so, this kernel was +76 % against
   `full` on the TK1, and NPB CG's spmv +70 % (+0.01 % traced whole). */
Test(e2e, a_loop_that_gathers_is_traced_whole) {
  cJSON *r[2];
  build_run_and_full_tk1(
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#define ROWS 4096\n"
    "#define NX 65536\n"
    "int main(void) {\n"
    "  int *start = malloc(sizeof(int) * (ROWS + 1));\n"
    "  start[0] = 0;\n"
    "  for (int i = 0; i < ROWS; i++) start[i + 1] = start[i] + 8 + (i * 37) % 193;\n"
    "  int nnz = start[ROWS], *col = malloc(sizeof(int) * nnz);\n"
    "  float *v = malloc(sizeof(float) * nnz), *x = malloc(sizeof(float) * NX), *y = malloc(sizeof(float) * ROWS);\n"
    "  for (int j = 0; j < nnz; j++) { col[j] = (int)((j * 7919L) % NX); v[j] = (float)(j % 5); }\n"
    "  for (int j = 0; j < NX; j++) x[j] = (float)(j % 3);\n"
    "#pragma cgpredict kernel name(spmv) dims(1) block(128)\n"
    "  for (int i = 0; i < ROWS; i++) {\n"
    "    float s = 0;\n"
    "    for (int j = start[i]; j < start[i + 1]; j++) s += v[j] * x[col[j]];\n"
    "    y[i] = s;\n"
    "  }\n"
    "  double t = 0;\n"
    "  for (int i = 0; i < ROWS; i++) t += y[i];\n"
    "  printf(\"%.1f\\n\", t);\n"
    "  free(start); free(col); free(v); free(x); free(y);\n"
    "  return 0;\n"
    "}\n", r);
  cJSON *k = kernel_named(r[0], "spmv"), *skipped = cJSON_GetObjectItem(k, "loop_iterations_skipped");
  cr_expect(!skipped || skipped->valuedouble == 0, "%g iterations skipped", skipped ? skipped->valuedouble : 0);
  double run = num(prediction(k, "jetson-tk1"), "time_ms");
  double full = num(prediction(kernel_named(r[1], "spmv"), "jetson-tk1"), "time_ms");
  cr_expect(fabs(run - full) <= 0.01 * full, "run %g ms, full %g ms", run, full);
  cJSON_Delete(r[0]);
  cJSON_Delete(r[1]);
}

Test(e2e, untraced_threads_are_counted_and_sized_like_traced_ones) {
  /* A 2-D stencil of 125 x 300 threads in 32x8 blocks: 10 blocks per row, 160 in all, so the
     sample leaves whole blocks untraced, each row crossing traced and untraced blocks and
     window ends. The runtime answers an untraced row segment without its block arithmetic
     (cgp_rt_thread's fast path); the counts and the extent must still be those of every thread,
     and skip mode, which takes the same decisions, must give the same samples. */
  write_file("st.c",
    "#include <stdio.h>\n#define NI 125\n#define NJ 300\n"
    "static float a[NI + 2][NJ + 2], b[NI + 2][NJ + 2];\n"
    "int main(void) {\n"
    "  for (int i = 0; i < NI + 2; i++) for (int j = 0; j < NJ + 2; j++) a[i][j] = (i * 7 + j) % 11;\n"
    "  for (int t = 0; t < 4; t++) {\n"
    "#pragma cgpredict kernel name(st) dims(2) block(32,8)\n"
    "  for (int i = 1; i <= NI; i++)\n"
    "    for (int j = 1; j <= NJ; j++) b[i][j] = 0.25f * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);\n"
    "  }\n"
    "  double s = 0; for (int i = 0; i < NI + 2; i++) for (int j = 0; j < NJ + 2; j++) s += b[i][j];\n"
    "  printf(\"%.2f\\n\", s);\n  return 0;\n}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o st st.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./st > r.out"), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=skip CGPREDICT_REPORT=k.json ./st > k.out"), 0);
  cJSON *r = report("r.json"), *k = report("k.json");
  cJSON *rs = cJSON_GetObjectItem(kernel_named(r, "st"), "samples");
  cr_assert_eq(cJSON_GetArraySize(rs), 3, "launches 0, 1 and 2 analysed, got %d", cJSON_GetArraySize(rs));
  for (int i = 0; i < 3; i++) {
    cJSON *sr = cJSON_GetArrayItem(rs, i);
    cr_assert_eq(num(sr, "threads"), 125 * 300);
    cJSON *ext = cJSON_GetObjectItem(sr, "threads_extent"), *grid = cJSON_GetObjectItem(sr, "grid");
    cr_assert_eq(cJSON_GetArrayItem(ext, 0)->valuedouble, 301);   /* x = j: CUDA thread ids 0..300 */
    cr_assert_eq(cJSON_GetArrayItem(ext, 1)->valuedouble, 126);
    cr_assert_eq(cJSON_GetArrayItem(grid, 0)->valuedouble, 10);
    cr_assert_eq(cJSON_GetArrayItem(grid, 1)->valuedouble, 16);
    cr_assert_lt(num(sr, "traced_warps"), num(sr, "total_warps") / 2, "sampling traced most warps");
  }
  /* skip mode traces the same threads as run mode: the same report */
  cJSON *ks = cJSON_GetObjectItem(kernel_named(k, "st"), "samples");
  char *sa = cJSON_PrintUnformatted(rs), *sb = cJSON_PrintUnformatted(ks);
  cr_assert_str_eq(sa, sb);
  free(sa);
  free(sb);
  cJSON_Delete(r);
  cJSON_Delete(k);
}

Test(e2e, report_command_repredicts_the_same_time) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o mm mm.c && CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./mm", CGP_DRIVER), 3);
  cr_assert_eq(sh("%s report r.json --json > again.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cJSON *a = report("r.json"), *b = report("again.json");
  cr_assert_float_eq(num(prediction(kernel_named(a, "mm"), "jetson-tk1"), "time_ms"),
                     num(prediction(kernel_named(b, "mm"), "jetson-tk1"), "time_ms"), 1e-9);
  cr_assert_neq(sh("%s report r.json --device no-such-gpu", CGP_DRIVER), 0);
  cr_assert(strstr(read_file("err.txt"), "no-such-gpu"));
  cJSON_Delete(a);
  cJSON_Delete(b);
}

/* ---- bad input ------------------------------------------------------------------------------- */

static void expect_build_error(const char *src, const char *where, const char *what) {
  write_file("bad.c", src);
  cr_assert_neq(sh("%s build -- cc -o bad bad.c", CGP_DRIVER), 0, "a bad pragma built");
  char *err = read_file("err.txt");
  cr_assert(strstr(err, where), "error does not name %s: %s", where, err);
  cr_assert(strstr(err, what), "error does not say '%s': %s", what, err);
}

Test(e2e, unknown_clause_is_an_error_with_location) {
  expect_build_error("void f(float *a) {\n#pragma cgpredict kernel nmae(x)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
                     "bad.c:2:", "nmae");
}

Test(e2e, pragma_not_on_a_for_loop_is_an_error) {
  expect_build_error("void f(float *a) {\n  int i = 0;\n#pragma cgpredict kernel\n  while (i < 9) a[i++] = 0;\n}\n",
                     "bad.c:3:", "for");
}

Test(e2e, pointer_induction_variable_is_an_error) {
  expect_build_error("float a[64];\nvoid f(float *e) {\n#pragma cgpredict kernel\n  for (float *p = a; p != e; p++) *p = *p * 2 + 1;\n}\n",
                     "bad.c:4:", "integer");
}

/* The program comes first: a set-up error is reported, the program runs on untraced with its
   own output and status, no report is written; CGPREDICT_STRICT=1 would turn a status 0 into 1. */
Test(e2e, unknown_device_is_an_error_listing_the_known_ones) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("%s build -- cc -o mm mm.c", CGP_DRIVER), 0);
  cr_assert_eq(sh("CGPREDICT_DEVICE=no-such-gpu CGPREDICT_REPORT=r.json ./mm"), 3);
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "no-such-gpu") && strstr(err, "jetson-tk1"), "%s", err);
  cr_assert(strstr(err, "runs on without cgpredict"), "%s", err);
  cr_assert_str_eq(read_file("out.txt"), "sum 16276370.0\n");
  cr_assert_null(read_file("r.json"));
}

Test(e2e, malformed_device_file_names_the_field) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("mkdir devs && cp %s/devices/jetson-tk1.json devs/broken.json && "
                  "sed -i 's/\"freq_hz\"/\"freq_hz_typo\"/' devs/broken.json", CGP_SOURCE_DIR), 0);
  cr_assert_eq(sh("%s build -- cc -o mm mm.c", CGP_DRIVER), 0);
  cr_assert_eq(sh("CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=broken ./mm"), 3);
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "broken.json") && strstr(err, "freq_hz"), "%s", err);
}

Test(e2e, unwritable_report_is_reported_and_leaves_the_exit_status) {
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("%s build -- cc -o mm mm.c", CGP_DRIVER), 0);
  cr_assert_eq(sh("CGPREDICT_REPORT=no/such/dir/r.json ./mm"), 3);   /* the program's own status */
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "cannot write report") && strstr(err, "no/such/dir/r.json"), "%s", err);
  cr_assert(strstr(read_file("out.txt"), "sum "), "the program's own output was lost");
}

Test(e2e, exit_inside_a_kernel_writes_no_report) {
  write_file("ex.c",
    "#include <stdlib.h>\nfloat a[4096];\nint main(void) {\n"
    "#pragma cgpredict kernel name(early)\n"
    "  for (int i = 0; i < 4096; i++) { a[i] = i; if (i == 100) exit(0); }\n  return 0;\n}\n");
  cr_assert_eq(sh("%s build -- cc -o ex ex.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_REPORT=r.json ./ex"), 0);
  cr_assert(strstr(read_file("err.txt"), "exited inside kernel 'early'"), "%s", read_file("err.txt"));
  cr_assert_null(read_file("r.json"));
}

Test(e2e, sampled_2d_prediction_agrees_with_full_trace) {
  /* GEMM 256 in 32x32 blocks: 64 blocks, 4 traced per window */
  cr_assert_eq(sh("%s build -- cc -O2 -DN=256 -o g %s/examples/gemm.c", CGP_DRIVER, CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=s.json ./g"), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_REPORT=f.json ./g"), 0);
  cJSON *s = report("s.json"), *f = report("f.json");
  double ts = num(prediction(kernel_named(s, "gemm"), "jetson-tk1"), "time_ms");
  double tf = num(prediction(kernel_named(f, "gemm"), "jetson-tk1"), "time_ms");
  cr_assert_lt(num(cJSON_GetObjectItem(s, "runtime"), "traced_accesses"),
               num(cJSON_GetObjectItem(f, "runtime"), "traced_accesses") / 2);
  cr_assert_lt(fabs(ts - tf) / tf, 0.03, "sampled %g ms vs full %g ms", ts, tf);
  cJSON_Delete(s);
  cJSON_Delete(f);
}

Test(e2e, two_devices_with_different_lines_are_analysed_in_one_run) {
  /* a TK1 with 128-byte lines: a warp of 32 floats is then one transaction, not two */
  write_file("mm.c", mm_src);
  cr_assert_eq(sh("mkdir devs && cp %s/devices/jetson-tk1.json devs/ && "
                  "sed -e 's/\"name\": \"jetson-tk1\"/\"name\": \"wide\"/' "
                  "-e 's/\"l2_line_bytes\": 64/\"l2_line_bytes\": 128/' "
                  "-e 's/\"l2_sector_bytes\": 64/\"l2_sector_bytes\": 128/' "
                  "-e 's/\"l2_assoc\": 2048/\"l2_assoc\": 1024/' devs/jetson-tk1.json > devs/wide.json",
                  CGP_SOURCE_DIR), 0);
  cr_assert_eq(sh("%s build -- cc -o mm mm.c", CGP_DRIVER), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,wide "
                  "CGPREDICT_REPORT=r.json ./mm"), 3, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "mm");
  cJSON *b = site(k, 10, "load", "B");
  cJSON *by = cJSON_GetObjectItem(b, "by_device");
  cr_assert_float_eq(num(cJSON_GetObjectItem(by, "jetson-tk1"), "transactions_per_warp"), 2.0, 1e-9);
  cr_assert_float_eq(num(cJSON_GetObjectItem(by, "wide"), "transactions_per_warp"), 1.0, 1e-9);
  cr_assert_gt(num(prediction(k, "wide"), "time_ms"), 0);
  cr_assert_gt(num(prediction(k, "jetson-tk1"), "time_ms"), 0);
  cr_assert_eq(sh("CGPREDICT_DEVICES_DIR=devs %s report r.json --device wide", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cJSON_Delete(r);
}

Test(e2e, crash_inside_a_kernel_is_reported_and_writes_no_report) {
  write_file("crash.c",
    "#include <stdio.h>\nfloat a[4096];\nfloat *volatile hole = 0;\nint main(void) {\n"
    "  puts(\"before\");\n  fflush(stdout);\n"
    "#pragma cgpredict kernel name(crashing)\n"
    "  for (int i = 0; i < 4096; i++) { a[i] = i; if (i == 100) a[0] = *hole; }\n  return 0;\n}\n");
  cr_assert_eq(sh("%s build -- cc -o crash crash.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  int rc = sh("CGPREDICT_REPORT=r.json ./crash");
  cr_assert_neq(rc, 0);
  cr_assert(strstr(read_file("err.txt"), "crashed"), "%s", read_file("err.txt"));
  cr_assert(strstr(read_file("out.txt"), "before"), "the program's own output was lost");
  cr_assert_null(read_file("r.json"));
}

Test(e2e, warps_of_16x16_blocks_span_two_rows_and_divergence_is_counted) {
  /* 16-wide blocks: a warp is rows i and i+1 of 16 columns, so B[i][j] touches 2 lines of 64 B
     with a row's jump between lanes 15 and 16 (not coalesced by the definition, 2 transactions).
     The triangular inner loop gives the lanes of a warp different trip counts: divergence. */
  write_file("t.c",
    "#include <stdio.h>\n#define N 256\nfloat B[N][N], C[N][N];\nint main(void) {\n"
    "#pragma cgpredict kernel name(tile16) dims(2) block(16,16)\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++) {\n"
    "      float s = B[i][j];\n"
    "      for (int k = 0; k < j; k++) s += C[k][j];\n"
    "      B[i][j] = s;\n"
    "    }\n"
    "  printf(\"%%f\\n\", B[3][3]);\n  return 0;\n}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_REPORT=r.json ./t"), 0);
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "tile16");
  cJSON *b = site(k, 8, "load", "B");
  cr_assert_str_eq(cJSON_GetObjectItem(b, "class")->valuestring, "uncoalesced");
  cr_assert_float_eq(num(b, "transactions_per_warp"), 2.0, 1e-9);
  cJSON *dv = cJSON_GetObjectItem(k, "divergence");
  cr_assert_eq(num(dv, "warps_traced"), 256.0 * 256 / 32);
  cr_assert_eq(num(dv, "divergent_warps"), num(dv, "warps_traced"), "every warp has lanes with different j");
  cr_assert_eq(num(prediction(k, "jetson-tk1"), "b"), 8);
  cJSON_Delete(r);
}

/* A marked nest inside another is refused with both locations (the first version failed with
   "instrumented module does not verify"). */
Test(e2e, nested_marked_nests_are_refused_naming_both) {
  write_file("n.c",
    "#include <stdio.h>\n#define N 64\nfloat a[N][N];\nint main(void) {\n"
    "#pragma cgpredict kernel name(outer)\n"
    "  for (int i = 0; i < N; i++) {\n"
    "#pragma cgpredict kernel name(inner)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      a[i][j] = i + j;\n"
    "  }\n"
    "  printf(\"%f\\n\", a[3][4]);\n  return 0;\n}\n");
  cr_assert_neq(sh("%s build -- cc -O2 -o n n.c", CGP_DRIVER), 0);
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "n.c:8:5: error: kernel 'inner' is inside kernel 'outer' (n.c:6:3)"), "%s", err);
  cr_assert_null(strstr(err, "does not verify"), "%s", err);
}
