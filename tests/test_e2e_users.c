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
