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
}
