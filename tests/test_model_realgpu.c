/* What a real GPU adds to the model (docs/model.md sections 4b, 7b and 9b), each on a hand-computed
   example: the L2 capacity one kernel's data keeps, the host's cost per synchronised launch, and
   the L2's read and write bandwidth as a throughput floor. Each term is inert when its device
   field is 0 (not modelled). */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_model.h"

#define TK1_PATH CGP_SOURCE_DIR "/devices/jetson-tk1.json"
#define H100_PATH CGP_SOURCE_DIR "/devices/h100-sxm5.json"

static cgp_device tk1;

static void load_tk1(void) {
  char err[512] = "";
  cr_assert_eq(cgp_device_load_file(TK1_PATH, &tk1, err, sizeof err), 0, "%s", err);
}

TestSuite(model_realgpu, .init = load_tk1);

/* ---- Section 4b: the L2 capacity one kernel's data keeps ---- */

Test(model_realgpu, l2_capacity_is_the_keep_bytes_in_whole_transactions) {
  /* TK1: 128 KB of 64-byte lines, no keep bytes: the whole L2. With 100000 keep bytes: 1562
     whole lines = 99968 bytes. */
  cr_expect_eq(cgp_l2_capacity_bytes(&tk1), 128 * 1024);
  cgp_device d = tk1;
  d.l2_keep_bytes = 100000;
  cr_expect_eq(cgp_l2_capacity_bytes(&d), 99968);
  d.l2_sector_bytes = 32; /* sectored: whole 32-byte transactions, 3125 of them */
  cr_expect_eq(cgp_l2_capacity_bytes(&d), 100000);
}

Test(model_realgpu, h100_keeps_what_its_microbenchmark_measured) {
  /* devices/measured/h100-sxm5-2026-11-26.json: a second launch read 257,536 of a 28 MiB
     footprint's 29,360,128 bytes from DRAM (fraction 0.00877162) and found the other 29,102,592
     in L2, the most of any footprint (227,364 whole 128-byte lines): far below the 50 MB
     (52,428,800 B) physical L2. */
  cgp_device h;
  char err[512] = "";
  cr_assert_eq(cgp_device_load_file(H100_PATH, &h, err, sizeof err), 0, "%s", err);
  cr_expect_eq(h.l2_bytes, 52428800);
  cr_expect_eq(h.l2_keep_bytes, 29102592);
  cr_expect_eq(cgp_l2_capacity_bytes(&h), 29102592);
}

/* ---- Section 7b: the host's cost per synchronised launch ---- */

Test(model_realgpu, host_sync_is_per_launch_and_apart_from_the_kernel_time) {
  /* 1500 launches (FDTD-2D's 500 steps x 3 kernels) at 6.73 us each: 10.095 ms; the kernel's own
     cycles do not move */
  cgp_device d = tk1;
  d.host_sync_launch_s = 6.73e-6;
  cr_expect_float_eq(cgp_host_sync_ms(&d, 1500), 10.095, 1e-9);
  cr_expect_float_eq(cgp_host_sync_ms(&tk1, 1500), 0.0, 0);
  cgp_kernel_stats k = {.blocks = 1, .threads_per_block = 64, .total_warps = 2,
                        .insts = {0, 10, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                        .total_insts = 100, .core_insts = 60};
  cgp_prediction a, b;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &a, err, sizeof err), 0, "%s", err);
  cr_assert_eq(cgp_predict(&d, &k, &b, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(a.cycles, b.cycles, 0);
}

/* ---- Section 9b: the L2's bandwidth ---- */

/* A 2-SM, 1 GHz device: read 64 GB/s = 32 bytes per cycle per SM, write 32 GB/s = 16. */
static cgp_device two_sm(void) {
  cgp_device d = tk1;
  d.no_sm = 2;
  d.freq_hz = 1e9;
  d.l2_sector_bytes = 32; /* transactions of 32 bytes */
  d.l2_read_bandwidth_bytes_per_s = 64e9;
  d.l2_write_bandwidth_bytes_per_s = 32e9;
  return d;
}

Test(model_realgpu, l2_cpw_adds_read_and_write_time) {
  /* per warp: 4 coalesced loads x 2 L2 transactions + 1 constant load x 1 = 9 x 32 = 288 bytes
     read: 288 / 32 = 9 cycles; 2 stores x 4 transactions = 8 x 32 = 256 bytes written: 256 / 16 =
     16 cycles; 25 in all */
  cgp_device d = two_sm();
  cgp_kernel_stats k = {.insts = {1, 4, 0}, .trans_pw = {1, 2, 0}, .st_insts = 2, .st_trans_pw = 4};
  cr_expect_float_eq(cgp_l2_cpw(&d, &k), 25.0, 1e-12);
  d.l2_write_bandwidth_bytes_per_s = 0; /* not modelled: reads only */
  cr_expect_float_eq(cgp_l2_cpw(&d, &k), 9.0, 1e-12);
  cr_expect_float_eq(cgp_l2_cpw(&tk1, &k), 0.0, 0);
}

Test(model_realgpu, l2_bandwidth_floor_binds_a_store_heavy_kernel) {
  /* 64 blocks of 256 threads = 512 warps on 2 SMs, each warp 25 L2 cycles (above): the floor is
     512 x 25 / 2 = 6400 cycles, named l2_bandwidth. The warps' issue (40 instructions / 8 per
     cycle = 5 per warp, 256 x 5 = 1280 on the busiest SM) and LSU (7 wavefronts, 1792) are below
     it, and no byte reaches DRAM. Without the L2 bandwidths the same kernel is not L2-bound. */
  cgp_device d = two_sm();
  cgp_kernel_stats k = {.blocks = 64, .threads_per_block = 256, .total_warps = 512,
                        .insts = {1, 4, 0}, .trans_pw = {1, 2, 0}, .st_insts = 2, .st_trans_pw = 4,
                        .total_insts = 40, .core_insts = 20, .lsu_wavefronts = 7};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.cpw_l2, 25.0, 1e-12);
  cr_expect_float_eq(p.throughput_cycles, 6400.0, 1e-9);
  cr_expect_geq(p.cycles, 6400.0);
  cr_expect_str_eq(p.bound, "l2_bandwidth");
  d.l2_read_bandwidth_bytes_per_s = d.l2_write_bandwidth_bytes_per_s = 0;
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.cpw_l2, 0.0, 0);
  cr_expect_str_neq(p.bound, "l2_bandwidth");
}

/* ---- The loader ---- */

static char tmpdir[64];

static void remove_tmpdir(void) {
  if (!tmpdir[0]) return;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* The TK1 file with one field set (and cited), loaded; returns the loader's status, err filled. */
static int load_with(const char *key, double value, const char *index, char *err, size_t errlen) {
  strcpy(tmpdir, "/tmp/cgp-test-realgpu-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
  FILE *f = fopen(TK1_PATH, "r");
  cr_assert_not_null(f);
  static char text[1 << 16];
  text[fread(text, 1, sizeof text - 1, f)] = '\0';
  fclose(f);
  cJSON *root = cJSON_Parse(text);
  cr_assert_not_null(root);
  cJSON_AddNumberToObject(root, key, value);
  cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(root, "sources"), key, "a test's value");
  if (index) { /* one set of all 2048 lines, indexed: a set-indexed cache of the same capacity */
    cJSON_ReplaceItemInObjectCaseSensitive(root, "l2_index", cJSON_CreateString(index));
    cJSON_AddNumberToObject(root, "l2_sets", 1);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(root, "sources"), "l2_sets", "a test's value");
  }
  char *out = cJSON_Print(root), path[128];
  snprintf(path, sizeof path, "%s/variant.json", tmpdir);
  f = fopen(path, "w");
  fputs(out, f);
  fclose(f);
  free(out);
  cJSON_Delete(root);
  cgp_device d;
  int rc = cgp_device_load_file(path, &d, err, errlen);
  remove_tmpdir();
  return rc;
}

Test(model_realgpu, the_loader_refuses_keep_bytes_it_cannot_simulate) {
  char err[512] = "";
  cr_expect_eq(load_with("l2_keep_bytes", 65536, NULL, err, sizeof err), 0, "%s", err);
  cr_expect_neq(load_with("l2_keep_bytes", 256 * 1024, NULL, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "\"l2_keep_bytes\": more than l2_bytes"), "%s", err);
  cr_expect_neq(load_with("l2_keep_bytes", 32, NULL, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "less than one L2 transaction"), "%s", err);
  cr_expect_neq(load_with("l2_keep_bytes", 65536, "modulo", err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "only with l2_index"), "%s", err);
  cr_expect_neq(load_with("host_sync_launch_s", -1, NULL, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "\"host_sync_launch_s\""), "%s", err);
}
