/* The launches a sample stands for, each at its own grid (docs/model.md 4d). tests/test_model.c's
   case 3 on the Jetson TK1: 8 blocks of 256 threads, 1 coalesced load, 1000 instructions per warp:
   166 + 500 x 64 = 32166 cycles. The same per-warp stats on 4 blocks (32 warps, one round on the
   one SM): N = 32, MWP 41.5, CWP 1.332, case 3 again: 166 + 500 x 32 = 16166 (the floor, 32 x 150
   = 4800, does not bind). */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_model.h"
#include "cgp_report.h"

/* A sample of stats *k at launch `launch` standing for `weight` launches, its launch_grids
   `grids` (NULL: none, as a report of schema 1.4 or older), appended to the report's one kernel. */
static void add_sample(cJSON *r, const cgp_kernel_stats *k, double launch, double weight, const char *grids) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), "samples"), s);
  cJSON_AddNumberToObject(s, "launch", launch);
  cJSON_AddNumberToObject(s, "weight", weight);
  cJSON_AddNumberToObject(s, "blocks", (double)k->blocks);
  cJSON_AddNumberToObject(s, "total_warps", (double)k->total_warps);
  if (grids) cJSON_AddItemToObject(s, "launch_grids", cJSON_Parse(grids));
  cJSON_AddItemToObject(cJSON_AddObjectToObject(s, "analysis"), "jetson-tk1", cgp_report_stats_to_json(k));
}

/* A report of one kernel "k" with one sample, at launch `launch`. */
static cJSON *report_at(const cgp_kernel_stats *k, double launch, double weight, const char *grids) {
  cJSON *r = cgp_report_new("test"), *kern = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_GetObjectItem(r, "kernels"), kern);
  cJSON_AddStringToObject(kern, "name", "k");
  cJSON_AddArrayToObject(kern, "samples");
  add_sample(r, k, launch, weight, grids);
  return r;
}

static cJSON *one_sample_report(const cgp_kernel_stats *k, double weight, const char *grids) {
  return report_at(k, 0, weight, grids);
}

/* The Jetson TK1, and case 3's per-warp stats (header). */
static const cgp_kernel_stats case3 = {.blocks = 8, .threads_per_block = 256, .total_warps = 64,
                                       .insts = {0, 1, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                                       .total_insts = 1000, .core_insts = 900};

static cgp_device tk1_device(void) {
  cgp_device tk1;
  char err[512];
  cr_assert_eq(cgp_device_load_file(CGP_SOURCE_DIR "/devices/jetson-tk1.json", &tk1, err, sizeof err), 0, "%s", err);
  return tk1;
}

static double predicted_cycles(cJSON *r, const cgp_device *d) {
  char err[512] = "";
  cr_assert_eq(cgp_report_predict(r, d, 1, err, sizeof err), 0, "%s", err);
  cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0),
                                                    "predictions"), 0);
  return cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cycles"));
}

Test(model_launches, each_launch_is_predicted_at_its_own_grid) {
  cgp_device tk1 = tk1_device();
  char err[512];
  cgp_kernel_stats k = case3;
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

/* Launches between two analysed ones drift from the first's behaviour to the second's (a column k
   the launch number moves): launch 64 (case 3, 32166 cycles) stands for launches 64 .. 67, launch
   68 (twice the instructions: 166 + 1000 x 64 = 64166) for itself, 4 = 64 / 16 launches on, as the
   runtime spaces launches that differ. Launch 64 + d takes (1 - d/4) of launch 64's and d/4 of
   launch 68's: the run of 4 at its mean place 1.5, 4 x (0.625 x 32166 + 0.375 x 64166) = 176664,
   plus 64166: 240830, where the step (each launch as the analysed one before it) gave 4 x 32166 +
   64166 = 192830, as it still does where the analysed launches' times turn (a spike) or where they
   lie far apart (the doubling schedule). */
Test(model_launches, launches_between_two_close_analysed_ones_are_interpolated) {
  cgp_device tk1 = tk1_device();
  cgp_kernel_stats k = case3, k2 = case3;
  k2.total_insts = 2000;
  k2.core_insts = 1800;
  cJSON *r = one_sample_report(&k2, 1, "[[8, 1]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 64166, 1e-6, "launch 68 alone");
  cJSON_Delete(r);
  r = report_at(&k, 64, 4, "[[8, 4]]");
  add_sample(r, &k2, 68, 1, "[[8, 1]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 240830, 1e-6);
  cJSON_Delete(r);
  /* far apart: launches 7 and 15 (the doubling schedule), the step: 8 x 32166 + 64166 = 321494 */
  r = report_at(&k, 7, 8, "[[8, 8]]");
  add_sample(r, &k2, 15, 1, "[[8, 1]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 321494, 1e-6);
  cJSON_Delete(r);
  /* a spike: launch 136 unlike launches 128 and 140 (the times turn), the launches between each the
     analysed one before them: 8 x 32166 + 4 x 64166 + 32166 = 546158 (interpolated, they would
     rise to the spike and fall back: 8 x 46166 + 4 x 52166 + 32166 = 610158) */
  r = report_at(&k, 128, 8, "[[8, 8]]");
  add_sample(r, &k2, 136, 4, "[[8, 4]]");
  add_sample(r, &k, 140, 1, "[[8, 1]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 546158, 1e-6);
  cJSON_Delete(r);
  /* two launches in a row: nothing between them, each for itself */
  r = one_sample_report(&k, 1, "[[8, 1]]");
  add_sample(r, &k2, 1, 1, "[[8, 1]]");
  cr_expect_float_eq(predicted_cycles(r, &tk1), 32166 + 64166, 1e-6);
  cJSON_Delete(r);
}

/* A sample whose L2 was not known names the later analysed launch that stands in for it
   (`stand_in`, docs/model.md 5b): it is predicted from that one's analysis. Launch 0 (case 3 with
   twice the instructions, as a launch whose loads all missed might be: 64166 cycles) stands in on
   launch 1 (case 3: 32166), each standing for 1 launch: 2 x 32166; without the name 64166 +
   32166; a name no later sample has changes nothing. */
Test(model_launches, a_sample_whose_l2_was_not_known_takes_its_stand_ins_analysis) {
  cgp_device tk1 = tk1_device();
  cgp_kernel_stats k = case3, cold = case3;
  cold.total_insts = 2000;
  cold.core_insts = 1800;
  for (int c = 0; c < 3; c++) {
    cJSON *r = report_at(&cold, 0, 1, "[[8, 1]]");
    add_sample(r, &k, 1, 1, "[[8, 1]]");
    cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0),
                                                       "samples"), 0);
    if (c > 0) cJSON_AddStringToObject(s0, "after_untraced", "other");
    if (c == 1) cJSON_AddNumberToObject(s0, "stand_in", 1);
    if (c == 2) cJSON_AddNumberToObject(s0, "stand_in", 7);
    double want = c == 1 ? 2 * 32166 : 64166 + 32166;
    cr_expect_float_eq(predicted_cycles(r, &tk1), want, 1e-6, "case %d", c);
    cJSON_Delete(r);
  }
}

/* A kernel the run lost every warp of (out of memory before the first was kept: partial, and its
   one sample of 64 warps analysed none, or no sample though launched) has no time on the device,
   and says why, where it read 0 ms as if it took none; the summary prints "?" and the note, and
   `report` finds the device without a sample (it re-predicted for none, printing no row). A launch
   of an empty grid (a sample of no warp) or a partial kernel with warps analysed keeps its time. */
Test(model_launches, a_kernel_with_no_warp_analysed_has_no_time) {
  cgp_device tk1 = tk1_device();
  const cgp_kernel_stats none = {.threads_per_block = 256};
  for (int c = 0; c < 4; c++) {
    cJSON *r = one_sample_report(c == 3 ? &case3 : &none, 1, NULL);
    cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), *s = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "samples"), 0);
    cJSON_AddNumberToObject(k, "launches", 1);
    cJSON_AddBoolToObject(k, "partial", 1);
    if (c == 0) cJSON_ReplaceItemInObject(s, "total_warps", cJSON_CreateNumber(64));   /* warps, none analysed */
    if (c == 1) cJSON_DeleteItemFromArray(cJSON_GetObjectItem(k, "samples"), 0);       /* no sample kept */
    char err[512] = "";
    cr_assert_eq(cgp_report_predict(r, &tk1, 1, err, sizeof err), 0, "%s", err);
    cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0);
    int timed = cgp_report_has_time(p);
    if (c <= 1) {
      cr_assert(!timed, "case %d: a time of %g ms", c, cJSON_GetNumberValue(cJSON_GetObjectItem(p, "time_ms")));
      cr_assert_not_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(p, "note")), "out of memory"), "case %d", c);
      FILE *f = tmpfile();
      cr_assert_not_null(f);
      cgp_report_print_summary(f, r, "r.json");
      char text[4096] = "";
      rewind(f);
      text[fread(text, 1, sizeof text - 1, f)] = 0;
      fclose(f);
      cr_assert_not_null(strstr(text, "  jetson-tk1               ?  no time: the run ran out of memory"), "%s", text);
      char **names;                                /* `report` re-predicts for the devices it names */
      size_t nn = cgp_report_devices(r, &names);
      cr_assert(nn == 1 && !strcmp(names[0], "jetson-tk1"), "case %d: %zu devices", c, nn);
      free(names[0]);
      free(names);
    } else {
      cr_assert(timed, "case %d: no time", c);     /* 2: an empty grid; 3: warps analysed */
    }
    cJSON_Delete(r);
  }
}
