/* End-to-end: dependences with threads the check was not fed (analyzer/cgp_deps_law.c). The
   check is exact among an analysed launch's first window; a writer outside it was missed (TSVC's
   s1113 was called parallel). Each program's output is its plain build's. */
#include "e2e_util.h"

TestSuite(e2e_deps, .init = setup, .fini = teardown, .timeout = 300);

/* The dependence of `kernel` whose first site is on line `first` and second on `second`. */
static cJSON *dep(cJSON *k, const char *kind, int first, int second) {
  cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(k, "dependences"))
    if (strcmp(cJSON_GetObjectItem(d, "kind")->valuestring, kind) == 0 &&
        num(cJSON_GetObjectItem(d, "first"), "line") == first && num(cJSON_GetObjectItem(d, "second"), "line") == second)
      return d;
  return NULL;
}

static double example(cJSON *d, const char *which, int coord) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "example"), which), coord)->valuedouble;
}

/* s1113 (line 9): thread 16000 writes a[16000], which every thread reads; the first window holds
   threads 0 .. 2047 on the TK1. A shift by 10000 (line 11): thread 10000 writes what thread 0
   read. A 2-D pivot (line 14): thread (170, 256) writes A[256][170]. Not said: a store only
   threads i < 2000 make (line 16: c[31999] has no writer), and LU's row update, whose grid starts
   after the pivot's column (line 18). The summary and the page say which were extrapolated. */
Test(e2e_deps, a_writer_outside_the_traced_threads_is_found_by_the_sites_laws) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define LEN 32000\n"
      "#define N 512\n"
      "float a[LEN], b[LEN], c[LEN], A[N][N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < LEN; i++) { a[i] = i * 0.5f; b[i] = 1.0f; c[i] = 2.0f; }\n"
      "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = i + j + 1;\n"
      "#pragma cgpredict kernel name(s1113)\n"
      "  for (int i = 0; i < LEN; i++) a[i] = a[LEN / 2] + b[i];\n"
      "#pragma cgpredict kernel name(shift)\n"
      "  for (int i = 0; i < LEN - 10000; i++) c[i] = c[i + 10000] * 2.0f;\n"
      "#pragma cgpredict kernel name(pivot) dims(2)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    for (int j = 0; j < N; j++) A[i][j] = A[i][j] / A[N / 2][N / 3];\n"
      "#pragma cgpredict kernel name(cond)\n"
      "  for (int i = 0; i < LEN; i++) if (i < 2000) c[i] = c[LEN - 1] + 1.0f;\n"
      "#pragma cgpredict kernel name(lu_row)\n"
      "  for (int j = 101; j < LEN; j++) b[j] = b[j] / b[100];\n"
      "  double s = 0;\n"
      "  for (int i = 0; i < LEN; i++) s += a[i] + b[i] + c[i];\n"
      "  for (int i = 0; i < N; i++) s += A[i][0];\n"
      "  printf(\"%g\\n\", s);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "s1113");
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "parallel_safe")));
  cJSON *d = dep(k, "raw", 9, 9);
  cr_assert_not_null(d);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(d, "extrapolated")));
  cr_assert_eq(num(d, "pairs_seen"), 0);
  cr_assert(example(d, "first_thread", 0) == 16000 && example(d, "second_thread", 0) == 16001);
  cr_assert_eq(num(cJSON_GetObjectItem(d, "first"), "column"), 38, "the store a[i] writes first");

  d = dep(kernel_named(r, "shift"), "war", 11, 11);
  cr_assert_not_null(d);
  cr_assert(example(d, "first_thread", 0) == 0 && example(d, "second_thread", 0) == 10000);

  k = kernel_named(r, "pivot");
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "parallel_safe")));
  d = dep(k, "raw", 14, 14);
  cr_assert_not_null(d);
  cr_assert(example(d, "first_thread", 0) == 170 && example(d, "first_thread", 1) == 256);

  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(kernel_named(r, "cond"), "parallel_safe")));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(kernel_named(r, "lu_row"), "parallel_safe")));
  char *sum = read_file("summary.txt");
  cr_assert(strstr(sum, "not parallel as written: 1 dependence(s) between threads (1 not seen but extrapolated"), "%s", sum);
  cr_assert_eq(sh("%s report r.json --html h.html", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert(strstr(read_file("h.html"), "(not seen among the traced threads"), "the page says it too");
  cJSON_Delete(r);
}

/* A load the pass proves no store of the nest can write (b: a global the kernel only reads) is not
   followed by the check: its site says `unwritten`, the check's scope names b. What the check
   finds is what it found following it: the war of c[i] = c[i + 1] + b[i] (thread i + 1 reads c
   before thread i writes it; line 8), and c's load, which the store writes, is followed. Before
   the proof every lane of b was checked; the verdict is the same, for fewer lookups. */
Test(e2e_deps, loads_no_store_can_write_are_not_followed_and_the_rest_is_found) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 4096\n"
      "float b[N], c[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { b[i] = i * 0.5f; c[i] = 1.0f; }\n"
      "#pragma cgpredict kernel name(ahead)\n"
      "  for (int i = 0; i < N - 1; i++)\n"
      "    c[i] = c[i + 1] + b[i];\n"
      "  double s = 0;\n"
      "  for (int i = 0; i < N; i++) s += c[i];\n"
      "  printf(\"%g\\n\", s);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "ahead");
  cr_assert_not_null(k);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(site(k, 8, "load", "b"), "unwritten")), "b's load is unwritten");
  cr_assert_null(cJSON_GetObjectItem(site(k, 8, "load", "c"), "unwritten"), "c's load is not: the store writes c");
  const char *scope = cJSON_GetObjectItem(cJSON_GetObjectItem(k, "dependence_check"), "scope")->valuestring;
  cr_assert(strstr(scope, "loads of b are not followed"), "%s", scope);
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "parallel_safe")));
  cr_assert_not_null(dep(k, "war", 8, 8), "the war on c");
  cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(k, "dependences"))
    cr_assert_str_neq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "first"), "array")->valuestring, "b");
  cJSON_Delete(r);
}
