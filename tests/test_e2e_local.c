/* End-to-end, issue 30 item 10a (MachSuite's sort/merge, `TYPE temp[SIZE]` in merge()): a
   thread's own array indexed by a run-time value is in CUDA local memory (pass/cgp_local.c,
   runtime/cgp_rt_local.h; docs/pipeline.md, "Per-thread arrays in local memory"): its accesses
   are traced at the interleaved address of their lane, classified like any other, named by the
   array with a note, and create no dependence and no host copy. Each test failed before: the
   array was not traced at all (may_alias), or traced at the CPU stack's one address, shared by
   every thread (noalias: five dependences, 64 bytes of host copy). The sites are checked by the
   sector bytes a warp instruction touches (device independent); on the Jetson TK1, whose L1
   caches local memory but not global loads, a local load also looks up the L1 (cgp_an_cache.c). */
#include "e2e_util.h"

/* Site (line, kind, t-or-temp) is a local-memory access of class `cls` whose warp instructions
   touch `bytes` bytes of 32-byte sectors, and its note says so. */
static void assert_local(cJSON *k, int line, const char *kind, const char *array, const char *cls, double bytes) {
  cJSON *m = site(k, line, kind, array);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "local_memory")), "line %d: not local memory", line);
  cr_assert_not_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(m, "memory_note")), "local memory"));
  cr_assert_str_eq(cJSON_GetObjectItem(m, "class")->valuestring, cls, "line %d", line);
  cr_assert_float_eq(num(m, "sector_bytes_per_warp_instruction"), bytes, 1e-9, "line %d: %g bytes", line,
                     num(m, "sector_bytes_per_warp_instruction"));
}

/* One thread per i, 256 a block: t[16] written and read by the loop counter j, the same in every
   lane, then read at i % 16, which differs from lane to lane. `noalias` gives the reading of the
   compiled accesses (real loads and stores of t), the default the source-level one's. */
static const char *per_thread_array(const char *clauses) {
  static char src[1024];
  snprintf(src, sizeof src,
           "#include <stdio.h>\n"
           "#define N 1024\n"
           "float in[N], out[N];\n"
           "int main(void) {\n"
           "  for (int i = 0; i < N; i++) in[i] = i %% 7;\n"
           "#pragma cgpredict kernel name(loc) dims(1) block(256)%s\n"
           "  for (int i = 0; i < N; i++) {\n"
           "    float t[16];\n"
           "    for (int j = 0; j < 16; j++) t[j] = in[i] * j;\n"          /* line 9 */
           "    float s = 0;\n"
           "    for (int j = 0; j < 16; j++) s += t[j];\n"                  /* line 11 */
           "    out[i] = s + t[i %% 16];\n"                                 /* line 12 */
           "  }\n"
           "  double sum = 0; for (int i = 0; i < N; i++) sum += out[i];\n"
           "  printf(\"%%g\\n\", sum);\n"
           "  return 0;\n"
           "}\n",
           clauses);
  return src;
}

TestSuite(e2e_local, .init = setup, .fini = teardown, .timeout = 300);

/* t[j], j the same in all 32 lanes: lane l's word j is at region + (j * 32 + l) * 4, so a warp
   covers 128 contiguous bytes, 128-aligned: 4 sectors, store and load. 16 of each per
   thread, not forwarded: 32 warps x 16 = 512 warp instructions each. in[i], held in a register
   across the stores to t (local memory aliases no global array), is loaded once a thread. */
Test(e2e_local, an_array_indexed_by_the_loop_counter_is_coalesced_local_memory) {
  cJSON *r = build_run_tk1(per_thread_array(""));
  cJSON *k = kernel_named(r, "loc");
  assert_local(k, 9, "store", "t", "coalesced", 128);
  assert_local(k, 11, "load", "t", "coalesced", 128);
  cr_assert_float_eq(num(site(k, 9, "store", "t"), "warp_instructions_traced"), 512, 1e-9);
  cr_assert_float_eq(num(site(k, 11, "load", "t"), "warp_instructions_traced"), 512, 1e-9);
  cr_assert_float_eq(num(site(k, 9, "load", "in"), "warp_instructions_traced"), 32, 1e-9);
  cJSON_Delete(r);
}

/* t[i % 16]: lane l reads word (i0 + l) % 16 (i0 a multiple of 32), 16 words of 128-byte rows,
   lanes l and l + 16 in one row at bytes 4 l and 4 (l + 16): 64 bytes apart, in two sectors, so
   16 rows x 2 = 32 sectors a warp: 1024 bytes. */
Test(e2e_local, an_array_indexed_by_the_thread_is_uncoalesced_local_memory) {
  cJSON *r = build_run_tk1(per_thread_array(""));
  assert_local(kernel_named(r, "loc"), 12, "load", "t", "uncoalesced", 1024);
  cJSON_Delete(r);
}

/* merge()'s shape: a callee's scratch array, inlined into the nest as nvcc inlines a __device__
   function. temp[k] and temp[RUN - 1 - k] are the same in every lane (k counts from 0 in each
   thread): coalesced, 4 sectors; v[start + k], 64 floats apart per lane, uncoalesced. On the TK1
   the L1 caches local memory: the one warp's 64 stores allocate 64 x 128 bytes = 8 KB in its 16 KB
   L1, so every temp load hits there and sends nothing to the L2. */
Test(e2e_local, a_callees_local_array_is_traced_as_local_memory) {
  cJSON *r = build_run_tk1(
      "#include <stdio.h>\n"
      "#define N 2048\n"
      "#define RUN 64\n"
      "float a[N];\n"
      "static void reverse_run(float *v, int start) {\n"
      "  float temp[RUN];\n"
      "  for (int k = 0; k < RUN; k++) temp[k] = v[start + k];\n"               /* line 7 */
      "  for (int k = 0; k < RUN; k++) v[start + k] = temp[RUN - 1 - k];\n"     /* line 8 */
      "}\n"
      "int main(void) {\n"
      "  for (int i = 0; i < N; i++) a[i] = i % 13;\n"
      "#pragma cgpredict kernel name(runs) dims(1) block(32)\n"
      "  for (int r = 0; r < N / RUN; r++)\n"
      "    reverse_run(a, r * RUN);\n"
      "  double s = 0; for (int i = 0; i < N; i++) s += a[i] * (i % 5);\n"
      "  printf(\"%g\\n\", s);\n"
      "  return 0;\n"
      "}\n");
  cJSON *k = kernel_named(r, "runs");
  assert_local(k, 7, "store", "temp", "coalesced", 128);
  assert_local(k, 8, "load", "temp", "coalesced", 128);
  cr_assert_float_eq(num(site(k, 8, "load", "temp"), "l1_hit_rate"), 1.0, 1e-9);
  cr_assert_float_eq(num(site(k, 8, "load", "temp"), "transactions_per_warp"), 0, 1e-9);
  cr_assert_null(cJSON_GetObjectItem(site(k, 7, "load", "v"), "l1_hit_rate"), "global loads skip the TK1's L1");
  cr_assert_str_eq(cJSON_GetObjectItem(site(k, 7, "load", "v"), "class")->valuestring, "uncoalesced");
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "parallel_safe")));
  cJSON_Delete(r);
}

/* With noalias the sites are the compiled loads and stores, t's among them: before, at the one
   CPU stack address every thread used, five dependences between threads, and t's 64 bytes
   counted as data the host copies. Now: parallel, no dependence, and the host copies in[] and
   out[] alone (1024 floats each). */
Test(e2e_local, local_memory_makes_no_dependence_and_no_host_copy) {
  cJSON *r = build_run_tk1(per_thread_array(" noalias"));
  cJSON *k = kernel_named(r, "loc");
  char *deps = cJSON_PrintUnformatted(cJSON_GetObjectItem(k, "dependences"));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "parallel_safe")), "dependences: %s", deps);
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "dependences")), 0, "dependences: %s", deps);
  free(deps);
  assert_local(k, 9, "store", "t", "coalesced", 128);
  cJSON *host = cJSON_GetObjectItem(k, "host");
  cr_assert_float_eq(num(host, "bytes_read"), 1024 * 4, 1e-9);
  cr_assert_float_eq(num(host, "bytes_written"), 1024 * 4, 1e-9);
  cJSON_Delete(r);
}

/* A loop that reaches the thread's local memory is traced at every iteration, not sampled inside
   the thread (docs/pipeline.md, "Sampling inside a thread"): its array is reused over the whole
   loop, against the L1 every thread's array shares, and windows of 128 of its iterations saw a
   fraction of that working set. MachSuite's merge_pass (8 KB `temp` a thread) was predicted 41 %
   faster than `full` mode's 5.89 ms; the same now. Here each thread fills 1 KB of its own array in
   a loop of 2048 iterations and reads it back: before, 1792 of each loop's iterations were skipped
   (here the prediction stayed within 1 % of `full`'s all the same: 1 KB a thread is small). */
Test(e2e_local, a_loop_that_reaches_local_memory_is_traced_whole) {
  double ms[2];
  cJSON *reports[2];
  build_run_and_full_tk1("#include <stdio.h>\n"
                    "#define N 4096\n"
                    "int in[N], out[N];\n"
                    "int main(void) {\n"
                    "  for (int i = 0; i < N; i++) in[i] = i % 97;\n"
                    "#pragma cgpredict kernel name(wl) dims(1) block(128)\n"
                    "  for (int i = 0; i < N; i++) {\n"
                    "    int t[256];\n"
                    "    for (int j = 0; j < 2048; j++) t[(j * 37 + i) & 255] = in[i] + j;\n"
                    "    int s = 0;\n"
                    "    for (int j = 0; j < 2048; j++) s += t[(j * 11) & 255];\n"
                    "    out[i] = s;\n"
                    "  }\n"
                    "  printf(\"%d\\n\", out[77]);\n"
                    "  return 0;\n"
                    "}\n", reports);
  for (int f = 0; f < 2; f++) {
    cJSON *r = reports[f];
    cJSON *k = kernel_named(r, "wl");
    if (!f) {
      cJSON *skipped = cJSON_GetObjectItem(k, "loop_iterations_skipped");
      cr_expect(!skipped || skipped->valuedouble == 0, "%g iterations skipped", skipped ? skipped->valuedouble : 0);
    }
    ms[f] = num(prediction(k, "jetson-tk1"), "time_ms");
    cJSON_Delete(r);
  }
  cr_expect(fabs(ms[0] - ms[1]) <= 0.01 * ms[1], "run %g ms, full %g ms", ms[0], ms[1]);
}
