/* End-to-end robustness: the program comes first when the tool fails, report paths that are
   not regular files are refused, `cgpredict report` never blocks, build temporaries go away,
   objects from `cgpredict cc -c` link with a plain cc, pragmas are found where the preprocessor
   puts them. Each test builds small programs through the driver in a temporary directory. */
#include "e2e_util.h"

#include <dirent.h>
#include <sys/stat.h>

TestSuite(e2e_robust, .init = setup, .fini = teardown, .timeout = 120);

/* A program with its own atexit handler and a buffered file it never closes; exit status from
   its first argument. */
static const char *polite_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "static void bye(void) { printf(\"atexit handler ran\\n\"); }\n"
  "float a[4096];\n"
  "int main(int argc, char **argv) {\n"
  "  atexit(bye);\n"
  "  FILE *f = fopen(\"data.txt\", \"w\");\n"
  "  for (int i = 0; i < 1000; i++) fprintf(f, \"line %d\\n\", i);\n"
  "  printf(\"buffered program output\\n\");\n"
  "#pragma cgpredict kernel name(fill)\n"
  "  for (int i = 0; i < argc * 2048; i++) a[i] = i;\n"
  "  return argc > 1 ? atoi(argv[1]) : 0;\n"
  "}\n";

static void expect_program_intact(void) {
  char *out = read_file("out.txt");
  cr_assert(strstr(out, "buffered program output") && strstr(out, "atexit handler ran"),
            "the program's output was lost: '%s'; stderr: %s", out, read_file("err.txt"));
  char *data = read_file("data.txt");
  cr_assert_not_null(data);
  cr_assert(strstr(data, "line 999\n"), "the program's buffered file is incomplete");
}

Test(e2e_robust, unwritable_report_leaves_output_files_atexit_and_exit_status) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_REPORT=no/such/dir/r.json ./p 3"), 3);
  expect_program_intact();
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "cannot write report") && strstr(err, "no/such/dir/r.json") && strstr(err, "lost"), "%s", err);
  cr_assert_eq(sh("CGPREDICT_REPORT=no/such/dir/r.json ./p"), 0, "%s", read_file("err.txt"));
  expect_program_intact();
}

Test(e2e_robust, strict_mode_turns_a_zero_status_into_one_after_the_program_finished) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_STRICT=1 CGPREDICT_REPORT=no/such/dir/r.json ./p"), 1);
  expect_program_intact();
  cr_assert(strstr(read_file("err.txt"), "CGPREDICT_STRICT"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_STRICT=1 CGPREDICT_REPORT=no/such/dir/r.json ./p 3"), 3);
  expect_program_intact();
  cr_assert_eq(sh("CGPREDICT_STRICT=1 CGPREDICT_REPORT=r.json ./p"), 0, "%s", read_file("err.txt"));
  expect_program_intact();
  cr_assert_not_null(read_file("r.json"));
}

Test(e2e_robust, a_block_no_device_fits_leaves_the_program_alone) {
  /* a device whose blocks hold at most 64 threads cannot run the default 256-thread block */
  write_file("p.c", polite_src);
  cr_assert_eq(sh("mkdir devs && sed -e 's/\"max_threads_per_block\": 1024/\"max_threads_per_block\": 64/' "
                  "-e 's/\"name\": \"jetson-tk1\"/\"name\": \"tiny\"/' %s/devices/jetson-tk1.json > devs/tiny.json",
                  CGP_SOURCE_DIR), 0);
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=tiny CGPREDICT_REPORT=r.json ./p 4"), 4);
  expect_program_intact();
  cr_assert(strstr(read_file("err.txt"), "lost"), "%s", read_file("err.txt"));
}

Test(e2e_robust, runtime_refuses_a_symlinked_or_fifo_report_path) {
  write_file("p.c", polite_src);
  write_file("precious.txt", "keep me\n");
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(symlink(in_dir("precious.txt"), in_dir("link.json")), 0);
  cr_assert_eq(sh("CGPREDICT_REPORT=link.json ./p"), 0);
  cr_assert(strstr(read_file("err.txt"), "symbolic link"), "%s", read_file("err.txt"));
  struct stat st;
  cr_assert_eq(lstat(in_dir("link.json"), &st), 0);
  cr_assert(S_ISLNK(st.st_mode));
  cr_assert_str_eq(read_file("precious.txt"), "keep me\n");
  cr_assert_eq(mkfifo(in_dir("fifo.json"), 0600), 0);
  cr_assert_eq(sh("CGPREDICT_REPORT=fifo.json timeout 60 ./p"), 0);
  cr_assert(strstr(read_file("err.txt"), "FIFO"), "%s", read_file("err.txt"));
  cr_assert_eq(lstat(in_dir("fifo.json"), &st), 0);
  cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
}

Test(e2e_robust, report_command_refuses_a_fifo_instead_of_hanging) {
  cr_assert_eq(mkfifo(in_dir("r.json"), 0600), 0);
  cr_assert_eq(sh("timeout 20 %s report r.json", CGP_DRIVER), 1);
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "r.json") && strstr(err, "FIFO"), "%s", err);
}

Test(e2e_robust, report_command_refuses_a_negative_weight_naming_the_kernel) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c && CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./p", CGP_DRIVER), 0,
               "%s", read_file("err.txt"));
  cr_assert_eq(sh("sed 's/\"weight\":[\t ]*1,/\"weight\": -1,/' r.json > bad.json && grep -q -- '-1,' bad.json"), 0);
  cr_assert_eq(sh("%s report bad.json", CGP_DRIVER), 1);
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "bad.json") && strstr(err, "kernel 'fill'") && strstr(err, "\"weight\""), "%s", err);
}

Test(e2e_robust, kernels_in_a_header_and_behind_a_pragma_macro_are_instrumented) {
  write_file("kern.h",
    "#define GPU(n) _Pragma(\"cgpredict kernel name(from_macro) block(64)\")\n"
    "#if 0\n"
    "#pragma cgpredict kernel name(never)\n"
    "#endif\n"
    "static void scale(float *a, int n) {\n"
    "#pragma cgpredict kernel name(from_header) block(128)\n"
    "  for (int i = 0; i < n; i++) a[i] *= 2;\n"
    "}\n");
  write_file("m.c",
    "#include <stdio.h>\n"
    "#include \"kern.h\"\n"
    "float a[4096];\n"
    "int main(int argc, char **argv) {\n"
    "  int n = 4096 / argc;\n"
    "  GPU(x)\n"
    "  for (int i = 0; i < n; i++) a[i] = i;\n"
    "  scale(a, n);\n"
    "  printf(\"%.0f\\n\", a[4095]);\n"
    "  return 0;\n"
    "}\n");
  /* m.c never spells the word: the pragmas come from kern.h, one through a macro used in m.c */
  cr_assert_eq(sh("! grep -q cgpredict m.c && %s build -- cc -O2 -o m m.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./m"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "8190\n");
  cJSON *r = cJSON_Parse(read_file("r.json"));
  cr_assert_not_null(r);
  int seen = 0;
  cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItem(r, "kernels")) {
    const char *name = cJSON_GetObjectItem(k, "name")->valuestring;
    if (strcmp(name, "from_header") == 0) {
      seen |= 1;
      cr_assert(strstr(cJSON_GetObjectItem(k, "file")->valuestring, "kern.h"));
      cr_assert_eq(cJSON_GetObjectItem(k, "line")->valuedouble, 6);
    } else if (strcmp(name, "from_macro") == 0) {
      seen |= 2;
    }
  }
  cr_assert_eq(seen, 3, "kernels found: %s", read_file("r.json"));
  cJSON_Delete(r);
}

static int dir_entries(const char *name) {
  DIR *d = opendir(in_dir(name));
  cr_assert_not_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

Test(e2e_robust, a_failed_build_leaves_no_temporary_directory) {
  /* a marked nest inside another: the pass refuses it after clang wrote its bitcode (a marked
     loop the compiler deletes did this until it became a warning) */
  write_file("f.c",
    "float a[64][64];\n"
    "int main(int argc, char **argv) {\n"
    "#pragma cgpredict kernel name(outer)\n"
    "  for (int i = 0; i < argc; i++)\n"
    "#pragma cgpredict kernel name(inner)\n"
    "    for (int j = 0; j < argc; j++) a[i][j] = i;\n"
    "  return 0;\n"
    "}\n");
  cr_assert_eq(sh("mkdir tmp"), 0);
  cr_assert_neq(sh("CGPREDICT_VERBOSE=1 TMPDIR=$PWD/tmp %s build -- cc -o f f.c", CGP_DRIVER), 0);
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "error"), "%s", err);
  /* the verbose command lines name the temporary directory, wherever it was made */
  char *at = strstr(err, "/cgpredict."), tmp[600];
  cr_assert_not_null(at, "%s", err);
  char *start = at;
  while (start > err && start[-1] != ' ') start--;
  size_t n = (size_t)(at - start) + strlen("/cgpredict.XXXXXX");
  snprintf(tmp, sizeof tmp, "%.*s", (int)n, start);
  cr_assert_neq(access(tmp, F_OK), 0, "temporary directory %s left behind", tmp);
  cr_assert_eq(dir_entries("tmp"), 0, "temporaries left behind");
  cr_assert_neq(sh("TMPDIR=$PWD/tmp %s cc -c f.c", CGP_DRIVER), 0);
  cr_assert_eq(dir_entries("tmp"), 0, "temporaries left behind");
}

Test(e2e_robust, sigterm_during_a_build_removes_the_temporary_directory) {
  write_file("m.c", "float a[64];\nint main(void) {\n#pragma cgpredict kernel\n"
                    "  for (int i = 0; i < 64; i++) a[i] = i;\n  return 0;\n}\n");
  write_file("slowclang", "#!/bin/sh\nexec sleep 60\n");
  cr_assert_eq(sh("chmod +x slowclang && mkdir tmp"), 0);
  int rc = sh("TMPDIR=$PWD/tmp CGPREDICT_CLANG=$PWD/slowclang %s build -- cc -o m m.c & pid=$!; "
              "n=0; while [ -z \"$(ls tmp)\" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done; sleep 0.3; "
              "kill -TERM $pid; wait $pid; echo $? > status.txt", CGP_DRIVER);
  cr_assert_eq(rc, 0);
  cr_assert_str_eq(read_file("status.txt"), "143\n", "the driver should die of SIGTERM; stderr: %s", read_file("err.txt"));
  cr_assert_eq(dir_entries("tmp"), 0, "temporaries left behind");
  cr_assert(strstr(read_file("err.txt"), "temporary files removed"), "%s", read_file("err.txt"));
}

/* ---- objects from `cgpredict cc -c` --------------------------------------------------------- */

static const char *kern_a_src =
  "void kern_a(float *a, int n) {\n"
  "#pragma cgpredict kernel name(ka)\n"
  "  for (int i = 0; i < n; i++) a[i] = 2 * a[i] + 1;\n"
  "}\n";
static const char *kern_c_src =
  "void kern_c(float *a, int n) {\n"
  "#pragma cgpredict kernel name(kc)\n"
  "  for (int i = 0; i < n; i++)\n"
  "    if (i % 64 < 16) a[i] += 3;\n"
  "}\n";
static const char *plain_main_src =
  "#include <stdio.h>\n"
  "void kern_a(float *a, int n);\n"
  "void kern_c(float *a, int n);\n"
  "static float a[8192];\n"
  "int main(int argc, char **argv) {\n"
  "  for (int i = 0; i < 8192; i++) a[i] = i;\n"
  "  kern_a(a, 8192 / argc);\n"
  "  kern_c(a, 8192 / argc);\n"
  "  double s = 0; for (int i = 0; i < 8192; i++) s += a[i];\n"
  "  printf(\"sum %.0f\\n\", s);\n"
  "  return 0;\n"
  "}\n";

/* The plain cc of this build: a sanitized build's runtime needs the sanitizers in the link. */
static const char *plain_cc(void) {
  static char cc[128];
  snprintf(cc, sizeof cc, "cc%s", sanitize_link_flags());
  return cc;
}

/* Both kernels are in the report; kc's guard splits the lanes of half its warps, and the lanes
   that skip its store's block are masked while that block issues, whichever runtime the program
   runs (a straight-line body's blocks mark themselves in the runtime's array: the stub tells the
   loaded runtime where its objects' copy is; mutation-checked: without that, no slot is masked). */
static void expect_both_kernels(const char *report) {
  cJSON *r = cJSON_Parse(read_file(report));
  cr_assert_not_null(r, "no report %s; stderr: %s", report, read_file("err.txt"));
  int seen = 0;
  cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItem(r, "kernels")) {
    const char *name = cJSON_GetObjectItem(k, "name")->valuestring;
    seen |= strcmp(name, "ka") == 0 ? 1 : strcmp(name, "kc") == 0 ? 2 : 0;
    cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(k, "predictions")) > 0);
    if (strcmp(name, "kc") != 0) continue;
    cJSON *dv = cJSON_GetObjectItem(k, "divergence");
    double warps = cJSON_GetObjectItem(dv, "warps_traced")->valuedouble,
           divergent = cJSON_GetObjectItem(dv, "divergent_warps")->valuedouble;
    cr_assert(warps > 0 && 2 * divergent == warps, "%s: kc: %g of %g warps diverge", report, divergent, warps);
    cr_assert_gt(cJSON_GetObjectItem(dv, "masked_issue_slots_per_warp")->valuedouble, 0,
                 "%s: kc: the lanes that skip the store's block are masked while it issues", report);
  }
  cr_assert_eq(seen, 3, "%s", read_file(report));
  cJSON_Delete(r);
}

Test(e2e_robust, objects_from_cgpredict_cc_c_link_with_a_plain_cc) {
  write_file("a.c", kern_a_src);
  write_file("c.c", kern_c_src);
  write_file("main.c", plain_main_src);
  cr_assert_eq(sh("%s cc -O2 -c a.c -o a.o && %s cc -O2 -c c.c && cc -O2 -c main.c", CGP_DRIVER, CGP_DRIVER), 0,
               "%s", read_file("err.txt"));
  /* expected: sum of 2*i + 1 over i < 8192, plus 3 for each i % 64 < 16 */
  cr_assert_eq(sh("%s -o plain main.o a.o c.o", plain_cc()), 0, "plain link failed: %s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r1.json ./plain"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  expect_both_kernels("r1.json");
  /* the same objects linked by cgpredict, and a mixed link with a marked source compiled now */
  cr_assert_eq(sh("%s cc -O2 -o viatool main.o a.o c.o", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r2.json ./viatool"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  expect_both_kernels("r2.json");
  cr_assert_eq(sh("%s cc -O2 -o mixed main.c a.o c.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r3.json ./mixed"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  expect_both_kernels("r3.json");
}

/* A thread's loop of 3000 iterations, sampled (its first 64 traced, the rest skipped), then a store
   after it: the thread leaves the loop in a skipped iteration, and the store's block must resume
   tracing. Through the weak stub (objects of `cgpredict cc -c` linked by a plain cc) the
   instrumented code's pause word stays "no loop" (-1), which the inline skip test took for the
   loop of a block outside every loop: the store's block never called the runtime, and the store
   was reported `not_executed` (found on Parboil's cp, built by its own Makefile). And `cgpredict
   cc` linking such objects took nothing from the runtime archive (the stub's weak hooks left no
   symbol to resolve), so the program loaded the shared runtime through the stub: it now links
   the archive whole, and runs without the shared runtime. The three builds report the same. */
Test(e2e_robust, a_store_after_a_sampled_loop_is_traced_however_the_objects_link) {
  write_file("s.c", "void acc(float *out, const float *t, int n) {\n"
                    "#pragma cgpredict kernel name(acc)\n"
                    "  for (int i = 0; i < 512; i++) {\n"
                    "    float e = 0;\n"
                    "    for (int j = 0; j < n; j++) e += t[j];\n"
                    "    out[i] = e;\n"
                    "  }\n"
                    "}\n");
  write_file("main.c", "#include <stdio.h>\n"
                       "void acc(float *out, const float *t, int n);\n"
                       "static float out[512], t[3000];\n"
                       "int main(void) {\n"
                       "  for (int j = 0; j < 3000; j++) t[j] = j % 7;\n"
                       "  acc(out, t, 3000);\n"
                       "  printf(\"%g\\n\", out[5]);\n"
                       "  return 0;\n"
                       "}\n");
  cr_assert_eq(sh("%s cc -O2 -c s.c && cc -O2 -c main.c && %s -o viastub main.o s.o && %s cc -o viatool main.o s.o && "
                  "%s cc -O2 -o whole main.c s.c", CGP_DRIVER, plain_cc(), CGP_DRIVER, CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *runs[3] = {"CGPREDICT_REPORT=r0.json ./viastub",
                         "CGPREDICT_RUNTIME_SO=/nonexistent/libcgpredict_rt.so CGPREDICT_REPORT=r1.json ./viatool",
                         "CGPREDICT_REPORT=r2.json ./whole"};
  double t0 = 0;
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 %s", runs[i]), 0, "%s: %s", runs[i], read_file("err.txt"));
    cr_assert_str_eq(read_file("out.txt"), "8994\n");
    char name[16];
    snprintf(name, sizeof name, "r%d.json", i);
    cJSON *r = report(name);
    cr_assert_not_null(r, "%s: %s", runs[i], read_file("err.txt"));
    cJSON *k = kernel_named(r, "acc");
    cr_assert_gt(num(k, "loop_iterations_skipped"), 0, "%s: the loop is sampled", runs[i]);
    cr_assert_eq(num(site(k, 6, "store", "out"), "warp_instructions_traced"), 512 / 32, "%s", runs[i]);
    double t = num(prediction(k, "jetson-tk1"), "time_ms");
    if (i == 0) t0 = t;
    cr_assert_float_eq(t, t0, 1e-12 * t0, "%s: %g ms against %g", runs[i], t, t0);
    cJSON_Delete(r);
  }
}

Test(e2e_robust, without_a_loadable_runtime_a_plain_link_runs_uninstrumented_and_says_so) {
  write_file("a.c", kern_a_src);
  write_file("c.c", kern_c_src);
  write_file("main.c", plain_main_src);
  cr_assert_eq(sh("%s cc -c a.c c.c && %s -o plain main.c a.o c.o", CGP_DRIVER, plain_cc()), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_RUNTIME_SO=/nonexistent/libcgpredict_rt.so CGPREDICT_REPORT=r.json ./plain"), 0);
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "cgpredict cc") && strstr(err, "uninstrumented"), "%s", err);
  cr_assert_null(read_file("r.json"));
}

/* ---- OpenMP ------------------------------------------------------------------------------------ */

/* A file compiled with -fopenmp that holds a marked nest (outside its OpenMP constructs), built
   by GCC (found on Rodinia's hotspot3D: its link failed with `undefined reference to
   __kmpc_fork_call`): clang-14 compiles the marked file, whose OpenMP code calls LLVM's runtime,
   so cgpredict links libomp, which also serves GCC's GOMP_* calls. The program's output must be
   the plain build's (two OpenMP threads in both), the kernel predicted; `cgpredict cc -c` says
   what its object needs at link time. */
Test(e2e_robust, an_openmp_file_with_a_marked_nest_links_and_runs_as_built_by_gcc) {
  write_file("omp.c",
    "#include <stdio.h>\n"
    "#include <omp.h>\n"
    "#define N 4096\n"
    "static float a[N], b[N];\n"
    "int main(void) {\n"
    "  double s = 0;\n"
    "  int threads = 0;\n"
    "#pragma omp parallel for reduction(+:s)\n"
    "  for (int i = 0; i < N; i++) { a[i] = i % 7; s += a[i]; }\n"
    "#pragma omp parallel\n"
    "#pragma omp master\n"
    "  threads = omp_get_num_threads();\n"
    "#pragma cgpredict kernel name(scale)\n"
    "  for (int i = 0; i < N; i++) b[i] = 3 * a[i] + 1;\n"
    "  for (int i = 0; i < N; i++) s += b[i];\n"
    "  printf(\"%d threads, sum %.0f\\n\", threads, s);\n"
    "  return 0;\n"
    "}\n");
  cr_assert_eq(sh("%s -O2 -fopenmp -o plain omp.c", plain_cc()), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("OMP_NUM_THREADS=2 ./plain"), 0);
  char *want = read_file("out.txt");
  cr_assert(strstr(want, "2 threads"), "%s", want);
  cr_assert_eq(sh("%s cc -O2 -fopenmp -o traced omp.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("OMP_NUM_THREADS=2 CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./traced"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), want);
  cJSON *r = cJSON_Parse(read_file("r.json"));
  cr_assert_not_null(r, "no report: %s", read_file("err.txt"));
  cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0);
  cr_assert_str_eq(cJSON_GetObjectItem(k, "name")->valuestring, "scale");
  cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(k, "predictions")) > 0);
  cJSON_Delete(r);
  cr_assert_eq(sh("%s cc -O2 -fopenmp -c omp.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "LLVM's OpenMP runtime") && strstr(err, "libomp.so"), "%s", err);
}

/* The report the run wrote (r.json) has, first, kernel `name` over `threads` threads along x. */
static void expect_first_kernel(const char *name, int threads) {
  cJSON *r = cJSON_Parse(read_file("r.json"));
  cr_assert_not_null(r, "no report: %s", read_file("err.txt"));
  cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0);
  cr_assert_str_eq(cJSON_GetObjectItem(k, "name")->valuestring, name);
  cr_assert_eq(cJSON_GetObjectItem(k, "threads_extent")->child->valueint, threads);
  cJSON_Delete(r);
}

/* The loop OpenMP shares among threads is the one a user marks (RSBench's and XSBench's lookups,
   `#pragma omp parallel for reduction(+:v)`; RSBench's Makefile always adds -fopenmp). The build
   stopped there, and the way out was to edit the Makefile. Now that file is compiled without
   OpenMP, with a warning at the loop that says so: the loop runs in order, as traced; another
   file keeps its OpenMP threads, and the program's output is the plain build's. */
Test(e2e_robust, a_loop_openmp_shares_is_traced_with_its_file_compiled_without_openmp) {
  write_file("k.c",
    "#define N 4096\n"
    "int a[N];\n"
    "long lookups(void) {\n"
    "  long v = 0;\n"
    "#pragma omp parallel for reduction(+:v)\n"
    "#pragma cgpredict kernel name(lookups)\n"
    "  for (int i = 0; i < N; i++) v += a[(i * 37) % N] % 5;\n"
    "  return v;\n"
    "}\n");
  write_file("main.c",
    "#include <stdio.h>\n"
    "#include <omp.h>\n"
    "extern int a[];\n"
    "long lookups(void);\n"
    "int main(void) {\n"
    "  int threads = 0;\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 4096; i++) a[i] = i * 3;\n"
    "#pragma omp parallel\n"
    "#pragma omp master\n"
    "  threads = omp_get_num_threads();\n"
    "  printf(\"%d threads, %ld\\n\", threads, lookups());\n"
    "  return 0;\n"
    "}\n");
  cr_assert_eq(sh("%s -O2 -fopenmp -o plain main.c k.c", plain_cc()), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("OMP_NUM_THREADS=2 ./plain"), 0);
  char *want = strdup(read_file("out.txt"));
  cr_assert(strstr(want, "2 threads"), "%s", want);
  cr_assert_eq(sh("%s cc -O2 -fopenmp -c k.c && %s cc -O2 -fopenmp -o traced main.c k.o", CGP_DRIVER, CGP_DRIVER), 0,
               "%s", read_file("err.txt"));
  cr_assert(strstr(read_file("err.txt"), "k.c:7:3: warning: the marked loop is inside an OpenMP construct: k.c is "
                                         "compiled without -fopenmp"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("OMP_NUM_THREADS=2 CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./traced"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), want);
  free(want);
  expect_first_kernel("lookups", 4096);
}

/* A `#pragma omp simd` loop inside a marked nest of a -fopenmp file (Rodinia's lud and nw copy
   their tiles so): the build printed "remark: k.c:7:..: loop not vectorized: call instruction
   cannot be vectorized" and "warning: ... loop not vectorized: the optimizer was unable to perform
   the requested transformation" twice, once from the -O1 pipeline the pass runs on the marked
   module, once from clang-14 compiling the instrumented loop, whose calls are cgpredict's own:
   gcc builds the file without a word, and so must cgpredict. The program's output stays the
   plain build's. */
Test(e2e_robust, an_omp_simd_loop_inside_a_marked_nest_builds_without_a_word) {
  write_file("simd.c",
    "#include <stdio.h>\n"
    "static float a[256][64], b[256][64];\n"
    "int main(void) {\n"
    "  for (int i = 0; i < 256; i++) for (int j = 0; j < 64; j++) b[i][j] = (i * j) % 5;\n"
    "#pragma cgpredict kernel name(rows) dims(1)\n"
    "  for (int i = 0; i < 256; i++) {\n"
    "#pragma omp simd\n"
    "    for (int j = 0; j < 64; j++) a[i][j] = 2 * b[i][j] + 1;\n"
    "  }\n"
    "  printf(\"%.0f %.0f\\n\", a[3][3], a[255][63]);\n"
    "  return 0;\n"
    "}\n");
  cr_assert_eq(sh("%s -O2 -fopenmp -o plain simd.c", plain_cc()), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("./plain"), 0);
  char *want = strdup(read_file("out.txt"));
  cr_assert_eq(sh("%s cc -O2 -fopenmp -o traced simd.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("err.txt"), "");
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./traced"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), want);
  free(want);
  expect_first_kernel("rows", 256);
}

/* An object `cgpredict cc -c` made of a marked -fopenmp file, linked by `cgpredict cc` where no
   libomp is installed (here: a clang-14 whose resource directory has none beside it): the link
   stops with status 1 and the message that names the object and the remedy, as the compile of a
   marked source does, instead of saying so and then running a link that can only fail on
   __kmpc_* (before: the message, then the linker's undefined references). */
Test(e2e_robust, an_openmp_object_linked_without_libomp_stops_with_the_remedy) {
  write_file("omp.c",
    "#include <stdio.h>\n"
    "static float a[4096];\n"
    "int main(void) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 4096; i++) a[i] = i % 7;\n"
    "#pragma cgpredict kernel name(scale)\n"
    "  for (int i = 0; i < 4096; i++) a[i] = 3 * a[i] + 1;\n"
    "  printf(\"%.0f\\n\", a[4095]);\n"
    "  return 0;\n"
    "}\n");
  write_file("noomp-clang",
    "#!/bin/sh\n"
    "for a; do [ \"$a\" = -print-resource-dir ] && { echo /nonexistent/lib/clang/14; exit 0; }; done\n"
    "exec clang-14 \"$@\"\n");
  cr_assert_eq(sh("chmod +x noomp-clang"), 0);
  cr_assert_eq(sh("CGPREDICT_CLANG=$PWD/noomp-clang %s cc -O2 -fopenmp -c omp.c", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_CLANG=$PWD/noomp-clang %s cc -O2 -fopenmp -o traced omp.o", CGP_DRIVER), 1, "%s",
               read_file("err.txt"));
  char *err = read_file("err.txt");
  cr_assert(strstr(err, "omp.o holds a marked nest compiled with -fopenmp") && strstr(err, "libomp-14-dev"), "%s", err);
  cr_assert_null(strstr(err, "undefined reference"), "the link ran: %s", err);
  cr_assert_eq(access("traced", F_OK), -1, "a program was linked");
}

/* ---- any build command ------------------------------------------------------------------------ */

/* `cgpredict build -- make` with a Makefile that names gcc itself (Rodinia's srad_v1: `CC=` has
   no effect there): make's compiles and link go through cgpredict, found first on PATH, so the
   program is instrumented; the wrapper directory is gone afterwards. Before, make was taken for
   a compiler: the runtime archive was appended to its arguments ("Nothing to be done for
   .../libcgpredict_rt.a") and the program was not built. */
Test(e2e_robust, a_makefile_naming_gcc_builds_instrumented_through_cgpredict_build) {
  write_file("k.c", kern_a_src);
  write_file("main.c", "#include <stdio.h>\n"
                       "void kern_a(float *a, int n);\n"
                       "static float a[4096];\n"
                       "int main(void) {\n"
                       "  for (int i = 0; i < 4096; i++) a[i] = i;\n"
                       "  kern_a(a, 4096);\n"
                       "  double s = 0; for (int i = 0; i < 4096; i++) s += a[i];\n"
                       "  printf(\"sum %.0f\\n\", s);\n"
                       "  return 0;\n"
                       "}\n");
  write_file("Makefile", "prog: main.o k.o\n\tgcc -o prog main.o k.o\n%.o: %.c\n\tgcc -O2 -c $<\n");
  cr_assert_eq(sh("mkdir tmp && TMPDIR=$PWD/tmp %s build -- make", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(dir_entries("tmp"), 0, "the wrapper directory is left behind");
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./prog"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 16777216\n");   /* the sum of 2 i + 1 over i < 4096 */
  cJSON *r = cJSON_Parse(read_file("r.json"));
  cr_assert_not_null(r, "no report: the build was not instrumented");
  cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), "name")->valuestring,
                   "ka");
  cJSON_Delete(r);
  /* a failing build command's status comes back */
  cr_assert_neq(sh("%s build -- make no-such-target", CGP_DRIVER), 0);
}

/* ---- the memory budget ------------------------------------------------------------------------- */

/* One block of 200 threads whose lanes each hold 400 runs (a[j * j % N]: no stride to extend):
   with a budget of 1 MiB the first warp fits and no other starts. The warp traced must stand for
   the block's threads (200 / 32 = 6.25 warps of work), as the unbudgeted run's 7 warps do, and the
   prediction come out near that run's; the summary says the budget was reached. Before, a window
   the budget cut stood on the blocks it saw, one here: 1 warp, a seventh of the work (Rodinia's
   lavaMD: 216 threads, 729 ms instead of 1141). */
Test(e2e_robust, a_launch_the_budget_cut_inside_a_block_stands_on_the_threads_traced) {
  write_file("b.c", "#include <stdio.h>\n"
                    "#define N 4096\n"
                    "float a[N], s[200];\n"
                    "int main(void) {\n"
                    "  for (int i = 0; i < N; i++) a[i] = i % 13;\n"
                    "#pragma cgpredict kernel name(runs) block(256)\n"
                    "  for (int i = 0; i < 200; i++) {\n"
                    "    float t = 0;\n"
                    "    for (int j = 0; j < 400; j++) t += a[(j * j + i) % N];\n"
                    "    s[i] = t;\n"
                    "  }\n"
                    "  double u = 0; for (int i = 0; i < 200; i++) u += s[i];\n"
                    "  printf(\"%.0f\\n\", u);\n"
                    "  return 0;\n"
                    "}\n");
  cr_assert_eq(sh("%s cc -O2 -o b b.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  /* every iteration traced: a window of the j loop's iterations would hold a sixth of its runs */
  cr_assert_eq(sh("CGPREDICT_ITERATIONS=all CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=all.json ./b"), 0, "%s",
               read_file("err.txt"));
  char *want = strdup(read_file("out.txt"));
  cr_assert_eq(sh("CGPREDICT_ITERATIONS=all CGPREDICT_MEMORY_MB=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=cut.json ./b"),
               0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), want);
  free(want);
  cr_assert(strstr(read_file("err.txt"), "note: the trace memory budget"), "%s", read_file("err.txt"));
  double t[2], warps[2], traced[2];
  const char *files[2] = {"all.json", "cut.json"};
  for (int c = 0; c < 2; c++) {
    cJSON *r = cJSON_Parse(read_file(files[c]));
    cr_assert_not_null(r, "%s", files[c]);
    cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0);
    cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
    traced[c] = cJSON_GetObjectItem(s, "traced_warps")->valuedouble;
    warps[c] = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "analysis"), "jetson-tk1"),
                                   "total_warps")->valuedouble;
    t[c] = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0), "time_ms")->valuedouble;
    cr_assert_eq(cJSON_GetObjectItem(k, "sampling_note") != NULL, c == 1, "%s: sampling_note", files[c]);
    cJSON_Delete(r);
  }
  cr_assert_eq(traced[0], 7, "unbudgeted: every warp of the block traced (%g)", traced[0]);
  cr_assert_lt(traced[1], 7, "the budget stopped tracing inside the block (%g warps traced)", traced[1]);
  cr_assert(warps[1] >= 6 && warps[1] <= 7, "the warps traced stand for %g warps, the block has 6.25 warps of threads",
            warps[1]);
  cr_assert_lt(fabs(t[1] - t[0]) / t[0], 0.2, "budgeted %g ms against %g ms", t[1], t[0]);
}

/* A descriptor that says its body's blocks mark themselves (block_seen) of a body with a loop is
   refused by name, file and line, and the nest runs untraced: the program's output and status
   are its own (the runtime reads the marks only of bodies it finds straight-line). */
Test(e2e_robust, a_descriptor_claiming_block_marks_for_a_loop_body_is_refused_by_name) {
  write_file("hooks.c",
             "#include <stdio.h>\n"
             "#include <stdint.h>\n"
             "void cgp_rt_kernel_begin(const char *desc);\n"
             "int32_t cgp_rt_thread(int64_t x, int64_t y, int64_t z);\n"
             "void cgp_rt_kernel_end(void);\n"
             "static const char desc[] = \"{\\\"abi\\\":2,\\\"name\\\":\\\"looped\\\",\\\"file\\\":\\\"hooks.c\\\","
             "\\\"line\\\":9,\\\"dims\\\":1,\\\"mem\\\":[],\\\"blocks\\\":[{\\\"rpo\\\":0,\\\"loop\\\":0},"
             "{\\\"rpo\\\":1,\\\"loop\\\":0}],\\\"loops\\\":[{\\\"header\\\":0,\\\"parent\\\":-1}],"
             "\\\"acyclic\\\":true,\\\"block_seen\\\":true}\";\n"
             "int main(void) {\n"
             "  int traced = 0;\n"
             "  cgp_rt_kernel_begin(desc);\n"
             "  for (int i = 0; i < 64; i++) traced += cgp_rt_thread(i, 0, 0) != 0;\n"
             "  cgp_rt_kernel_end();\n"
             "  printf(\"traced %d\\n\", traced);\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s cc -O2 -o hooks hooks.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./hooks"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "traced 0\n");
  cr_assert(strstr(read_file("err.txt"), "hooks.c:9: kernel 'looped'") && strstr(read_file("err.txt"), "block_seen"),
            "%s", read_file("err.txt"));
}

/* issue 31 item 6: CGPREDICT_TRACE naming the report's own file (here through "./") overwrote the
   report with the binary trace, exit 0 even with CGPREDICT_STRICT=1. Two outputs, one file: the
   report is kept, no trace is written, and the run says so (a tool failure under STRICT). */
Test(e2e_robust, a_trace_path_that_is_the_report_keeps_the_report) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json CGPREDICT_TRACE=./r.json CGPREDICT_STRICT=1 ./p"), 1);
  cr_expect_not_null(strstr(read_file("err.txt"), "CGPREDICT_TRACE names the report's own file"), "%s",
                     read_file("err.txt"));
  cJSON *r = report("r.json");                    /* JSON, not the trace's bytes */
  cJSON *trace = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "runtime"), "trace");
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(trace, "written")));
  cJSON_Delete(r);
  /* the HTML page by the same rule (cgp_same_file), from the run and from `cgpredict report` */
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json CGPREDICT_TRACE=0 CGPREDICT_HTML=./r.json ./p"), 0);
  cr_expect_not_null(strstr(read_file("err.txt"), "./r.json names the report's own file"), "%s", read_file("err.txt"));
  cJSON_Delete(report("r.json"));
  cr_expect_eq(sh("%s report r.json --html ./r.json", CGP_DRIVER), 1);
  cJSON_Delete(report("r.json"));
}

/* issue 31 item 11: environment variables parsed strictly, a bad value named with the accepted
   forms (the tool then stays out of the program's way: no report, the program's own output). */
Test(e2e_robust, bad_environment_values_are_named_with_the_accepted_forms) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c && ./p > plain.txt 2>&1", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *bad[][2] = {{"CGPREDICT_QUIET=yes", "CGPREDICT_QUIET: expected 0 or 1"},
                          {"CGPREDICT_FAST=yes", "CGPREDICT_FAST: expected 0 or 1"},
                          {"CGPREDICT_TRACE_MB=12abc", "CGPREDICT_TRACE_MB: expected a number of MiB"},
                          {"CGPREDICT_TRACE_MB=-5", "CGPREDICT_TRACE_MB: expected a number of MiB"},
                          {"CGPREDICT_BLOCK=256x", "CGPREDICT_BLOCK: '256x' is not a block shape"},
                          {"CGPREDICT_BLOCK=256,128", "CGPREDICT_BLOCK: '128' is not a block shape"},
                          /* strtoul's leading blanks, signs and negation (-(2^64 - 1) is 1) got these in */
                          {"CGPREDICT_MEMORY_MB=-18446744073709551615", "CGPREDICT_MEMORY_MB: expected a number of MiB"},
                          {"CGPREDICT_MEMORY_MB=+8", "CGPREDICT_MEMORY_MB: expected a number of MiB"},
                          {"CGPREDICT_TRACE_MB=' -18446744073709551615'", "CGPREDICT_TRACE_MB: expected a number of MiB"},
                          {"CGPREDICT_TRACE_MB=' 8'", "CGPREDICT_TRACE_MB: expected a number of MiB"},
                          {"CGPREDICT_BLOCK=-18446744073709551615", "CGPREDICT_BLOCK: '-18446744073709551615' is not"},
                          {"CGPREDICT_BLOCK=+32x8", "CGPREDICT_BLOCK: '+32x8' is not a block shape"}};
  for (int i = 0; i < (int)(sizeof bad / sizeof *bad); i++) {
    cr_expect_eq(sh("rm -f r.json; %s CGPREDICT_REPORT=r.json ./p", bad[i][0]), 0, "%s", bad[i][0]);
    cr_expect_not_null(strstr(read_file("err.txt"), bad[i][1]), "%s: %s", bad[i][0], read_file("err.txt"));
    cr_expect_null(read_file("r.json"), "%s wrote a report", bad[i][0]);
  }
  cr_expect_eq(sh("CGPREDICT_QUIET=0 CGPREDICT_TRACE_MB=8 CGPREDICT_BLOCK=128,16x16 CGPREDICT_REPORT=r.json ./p"), 0);
  cr_expect_not_null(read_file("r.json"), "good values: %s", read_file("err.txt"));
}

/* issue 31 item 1 (CGPREDICT_DIN): the din files are written as the report is. A symbolic link at
   PREFIX.<device>.din is refused and its target kept; a FIFO there is refused at once, not waited
   on; a device as the prefix (/dev/null) is refused rather than growing /dev/null.<device>.din;
   a plain path gets its file, whole, at exit, and no temporary is left. */
Test(e2e_robust, din_files_are_written_as_the_report_is) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("echo keep > victim && ln -s victim d.jetson-tk1.din && CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 "
                  "CGPREDICT_DIN=d CGPREDICT_REPORT=r.json ./p && cat victim"), 0);
  cr_expect_str_eq(read_file("out.txt") + strlen(read_file("out.txt")) - 5, "keep\n");
  cr_expect_not_null(strstr(read_file("err.txt"), "symbolic link"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("rm -f d.jetson-tk1.din && mkfifo d.jetson-tk1.din && timeout 20 env CGPREDICT_QUIET=1 "
                  "CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_DIN=d CGPREDICT_REPORT=r.json ./p"), 0, "a FIFO hung the program");
  cr_expect_not_null(strstr(read_file("err.txt"), "FIFO"), "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_DIN=/dev/null CGPREDICT_REPORT=r.json ./p"), 0);
  cr_expect_not_null(strstr(read_file("err.txt"), "device or special file"), "%s", read_file("err.txt"));
  cr_expect_neq(access("/dev/null.jetson-tk1.din", F_OK), 0, "/dev/null.jetson-tk1.din was made");
  cr_assert_eq(sh("rm -f d.jetson-tk1.din && CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_DIN=d "
                  "CGPREDICT_REPORT=r.json ./p && test -s d.jetson-tk1.din && ! ls -a | grep -q '^\\.d\\.jetson'"), 0,
               "%s", read_file("err.txt"));
}

/* Hidden files beside the report (".r.json..."), counted by ls -A. */
static int hidden_beside(const char *report) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ls -A | grep -c '^\\.%s' > hidden.txt; true", report);
  cr_assert_eq(sh("%s", cmd), 0);
  return atoi(read_file("hidden.txt"));
}

/* issue 31 item 2: a run that ends without atexit (_exit, quick_exit, SIGKILL) left its hidden temporaries
   (.<report>.trace.XXXXXX, up to the trace's cap) for good. Now a temporary has no name until it
   is committed (O_TMPFILE) where the file system allows, so nothing is left at all; and a named
   one (.<report>.trace.<pid>.XXXXXX, where O_TMPFILE is not available) of a process that no
   longer exists is removed by the next run, which says so. */
Test(e2e_robust, temporaries_of_a_run_ended_by_exit_or_kill_do_not_outlive_it) {
  write_file("x.c", "#include <stdio.h>\n#include <stdlib.h>\n#include <signal.h>\n#include <unistd.h>\n"
                    "float a[1 << 16];\n"
                    "int main(int argc, char **argv) {\n"
                    "#pragma cgpredict kernel name(fill)\n"
                    "  for (int i = 0; i < (1 << 16); i++) a[i] = i;\n"
                    "  printf(\"%.0f\\n\", a[100]);\n"
                    "  fflush(stdout);\n"
                    "  if (argc > 1 && argv[1][0] == 'k') kill(getpid(), SIGKILL);\n"
                    "  if (argc > 1 && argv[1][0] == 'q') quick_exit(0);\n"
                    "  if (argc > 1) _exit(0);\n"
                    "  return 0;\n"
                    "}\n");
  cr_assert_eq(sh("%s cc -o x x.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_REPORT=r.json ./x exit"), 0, "%s",
               read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "100\n");
  cr_expect_eq(hidden_beside("r.json"), 0, "a run ending in _exit(0) left a temporary");
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_DIN=d CGPREDICT_HTML=h.html CGPREDICT_REPORT=r.json "
                  "./x quick"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "100\n");
  cr_expect_not_null(strstr(read_file("err.txt"), "ended by quick_exit, which runs no atexit handler; no report"),
                     "quick_exit ended the run in silence: %s", read_file("err.txt"));
  cr_expect_eq(hidden_beside("r.json") + hidden_beside("d.") + hidden_beside("h.html"), 0,
               "a run ending in quick_exit(0) left a temporary");
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=full CGPREDICT_REPORT=r.json ./x kill"), 137);
  cr_expect_eq(hidden_beside("r.json"), 0, "a run killed with SIGKILL left a temporary");
  /* a named temporary of a process that has ended (a file system without O_TMPFILE): the next
     run removes it and says so; one of a live process (this test's own shell's parent) is kept */
  cr_assert_eq(sh("pid=$(sh -c 'echo $$'); echo partial > .r.json.trace.$pid.AbC123; "
                  "echo live > .r.json.trace.%ld.AbC123; echo $pid > dead.txt", (long)getpid()), 0);
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./x"), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "cgpredict: removed") &&
                     strstr(read_file("err.txt"), ".r.json.trace."), "%s", read_file("err.txt"));
  cr_expect_eq(hidden_beside("r.json"), 1, "the dead process's temporary stays, or the live one went");
  char live[64];
  snprintf(live, sizeof live, ".r.json.trace.%ld.AbC123", (long)getpid());
  cr_expect_eq(access(in_dir(live), F_OK), 0, "a live process's temporary was removed");
  cJSON_Delete(report("r.json"));
  /* where the file system has no O_TMPFILE (made so here by a preloaded open() that refuses it):
     the named temporary of the run that ended in _exit is what the next run removes; and where
     the unlinked temporary cannot be linked at the end (a preloaded linkat() that fails), its
     bytes are copied to a named one: the report and the trace are written all the same */
  write_file("notmp.c", "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <errno.h>\n#include <fcntl.h>\n"
                        "#include <stdarg.h>\n#include <stdlib.h>\n"
                        "int linkat(int a, const char *b, int c, const char *d, int e) {\n"
                        "  (void)a; (void)b; (void)c; (void)d; (void)e; errno = EPERM; return -1;\n"
                        "}\n"
                        "static int pass(const char *name, const char *p, int flags, va_list ap) {\n"
                        "  int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);\n"
                        "  if ((flags & O_TMPFILE) == O_TMPFILE && !getenv(\"LINK_FAILS\")) { errno = EOPNOTSUPP; return -1; }\n"
                        "  return real(p, flags, va_arg(ap, int));\n"
                        "}\n"
                        "int open(const char *p, int flags, ...) {\n"
                        "  va_list ap; va_start(ap, flags); int r = pass(\"open\", p, flags, ap); va_end(ap); return r;\n"
                        "}\n"
                        "int open64(const char *p, int flags, ...) {\n"
                        "  va_list ap; va_start(ap, flags); int r = pass(\"open64\", p, flags, ap); va_end(ap); return r;\n"
                        "}\n");
  cr_assert_eq(sh("rm -f .r.json.trace.* && cc -shared -fPIC -o notmp.so notmp.c -ldl"), 0, "%s", read_file("err.txt"));
  const char *pre = "ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$PWD/notmp.so CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json";
  cr_assert_eq(sh("%s ./x exit", pre), 0, "%s", read_file("err.txt"));
  cr_expect_eq(hidden_beside("r.json"), 1, "without O_TMPFILE, the run ended by _exit leaves its named temporary");
  cr_assert_eq(sh("%s ./x", pre), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "cgpredict: removed"), "%s", read_file("err.txt"));
  cr_expect_eq(hidden_beside("r.json"), 0, "the next run left a temporary");
  cJSON_Delete(report("r.json"));
  /* quick_exit runs its own handlers: the runtime's removes the named temporaries, as a signal's does */
  cr_assert_eq(sh("%s ./x quick", pre), 0, "%s", read_file("err.txt"));
  cr_expect_null(strstr(read_file("err.txt"), "cgpredict: removed"), "%s", read_file("err.txt"));
  cr_expect_eq(hidden_beside("r.json"), 0, "without O_TMPFILE, a run ended by quick_exit left its named temporary");
  cr_assert_eq(sh("rm r.json r.json.trace && LINK_FAILS=1 %s ./x", pre), 0, "%s", read_file("err.txt"));
  cr_expect_eq(sh("test -s r.json && test -s r.json.trace && %s report r.json --device gpgpusim-qv100", CGP_DRIVER), 0,
               "with linkat failing: %s", read_file("err.txt"));
  cr_expect_eq(hidden_beside("r.json"), 0, "with linkat failing, a temporary was left");
}

/* issue 31 item 8: fork() around or inside a marked nest. The child inherited the runtime's
   state: it flushed its copy of the trace's buffer into the parent's file, renamed or removed the
   parent's temporaries and wrote its own report over the parent's (the trace then failed to
   replay: "bytes after the end marker"). Now a child runs untraced and touches no file of the
   parent's: the parent's report, trace and din file are those of a run without the fork, and the
   trace replays. */
Test(e2e_robust, a_forked_child_leaves_the_parents_report_and_trace_alone) {
  write_file("f.c", "#include <stdio.h>\n#include <stdlib.h>\n#include <sys/wait.h>\n#include <unistd.h>\n"
                    "#define N 65536\n"
                    "float a[N];\n"
                    "int main(int argc, char **argv) {\n"
                    "  int where = argv[1][0];\n"
                    "  pid_t child = -1;\n"
                    "  if (where == 'b') child = fork();\n"
                    "#pragma cgpredict kernel name(fill)\n"
                    "  for (int i = 0; i < N; i++) {\n"
                    "    a[i] = i;\n"
                    "    if (where == 'i' && i == N / 2) child = fork();\n"
                    "  }\n"
                    "  if (where == 'a') child = fork();\n"
                    "  if (child == 0) { printf(\"child %.0f\\n\", a[N - 1]); exit(0); }\n"
                    "  if (child > 0) waitpid(child, 0, 0);\n"
                    "  printf(\"parent %.0f\\n\", a[N - 1]);\n"
                    "  return 0;\n"
                    "}\n");
  cr_assert_eq(sh("%s cc -o f f.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *env = "CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1";
  cr_assert_eq(sh("%s CGPREDICT_REPORT=n.json CGPREDICT_DIN=n ./f n", env), 0, "%s", read_file("err.txt"));
  cJSON *r0 = report("n.json");
  double t0 = num(prediction(kernel_named(r0, "fill"), "jetson-tk1"), "time_ms");
  cJSON_Delete(r0);
  const char *where[] = {"b", "i", "a"};
  for (int w = 0; w < 3; w++) {
    cr_assert_eq(sh("%s CGPREDICT_REPORT=%s.json CGPREDICT_DIN=%s ./f %s", env, where[w], where[w], where[w]), 0);
    cr_expect_str_eq(read_file("out.txt"), "child 65535\nparent 65535\n");
    cJSON *r = report(strcmp(where[w], "b") == 0 ? "b.json" : strcmp(where[w], "i") == 0 ? "i.json" : "a.json");
    cJSON *k = kernel_named(r, "fill");
    cr_expect_eq(num(k, "launches"), 1, "fork %s: the child's nest was counted", where[w]);
    cr_expect_eq(num(prediction(k, "jetson-tk1"), "time_ms"), t0, "fork %s", where[w]);
    cJSON_Delete(r);
    /* (its addresses move with ASLR: its size and lines are the run's) */
    cr_expect_eq(sh("test \"$(wc -lc < n.jetson-tk1.din)\" = \"$(wc -lc < %s.jetson-tk1.din)\"", where[w]), 0,
                 "fork %s: the din file differs", where[w]);
    cr_expect_eq(sh("%s report %s.json --device gpgpusim-qv100", CGP_DRIVER, where[w]), 0, "fork %s: %s", where[w],
                 read_file("err.txt"));
    cr_expect_eq(sh("ls -A | grep -c '^\\.' > hidden.txt; true"), 0);
    cr_expect_eq(atoi(read_file("hidden.txt")), 0, "fork %s: a temporary was left", where[w]);
  }
}

/* issue 31 item 11: a 1-D nest that runs zero times is never entered (the pass's hook is on the
   nest's entry edge), so the run wrote no report and said nothing, the earlier run's report left
   as if it were this one's. Now the report reflects the run: no kernel, runtime.kernels_note says
   why, and so does stderr (`cgpredict report` too). The driver, which links the runtime, writes
   no such report of its own. */
Test(e2e_robust, a_run_whose_nest_never_began_replaces_the_stale_report) {
  write_file("z.c", "#include <stdio.h>\n#include <stdlib.h>\n"
                    "float a[4096];\n"
                    "int main(int argc, char **argv) {\n"
                    "  int n = atoi(argv[1]);\n"
                    "#pragma cgpredict kernel name(fill)\n"
                    "  for (int i = 0; i < n; i++) a[i] = i;\n"
                    "  printf(\"%.0f\\n\", a[10]);\n"
                    "  return 0;\n"
                    "}\n");
  cr_assert_eq(sh("%s cc -o z z.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./z 4096"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "kernels")), 1);
  cJSON_Delete(r);
  cr_assert_eq(sh("CGPREDICT_REPORT=r.json CGPREDICT_HTML=z.html ./z 0"), 0, "%s", read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), "0\n");
  cr_expect_not_null(strstr(read_file("err.txt"), "no marked loop nest began in this run"), "%s", read_file("err.txt"));
  r = report("r.json");
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "kernels")), 0, "the earlier run's report is still there");
  cr_expect(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "runtime"), "kernels_note")));
  cJSON_Delete(r);
  cr_expect_not_null(read_file("z.html"), "no page: %s", read_file("err.txt"));
  cr_expect_eq(sh("%s report r.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("out.txt"), "no marked loop nest began"), "%s", read_file("out.txt"));
  cr_expect_neq(access(in_dir("cgpredict-report.json"), F_OK), 0, "the driver wrote a report of its own");
}

/* issue 31 item 11: a device named twice made two entries of one name (one key of the report's
   analysis, two columns alike); refused by name, at run time and by `cgpredict report`. */
Test(e2e_robust, a_device_named_twice_is_refused) {
  write_file("p.c", polite_src);
  cr_assert_eq(sh("%s build -- cc -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=jetson-tk1,h100-sxm5,jetson-tk1 CGPREDICT_REPORT=r.json ./p"), 0);
  expect_program_intact();
  cr_expect_not_null(strstr(read_file("err.txt"), "CGPREDICT_DEVICE: 'jetson-tk1' named twice"), "%s",
                     read_file("err.txt"));
  cr_expect_null(read_file("r.json"), "a report was written");
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./p"), 0);
  cr_expect_eq(sh("%s report r.json --device h100-sxm5,h100-sxm5", CGP_DRIVER), 2);
  cr_expect_not_null(strstr(read_file("err.txt"), "'h100-sxm5' named twice"), "%s", read_file("err.txt"));
}

/* issue 31 item 5: `full` mode kept every closed window's stats to the launch's end, 5.4 KB a
   window: CGPREDICT_MEMORY_MB did not bound it (1.54 GB at N = 32768). Windows are now folded into
   the launch's sums as they close (the same operations in the same order: the same prediction):
   16 M one-warp blocks cost what 4 M do, but for the program's own array. Peak RSS from python3's
   getrusage of the run. */
Test(e2e_robust, full_mode_memory_follows_the_program_not_its_windows) {
  if (strstr(plain_cc(), "sanitize"))          /* ASan's shadow and quarantine are not the program's */
    cr_skip_test("peak RSS is not measurable as the program's under AddressSanitizer");
  write_file("fm.c", "#include <stdio.h>\n#include <stdlib.h>\n"
                     "int main(int argc, char **argv) {\n"
                     "  long n = atol(argv[1]);\n"
                     "  float *a = calloc(n, sizeof *a);\n"
                     "#pragma cgpredict kernel name(fill) block(32)\n"
                     "  for (long i = 0; i < n; i++) a[i] = 2 * i;\n"
                     "  printf(\"%.0f\\n\", a[n - 1]);\n"
                     "  return 0;\n"
                     "}\n");
  cr_assert_eq(sh("%s cc -O2 -o fm fm.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  long kb[2], n[2] = {1L << 21, 1L << 23};
  for (int i = 0; i < 2; i++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_TRACE=0 CGPREDICT_SAMPLE=full CGPREDICT_DEVICE=jetson-tk1 "
                    "CGPREDICT_REPORT=r%d.json python3 -c 'import resource, subprocess, sys; "
                    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
                    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' ./fm %ld", i, n[i]), 0, "%s",
                 read_file("err.txt"));
    kb[i] = atol(read_file("out.txt"));
  }
  long array_kb = (n[1] - n[0]) * 4 / 1024;   /* 24 MiB more of the program's own */
  cr_expect_lt(kb[1] - kb[0], array_kb + 12 * 1024, "peak %ld KB for n = 2^23, %ld KB for 2^21: the runtime grew by "
               "%ld KB beyond the program's %ld KB", kb[1], kb[0], kb[1] - kb[0] - array_kb, array_kb);
}

/* A nest of 4096 threads of 400 scattered reads each, 64 a block: enough warps for the memory
   budget and an address-space limit to cut (two tests below use it). */
static const char *const runs_src =
  "#include <stdio.h>\n"
  "#define N 4096\n"
  "float a[N], s[N];\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N; i++) a[i] = i % 13;\n"
  "#pragma cgpredict kernel name(runs) block(64)\n"
  "  for (int i = 0; i < N; i++) {\n"
  "    float t = 0;\n"
  "    for (int j = 0; j < 400; j++) t += a[(j * j + i) % N];\n"
  "    s[i] = t;\n"
  "  }\n"
  "  double u = 0; for (int i = 0; i < N; i++) u += s[i];\n"
  "  printf(\"%.0f\\n\", u);\n"
  "  return 0;\n"
  "}\n";

/* issue 31 item 5: `full` mode stopped by the memory budget left the blocks after its last window
   unaccounted (each window stood only for itself): a silently smaller prediction (here half).
   The last window now stands for the rest, as in sampled mode, and the kernel is marked partial
   with the budget's note, in the report and on stderr. */
Test(e2e_robust, full_mode_cut_by_the_budget_stands_for_the_grid_and_says_partial) {
  write_file("fb.c", runs_src);
  cr_assert_eq(sh("%s cc -O2 -o fb fb.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  double t[2];
  for (int c = 0; c < 2; c++) {
    cr_assert_eq(sh("CGPREDICT_SAMPLE=full CGPREDICT_MEMORY_MB=%d CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r%d.json "
                    "./fb", c ? 4 : 64, c), 0, "%s", read_file("err.txt"));
    cr_expect_str_eq(read_file("out.txt"), "9828000\n");
    cJSON *r = report(c ? "r1.json" : "r0.json");
    cJSON *k = kernel_named(r, "runs");
    t[c] = num(prediction(k, "jetson-tk1"), "time_ms");
    cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(k, "partial")), c == 1, "partial");
    cr_expect_eq(cJSON_GetObjectItem(k, "sampling_note") != NULL, c == 1, "sampling_note");
    cJSON_Delete(r);
  }
  cr_expect_not_null(strstr(read_file("err.txt"), "note: the trace memory budget"), "%s", read_file("err.txt"));
  cr_expect_lt(fabs(t[1] - t[0]) / t[0], 0.1, "cut by the budget %g ms, whole %g ms", t[1], t[0]);
}

/* The stub never blocks on, or crashes in, a runtime it cannot load: CGPREDICT_RUNTIME_SO naming a
   FIFO (dlopen would wait for a writer for ever), and a program linked with -static (loading the
   shared runtime into it crashed in cgp_rt_kernel_begin, losing the program's output). */
Test(e2e_robust, the_stub_refuses_a_fifo_and_a_static_program_instead_of_hanging_or_crashing) {
  write_file("a.c", kern_a_src);
  write_file("c.c", kern_c_src);
  write_file("main.c", plain_main_src);
  cr_assert_eq(sh("%s cc -c a.c c.c && %s -o plain main.c a.o c.o && mkfifo rt.fifo", CGP_DRIVER, plain_cc()), 0,
               "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_RUNTIME_SO=rt.fifo CGPREDICT_REPORT=r.json timeout 20 ./plain"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  cr_expect(strstr(read_file("err.txt"), "not a regular file"), "%s", read_file("err.txt"));
  /* a static C library is needed, and a sanitized build's objects cannot link statically */
  if (sh("test -f \"$(cc -print-file-name=libc.a)\"") != 0 || strcmp(plain_cc(), "cc") != 0) return;
  cr_assert_eq(sh("cc -static -o static main.c a.o c.o -ldl"), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_REPORT=s.json timeout 20 ./static"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  cr_expect(strstr(read_file("err.txt"), "linked statically"), "%s", read_file("err.txt"));
}

/* CGPREDICT_STRICT=1 with objects of `cgpredict cc -c` linked by a plain cc (the stub): a runtime
   that cannot be loaded is a tool failure (status 1; it was ignored), and a report that cannot be
   written turns status 0 into 1 after the program's own atexit handler ran (the runtime, loaded
   after main began, used to exit before it). */
Test(e2e_robust, strict_mode_with_the_stub_fails_after_the_programs_handlers) {
  write_file("a.c", kern_a_src);
  write_file("c.c", kern_c_src);
  write_file("main.c",
             "#include <stdio.h>\n"
             "#include <stdlib.h>\n"
             "void kern_a(float *a, int n);\n"
             "void kern_c(float *a, int n);\n"
             "static float a[8192];\n"
             "static void bye(void) { printf(\"bye\\n\"); }\n"
             "int main(int argc, char **argv) {\n"
             "  atexit(bye);\n"
             "  for (int i = 0; i < 8192; i++) a[i] = i;\n"
             "  kern_a(a, 8192 / argc);\n"
             "  kern_c(a, 8192 / argc);\n"
             "  printf(\"done\\n\");\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s cc -c a.c c.c && %s -o plain main.c a.o c.o", CGP_DRIVER, plain_cc()), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_STRICT=1 CGPREDICT_RUNTIME_SO=/nonexistent/libcgpredict_rt.so ./plain"), 1, "%s",
               read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "done\nbye\n");
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_STRICT=1 CGPREDICT_REPORT=no/such/dir/r.json ./plain"), 1, "%s",
               read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "done\nbye\n");
  cr_expect(strstr(read_file("err.txt"), "CGPREDICT_STRICT=1: exit status 1"), "%s", read_file("err.txt"));
  /* and no failure, no change */
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_STRICT=1 CGPREDICT_REPORT=r.json ./plain"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "done\nbye\n");
}

/* A signal that interrupts the report's fsync (EINTR, here from a preloaded fsync that fails so
   once per file) is no failure: the report is written and nothing says otherwise (the run said
   "no report written" and lost it). */
Test(e2e_robust, an_interrupted_fsync_still_writes_the_report) {
  write_file("a.c", kern_a_src);
  write_file("c.c", kern_c_src);
  write_file("main.c", plain_main_src);
  write_file("eintr.c", "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <errno.h>\n"
                        "int fsync(int fd) {\n"
                        "  static int seen[1024];\n"
                        "  if (fd >= 0 && fd < 1024 && !seen[fd]++) { errno = EINTR; return -1; }\n"
                        "  int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, \"fsync\");\n"
                        "  return real(fd);\n"
                        "}\n");
  cr_assert_eq(sh("cc -shared -fPIC -o eintr.so eintr.c -ldl && %s cc -O2 -o p main.c a.c c.c", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cr_assert_eq(sh("ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$PWD/eintr.so CGPREDICT_QUIET=1 CGPREDICT_STRICT=1 "
                  "CGPREDICT_REPORT=r.json ./p"), 0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), "sum 67115008\n");
  cr_expect_null(strstr(read_file("err.txt"), "cannot write"), "%s", read_file("err.txt"));
  expect_both_kernels("r.json");
  cr_expect_eq(hidden_beside("r.json"), 0, "a temporary of the report or trace was left");
}

/* issue 30 item 9: a kernel whose launches behave differently (FFT's stages: here the stride of
   its accesses is 1 for 20 launches, then 16) is sampled by launches (0, 1, 3, 7, then 31, where
   the stride changed: 4n + 3 once four analysed launches agree; docs/model.md 5b): launches 8 to
   30, estimated from launch 7, are not all like it, and the report and the summary say that the launches analysed differ and the
   others may be off. A kernel whose launches are alike gets no such note. */
Test(e2e_robust, launches_that_differ_are_said_to_make_launch_sampling_uncertain) {
  write_file("st.c",
             "#include <stdio.h>\n"
             "#define N 65536\n"
             "static float a[N * 16], b[N];\n"
             "static void stage(int s) {\n"
             "#pragma cgpredict kernel name(stage)\n"
             "  for (int i = 0; i < N; i++) b[i] += a[i * s];\n"
             "}\n"
             "static void same(void) {\n"
             "#pragma cgpredict kernel name(same)\n"
             "  for (int i = 0; i < N; i++) b[i] += a[i];\n"
             "}\n"
             "int main(void) {\n"
             "  for (int l = 0; l < 40; l++) { stage(l < 20 ? 1 : 16); same(); }\n"
             "  printf(\"%g\\n\", b[5]);\n"
             "  return 0;\n"
             "}\n");
  cr_assert_eq(sh("%s build -- cc -O2 -o st st.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_REPORT=st.json ./st"), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("err.txt"), "the analysed launches behave differently"), "%s", read_file("err.txt"));
  cJSON *r = report("st.json");
  cr_expect(cJSON_IsString(cJSON_GetObjectItem(kernel_named(r, "stage"), "launch_sampling_note")));
  cr_expect_null(cJSON_GetObjectItem(kernel_named(r, "same"), "launch_sampling_note"));
  /* stage: launches 7 and 31 differ, so from 31 on launch n + max(1, n / 16) is analysed after
     launch n: 32, 34, 36, 38; same: 0, 1, 3, 7, 31 */
  const double stage_at[] = {0, 1, 3, 7, 31, 32, 34, 36, 38}, same_at[] = {0, 1, 3, 7, 31};
  cJSON *ss = cJSON_GetObjectItem(kernel_named(r, "stage"), "samples"), *sm = cJSON_GetObjectItem(kernel_named(r, "same"), "samples");
  cr_assert_eq(cJSON_GetArraySize(ss), 9);
  cr_assert_eq(cJSON_GetArraySize(sm), 5);
  for (int i = 0; i < 9; i++) cr_expect_eq(num(cJSON_GetArrayItem(ss, i), "launch"), stage_at[i], "stage %d", i);
  for (int i = 0; i < 5; i++) cr_expect_eq(num(cJSON_GetArrayItem(sm, i), "launch"), same_at[i], "same %d", i);
  cJSON_Delete(r);
}

/* issue 31 item 11: a longjmp out of a marked nest. The runtime sees no exit edge, so the nest
   stays open: if the program then exits, the message says it exited inside the kernel "or left it
   by longjmp" (no report, as for an exit inside: the two cannot be told apart); if another nest
   begins first, the left launch is ended there and was reported as an ordinary launch of the
   threads that ran (here 101 of 4096), nothing saying it was cut short. It now carries a
   left_note, said on stderr and in the summary. */
Test(e2e_robust, a_nest_left_by_longjmp_is_said_so_not_reported_as_a_whole_launch) {
  write_file("lj.c", "#include <setjmp.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                     "static jmp_buf env;\n"
                     "float a[4096];\n"
                     "static void check(int i) { if (i == 100) longjmp(env, 1); }\n"
                     "int main(int argc, char **argv) {\n"
                     "  if (!setjmp(env)) {\n"
                     "#pragma cgpredict kernel name(first)\n"
                     "    for (int i = 0; i < 4096; i++) { a[i] = i; check(i); }\n"
                     "  }\n"
                     "  if (argc > 1) {\n"
                     "#pragma cgpredict kernel name(second)\n"
                     "    for (int i = 0; i < 4096; i++) a[i] += 1;\n"
                     "  }\n"
                     "  printf(\"%.0f\\n\", a[100]);\n"
                     "  return 0;\n"
                     "}\n");
  cr_assert_eq(sh("%s cc -o lj lj.c && cc -o plain lj.c -w && ./plain > plain1.txt && ./plain 2 > plain2.txt", CGP_DRIVER),
               0, "%s", read_file("err.txt"));
  /* left, then the program exits: no report, the message names both readings */
  cr_assert_eq(sh("CGPREDICT_REPORT=r.json ./lj"), 0, "%s", read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), read_file("plain1.txt"));
  cr_expect_not_null(strstr(read_file("err.txt"), "exited inside kernel 'first'") &&
                     strstr(read_file("err.txt"), "or left it by longjmp"), "%s", read_file("err.txt"));
  cr_expect_null(read_file("r.json"), "a report was written for a nest still open at exit");
  /* left, then another nest: the left launch is reported as what ran, and says so */
  cr_assert_eq(sh("CGPREDICT_REPORT=r.json ./lj 2"), 0, "%s", read_file("err.txt"));
  cr_expect_str_eq(read_file("out.txt"), read_file("plain2.txt"));
  char *err = read_file("err.txt");
  cr_expect(strstr(err, "kernel 'first' (lj.c:9): 1 launch(es) left without reaching the nest's end") &&
            strstr(err, "note: 1 launch(es) left the nest"), "%s", err);
  cJSON *r = report("r.json");
  cJSON *first = kernel_named(r, "first"), *second = kernel_named(r, "second");
  cr_expect(cJSON_IsString(cJSON_GetObjectItem(first, "left_note")), "no left_note on the left kernel");
  cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(first, "threads_extent"), 0)->valuedouble, 101);
  cr_expect_null(cJSON_GetObjectItem(second, "left_note"));
  cJSON_Delete(r);
  cr_expect_eq(sh("%s report r.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect_not_null(strstr(read_file("out.txt"), "note: 1 launch(es) left the nest"), "%s", read_file("out.txt"));
}

/* issue 31 item 5: `full` mode under an address-space limit (ulimit -v) dropped the warps whose
   allocations failed, in silence: a smaller prediction that looked whole. Under every limit tried
   the program's output and status stay its own, and a report that traced fewer warps than the
   unlimited run says so (partial, memory_note, stderr); at least one limit must cost warps. */
Test(e2e_robust, full_mode_under_an_address_space_limit_says_what_it_lost) {
  if (strstr(plain_cc(), "sanitize"))          /* ASan reserves terabytes of shadow: no ulimit -v */
    cr_skip_test("an address-space limit cannot be set under AddressSanitizer");
  write_file("fl.c", runs_src);
  cr_assert_eq(sh("%s cc -O2 -o fl fl.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  const char *env = "CGPREDICT_QUIET=1 CGPREDICT_TRACE=0 CGPREDICT_SAMPLE=full CGPREDICT_DEVICE=jetson-tk1";
  cr_assert_eq(sh("%s CGPREDICT_REPORT=whole.json ./fl", env), 0, "%s", read_file("err.txt"));
  cJSON *r = report("whole.json");
  cJSON *k = kernel_named(r, "runs");
  double whole = num(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0), "traced_warps");
  cr_assert_null(cJSON_GetObjectItem(k, "memory_note"));
  cJSON_Delete(r);
  int cut = 0;
  for (int mb = 40; mb >= 8; mb -= 2) {
    int rc = sh("rm -f cut.json; (ulimit -v %d; %s CGPREDICT_REPORT=cut.json ./fl)", mb * 1024, env);
    if (rc == 127 || rc > 128) break;           /* the program itself cannot start or run there */
    cr_assert_eq(rc, 0, "%d MiB: exit %d: %s", mb, rc, read_file("err.txt"));
    cr_assert_str_eq(read_file("out.txt"), "9828000\n", "%d MiB", mb);
    if (!read_file("cut.json")) {               /* none: then it must say so */
      cr_expect_not_null(strstr(read_file("err.txt"), "cgpredict"), "%d MiB: no report, nothing said", mb);
      continue;
    }
    r = report("cut.json");
    k = kernel_named(r, "runs");
    cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);   /* none: no launch kept */
    double traced = s0 ? num(s0, "traced_warps") : 0;
    if (traced < whole) {
      cut++;
      cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(k, "partial")) && cJSON_IsString(cJSON_GetObjectItem(k, "memory_note")),
                "%d MiB: %g of %g warps traced, not said partial", mb, traced, whole);
      cr_expect_not_null(strstr(read_file("err.txt"), "out of memory"), "%d MiB: %s", mb, read_file("err.txt"));
      cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "dependence_check"), "partial")),
                "%d MiB: the dependence check saw %g of %g warps, not said partial", mb, traced, whole);
      cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0);   /* none kept: no time, said */
      if (traced == 0)
        cr_expect(!cJSON_GetObjectItem(p, "time_ms") && cJSON_IsString(cJSON_GetObjectItem(p, "note")),
                  "%d MiB: no warp analysed, a time of %g ms", mb, num(p, "time_ms"));
    }
    cJSON_Delete(r);
  }
  cr_expect_gt(cut, 0, "no limit tried cost a warp: the test exercised nothing");
}
