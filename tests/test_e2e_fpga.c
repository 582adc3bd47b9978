/* End-to-end: FPGA predictions in a run's report (docs/model.md 11.14). `cgpredict build` carries
   each nest's FPGA view in its descriptor; a run with an FPGA in CGPREDICT_DEVICE estimates it with
   the trip counts and bytes the run measured, beside the GPU; `cgpredict report` re-predicts it,
   for other FPGAs too; a nest the FPGA side cannot take is said, never a failed build. */
#include "e2e_util.h"

TestSuite(e2e_fpga, .init = setup, .fini = teardown, .timeout = 600);

static const char *const SRC =
  "#include <math.h>\n"
  "#include <stdio.h>\n"
  "#include <stdlib.h>\n"
  "static void scale(int n, const float *a, float *b) {\n"
  "#pragma cgpredict kernel name(scale) dims(1) block(256)\n"
  "  for (int i = 0; i < n; i++) b[i] = 3.0f * a[i];\n"
  "}\n"
  "static void waves(int n, const float *a, float *b) {\n"
  "#pragma cgpredict kernel name(waves) dims(1) block(256)\n"
  "  for (int i = 0; i < n; i++) b[i] = sinf(a[i]);\n"
  "}\n"
  "int main(int argc, char **argv) {\n"
  "  int n = argc > 1 ? atoi(argv[1]) : 4096;\n"
  "  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);\n"
  "  for (int i = 0; i < n; i++) a[i] = i;\n"
  "  scale(n, a, b);\n"
  "  waves(n, b, a);\n"
  "  printf(\"%g\\n\", a[n - 1]);\n"
  "  free(a);\n"
  "  free(b);\n"
  "  return 0;\n"
  "}\n";

/* The kernel named in a JSON array of per-kernel objects. */
static cJSON *entry(cJSON *arr, const char *name) {
  cJSON *e;
  cJSON_ArrayForEach(e, arr)
    if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "kernel")), name)) return e;
  cr_assert_fail("no kernel %s", name);
  return NULL;
}

/* The device's prediction, or NULL. */
static cJSON *maybe_prediction(cJSON *k, const char *dev) {
  cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItem(k, "predictions"))
    if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "device")), dev)) return p;
  return NULL;
}

static cJSON *build_and_run(const char *devices) {
  write_file("k.c", SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o k k.c -lm", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=%s CGPREDICT_REPORT=r.json ./k 4096", devices), 0, "%s",
               read_file("err.txt"));
  return report("r.json");
}

/* scale on the ZC702: n = 4096 known only at run time, the mapped loop's trips from the run; the
   search's design; the trace's 16384 bytes read and written, one piece each: 2 x (64 + 16384 / 8)
   = 4224 off-chip cycles; the data fits the block RAM: compute + copies. The same design and
   compute cycles as `cgpredict compare` gives from the source with the report's trips. */
Test(e2e_fpga, a_run_predicts_the_fpga_beside_the_gpu_from_its_own_trips_and_bytes) {
  cJSON *r = build_and_run("jetson-tk1,zc702");
  cJSON *k = kernel_named(r, "scale");
  cr_assert_not_null(cJSON_GetObjectItem(k, "fpga_nest"));
  cJSON *gpu = prediction(k, "jetson-tk1"), *p = prediction(k, "zc702");
  cr_assert_not_null(gpu);
  cr_assert_not_null(p);
  cr_expect_null(cJSON_GetObjectItem(gpu, "kind"));
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "kind")), "fpga");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "trips_from_run")), "i 4096");
  cJSON *off = cJSON_GetObjectItem(p, "offchip"), *est = cJSON_GetObjectItem(p, "estimate");
  cr_expect_eq(num(off, "bytes_read"), 16384);
  cr_expect_eq(num(off, "bytes_written"), 16384);
  cr_expect_eq(num(off, "cycles"), 4224);
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(off, "buffered")));
  cr_expect_float_eq(num(p, "cycles"), num(est, "cycles") + 4224, 1e-9);
  cr_expect_float_eq(num(p, "time_ms"), num(p, "cycles") / 1e5, 1e-12);          /* 100 MHz */
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(est, "design"), "from")), "search");
  /* compare stops at a kernel it cannot estimate (waves): scale alone, from a copy without waves */
  cr_assert_eq(sh("sed '8,11d;17d' k.c > s.c && %s compare r.json s.c --json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cJSON *cmp = cJSON_Parse(read_file("out.txt"));
  cr_assert_not_null(cmp);
  cJSON *c0 = entry(cmp, "scale");
  cJSON *cf = cJSON_GetObjectItem(c0, "fpga");
  cr_expect_float_eq(num(cf, "cycles"), num(est, "cycles"), 1e-9);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cf, "design")), cJSON_GetStringValue(cJSON_GetObjectItem(p, "design")));
  /* the GPU side of compare lists the GPU only */
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "gpu")), 1);
  cJSON_Delete(cmp);
  /* waves calls sinf, which no HLS operator table holds: a note, no time; the GPU predicts it */
  cJSON *w = kernel_named(r, "waves"), *wp = prediction(w, "zc702");
  cr_expect_null(cJSON_GetObjectItem(wp, "time_ms"));
  cr_expect_not_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(wp, "note")), "no FPGA estimate"),
                     "%s", cJSON_GetStringValue(cJSON_GetObjectItem(wp, "note")));
  cr_expect_gt(num(prediction(w, "jetson-tk1"), "time_ms"), 0);
  cJSON_Delete(r);
}

/* The summary names the faster kind per kernel; `cgpredict report` re-predicts the FPGA as the run
   did, and --device takes another FPGA (the ZCU102) without a trace. */
Test(e2e_fpga, the_summary_chooses_and_report_repredicts_other_fpgas) {
  cJSON *r = build_and_run("jetson-tk1,zc702");
  double ms = num(prediction(kernel_named(r, "scale"), "zc702"), "time_ms");
  cr_assert_eq(sh("%s report r.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  char *out = read_file("out.txt");
  cr_expect_not_null(strstr(out, "GPU or FPGA: the GPU, jetson-tk1"), "%s", out);
  cr_expect_not_null(strstr(out, "copied in, then out"), "%s", out);
  cr_assert_eq(sh("%s report r.json --json > again.json", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cJSON *again = report("again.json");
  cr_expect_float_eq(num(prediction(kernel_named(again, "scale"), "zc702"), "time_ms"), ms, 1e-12);
  cJSON_Delete(again);
  cr_assert_eq(sh("%s report r.json --device jetson-tk1,zcu102 --json > other.json", CGP_DRIVER), 0, "%s",
               read_file("err.txt"));
  cJSON *other = report("other.json");
  cJSON *z = prediction(kernel_named(other, "scale"), "zcu102");
  cr_assert_not_null(z);
  cr_expect_null(maybe_prediction(kernel_named(other, "scale"), "zc702"));
  /* 128-bit ports: 16 bytes a cycle: 2 x (64 + 1024) off-chip */
  cr_expect_eq(num(cJSON_GetObjectItem(z, "offchip"), "cycles"), 2176);
  cJSON_Delete(other);
  cJSON_Delete(r);
}

/* FPGAs alone: the run needs a GPU to trace as one, and says so. */
Test(e2e_fpga, fpga_devices_alone_are_refused_with_the_reason) {
  write_file("k.c", SRC);
  cr_assert_eq(sh("%s build -- cc -O2 -o k k.c -lm", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=zc702 CGPREDICT_REPORT=r.json ./k 64"), 0);
  cr_expect_not_null(strstr(read_file("err.txt"), "names FPGA devices only: name a GPU too"), "%s", read_file("err.txt"));
  cr_expect_null(read_file("r.json"));
}
