/* End-to-end: `cgpredict report FILE --hls csynth.xml` prints the HLS tool's own numbers beside
   the GPU predictions, says they come from HLS, and names the kernel they are for. */
#include "e2e_util.h"

TestSuite(e2e_hls, .init = setup, .fini = teardown, .timeout = 300);

static const char *fir_src =
  "#include <stdio.h>\n"
  "#define N 4096\n"
  "static int x[N + 11], y[N], c[11];\n"
  "int main(void) {\n"
  "  for (int i = 0; i < N + 11; i++) x[i] = i % 7;\n"
  "  for (int t = 0; t < 11; t++) c[t] = t - 5;\n"
  "#pragma cgpredict kernel name(fir)\n"
  "  for (int i = 0; i < N; i++) {\n"
  "    int acc = 0;\n"
  "    for (int t = 0; t < 11; t++) acc += x[i + t] * c[t];\n"
  "    y[i] = acc;\n"
  "  }\n"
  "  printf(\"%d\\n\", y[17]);\n"
  "  return 0;\n"
  "}\n";

Test(e2e_hls, report_with_hls_prints_the_hls_numbers_for_the_kernel) {
  write_file("fir.c", fir_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o fir fir.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_REPORT=r.json ./fir"), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("%s report r.json --hls %s/tests/data/hls/fir_csynth.xml", CGP_DRIVER, CGP_SOURCE_DIR), 0, "%s",
               read_file("err.txt"));
  const char *out = read_file("out.txt");
  cr_expect(strstr(out, "jetson-tk1"), "the GPU predictions are still there: %s", out);
  cr_expect(strstr(out, "FPGA, from HLS (Vivado/Vitis HLS's own synthesis report, not cgpredict's estimate)"), "%s", out);
  cr_expect(strstr(out, "top function fir: kernel 'fir' of r.json"), "%s", out);
  cr_expect(strstr(out, "latency (cycles): worst 66, best 66, average 66; worst = 0.00066 ms at the target clock"), "%s",
            out);
  cr_expect(strstr(out, "interval (cycles): min 67, max 67"), "%s", out);
  cr_expect(strstr(out, "MAC                                    11             44            4      -      -"), "%s", out);
  cr_expect(strstr(out, "BRAM_18K 0/280 DSP 3/220 FF 190/106400 LUT 240/53200"), "%s", out);
  /* the quirks: unknown worst case said so; a broken report refused naming file and line */
  cr_assert_eq(sh("%s report r.json --hls %s/tests/data/hls/quirks_csynth.xml", CGP_DRIVER, CGP_SOURCE_DIR), 0, "%s",
               read_file("err.txt"));
  out = read_file("out.txt");
  cr_expect(strstr(out, "no kernel of r.json is named 'spmv'"), "%s", out);
  cr_expect(strstr(out, "worst ?, best 3, average ? (HLS could not bound it"), "%s", out);
  cr_expect(strstr(out, "    nonzeros                         1~1024         9~2055            9      2      9"), "%s", out);
  cr_expect_eq(sh("%s report r.json --hls %s/tests/data/hls/bad_number_csynth.xml", CGP_DRIVER, CGP_SOURCE_DIR), 1);
  cr_expect(strstr(read_file("err.txt"), "bad_number_csynth.xml:6: <Worst-caseLatency>: '12a'"), "%s", read_file("err.txt"));
  /* in place of our estimate: the FPGA of the report's part (the zc702: xc7z020clg484-1) gets HLS's
     66 cycles at the met 10 ns target, 0.00066 ms, said so; the GPU-or-FPGA choice uses it */
  cr_assert_eq(sh("%s report r.json --device jetson-tk1,zc702 --json --hls %s/tests/data/hls/fir_csynth.xml > h.json",
                  CGP_DRIVER, CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cJSON *r = report("h.json");
  cJSON *p = prediction(kernel_named(r, "fir"), "zc702");
  cr_expect_float_eq(num(p, "time_ms"), 0.00066, 1e-12);
  cr_expect_float_eq(num(p, "cycles"), 66, 1e-12);
  cr_expect_not_null(cJSON_GetObjectItem(p, "from_hls"));
  cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(p, "note")), "in place of cgpredict's estimate"));
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(kernel_named(r, "fir"), "predictions")), 2);
  cJSON_Delete(r);
  cr_assert_eq(sh("%s report r.json --device jetson-tk1,zc702 --hls %s/tests/data/hls/fir_csynth.xml", CGP_DRIVER,
                  CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("out.txt"), "GPU or FPGA: the FPGA, zc702 0.00066 ms"), "%s", read_file("out.txt"));
  /* no FPGA of that part in the report: a new entry named by the part */
  cr_assert_eq(sh("%s report r.json --json --hls %s/tests/data/hls/fir_csynth.xml > g.json", CGP_DRIVER,
                  CGP_SOURCE_DIR), 0, "%s", read_file("err.txt"));
  r = report("g.json");
  cr_expect_not_null(prediction(kernel_named(r, "fir"), "hls xc7z020clg484-1"));
  cJSON_Delete(r);
}

/* Issue 28's own example, CGPREDICT_DEVICE=jetson-tk1,zc702: the FPGA is predicted beside the GPU
   (docs/model.md 11.14); FPGA devices alone disable the run with a message that says why.
   `report --device` takes an FPGA alone: the report holds the nest and the bytes. */
Test(e2e_hls, fpga_devices_are_predicted_beside_the_gpu_and_alone_refused_by_a_run) {
  write_file("fir.c", fir_src);
  cr_assert_eq(sh("%s build -- cc -O2 -o fir fir.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=jetson-tk1,zc702 CGPREDICT_REPORT=r.json ./fir"), 0, "%s", read_file("err.txt"));
  cJSON *r = report("r.json");
  cJSON *k = kernel_named(r, "fir");
  cr_assert_not_null(k);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(k, "predictions")), 2);
  cr_expect_not_null(prediction(k, "jetson-tk1"));
  cr_expect_gt(num(prediction(k, "zc702"), "time_ms"), 0);
  cJSON_Delete(r);
  cr_expect_eq(sh("CGPREDICT_DEVICE=zc702 CGPREDICT_REPORT=s.json ./fir"), 0, "the program runs on");
  cr_expect(strstr(read_file("err.txt"), "CGPREDICT_DEVICE names FPGA devices only"), "%s", read_file("err.txt"));
  cr_expect_neq(sh("test -e s.json"), 0, "no report without a GPU");
  cr_expect_eq(sh("%s report r.json --device zc702,jetson-tk1", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("out.txt"), "jetson-tk1"), "%s", read_file("out.txt"));
  cr_expect(strstr(read_file("out.txt"), "GPU or FPGA:"), "%s", read_file("out.txt"));
  cr_expect_eq(sh("%s report r.json --device zc702", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  cr_expect(strstr(read_file("out.txt"), "zc702"), "%s", read_file("out.txt"));
}
