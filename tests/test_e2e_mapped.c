/* End-to-end, issue 30: mapped loops as users write them. A mapped loop stepped by a run-time
   value (thread t handles i = lo + t * step, the CUDA mapping), an inner range whose length is
   known only at run time (the induction expressions the optimizer makes of it carry nothing), and
   carried scalars told apart as a reduction or a recurrence, at the line of their update. */
#include "e2e_util.h"

/* Build `src` as prog.c both plainly and with cgpredict, run both with `args`, compare their
   output; return the report (TK1). The build's warnings stay in build.txt. */
static cJSON *build_and_run(const char *src, const char *args) {
  write_file("prog.c", src);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain prog.c"), 0, "%s", read_file("err.txt"));
  int plain_status = sh("./plain %s", args);
  char *plain_out = strdup(read_file("out.txt"));
  cr_assert_eq(sh("%s build -- cc -O2 -o prog prog.c 2>build.txt", CGP_DRIVER), 0, "build failed: %s",
               read_file("build.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./prog %s", args),
               plain_status, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), plain_out);
  free(plain_out);
  return report("r.json");
}

static cJSON *first_sample(cJSON *k) { return cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0); }

static double extent_x(cJSON *k) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(first_sample(k), "threads_extent"), 0)->valuedouble;
}

static const char *str(cJSON *o, const char *key) {
  cJSON *v = cJSON_GetObjectItem(o, key);
  cr_assert(cJSON_IsString(v), "field %s missing", key);
  return v->valuestring;
}

/* The carried dependence whose variable is `var`; the test fails without. */
static cJSON *carried(cJSON *k, const char *var) {
  cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(k, "dependences")) {
    cJSON *f = cJSON_GetObjectItem(d, "first");
    if (strcmp(str(d, "kind"), "carried") == 0 && strcmp(str(f, "variable"), var) == 0) return d;
  }
  cr_assert_fail("no carried dependence of '%s'", var);
  return NULL;
}

static int count_kind(cJSON *k, const char *kind) {
  int n = 0;
  cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(k, "dependences")) n += strcmp(str(d, "kind"), kind) == 0;
  return n;
}

TestSuite(e2e_mapped, .init = setup, .fini = teardown, .timeout = 300);

/* `i += m + m` with m = 2 from the command line: thread t handles i = 3 + 4t, as with a constant
   step of 4 (the coordinate is i / step: threads 0 .. 1023 of 4093 / 4). The same kernel with the
   constant step gives the same threads, extent and transactions. */
Test(e2e_mapped, a_loop_stepped_by_a_run_time_value_maps_one_thread_per_step) {
  const char *fmt = "#include <stdio.h>\n"
                    "#include <stdlib.h>\n"
                    "#define N 4096\n"
                    "float a[N], b[N];\n"
                    "int main(int argc, char **argv) {\n"
                    "  int m = argc > 1 ? atoi(argv[1]) : 1, lo = 3, hi = N;\n"
                    "  for (int i = 0; i < N; i++) a[i] = i %% 7;\n"
                    "#pragma cgpredict kernel name(strided)\n"
                    "  for (int i = lo; i < hi; i += %s)\n"
                    "    b[i] = 2 * a[i];\n"
                    "  double t = 0; for (int i = 0; i < N; i++) t += b[i];\n"
                    "  printf(\"%%.1f %%d\\n\", t, m);\n"
                    "  return 0;\n"
                    "}\n";
  char src[2048];
  snprintf(src, sizeof src, fmt, "m + m");
  cJSON *r = build_and_run(src, "2");
  cJSON *k = kernel_named(r, "strided");
  cr_assert_eq(num(first_sample(k), "threads"), 1024, "i = 3, 7, ..., 4095");
  cr_assert_eq(extent_x(k), 1024, "thread coordinates i / 4: 0 .. 1023");
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "parallel_safe")));
  double tx = num(site(k, 10, "store", "b"), "transactions_per_warp");
  double load = num(site(k, 10, "load", "a"), "transactions_per_warp");
  cJSON_Delete(r);

  snprintf(src, sizeof src, fmt, "4");
  r = build_and_run(src, "2");
  k = kernel_named(r, "strided");
  cr_assert_eq(num(first_sample(k), "threads"), 1024);
  cr_assert_eq(extent_x(k), 1024);
  cr_assert_float_eq(num(site(k, 10, "store", "b"), "transactions_per_warp"), tx, 1e-9);
  cr_assert_float_eq(num(site(k, 10, "load", "a"), "transactions_per_warp"), load, 1e-9);
  cJSON_Delete(r);
}

/* A run-time step of 0: the loop runs as the program wrote it (here until its break), the runtime
   says on stderr that the step is 0 and the launch has no CUDA mapping, and does not trace it: a
   kernel with no other launch has nothing to predict and is not listed, the runtime's step_note
   names it. */
Test(e2e_mapped, a_run_time_step_of_zero_is_said_and_the_program_runs_unchanged) {
  cJSON *r = build_and_run("#include <stdio.h>\n"
                           "#include <stdlib.h>\n"
                           "#define N 64\n"
                           "int b[N];\n"
                           "int main(int argc, char **argv) {\n"
                           "  int s = argc > 1 ? atoi(argv[1]) : 1;\n"
                           "#pragma cgpredict kernel name(stuck)\n"
                           "  for (int i = 0; i < N; i += s) {\n"
                           "    b[i] += 1;\n"
                           "    if (b[i] > 5) break;\n"
                           "  }\n"
                           "  printf(\"%d %d\\n\", b[0], b[1]);\n"
                           "  return 0;\n"
                           "}\n",
                           "0");
  cr_assert_str_eq(read_file("out.txt"), "6 0\n");
  cr_assert(strstr(read_file("err.txt"), "kernel 'stuck'") && strstr(read_file("err.txt"), "step is 0 at run time"),
            "%s", read_file("err.txt"));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "kernels")), 0, "no launch traced, none listed");
  const char *note = str(cJSON_GetObjectItem(r, "runtime"), "step_note");
  cr_assert(strstr(note, "kernel 'stuck' (prog.c:7): 1 launch(es)"), "%s", note);
  cr_assert_eq(sh("%s report r.json", CGP_DRIVER), 0, "the report reads back: %s", read_file("err.txt"));
  cJSON_Delete(r);
}

/* Rows of m elements, m known at run time: the optimizer keeps the inner loop's start lo = i * m
   in a register stepped by m each row (a rotated bound, no variable of the source). Each thread
   computes it from its index: nothing is carried, no warning, parallel. */
Test(e2e_mapped, an_inner_range_of_run_time_length_carries_nothing) {
  cJSON *r = build_and_run("#include <stdio.h>\n"
                           "#include <stdlib.h>\n"
                           "#define N 1024\n"
                           "float a[N * 64], b[N];\n"
                           "int main(int argc, char **argv) {\n"
                           "  int m = argc > 1 ? atoi(argv[1]) : 16;\n"
                           "  for (int i = 0; i < N * 64; i++) a[i] = i % 7;\n"
                           "#pragma cgpredict kernel name(rows)\n"
                           "  for (int i = 0; i < N; i++) {\n"
                           "    int lo = i * m;\n"
                           "    float s = 0;\n"
                           "    for (int j = lo; j <= lo + m - 1; j++)\n"
                           "      s += a[j];\n"
                           "    b[i] = s;\n"
                           "  }\n"
                           "  double t = 0; for (int i = 0; i < N; i++) t += b[i];\n"
                           "  printf(\"%.1f\\n\", t);\n"
                           "  return 0;\n"
                           "}\n",
                           "16");
  cJSON *k = kernel_named(r, "rows");
  cr_assert_null(strstr(read_file("build.txt"), "carried"), "%s", read_file("build.txt"));
  cr_assert_eq(count_kind(k, "carried"), 0);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "parallel_safe")));
  cJSON_Delete(r);
}

/* A sum, a dot product, a maximum and a count are reductions (x = x op e, op associative); merge's indices (the
   comparison that picks one reads them) and an automaton's state (the next state is looked up
   from it) are recurrences. Each is reported at the line of its update, with words to match. */
Test(e2e_mapped, carried_scalars_are_told_reduction_or_recurrence_at_their_update) {
  cJSON *r = build_and_run("#include <stdio.h>\n"
                           "#define N 4096\n"
                           "int a[N], b[N], out[2 * N], delta[4][8];\n"
                           "float x[N];\n"
                           "int main(void) {\n"
                           "  for (int i = 0; i < N; i++) { a[i] = 2 * i; b[i] = 2 * i + 1; x[i] = i % 5; }\n"
                           "  for (int q = 0; q < 4; q++) for (int c = 0; c < 8; c++) delta[q][c] = (q + c) % 4;\n"
                           "  float s = 0;\n"
                           "#pragma cgpredict kernel name(sum)\n"
                           "  for (int i = 0; i < N; i++)\n"
                           "    s += x[i];\n"
                           "  int m = 0;\n"
                           "#pragma cgpredict kernel name(mx)\n"
                           "  for (int i = 0; i < N; i++)\n"
                           "    if (a[i] % 97 > m)\n"
                           "      m = a[i] % 97;\n"
                           "  int i1 = 0, i2 = 0;\n"
                           "#pragma cgpredict kernel name(merge)\n"
                           "  for (int k = 0; k < 2 * N; k++) {\n"
                           "    if (i2 >= N || (i1 < N && a[i1] <= b[i2])) {\n"
                           "      out[k] = a[i1];\n"
                           "      i1++;\n"
                           "    } else {\n"
                           "      out[k] = b[i2];\n"
                           "      i2++;\n"
                           "    }\n"
                           "  }\n"
                           "  int q = 0, hits = 0;\n"
                           "#pragma cgpredict kernel name(kmp)\n"
                           "  for (int i = 0; i < N; i++) {\n"
                           "    q = delta[q][a[i] % 8];\n"
                           "    hits += q == 3;\n"
                           "  }\n"
                           "  float d = 0, h = 1;\n"
                           "#pragma cgpredict kernel name(dot)\n"
                           "  for (int i = 0; i < N; i++)\n"
                           "    d += x[i] * x[i];\n"
                           "#pragma cgpredict kernel name(horner)\n"
                           "  for (int i = 0; i < N; i++)\n"
                           "    h = h * 0.5f + x[i];\n"
                           "  printf(\"%.1f %d %d %d %d %.1f %.3f\\n\", s, m, out[N], q, hits, d, h);\n"
                           "  return 0;\n"
                           "}\n",
                           "");
  struct { const char *kernel, *var, *form; int line; } want[] = {
      {"sum", "s", "reduction", 11},  {"mx", "m", "reduction", 16},       {"merge", "i1", "recurrence", 22},
      {"merge", "i2", "recurrence", 25}, {"kmp", "q", "recurrence", 31}, {"kmp", "hits", "reduction", 32},
      /* clang contracts both into one llvm.fmuladd: the sum is its addend, Horner's rule its factor */
      {"dot", "d", "reduction", 37},     {"horner", "h", "recurrence", 40},
  };
  const char *build = read_file("build.txt");
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
    cJSON *d = carried(kernel_named(r, want[w].kernel), want[w].var);
    cJSON *f = cJSON_GetObjectItem(d, "first");
    cr_assert_eq(num(f, "line"), want[w].line, "%s: the update of %s is at line %d", want[w].kernel, want[w].var,
                 want[w].line);
    cr_assert_str_eq(str(f, "form"), want[w].form, "%s's %s", want[w].kernel, want[w].var);
    const char *remedy = str(d, "remedy");
    char warning[256];
    snprintf(warning, sizeof warning, "prog.c:%d: warning: kernel '%s': '%s'", want[w].line, want[w].kernel,
             want[w].var);
    const char *at = strstr(build, warning);
    cr_assert_not_null(at, "%s", build);
    const char *eol = strchr(at, '\n');
    size_t len = eol ? (size_t)(eol - at) : strlen(at);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)len, at);
    if (strcmp(want[w].form, "reduction") == 0) {
      cr_assert(strstr(line, "a reduction"), "%s", line);
      cr_assert(strstr(remedy, "atomic"), "%s", remedy);
    } else {
      cr_assert_null(strstr(line, "reduction"), "%s", line);
      cr_assert(strstr(line, "each thread needs the previous thread's value; not parallel as written"), "%s", line);
      cr_assert_null(strstr(remedy, "reduction"), "%s", remedy);
    }
  }
  cr_assert_str_eq(str(cJSON_GetObjectItem(carried(kernel_named(r, "sum"), "s"), "first"), "op"), "+");
  cr_assert_str_eq(str(cJSON_GetObjectItem(carried(kernel_named(r, "mx"), "m"), "first"), "op"), "max");
  cJSON_Delete(r);
}

/* A global summed in the loop: the optimizer keeps it in a register (no variable of the source
   is tied to that value); it is named by the memory it stands for, said to be kept in a register
   by the compiler, and is a reduction at its update. */
Test(e2e_mapped, a_global_the_compiler_keeps_in_a_register_is_named_by_it) {
  cJSON *r = build_and_run("#include <stdio.h>\n"
                           "#define N 4096\n"
                           "int a[N], g;\n"
                           "int main(void) {\n"
                           "  for (int i = 0; i < N; i++) a[i] = i % 9;\n"
                           "#pragma cgpredict kernel name(gsum)\n"
                           "  for (int i = 0; i < N; i++)\n"
                           "    g += a[i];\n"
                           "  printf(\"%d\\n\", g);\n"
                           "  return 0;\n"
                           "}\n",
                           "");
  cJSON *d = carried(kernel_named(r, "gsum"), "g");
  cJSON *f = cJSON_GetObjectItem(d, "first");
  cr_assert_eq(num(f, "line"), 8);
  cr_assert_str_eq(str(f, "form"), "reduction");
  cr_assert_str_eq(str(f, "origin"), "memory");
  cr_assert(strstr(read_file("build.txt"), "prog.c:8: warning: kernel 'gsum': 'g' (32-bit integer in memory, kept "
                                          "in a register by the compiler)"),
            "%s", read_file("build.txt"));
  cJSON_Delete(r);
}
