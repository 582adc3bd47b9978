/* End-to-end: real code as users build it (issue 30's defects), each with the behaviour a user of
   a plain compiler expects. */
#include "e2e_util.h"

TestSuite(e2e_users, .init = setup, .fini = teardown, .timeout = 300);

static const char *unused_src =
  "#include <stdio.h>\n"
  "#define N 64\n"
  "static float a[N];\n"
  "int main(void) {\n"
  "  int unused;\n"
  "#pragma cgpredict kernel\n"
  "  for (int i = 0; i < N; i++) a[i] = (float)i;\n"
  "  printf(\"%f\\n\", a[3]);\n"
  "  return 0;\n"
  "}\n";

static const char *extension_src =
  "#include <stdio.h>\n"
  "#define N 64\n"
  "static float a[N];\n"
  "int main(void) {\n"
  "  int k = ({ 3; });\n"
  "#pragma cgpredict kernel\n"
  "  for (int i = 0; i < N; i++) a[i] = (float)(i + k);\n"
  "  printf(\"%f\\n\", a[3]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_users, warning_flags_reach_marked_files_as_the_users_compiler_reads_them) {
  /* the verdict and the message of `cc FLAGS` (the pragma alone is not warned about) */
  write_file("u.c", unused_src);
  write_file("x.c", extension_src);
  cr_expect_neq(sh("%s cc -Wall -Werror -c u.c", CGP_DRIVER), 0, "-Wall -Werror accepted an unused variable");
  cr_expect_not_null(strstr(read_file("err.txt"), "unused variable"), "%s", read_file("err.txt"));
  cr_expect_neq(sh("%s build -- cc -pedantic-errors -o x x.c", CGP_DRIVER), 0, "-pedantic-errors accepted ({ })");
  cr_expect_not_null(strstr(read_file("err.txt"), "x.c:5"), "%s", read_file("err.txt"));
  /* without them both build; a warning is still the compiler's, and the pragma draws none */
  cr_expect_eq(sh("%s cc -Wall -Werror -Wno-unused-variable -o u u.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_eq(sh("%s cc -Wall -o u u.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "unused variable"), "%s", read_file("err.txt"));
  /* a warning both compilers give by default (NPB IS's implicit declarations) is said once: the
     user's compiler's; clang-14, which makes the object, says nothing (it said each again) */
  write_file("i.c", "#include <stdio.h>\n#define N 64\nstatic float a[N];\nint main(void) {\n"
                    "#pragma cgpredict kernel\n  for (int i = 0; i < N; i++) a[i] = (float)i;\n"
                    "  printf(\"%d\\n\", helper());\n  return 0;\n}\nint helper(void) { return 3; }\n");
  cr_expect_eq(sh("%s cc -o i i.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *once = strstr(read_file("err.txt"), "implicit declaration of function");
  cr_expect_not_null(once, "%s", read_file("err.txt"));
  cr_expect_null(once ? strstr(once + 1, "implicit declaration of function") : NULL, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "pragma"), "%s", read_file("err.txt"));
  cr_expect_eq(sh("%s cc -o x x.c && CGPREDICT_QUIET=1 ./x", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  /* options whose value is the next argument leave the check with it: a library directory and
     name, a dependency file (the check once took them for input files and failed) */
  cr_expect_eq(sh("%s cc -O2 -o u u.c -L /tmp -l m", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_eq(sh("%s cc -O2 -c u.c -MD -MF u.d", CGP_DRIVER), 0, "%s", read_file("err.txt"));
}

static const char *tiny_src =
  "#include <stdio.h>\n"
  "static float a[64];\n"
  "int main(void) {\n"
  "#pragma cgpredict kernel name(a_kernel_with_a_rather_long_descriptive_name_as_real_code_has)\n"
  "  for (int i = 0; i < 64; i++) a[i] = (float)i;\n"
  "  printf(\"%f\\n\", a[3]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_users, the_summary_keeps_its_columns_and_shows_sub_microsecond_times) {
  write_file("t.c", tiny_src);
  cr_assert_eq(sh("%s cc -o t t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=v100-sxm2 ./t"), 0, "%s", read_file("err.txt"));
  const char *err = read_file("err.txt");
  const char *head = strstr(err, "  kernel "), *row = strstr(err, "  a_kernel_with_a_rather_long_descriptive_name_as_real_code_has ");
  cr_assert(head && row, "%s", err);
  const char *hdev = strstr(head, "device"), *rdev = strstr(row, "v100-sxm2");
  cr_assert(hdev && rdev, "%s", err);
  cr_expect_eq(hdev - head, rdev - row, "the device column moved: %s", err);
  /* the time is right-aligned under "time (ms)": both end at the same column */
  const char *htime = strstr(head, "time (ms)");
  cr_assert_not_null(htime);
  size_t end = (size_t)(htime - head) + 9;
  cr_expect(row[end - 1] != ' ' && row[end] == ' ', "the time column moved: %s", err);
  char name[128];
  double ms = -1;
  cr_assert_eq(sscanf(rdev, "%127s %lf", name, &ms), 2, "%s", err);
  cr_expect(ms > 0 && ms < 1e-3, "a 64-thread kernel is sub-microsecond, printed %g: %s", ms, err);
}

/* After a plain `make`, `cgpredict build -- make` finds everything up to date: the program stays
   the plain one, and the build says so instead of passing in silence. With the marked source up to
   date and another recompiled, the build compiled no marked source, and says that. */
Test(e2e_users, a_build_that_compiled_no_marked_source_says_so) {
  write_file("u.c", tiny_src);
  write_file("v.c", "int v(void) { return 1; }\n");
  write_file("Makefile", "p: u.o v.o\n\tcc -o p u.o v.o\nu.o: u.c\n\tcc -O2 -Wno-unknown-pragmas -c u.c\n"
                         "v.o: v.c\n\tcc -O2 -c v.c\n");
  cr_assert_eq(sh("make"), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("%s build -- make", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "the build ran no compiler through cgpredict"), "%s",
                     read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "make clean"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("touch v.c && %s build -- make", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "the build compiled no source holding a #pragma cgpredict kernel"),
                     "%s", read_file("err.txt"));
  cr_assert_eq(sh("%s build -- make -B", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "compiled no source"), "%s", read_file("err.txt"));
  cr_expect_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./p"), 0);
  cr_expect_not_null(read_file("r.json"), "the rebuilt program writes its report");
}

/* CMake names its compiler by a full path and takes a wrapper as a launcher, ccache's way
   (-DCMAKE_C_COMPILER_LAUNCHER=cgpredict runs `cgpredict /usr/bin/cc ...`): that used to be
   "unknown command '/usr/bin/cc'", as was `cgpredict gcc`. A compiler named first is now built
   through, as `cgpredict cc` is: the program prints what the plain build prints and writes its
   report. */
Test(e2e_users, a_compiler_named_first_is_launched_as_cmake_and_ccache_name_it) {
  write_file("t.c", tiny_src);
  write_file("CMakeLists.txt", "cmake_minimum_required(VERSION 3.13)\nproject(t C)\nadd_executable(t t.c)\n");
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain t.c && ./plain"), 0);
  char *plain = strdup(read_file("out.txt"));
  /* CMake links with the plain cc, which a sanitized runtime's stub needs told */
  cr_assert_eq(sh("cmake -S . -B b -DCMAKE_C_COMPILER_LAUNCHER=%s '-DCMAKE_EXE_LINKER_FLAGS=%s' && cmake --build b",
                  CGP_DRIVER, sanitize_link_flags()), 0, "%s%s", read_file("out.txt"), read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./b/t"), 0, "%s", read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), plain);
  cJSON *r = report("r.json");
  cr_expect_not_null(kernel_named(r, "a_kernel_with_a_rather_long_descriptive_name_as_real_code_has"));
  cJSON_Delete(r);
  cr_assert_eq(sh("%s gcc -O2 -o g t.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=g.json ./g"), 0, "%s", read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), plain);
  cr_expect_not_null(read_file("g.json"), "the program `cgpredict gcc` built writes its report");
  free(plain);
}

/* cgpredict-cc and cgpredict-c++, beside cgpredict, are `cgpredict cc` and `cgpredict c++` as one
   path: CoMD's Makefile writes `which $CC` into a header, and with CC="cgpredict cc" that was two
   lines, a string cut in two, and a build that failed. */
Test(e2e_users, cgpredict_cc_as_one_word_serves_a_build_that_takes_one_path) {
  write_file("t.c", tiny_src);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain t.c && ./plain"), 0);
  char *plain = strdup(read_file("out.txt"));
  cr_assert_eq(sh("CC=%s-cc; test \"$(which \"$CC\" | wc -l)\" = 1 && $CC -O2 -o t t.c && %s-c++ -O2 -o tx t.c",
                  CGP_DRIVER, CGP_DRIVER), 0, "%s", read_file("err.txt"));
  for (int cxx = 0; cxx < 2; cxx++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r%d.json ./%s", cxx, cxx ? "tx" : "t"), 0, "%s",
                 read_file("err.txt"));
    cr_expect_str_eq(read_file("out.txt"), plain);
    cJSON *r = report(cxx ? "r1.json" : "r0.json");
    cr_expect_not_null(kernel_named(r, "a_kernel_with_a_rather_long_descriptive_name_as_real_code_has"));
    cJSON_Delete(r);
  }
  free(plain);
}

/* Parboil's spmv (JDS, one thread a row) read x[col[j]]: the coalescing suggestion promised 58.6 of
   140 ms for making it coalesced, which no interchange or transposition does (its addresses come
   from the data). The pass marks a site whose index is loaded at an address that is not fixed
   (index_loaded): x[col[..]] here, not a row pointer read from an array (rows[i][3]) nor a size
   read from a struct the thread is given (m[i * d->n]). A kernel whose uncoalesced loads are all
   gathers gets no coalescing suggestion; another's names the loads it moves and the gathers it
   leaves, and predicts with the gathers still uncoalesced. */
static cJSON *suggestion_of_kind(cJSON *pred, const char *kind) {
  cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(pred, "suggestions"))
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "kind")), kind) == 0) return e;
  return NULL;
}

Test(e2e_users, a_gather_is_named_and_no_interchange_is_promised_for_it) {
  write_file("g.c",
             "#include <stdio.h>\n"
             "#define N 8192\n"
             "#define K 16\n"
             "struct dims { int n; };\n"
             "static float x[N], y[N], m[N * 4], row[N][8], *rows[N];\n"
             "static int col[N * K];\n"
             "static void gather(void) {\n"
             "#pragma cgpredict kernel name(gather)\n"
             "  for (int i = 0; i < N; i++) y[i] = x[col[i]];\n"
             "}\n"
             "static void mixed(void) {\n"
             "#pragma cgpredict kernel name(mixed)\n"
             "  for (int i = 0; i < N; i++) {\n"
             "    float s = 0;\n"
             "    for (int j = 0; j < K; j++) s += x[col[i * K + j]];\n"
             "    y[i] = s;\n"
             "  }\n"
             "}\n"
             "static void plain(const struct dims *d) {\n"
             "#pragma cgpredict kernel name(plain)\n"
             "  for (int i = 0; i < N; i++) y[i] = m[i * d->n] + rows[i][3];\n"
             "}\n"
             "int main(void) {\n"
             "  struct dims d = {4};\n"
             "  for (int i = 0; i < N * K; i++) col[i] = (int)((i * 2654435761u) % N);\n"
             "  for (int i = 0; i < N; i++) { x[i] = i; rows[i] = row[(i * 7) % N]; }\n"
             "  gather(); mixed(); plain(&d);\n"
             "  printf(\"%g\\n\", y[5]);\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s cc -O2 -o g g.c && CGPREDICT_QUIET=1 CGPREDICT_REPORT=g.json ./g", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cJSON *r = report("g.json");
  cJSON *g = kernel_named(r, "gather"), *mx = kernel_named(r, "mixed"), *p = kernel_named(r, "plain");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(site(g, 9, "load", "x"), "index_loaded")));
  cr_expect_null(cJSON_GetObjectItem(site(g, 9, "load", "col"), "index_loaded"));
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(site(g, 9, "store", "y"), "index_loaded")) == 0);
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(site(mx, 15, "load", "x"), "index_loaded")));
  cr_expect_null(cJSON_GetObjectItem(site(mx, 15, "load", "col"), "index_loaded"));
  cr_expect_null(cJSON_GetObjectItem(site(p, 21, "load", "m"), "index_loaded"));
  cr_expect_null(cJSON_GetObjectItem(site(p, 21, "load", "rows"), "index_loaded"));
  /* gather: x is its only uncoalesced load: nothing to suggest */
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(site(g, 9, "load", "x"), "class")), "uncoalesced");
  cr_expect_null(suggestion_of_kind(prediction(g, "jetson-tk1"), "coalesce"));
  /* mixed: col's rows of 16 (64 B a lane) move, x stays a gather */
  cJSON *s = suggestion_of_kind(prediction(mx, "jetson-tk1"), "coalesce");
  cr_assert_not_null(s, "%s", cJSON_Print(prediction(mx, "jetson-tk1")));
  const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(s, "change"));
  cr_expect(strstr(text, "loads of col (line 15) coalesced") && strstr(text, "the loads of x (line 15) are gathers"),
            "%s", text);
  cJSON_Delete(r);
}

/* XSBench's lookups (a binary search in an energy grid, a material picked at random) were told
   "make the uncoalesced loads of A, num_nucs coalesced (interchange the loops ...)": their
   indices come from no load, so the pass's index_loaded missed them, but the data chose them as
   surely. The run measures, per uncoalesced load, the share of its instructions whose lanes'
   addresses lie on a stride of their threads' coordinates (uncoalesced_on_thread_stride): 0 for
   the search's probes and the random row, 1 for a column read, which keeps its suggestion. And
   XSBench's pick_mat read dist[j] with some lanes gone: a divergent warp's consecutive
   elements, w[i] under a branch here, are coalesced (they were uncoalesced, neighbour by
   neighbour, with the inactive lanes' gaps). */
Test(e2e_users, a_search_and_a_random_pick_are_gathers_and_a_divergent_read_stays_coalesced) {
  write_file("s.c",
             "#include <stdio.h>\n"
             "#define N 8192\n"
             "#define M 4096\n"
             "static float grid[M], y[N], w[N], table[16][64], col[N][8];\n"
             "static unsigned seed_of(unsigned i) { return i * 2654435761u; }\n"
             "static void search(void) {\n"
             "#pragma cgpredict kernel name(search)\n"
             "  for (int i = 0; i < N; i++) {\n"
             "    float q = (float)(seed_of(i) % M);\n"
             "    int lo = 0, hi = M - 1;\n"
             "    while (hi - lo > 1) {\n"
             "      int mid = lo + (hi - lo) / 2;\n"
             "      if (grid[mid] > q) hi = mid; else lo = mid;\n"
             "    }\n"
             "    y[i] = grid[lo] + table[seed_of(i) >> 28][3];\n"
             "    if ((seed_of(i) >> 7) & 1u) y[i] += w[i];\n"
             "  }\n"
             "}\n"
             "static void column(void) {\n"
             "#pragma cgpredict kernel name(column)\n"
             "  for (int i = 0; i < N; i++) y[i] = col[i][3];\n"
             "}\n"
             "int main(void) {\n"
             "  for (int i = 0; i < M; i++) grid[i] = i + 0.5f;\n"
             "  for (int i = 0; i < N; i++) { w[i] = i; for (int j = 0; j < 8; j++) col[i][j] = i - j; }\n"
             "  for (int i = 0; i < 16; i++) for (int j = 0; j < 64; j++) table[i][j] = i * j;\n"
             "  search(); column();\n"
             "  printf(\"%g %g\\n\", y[5], y[77]);\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s cc -O2 -o s s.c && CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=s.json ./s 2>summary.txt",
                  CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("summary.txt"), "note: the uncoalesced loads of grid (line 13), table (line 15) are "
                                             "gathers"), "%s", read_file("summary.txt"));
  cJSON *r = report("s.json");
  cJSON *se = kernel_named(r, "search"), *co = kernel_named(r, "column");
  cJSON *probe = site(se, 13, "load", "grid"), *pick = site(se, 15, "load", "table"), *c = site(co, 21, "load", "col");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(probe, "class")), "uncoalesced");
  cr_expect_null(cJSON_GetObjectItem(probe, "index_loaded"), "no index is loaded: the run tells");
  cr_expect_lt(cJSON_GetNumberValue(cJSON_GetObjectItem(probe, "uncoalesced_on_thread_stride")), 0.01);
  cr_expect_lt(cJSON_GetNumberValue(cJSON_GetObjectItem(pick, "uncoalesced_on_thread_stride")), 0.01);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "uncoalesced_on_thread_stride")), 1.0, 1e-9);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(site(se, 16, "load", "w"), "class")), "coalesced");
  cr_expect_null(suggestion_of_kind(prediction(se, "jetson-tk1"), "coalesce"), "%s",
                 cJSON_Print(prediction(se, "jetson-tk1")));
  cJSON *s = suggestion_of_kind(prediction(co, "jetson-tk1"), "coalesce");
  cr_assert_not_null(s);
  cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(s, "change")), "loads of col (line 21) coalesced"));
  cJSON_Delete(r);
}

/* The nest a macro writes (SPEC's and Parboil's lbm sweep every cell with SWEEP_START(...) ...
   SWEEP_END) is traced as the same nest written out: the same sites and the same time. */
Test(e2e_users, a_loop_a_macro_writes_is_predicted_as_the_loop_written_out) {
  const char *body =
    "#include <stdio.h>\n"
    "#define N 4096\n"
    "#define SWEEP(v) for (v = 0; v < N * 4; v += 4) {\n"
    "#define SWEEP_END }\n"
    "static float a[N * 4], b[N * 4];\n"
    "static void k(void) {\n"
    "  int i;\n"
    "#pragma cgpredict kernel name(k)\n"
    "%s"
    "}\n"
    "int main(void) { for (int i = 0; i < N * 4; i++) a[i] = i; k(); printf(\"%%g\\n\", b[8]); return 0; }\n";
  char src[2][1024];
  snprintf(src[0], sizeof src[0], body, "  SWEEP(i)\n    b[i] = a[i] + a[i + 1];\n  SWEEP_END\n");
  snprintf(src[1], sizeof src[1], body, "  for (i = 0; i < N * 4; i += 4) {\n    b[i] = a[i] + a[i + 1];\n  }\n");
  write_file("macro.c", src[0]);
  write_file("plain.c", src[1]);
  cr_assert_eq(sh("%s cc -O2 -o macro macro.c && %s cc -O2 -o plain plain.c && CGPREDICT_QUIET=1 CGPREDICT_REPORT=m.json "
                  "./macro && CGPREDICT_QUIET=1 CGPREDICT_REPORT=p.json ./plain", CGP_DRIVER, CGP_DRIVER),
               0, "%s", read_file("err.txt"));
  cJSON *m = report("m.json"), *p = report("p.json");
  cJSON *km = kernel_named(m, "k"), *kp = kernel_named(p, "k");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(km, "memory")), 3);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(site(km, 10, "load", "a"), "class")), "uncoalesced");
  cr_expect_float_eq(num(prediction(km, "jetson-tk1"), "time_ms"), num(prediction(kp, "jetson-tk1"), "time_ms"), 1e-12);
  cJSON_Delete(m);
  cJSON_Delete(p);
}

/* Parboil's sad calls C's abs() in its thread body. The marked file is compiled with -fno-builtin,
   so abs stays a call, which was warned of as "its memory accesses are not traced" (six
   warnings). abs, fma, trunc, round, rint and copysign, one PTX instruction each and no memory,
   are counted as such. And where the dependence check stopped early (its 2^16 addresses) with
   nothing found, the summary says the threads it did not see may still conflict (sad, its budget
   reached after one warp, was called parallel while every thread writes one global row). The
   addresses that fill it are b's, which the kernel writes (a row a thread): a's, which it only
   reads, are not followed (pass/cgp_collect.c's `unwritten`; abs touches no memory). */
Test(e2e_users, abs_is_an_instruction_and_a_cut_dependence_check_is_said_so) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#include <stdlib.h>\n"
      "#define N 4096\n"
      "#define M 64\n"
      "static int a[N * M], b[N * M], s[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N * M; i++) a[i] = i % 7 - 3;\n"
      "#pragma cgpredict kernel name(sad)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    int t = 0;\n"
      "    for (int j = 0; j < M; j++) { t += abs(a[i * M + j]); b[i * M + j] = t; }\n"
      "    s[i] = t;\n"
      "  }\n"
      "  printf(\"%d\\n\", s[5]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "sad");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "warnings")), 0, "%s",
               cJSON_Print(cJSON_GetObjectItem(k, "warnings")));
  cr_expect_null(strstr(read_file("build.txt"), "call to abs"), "%s", read_file("build.txt"));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "parallel_safe")));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(site(k, 11, "load", "a"), "unwritten")));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "dependence_check"), "partial")));
  cr_expect(strstr(read_file("summary.txt"), "no dependence found, but the check stopped early"), "%s",
            read_file("summary.txt"));
  cJSON_Delete(r);
}

/* A function the nest calls from a header is warned of where it is written: LULESH's CBRT, an
   inline function of lulesh.h calling cbrt, was warned of as "lulesh.cc:49" (the header's line,
   the nest's file). The report's copy says the same place; the nest's own lines keep the name
   the user gave its file. */
Test(e2e_users, a_call_inlined_from_a_header_is_warned_of_in_the_header) {
  write_file("cube.h", "#include <math.h>\n"
                       "static inline double cube_root(double x) { return cbrt(x); }\n");
  cJSON *r = build_run_tk1_with("prog.c",
                                "#include <stdio.h>\n"
                                "#include \"cube.h\"\n"
                                "#define N 4096\n"
                                "static double a[N], b[N];\n"
                                "int main(void) {\n"
                                "  for (int i = 0; i < N; i++) a[i] = i * 0.5;\n"
                                "#pragma cgpredict kernel name(t)\n"
                                "  for (int i = 0; i < N; i++) b[i] = cube_root(a[i]) + tan(a[i]);\n"
                                "  printf(\"%g\\n\", b[100]);\n"
                                "  return 0;\n"
                                "}\n",
                                "cc", "-O2 -Wl,--no-as-needed -lm");
  const char *build = read_file("build.txt");
  cr_expect(strstr(build, "cube.h:2: warning: kernel 't': call to cbrt inside the thread body"), "%s", build);
  cr_expect(strstr(build, "prog.c:8: warning: kernel 't': call to tan inside the thread body"), "%s", build);
  cr_expect_null(strstr(build, "prog.c:2: warning"), "%s", build);
  const cJSON *w;
  int in_header = 0;
  cJSON_ArrayForEach(w, cJSON_GetObjectItem(kernel_named(r, "t"), "warnings"))
    in_header += strncmp(cJSON_GetStringValue(w), "cube.h:2: call to cbrt", 22) == 0;
  cr_expect_eq(in_header, 1, "%s", cJSON_Print(cJSON_GetObjectItem(kernel_named(r, "t"), "warnings")));
  cJSON_Delete(r);
}

/* An out-of-source build (CMake's: the compiler runs in the build directory on the source's full
   path) names sites as a build beside the source does: the pass read the source by the name the
   debug information records, relative to the source's directory, from the build directory, found
   nothing, and named `d->x[i]` by the debug variable, `d` (LULESH's accessors all `this`). */
Test(e2e_users, an_out_of_source_build_names_sites_as_one_beside_the_source) {
  write_file("k.c", "#include <stdio.h>\n"
                    "#define N 4096\n"
                    "typedef struct { float *x; } D;\n"
                    "static inline float get(D *d, int i) { return d->x[i]; }\n"
                    "float a[N], b[N];\n"
                    "int main(void) {\n"
                    "  D d = {a};\n"
                    "  for (int i = 0; i < N; i++) a[i] = i;\n"
                    "#pragma cgpredict kernel name(t)\n"
                    "  for (int i = 0; i < N; i++) b[i] = get(&d, (i * 7) % N);\n"
                    "  printf(\"%f\\n\", b[5]);\n"
                    "  return 0;\n"
                    "}\n");
  cr_assert_eq(sh("mkdir -p build && cd build && %s cc -O2 -o k \"$(pwd)/../k.c\" && CGPREDICT_QUIET=1 "
                  "CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./k", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cJSON *r = report("build/r.json");
  cJSON *k = kernel_named(r, "t");
  cr_expect_not_null(site(k, 4, "load", "d->x"));
  cr_expect_not_null(site(k, 10, "store", "b"));
  cJSON_Delete(r);
}

/* HPCCG's Makefile passes gcc's own -ftree-vectorizer-verbose=2: libclang and clang-14 refused it
   ("error: unknown argument") and no marked source built. It is left out of their compiles, said
   once; gcc's check of the source keeps it. And a pragma in code the preprocessor leaves out (HPCCG's
   OpenMP pragmas sit under #ifdef USING_OMP, where a user puts ours) marks nothing: said at its
   line, where the build only said at its end that it compiled no marked source. */
Test(e2e_users, gccs_own_flags_and_a_pragma_the_preprocessor_leaves_out_are_said) {
  cJSON *r = build_run_tk1_with("prog.c", unused_src, "cc", "-O2 -ftree-vectorizer-verbose=2 -fopt-info-vec-missed=/dev/null");
  const char *build = read_file("build.txt");
  cr_expect(strstr(build, "clang-14 does not take -ftree-vectorizer-verbose=2") &&
                strstr(build, "clang-14 does not take -fopt-info-vec-missed=/dev/null"), "%s", build);
  cr_expect_not_null(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0));
  cJSON_Delete(r);
  write_file("off.c", "#include <stdio.h>\n"
                      "static float a[64];\n"
                      "int main(void) {\n"
                      "#ifdef USING_OMP\n"
                      "  #pragma cgpredict kernel\n"
                      "#endif\n"
                      "  for (int i = 0; i < 64; i++) a[i] = (float)i;\n"
                      "  printf(\"%f\\n\", a[3]);\n"
                      "  return 0;\n"
                      "}\n");
  cr_assert_eq(sh("%s cc -O2 -o off off.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("err.txt"), "off.c:5: warning: this #pragma cgpredict is in code the preprocessor "
                                         "leaves out"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("%s cc -O2 -DUSING_OMP -o on off.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "leaves out"), "%s", read_file("err.txt"));
}

/* C's other math functions (tanf, atan2f, fmodf, hypotf) touch no memory, but were warned of as
   "its memory accesses are not traced"; CUDA's device versions are instruction sequences the
   table counts as one, which the warning now says instead. */
Test(e2e_users, a_math_function_is_said_to_be_a_sequence_not_untraced_memory) {
  cJSON *r = build_run_tk1_with("prog.c",
                                "#include <stdio.h>\n"
                                "#include <math.h>\n"
                                "#define N 4096\n"
                                "static float a[N], b[N];\n"
                                "static float phase(float x) { return atanf(x); }\n"
                                "int main(void) {\n"
                                "  for (int i = 0; i < N; i++) a[i] = i * 0.001f;\n"
                                "#pragma cgpredict kernel name(t)\n"
                                "  for (int i = 0; i < N; i++) b[i] = tanf(a[i]) + fmodf(a[i], 0.3f) + phase(a[i]) * phase(b[i]);\n"
                                "  printf(\"%g\\n\", b[100]);\n"
                                "  return 0;\n"
                                "}\n",
                                "cc", "-O2 -Wl,--no-as-needed -lm");
  const char *build = read_file("build.txt");
  cr_expect_null(strstr(build, "memory accesses are not traced"), "%s", build);
  cr_expect(strstr(build, "call to tanf inside the thread body: no memory, but CUDA's device tanf is a sequence") &&
                strstr(build, "call to fmodf"),
            "%s", build);
  /* phase() inlined twice: its line is warned of once (RSBench's calculate_sig_T, inlined at two
     calls, gave each of its three atan lines twice), in the build and in the report */
  const char *at = strstr(build, "prog.c:5: warning: kernel 't': call to atanf");
  cr_assert_not_null(at, "%s", build);
  cr_expect_null(strstr(at + 1, "prog.c:5: warning: kernel 't': call to atanf"), "%s", build);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(kernel_named(r, "t"), "warnings")), 3, "%s",
               cJSON_Print(cJSON_GetObjectItem(kernel_named(r, "t"), "warnings")));
  cr_expect_gt(num(prediction(kernel_named(r, "t"), "jetson-tk1"), "time_ms"), 0);
  cJSON_Delete(r);
}
