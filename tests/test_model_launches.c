/* The launches a sample stands for, each at its own grid (docs/model.md 4d). tests/test_model.c's
   case 3 on the Jetson TK1: 8 blocks of 256 threads, 1 coalesced load, 1000 instructions per warp:
   166 + 500 x 64 = 32166 cycles. The same per-warp stats on 4 blocks (32 warps, one round on the
   one SM): N = 32, MWP 41.5, CWP 1.332, case 3 again: 166 + 500 x 32 = 16166 (the floor, 32 x 150
   = 4800, does not bind). */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_model.h"
#include "cgp_report.h"

static cJSON *one_sample_report(const cgp_kernel_stats *k, double weight, const char *grids) {
  cJSON *r = cgp_report_new("test"), *kern = cJSON_CreateObject(), *s = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_GetObjectItem(r, "kernels"), kern);
  cJSON_AddStringToObject(kern, "name", "k");
  cJSON_AddItemToArray(cJSON_AddArrayToObject(kern, "samples"), s);
  cJSON_AddNumberToObject(s, "launch", 0);
  cJSON_AddNumberToObject(s, "weight", weight);
  cJSON_AddNumberToObject(s, "blocks", (double)k->blocks);
  cJSON_AddNumberToObject(s, "total_warps", (double)k->total_warps);
  if (grids) cJSON_AddItemToObject(s, "launch_grids", cJSON_Parse(grids));
  cJSON_AddItemToObject(cJSON_AddObjectToObject(s, "analysis"), "jetson-tk1", cgp_report_stats_to_json(k));
  return r;
}

static double predicted_cycles(cJSON *r, const cgp_device *d) {
  char err[512] = "";
  cr_assert_eq(cgp_report_predict(r, d, 1, err, sizeof err), 0, "%s", err);
  cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0),
                                                    "predictions"), 0);
  return cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cycles"));
}

Test(model_launches, each_launch_is_predicted_at_its_own_grid) {
  cgp_device tk1;
  char err[512];
  cr_assert_eq(cgp_device_load_file(CGP_SOURCE_DIR "/devices/jetson-tk1.json", &tk1, err, sizeof err), 0, "%s", err);
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64,
                        .insts = {0, 1, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                        .total_insts = 1000, .core_insts = 900};
  /* the scaling: half the grid is 4 blocks of 32 warps; a grid too small to round keeps 1 of each */
  cgp_kernel_stats half = cgp_stats_scaled(&k, 0.5), tiny = cgp_stats_scaled(&k, 0.01);
  cr_expect_eq(half.blocks, 4);
  cr_expect_eq(half.total_warps, 32);
  cr_expect_float_eq(half.total_insts, 1000, 1e-12);
  cr_expect_eq(tiny.blocks, 1);
  cr_expect_eq(tiny.total_warps, 1);
  /* the sample's launch and two launches of 4 blocks: 32166 + 2 x 16166 */
  cJSON *r = one_sample_report(&k, 3, "[[8, 1], [4, 2]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 64498, 1e-6);
  cJSON_Delete(r);
  /* without launch_grids (an older report): weight x the sample's, 3 x 32166 */
  r = one_sample_report(&k, 3, NULL);
  cr_expect_float_eq(predicted_cycles(r, &tk1), 96498, 1e-6);
  cJSON_Delete(r);
  /* the same grid three times is the old weight x the sample's, whatever the entries' split */
  r = one_sample_report(&k, 3, "[[8, 2], [8, 1]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 96498, 1e-6);
  cJSON_Delete(r);
  /* a damaged entry is refused */
  r = one_sample_report(&k, 3, "[[0, 2]]");
  cr_expect_neq(cgp_report_predict(r, &tk1, 1, err, sizeof err), 0);
  cr_expect(strstr(err, "launch_grids"), "%s", err);
  cJSON_Delete(r);
}
