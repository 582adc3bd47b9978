/* End-to-end: the offload decision (docs/model.md section 12) from a real run. The bytes a port
   copies come from the traced sample carried to the whole grid and loop, and equal the arrays'
   sizes; the CPU time is that of the threads the runtime let run untraced; each prediction's and
   the program's decision follow the equation from those. Devices: the TK1 (shared DRAM: no copy)
   and devs/pcie.json, the TK1 behind a PCIe link of 10 GB/s pinned, 5 GB/s pageable to the device
   and 8 GB/s back, 10 us a copy (the same warps and windows as the TK1, so a run traces little). */
#include "e2e_util.h"

#include <math.h>

TestSuite(e2e_offload, .init = setup, .fini = teardown, .timeout = 600);

static void make_pcie_device(void) {
  cr_assert_eq(sh("mkdir -p devs && sed -e 's/\"name\": \"jetson-tk1\"/\"name\": \"pcie\"/' "
                  "-e '/\"host_link\": {/,/}/c\\  \"host_link\": {\"kind\": \"pcie\", \"bandwidth_bytes_per_s\": 1e10, "
                  "\"latency_s\": 1e-05, \"pageable_to_device_bytes_per_s\": 5e9, \"pageable_from_device_bytes_per_s\": 8e9},' "
                  "-e 's/\"sources\": {/\"sources\": {\"host_link.pageable_to_device_bytes_per_s\": \"a test value\", "
                  "\"host_link.pageable_from_device_bytes_per_s\": \"a test value\",/' "
                  "%s/devices/jetson-tk1.json > devs/pcie.json && cp %s/devices/jetson-tk1.json devs/ && "
                  "CGPREDICT_DEVICES_DIR=devs %s devices pcie",
                  CGP_SOURCE_DIR, CGP_SOURCE_DIR, CGP_DRIVER), 0, "%s", read_file("err.txt"));
}

/* examples/gemm.c at N = n, run in `mode` on the TK1 and `pcie`. Built without the chunk functions
   (CGPREDICT_CHUNK=0, pass/cgp_chunk.c): the CPU's time is that of the nest as cgpredict compiled
   it, and jammed GEMM 512 takes about 50 ms, 1.6 times the TK1's 32 ms with its copies: a verdict
   at the line, which the CI's sanitized run once measured below 1.5. Serial, as clang-14 -O2 builds
   it, it takes about 250 ms (7.9 times): the verdicts below stay the clear cases they test. */
static cJSON *run_gemm(int n, const char *mode) {
  make_pcie_device();
  cr_assert_eq(sh("CGPREDICT_CHUNK=0 %s build -- cc -O2 -DN=%d -o gemm %s/examples/gemm.c", CGP_DRIVER, n,
                  CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_SAMPLE=%s CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,pcie "
                  "CGPREDICT_REPORT=r.json ./gemm", mode), 0, "%s", read_file("err.txt"));
  return report("r.json");
}

/* The copy equation on a prediction's own numbers: pageable 5 GB/s in, 8 GB/s out, 10 us a copy. */
static void expect_copies_follow_the_equation(cJSON *k, cJSON *o) {
  cJSON *h = cJSON_GetObjectItem(k, "host");
  double in = 1e3 * (num(h, "ranges_read") * 1e-5 + num(h, "bytes_read") / 5e9);
  double out = 1e3 * (num(h, "ranges_written") * 1e-5 + num(h, "bytes_written") / 8e9);
  cr_expect_float_eq(num(o, "to_device_ms"), in, 1e-9 * in);
  cr_expect_float_eq(num(o, "from_device_ms"), out, 1e-9 * out);
  cr_expect_float_eq(num(o, "offload_ms"), num(o, "gpu_ms") + in + out, 1e-9 * (in + out));
}

Test(e2e_offload, gemm_copies_its_three_matrices_in_and_one_out_as_sampled_in_run_mode) {
  /* N = 512: 1 MiB a matrix; the k loop (512 iterations) is sampled inside threads and the grid
     by windows, so both extrapolations are at work; A, B, C read, C written. The carry along the
     grid is linear in the block number, which a 2-D grid's rows of blocks are not quite (a
     staircase: cgp_extent_final takes the slope between batches ending rows of blocks when there
     are two, and here, 32 x 32 blocks in batches of 2 on the TK1, no batch ends a row of 16). A
     launch stops at its fifth window here (three alike past the first row, docs/pipeline.md
     "Sampling"), so the carry reaches further than with every window: measured +1.6 % read, +2.4 %
     written (+2.6 % and +3.8 % with every window; -3.6 % and -5.4 % when it stopped at the
     third); 8 % allowed */
  cJSON *r = run_gemm(512, "run");
  cJSON *k = kernel_named(r, "gemm"), *h = cJSON_GetObjectItem(k, "host");
  double mat = 512.0 * 512 * 4;
  cr_expect_float_eq(num(h, "bytes_read"), 3 * mat, 0.08 * 3 * mat, "read %.0f", num(h, "bytes_read"));
  cr_expect_float_eq(num(h, "bytes_written"), mat, 0.08 * mat, "written %.0f", num(h, "bytes_written"));
  cr_expect_eq(num(h, "ranges_read"), 3);
  cr_expect_eq(num(h, "ranges_written"), 1);
  cr_expect_eq(num(h, "threads"), 512 * 512);
  cr_expect_gt(num(h, "threads_timed"), 0);
  cr_expect_gt(num(h, "cpu_ms"), 0);
  cJSON *tk1 = cJSON_GetObjectItem(prediction(k, "jetson-tk1"), "offload");
  cr_expect_float_eq(num(tk1, "transfer_ms"), 0, 1e-12);                  /* shared DRAM */
  cJSON *pcie = cJSON_GetObjectItem(prediction(k, "pcie"), "offload");
  expect_copies_follow_the_equation(k, pcie);
  /* 134 M multiply-adds take the CPU far longer than the TK1-like GPU and 4 MB of copies */
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pcie, "verdict")), "offload");
  cr_expect_gt(num(pcie, "speedup"), 1.5);
  cJSON_Delete(r);
}

Test(e2e_offload, full_mode_counts_the_bytes_exactly_and_says_it_timed_no_cpu) {
  cJSON *r = run_gemm(128, "full");
  cJSON *k = kernel_named(r, "gemm"), *h = cJSON_GetObjectItem(k, "host");
  cr_expect_eq(num(h, "bytes_read"), 3 * 128 * 128 * 4);
  cr_expect_eq(num(h, "bytes_written"), 128 * 128 * 4);
  cr_expect_null(cJSON_GetObjectItem(h, "cpu_ms"));
  cr_expect_not_null(cJSON_GetStringValue(cJSON_GetObjectItem(h, "cpu_note")));
  cJSON *pcie = cJSON_GetObjectItem(prediction(k, "pcie"), "offload");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pcie, "verdict")), "unknown");
  cJSON_Delete(r);
}

/* Two kernels: the second reads what the first wrote, which stays on the device. */
static const char *pipeline_src =
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "#define N (1 << 22)\n"
  "int main(void) {\n"
  "  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);\n"
  "  for (int i = 0; i < N; i++) { a[i] = (float)(i % 7); b[i] = 0; c[i] = 0; }\n"
  "#pragma cgpredict kernel name(scale)\n"
  "  for (int i = 0; i < N; i++) b[i] = 2.0f * a[i];\n"
  "#pragma cgpredict kernel name(shift)\n"
  "  for (int i = 0; i < N; i++) c[i] = b[i] + 1.0f;\n"
  "  printf(\"%.1f\\n\", c[N - 1]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_offload, data_a_kernel_made_stays_on_the_device_and_copies_dominate_an_elementwise_pass) {
  make_pcie_device();
  write_file("p.c", pipeline_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o p p.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICES_DIR=devs CGPREDICT_DEVICE=jetson-tk1,pcie CGPREDICT_REPORT=r.json "
                  "./p"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  double arr = 4.0 * (1 << 22);
  /* the program copies a in, b and c out: b, made by scale, is never copied in */
  cJSON *h = cJSON_GetObjectItem(r, "host");
  cr_expect_float_eq(num(h, "bytes_read"), arr, 1e-6 * arr);
  cr_expect_float_eq(num(h, "bytes_written"), 2 * arr, 1e-6 * arr);
  /* shift alone would copy b in and c out */
  cJSON *hs = cJSON_GetObjectItem(kernel_named(r, "shift"), "host");
  cr_expect_float_eq(num(hs, "bytes_read"), arr, 1e-6 * arr);
  cr_expect_float_eq(num(hs, "bytes_written"), arr, 1e-6 * arr);
  /* 16 MB in and out at 5 and 8 GB/s (5.4 ms) against a GPU pass of about 4 MB each way */
  cJSON *o = cJSON_GetObjectItem(prediction(kernel_named(r, "shift"), "pcie"), "offload");
  expect_copies_follow_the_equation(kernel_named(r, "shift"), o);
  cr_expect_gt(num(o, "transfer_ms"), num(o, "gpu_ms"));
  /* the program's decision, one per device, on the sums */
  cJSON *prog = item_where(r, "offload", "device", "pcie");
  cr_expect_float_eq(num(prog, "gpu_ms"),
                     num(prediction(kernel_named(r, "scale"), "pcie"), "time_ms") +
                     num(prediction(kernel_named(r, "shift"), "pcie"), "time_ms"), 1e-9);
  double in = 1e3 * (1e-5 + arr / 5e9), out = 1e3 * (2e-5 + 2 * arr / 8e9);
  cr_expect_float_eq(num(prog, "transfer_ms"), in + out, 1e-6 * (in + out));
  cJSON_Delete(r);
}

/* The CPU's time of a kernel of many launches is taken on some of them (rt_launch_timed: the
   first 32, then every 16th): 200 launches of 64 threads (one block, traced whole when traced)
   time at most 32 + 11 of them, and at least those less the traced ones (analysed, and the
   launches before them that warm the caches: at most two a sample). Before, every untraced
   launch was timed, two system calls each (JACOBI1D at TSTEPS = 10000: 40,000). */
static const char *many_launches_src =
    "#include <stdio.h>\n"
    "float a[64], b[64];\n"
    "int main(void) {\n"
    "  for (int i = 0; i < 64; i++) a[i] = (float)i;\n"
    "  for (int t = 0; t < 200; t++) {\n"
    "#pragma cgpredict kernel name(step) block(64)\n"
    "    for (int i = 0; i < 64; i++) b[i] = 0.5f * a[i] + (float)t;\n"
    "  }\n"
    "  printf(\"%g\\n\", (double)b[63]);\n"
    "  return 0;\n"
    "}\n";

Test(e2e_offload, a_kernel_of_many_launches_is_timed_on_some_of_them) {
  cJSON *r = build_run_tk1(many_launches_src);
  cJSON *k = kernel_named(r, "step"), *h = cJSON_GetObjectItem(k, "host");
  cr_assert_eq(num(k, "launches"), 200);
  double samples = (double)cJSON_GetArraySize(cJSON_GetObjectItem(k, "samples"));
  double timed = 32 + 11, most = 64 * timed, least = 64 * (timed - 2 * samples);
  cr_expect_leq(num(h, "threads_timed"), most, "%g threads timed", num(h, "threads_timed"));
  cr_expect_geq(num(h, "threads_timed"), least, "%g threads timed (%g samples)", num(h, "threads_timed"), samples);
  cr_expect_gt(num(h, "cpu_ms"), 0);
  cJSON_Delete(r);
}
