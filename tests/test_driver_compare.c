/* `cgpredict compare REPORT.json SOURCE.c` (driver/cgp_compare.c, docs/model.md 11.12): the run's
   GPU predictions beside the FPGA estimate, and the faster one named with its numbers. The report
   is written by hand (only the fields compare reads), the source is compiled for real. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int run(char *out, size_t cap, const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

/* A report: scale's global loads are 3 uncoalesced and 1 coalesced warp instructions (75 %, 25 %),
   TK1 0.5 ms bound by memory bandwidth, a second device 0.00005 ms. The FPGA side on zc702 is the
   search's (driver_fpga/search_keeps_the_fastest_design_that_fits): 10 cycles, 0.0001 ms at
   100 MHz. The fastest GPU (0.00005 ms) wins by 2x. */
static const char report[] =
  "{\"kernels\": [{\"name\": \"scale\", \"dims\": 1, \"threads_extent\": [512, 1, 1], \"memory\": ["
  "{\"kind\": \"load\", \"class\": \"uncoalesced\", \"warp_instructions_traced\": 3},"
  "{\"kind\": \"load\", \"class\": \"coalesced\", \"warp_instructions_traced\": 1},"
  "{\"kind\": \"store\", \"class\": \"constant\", \"warp_instructions_traced\": 9}],"
  "\"predictions\": [{\"device\": \"jetson-tk1\", \"time_ms\": 0.5, \"bound\": \"memory_bandwidth\"},"
  "{\"device\": \"fast-gpu\", \"time_ms\": 0.00005, \"bound\": \"compute\"}]}]}";

Test(driver_compare, gpu_and_fpga_side_by_side_and_the_faster_named) {
  static char out[65536];
  char dir[] = "/tmp/cgp-compare.XXXXXX", src[256], rep[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(src, sizeof src, "%s/scale.c", dir);
  snprintf(rep, sizeof rep, "%s/r.json", dir);
  write_file(rep, report);
  write_file(src, "void scale(float a[256], float b[256]) {\n#pragma cgpredict kernel name(scale) dims(1)\n"
                  "  for (int i = 0; i < 256; i++)\n    b[i] = a[i] * 3.0f;\n}\n");
  cr_assert_eq(run(out, sizeof out, "%s compare %s %s 2>&1", CGP_DRIVER, rep, src), 0, "%s", out);
  cr_expect(strstr(out, "GPU jetson-tk1: 0.5 ms, bound by memory_bandwidth; global loads (warp instructions): 0 % "
                        "constant, 25 % coalesced, 75 % uncoalesced"), "%s", out);
  cr_expect(strstr(out, "FPGA zc702: 0.0001 ms (10 cycles at 100 MHz): pipeline i, unroll i x64, partition a cyclic "
                        "64, partition b cyclic 64; loop i pipelined at II 1 (bound by nothing), IL 7; DSP 192/220"),
            "%s", out);
  cr_expect(strstr(out, "choice: GPU: fast-gpu 5e-05 ms against FPGA zc702 0.0001 ms (2x)"), "%s", out);
  cr_assert_eq(run(out, sizeof out, "%s compare %s %s --json", CGP_DRIVER, rep, src), 0, "%s", out);
  cJSON *j = cJSON_Parse(out);
  cr_assert_not_null(j, "%s", out);
  cJSON *k = cJSON_GetArrayItem(j, 0);
  cr_expect_str_eq(cJSON_GetObjectItem(k, "choice")->valuestring, "gpu");
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "fpga"), "cycles")->valuedouble, 10);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "gpu_loads_pct"), "uncoalesced")->valuedouble, 75);
  cJSON_Delete(j);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* A bound known at run time: the loop the kernel maps to threads takes the run's extent (512):
   the same design, 8 windows: 7 + 7 = 14 cycles, 0.00014 ms; now the TK1's 0.5 ms is the only
   GPU and the FPGA wins by 0.5 / 0.00014 = 3571x. A report without kernels is refused. */
Test(driver_compare, a_trip_count_known_at_run_time_comes_from_the_report) {
  static char out[65536];
  char dir[] = "/tmp/cgp-compare.XXXXXX", src[256], rep[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(src, sizeof src, "%s/scale.c", dir);
  snprintf(rep, sizeof rep, "%s/r.json", dir);
  char one_gpu[sizeof report];
  strcpy(one_gpu, report);
  char *second = strstr(one_gpu, ",{\"device\": \"fast-gpu\"");
  strcpy(second, "]}]}");
  write_file(rep, one_gpu);
  write_file(src, "void scale(float *a, float *b, int n) {\n#pragma cgpredict kernel name(scale) dims(1)\n"
                  "  for (int i = 0; i < n; i++)\n    b[i] = a[i] * 3.0f;\n}\n");
  cr_assert_eq(run(out, sizeof out, "%s compare %s %s 2>&1", CGP_DRIVER, rep, src), 0, "%s", out);
  cr_expect(strstr(out, "FPGA zc702: 0.00014 ms (14 cycles at 100 MHz; trip counts of the mapped loops from the run)"),
            "%s", out);
  cr_expect(strstr(out, "choice: FPGA: zc702 0.00014 ms against GPU jetson-tk1 0.5 ms (3.57e+03x)"), "%s", out);
  write_file(rep, "{\"version\": 1}");
  cr_expect_eq(run(out, sizeof out, "%s compare %s %s 2>&1", CGP_DRIVER, rep, src), 1, "%s", out);
  cr_expect(strstr(out, "not a cgpredict report"), "%s", out);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}
