/* End-to-end: C++ sources, and what real code's helpers and flags showed (issue 30: Rodinia's
   C++ codes tried as a new user would). A marked .cpp file was compiled by the user's g++ as if
   unmarked: no report, exit 0, and a message that blamed an up-to-date build; a Makefile saying
   `CC = g++` went around cgpredict's wrappers. Code a helper reaches through a pointer or a
   reference (std::max's `const float &` bound to a temporary, `at(g, i, j)` returning a pointer
   into an array) was traced at the wrong place; a flag every thread sets to one value was called
   a recurrence. */
#include "e2e_util.h"

TestSuite(e2e_cxx, .init = setup, .fini = teardown, .timeout = 300);

/* A template saxpy over a std::vector's data and a new[] array, and a 2-D scale through a
   member accessor and std::max, whose `const float &` arguments bind temporaries. */
static const char *vec_src =
  "#include <cstdio>\n"
  "#include <vector>\n"
  "#include <algorithm>\n"
  "struct Grid {\n"
  "  int n;\n"
  "  std::vector<float> v;\n"
  "  explicit Grid(int n_) : n(n_), v((size_t)n_ * n_) {}\n"
  "  float &at(int i, int j) { return v[(size_t)i * n + j]; }\n"
  "};\n"
  "template <typename T> static void saxpy(T *y, const T *x, T a, int n) {\n"
  "#pragma cgpredict kernel name(saxpy)\n"
  "  for (int i = 0; i < n; i++) y[i] += a * x[i];\n"
  "}\n"
  "static void scale(Grid &g, float s) {\n"
  "#pragma cgpredict kernel name(scale) dims(2)\n"
  "  for (int i = 0; i < g.n; i++)\n"
  "    for (int j = 0; j < g.n; j++) g.at(i, j) = std::max(g.at(i, j) * s, 0.5f);\n"
  "}\n"
  "int main() {\n"
  "  std::vector<float> x(1 << 16), y(1 << 16);\n"
  "  for (size_t i = 0; i < x.size(); i++) { x[i] = (float)(i % 7); y[i] = 1.0f; }\n"
  "  float *raw = new float[1 << 16];\n"
  "  for (int i = 0; i < (1 << 16); i++) raw[i] = 2.0f;\n"
  "  saxpy(y.data(), x.data(), 3.0f, 1 << 16);\n"
  "  saxpy(raw, x.data(), 2.0f, 1 << 16);\n"
  "  Grid g(512);\n"
  "  for (int i = 0; i < 512 * 512; i++) g.v[i] = (float)(i % 11);\n"
  "  scale(g, 0.25f);\n"
  "  double sum = 0;\n"
  "  for (int i = 0; i < 512 * 512; i++) sum += g.v[i];\n"
  "  std::printf(\"%g %g %g\\n\", y[100], raw[100], sum);\n"
  "  delete[] raw;\n"
  "  return 0;\n"
  "}\n";

/* Sites of kernel k at source line `line` (of the marked file). */
static int sites_at(cJSON *k, int line) {
  int n = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) n += (int)num(m, "line") == line;
  return n;
}

Test(e2e_cxx, a_cxx_source_is_instrumented_and_keeps_its_output) {
  cJSON *r = build_run_tk1_with("v.cpp", vec_src, "g++", "-O2 -Wall");
  cJSON *sx = kernel_named(r, "saxpy"), *sc = kernel_named(r, "scale");
  cr_expect_eq(num(sx, "launches"), 2);
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(sx, "parallel_safe")));
  cr_expect_str_eq(cJSON_GetObjectItem(site(sx, 12, "load", "x"), "class")->valuestring, "coalesced");
  /* g.at(i, j) with j the x index: consecutive floats, coalesced (before, the accessor's pointer
     was taken for its own allocation: uncoalesced, 8 transactions a warp) */
  /* named by the accessor called, `g.at` (it was `g`, as every accessor of g would be) */
  cJSON *ld = site(sc, 17, "load", "g.at"), *st = site(sc, 17, "store", "g.at");
  cr_expect_str_eq(cJSON_GetObjectItem(ld, "class")->valuestring, "coalesced");
  cr_expect_str_eq(cJSON_GetObjectItem(st, "class")->valuestring, "coalesced");
  cr_expect_eq(num(ld, "transactions_per_warp"), num(site(sx, 12, "load", "x"), "transactions_per_warp"));
  /* std::max's arguments and result are the thread's registers, no memory: no site of its
     header (before: loads of __a and __b, one address for all threads, "constant") */
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(sc, "memory")) {
    const char *a = cJSON_GetObjectItem(m, "array")->valuestring;
    cr_expect(strcmp(a, "__a") != 0 && strcmp(a, "__b") != 0, "a site of std::max's %s", a);
  }
  cr_expect_eq(sites_at(sc, 17), 2 + 2, "the element's load and store, and g.at's two member loads");
  cJSON_Delete(r);
}

/* `cgpredict build -- make` with a Makefile that names g++ itself, and a .c file g++ compiles as
   C++ (a `bool` and `new`): both instrumented; `cgpredict c++ -c` names the object after its
   source (k.o, not k.cp.o). */
Test(e2e_cxx, a_makefile_naming_gxx_and_a_c_file_gxx_compiles_are_instrumented) {
  write_file("k.c", "#include <cstdio>\n"
                    "int main() {\n"
                    "  int n = 4096;\n"
                    "  float *a = new float[n];\n"
                    "  bool seen = false;\n"
                    "#pragma cgpredict kernel name(fill)\n"
                    "  for (int i = 0; i < n; i++) a[i] = (float)i * 0.5f;\n"
                    "  seen = a[7] > 3.0f;\n"
                    "  std::printf(\"%g %d\\n\", a[n - 1], (int)seen);\n"
                    "  delete[] a;\n"
                    "  return 0;\n"
                    "}\n");
  write_file("Makefile", "CC = g++\nk: k.c\n\t$(CC) -O2 k.c -o k\n");
  cr_assert_eq(sh("%s build -- make", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "no source holding"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./k"), 0);
  cr_expect_str_eq(read_file("out.txt"), "2047.5 1\n");
  cJSON *r = report("r.json");
  cr_expect_str_eq(cJSON_GetObjectItem(site(kernel_named(r, "fill"), 7, "store", "a"), "class")->valuestring,
                   "coalesced");
  cJSON_Delete(r);
  sh("cp k.c k.cpp && rm -f k.o k r.json");
  cr_assert_eq(sh("%s c++ -O2 -c k.cpp && %s c++ k.o -o k && ls k.o", CGP_DRIVER, CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./k"), 0);
  cJSON_Delete(report("r.json"));
}

/* A build whose compiler is named by its path goes around cgpredict's wrappers: it says so, and
   how to name one, rather than that the build was up to date. */
Test(e2e_cxx, a_build_that_runs_no_compiler_through_cgpredict_says_so) {
  write_file("p.c", "#include <stdio.h>\nfloat a[64];\nint main(void) {\n"
                    "#pragma cgpredict kernel\n  for (int i = 0; i < 64; i++) a[i] = i;\n"
                    "  printf(\"%g\\n\", a[3]);\n  return 0;\n}\n");
  write_file("Makefile", "p: p.c\n\t$(CC) -O2 p.c -o p\n");
  cr_assert_eq(sh("%s build -- make CC=/usr/bin/gcc", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("err.txt"), "ran no compiler through cgpredict"), "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "found up to date"), "%s", read_file("err.txt"));
  sh("rm -f p");
  cr_assert_eq(sh("%s build -- make CC=gcc", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "cgpredict:"), "%s", read_file("err.txt"));
}

/* In C too: a helper returning a pointer into the array (`at(g, i, j)`), a private accumulator
   a helper updates through a pointer, and an array subscripted inside a macro's arguments after
   the host swapped two pointers (pathfinder's `MIN(min, src[n - 1])`, named dst before). */
static const char *helpers_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define MIN(a, b) ((a) <= (b) ? (a) : (b))\n"
  "typedef struct { int n; float *v; } Grid;\n"
  "static float *at(Grid *g, int i, int j) { return &g->v[(size_t)i * g->n + j]; }\n"
  "static void add(float *acc, float x) { *acc += x; }\n"
  "int main(void) {\n"
  "  Grid g = {256, malloc(256 * 256 * sizeof(float))};\n"
  "  int cols = 4096, *src = malloc(cols * sizeof *src), *dst = malloc(cols * sizeof *dst), *tmp;\n"
  "  for (int i = 0; i < 256 * 256; i++) g.v[i] = (float)(i % 11);\n"
  "  for (int i = 0; i < cols; i++) dst[i] = (i * 7) % 13;\n"
  "#pragma cgpredict kernel name(rows) dims(2)\n"
  "  for (int i = 0; i < g.n; i++)\n"
  "    for (int j = 0; j < g.n; j++) {\n"
  "      float s = 0;\n"
  "      add(&s, *at(&g, i, j));\n"
  "      *at(&g, i, j) = s * 0.5f;\n"
  "    }\n"
  "  for (int t = 0; t < 3; t++) {\n"
  "    tmp = src; src = dst; dst = tmp;\n"
  "#pragma cgpredict kernel name(dyn)\n"
  "    for (int n = 0; n < cols; n++) {\n"
  "      int m = src[n];\n"
  "      if (n > 0) m = MIN(m, src[n - 1]);\n"
  "      dst[n] = m + 1;\n"
  "    }\n"
  "  }\n"
  "  printf(\"%g %d\\n\", g.v[300], dst[5]);\n"
  "  free(g.v);\n"
  "  free(src);\n"
  "  free(dst);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_cxx, helpers_and_macros_in_c_are_traced_where_the_gpu_would_access) {
  cJSON *r = build_run_tk1(helpers_src);
  cJSON *rows = kernel_named(r, "rows"), *dyn = kernel_named(r, "dyn");
  cr_expect_str_eq(cJSON_GetObjectItem(site(rows, 16, "load", "g"), "class")->valuestring, "coalesced");
  cr_expect_str_eq(cJSON_GetObjectItem(site(rows, 17, "store", "g"), "class")->valuestring, "coalesced");
  cr_expect_eq(sites_at(rows, 6), 0, "add()'s *acc is the thread's register s");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(rows, "parallel_safe")));
  cr_expect_eq(num(site(dyn, 24, "load", "src"), "line"), 24);
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(dyn, "memory"))
    if (strcmp(cJSON_GetObjectItem(m, "kind")->valuestring, "load") == 0)
      cr_expect_str_eq(cJSON_GetObjectItem(m, "array")->valuestring, "src", "line %g", num(m, "line"));
  cJSON_Delete(r);
}

/* Benign races (issue 30 item 1): Rodinia bfs's `stop = true` in every thread that updates, and a
   mask every writer sets to 1, are parallel; a data-dependent value two threads store to one
   element stays a dependence. */
Test(e2e_cxx, a_value_every_writer_writes_alike_is_a_benign_race) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#include <stdbool.h>\n"
      "#define N 8192\n"
      "int upd[N], mask[N], cost[N], edge[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { upd[i] = i % 3 == 0; edge[i] = (i * 5) % 64; }\n"
      "  bool stop = false;\n"
      "#pragma cgpredict kernel name(update)\n"
      "  for (int t = 0; t < N; t++)\n"
      "    if (upd[t]) {\n"
      "      mask[t] = 1;\n"
      "      stop = true;\n"
      "    }\n"
      "#pragma cgpredict kernel name(expand)\n"
      "  for (int t = 0; t < N; t++) {\n"
      "    mask[edge[t]] = 1;\n"
      "    cost[edge[t]] = t;\n"
      "  }\n"
      "  printf(\"%d %d %d\\n\", (int)stop, mask[9], cost[5]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *up = kernel_named(r, "update"), *ex = kernel_named(r, "expand");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(up, "parallel_safe")));
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(up, "dependences")), 0);
  cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(up, "benign_races"), 0);
  cr_assert_not_null(b);
  cr_expect_str_eq(cJSON_GetObjectItem(b, "kind")->valuestring, "carried");
  cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "first"), "variable")->valuestring, "stop");
  cr_expect_str_eq(cJSON_GetObjectItem(b, "value")->valuestring, "true");
  cr_expect_null(strstr(read_file("build.txt"), "recurrence"), "%s", read_file("build.txt"));
  /* expand: mask[edge[t]] = 1 meets itself (benign); cost[edge[t]] = t does not (a waw) */
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(ex, "parallel_safe")));
  cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(ex, "dependences"), 0);
  cr_assert_not_null(d);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(ex, "dependences")), 1);
  cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "first"), "array")->valuestring, "cost");
  b = cJSON_GetArrayItem(cJSON_GetObjectItem(ex, "benign_races"), 0);
  cr_assert_not_null(b);
  cr_expect_str_eq(cJSON_GetObjectItem(b, "kind")->valuestring, "waw");
  cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "first"), "array")->valuestring, "mask");
  cr_expect_str_eq(cJSON_GetObjectItem(b, "value")->valuestring, "1");
  cr_expect(strstr(read_file("summary.txt"), "benign race on 'stop'"), "%s", read_file("summary.txt"));
  cJSON_Delete(r);
  /* and the HTML page lists them apart from the dependences */
  cr_assert_eq(sh("%s report r.json --html h.html", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *page = read_file("h.html");
  cr_assert_not_null(page);
  cr_expect(strstr(page, "Benign races (parallel)") && strstr(page, "carried on <code>stop</code>") &&
            strstr(page, "waw on <code>mask</code>"), "the page does not list the benign races");
}

/* Rodinia's cfd keeps `#pragma omp simd` inside the loop it marks, in a file built with -fopenmp:
   clang makes the calls of a simd loop invokes (an OpenMP region must not throw), which were not
   inlined: "call to _Z25compute_flux_contributionRfR6float3... inside the thread body: its memory
   accesses are not traced". They are inlined now, and a call that is not is named as the source
   names it. */
Test(e2e_cxx, calls_in_an_omp_simd_loop_are_inlined_and_named_by_the_source) {
  write_file("s.cpp", "#include <cstdio>\n"
                      "struct f3 { float x, y, z; };\n"
                      "inline void flux(const float &d, const f3 &m, f3 &out) { out.x = d * m.x; out.y = d * m.y; out.z = d * m.z; }\n"
                      "float opaque(float v);\n"
                      "int main() {\n"
                      "  const int n = 4096;\n"
                      "  static float d[n], r[n]; static f3 m[n];\n"
                      "  for (int i = 0; i < n; i++) { d[i] = (float)(i % 5); m[i] = {1.0f, 2.0f, 3.0f}; }\n"
                      "#pragma cgpredict kernel name(rows) dims(2)\n"
                      "  for (int b = 0; b < n / 8; b++)\n"
                      "#pragma omp simd\n"
                      "    for (int i = b * 8; i < b * 8 + 8; i++) { f3 o; flux(d[i], m[i], o); r[i] = o.x + o.y + o.z; }\n"
                      "  std::printf(\"%g\\n\", r[7]);\n"
                      "  return 0;\n"
                      "}\n");
  cr_assert_eq(sh("%s build -- g++ -O2 -fopenmp -o s s.cpp", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "not traced"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./s"), 0, "%s", read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), "12\n");
  cJSON *r = report("r.json");
  /* flux's loads of d[i] and of m[i]'s three fields; its stores to `out` are to the thread's `o`,
     a register (before: under -fopenmp libclang ended the marked loop at `#pragma omp simd`, so
     `o`, declared below it, was not found to be the thread's, and its three stores were traced) */
  cJSON *rows = kernel_named(r, "rows"), *m;
  cr_expect_eq(sites_at(rows, 3), 6);
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(rows, "memory"))
    cr_expect(strcmp(cJSON_GetObjectItem(m, "kind")->valuestring, "store") != 0 || num(m, "line") == 12,
              "a store at line %g", num(m, "line"));
  cJSON_Delete(r);
  /* a callee defined in another file stays a call: named flux_elsewhere, with its symbol after */
  write_file("t.cpp", "#include <cstdio>\n"
                      "float flux_elsewhere(const float &d);\n"
                      "int main() {\n"
                      "  static float d[256], r[256];\n"
                      "#pragma cgpredict kernel name(calls)\n"
                      "  for (int i = 0; i < 256; i++) r[i] = flux_elsewhere(d[i]);\n"
                      "  std::printf(\"%g\\n\", r[7]);\n"
                      "  return 0;\n"
                      "}\n");
  write_file("u.cpp", "float flux_elsewhere(const float &d) { return d + 1.0f; }\n");
  cr_assert_eq(sh("%s build -- g++ -O2 -g -o t t.cpp u.cpp", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("err.txt"), "call to flux_elsewhere (_Z14flux_elsewhereRKf) inside the thread body"), "%s",
            read_file("err.txt"));
}

/* One marked loop in a template compiled for two types is two kernels (BabelStream's
   OMPStream<float>::copy and OMPStream<double>::copy): both were named `scale` in the report and
   the summary, told apart by nothing but their sites' sizes. A name two kernels share now
   carries the function the source wrote each in (`scale [scale<float>]`; `twice [twice<float>]`
   though both copies of `twice` were inlined into main: its debug scope says); a name no other
   kernel has stays as it is (`once`, one function called twice; `alone`). The trace's replay checks the report's names against the
   trace's kernels, and takes these. */
Test(e2e_cxx, a_templates_instantiations_of_one_marked_loop_are_named_apart) {
  cJSON *r = build_run_tk1_with("t.cpp",
    "#include <cstdio>\n"
    "#include <vector>\n"
    "template <class T> __attribute__((noinline)) void scale(T *a, long n) {\n"
    "#pragma cgpredict kernel name(scale)\n"
    "  for (long i = 0; i < n; i++) a[i] = a[i] * 2 + 1;\n"
    "}\n"
    "template <class T> static inline void twice(T *a, long n) {\n"
    "#pragma cgpredict kernel name(twice)\n"
    "  for (long i = 0; i < n; i++) a[i] += a[i];\n"
    "}\n"
    "static inline void once(float *a, long n) {\n"
    "#pragma cgpredict kernel name(once)\n"
    "  for (long i = 0; i < n; i++) a[i] -= 1;\n"
    "}\n"
    "static void alone(double *a, long n) {\n"
    "#pragma cgpredict kernel name(alone)\n"
    "  for (long i = 0; i < n; i++) a[i] *= 3;\n"
    "}\n"
    "int main() {\n"
    "  std::vector<float> f(1 << 16, 1.0f);\n"
    "  std::vector<double> d(1 << 16, 1.0);\n"
    "  scale(f.data(), (long)f.size());\n"
    "  scale(d.data(), (long)d.size());\n"
    "  twice(f.data(), (long)f.size());\n"
    "  twice(d.data(), (long)d.size());\n"
    "  once(f.data(), (long)f.size());\n"
    "  once(f.data() + 8, (long)f.size() - 8);\n"
    "  alone(d.data(), (long)d.size());\n"
    "  std::printf(\"%g %g\\n\", f[5], d[7]);\n"
    "  return 0;\n"
    "}\n", "g++", "-O2");
  cJSON *sf = kernel_named(r, "scale [scale<float>]"), *sd = kernel_named(r, "scale [scale<double>]");
  cr_expect_eq(num(cJSON_GetArrayItem(cJSON_GetObjectItem(sf, "memory"), 0), "size"), 4);
  cr_expect_eq(num(cJSON_GetArrayItem(cJSON_GetObjectItem(sd, "memory"), 0), "size"), 8);
  kernel_named(r, "twice [twice<float>]");
  kernel_named(r, "twice [twice<double>]");
  cr_expect_eq(num(kernel_named(r, "once"), "launches"), 2);   /* one function, called twice */
  kernel_named(r, "alone");
  cJSON_Delete(r);
  cr_expect(strstr(read_file("summary.txt"), "scale [scale<double>]"), "%s", read_file("summary.txt"));
  cr_assert_eq(sh("%s report r.json --device h100-sxm5", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("err.txt"), "scale [scale<float>]") || strstr(read_file("out.txt"), "scale [scale<float>]"),
            "%s%s", read_file("out.txt"), read_file("err.txt"));
}
