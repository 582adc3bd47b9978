/* End-to-end, issue 30 item 1 (MachSuite's md/grid): locals declared at the top of a C89
   function, outside the marked nest. A scratch struct every iteration of the mapped loops writes
   before it reads (md's `p`, `q`, `b1`) is each thread's own, as a CUDA programmer declares it
   inside the kernel: no dependence, not traced as memory, listed in the kernel's "privatized". So
   is a struct field that counts a mapped loop (`for (b0.x = 0; ...; b0.x++)`). A local read before
   it is written in an iteration (a running sum in a struct) stays shared memory with its
   dependence. The report's warnings carry file:line. */
#include "e2e_util.h"

/* `name` is in the kernel's "privatized" list. */
static int privatized(cJSON *k, const char *name) {
  cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(k, "privatized"))
    if (strcmp(e->valuestring, name) == 0) return 1;
  return 0;
}

/* Some memory site of the kernel is an access to `array`. */
static int traced(cJSON *k, const char *array) {
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory"))
    if (strcmp(cJSON_GetObjectItem(m, "array")->valuestring, array) == 0) return 1;
  return 0;
}

/* Kernel k is parallel as written; the message lists its dependences when it is not. */
static void assert_parallel(cJSON *k) {
  char *deps = cJSON_PrintUnformatted(cJSON_GetObjectItem(k, "dependences"));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "parallel_safe")), "dependences: %s", deps);
  free(deps);
}

TestSuite(e2e_private, .init = setup, .fini = teardown, .timeout = 300);

/* md/grid's shape: scratch structs p and q declared before the nest, p copied whole from the
   array, q from a neighbour, their fields read after; dx a scalar the optimizer keeps in a
   register. Before: 'p' and 'q' were shared memory, with war/waw/raw between every two threads
   (and atomicAdd suggested for them). */
Test(e2e_private, scratch_structs_written_before_read_are_private_to_each_thread) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 256\n"
      "typedef struct { double x, y, z; } vec;\n"
      "vec pos[N], force[N];\n"
      "static void step(void) {\n"
      "  vec p, q;\n"
      "  double dx, s;\n"
      "  int i, j;\n"
      "#pragma cgpredict kernel name(md)\n"
      "  for (i = 0; i < N; i++) {\n"
      "    p = pos[i];\n"
      "    s = 0;\n"
      "    for (j = 0; j < 8; j++) {\n"
      "      q = pos[(i + j) % N];\n"
      "      dx = p.x - q.x + p.y * q.z;\n"
      "      s += dx * dx;\n"
      "    }\n"
      "    force[i].x = s;\n"
      "  }\n"
      "}\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) pos[i] = (vec){i, i % 5, i % 3};\n"
      "  step();\n"
      "  double t = 0; for (int i = 0; i < N; i++) t += force[i].x;\n"
      "  printf(\"%.1f\\n\", t);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "md");
  assert_parallel(k);
  cr_assert(privatized(k, "p") && privatized(k, "q"));
  cr_assert(!traced(k, "p") && !traced(k, "q"), "a private struct is registers, not memory");
  cr_assert(traced(k, "pos") && traced(k, "force"));
  cr_assert(strstr(read_file("summary.txt"), "private to each thread"), "%s", read_file("summary.txt"));
  cJSON_Delete(r);
}

/* md/grid's b0: the mapped loops count in a struct's fields, `b0.x++`, and a scratch b1 is set
   from them each iteration. Before: b0 was shared memory (the stores of b0.y = 0 between the
   mapped loops warned "not traced", b0.y++ a dependence between every two threads). */
Test(e2e_private, a_struct_field_counter_of_a_mapped_loop_is_its_induction) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 64\n"
      "typedef struct { int x, y; } ivec;\n"
      "float in[N][N], out[N][N];\n"
      "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
      "static void blur(void) {\n"
      "  ivec b0, b1;\n"
      "#pragma cgpredict kernel name(grid) dims(2)\n"
      "  for (b0.x = 0; b0.x < N; b0.x++)\n"
      "    for (b0.y = 0; b0.y < N; b0.y++) {\n"
      "      float s = 0;\n"
      "      for (b1.x = MAX(0, b0.x - 1); b1.x <= b0.x; b1.x++)\n"
      "        for (b1.y = MAX(0, b0.y - 1); b1.y <= b0.y; b1.y++)\n"
      "          s += in[b1.x][b1.y];\n"
      "      out[b0.x][b0.y] = s;\n"
      "    }\n"
      "}\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) in[i][j] = (i * j) % 7;\n"
      "  blur();\n"
      "  double t = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) t += out[i][j];\n"
      "  printf(\"%.1f\\n\", t);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "grid");
  assert_parallel(k);
  cr_assert(privatized(k, "b0") && privatized(k, "b1"));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "warnings")), 0, "no store between mapped loops");
  cr_assert_eq(num(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0), "threads"), 64 * 64);
  cJSON_Delete(r);
}

/* The rule's other side: a struct field read before it is written in an iteration (a running sum
   kept in a local struct) carries a value from one thread to the next; it stays shared memory,
   traced, with its dependence, and is not listed as private. */
Test(e2e_private, a_local_read_before_it_is_written_stays_shared) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 1024\n"
      "typedef struct { float sum; int n; } acc;\n"
      "float a[N], b[N];\n"
      "static void scan(void) {\n"
      "  acc t;\n"
      "  int i;\n"
      "  t.sum = 0; t.n = 0;\n"
      "#pragma cgpredict kernel name(scan)\n"
      "  for (i = 0; i < N; i++) {\n"
      "    t.sum += a[i];\n"
      "    b[i] = t.sum;\n"
      "  }\n"
      "}\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) a[i] = i % 3;\n"
      "  scan();\n"
      "  printf(\"%.1f\\n\", b[N - 1]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "scan");
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "parallel_safe")));
  cr_assert(!privatized(k, "t"));
  cr_assert(traced(k, "t"));
  cJSON_Delete(r);
}

/* Every warning of the report says where: file:line, as the build's do. Before: "a store or call
   between mapped loops runs outside any thread and is not traced", with no line. */
Test(e2e_private, every_warning_in_the_report_carries_file_and_line) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 64\n"
      "float a[N][N], c[N];\n"
      "int main(void) {\n"
      "#pragma cgpredict kernel name(rows) dims(2)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    c[i] = i;\n"
      "    for (int j = 0; j < N; j++)\n"
      "      a[i][j] = i + j;\n"
      "  }\n"
      "  printf(\"%.1f %.1f\\n\", a[3][4], c[5]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "rows");
  cJSON *w = cJSON_GetObjectItem(k, "warnings");
  cr_assert_gt(cJSON_GetArraySize(w), 0);
  cJSON *e;
  cJSON_ArrayForEach(e, w) cr_assert(strncmp(e->valuestring, "prog.c:7: ", 10) == 0, "%s", e->valuestring);
  cr_assert(strstr(read_file("summary.txt"), "warning: prog.c:7: "), "%s", read_file("summary.txt"));
  cJSON_Delete(r);
}

/* The store of a struct copied whole (`last = pos[i]`, an llvm.memcpy located at its source) is
   named by what it writes, `last`, and its load by `pos`. Before: both were `pos` (md/grid's copy
   into `p` was reported as a write to `position`, which is never written). */
Test(e2e_private, a_struct_copy_is_a_write_of_its_destination) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 512\n"
      "typedef struct { double x, y, z; } vec;\n"
      "vec pos[N], last;\n"
      "double out[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) pos[i] = (vec){i, 1, 2};\n"
      "#pragma cgpredict kernel name(copy)\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    last = pos[i];\n"
      "    out[i] = 2 * last.x;\n"
      "  }\n"
      "  printf(\"%.1f %.1f\\n\", out[7], last.x);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "copy");
  cr_assert_eq(num(site(k, 10, "store", "last"), "size"), 24);
  cr_assert_eq(num(site(k, 10, "load", "pos"), "size"), 24);
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory"))
    cr_assert(strcmp(cJSON_GetObjectItem(m, "kind")->valuestring, "store") != 0 ||
              strcmp(cJSON_GetObjectItem(m, "array")->valuestring, "pos") != 0, "pos is never written");
  cJSON_Delete(r);
}

/* Loads inside a macro's expansion (`MAX(a[i], b[i])`: their location is the macro's name) are
   named by the array they read, not `MAX`. */
Test(e2e_private, loads_inside_a_macro_are_named_by_their_array) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 512\n"
      "#define MAX(x, y) ((x) > (y) ? (x) : (y))\n"
      "float a[N], b[N], c[N];\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { a[i] = i % 7; b[i] = i % 5; }\n"
      "#pragma cgpredict kernel name(mx)\n"
      "  for (int i = 0; i < N; i++)\n"
      "    c[i] = MAX(a[i], b[i]);\n"
      "  printf(\"%.1f\\n\", c[9]);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "mx");
  site(k, 9, "load", "a");
  site(k, 9, "load", "b");
  site(k, 9, "store", "c");
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory"))
    cr_assert_str_neq(cJSON_GetObjectItem(m, "array")->valuestring, "MAX");
  cJSON_Delete(r);
}

/* A kernel whose scratch tmp[4] is declared before the nest and indexed by j; `omp` is written
   right before its pragma (an OpenMP directive, or nothing). */
#define SUMS_SRC(omp) \
  "#include <stdio.h>\n" \
  "#define N 256\n" \
  "float a[4 * N], out[N];\n" \
  "static void sums(void) {\n" \
  "  float tmp[4], s;\n" \
  "  int i, j;\n" omp \
  "#pragma cgpredict kernel name(sums)\n" \
  "  for (i = 0; i < N; i++) {\n" \
  "    for (j = 0; j < 4; j++) tmp[j] = a[4 * i + j];\n" \
  "    s = 0;\n" \
  "    for (j = 0; j < 4; j++) s += tmp[j] * tmp[3 - j];\n" \
  "    out[i] = s;\n" \
  "  }\n" \
  "}\n" \
  "int main(void) {\n" \
  "  for (int i = 0; i < 4 * N; i++) a[i] = i % 9;\n" \
  "  sums();\n" \
  "  printf(\"%.1f\\n\", out[N - 1]);\n" \
  "  return 0;\n" \
  "}\n"

/* A scratch array declared outside the nest and indexed by a variable (which the static check
   cannot follow: it stays shared) gets the remedy its dependences need, a copy per thread; not
   atomicAdd, which fits a read-modify-write of one shared location by several threads. Before:
   the generic remedies of a shared array, and a waw whose writer had read the element in an
   earlier iteration was called a reduction, "use atomicAdd" (md/grid: ten, on b0, b1 and p). */
Test(e2e_private, a_shared_scratch_array_is_told_to_be_declared_inside_not_atomic) {
  cJSON *r = build_run_tk1(SUMS_SRC(""));
  cJSON *k = kernel_named(r, "sums");
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "parallel_safe")));
  int on_tmp = 0;
  cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(k, "dependences")) {
    const char *remedy = cJSON_GetObjectItem(d, "remedy")->valuestring;
    cJSON *f = cJSON_GetObjectItem(d, "first");
    if (strcmp(cJSON_GetObjectItem(f, "array")->valuestring, "tmp") != 0) continue;
    on_tmp++;
    cr_assert_null(strstr(remedy, "atomicAdd"), "%s", remedy);
    cr_assert(strstr(remedy, "declare it inside the loop"), "%s", remedy);
    cr_assert(!cJSON_IsTrue(cJSON_GetObjectItem(d, "reduction")));
  }
  cr_assert_gt(on_tmp, 0);
  cJSON_Delete(r);
}

/* The same scratch, named in the OpenMP clause the loop carries (NPB MG's resid: `double u1[M],
   u2[M]` before `#pragma omp parallel for private(i1,i2,i3,u1,u2)`), built with -fopenmp (the
   file then without it): each thread's, as the user said, so no dependence and the kernel
   parallel; its accesses by a run-time index are local memory, as if declared inside. Without
   the clause: shared, as above. Before, the clause was not read: 12 dependences on MG. */
Test(e2e_private, an_openmp_private_clause_makes_its_scratch_array_each_threads) {
  const char *src = SUMS_SRC("#pragma omp parallel for private(j, tmp) \\\n  schedule(static)\n");
  cJSON *r = build_run_tk1_with("prog.c", src, "cc", "-O2 -fopenmp");
  cJSON *k = kernel_named(r, "sums");
  assert_parallel(k);
  cr_assert(privatized(k, "tmp"));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "dependences")), 0);
  cJSON *m;
  int local = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory"))
    local += strcmp(cJSON_GetObjectItem(m, "array")->valuestring, "tmp") == 0 &&
             cJSON_IsTrue(cJSON_GetObjectItem(m, "local_memory"));
  cr_expect_gt(local, 0, "tmp[j] by a run-time j: local memory, as declared inside");
  cJSON_Delete(r);
}

/* A scalar the OpenMP clause makes private whose value some path of the body reads before writing
   (Rodinia's hotspot: `delta`, in `private(chunk, r, c, delta)`, is set by the corner and edge
   cases of a border chunk only, and `result[...] = temp[...] + delta` reads it for every cell):
   in C it carries from one iteration to the next, so the loop is not parallel as written, and in
   the OpenMP build, as in a CUDA port, that read finds an undefined value. Before, the warning
   said only "a recurrence: each thread needs the previous thread's value", as if the clause were
   not there; now it names the clause and the read before the write. */
Test(e2e_private, an_openmp_private_scalar_read_before_it_is_written_is_named_so) {
  cJSON *r = build_run_tk1_with("prog.c",
      "#include <stdio.h>\n"
      "#define N 1024\n"
      "float t[N], p[N], out[N];\n"
      "static void cells(void) {\n"
      "  int i;\n"
      "  float delta;\n"
      "#pragma omp parallel for private(i, delta)\n"
      "#pragma cgpredict kernel name(cells)\n"
      "  for (i = 0; i < N; i++) {\n"
      "    if (i % 64 == 0) delta = p[i];\n"
      "    else if (i % 64 == 63) delta = -p[i];\n"
      "    out[i] = t[i] + delta;\n"
      "  }\n"
      "}\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) { t[i] = i % 7; p[i] = i % 5; }\n"
      "  cells();\n"
      "  printf(\"%.1f %.1f\\n\", out[0], out[63]);\n"
      "  return 0;\n"
      "}\n", "cc", "-O2 -fopenmp");
  const char *build = read_file("build.txt");
  cr_assert(strstr(build, "prog.c:10: warning: kernel 'cells': 'delta' (float) is carried from one iteration of the "
                          "mapped loop at line 9 to the next (line 10): OpenMP's private clause makes it each "
                          "thread's own, but a path of the body reads it before writing it"), "%s", build);
  cr_assert_not(strstr(build, "a recurrence"), "%s", build);
  cJSON *k = kernel_named(r, "cells");
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "parallel_safe")));
  cJSON_Delete(r);
}

/* MachSuite's md/grid itself (tests/data/machsuite-md-grid, unmodified), marked as the user of
   issue 30 did: `#pragma cgpredict kernel dims(3)` on loop_grid0_x, built as its Makefile builds
   it. Before: "not parallel as written", 40 dependences (b0's counters, b1, p, q shared; ten
   "use atomicAdd"; the copy into p named `position`; loads named MAX and MIN), 4 warnings without
   a line, 1.044 ms on the Jetson TK1. Now: parallel, b0 b1 p q private, no warning, and its
   harness still says the forces are right. */
Test(e2e_private, machsuite_md_grid_is_parallel_once_its_scratch_structs_are_private) {
  cr_assert_eq(sh("cp '%s/tests/data/machsuite-md-grid/'* . && "
                  "sed -i 's|^  loop_grid0_x:|#pragma cgpredict kernel dims(3)\\n&|' md.c && grep -c cgpredict md.c",
                  CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("%s build -- cc -O3 -Wall -Wno-unused-label -I. -o md md.c local_support.c support.c harness.c "
                  "2>build.txt", CGP_DRIVER), 0, "%s", read_file("build.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./md input.data check.data 2>summary.txt"), 0,
               "%s", read_file("summary.txt"));
  cr_assert(strstr(read_file("out.txt"), "Success."), "%s", read_file("out.txt"));
  cJSON *r = report("r.json");
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "kernels")), 1);
  cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0);
  assert_parallel(k);
  cr_assert(privatized(k, "b0") && privatized(k, "b1") && privatized(k, "p") && privatized(k, "q"));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "warnings")), 0);
  const char *none[] = {"b0", "b1", "p", "q", "MAX", "MIN"};
  for (size_t i = 0; i < sizeof none / sizeof *none; i++) cr_assert(!traced(k, none[i]), "%s traced", none[i]);
  site(k, 28, "load", "position");
  site(k, 52, "store", "force");
  cr_assert(num(prediction(k, "jetson-tk1"), "time_ms") > 0);
  cJSON_Delete(r);
}

/* A function's static array is named as the source writes it: NPB FT's `static dcomplex u0[...]`
   in main, read through a macro with three arrays (so by its base's name), was `main.u0`, clang's
   name for the global. */
Test(e2e_private, a_functions_static_array_is_named_as_written) {
  cJSON *r = build_run_tk1("#include <stdio.h>\n"
                           "#define N 4096\n"
                           "#define ADD(a, b) ((a) + (b))\n"
                           "int main(void) {\n"
                           "  static float u[N], w[N], out[N];\n"
                           "  for (int i = 0; i < N; i++) { u[i] = i; w[i] = 2 * i; }\n"
                           "#pragma cgpredict kernel name(k)\n"
                           "  for (int i = 0; i < N; i++) out[i] = ADD(u[i], w[i]);\n"
                           "  printf(\"%g\\n\", out[7]);\n"
                           "  return 0;\n"
                           "}\n");
  cJSON *k = kernel_named(r, "k");
  cr_assert(traced(k, "u") && traced(k, "w") && traced(k, "out"), "%s",
            cJSON_PrintUnformatted(cJSON_GetObjectItem(k, "memory")));
  cr_assert_not(traced(k, "main.u"));
  cJSON_Delete(r);
}

/* A local declared in the `#pragma omp parallel` region around the loop is each thread's (NPB FT's
   cffts1, whose region-local y0 even shadows a parameter y0: clang names its alloca y03, so the
   local is found by its declared name). Before: 38 dependences on y0 and y1. */
Test(e2e_private, a_local_of_the_openmp_region_around_the_loop_is_each_threads) {
  cJSON *r = build_run_tk1_with("prog.c",
      "#include <stdio.h>\n"
      "#define N 256\n"
      "float a[4 * N], out[N], spare[4];\n"
      "static void sums(float *tmp) {\n"
      "  int i, j;\n"
      "#pragma omp parallel\n"
      "  {\n"
      "    float tmp[4], s;\n"
      "#pragma omp for\n"
      "#pragma cgpredict kernel name(sums)\n"
      "    for (i = 0; i < N; i++) {\n"
      "      for (j = 0; j < 4; j++) tmp[j] = a[4 * i + j];\n"
      "      s = 0;\n"
      "      for (j = 0; j < 4; j++) s += tmp[j] * tmp[3 - j];\n"
      "      out[i] = s;\n"
      "    }\n"
      "  }\n"
      "  (void)tmp;\n"
      "}\n"
      "int main(void) {\n"
      "  for (int i = 0; i < 4 * N; i++) a[i] = i % 9;\n"
      "  sums(spare);\n"
      "  printf(\"%.1f\\n\", out[N - 1]);\n"
      "  return 0;\n"
      "}\n", "cc", "-O2 -fopenmp");
  cJSON *k = kernel_named(r, "sums");
  assert_parallel(k);
  cr_assert(privatized(k, "tmp"));
  cJSON_Delete(r);
}
