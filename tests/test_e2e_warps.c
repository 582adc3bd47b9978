/* End-to-end, issue "warps as a GPU forms them": small programs as a new user writes them, built
   with the driver; the program's output is the plain build's, and the report's classes,
   transactions and dependences are the hand-computed ones. */
#include "e2e_util.h"

/* Build `src` as prog.c both plainly and with cgpredict, run both, compare their output; return
   the report (TK1). */
static cJSON *build_and_run(const char *src) {
  write_file("prog.c", src);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain prog.c"), 0, "%s", read_file("err.txt"));
  int plain_status = sh("./plain");
  char *plain_out = strdup(read_file("out.txt"));
  cr_assert_eq(sh("%s build -- cc -O2 -o prog prog.c", CGP_DRIVER), 0, "build failed: %s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./prog"), plain_status,
               "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), plain_out);
  free(plain_out);
  return report("r.json");
}

/* The x coordinate of dependence d's example thread `which` (first_thread, second_thread). */
static double example_x(cJSON *d, const char *which) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "example"), which), 0)->valuedouble;
}

static int is_true(cJSON *o, const char *key) { return cJSON_IsTrue(cJSON_GetObjectItem(o, key)); }

static int line_of(cJSON *loc) { return (int)cJSON_GetObjectItem(loc, "line")->valuedouble; }

/* The dependence of a kind between two lines, or NULL. */
static cJSON *dependence(cJSON *k, const char *kind, int first_line, int second_line) {
  cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(k, "dependences"))
    if (strcmp(cJSON_GetObjectItem(d, "kind")->valuestring, kind) == 0 &&
        line_of(cJSON_GetObjectItem(d, "first")) == first_line &&
        line_of(cJSON_GetObjectItem(d, "second")) == second_line)
      return d;
  return NULL;
}

TestSuite(e2e_warps, .init = setup, .fini = teardown, .timeout = 300);

/* Lane i runs i % 64 + 1 iterations: a GPU runs iteration t with the lanes still in the loop, all
   at one address a[t] (constant, 1 line), and reconverges before x[i] and y[i] (32 lanes, 32
   consecutive floats: coalesced, 2 lines of 64 bytes). */
Test(e2e_warps, triangular_loop_reconverges) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 2048\n"
      "float a[64], x[N], y[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < 64; i++) a[i] = i * 0.5f;\n"
      "  for (int i = 0; i < N; i++) x[i] = i % 13;\n"
      "#pragma cgpredict kernel name(tri) block(256)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    float s = 0;\n"
      "    for (int j = 0; j <= i % 64; j++)\n"
      "      s += a[j];\n"
      "    y[i] = x[i] + s;\n"
      "  }\n"
      "  double t = 0; for (int i = 0; i < N; i++) t += y[i];\n"
      "  printf(\"%.1f\\n\", t);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "tri");
  cJSON *a = site(k, 11, "load", "a"), *x = site(k, 12, "load", "x"), *y = site(k, 12, "store", "y");
  cr_assert_str_eq(cJSON_GetObjectItem(a, "class")->valuestring, "constant");
  cr_assert_float_eq(num(a, "transactions_per_warp"), 1.0, 1e-9);
  cr_assert_str_eq(cJSON_GetObjectItem(x, "class")->valuestring, "coalesced");
  cr_assert_float_eq(num(x, "transactions_per_warp"), 2.0, 1e-9);
  cr_assert_str_eq(cJSON_GetObjectItem(y, "class")->valuestring, "coalesced");
  cr_assert_float_eq(num(y, "transactions_per_warp"), 2.0, 1e-9);
  /* one x[i] and one y[i] instruction per warp: 2048 / 32 = 64 warps */
  cr_assert_eq(num(x, "warp_instructions_traced"), 64);
  /* a[j]: warp w (lanes 32w .. 32w+31, i % 64 = 32(w%2) + lane) issues 32 + 32(w%2) iterations */
  cr_assert_eq(num(a, "warp_instructions_traced"), 32 * (32 + 64));
  cr_assert(is_true(k, "parallel_safe"));
  cr_assert_gt(num(cJSON_GetObjectItem(k, "divergence"), "masked_issue_slots_per_warp"), 0);
  cJSON_Delete(r);
}

/* p[i] = p[i-1] + x[i]: thread i reads what thread i-1 wrote (raw, the store first). */
Test(e2e_warps, prefix_recurrence_is_not_parallel) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 1024\n"
      "float p[N], x[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) x[i] = i % 3;\n"
      "#pragma cgpredict kernel name(prefix)\n"
      "  for (int i = 1; i < N; i++) {\n"
      "    float prev = p[i - 1];\n"
      "    p[i] = prev + x[i];\n"
      "  }\n"
      "  printf(\"%.1f\\n\", p[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "prefix");
  cr_assert(!is_true(k, "parallel_safe"));
  cJSON *d = dependence(k, "raw", 9, 8);
  cr_assert_not_null(d, "raw from the store of p (line 9) to the load of p[i-1] (line 8) expected");
  double t1 = example_x(d, "first_thread"), t2 = example_x(d, "second_thread");
  cr_assert_eq(t2, t1 + 1, "thread %g writes what thread %g reads", t1, t2);
  cJSON_Delete(r);
}

/* Every thread adds into one of 16 bins: threads write one element (waw) and read what another
   wrote (raw): a reduction, with the CUDA remedy in words. The bins are chosen by the data
   (h[key[i] % 16], the pass's index_loaded): a histogram, per-block histograms its other way. The
   raw between the update's read and its write is that update's, with the same remedy: it said
   "split the loop into launches at the dependence" (Parboil's histo: three remedies for one
   `++histo[value]`). */
Test(e2e_warps, histogram_is_a_reduction) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "int key[N], h[16];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) key[i] = (i * 7) % 31;\n"
      "#pragma cgpredict kernel name(hist)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    h[key[i] % 16] += 1;\n"
      "  for (int b = 0; b < 16; b++) printf(\"%d \", h[b]);\n"
      "  printf(\"\\n\");\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "hist");
  cr_assert(!is_true(k, "parallel_safe"));
  cJSON *waw = dependence(k, "waw", 8, 8);
  cr_assert_not_null(waw);
  cr_assert(is_true(waw, "reduction"));
  cr_assert_not_null(strstr(cJSON_GetObjectItem(waw, "remedy")->valuestring, "atomicAdd"));
  cr_assert_not_null(strstr(cJSON_GetObjectItem(waw, "remedy")->valuestring, "a histogram"));
  cJSON *raw = dependence(k, "raw", 8, 8);
  cr_assert_not_null(raw);
  cr_assert(is_true(raw, "reduction"));
  const char *remedy = cJSON_GetObjectItem(raw, "remedy")->valuestring;
  cr_assert(strstr(remedy, "one update of the reduction into h") && strstr(remedy, "atomicAdd") &&
            !strstr(remedy, "split the loop"), "%s", remedy);
  cJSON_Delete(r);
}

/* y[i] = a * x[i] + y[i]: every thread its own elements. */
Test(e2e_warps, elementwise_kernel_is_parallel) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "float x[N], y[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { x[i] = i; y[i] = 1; }\n"
      "#pragma cgpredict kernel name(axpy)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    y[i] = 2.5f * x[i] + y[i];\n"
      "  printf(\"%.1f\\n\", y[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "axpy");
  cr_assert(is_true(k, "parallel_safe"));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "dependences")), 0);
  cJSON_Delete(r);
}

/* A jagged array as old C code builds it (Rodinia's backprop: float **, each row of 17 floats
   malloc'd apart, so rows lie 80 bytes apart): thread (j, k) updates w[k][j], its own element.
   Parallel, no dependence; a warp (32 values of k at one j) touches 32 rows: 32 transactions.
   Placing each row at its own 256-byte boundary by shifting it down (as before) laid three rows
   over each other: 6 false dependences in backprop, fewer transactions, lines shared. */
Test(e2e_warps, rows_malloced_apart_do_not_alias) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#include <stdlib.h>\n"
      "#define R 1024\n"
      "#define C 17\n"
      "int main(void) {\n"
      "  float **w = malloc(R * sizeof *w);\n"
      "  for (int k = 0; k < R; k++) { w[k] = malloc(C * sizeof(float)); for (int j = 0; j < C; j++) w[k][j] = k + j; }\n"
      "#pragma cgpredict kernel name(rows) dims(2)\n"
      "  for (int j = 0; j < C; j++)\n"
      "    for (int k = 0; k < R; k++)\n"
      "      w[k][j] = 0.5f * w[k][j] + 1;\n"
      "  double s = 0;\n"
      "  for (int k = 0; k < R; k++) { for (int j = 0; j < C; j++) s += w[k][j]; free(w[k]); }\n"
      "  free(w);\n"
      "  printf(\"%.1f\\n\", s);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "rows");
  cr_assert(is_true(k, "parallel_safe"), "%s", cJSON_Print(cJSON_GetObjectItem(k, "dependences")));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "dependences")), 0);
  cJSON *m;
  int elements = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    if (strcmp(cJSON_GetObjectItem(m, "array")->valuestring, "w") != 0) continue;
    double tx = cJSON_GetObjectItem(m, "transactions_per_warp")->valuedouble;
    if (cJSON_GetObjectItem(m, "size")->valuedouble != 4) continue;   /* the row pointers w[k] */
    elements++;
    cr_assert_float_eq(tx, 32.0, 1e-9, "line %d: %g transactions per warp, one row per lane is 32",
                       (int)cJSON_GetObjectItem(m, "line")->valuedouble, tx);
  }
  cr_assert_geq(elements, 2, "the load and the store of w[k][j]");
  cJSON_Delete(r);
}

/* A nest that calls functions of its file, as Rodinia's kmeans does (find_nearest_point, and in
   it an inline distance function, the kernel's whole work): nvcc inlines a kernel's __device__
   functions, so cgpredict inlines what a marked nest calls (cgp_mark.c, inline_callees) and
   traces their accesses as the nest's. Before, the call was reported "not traced" and the
   distance loop missing from the prediction; then, inlined, the module failed to verify (the
   thread header's moved llvm.dbg.value took the builder's location, of another function). By
   hand: lane i reads p[k] = feature[i][k], rows of 12 floats, 48 bytes apart: uncoalesced;
   q[k] = clusters[c][k], one address for the warp: constant; no call left to warn about. */
Test(e2e_warps, functions_a_nest_calls_are_inlined_and_traced) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#include <stdlib.h>\n"
      "#include <float.h>\n"
      "__inline float dist2(float *p, float *q, int n) {\n"
      "  int i;\n"
      "  float s = 0.0;\n"
      "  for (i = 0; i < n; i++) s += (p[i] - q[i]) * (p[i] - q[i]);\n"
      "  return s;\n"
      "}\n"
      "int nearest(float *pt, int nf, float **c, int nc) {\n"
      "  int index, i;\n"
      "  float best = FLT_MAX;\n"
      "  for (i = 0; i < nc; i++) {\n"
      "    float d;\n"
      "    d = dist2(pt, c[i], nf);\n"
      "    if (d < best) { best = d; index = i; }\n"
      "  }\n"
      "  return index;\n"
      "}\n"
      "int cluster(float **feature, int nf, int np, float **clusters, int nc, int *membership) {\n"
      "  int i, j, index, loops = 0;\n"
      "  float delta;\n"
      "  int *len = calloc(nc, sizeof(int));\n"
      "  float **newc = malloc(nc * sizeof *newc);\n"
      "  newc[0] = calloc(nc * nf, sizeof(float));\n"
      "  for (i = 1; i < nc; i++) newc[i] = newc[i - 1] + nf;\n"
      "  do {\n"
      "    delta = 0.0;\n"
      "#pragma cgpredict kernel name(assign)\n"
      "    for (i = 0; i < np; i++) {\n"
      "      index = nearest(feature[i], nf, clusters, nc);\n"
      "      if (membership[i] != index) delta += 1.0;\n"
      "      membership[i] = index;\n"
      "      len[index]++;\n"
      "      for (j = 0; j < nf; j++) newc[index][j] += feature[i][j];\n"
      "    }\n"
      "    for (i = 0; i < nc; i++) {\n"
      "      for (j = 0; j < nf; j++) { if (len[i] > 0) clusters[i][j] = newc[i][j] / len[i]; newc[i][j] = 0.0; }\n"
      "      len[i] = 0;\n"
      "    }\n"
      "  } while (delta > 0 && ++loops < 4);\n"
      "  free(newc[0]); free(newc); free(len);\n"
      "  return loops;\n"
      "}\n"
      "int main(void) {\n"
      "  enum { NP = 2048, NF = 12, NC = 4 };\n"
      "  float **feature = malloc(NP * sizeof *feature), **clusters = malloc(NC * sizeof *clusters);\n"
      "  feature[0] = malloc(NP * NF * sizeof(float));\n"
      "  for (int i = 1; i < NP; i++) feature[i] = feature[i - 1] + NF;\n"
      "  clusters[0] = malloc(NC * NF * sizeof(float));\n"
      "  for (int i = 1; i < NC; i++) clusters[i] = clusters[i - 1] + NF;\n"
      "  for (int i = 0; i < NP; i++) for (int j = 0; j < NF; j++) feature[i][j] = (i % NC) * 3 + (i * 7 + j) % 5 * 0.1f;\n"
      "  for (int c = 0; c < NC; c++) for (int j = 0; j < NF; j++) clusters[c][j] = feature[c][j];\n"
      "  int *membership = malloc(NP * sizeof(int));\n"
      "  for (int i = 0; i < NP; i++) membership[i] = -1;\n"
      "  int loops = cluster(feature, NF, NP, clusters, NC, membership);\n"
      "  long s = 0;\n"
      "  for (int i = 0; i < NP; i++) s += membership[i] * (i % 11);\n"
      "  printf(\"%d loops, %ld\\n\", loops, s);\n"
      "  free(feature[0]); free(feature); free(clusters[0]); free(clusters); free(membership);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "assign");
  cJSON *w;
  cJSON_ArrayForEach(w, cJSON_GetObjectItem(k, "warnings"))
    cr_assert_null(strstr(w->valuestring, "not traced"), "%s", w->valuestring);
  int p = 0, q = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    if (line_of(m) != 7 || cJSON_GetObjectItem(m, "warp_instructions_traced")->valuedouble == 0) continue;
    const char *cls = cJSON_GetObjectItem(m, "class")->valuestring;
    p += strcmp(cls, "uncoalesced") == 0;
    q += strcmp(cls, "constant") == 0;
  }
  cr_assert(p >= 1 && q >= 1, "dist2's p[i] (uncoalesced: %d sites) and q[i] (constant: %d sites) traced", p, q);
  cJSON_Delete(r);
}

/* A function a nest calls is inlined into the nest only: its attributes are the user's. Here
   `sum_row` is static and `noinline` and is also called outside the nest; before, it was given
   `alwaysinline` and lost `noinline` for the whole file, so it was inlined at both calls and
   vanished from the program. Now the nest's call is inlined (its loads of row[j] are the nest's
   sites: lane i reads row i, 64 bytes apart, uncoalesced) and the program keeps `sum_row` for
   the other call, as clang -O2 builds it. */
Test(e2e_warps, a_callee_is_inlined_into_the_nest_only_and_keeps_its_noinline) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 1024\n"
      "static float a[N][16], s[N];\n"
      "__attribute__((noinline)) static float sum_row(const float *row) {\n"
      "  float t = 0;\n"
      "  for (int j = 0; j < 16; j++) t += row[j];\n"
      "  return t;\n"
      "}\n"
      "int main(int argc, char **argv) {\n"
      "  (void)argv;\n"
      "  for (int i = 0; i < N; i++) for (int j = 0; j < 16; j++) a[i][j] = (i + j) % 9;\n"
      "#pragma cgpredict kernel name(rows)\n"
      "  for (int i = 0; i < N; i++) s[i] = sum_row(a[i]);\n"
      "  printf(\"%.0f %.0f\\n\", s[N - 1], sum_row(a[argc]));\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "rows");
  cJSON *w;
  cJSON_ArrayForEach(w, cJSON_GetObjectItem(k, "warnings"))
    cr_assert_null(strstr(w->valuestring, "not traced"), "%s", w->valuestring);
  cJSON *row = site(k, 6, "load", "row");
  cr_assert_str_eq(cJSON_GetObjectItem(row, "class")->valuestring, "uncoalesced");
  cJSON_Delete(r);
  cr_assert_eq(sh("nm prog | grep -c ' [tT] sum_row'"), 0, "sum_row was inlined at its call outside the nest: %s",
               read_file("out.txt"));
}

/* A local array of the host function declared before the nest (MachSuite's viterbi: its DP
   table) is one array for every iteration: global memory on a GPU, traced like a global array,
   so step t reading row t - 1 is a dependence and the loop is not parallel. Before, every access
   whose base is an alloca was taken for thread-private: no site, no dependence, "parallel". A
   local declared inside the nest (tmp) is each thread's own and stays untraced. */
Test(e2e_warps, a_local_array_declared_before_the_nest_is_shared_and_traced) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define T 64\n"
      "#define S 64\n"
      "int main(void) {\n"
      "  double loc[T][S];\n"
      "  for (int s = 0; s < S; s++) loc[0][s] = s;\n"
      "#pragma cgpredict kernel name(steps) dims(1)\n"
      "  for (int t = 1; t < T; t++)\n"
      "    for (int s = 0; s < S; s++) {\n"
      "      volatile double tmp[2];\n"
      "      tmp[0] = loc[t - 1][(s + 1) % S];\n"
      "      tmp[1] = tmp[0] + 1.0;\n"
      "      loc[t][s] = tmp[1];\n"
      "    }\n"
      "  printf(\"%.1f\\n\", loc[T - 1][3]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "steps");
  cr_assert(!is_true(k, "parallel_safe"));
  cr_assert_not_null(dependence(k, "raw", 13, 11), "raw from the store of loc[t][s] (13) to the load of loc[t-1] (11)");
  cr_assert_str_eq(cJSON_GetObjectItem(site(k, 11, "load", "loc"), "class")->valuestring, "uncoalesced");   /* rows 512 B apart */
  cr_assert_not_null(site(k, 13, "store", "loc"));
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory"))
    cr_assert_str_neq(cJSON_GetObjectItem(m, "array")->valuestring, "tmp", "tmp is each thread's own");
  cJSON_Delete(r);
}

/* A struct assigned whole is a call to llvm.memcpy in clang's IR, not a load and a store: such a
   copy of constant length is traced as a load of its source and a store of its destination, of
   the struct's size (MachSuite's md/grid: `q = *(base_q + q_idx)`, its hot load, was missing).
   `a[i + 1] = a[i]` is then a dependence (thread i + 1 reads what thread i writes: raw, at line
   9); `q = p[i]` into a local declared in the nest is a load of 24 bytes only (q is each
   thread's own), lane i at 24 i: the lanes' elements abut (coalesced), 24 B x 32 lanes = 768 B =
   12 lines of 64 B (TK1; p is placed on a 256-byte boundary, 768 a multiple of 64). Before,
   both kernels had no site at all and `shift` was called parallel. */
Test(e2e_warps, a_struct_assigned_whole_is_a_load_and_a_store_of_its_size) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "typedef struct { double x, y, z; } vec3;\n"
      "#define N 1024\n"
      "vec3 a[N], p[N];\n"
      "double s[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { a[i].x = i; a[i].y = 2 * i; a[i].z = 3 * i; p[i] = a[i]; }\n"
      "#pragma cgpredict kernel name(shift)\n"
      "  for (int i = 0; i < N - 1; i++) a[i + 1] = a[i];\n"
      "#pragma cgpredict kernel name(norm)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    vec3 q = p[i];\n"
      "    s[i] = q.x * q.x + q.y * q.y + q.z * q.z;\n"
      "  }\n"
      "  printf(\"%.1f %.1f\\n\", a[N - 1].x, s[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "shift");
  cr_assert(!is_true(k, "parallel_safe"));
  cr_assert_not_null(dependence(k, "raw", 9, 9));
  cr_assert_eq(num(site(k, 9, "load", "a"), "size"), 24);
  cr_assert_eq(num(site(k, 9, "store", "a"), "size"), 24);
  k = kernel_named(r, "norm");
  cr_assert(is_true(k, "parallel_safe"));
  cJSON *q = site(k, 12, "load", "p");
  cr_assert_eq(num(q, "size"), 24);
  cr_assert_str_eq(cJSON_GetObjectItem(q, "class")->valuestring, "coalesced");
  cr_assert_float_eq(num(q, "transactions_per_warp"), 12.0, 1e-9);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "memory")), 2, "p[i] and s[i]; q is the thread's own");
  cJSON_Delete(r);
}

/* The same recurrence counting down: iteration i reads a[i + 1], which iteration i + 1 wrote
   just before (a suffix sum): raw, from thread i + 1 to thread i, with the remedy for a flow
   dependence. Before, threads were ordered by index whatever the loop's direction: war, with the
   remedy "give each thread its own element", which would not help (found trying MachSuite's
   viterbi backtrack). */
Test(e2e_warps, a_descending_recurrence_is_a_raw_from_the_thread_that_runs_first) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 1024\n"
      "double a[N + 1];\n"
      "int main(void) {\n"
      "  for (int i = 0; i <= N; i++) a[i] = i % 5;\n"
      "#pragma cgpredict kernel name(suffix)\n"
      "  for (int i = N - 1; i >= 0; i--)\n"
      "    a[i] = a[i + 1] + a[i];\n"
      "  printf(\"%.1f\\n\", a[0]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "suffix");
  cr_assert(!is_true(k, "parallel_safe"));
  cJSON *d = dependence(k, "raw", 8, 8);
  cr_assert_not_null(d, "raw from the store of a[i] to the load of a[i + 1]");
  cr_assert_null(dependence(k, "war", 8, 8));
  double t1 = example_x(d, "first_thread"), t2 = example_x(d, "second_thread");
  cr_assert_eq(t1, t2 + 1, "thread %g writes what thread %g, run after it, reads", t1, t2);
  cJSON_Delete(r);
}

/* ELLPACK's sparse product: row i's padding repeats column 0 (x[0] three times in a row). The
   address x[cols[i * W + j]] is computed anew every j, so a compiler cannot hold x[0] from one
   iteration for the next: every lane loads x every iteration, the warp never diverges. */
Test(e2e_warps, a_gather_whose_index_repeats_is_loaded_every_iteration) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 1024\n"
      "#define W 8\n"
      "double val[N * W], x[N], y[N];\n"
      "int cols[N * W];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++)\n"
      "    for (int j = 0; j < W; j++) {\n"
      "      cols[i * W + j] = j < 4 ? (i + 37 * j) % N : 0;\n"
      "      val[i * W + j] = j < 4 ? 1.0 + j : 0.0;\n"
      "    }\n"
      "  for (int i = 0; i < N; i++) x[i] = i % 9;\n"
      "#pragma cgpredict kernel name(ell)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    double s = 0;\n"
      "    for (int j = 0; j < W; j++)\n"
      "      s += val[i * W + j] * x[cols[i * W + j]];\n"
      "    y[i] = s;\n"
      "  }\n"
      "  printf(\"%.1f\\n\", y[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "ell");
  cJSON *x = site(k, 17, "load", "x");
  cr_assert_eq(num(x, "forwarded_from_register"), 0);
  cr_assert_eq(num(x, "warp_instructions_traced"), 1024 / 32 * 8);
  cr_assert_eq(num(x, "active_lanes_per_warp_instruction"), 32);
  cr_assert_eq(num(cJSON_GetObjectItem(k, "divergence"), "divergent_warps"), 0);
  cJSON_Delete(r);
}

/* A site of a struct field is named by the array it indexes, as shared() names it: pos[i].x,
   cell[i]->v, grid[i].c[1], a store to out[i].y; not by the field (x, v, c, y). */
Test(e2e_warps, a_struct_field_site_is_named_by_its_array) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 256\n"
      "typedef struct { double x, y; } vec;\n"
      "typedef struct { int v; } node;\n"
      "typedef struct { int c[4]; } box;\n"
      "vec pos[N], out[N];\n"
      "node nodes[N], *cell[N];\n"
      "box grid[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { pos[i].x = i; nodes[i].v = i % 3; cell[i] = &nodes[i]; grid[i].c[1] = 2 * i; }\n"
      "#pragma cgpredict kernel name(fields)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    out[i].y = pos[i].x * 1.5 + cell[i]->v;\n"
      "    out[i].x = grid[i].c[1];\n"
      "  }\n"
      "  printf(\"%.1f %.1f\\n\", out[N - 1].x, out[N - 1].y);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "fields");
  cr_assert_not_null(site(k, 13, "load", "pos"));
  cr_assert_not_null(site(k, 13, "store", "out"));
  cr_assert_not_null(site(k, 14, "load", "grid"));
  cr_assert_not_null(site(k, 14, "store", "out"));
  int cells = 0;
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(k, "memory")) cells += strcmp(cJSON_GetObjectItem(s, "array")->valuestring, "cell") == 0;
  cr_assert_eq(cells, 2, "cell[i] and cell[i]->v");
  cJSON_Delete(r);
}

/* A struct of arrays: `s->x[i]` and `g.y[i]` index members, named by their path (`s->x`, `g.y`);
   every site of it was named `s` (found trying struct-of-arrays code after Parboil). The bound
   `s->n`, a member read whole, is still `s`. */
Test(e2e_warps, a_struct_of_arrays_site_is_named_by_its_member) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 256\n"
      "typedef struct { float *x; int n; } soa;\n"
      "typedef struct { float y[N]; } arr;\n"
      "static float xs[N];\n"
      "static arr g;\n"
      "static void k(soa *s) {\n"
      "#pragma cgpredict kernel name(soa)\n"
      "  for (int i = 0; i < s->n; i++) g.y[i] = s->x[i] * 2;\n"
      "}\n"
      "int main(void) {\n"
      "  soa s = {xs, N};\n"
      "  for (int i = 0; i < N; i++) xs[i] = i;\n"
      "  k(&s);\n"
      "  printf(\"%.1f\\n\", g.y[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "soa");
  cr_assert_not_null(site(k, 9, "store", "g.y"));
  int xs = 0, whole = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    const char *a = cJSON_GetObjectItem(m, "array")->valuestring;
    xs += strcmp(a, "s->x") == 0;
    whole += strcmp(a, "s") == 0;
  }
  cr_assert_geq(xs, 1, "a load of s->x[i] named s->x");
  cr_assert_geq(whole, 1, "the bound s->n named s");
  cJSON_Delete(r);
}

/* A search left by a break when it finds its key is no parallel loop: the report says so with
   an "exit" entry at the break, its program's output is its own, and the prediction covers the
   threads the CPU ran (up to the key). */
Test(e2e_warps, a_search_left_by_a_break_is_not_parallel) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "int a[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) a[i] = i * 7 % 1000;\n"
      "  int found = -1;\n"
      "#pragma cgpredict kernel name(search)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    if (a[i] == 999) { found = i; break; }\n"
      "  printf(\"%d\\n\", found);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "search");
  cr_assert(!is_true(k, "parallel_safe"));
  cJSON *d = dependence(k, "exit", 9, 9);
  cr_assert_not_null(d, "the break at line 9");
  cr_assert_eq(num(cJSON_GetObjectItem(d, "first"), "loop_line"), 8);
  cr_assert(strstr(cJSON_GetObjectItem(d, "remedy")->valuestring, "atomicMin"));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "dependences")), 1);
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
  cr_assert_eq(num(s, "threads"), 858, "threads 0..857: 857 * 7 = 5999");
  cr_assert_eq(sh("%s report r.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert(strstr(read_file("out.txt"), "not parallel as written: 1 early exit(s) from a mapped loop (see"),
            "%s", read_file("out.txt"));
  cJSON_Delete(r);
}

/* y[i] = c[0] * x[i]: the CPU compiler loads c[0] once for the whole loop; every CUDA thread
   loads it: a constant load, 1 transaction, one per warp. */
Test(e2e_warps, load_hoisted_out_of_the_nest_is_traced) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "float c[4] = {3, 1, 4, 1}, x[N], y[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) x[i] = i % 5;\n"
      "#pragma cgpredict kernel name(scale)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    y[i] = c[0] * x[i];\n"
      "  printf(\"%.1f\\n\", y[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "scale");
  cJSON *c = site(k, 8, "load", "c");
  cr_assert_str_eq(cJSON_GetObjectItem(c, "class")->valuestring, "constant");
  cr_assert_float_eq(num(c, "transactions_per_warp"), 1.0, 1e-9);
  cr_assert_eq(num(c, "warp_instructions_traced"), 4096 / 32);
  cr_assert_gt(num(c, "line"), 0);
  cJSON_Delete(r);
}

/* A descending sweep visits lane 31 of each warp first: the warp is still the 32 threads it is
   on the GPU, so the prediction equals the ascending loop's (the first version closed the warp at
   lane 31 and predicted the descending loop 44 % faster). */
Test(e2e_warps, descending_loop_forms_the_same_warps) {
  const char *fmt =
      "#include <stdio.h>\n"
      "#define N 8192\n"
      "float x[N], y[N], A[N][16];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) x[i] = i %% 7;\n"
      "#pragma cgpredict kernel name(k)\n"
      "  for (int i = %s) {\n"
      "    float s = 0;\n"
      "    for (int j = 0; j < 16; j++) s += A[i][j];\n"
      "    y[i] = x[i] + s;\n"
      "  }\n"
      "  printf(\"%%.1f\\n\", y[5]);\n"
      "  return 0;\n"
      "}\n";
  double t[2];
  const char *loops[2] = {"0; i < N; i++", "N - 1; i >= 0; i--"};
  for (int d = 0; d < 2; d++) {
    char src[1024];
    snprintf(src, sizeof src, fmt, loops[d]);
    cJSON *r = build_and_run(src);
    cJSON *k = kernel_named(r, "k");
    t[d] = num(prediction(k, "jetson-tk1"), "time_ms");
    cr_assert_str_eq(cJSON_GetObjectItem(site(k, 10, "load", "x"), "class")->valuestring, "coalesced", "loop %s", loops[d]);
    cr_assert_str_eq(cJSON_GetObjectItem(site(k, 9, "load", "A"), "class")->valuestring, "uncoalesced");
    cJSON_Delete(r);
  }
  cr_assert_lt(fabs(t[1] - t[0]) / t[0], 0.01, "ascending %g ms, descending %g ms", t[0], t[1]);
}

/* Two threads run the marked nest at once: one is traced, the other runs untraced; both compute
   the right result (the first version corrupted the heap) and the report counts the concurrent
   entry. A barrier before the nest lined them up, but on a loaded machine (a CI run beside the
   suite) the second could enter after the first had left: each now waits, in the nest's first
   iteration, until the other is in it too. */
Test(e2e_warps, nest_entered_by_two_threads_at_once) {
  write_file("thr.c",
      "#include <pthread.h>\n"
      "#include <stdio.h>\n"
      "#define N (1 << 20)\n"
      "static float x[2][N], y[2][N];\n"
      "static pthread_barrier_t bar;\n"
      "static int inside[2];\n"
      "static void *work(void *arg) {\n"
      "  int t = (int)(long)arg;\n"
      "  for (int i = 0; i < N; i++) x[t][i] = i % 9;\n"
      "  pthread_barrier_wait(&bar);\n"
      "#pragma cgpredict kernel name(par)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    if (i == 0) {\n"
      "      __atomic_store_n(&inside[t], 1, __ATOMIC_SEQ_CST);\n"
      "      while (!__atomic_load_n(&inside[1 - t], __ATOMIC_SEQ_CST)) {}\n"
      "    }\n"
      "    y[t][i] = 2 * x[t][i] + 1;\n"
      "  }\n"
      "  return NULL;\n"
      "}\n"
      "int main(void) {\n"
      "  pthread_t th[2];\n"
      "  pthread_barrier_init(&bar, NULL, 2);\n"
      "  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, work, (void *)t);\n"
      "  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);\n"
      "  double s = 0; for (int t = 0; t < 2; t++) for (int i = 0; i < N; i++) s += y[t][i];\n"
      "  printf(\"%.1f\\n\", s);\n"
      "  return 0;\n"
      "}\n");
  cr_assert_eq(sh("cc -O2 -pthread -Wno-unknown-pragmas -o plain thr.c && ./plain"), 0);
  char *plain = strdup(read_file("out.txt"));
  cr_assert_eq(sh("%s build -- cc -O2 -pthread -o thr thr.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./thr"), 0, "%s",
               read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), plain);
  free(plain);
  cJSON *r = report("r.json");
  cr_assert_eq(num(cJSON_GetObjectItem(r, "runtime"), "concurrent_entries"), 1);
  cJSON *k = kernel_named(r, "par");
  cr_assert_eq(num(k, "launches"), 1);
  cJSON_Delete(r);
}

/* Devices differ the right way, and the report says why in numbers: x and y (8 MiB each) are
   swept three times; they fit the 25 MiB of its 40 MB L2 the A100 keeps for one kernel's data
   (l2_keep_bytes, docs/model.md section 4b: the second and third launches hit) but not the V100's
   6 MB (every launch misses), which the per-site L2 hit rates show. */
Test(e2e_warps, working_set_fits_the_a100_l2_not_the_v100) {
  write_file("prog.c",
      "#include <stdio.h>\n"
      "#define N (2 << 20)\n"
      "static float x[N], y[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) x[i] = i % 11;\n"
      "  for (int t = 0; t < 3; t++) {\n"
      "#pragma cgpredict kernel name(sweep)\n"
      "    for (int i = 0; i < N; i++)\n"
      "      y[i] = 2 * x[i] + y[i];\n"
      "  }\n"
      "  printf(\"%.1f\\n\", y[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o prog prog.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_DEVICE=v100-sxm2,a100-sxm4 "
                  "CGPREDICT_REPORT=r.json ./prog"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "sweep");
  cJSON *by = cJSON_GetObjectItem(site(k, 9, "load", "x"), "by_device");
  double v100 = num(cJSON_GetObjectItem(by, "v100-sxm2"), "l2_hit_rate");
  double a100 = num(cJSON_GetObjectItem(by, "a100-sxm4"), "l2_hit_rate");
  cr_assert_lt(v100, 0.05, "V100: x misses on every launch (%g)", v100);
  cr_assert_gt(a100, 0.6, "A100: launches 2 and 3 find x in the L2 (%g)", a100);
  cJSON_Delete(r);
}

/* Each arm of a ?: keeps its own sites, with their lines and the array's name (the optimizer
   used to sink the two arms' loads into one site at line 0 named ".sink"). */
Test(e2e_warps, conditional_arms_keep_their_sites_and_lines) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 64\n"
      "int path[N][N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) path[i][j] = (i * j) % 7 + 1;\n"
      "  for (int k = 0; k < N; k++) {\n"
      "#pragma cgpredict kernel name(fw) dims(2)\n"
      "    for (int i = 0; i < N; i++)\n"
      "      for (int j = 0; j < N; j++)\n"
      "        path[i][j] = path[i][j] < path[i][k] + path[k][j] ?\n"
      "            path[i][j] : path[i][k] + path[k][j];\n"
      "  }\n"
      "  printf(\"%d\\n\", path[3][5]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "fw"), *m;
  int n = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    cr_assert_geq(num(m, "line"), 10, "a site at line %g", num(m, "line"));
    cr_assert_str_eq(cJSON_GetObjectItem(m, "array")->valuestring, "path");
    n++;
  }
  cr_assert_eq(n, 7, "3 loads on line 10, 3 on line 11, 1 store");
  cJSON_Delete(r);
}

/* Forwarding in straight-line bodies, where the runtime drops the check of loads that no other
   site's address expression shares (docs/pipeline.md, "Loads no register could serve"). In
   `fw` x[i] is loaded twice with no store between: the second load is served from a register
   in every thread (4096), while the second z[i] comes after the store to w[i] and is loaded
   again; the check is kept for both. In `fw2` a goto back into the body (a cycle no natural
   loop makes) runs a[i], whose address expression no other site has, twice in the odd threads
   and three times in the even ones with no store between: 1 + 2 loads a pair of threads served
   from a register, 6144 in all, which only the kept check finds. In `fw3` u[i] is loaded with
   only a store after it sharing its expression (its check is dropped: it cannot be served, and
   the store clears what it would hold), while a[i] is loaded after the store to a[i] and is
   served from it in every thread (4096). Mutation-checked: dropping the check of every load
   gives 0 for x, dropping it regardless of cycles 0 for a, dropping it whenever only stores
   share the expression, before or after, 0 for fw3's a[i]; dropping every store's (a store no
   checked load follows is dropped: fw's y[i], fw3's u[i]) serves the second z[i] past w[i]'s
   store, 4096. */
Test(e2e_warps, straight_line_loads_are_served_from_registers_as_before) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "float x[N], y[N], z[N], w[N], a[N], v[N], u[N];\n"
      "int main(int argc, char **argv) {\n"
      "  (void)argv;\n"
      "  int k = argc;\n"
      "  for (int i = 0; i < N; i++) { x[i] = i % 7; z[i] = i % 5; a[i] = i % 3; }\n"
      "#pragma cgpredict kernel name(fw)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    w[i] = z[i];\n"
      "    y[i] = x[i] * z[i] + x[i];\n"
      "  }\n"
      "#pragma cgpredict kernel name(fw2)\n"
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
      "#pragma cgpredict kernel name(fw3)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    a[i] = u[i] + 1;\n"
      "    u[i] = a[i] * 2;\n"
      "  }\n"
      "  printf(\"%g %g %g\\n\", y[N - 1] + w[7], v[N - 1] + v[N - 2], u[5]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "fw"), *m;
  double xs[2], zs[2];
  int nx = 0, nz = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    const char *arr = cJSON_GetObjectItem(m, "array")->valuestring, *kind = cJSON_GetObjectItem(m, "kind")->valuestring;
    if (strcmp(kind, "load") != 0) continue;
    if (strcmp(arr, "x") == 0 && nx < 2) xs[nx++] = num(m, "forwarded_from_register");
    if (strcmp(arr, "z") == 0 && nz < 2) zs[nz++] = num(m, "forwarded_from_register");
  }
  cr_assert(nx == 2 && nz == 2, "two loads each of x and z");
  cr_assert(xs[0] == 0 && xs[1] == 4096, "x: %g and %g served from registers", xs[0], xs[1]);
  cr_assert(zs[0] == 0 && zs[1] == 0, "z: %g and %g", zs[0], zs[1]);
  cJSON *a = site(kernel_named(r, "fw2"), 19, "load", "a");
  cr_assert_eq(num(a, "forwarded_from_register"), 6144);
  cJSON *u = site(kernel_named(r, "fw3"), 27, "load", "u"), *stored = site(kernel_named(r, "fw3"), 28, "load", "a");
  cr_assert_eq(num(u, "forwarded_from_register"), 0);
  cr_assert_eq(num(stored, "forwarded_from_register"), 4096, "a[i] is served from the value just stored");
  cJSON_Delete(r);
}

/* A straight-line body's blocks mark themselves and the runtime takes the marks when each thread
   ends (cgp_abi.h, CGP_HOOK_BLOCK_SEEN). Threads i with i % 64 < 16 store b[i]: in each warp of
   lanes 0-31 of a 64, half the lanes run the store's block and half do not (divergent, and the
   other half is masked while that block issues); in each warp of lanes 32-63 none does (not
   divergent). So exactly half the warps traced diverge. Mutation-checked: dropping the marks at
   the thread's end leaves no issue slot masked. */
Test(e2e_warps, a_guard_in_a_straight_line_body_diverges_half_the_warps) {
  cJSON *r = build_and_run(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "float a[N], b[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) a[i] = i % 9;\n"
      "#pragma cgpredict kernel name(guard)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    if (i % 64 < 16) b[i] = a[i] * 2;\n"
      "  printf(\"%g\\n\", b[5] + b[70]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *dv = cJSON_GetObjectItem(kernel_named(r, "guard"), "divergence");
  cr_assert_gt(num(dv, "warps_traced"), 0);
  cr_assert_eq(2 * num(dv, "divergent_warps"), num(dv, "warps_traced"), "%g of %g warps diverge",
               num(dv, "divergent_warps"), num(dv, "warps_traced"));
  cr_assert_gt(num(dv, "masked_issue_slots_per_warp"), 0);
  cJSON_Delete(r);
}
