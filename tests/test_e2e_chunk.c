/* End-to-end, the clean loop's chunks (pass/cgp_chunk.c): threads the runtime leaves untraced run
   four at a time in a function the final compile may unroll and jam. What that must not change:
   the program's output (the plain build's, in modes run and full), and what the report says (the same
   report with CGPREDICT_CHUNK=0 at build time, but for what the CPU's clock measured). Kernels:
   `gemm` (odd sizes: rows of blocks end mid-chunk, the last block part empty), `rows` (a 1-D row
   walk), `chain` (thread i reads a[i + 3] three times, which thread i + 3 then writes: a jam of four
   would read it after its first write; 3 is argc + 2, a distance the compile cannot know, so it
   must leave the chunk in order), `upper` (an inner
   loop from the thread's own index, and a thread loop bounded at run time), `mv` (a function's
   restrict parameters, its row a thread: mod 4 remainders in every block). Mutation-checked:
   the chunk's guard asking one thread fewer ("go on to x + s" for s < CHUNK - 1 only) runs a
   thread past `upper`'s bound and changes the output. */
#include "e2e_util.h"

static const char *program =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#define NI 37\n"
    "#define NJ 45\n"
    "#define NK 29\n"
    "#define N 304\n"
    "__attribute__((noinline)) static void mv(int n, const float *restrict m, const float *restrict v,\n"
    "                                         float *restrict out) {\n"
    "#pragma cgpredict kernel name(mv) block(32)\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    float s = 0;\n"
    "    for (int j = 0; j < n; j++) s += m[i * n + j] * v[j];\n"
    "    out[i] = s;\n"
    "  }\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  (void)argv;\n"
    "  float (*A)[NK] = malloc(sizeof(float[NI][NK])), (*B)[NJ] = malloc(sizeof(float[NK][NJ]));\n"
    "  float (*C)[NJ] = malloc(sizeof(float[NI][NJ])), (*M)[N] = malloc(sizeof(float[N][N]));\n"
    "  float *a = malloc(sizeof(float) * (N + 3)), *r = malloc(sizeof(float) * N);\n"
    "  if (!A || !B || !C || !M || !a || !r) return 1;\n"
    "  for (int i = 0; i < NI; i++) for (int k = 0; k < NK; k++) A[i][k] = (float)((i * 7 + k) % 11) / 8;\n"
    "  for (int k = 0; k < NK; k++) for (int j = 0; j < NJ; j++) B[k][j] = (float)((k * 5 + j) % 13) / 16;\n"
    "  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) C[i][j] = (float)(i + j) / 32;\n"
    "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) M[i][j] = (float)((i * 3 + j) % 17) / 64;\n"
    "  for (int i = 0; i < N + 3; i++) a[i] = (float)(i % 9) / 4;\n"
    "  for (int i = 0; i < N; i++) r[i] = 0;\n"
    "  int half = argc * N / 2, far = argc + 2;\n"
    "  for (int rep = 0; rep < 6; rep++) {\n"
    "#pragma cgpredict kernel name(gemm) dims(2) block(16,4)\n"
    "    for (int i = 0; i < NI; i++)\n"
    "      for (int j = 0; j < NJ; j++) {\n"
    "        float s = C[i][j] * 0.5f;\n"
    "        for (int k = 0; k < NK; k++) s += A[i][k] * B[k][j];\n"
    "        C[i][j] = s;\n"
    "      }\n"
    "#pragma cgpredict kernel name(rows) block(64)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      float s = 0;\n"
    "      for (int j = 0; j < N; j++) s += M[i][j] * a[j];\n"
    "      r[i] = s;\n"
    "    }\n"
    "#pragma cgpredict kernel name(chain) dims(1) block(64)\n"
    "    for (int i = 0; i < N; i++)\n"
    "      for (int k = 0; k < 3; k++) a[i] = a[i] * 0.5f + a[i + far];\n"
    "#pragma cgpredict kernel name(upper) block(64)\n"
    "    for (int i = 0; i < half; i++) {\n"
    "      float s = 0;\n"
    "      for (int j = i; j < N; j++) s += M[i][j];\n"
    "      r[i] += s;\n"
    "    }\n"
    "    mv(N, &M[0][0], a, r);\n"
    "  }\n"
    "  double c = 0, q = 0;\n"
    "  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) c += C[i][j];\n"
    "  for (int i = 0; i < N; i++) q += r[i] + a[i];\n"
    "  printf(\"%.9e %.9e\\n\", c, q);\n"
    "  return 0;\n"
    "}\n";

static char plain_out[256];

/* The plain build's output, and two instrumented builds: prog (chunks) and prog0 (CGPREDICT_CHUNK=0). */
static void build(void) {
  write_file("prog.c", program);
  cr_assert_eq(sh("cc -O2 -Wno-unknown-pragmas -o plain prog.c && ./plain"), 0, "%s", read_file("err.txt"));
  snprintf(plain_out, sizeof plain_out, "%s", read_file("out.txt"));
  cr_assert_eq(sh("%s build -- cc -O2 -o prog prog.c", CGP_DRIVER), 0, "build failed: %s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_CHUNK=0 %s build -- cc -O2 -o prog0 prog.c", CGP_DRIVER), 0, "build failed: %s",
               read_file("err.txt"));
}

/* exe run in `mode`: its output must be `want`; its report as text, what varies dropped. */
static char *run(const char *exe, const char *mode, const char *want) {
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_TRACE=0 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=%s.json ./%s", mode, exe, exe),
               0, "%s", read_file("err.txt"));
  cr_assert_str_eq(read_file("out.txt"), want, "%s in mode %s", exe, mode);
  char name[32];
  snprintf(name, sizeof name, "%s.json", exe);
  cJSON *r = report(name);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "kernels")), 5, "every kernel reported");
  drop_varying(r);
  char *text = cJSON_PrintUnformatted(r);
  cJSON_Delete(r);
  return text;
}

TestSuite(e2e_chunk, .init = setup, .fini = teardown, .timeout = 300);

Test(e2e_chunk, chunks_leave_the_output_and_the_report_as_they_were) {
  build();
  /* the chunk functions are there: gemm, rows, chain, upper (malloc's arrays) and mv (restrict
     parameters) each hold an inner loop (with a[i + 1] or a[i + 3] in chain, clang carried a value
     from one thread to the next in a register: no chunk; and without dims(1) its k loop is
     mapped too) */
  cr_assert_eq(sh("nm prog | grep -c 'cgp[.]chunk[.]'"), 0, "no chunk function in prog");
  cr_assert_eq(atoi(read_file("out.txt")), 5, "%s chunk functions", read_file("out.txt"));
  cr_assert_neq(sh("nm prog0 | grep -q 'cgp[.]chunk[.]'"), 0, "CGPREDICT_CHUNK=0 made a chunk function");
  /* mode skip runs no untraced thread: its output is not the plain build's, but the same with
     and without chunks */
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_TRACE=0 CGPREDICT_SAMPLE=skip CGPREDICT_REPORT=s.json ./prog0"), 0);
  char skip_out[256];
  snprintf(skip_out, sizeof skip_out, "%s", read_file("out.txt"));
  const char *modes[] = {"run", "skip", "full"};
  for (int m = 0; m < 3; m++) {
    const char *want = m == 1 ? skip_out : plain_out;
    char *with = run("prog", modes[m], want), *without = run("prog0", modes[m], want);
    cr_assert_str_eq(with, without, "mode %s: the report moved with the chunks", modes[m]);
    free(with);
    free(without);
  }
}
