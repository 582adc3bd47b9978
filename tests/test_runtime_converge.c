/* When a window agrees with the running estimate of the ones before it (runtime/cgp_rt_converge.c,
   docs/pipeline.md "Sampling"): per-warp instructions and transactions per load within 2 %, hit
   rates within 2 points, counts under 0.01 per warp taken as equal. Each case by hand. */
#include <criterion/criterion.h>

#include "cgp_rt_internal.h"

/* 100 warps in 25 blocks: per warp 10 coalesced loads of 2 transactions, a quarter missing the
   L2; 1 store of 2 transactions; 40 instructions. */
static cgp_totals base(void) {
  cgp_totals t = {.warps = 100, .blocks = 25, .total_insts = 4000, .st_insts = 100, .st_trans = 200, .st_dram = 50};
  t.ld_insts[1] = 1000;
  t.ld_trans[1] = 2000;
  t.ld_dram[1] = 500;
  return t;
}

Test(converge, equal_windows_agree) {
  cgp_totals a = base(), b = base();
  cr_expect(rt_window_agrees(&a, &b));
  b.warps = 300;                       /* three windows' sums: the same per warp and block */
  b.blocks = 75;
  b.total_insts = 12000; b.st_insts = 300; b.st_trans = 600; b.st_dram = 150;
  b.ld_insts[1] = 3000; b.ld_trans[1] = 6000; b.ld_dram[1] = 1500;
  cr_expect(rt_window_agrees(&a, &b));
}

Test(converge, warps_a_block_within_two_percent) {
  /* a stencil's first row of blocks, its loop from 1: 7 of 8 warps a block, the same per warp */
  cgp_totals a = base(), b = base();
  b.blocks = 25.0 * 8 / 7;
  cr_expect(!rt_window_agrees(&a, &b));
  b.blocks = 25.0 * 4 / 4.04;                  /* 4.04 warps a block against 4: 1 % */
  cr_expect(rt_window_agrees(&a, &b));
}

Test(converge, loads_per_warp_within_two_percent) {
  cgp_totals a = base(), b = base();
  b.ld_insts[1] = 1019; b.ld_trans[1] = 2038; b.ld_dram[1] = 509.5;   /* 10.19 a warp: 1.9 % */
  cr_expect(rt_window_agrees(&a, &b));
  b.ld_insts[1] = 1025; b.ld_trans[1] = 2050; b.ld_dram[1] = 512.5;   /* 10.25: 2.4 % */
  cr_expect(!rt_window_agrees(&a, &b));
}

Test(converge, transactions_per_load_and_hit_rates) {
  cgp_totals a = base(), b = base();
  b.ld_trans[1] = 2030; b.ld_dram[1] = 507.5;  /* 2.03 a load (1.5 %), the same miss rate */
  cr_expect(rt_window_agrees(&a, &b));
  b.ld_trans[1] = 2050; b.ld_dram[1] = 512.5;  /* 2.05: 2.4 % */
  cr_expect(!rt_window_agrees(&a, &b));
  b = base();
  b.ld_dram[1] = 530;                          /* miss rate 26.5 % against 25 %: 1.5 points */
  cr_expect(rt_window_agrees(&a, &b));
  b.ld_dram[1] = 560;                          /* 28 %: 3 points */
  cr_expect(!rt_window_agrees(&a, &b));
  b = base();
  a.l1_trans[1] = b.l1_trans[1] = 4000;        /* L1: 50 % hits against 53 % */
  a.l1_hit[1] = 2000; b.l1_hit[1] = 2120;
  cr_expect(!rt_window_agrees(&a, &b));
  b = base();
  b.st_dram = 60;                              /* stores' misses 30 % against 25 % */
  cr_expect(!rt_window_agrees(&a, &b));
}

Test(converge, a_class_used_less_than_once_in_a_hundred_warps_is_noise) {
  cgp_totals a = base(), b = base();
  a.ld_insts[2] = 0.5; a.ld_trans[2] = 16;     /* 0.005 a warp against 0.009, 32 transactions */
  b.ld_insts[2] = 0.9; b.ld_trans[2] = 10;
  cr_expect(rt_window_agrees(&a, &b));
  b.ld_insts[2] = 2;                           /* 0.02 a warp: counts, and is 4 times a's */
  cr_expect(!rt_window_agrees(&a, &b));
}

Test(converge, an_empty_window_agrees_with_nothing) {
  cgp_totals a = base(), none = {0};
  cr_expect(!rt_window_agrees(&none, &a));
  cr_expect(!rt_window_agrees(&a, &none));
}

/* A window's blocks (docs/model.md 4c, rt_window_blocks): a warming batch and one counted, or, in a
   2-D grid whose row of blocks (rt_row_blocks: the last analysed launch's, or before one the x
   loop's constant bound's) is longer than a batch, as many counted batches as cover the row, at
   most 16. Batches of 8 blocks, by hand. */
Test(converge, a_window_counts_the_batches_that_cover_a_row) {
  rt_sample s = {0};
  rt_kernel k = {.dims = 2, .samples = &s, .nsamples = 1};
  const uint64_t row[] = {8, 10, 16, 32, 128, 1000}, want[] = {16, 18, 24, 40, 136, 136};
  for (size_t i = 0; i < sizeof row / sizeof *row; i++) {
    s.gridblocks[0] = row[i];
    uint64_t r = rt_row_blocks(&k, 32, 1);
    cr_expect_eq(r, row[i]);
    cr_expect_eq(rt_window_blocks(&k, 8, r), want[i], "row of %llu blocks: %llu", (unsigned long long)row[i],
                 (unsigned long long)rt_window_blocks(&k, 8, r));
  }
  k.nsamples = 0;                    /* the first launch: its constant bound, 500 columns: 16 blocks */
  k.extent[0] = 500;
  cr_expect_eq(rt_row_blocks(&k, 32, 1), 16);
  cr_expect_eq(rt_window_blocks(&k, 8, rt_row_blocks(&k, 32, 1)), 24);
  cr_expect_eq(rt_row_blocks(&k, 32, 0), 0, "a step other than 1: no row from the bound");
  k.extent[0] = 512;                 /* whole blocks: the row's blocks are alike, two batches */
  cr_expect_eq(rt_row_blocks(&k, 32, 1), 0);
  k.extent[0] = 4095;                /* 128 blocks, over 4 batches: two batches (its edge 1/128) */
  cr_expect_eq(rt_row_blocks(&k, 32, 1), 128);
  cr_expect_eq(rt_window_blocks(&k, 8, 128), 16);
  k.extent[0] = 0;                   /* a bound known at run time: no row known */
  cr_expect_eq(rt_window_blocks(&k, 8, rt_row_blocks(&k, 32, 1)), 16);
  k.nsamples = 1;
  k.dims = 1;                        /* a 1-D grid is one row */
  cr_expect_eq(rt_window_blocks(&k, 8, rt_row_blocks(&k, 32, 1)), 16);
}

/* The window schedule (docs/pipeline.md, "Sampling", rt_window_index): windows of W blocks at 0,
   2W, 4W ... while the gaps double, then every `spacing` blocks (rt_window_spacing: the largest
   W 2^j, j >= 1, with at least 8 of them in the grid). W = 16, by hand. */
Test(converge, windows_stop_doubling_their_gaps_at_the_spacing) {
  cr_expect_eq(rt_window_spacing(16, 1024), 128, "1024 / 128 = 8 windows; 256 would give 4");
  cr_expect_eq(rt_window_spacing(16, 1023), 64);
  cr_expect_eq(rt_window_spacing(16, 100), 32, "a small grid: 2W");
  cr_expect_eq(rt_window_spacing(16, 0), 0, "no grid known: gaps double throughout");
  uint64_t start, pre, end;
  struct { uint64_t id, ext; int in; uint64_t start, pre, end; } c[] = {
    {0, 0, 1, 0, 0, 32},     {15, 0, 1, 0, 0, 32},   {20, 0, 0, 0, 0, 0},      {32, 0, 1, 32, 0, 64},
    {64, 0, 1, 64, 0, 128},  {79, 0, 1, 64, 0, 128}, {100, 0, 0, 0, 0, 0},     {128, 0, 1, 128, 0, 192},
    {150, 0, 0, 0, 0, 0},    {192, 0, 1, 192, 0, 256}, {120, 8, 1, 128, 8, 192}, {119, 8, 0, 0, 0, 0},
    {170, 100, 1, 192, 48, 256},                     /* an extension reaches back to the window before */
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    int k = rt_window_index(16, c[i].ext, 0, 64, c[i].id, &start, &pre, &end);
    cr_expect_eq(k >= 0, c[i].in, "block %llu", (unsigned long long)c[i].id);
    if (k < 0 || !c[i].in) continue;
    cr_expect_eq(start, c[i].start, "block %llu: start %llu", (unsigned long long)c[i].id, (unsigned long long)start);
    cr_expect_eq(pre, c[i].pre, "block %llu: pre %llu", (unsigned long long)c[i].id, (unsigned long long)pre);
    cr_expect_eq(end, c[i].end, "block %llu: region end %llu", (unsigned long long)c[i].id, (unsigned long long)end);
  }
  /* without a spacing the gaps double: 128 stands for up to 256, nothing between 144 and 256 */
  cr_expect_eq(rt_window_index(16, 0, 0, 0, 128, &start, &pre, &end), 3);
  cr_expect_eq(end, 256);
  cr_expect_lt(rt_window_index(16, 0, 0, 0, 192, &start, &pre, &end), 0);
}

/* A gap between two windows whose regions are as long is split between them (rt_wstat_centre,
   docs/pipeline.md "Sampling"), the launch's first window included: windows of 16 blocks at 0 and
   32 in a grid of 64 (regions [0, 32) and [32, 64)), 8 warps a block, the first idle (no load),
   the second 1000 coalesced loads. The first stands for [0, 24) and the second for [24, 64): 1000
   x 40 / 16 = 2500 loads in all (2000 when the first window kept its whole gap, LU's kernel 2 at
   N = 100: -5.5 % against `full`). Windows whose regions differ in length (gaps that double)
   keep theirs. By hand. */
Test(converge, the_gap_after_the_first_window_is_split_with_the_next) {
  rt_wstat a = {.first_counted = 0, .end = 16, .region_start = 0, .region_end = 32};
  rt_wstat b = {.first_counted = 32, .end = 48, .region_start = 32, .region_end = 64};
  a.tot.warps = b.tot.warps = 128;
  a.tot.blocks = b.tot.blocks = 16;
  b.tot.ld_insts[1] = 1000;
  rt_wstat_centre(&a, &b);
  cr_expect_eq(a.half_after, 8);
  cr_expect_eq(b.half_before, 8);
  cgp_totals sum = {0};
  double traced = 0;
  rt_launch_stats_add(&a, 64, 256, &sum, NULL, &traced);
  rt_launch_stats_add(&b, 64, 256, &sum, NULL, &traced);
  cr_expect_float_eq(sum.ld_insts[1], 2500, 1e-9, "%g loads", sum.ld_insts[1]);
  cr_expect_float_eq(sum.warps, 512, 1e-9, "every block's 8 warps: %g", sum.warps);
  cr_expect_float_eq(traced, 256, 1e-9);
  rt_wstat c = {.first_counted = 0, .end = 16, .region_start = 0, .region_end = 32};
  rt_wstat d = {.first_counted = 32, .end = 48, .region_start = 32, .region_end = 96};
  rt_wstat_centre(&c, &d);
  cr_expect_eq(c.half_after, 0, "regions of 32 and 64 blocks: no split");
  cr_expect_eq(d.half_before, 0);
}
