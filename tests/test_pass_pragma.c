/* The pragma scanner on small sources: accepted clauses, and errors with file:line:col. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_pragma.h"

#include "test_dir.h"

static char path[300];

static void setup(void) {
  test_dir_make("cgp-pragma");
  snprintf(path, sizeof path, "%s/k.c", dir);
}

static void teardown(void) { test_dir_remove(); }

static int scan(const char *src, cgp_kernel_pragma **k, size_t *n, char *err, size_t errlen,
                const char *const *argv, int argc) {
  write_file("k.c", src);
  return cgp_pragma_scan(path, argv, argc, k, n, err, errlen);
}

/* The kernels of src, which must scan without error; *n: how many. */
static cgp_kernel_pragma *scan_ok(const char *src, size_t *n) {
  cgp_kernel_pragma *k = NULL;
  char err[4096];
  cr_assert_eq(scan(src, &k, n, err, sizeof err, NULL, 0), 0, "%s", err);
  return k;
}

/* Kernel k is named `name` and its for statement starts at line:col. */
static void expect_kernel_at(const cgp_kernel_pragma *k, const char *name, unsigned line, unsigned col) {
  cr_assert_str_eq(k->name, name);
  cr_assert_eq(k->for_line, line, "%s: for at line %u", name, k->for_line);
  cr_assert_eq(k->for_col, col, "%s: for at column %u", name, k->for_col);
}

static void expect_error(const char *src, unsigned line, unsigned col, const char *what) {
  cgp_kernel_pragma *k = NULL;
  size_t n = 0;
  char err[4096], where[sizeof path + 40];
  cr_assert_neq(scan(src, &k, &n, err, sizeof err, NULL, 0), 0, "accepted:\n%s", src);
  snprintf(where, sizeof where, "%s:%u:%u: error:", path, line, col);
  cr_assert(strstr(err, where), "expected '%s' in: %s", where, err);
  cr_assert(strstr(err, what), "expected '%s' in: %s", what, err);
  cr_assert_null(k);
}

TestSuite(pragma, .init = setup, .fini = teardown);

Test(pragma, accepts_every_documented_clause_and_records_the_for_location) {
  const char *src =
    "float A[64][64];\n"
    "void f(void) {\n"
    "#pragma cgpredict kernel name(tiled) dims(2) block(16, 8) shared(A) tile(16)\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++) A[i][j] = 0;\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(k[0].name, "tiled");
  cr_assert_eq(k[0].pragma_line, 3);
  cr_assert_eq(k[0].pragma_col, 1);
  cr_assert_eq(k[0].for_line, 4);
  cr_assert_eq(k[0].for_col, 3);
  cr_assert_eq(k[0].for_end_line, 5);
  cr_assert_eq(k[0].dims, 2);
  cr_assert_eq(k[0].block[0], 16);
  cr_assert_eq(k[0].block[1], 8);
  cr_assert_eq(k[0].block[2], 1);
  cr_assert_eq(k[0].nshared, 1);
  cr_assert_str_eq(k[0].shared[0], "A");
  cr_assert_eq(k[0].tile, 16);
  free(k);
}

Test(pragma, two_kernels_default_name_and_other_pragmas_ignored) {
  const char *src =
    "float a[9], b[9];\n"
    "void f(void) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 9; i++) a[i] = 0;\n"
    "#pragma cgpredict kernel\n"
    "  for (int i = 0; i < 9; i++) a[i] = 1;\n"
    "  #pragma cgpredict kernel name(second)\n"
    "    for (int i = 0; i < 9; i++) b[i] = 1;\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(k[0].name, "k_5");
  cr_assert_eq(k[0].dims, 0);
  cr_assert_eq(k[0].block[0], 0);
  cr_assert_eq(k[1].for_line, 8);
  cr_assert_eq(k[1].for_col, 5);
  cr_assert_str_eq(k[1].name, "second");
  free(k);
}

Test(pragma, continued_line_and_macro_bounds_with_a_define_flag) {
  const char *src =
    "float a[NN];\n"
    "void f(void) {\n"
    "#pragma cgpredict kernel name(cont) \\\n"
    "    dims(1)\n"
    "  for (int i = 0; i < NN; i++) a[i] = 0;\n"
    "}\n";
  const char *argv[] = {"-DNN=32"};
  cgp_kernel_pragma *k;
  size_t n;
  char err[4096];
  cr_assert_eq(scan(src, &k, &n, err, sizeof err, argv, 1), 0, "%s", err);
  cr_assert_eq(n, 1);
  cr_assert_eq(k[0].dims, 1);
  cr_assert_eq(k[0].for_line, 5);
  free(k);
}

/* HLS code labels its loops (MachSuite names every one: `outer: for`). A pragma before a labelled
   loop marks the loop, past one label or several; before, "#pragma cgpredict kernel is not
   followed by a for loop". A label before a statement that is not a loop is still refused. */
Test(pragma, a_labelled_loop_is_marked_past_its_labels) {
  const char *src =
    "float A[64][64];\n"
    "void f(void) {\n"
    "  int i, j;\n"
    "#pragma cgpredict kernel name(labelled) dims(2)\n"
    "  outer: again:\n"
    "  for (i = 0; i < 64; i++)\n"
    "    inner: for (j = 0; j < 64; j++) A[i][j] = 0;\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 1);
  cr_assert_eq(k[0].for_line, 6);
  cr_assert_eq(k[0].for_col, 3);
  cr_assert_eq(k[0].for_end_line, 7);
  free(k);
  expect_error("void f(float *a) {\n#pragma cgpredict kernel\n  top: a[0] = 0;\n}\n", 2, 1,
               "not followed by a for loop");
}

/* Comments between the pragma and its loop, or after the pragma on its line, are not code
   (Rodinia's backprop: `#pragma omp parallel for ...`, then the pragma, then `/` `*** For each unit
   in second layer ***` `/`, then the loop): it was refused, "not followed by a for loop", since
   libclang's tokens hold the comments. A comment before a statement that is not a loop is still
   refused. */
Test(pragma, comments_between_the_pragma_and_its_loop_are_passed_over) {
  const char *src =
    "float A[64];\n"
    "void f(void) {\n"
    "  int j;\n"
    "#pragma cgpredict kernel name(commented) // the update\n"
    "  /*** For each unit in second layer ***/\n"
    "  // one more line\n"
    "  for (j = 0; j < 64; j++)\n"
    "    A[j] = 0; /* done */\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(k[0].name, "commented");
  cr_assert_eq(k[0].for_line, 7);
  cr_assert_eq(k[0].for_col, 3);
  cr_assert_eq(k[0].for_end_line, 8);
  free(k);
  expect_error("void f(float *a) {\n#pragma cgpredict kernel\n  /* no loop */\n  a[0] = 0;\n}\n", 2, 1,
               "not followed by a for loop");
}

/* A loop written by a macro (Parboil's and SPEC's lbm: `SWEEP_START(...)` expands to `for (...) {`,
   `SWEEP_END` to `}`): it was refused, "not followed by a for loop". The for statement the macro
   begins is marked at the macro's name, where the compiler's debug locations put the loop, and it
   ends at the closing macro's line. A macro that expands to something else is still refused. */
Test(pragma, a_loop_a_macro_writes_is_marked_at_the_macros_use) {
  const char *src =
    "#define SWEEP(v, n) for (v = 0; v < (n); v++) {\n"
    "#define SWEEP_END }\n"
    "#define CLEAR(a) (a)[0] = 0\n"
    "void f(float *a) {\n"
    "  int i;\n"
    "#pragma cgpredict kernel name(swept)\n"
    "  SWEEP(i, 64)\n"
    "    a[i] = 1;\n"
    "  SWEEP_END\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 1);
  expect_kernel_at(&k[0], "swept", 7, 3);
  cr_assert_eq(k[0].for_end_line, 9);
  free(k);
  expect_error("#define CLEAR(a) (a)[0] = 0\nvoid f(float *a) {\n#pragma cgpredict kernel\n  CLEAR(a);\n}\n", 3, 1,
               "not followed by a for loop");
}

/* Two pragmas stacked on one loop: before, the build failed later with "the mapped loop at line
   4:3 has no integer induction variable", about a loop whose counter is an int (found trying
   MachSuite). Now the second pragma is refused, naming the first. */
Test(pragma, two_pragmas_on_one_loop_are_refused_naming_the_first) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel name(k1)\n#pragma cgpredict kernel name(k2)\n"
               "  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               3, 1, "the loop at line 4:3 is already marked by the pragma at line 2");
}

Test(pragma, source_without_pragmas_gives_no_kernel) {
  cgp_kernel_pragma *k;
  size_t n = 7;
  char err[4096];
  cr_assert_eq(scan("int main(void) { return 0; }\n", &k, &n, err, sizeof err, NULL, 0), 0);
  cr_assert_eq(n, 0);
}

Test(pragma, unknown_clause_names_its_position) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel nmae(x)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 26, "unknown clause 'nmae'");
}

Test(pragma, zero_block_is_rejected) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel block(0)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 32, "positive integer");
}

/* block(32, 8) with dims(1): one loop is mapped, so the 8 had nowhere to go and the block was
   silently 32 x 1 x 1 (found trying MachSuite). Refused, at the block clause; block(32, 1) and
   block(32, 8) with dims(2) are fine. */
Test(pragma, a_block_with_more_dimensions_than_dims_is_refused) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel dims(1) block(32, 8)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 34, "block(...) shapes 2 dimensions but dims(1) maps 1 loop");
  size_t n;
  cgp_kernel_pragma *k = scan_ok("void f(float *a) {\n#pragma cgpredict kernel dims(1) block(32, 1)\n"
                                 "  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n", &n);
  cr_assert_eq(n, 1);
  cr_assert_eq(k[0].block[0], 32);
  free(k);
  k = scan_ok("float A[8][8];\nvoid f(void) {\n#pragma cgpredict kernel dims(2) block(32, 8)\n"
              "  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) A[i][j] = 0;\n}\n", &n);
  cr_assert_eq(k[0].block[1], 8);
  free(k);
}

Test(pragma, dims_above_three_is_rejected) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel dims(4)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 31, "dims(...) is 1, 2 or 3");
}

Test(pragma, clause_given_twice_is_rejected) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel dims(1) dims(1)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 34, "given twice");
}

Test(pragma, unbalanced_parenthesis_is_rejected) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel block(32, 8\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 26, "expected ',' or ')' in 'block(...)'");
}

Test(pragma, too_many_threads_per_block_is_rejected) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel block(64, 32)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 1, "more than 1024 threads");
}

Test(pragma, tile_without_shared_is_rejected) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel tile(32)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 1, "tile(...) needs shared(...)");
}

Test(pragma, while_loop_is_not_a_for_loop) {
  expect_error("void f(float *a) {\n  int i = 0;\n#pragma cgpredict kernel\n  while (i < 9) a[i++] = 0;\n}\n",
               3, 1, "not followed by a for loop");
}

Test(pragma, statement_after_pragma_is_not_a_for_loop) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel\n  a[0] = 1;\n}\n", 2, 1, "not followed by a for loop");
}

Test(pragma, pragma_at_end_of_file_is_an_error) {
  expect_error("void f(void) {}\n#pragma cgpredict kernel\n", 2, 1, "not followed by a for loop");
}

Test(pragma, missing_kernel_word_is_an_error) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernal\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
               2, 19, "expected 'kernel'");
}

Test(pragma, duplicate_kernel_names_are_an_error) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel name(k)\n  for (int i = 0; i < 9; i++) a[i] = 0;\n"
               "#pragma cgpredict kernel name(k)\n  for (int i = 0; i < 9; i++) a[i] = 1;\n}\n",
               4, 1, "already used at line 2");
}

Test(pragma, syntax_error_in_the_source_is_reported_with_its_location) {
  expect_error("void f(float *a) {\n#pragma cgpredict kernel\n  for (int i = 0; i < 9; i++) a[i] = 0\n}\n",
               3, 39, "expected ';'");
}

/* ---- the clause parser alone (no libclang) ---------------------------------------------------- */

static int parse_text(const char *text, cgp_kernel_pragma *k, size_t *at, char *err, size_t errlen) {
  memset(k, 0, sizeof *k);
  return cgp_pragma_parse(text, strlen(text), k, at, err, errlen);
}

Test(pragma_clause, noalias_is_a_flag_with_or_without_parentheses) {
  static cgp_kernel_pragma k;
  size_t at;
  char err[256];
  cr_assert_eq(parse_text("cgpredict kernel name(a) noalias", &k, &at, err, sizeof err), 0, "%s", err);
  cr_assert_eq(k.noalias, 1);
  cr_assert_eq(parse_text("cgpredict kernel noalias(), dims(1)", &k, &at, err, sizeof err), 0, "%s", err);
  cr_assert_eq(k.noalias, 1);
  cr_assert_eq(k.dims, 1);
  cr_assert_eq(parse_text("cgpredict kernel dims(1)", &k, &at, err, sizeof err), 0, "%s", err);
  cr_assert_eq(k.noalias, 0);
  cr_assert_neq(parse_text("cgpredict kernel noalias(p)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "noalias takes no arguments"), "%s", err);
  cr_assert_eq(at, 25);
}

Test(pragma_clause, a_long_utf8_name_is_kept_whole) {
  static cgp_kernel_pragma k;
  static char text[2048];
  char name[1200] = "";
  for (int i = 0; i < 200; i++) strcat(name, "\xc3\xa9");          /* 200 x 'é': 400 bytes */
  strcat(name, "_\xe6\x97\xa5");                                     /* and a 3-byte character */
  snprintf(text, sizeof text, "cgpredict kernel name(%s)", name);
  size_t at;
  char err[256];
  cr_assert_eq(parse_text(text, &k, &at, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(k.name, name);
  cr_assert_eq(strlen(k.name), 404);
}

Test(pragma_clause, a_name_over_the_limit_is_refused_not_cut) {
  static cgp_kernel_pragma k;
  static char text[CGP_PRAGMA_NAME_MAX + 64];
  int n = snprintf(text, sizeof text, "cgpredict kernel name(");
  for (int i = 0; i < CGP_PRAGMA_NAME_MAX; i++) text[n++] = 'x';
  strcpy(text + n, ")");
  size_t at;
  char err[256];
  cr_assert_neq(parse_text(text, &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "more than 4095"), "%s", err);
  cr_assert_eq(k.name[0], '\0');
}

Test(pragma_clause, ill_formed_utf8_in_a_name_is_refused) {
  static cgp_kernel_pragma k;
  size_t at;
  char err[256];
  cr_assert_neq(parse_text("cgpredict kernel name(ab\xc3)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "not valid UTF-8"), "%s", err);
  cr_assert_neq(parse_text("cgpredict kernel name(\xed\xa0\x80)", &k, &at, err, sizeof err), 0);   /* a surrogate */
}

Test(pragma_clause, errors_point_at_the_offending_text) {
  static cgp_kernel_pragma k;
  size_t at;
  char err[256];
  cr_assert_neq(parse_text("cgpredict kernel dims(2) block(0)", &k, &at, err, sizeof err), 0);
  cr_assert_eq(at, 31);
  cr_assert(strstr(err, "positive integer"), "%s", err);
  cr_assert_neq(parse_text("cgpredict kernel block(99999999999999999999)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "positive integer"), "%s", err);
  cr_assert_neq(parse_text("cgpredict kernel shared(a,b,c,d,e,f,g,h,i)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "at most 8 arrays"), "%s", err);
  cr_assert_eq(at, 40);
  cr_assert_neq(parse_text("cgpredict kernel name(x", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "expected ',' or ')'"), "%s", err);
}

Test(pragma_clause, text_need_not_be_nul_terminated) {
  static cgp_kernel_pragma k;
  size_t at;
  char err[256];
  const char text[] = {'c','g','p','r','e','d','i','c','t',' ','k','e','r','n','e','l',' ','d','i','m','s','(','2',')','X'};
  memset(&k, 0, sizeof k);
  cr_assert_eq(cgp_pragma_parse(text, sizeof text - 1, &k, &at, err, sizeof err), 0, "%s", err);
  cr_assert_eq(k.dims, 2);
}

/* ---- pragmas where the preprocessor puts them ----------------------------------------------- */

Test(pragma, a_pragma_in_an_included_header_is_found_with_the_header_location) {
  write_file("kern.h",
    "static void kern(float *a, int n) {\n"
    "#pragma cgpredict kernel name(in_header) block(128)\n"
    "  for (int i = 0; i < n; i++) a[i] = 0;\n"
    "}\n");
  cgp_kernel_pragma *k;
  size_t n;
  char err[4096], inc[sizeof dir + 3];
  snprintf(inc, sizeof inc, "-I%s", dir);
  const char *argv[] = {inc};
  cr_assert_eq(scan("#include \"kern.h\"\nfloat a[9];\nint main(void) { kern(a, 9); return 0; }\n",
                    &k, &n, err, sizeof err, argv, 1), 0, "%s", err);
  cr_assert_eq(n, 1);
  expect_kernel_at(&k[0], "in_header", 3, 3);
  cr_assert(strstr(k[0].file, "kern.h"), "%s", k[0].file);
  cr_assert_eq(k[0].pragma_line, 2);
  cr_assert_eq(k[0].block[0], 128);
  free(k);
}

Test(pragma, an_error_in_a_header_pragma_names_the_header) {
  write_file("bad.h",
    "static void kern(float *a) {\n"
    "#pragma cgpredict kernel dims(7)\n"
    "  for (int i = 0; i < 9; i++) a[i] = 0;\n"
    "}\n");
  cgp_kernel_pragma *k;
  size_t n;
  char err[4096];
  cr_assert_neq(scan("#include \"bad.h\"\n", &k, &n, err, sizeof err, NULL, 0), 0);
  cr_assert(strstr(err, "bad.h:2:31: error: dims(...) is 1, 2 or 3"), "%s", err);
}

Test(pragma, pragma_operator_built_by_a_stringizing_macro_is_read_with_its_arguments) {
  /* the OpenMP-wrapper idiom: _Pragma(STR(...)), the outer macro's parameters substituted */
  const char *src =
    "#define STR(x) #x\n"
    "#define KERNEL(n, d) _Pragma(STR(cgpredict kernel name(n) dims(d)))\n"
    "#define FIXED _Pragma(STR(cgpredict kernel name(fixed) noalias))\n"
    "#define OTHER(x) _Pragma(STR(omp parallel for)) x\n"
    "float a[64], b[64][64];\n"
    "void f(void) {\n"
    "  KERNEL(rows, 2)\n"
    "  for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) b[i][j] = 0;\n"
    "  FIXED for (int i = 0; i < 64; i++) a[i] = 1;\n"
    "  OTHER(for (int i = 0; i < 64; i++) a[i] = 2;)\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 2);
  expect_kernel_at(&k[0], "rows", 8, 3);
  cr_assert_eq(k[0].dims, 2);
  expect_kernel_at(&k[1], "fixed", 9, 9);
  cr_assert_eq(k[1].noalias, 1);
  free(k);
}

Test(pragma, pragma_operator_in_a_macro_marks_the_for_after_the_expansion) {
  const char *src =
    "#define GPU_KERNEL(n) _Pragma(\"cgpredict kernel name(viamacro) dims(1)\")\n"
    "#define GPU_NOALIAS _Pragma(\"cgpredict kernel name(direct) noalias\")\n"
    "float a[64], b[64];\n"
    "void f(void) {\n"
    "  GPU_KERNEL(x)\n"
    "  for (int i = 0; i < 64; i++) a[i] = 0;\n"
    "  GPU_NOALIAS for (int i = 0; i < 64; i++) b[i] = 1;\n"
    "  _Pragma(\"cgpredict kernel name(\\\"q\\\")\")\n"
    "  for (int i = 0; i < 64; i++) b[i] = 2;\n"
    "}\n";
  cgp_kernel_pragma *k;
  size_t n;
  char err[4096];
  int rc = scan(src, &k, &n, err, sizeof err, NULL, 0);
  /* name("q") is not an identifier: the third pragma is refused at its _Pragma */
  cr_assert_neq(rc, 0);
  cr_assert(strstr(err, ":8:3: error: name(...) expects an identifier"), "%s", err);
  const char *good =
    "#define GPU_KERNEL(n) _Pragma(\"cgpredict kernel name(viamacro) dims(1)\")\n"
    "#define GPU_NOALIAS _Pragma(\"cgpredict kernel name(direct) noalias\")\n"
    "float a[64], b[64];\n"
    "void f(void) {\n"
    "  GPU_KERNEL(x)\n"
    "  for (int i = 0; i < 64; i++) a[i] = 0;\n"
    "  GPU_NOALIAS for (int i = 0; i < 64; i++) b[i] = 1;\n"
    "  _Pragma(\"cgpredict kernel name(plain)\")\n"
    "  for (int i = 0; i < 64; i++) b[i] = 2;\n"
    "}\n";
  cr_assert_eq(scan(good, &k, &n, err, sizeof err, NULL, 0), 0, "%s", err);
  cr_assert_eq(n, 3);
  expect_kernel_at(&k[0], "viamacro", 6, 3);
  cr_assert_eq(k[0].dims, 1);
  expect_kernel_at(&k[1], "direct", 7, 15);
  cr_assert_eq(k[1].noalias, 1);
  expect_kernel_at(&k[2], "plain", 9, 3);
  free(k);
}

Test(pragma, a_pragma_in_an_inactive_branch_is_ignored) {
  const char *src =
    "float a[9];\n"
    "void f(void) {\n"
    "#if 0\n"
    "#pragma cgpredict kernel name(off)\n"
    "  while (0) {}\n"
    "#endif\n"
    "#ifdef ON\n"
    "#pragma cgpredict kernel name(on)\n"
    "#endif\n"
    "  for (int i = 0; i < 9; i++) a[i] = 0;\n"
    "}\n";
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 0);
  const char *argv[] = {"-DON"};
  char err[4096];
  cr_assert_eq(scan(src, &k, &n, err, sizeof err, argv, 1), 0, "%s", err);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(k[0].name, "on");
  cr_assert_eq(k[0].for_line, 10);
  free(k);
}

Test(pragma, a_long_name_in_a_source_is_kept_whole) {
  static char src[4096];
  char name[700] = "";
  for (int i = 0; i < 100; i++) strcat(name, "k\xc3\xa9rn");      /* 500 bytes, 'é' across byte 63 */
  snprintf(src, sizeof src, "float a[9];\nvoid f(void) {\n#pragma cgpredict kernel name(%s)\n"
           "  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n", name);
  size_t n;
  cgp_kernel_pragma *k = scan_ok(src, &n);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(k[0].name, name);
  free(k);
}

Test(pragma, a_macro_from_a_header_marks_a_loop_in_a_source_that_never_says_cgpredict) {
  write_file("mark.h", "#define MARK _Pragma(\"cgpredict kernel name(marked) dims(1)\")\n");
  cgp_kernel_pragma *k;
  size_t n;
  char err[4096], inc[sizeof dir + 3];
  snprintf(inc, sizeof inc, "-I%s", dir);
  const char *argv[] = {inc};
  cr_assert_eq(scan("#include \"mark.h\"\nfloat a[9];\nvoid f(void) {\n  MARK\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n",
                    &k, &n, err, sizeof err, argv, 1), 0, "%s", err);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(k[0].name, "marked");
  cr_assert_eq(k[0].pragma_line, 4);
  cr_assert_eq(k[0].for_line, 5);
  cr_assert(strstr(k[0].file, "k.c"), "%s", k[0].file);
  free(k);
}

/* A loop OpenMP shares among threads, or any loop inside an OpenMP construct, when the file is
   compiled with -fopenmp (found trying Rodinia's hotspot3D, whose nest sits in `#pragma omp
   parallel` under `#pragma omp for`): refused at the loop, the message naming OpenMP and what to
   do, instead of a puzzle about macros. Without -fopenmp the same sources mark their loop. */
Test(pragma, a_loop_inside_an_openmp_construct_is_refused_by_name) {
  const char *srcs[2] = {
      "void f(float *a, int n) {\n#pragma cgpredict kernel\n#pragma omp parallel for\n  for (int i = 0; i < n; i++)\n"
      "    a[i] = 0;\n}\n",
      "void f(float *a, int n) {\n#pragma omp parallel\n  {\n#pragma cgpredict kernel\n    for (int i = 0; i < n; i++)\n"
      "      a[i] = 0;\n  }\n}\n"};
  const unsigned line[2] = {4, 5}, col[2] = {3, 5};
  const char *const openmp[] = {"-fopenmp"};
  for (int c = 0; c < 2; c++) {
    cgp_kernel_pragma *k = NULL;
    size_t n = 0;
    char err[4096], where[sizeof path + 100];
    cr_assert_neq(scan(srcs[c], &k, &n, err, sizeof err, openmp, 1), 0, "case %d accepted with -fopenmp", c);
    snprintf(where, sizeof where, "%s:%u:%u: error: the marked loop is inside an OpenMP construct", path, line[c], col[c]);
    cr_assert(strstr(err, where), "case %d: expected '%s' in: %s", c, where, err);
    cr_assert(strstr(err, "without -fopenmp"), "case %d: %s", c, err);
    cr_assert_null(k);
    k = scan_ok(srcs[c], &n);
    cr_assert_eq(n, 1, "case %d without -fopenmp", c);
    expect_kernel_at(k, k->name, line[c], col[c]);
    free(k);
  }
}

Test(pragma_clause, a_shared_array_may_be_padded) {
  static cgp_kernel_pragma k;
  size_t at;
  char err[256];
  memset(&k, 0, sizeof k);
  cr_assert_eq(parse_text("cgpredict kernel shared(A pad(1), B, C pad(0)) tile(32)", &k, &at, err, sizeof err), 0, "%s", err);
  cr_assert_eq(k.nshared, 3);
  cr_assert_str_eq(k.shared[1], "B");
  cr_assert_eq(k.shared_pad[0], 1);
  cr_assert_eq(k.shared_pad[1], 0);
  cr_assert_eq(k.shared_pad[2], 0);
  cr_assert_neq(parse_text("cgpredict kernel shared(A pad 1) tile(32)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "expected '(' after 'pad'"), "%s", err);
  cr_assert_eq(at, 30);
  cr_assert_neq(parse_text("cgpredict kernel shared(A pad(65)) tile(32)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "at most 64"), "%s", err);
  cr_assert_neq(parse_text("cgpredict kernel shared(A pad(1) tile(32)", &k, &at, err, sizeof err), 0);
  cr_assert(strstr(err, "expected ',' or ')'"), "%s", err);
}

/* The FPGA directives (docs/model.md 11.10): parsed with their positions, each error at the token
   it is about. */
Test(pragma, fpga_directives_are_parsed_with_their_positions) {
  size_t n;
  cgp_kernel_pragma *k = scan_ok("void f(float *a, float *b) {\n"
                                 "#pragma cgpredict kernel fpga(unroll(i, 4) pipeline(i), partition(a, cyclic, 4) "
                                 "partition(b, complete))\n  for (int i = 0; i < 8; i++) a[i] = b[i];\n}\n", &n);
  cr_assert_eq(n, 1);
  cr_assert_eq(k[0].fpga, CGP_FPGA_LIST);
  cr_assert_eq(k[0].n_knobs, 4);
  cr_expect_eq(k[0].knobs[0].kind, CGP_KNOB_UNROLL);
  cr_expect_str_eq(k[0].knobs[0].name, "i");
  cr_expect_eq(k[0].knobs[0].factor, 4);
  cr_expect_eq(k[0].knobs[0].line, 2);
  cr_expect_eq(k[0].knobs[0].col, 31);
  cr_expect_eq(k[0].knobs[1].kind, CGP_KNOB_PIPELINE);
  cr_expect_eq(k[0].knobs[1].col, 44);
  cr_expect_eq(k[0].knobs[2].part, 1);
  cr_expect_eq(k[0].knobs[2].factor, 4);
  cr_expect_eq(k[0].knobs[2].dim, 1);
  cr_expect_eq(k[0].knobs[3].part, 3);
  cr_expect_eq(k[0].knobs[3].factor, 0);
  free(k);
  k = scan_ok("void f(float *a) {\n#pragma cgpredict kernel fpga(auto)\n  for (int i = 0; i < 8; i++) a[i] = 0;\n}\n", &n);
  cr_expect_eq(k[0].fpga, CGP_FPGA_AUTO);
  free(k);
  k = scan_ok("void f(float *a) {\n#pragma cgpredict kernel fpga(none)\n  for (int i = 0; i < 8; i++) a[i] = 0;\n}\n", &n);
  cr_expect_eq(k[0].fpga, CGP_FPGA_BASELINE);
  free(k);
}

Test(pragma, fpga_directive_errors_name_their_position) {
#define FPGA_ERR(clause, col, msg)                                                                                   \
  expect_error("void f(float *a) {\n#pragma cgpredict kernel " clause "\n  for (int i = 0; i < 9; i++) a[i] = 0;\n}\n", \
               2, col, msg)
  FPGA_ERR("fpga(unrol(i, 4))", 31, "unknown FPGA directive 'unrol'");
  FPGA_ERR("fpga(unroll(i, 0))", 41, "unroll(...) expects a positive integer");
  FPGA_ERR("fpga(unroll(i))", 39, "unroll(LOOP, FACTOR): expected ','");
  FPGA_ERR("fpga(partition(a, diagonal, 2))", 44, "the kind is cyclic, block or complete, not 'diagonal'");
  FPGA_ERR("fpga(partition(a, cyclic))", 50, "partition(a, cyclic, FACTOR): expected ','");
  FPGA_ERR("fpga(partition(a, cyclic, 2, 5))", 55, "the dimension is 1 to 4");
  FPGA_ERR("fpga(pipeline(i) pipeline(i))", 43, "one pipeline(...) per kernel");
  FPGA_ERR("fpga(auto unroll(i, 2))", 36, "stand alone");
  FPGA_ERR("fpga()", 31, "fpga() is empty");
  FPGA_ERR("fpga(unroll(i, 2)", 26, "expected ')' to close 'fpga(...)'");
#undef FPGA_ERR
}

/* The locals an OpenMP directive written with the pragma makes each thread's own: private,
   firstprivate and lastprivate lists, before the pragma or after it, over continued lines; not
   threadprivate (a directive for globals), not a directive past the loop's line, nor one a line
   of code away. */
Test(pragma, openmp_private_clauses_around_the_pragma_are_read) {
  size_t n;
  cgp_kernel_pragma *k = scan_ok(
    "double u1[8], u2[8], t[8];\n"
    "#pragma omp threadprivate(t)\n"
    "void f(int n) {\n"
    "  int i, j; double a[4], b[4], c[4], d[4];\n"
    "#pragma omp parallel for default(shared) private(i, u1,u2) \\\n"
    "    firstprivate(a) schedule(static)\n"
    "#pragma cgpredict kernel name(one)\n"
    "  for (i = 0; i < n; i++) u1[0] = a[0];\n"
    "#pragma cgpredict kernel name(two)\n"
    "#pragma omp for lastprivate(b)\n"
    "  for (j = 0; j < n; j++) {\n"
    "#pragma omp simd private(c)\n"
    "    for (i = 0; i < 4; i++) b[i] = c[i];\n"
    "  }\n"
    "#pragma omp parallel private(d)\n"
    "  i = 0;\n"
    "#pragma cgpredict kernel name(three)\n"
    "  for (i = 0; i < n; i++) d[0] = i;\n"
    "}\n", &n);
  cr_assert_eq(n, 3);
  cr_expect_str_eq(k[0].omp_private, "i u1 u2 a ");
  cr_expect_str_eq(k[1].omp_private, "b ");
  cr_expect_str_eq(k[2].omp_private, "");
  free(k);
}

/* Locals declared in the block a `#pragma omp parallel` opens, before the marked loop (NPB FT's
   y0, y1 in cffts1), are each thread's; a block that is no parallel region's is not read. */
Test(pragma, locals_of_an_openmp_parallel_region_around_the_loop_are_private) {
  size_t n;
  cgp_kernel_pragma *k = scan_ok(
    "double x[64][64];\n"
    "void f(int n) {\n"
    "  int k;\n"
    "#pragma omp parallel default(shared) \\\n"
    "    private(k)\n"
    "  {\n"
    "    double y0[64], y1[64];\n"
    "    int m = 3; /* { a brace in a comment } */\n"
    "#pragma omp for\n"
    "#pragma cgpredict kernel name(one)\n"
    "    for (k = 0; k < n; k++) { y0[k] = x[k][0]; y1[k] = y0[k] * m; }\n"
    "    double after = 0;\n"
    "    (void)after;\n"
    "  }\n"
    "  {\n"
    "    double z[4];\n"
    "#pragma cgpredict kernel name(two)\n"
    "    for (k = 0; k < n; k++) z[k % 4] = 1;\n"
    "  }\n"
    "}\n", &n);
  cr_assert_eq(n, 2);
  cr_expect_str_eq(k[0].omp_private, "y0 y1 m ");   /* (the region's own clauses are not read: a scalar here) */
  cr_expect_str_eq(k[1].omp_private, "");
  free(k);
}
