/* Predictions move the right way between the shipped devices: a fixed GEMM-like launch is faster
   on the Jetson AGX Orin than on the TK1 by about what their SM counts, clocks and DRAM
   bandwidths say; FP64 work costs a Jetson far more, relative to FP32 work, than an H100. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "cgp_model.h"

static cgp_device load(const char *name) {
  char path[512], err[1024] = "";
  snprintf(path, sizeof path, "%s/devices/%s.json", CGP_SOURCE_DIR, name);
  cgp_device d;
  cr_assert_eq(cgp_device_load_file(path, &d, err, sizeof err), 0, "%s", err);
  return d;
}

static double predict_ms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p) {
  char err[512] = "";
  cr_assert_eq(cgp_predict(d, k, p, err, sizeof err), 0, "%s: %s", d->name, err);
  return p->time_ms;
}

/* GEMM 1024 in 32x32 blocks, C kept in a register: per warp 1024 constant loads of A (1 transaction,
   1/16 to DRAM) and 1024 coalesced loads of B (2 transactions, 2/32 to DRAM), 6 instructions a k
   step, two of them FP32 (mul, fma), one store of C at the end. */
static const cgp_kernel_stats gemm = {
  .blocks = 1024, .threads_per_block = 1024, .total_warps = 32768,
  .insts = {1024, 1024, 0}, .trans_pw = {1, 2, 0}, .dram_pw = {1.0 / 16, 2.0 / 32, 0},
  .total_insts = 6 * 1024, .core_insts = 4 * 1024, .fp32_insts = 2 * 1024, .int_insts = 2 * 1024,
  .st_insts = 1, .st_trans_pw = 2, .st_dram_pw = 2,
};

Test(across_devices, gemm_is_faster_on_orin_by_about_its_resources) {
  cgp_device tk1 = load("jetson-tk1"), orin = load("jetson-agx-orin");
  cgp_prediction pt, po;
  double t_tk1 = predict_ms(&tk1, &gemm, &pt), t_orin = predict_ms(&orin, &gemm, &po);
  double compute = (orin.no_sm * orin.freq_hz) / (tk1.no_sm * tk1.freq_hz);       /* 24.4 */
  double bandwidth = orin.dram_bandwidth_bytes_per_s / tk1.dram_bandwidth_bytes_per_s; /* 13.7 */
  double speedup = t_tk1 / t_orin;
  cr_log_info("GEMM 1024: TK1 %.2f ms (%s), Orin %.3f ms (%s): %.1fx; SMs x clock %.1fx, DRAM %.1fx", t_tk1,
              pt.bound, t_orin, po.bound, speedup, compute, bandwidth);
  cr_expect(t_orin < t_tk1, "Orin %g ms is not faster than the TK1's %g ms", t_orin, t_tk1);
  cr_expect(speedup > 0.5 * fmin(compute, bandwidth) && speedup < 2 * fmax(compute, bandwidth),
            "speedup %.2f outside [%.1f, %.1f]", speedup, 0.5 * fmin(compute, bandwidth), 2 * fmax(compute, bandwidth));
}

/* The same pure-arithmetic launch with 800 of its 1000 instructions in FP32, then in FP64. */
static double fp64_over_fp32(const char *name) {
  cgp_device d = load(name);
  cgp_kernel_stats k = {.blocks = 4096, .threads_per_block = 256, .total_warps = 4096 * 8, .total_insts = 1000,
                        .core_insts = 800, .fp32_insts = 800};
  cgp_prediction p;
  double t32 = predict_ms(&d, &k, &p);
  k.fp32_insts = 0;
  k.fp64_insts = 800;
  double t64 = predict_ms(&d, &k, &p);
  cr_log_info("%s: FP64 / FP32 time %.2f (bound %s)", name, t64 / t32, p.bound);
  return t64 / t32;
}

Test(across_devices, fp64_is_far_slower_on_jetsons_than_on_h100) {
  double h100 = fp64_over_fp32("h100-sxm5");
  cr_expect(h100 < 3, "H100 runs FP64 at half its FP32 rate: slowdown %g", h100);
  const char *jetsons[] = {"jetson-tk1", "jetson-nano", "jetson-tx2", "jetson-agx-orin"};
  for (size_t i = 0; i < sizeof jetsons / sizeof *jetsons; i++) {
    double s = fp64_over_fp32(jetsons[i]);
    cr_expect(s > 3 * h100, "%s: FP64 slowdown %.2f is not far above the H100's %.2f", jetsons[i], s, h100);
  }
}

Test(across_devices, every_shipped_device_predicts_the_gemm) {
  char **names;
  unsetenv("CGPREDICT_DEVICES_DIR");
  size_t n = cgp_device_all_names(&names);
  cr_assert_geq(n, 11);
  for (size_t i = 0; i < n; i++) {
    cgp_device d;
    char err[1024];
    cr_assert_eq(cgp_device_find(names[i], &d, err, sizeof err), 0, "%s", err);
    cgp_prediction p;
    double t = predict_ms(&d, &gemm, &p);
    cr_expect(isfinite(t) && t > 0, "%s: %g ms", names[i], t);
    cr_log_info("%-18s GEMM 1024 %10.3f ms  bound %s  N %u B %u batch %llu", names[i], t, p.bound, p.N, p.B,
                (unsigned long long)p.batch);
  }
  cgp_device_names_free(names, n);
}
