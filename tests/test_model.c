/* The model's equations on the Jetson TK1 (MODEL.md section 10), each against a hand computation
   written in the comment beside it. TK1: L2 164, DRAM 332, dd_L2 2, dd_dram 10 cycles,
   inst_cycle 0.5, 852 MHz, 14.93 GB/s = 17.5235 bytes per cycle on its one SM. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cgp_model.h"

#define TK1_PATH CGP_SOURCE_DIR "/devices/jetson-tk1.json"
#define EPS 1e-9

static cgp_device tk1;

static void load_tk1(void) {
  char err[512] = "";
  cr_assert_eq(cgp_device_load_file(TK1_PATH, &tk1, err, sizeof err), 0, "%s", err);
}

TestSuite(model, .init = load_tk1);

static double rel(double got, double want) { return fabs(got - want) / fmax(fabs(want), 1e-300); }

/* ---- Section 2: occupancy ---- */

Test(model, occupancy_32x32_is_two_blocks_of_32_warps) {
  /* 1024 threads: min(16 blocks, 2048/1024 = 2) = 2 blocks, 2 x 32 warps = 64; 1024 blocks / 2 = 512 rounds */
  cr_expect_eq(cgp_active_blocks(&tk1, 1024, 0, 0), 2);
  cgp_kernel_stats k = {.blocks = 1024, .threads_per_block = 1024, .total_warps = 32768};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.B, 2);
  cr_expect_eq(p.N, 64);
  cr_expect_eq(p.batch, 512);
  cr_expect_float_eq(p.occupancy, 1.0, EPS);
}

Test(model, occupancy_256_threads_is_eight_blocks) {
  /* 256x1 and 32x8 are both 256 threads: 2048/256 = 8 blocks (< 16), 8 x 8 warps = 64 */
  cr_expect_eq(cgp_active_blocks(&tk1, 256, 0, 0), 8);
  cgp_kernel_stats k = {.blocks = 1000, .threads_per_block = 32 * 8, .total_warps = 8000};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.B, 8);
  cr_expect_eq(p.N, 64);
  cr_expect_eq(p.batch, 125); /* 1000 / 8 exactly */
  cr_expect_eq(cgp_batches(&tk1, 1001, 8), 126, "a partial round costs a round");
}

Test(model, occupancy_8x8_is_limited_by_max_blocks) {
  /* 64 threads: 2048/64 = 32 blocks by threads, but at most 16 blocks: B = 16, N = 16 x 2 = 32 */
  cr_expect_eq(cgp_active_blocks(&tk1, 64, 0, 0), 16);
  cgp_kernel_stats k = {.blocks = 4096, .threads_per_block = 64, .total_warps = 8192};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.N, 32);
  cr_expect_eq(p.batch, 256);
  cr_expect_float_eq(p.occupancy, 0.5, EPS);
}

Test(model, occupancy_counts_threads_in_whole_warps) {
  /* 680 threads = 21.25 warps -> 22 warps = 704 slots: 2048/704 = 2 (3 if counted by threads) */
  cr_expect_eq(cgp_active_blocks(&tk1, 680, 0, 0), 2);
}

Test(model, occupancy_limited_by_shared_memory_and_registers) {
  /* 16 KB a block: 48 KB / 16 KB = 3 blocks; 64 regs x 256 threads = 16384: 65536/16384 = 4 */
  cr_expect_eq(cgp_active_blocks(&tk1, 256, 16384, 0), 3);
  cr_expect_eq(cgp_active_blocks(&tk1, 256, 0, 64), 4);
  cr_expect_eq(cgp_active_blocks(&tk1, 256, 0, 0), 8, "unknown registers do not limit");
  cr_expect_eq(cgp_active_blocks(&tk1, 256, 64 * 1024, 0), 0, "64 KB of shared memory does not fit");
  cr_expect_eq(cgp_active_blocks(&tk1, 2048, 0, 0), 0, "more than 1024 threads a block");
}

Test(model, small_grid_has_fewer_resident_warps) {
  /* 3 blocks of 256 threads: all resident at once, B = 3, N = 24, one round */
  cgp_kernel_stats k = {.blocks = 3, .threads_per_block = 256, .total_warps = 24};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.B, 3);
  cr_expect_eq(p.N, 24);
  cr_expect_eq(p.batch, 1);
}

/* ---- Section 5: memory latency and departure delay per class ---- */

Test(model, coalesced_under_one_dram_transaction_pays_l2_only) {
  /* 2 transactions, 2/32 DRAM: 164 + (2-1) x 2 = 166; max(2 x 2, 0.0625 x 10) = 4 */
  cr_expect_float_eq(cgp_mem_latency_class(&tk1, CGP_STATS_COAL, 2, 2.0 / 32), 166, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&tk1, CGP_STATS_COAL, 2, 2.0 / 32), 4, EPS);
  /* exactly 1 DRAM transaction is still the L2 branch: 164 + 3 x 2 = 170; max(8, 10) = 10 */
  cr_expect_float_eq(cgp_mem_latency_class(&tk1, CGP_STATS_COAL, 4, 1), 170, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&tk1, CGP_STATS_COAL, 4, 1), 10, EPS);
}

Test(model, uncoalesced_over_one_dram_transaction_pays_dram) {
  /* 32 transactions, 4 DRAM: 164 + 332 + 3 x 10 = 526; max(64, 40) = 64 */
  cr_expect_float_eq(cgp_mem_latency_class(&tk1, CGP_STATS_UNCOAL, 32, 4), 526, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&tk1, CGP_STATS_UNCOAL, 32, 4), 64, EPS);
  /* 16 DRAM: 164 + 332 + 15 x 10 = 646; max(64, 160) = 160 */
  cr_expect_float_eq(cgp_mem_latency_class(&tk1, CGP_STATS_UNCOAL, 32, 16), 646, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&tk1, CGP_STATS_UNCOAL, 32, 16), 160, EPS);
}

Test(model, constant_class_adds_dram_fraction) {
  /* 1 transaction, 1/16 DRAM: 164 + 332/16 = 184.75; 1 x 2 + 10/16 = 2.625 */
  cr_expect_float_eq(cgp_mem_latency_class(&tk1, CGP_STATS_CONST, 1, 1.0 / 16), 184.75, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&tk1, CGP_STATS_CONST, 1, 1.0 / 16), 2.625, EPS);
  /* all hits: 164 and 2 */
  cr_expect_float_eq(cgp_mem_latency_class(&tk1, CGP_STATS_CONST, 1, 0), 164, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&tk1, CGP_STATS_CONST, 1, 0), 2, EPS);
}

/* ---- Section 7: MWP, CWP and the three execution cases ---- */

Test(model, mwp_is_the_smallest_of_latency_bandwidth_and_warps) {
  double lat, bw;
  /* 175.375 / 3.3125 = 52.943; bandwidth 17.5235 x 175.375 / 4 bytes = 768.3; N = 64 */
  double m = cgp_mwp(&tk1, 175.375, 3.3125, 4, 64, &lat, &bw);
  cr_expect_float_eq(lat, 175.375 / 3.3125, EPS);
  cr_expect(rel(bw, 14.93e9 / 852e6 * 175.375 / 4) < EPS);
  cr_expect_float_eq(m, lat, EPS);
  cr_expect_float_eq(cgp_mwp(&tk1, 175.375, 3.3125, 4, 32, &lat, &bw), 32, EPS, "capped by N");
  /* no DRAM bytes: the bandwidth limit is infinite and does not bind */
  cgp_mwp(&tk1, 166, 4, 0, 64, &lat, &bw);
  cr_expect(isinf(bw) && bw > 0);
}

Test(model, cwp_is_memory_plus_compute_over_compute_capped_by_n) {
  double full;
  /* (359168 + 3072) / 3072 = 117.92 -> N = 64 */
  cr_expect_float_eq(cgp_cwp(359168, 3072, 64, &full), 64, EPS);
  cr_expect_float_eq(full, 362240.0 / 3072, EPS);
  cr_expect_float_eq(cgp_cwp(166, 500, 64, &full), 1.332, EPS);
  cr_expect_float_eq(cgp_cwp(100, 0, 8, &full), 8, EPS, "no computation: CWP = N");
}

Test(model, exec_cycles_formulas_by_case) {
  int c;
  /* case 1: (1000 + 100 + 100/10 x (4 - 1)) x 3 = 3390 */
  cr_expect_float_eq(cgp_exec_cycles(1000, 100, 100, 10, 4, 4, 4, 3, &c), 3390, EPS);
  cr_expect_eq(c, 1);
  /* case 2 (CWP 11 >= MWP 5): (1000 x 20 / 5 + 10 x 4) x 3 = 12120 */
  cr_expect_float_eq(cgp_exec_cycles(1000, 100, 100, 10, 5, 11, 20, 3, &c), 12120, EPS);
  cr_expect_eq(c, 2);
  /* case 3 (CWP 2 < MWP 5): (100 + 100 x 20) x 3 = 6300 */
  cr_expect_float_eq(cgp_exec_cycles(1000, 100, 100, 10, 5, 2, 20, 3, &c), 6300, EPS);
  cr_expect_eq(c, 3);
  /* CGPredict's printed form, case 2: 1000 x 20 / 5 x 3 + 10 x 5 = 12050 */
  cr_expect_float_eq(cgp_exec_cycles_paper(1000, 100, 100, 10, 5, 11, 20, 3), 12050, EPS);
}

Test(model, case1_too_few_warps_is_occupancy_bound) {
  /* 1 block of 64 threads: N = 2. 10 coalesced loads (166, dd 4): MWP_lat 41.5, MWP_bw 727 -> MWP = 2.
     comp = 0.5 x 100 = 50, mem = 1660: CWP_full = 34.2 -> 2. Case 1: 1660 + 50 + 50/10 x 1 = 1715.
     Floor: 2 warps x max(100/8, 60 x 32/192, 40 B / 17.52) = 25, does not bind. */
  cgp_kernel_stats k = {.blocks = 1, .threads_per_block = 64, .total_warps = 2,
                        .insts = {0, 10, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                        .total_insts = 100, .core_insts = 60};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.N, 2);
  cr_expect_float_eq(p.mwp, 2, EPS);
  cr_expect_float_eq(p.cwp, 2, EPS);
  cr_expect_eq(p.exec_case, 1);
  cr_expect_float_eq(p.cycles, 1715, 1e-6);
  cr_expect_float_eq(p.throughput_cycles, 25, 1e-9);
  cr_expect_str_eq(p.bound, "occupancy");
}

/* Section 5e: a warp's waiting periods. */
Test(model, overlapping_loads_wait_as_one_period) {
  cr_expect_float_eq(cgp_mem_periods(4, 10, 8), 4, EPS);     /* 2 alone + 8 / 4 */
  cr_expect_float_eq(cgp_mem_periods(1, 10, 8), 10, EPS);    /* a device that overlaps none */
  cr_expect_float_eq(cgp_mem_periods(0, 10, 8), 10, EPS);    /* a file that does not say */
  cr_expect_float_eq(cgp_mem_periods(4, 10, 20), 2.5, EPS);  /* at most every load overlaps */
  cr_expect_float_eq(cgp_mem_periods(4, 10, 0), 10, EPS);
}

Test(model, overlapping_loads_shorten_a_warps_memory_time) {
  /* case1_too_few_warps_is_occupancy_bound's launch with 8 of its 10 loads in a store-free loop, on
     the TK1 (load_overlap 4): periods = 2 + 8 / 4 = 4, mlp = 2.5. mem_l 166, mem_cycles = 664.
     MWP_lat = 166 / (4 x 2.5) = 16.6; DRAM bytes per period 40 / 4 = 10: MWP_bw = 17.5235 x 166 / 10
     = 290.9; MWP = N = 2. comp 50: CWP_full = 714 / 50 -> 2. Case 1: 664 + 50 + 50 / 4 x 1 = 726.5
     (1715 with no overlap). */
  cr_assert_eq(tk1.load_overlap, 4);
  cgp_kernel_stats k = {.blocks = 1, .threads_per_block = 64, .total_warps = 2,
                        .insts = {0, 10, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                        .overlap_insts = {0, 8, 0}, .total_insts = 100, .core_insts = 60};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.mem_periods, 4, EPS);
  cr_expect_float_eq(p.mlp, 2.5, EPS);
  cr_expect_float_eq(p.mem_cycles, 664, EPS);
  cr_expect_float_eq(p.mwp_lat, 16.6, 1e-9);
  cr_expect(rel(p.mwp_bw, 17.5235 * 166 / 10) < 1e-3, "mwp_bw %g", p.mwp_bw);
  cr_expect_eq(p.exec_case, 1);
  cr_expect_float_eq(p.cycles, 726.5, 1e-6);
  /* the same on a device whose loads each wait on their own: the plain case, 1715 */
  cgp_device one = tk1;
  one.load_overlap = 1;
  cr_assert_eq(cgp_predict(&one, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.cycles, 1715, 1e-6);
  cr_expect_float_eq(p.mlp, 1, EPS);
}

Test(model, case3_compute_hides_memory) {
  /* 8 blocks of 256 threads: N = 64, one round. 1 coalesced load: mem 166, MWP = 166/4 = 41.5.
     comp = 0.5 x 1000 = 500: CWP = 666/500 = 1.332 < 41.5. Case 3: 166 + 500 x 64 = 32166.
     Floor: 64 x max(125, 900 x 32/192 = 150, 0.23) = 9600. */
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64,
                        .insts = {0, 1, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                        .total_insts = 1000, .core_insts = 900};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.mwp, 41.5, EPS);
  cr_expect_float_eq(p.cwp, 1.332, EPS);
  cr_expect_eq(p.exec_case, 3);
  cr_expect_float_eq(p.cycles, 32166, 1e-6);
  cr_expect_float_eq(p.cpw_cores, 150, EPS);
  cr_expect_float_eq(p.throughput_cycles, 9600, 1e-6);
  cr_expect_str_eq(p.bound, "compute");
}

/* MODEL.md section 7's worked check. Per warp: 1024 constant loads of A (1 transaction, 1/16 DRAM)
   and 1024 coalesced loads of B (2 transactions, 2/32 DRAM), 6 x 1024 instructions.
   const: 184.75 / 2.625; coal: 166 / 4. mem_l = (184.75 + 166)/2 = 175.375,
   departure_delay = (2.625 + 4)/2 = 3.3125, MWP = 52.943 (bandwidth limit 768, N 64).
   mem_cycles = 1024 x 350.75 = 359168, comp = 3072, CWP_full = 117.9 -> 64 >= MWP: case 2.
   cycles = (359168 x 64 / 52.943 + 3072/2048 x 51.943) x 512 = 2.22338e8 -> 260.96 ms at 852 MHz. */
Test(model, gemm_1024_worked_check) {
  cgp_kernel_stats k = {.blocks = 1024, .threads_per_block = 1024, .total_warps = 32768,
                        .insts = {1024, 1024, 0}, .trans_pw = {1, 2, 0}, .dram_pw = {1.0 / 16, 2.0 / 32, 0},
                        .total_insts = 6 * 1024, .core_insts = 4 * 1024};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.mem_l, 175.375, EPS);
  cr_expect_float_eq(p.departure_delay, 3.3125, EPS);
  cr_expect_float_eq(p.mwp, 175.375 / 3.3125, EPS);
  cr_expect_eq(p.N, 64);
  cr_expect_float_eq(p.cwp, 64, EPS);
  cr_expect_eq(p.batch, 512);
  cr_expect_eq(p.exec_case, 2);
  double mwp = 175.375 / 3.3125, hand = (359168.0 * 64 / mwp + 3072.0 / 2048 * (mwp - 1)) * 512;
  cr_expect(rel(p.cycles, hand) < 1e-9, "cycles %g, hand %g", p.cycles, hand);
  /* MODEL.md rounds to two figures ("MWP ~ 53", "about 2.2e8 cycles", "~260 ms"): half a unit of
     the last figure is 1-2.3 %, so 3 % accepts the spec's roundings and nothing else. */
  cr_expect(rel(p.mwp, 53) < 0.03);
  cr_expect(rel(p.cycles, 2.2e8) < 0.03, "cycles %g", p.cycles);
  cr_expect(rel(p.time_ms, 260) < 0.03, "time %g ms", p.time_ms);
  cr_expect_str_eq(p.bound, "memory_latency");
  /* the floor: 32768 warps x max(4096 x 32/192, 6144/8 = 768, 8192 B / 17.52) = 2.5166e7 */
  cr_expect_float_eq(p.throughput_cycles, 32768.0 * 768, 1e-3);
  /* Little's law beside it: latency 362240, min(64/362240, 1/768) -> 32768 x 362240 / 64 = 1.8547e8 */
  cr_expect(rel(p.littles_law_cycles, 32768.0 * 362240 / 64) < 1e-9);
  cr_expect(p.cycles_paper > 0 && p.cycles_paper != p.cycles, "the printed eq. 16 form is kept beside");
}

Test(model, syrk_uncoalesced_gives_single_digit_mwp) {
  /* A[j][k] uncoalesced: 32 transactions, 8 DRAM each: 164 + 332 + 7 x 10 = 566, dd max(64, 80) = 80.
     With the constant A[i][k]: mem_l = (184.75 + 566)/2 = 375.375, dd = (2.625 + 80)/2 = 41.3125,
     MWP = 9.086 (bandwidth limit 25.5). */
  cgp_kernel_stats k = {.blocks = 1024, .threads_per_block = 1024, .total_warps = 32768,
                        .insts = {1024, 0, 1024}, .trans_pw = {1, 0, 32}, .dram_pw = {1.0 / 16, 0, 8},
                        .total_insts = 6 * 1024, .core_insts = 4 * 1024};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.mwp, 375.375 / 41.3125, EPS);
  cr_expect(p.mwp >= 1 && p.mwp < 10);
  cr_expect_str_eq(p.bound, "memory_latency");
  cr_expect(p.time_ms > 1000, "SYRK is seconds, not GEMM's 0.26 s: %g ms", p.time_ms);
}

/* ---- Section 8: shared memory and synchronization ---- */

Test(model, shared_memory_and_sync_terms) {
  /* Shared accesses are issued among total_insts (0.5 x 200 = 100 compute cycles) and pass the
     shared pipeline as LSU wavefronts (section 8b: not serial compute, so their degrees add nothing
     here); sync: dd x (MWP - 1) x 8 x B x batch. The 8 tile loads are global loads of their class,
     among insts: smem_load_insts reports them and adds nothing. */
  cgp_kernel_stats k = {.blocks = 16, .threads_per_block = 256, .total_warps = 128,
                        .insts = {0, 8, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2, 0},
                        .total_insts = 200, .core_insts = 100, .sync_insts = 8,
                        .smem_insts = {0, 64, 32}, .smem_conflict = {0, 2, 1}, .smem_load_insts = 8};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  /* coalesced, 2 DRAM: 164 + 332 + 10 = 506 per load; 8 loads (tile loads among them) */
  cr_expect_float_eq(p.mem_cycles, 8 * 506, EPS);
  cr_expect_float_eq(p.comp_cycles, 100, EPS);
  cr_expect_float_eq(p.sync_cycles, p.departure_delay * (p.mwp - 1) * 8 * 8 * 2, 1e-6);
  cr_expect(p.sync_cycles > 0);
}

/* ---- Section 9: the throughput floor ---- */

Test(model, dram_floor_binds_when_bandwidth_is_below_one_request) {
  /* Synthetic: the TK1 at 1 GB/s = 1.1737 B/cycle. One uncoalesced load per warp, 32 transactions all
     missing: 2048 bytes. mem_l 806, dd 320: MWP_lat 2.52, MWP_bw 1.1737 x 806 / 2048 = 0.46 -> MWP 1.
     MWP/CWP: 806 x 64 / 1 = 51584. Floor: 64 x 2048 / 1.1737 = 111673 cycles: binds. */
  cgp_device slow = tk1;
  slow.dram_bandwidth_bytes_per_s = 1e9;
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64,
                        .insts = {0, 0, 1}, .trans_pw = {0, 0, 32}, .dram_pw = {0, 0, 32},
                        .total_insts = 4, .core_insts = 2};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&slow, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.mwp, 1, EPS);
  cr_expect_float_eq(p.cycles_mwp_cwp, 51584, 1e-6);
  cr_expect(rel(p.throughput_cycles, 64 * 2048 / (1e9 / 852e6)) < 1e-9);
  cr_expect_float_eq(p.cycles, p.throughput_cycles, EPS);
  cr_expect_str_eq(p.bound, "dram_bandwidth");
}

Test(model, mwp_bandwidth_limit_is_named_dram_bandwidth) {
  /* TK1 at 1 GB/s, a streaming coalesced load (2 transactions, both miss): mem_l 506, dd 20,
     MWP_lat 25.3, MWP_bw 1.1737 x 506 / 128 = 4.64: MWP is bandwidth-limited. Case 2 then takes
     128 / 1.1737 = 109 cycles a warp, the DRAM floor itself, plus the comp term. */
  cgp_device slow = tk1;
  slow.dram_bandwidth_bytes_per_s = 1e9;
  cgp_kernel_stats k = {.blocks = 64, .threads_per_block = 256, .total_warps = 512,
                        .insts = {0, 1, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2, 0}, .total_insts = 4};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&slow, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect(p.mwp_bw < p.mwp_lat);
  cr_expect_float_eq(p.mwp, p.mwp_bw, EPS);
  cr_expect_str_eq(p.bound, "dram_bandwidth");
  cr_expect(p.cycles >= p.throughput_cycles && rel(p.cycles, p.throughput_cycles) < 0.01);
}

Test(model, cores_floor_binds_on_a_device_with_few_cores) {
  /* Synthetic: 32 cores a SM. No memory: MWP = N = 64, CWP = 1 -> case 3: 0.5 x 1000 x 64 = 32000.
     Floor: 64 warps x 900 x 32 / 32 = 57600: cores bind. */
  cgp_device few = tk1;
  few.cores_per_sm = 32;
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64, .total_insts = 1000,
                        .core_insts = 900};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&few, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.cycles_mwp_cwp, 32000, EPS);
  cr_expect_float_eq(p.cycles, 57600, EPS);
  cr_expect_str_eq(p.bound, "cores");
}

/* ---- degenerate inputs ---- */

static void expect_all_finite(const cgp_prediction *p) {
  const double v[] = {p->occupancy, p->no_mem_insts, p->mem_cycles, p->mem_l, p->departure_delay,
                      p->comp_cycles, p->mwp, p->cwp, p->sync_cycles, p->cycles_mwp_cwp, p->cycles_paper,
                      p->latency_bound_cycles, p->cpw_cores, p->cpw_issue, p->cpw_dram, p->cpw_bound,
                      p->throughput_cycles, p->littles_law_cycles, p->cycles, p->time_ms};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) cr_expect(isfinite(v[i]), "quantity %zu is %g", i, v[i]);
  const double lim[] = {p->mwp_lat, p->mwp_bw, p->cwp_full, p->warp_throughput};
  for (size_t i = 0; i < sizeof lim / sizeof *lim; i++) cr_expect(!isnan(lim[i]) && lim[i] >= 0, "limit %zu", i);
  cr_expect(p->cycles >= p->throughput_cycles, "never below the throughput floor");
}

Test(model, no_memory_instructions_is_pure_compute) {
  /* MWP = N = 64 (no request), CWP = 1 -> case 3: 0.5 x 100 x 64 x 2 rounds = 6400 */
  cgp_kernel_stats k = {.blocks = 16, .threads_per_block = 256, .total_warps = 128, .total_insts = 100,
                        .core_insts = 50};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  expect_all_finite(&p);
  cr_expect_float_eq(p.mwp, 64, EPS);
  cr_expect_eq(p.exec_case, 3);
  cr_expect_float_eq(p.cycles, 6400, EPS);
}

Test(model, no_computation_is_finite) {
  cgp_kernel_stats k = {.blocks = 16, .threads_per_block = 256, .total_warps = 128,
                        .insts = {0, 4, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 0, 0}};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  expect_all_finite(&p);
  cr_expect(isinf(p.cwp_full) && p.cwp == 64);
  cr_expect(isinf(p.mwp_bw), "no DRAM traffic: bandwidth does not bind");
  cr_expect(p.cycles > 0);
}

Test(model, empty_launch_is_zero_and_named_none) {
  cgp_kernel_stats k = {.blocks = 0, .threads_per_block = 256, .total_warps = 0};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  expect_all_finite(&p);
  cr_expect_float_eq(p.cycles, 0, EPS);
  cr_expect_str_eq(p.bound, "none");
}

Test(model, bad_inputs_are_errors_naming_the_field) {
  cgp_kernel_stats k = {.blocks = 1, .threads_per_block = 256, .total_warps = 8, .insts = {0, -1, 0}};
  cgp_prediction p;
  char err[256] = "";
  cr_expect_neq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "\"insts\" coalesced"), "%s", err);
  k.insts[1] = 0;
  k.total_insts = NAN;
  cr_expect_neq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "total_insts"), "%s", err);
  k.total_insts = 0;
  k.threads_per_block = 2048;
  cr_expect_neq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "2048 threads"), "%s", err);
}

/* ---- Schema v2 terms (docs/model.md sections 2, 5c, 5d, 6b, 7b): each inert when its input is 0 ---- */

Test(model, launch_overhead_is_added_once_per_launch) {
  /* the case-1 kernel above (1715 cycles) on a TK1 with a 5000-cycle launch: 6715 */
  cgp_device d = tk1;
  d.launch_overhead_cycles = 5000;
  cgp_kernel_stats k = {.blocks = 1, .threads_per_block = 64, .total_warps = 2,
                        .insts = {0, 10, 0}, .trans_pw = {0, 2, 0}, .dram_pw = {0, 2.0 / 32, 0},
                        .total_insts = 100, .core_insts = 60};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.launch_cycles, 5000, EPS);
  cr_expect_float_eq(p.cycles, 1715 + 5000, 1e-6);
  cr_expect_float_eq(p.time_ms, 6715 / 852e6 * 1e3, 1e-12);
  cr_expect_str_eq(p.bound, "launch_overhead", "5000 > 1715 of work");
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.launch_cycles, 0, EPS);
  cr_expect_float_eq(p.cycles, 1715, 1e-6);
}

Test(model, tail_round_has_its_own_n) {
  /* 9 blocks of 256 threads, pure compute (100 insts: 50 cycles a warp), TK1 B_max = 8:
     one full round (B 8, N 64): case 3, 50 x 64 = 3200; the tail is 1 block (B 1, N 8): 50 x 8 = 400.
     3600 in all (2 x 3200 = 6400 if the tail cost a full round). Floor 72 x 12.5 = 900. */
  cgp_kernel_stats k = {.blocks = 9, .threads_per_block = 256, .total_warps = 72, .total_insts = 100};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.batch, 2);
  cr_expect_eq(p.B, 8);
  cr_expect_eq(p.N, 64);
  cr_expect_eq(p.tail_blocks, 1);
  cr_expect_eq(p.tail_B, 1);
  cr_expect_eq(p.tail_N, 8);
  cr_expect_float_eq(p.cycles_full_wave, 3200, EPS);
  cr_expect_float_eq(p.tail_cycles, 400, EPS);
  cr_expect_float_eq(p.cycles, 3600, EPS);
  /* 16 blocks: two full rounds, no tail: 6400 as before */
  k.blocks = 16;
  k.total_warps = 128;
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.tail_blocks, 0);
  cr_expect_float_eq(p.cycles, 6400, EPS);
}

Test(model, blocks_spread_one_per_sm_first) {
  /* a 4-SM TK1: 3 blocks of 256 threads go one per SM: B = 1, N = 8; 10 blocks: ceil(10/4) = 3
     blocks on the busiest SM, N = 24, one round (B_max x 4 = 32 >= 10) */
  cgp_device d = tk1;
  d.no_sm = 4;
  cgp_kernel_stats k = {.blocks = 3, .threads_per_block = 256, .total_warps = 24, .total_insts = 10};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.B, 1);
  cr_expect_eq(p.N, 8);
  k.blocks = 10;
  k.total_warps = 80;
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_eq(p.B, 3);
  cr_expect_eq(p.N, 24);
  cr_expect_eq(p.batch, 1);
  cr_expect_eq(p.tail_blocks, 0);
}

Test(model, compute_by_functional_unit) {
  /* TK1: inst_cycle 0.5, 192 FP32 and 8 FP64 lanes. 100 insts: 20 fp64 (32/8 = 4 cycles each),
     40 fp32 (32/192 = 0.167 < 0.5: one issue slot), 40 others at 0.5: 80 + 20 + 20 = 120.
     Busiest unit: fp64, 20 x 32 / 8 = 80 cycles a warp (fp32: 40 x 32 / 192 = 6.67). */
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64, .total_insts = 100,
                        .fp32_insts = 40, .fp64_insts = 20};
  const char *unit;
  cr_expect_float_eq(cgp_comp_cycles_units(&tk1, &k), 120, EPS);
  cr_expect_float_eq(cgp_units_cpw(&tk1, &k, &unit), 80, EPS);
  cr_expect_str_eq(unit, "fp64");
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&tk1, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.comp_cycles, 120, EPS);
  cr_expect_float_eq(p.cpw_units, 80, EPS);
  cr_expect_float_eq(p.cycles, 120 * 64, EPS, "case 3: comp x N");
  /* unmeasured mix: inst_cycle x total, as before */
  cgp_kernel_stats plain = {.total_insts = 100};
  cr_expect_float_eq(cgp_comp_cycles_units(&tk1, &plain), 50, EPS);
  cr_expect_float_eq(cgp_units_cpw(&tk1, &plain, &unit), 0, EPS);
  cr_expect_str_eq(unit, "none");
}

Test(model, busiest_unit_floor_is_named) {
  /* a TK1 with 1 FP64 lane and a 1-block launch: comp = 10 x 32 + 0.5 x 0 = 320 a warp, N = 8:
     case 3 = 320 x 8 = 2560. With 8 warps the floor is 8 x 320 = 2560 too: the floor (>=) binds
     and is named after the unit. */
  cgp_device d = tk1;
  d.fp64_lanes = 1;
  cgp_kernel_stats k = {.blocks = 1, .threads_per_block = 256, .total_warps = 8, .total_insts = 10, .fp64_insts = 10};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.cycles_mwp_cwp, 2560, EPS);
  cr_expect_float_eq(p.throughput_cycles, 2560, EPS);
  cr_expect_str_eq(p.bound, "fp64");
}

Test(model, stores_add_dram_bytes_not_latency) {
  /* TK1 at 1 GB/s (1.1737 B/cycle). One coalesced load (2 transactions, L2 hits): mem_l 166, dd 4.
     Plus one store with 2 DRAM transactions a warp: 128 bytes, not in mem_l nor dd.
     MWP_bw = 1.1737 x 166 / (128 / 1) = 1.522 < MWP_lat 41.5; cpw_dram = 128 / 1.1737 = 109.06. */
  cgp_device slow = tk1;
  slow.dram_bandwidth_bytes_per_s = 1e9;
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64,
                        .insts = {0, 1, 0}, .trans_pw = {0, 2, 0}, .total_insts = 4,
                        .st_insts = 1, .st_trans_pw = 2, .st_dram_pw = 2};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&slow, &k, &p, err, sizeof err), 0, "%s", err);
  double bpc = 1e9 / 852e6;
  cr_expect_float_eq(p.mem_l, 166, EPS);
  cr_expect_float_eq(p.departure_delay, 4, EPS);
  cr_expect(rel(p.mwp_bw, bpc * 166 / 128) < 1e-9, "mwp_bw %g", p.mwp_bw);
  cr_expect(rel(p.mwp, bpc * 166 / 128) < 1e-9);
  cr_expect(rel(p.cpw_dram, 128 / bpc) < 1e-9);
  cr_expect_str_eq(p.bound, "dram_bandwidth");
  /* without the store no byte reaches DRAM */
  k.st_insts = 0;
  cr_assert_eq(cgp_predict(&slow, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect(isinf(p.mwp_bw));
}

/* Section 5c: 8 warps load the same 4 sectors in one round (a block's redundant warps): the first
   sends them to the L2, which misses all 4; the other 7 merge with those fills. Per instruction:
   4 L1 lookups, no hit; trans_pw = dram_pw = 4 / 8 = 0.5; merged 28 / 8 = 3.5. TK1 numbers with an
   L1 (lat_l2 164, lat_dram 332, dd_dram 10): the instructions wait for 0.5 + 3.5 = 4 DRAM
   transactions: 164 + 332 + 3 x 10 = 526. Unmerged, 0.5 DRAM transactions take the L2 branch: 164. */
Test(model, lookups_merged_with_a_dram_fill_wait_for_dram) {
  cgp_device d = tk1;
  d.l1_caches_global = 1;
  cr_expect_float_eq(cgp_mem_latency_class_l1(&d, CGP_STATS_COAL, 0.5, 0.5, 4, 0, 3.5), 526, EPS);
  cr_expect_float_eq(cgp_mem_latency_class_l1(&d, CGP_STATS_COAL, 0.5, 0.5, 4, 0, 0), 164, EPS);
  cr_expect_float_eq(cgp_departure_delay_class(&d, CGP_STATS_COAL, 0.5, 0.5), 5, EPS, "no bytes: no departure");
}

Test(model, l1_hits_cost_lat_l1_and_no_departure_delay) {
  /* A TK1 whose L1 caches global loads (lat_l1 67). Coalesced: 2 L1 lookups, 1 hit, 1 miss going
     on to the L2 (trans_pw 1, no DRAM): h = 0.5; the missing half of the instructions has
     1 / 0.5 = 2 L2 transactions: 164 + 2 = 166. mem_l = 0.5 x 67 + 0.5 x 166 = 116.5;
     dd = max(1 x 2, 0) = 2. All hits: 67. The TK1 itself, whose L1 caches only local memory,
     takes the same formula for what it looked up there (its analyzer looks up nothing else);
     nothing looked up: plain 164 (1 transaction). */
  cgp_device d = tk1;
  d.l1_caches_global = 1;
  cr_expect_float_eq(cgp_mem_latency_class_l1(&d, CGP_STATS_COAL, 1, 0, 2, 1, 0), 116.5, EPS);
  cr_expect_float_eq(cgp_mem_latency_class_l1(&d, CGP_STATS_COAL, 0, 0, 2, 2, 0), 67, EPS);
  cr_expect_float_eq(cgp_mem_latency_class_l1(&tk1, CGP_STATS_COAL, 1, 0, 2, 1, 0), 116.5, EPS);
  cr_expect_float_eq(cgp_mem_latency_class_l1(&d, CGP_STATS_COAL, 1, 0, 0, 0, 0), 164, EPS, "nothing looked up");
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64, .insts = {0, 1, 0},
                        .trans_pw = {0, 1, 0}, .l1_trans_pw = {0, 2, 0}, .l1_hit_pw = {0, 1, 0}, .total_insts = 4};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.mem_l, 116.5, EPS);
  cr_expect_float_eq(p.departure_delay, 2, EPS);
}

Test(model, registers_are_capped_at_the_device_maximum) {
  /* 256 threads: 300 registers a thread is capped at 255 (spilled): 65536 / (255 x 256) = 1 block,
     not 0; max_warps_per_sm 32 limits 1024-thread blocks (32 warps) to 1 */
  cr_expect_eq(cgp_active_blocks(&tk1, 256, 0, 300), 1);
  cgp_device d = tk1;
  d.max_warps_per_sm = 32;
  cr_expect_eq(cgp_active_blocks(&d, 1024, 0, 0), 1);
  d.smem_per_block = 16384;
  cr_expect_eq(cgp_active_blocks(&d, 256, 16385, 0), 0, "more shared memory than a block may have");
}

Test(model, dram_bytes_per_warp_add_load_misses_and_store_traffic) {
  /* a warp's 2 stores of 1 DRAM transaction each and 1 uncoalesced load of 4: 6 transactions of
     the TK1's 64-byte line (unsectored), 384 bytes; 32-byte sectors halve it */
  cgp_kernel_stats k = {.st_insts = 2, .st_dram_pw = 1, .insts = {0, 0, 1}, .dram_pw = {0, 0, 4}};
  cr_expect_eq(cgp_dram_bytes_per_warp(&tk1, &k), 384);
  cgp_device d = tk1;
  d.l2_sector_bytes = 32;
  cr_expect_eq(cgp_dram_bytes_per_warp(&d, &k), 192);
}

Test(model, dram_transactions_are_l2_sectors) {
  /* the dram_floor kernel (32 DRAM transactions a warp) on a TK1 with 32-byte sectors in its
     64-byte lines: 32 x 32 = 1024 bytes a warp, half the unsectored 2048 */
  cgp_device d = tk1;
  d.dram_bandwidth_bytes_per_s = 1e9;
  d.l2_sector_bytes = 32;
  cr_expect_eq(cgp_transaction_bytes(&d), 32);
  cr_expect_eq(cgp_transaction_bytes(&tk1), 64);
  cgp_kernel_stats k = {.blocks = 8, .threads_per_block = 256, .total_warps = 64,
                        .insts = {0, 0, 1}, .trans_pw = {0, 0, 32}, .dram_pw = {0, 0, 32},
                        .total_insts = 4, .core_insts = 2};
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect(rel(p.cpw_dram, 1024 / (1e9 / 852e6)) < 1e-9);
}

Test(model, lsu_wavefronts_floor_counts_the_busiest_sm) {
  /* a 4-SM TK1, 10 blocks of 256 threads (8 warps): the busiest SM runs ceil(10/4) = 3 blocks =
     24 warps. Each warp: 1000 LSU wavefronts (an uncoalesced column, 32 lines per instruction),
     one cycle each: the floor is 24 x 1000 = 24000 cycles, named lsu_wavefronts, although the
     average SM has only 80 / 4 = 20 warps. */
  cgp_device d = tk1;
  d.no_sm = 4;
  cgp_kernel_stats k = {.blocks = 10, .threads_per_block = 256, .total_warps = 80, .total_insts = 40,
                        .core_insts = 10, .lsu_wavefronts = 1000};
  k.insts[CGP_STATS_UNCOAL] = 1;
  k.trans_pw[CGP_STATS_UNCOAL] = 32;
  cgp_prediction p;
  char err[256];
  cr_assert_eq(cgp_predict(&d, &k, &p, err, sizeof err), 0, "%s", err);
  cr_expect_float_eq(p.busiest_sm_warps, 24.0, 1e-9);
  cr_expect_float_eq(p.cpw_lsu, 1000.0, 1e-9);
  cr_expect_float_eq(p.throughput_cycles, 24000.0, 1e-9);
  cr_expect_geq(p.cycles, 24000.0);
  cr_expect_str_eq(p.bound, "lsu_wavefronts");
}

/* ---- Section 8c: the coalescing what-if ---- */

Test(model, coalescing_moves_the_uncoalesced_loads_with_their_reuse) {
  /* 2 coalesced loads (4 L1 sectors, none hit, 4 to the L2, all miss, 1 wavefront each) and 1
     uncoalesced (32 sectors of which 16 hit, 16 to the L2 of which 2 miss, 32 wavefronts).
     Moved: 4 sectors, half hit -> 2 L2 transactions, 2 x 2/16 = 0.25 DRAM, 1 wavefront. */
  cgp_kernel_stats s = {.insts = {0, 2, 1}, .l1_trans_pw = {0, 4, 32}, .l1_hit_pw = {0, 0, 16},
                        .trans_pw = {0, 4, 16}, .dram_pw = {0, 4, 2}, .ld_wavefronts_pw = {0, 1, 32},
                        .lsu_wavefronts = 2 * 1 + 32};
  cr_assert_eq(cgp_whatif_coalesce(&s), 1);
  cr_expect_float_eq(s.insts[1], 3, EPS);
  cr_expect_float_eq(s.insts[2], 0, EPS);
  cr_expect_float_eq(s.l1_trans_pw[1], (2 * 4 + 4) / 3.0, EPS);
  cr_expect_float_eq(s.l1_hit_pw[1], (0 + 4 * 0.5) / 3.0, EPS);
  cr_expect_float_eq(s.trans_pw[1], (2 * 4 + 2) / 3.0, EPS);
  cr_expect_float_eq(s.dram_pw[1], (2 * 4 + 2 * 0.125) / 3.0, EPS);
  cr_expect_float_eq(s.lsu_wavefronts, 2 + 1, EPS);
  cgp_kernel_stats none = {.insts = {1, 2, 0}};
  cr_expect_eq(cgp_whatif_coalesce(&none), 0);
}

Test(model, coalescing_a_share_leaves_the_gathers_uncoalesced) {
  /* The loads above, the uncoalesced one 2 instructions of which half are a gather: share 0.5
     moves 1 (4 sectors, half hit -> 2 L2 transactions, 0.25 DRAM, 1 wavefront); the other stays
     with its 32 sectors, 16 L2 transactions, 2 DRAM and 32 wavefronts. Class 1: 3 instructions,
     L2 (2 x 4 + 2) / 3, DRAM (2 x 4 + 0.25) / 3; wavefronts 2 + 64 - 31 = 35. */
  cgp_kernel_stats s = {.insts = {0, 2, 2}, .l1_trans_pw = {0, 4, 32}, .l1_hit_pw = {0, 0, 16},
                        .trans_pw = {0, 4, 16}, .dram_pw = {0, 4, 2}, .ld_wavefronts_pw = {0, 1, 32},
                        .overlap_insts = {0, 0, 2}, .lsu_wavefronts = 2 * 1 + 2 * 32};
  cr_assert_eq(cgp_whatif_coalesce_share(&s, 0.5), 1);
  cr_expect_float_eq(s.insts[1], 3, EPS);
  cr_expect_float_eq(s.insts[2], 1, EPS);
  cr_expect_float_eq(s.trans_pw[1], (2 * 4 + 2) / 3.0, EPS);
  cr_expect_float_eq(s.dram_pw[1], (2 * 4 + 0.25) / 3.0, EPS);
  cr_expect_float_eq(s.trans_pw[2], 16, EPS);
  cr_expect_float_eq(s.dram_pw[2], 2, EPS);
  cr_expect_float_eq(s.l1_trans_pw[2], 32, EPS);
  cr_expect_float_eq(s.overlap_insts[1], 1, EPS);
  cr_expect_float_eq(s.overlap_insts[2], 1, EPS);
  cr_expect_float_eq(s.lsu_wavefronts, 35, EPS);
  /* share 1 is cgp_whatif_coalesce; share 0 changes nothing */
  cgp_kernel_stats a = {.insts = {0, 2, 1}, .trans_pw = {0, 4, 16}, .dram_pw = {0, 4, 2}}, b = a;
  cr_assert_eq(cgp_whatif_coalesce_share(&a, 1.0), 1);
  cr_assert_eq(cgp_whatif_coalesce(&b), 1);
  cr_expect_eq(memcmp(&a, &b, sizeof a), 0);
  cgp_kernel_stats c = {.insts = {0, 2, 1}, .trans_pw = {0, 4, 16}}, c0 = c;
  cr_expect_eq(cgp_whatif_coalesce_share(&c, 0), 0);
  cr_expect_eq(memcmp(&c, &c0, sizeof c), 0);
}
