/* A run's footprint law and the launches of its untraced tail an L2 holds (runtime/cgp_rt_footprint.c,
   runtime/cgp_rt_tail.c; docs/model.md 5b, "A run's untraced last launches warm the caches by their
   footprint's law"). Each case by hand. */
#include <criterion/criterion.h>

#include "cgp_rt_internal.h"

static const uint8_t kinds[2] = {CGP_LOAD, CGP_STORE};

/* One traced launch of one block: site s's 32 lanes at base[s] + 4 l (128 bytes each), or, where
   spread, lanes 0 and 1 at base[s] and base[s] + 4096 (a range of 4100 bytes from 8 moved). */
static void launch(rt_footprint *f, const uint64_t base[2], int spread, uint64_t run, uint64_t pos) {
  rt_footprint_row_blocks(f, 1);
  for (uint32_t s = 0; s < 2; s++) {
    uint64_t a[32];
    for (unsigned l = 0; l < 32; l++) a[l] = base[s] + 4 * l;
    if (spread) a[1] = base[s] + 4096;
    rt_footprint_event(f, s, 0, a, spread ? 2 : 32, 4, 0, cgp_affine(a, spread ? 2 : 32));
  }
  rt_footprint_batch_end(f, 1);
  rt_footprint_launch_end(f, 1, run, pos);
}

/* the load's row and the store's row move down 1024 bytes a launch */
static void rows(rt_footprint *f, uint64_t run, const uint64_t pos[3]) {
  for (int i = 0; i < 3; i++) {
    uint64_t b[2] = {0x10000 + 1024 * pos[i], 0x90000 + 1024 * pos[i]};
    launch(f, b, 0, run, pos[i]);
  }
}

Test(tail, three_launches_of_a_run_moving_rigidly_give_the_law) {
  rt_footprint *f = rt_footprint_new(2, kinds);
  rows(f, 1, (const uint64_t[3]){5, 9, 10});
  rt_law law;
  cr_assert(rt_footprint_law(f, 1, &law));
  cr_expect_eq(law.n, 2);
  cr_expect_eq(law.ref, 10);
  cr_expect_eq(law.lo[0], 0x10000 + 10240);
  cr_expect_eq(law.hi[0], 0x10000 + 10240 + 128);
  cr_expect_eq(law.lo[1], 0x90000 + 10240);
  cr_expect_eq(law.delta[0], 1024);
  cr_expect_eq(law.delta[1], 1024);
  cr_expect_not(rt_footprint_law(f, 2, &law), "the law of another run");
  rt_law_free(&law);
  rt_footprint_free(f);
}

Test(tail, no_law_across_runs_off_the_line_or_from_a_range_longer_than_its_bytes) {
  rt_law law;
  rt_footprint *f = rt_footprint_new(2, kinds);
  rows(f, 1, (const uint64_t[3]){1, 2, 3});
  launch(f, (const uint64_t[2]){0x10000 + 4096, 0x90000 + 4096}, 0, 2, 1);   /* a new run's first */
  cr_expect_not(rt_footprint_law(f, 2, &law), "points of two runs");
  rt_footprint_free(f);

  f = rt_footprint_new(2, kinds);
  uint64_t pos[3] = {1, 2, 4}, lo[3] = {0, 1024, 5 * 1024};   /* 1024 a launch, then 2048 */
  for (int i = 0; i < 3; i++) launch(f, (const uint64_t[2]){0x10000 + lo[i], 0x90000 + 1024 * pos[i]}, 0, 1, pos[i]);
  cr_expect_not(rt_footprint_law(f, 1, &law), "a site off the line");
  rt_footprint_free(f);

  f = rt_footprint_new(2, kinds);
  for (uint64_t p = 1; p <= 3; p++) launch(f, (const uint64_t[2]){0x10000 + 1024 * p, 0x90000 + 1024 * p}, 1, 1, p);
  cr_expect_not(rt_footprint_law(f, 1, &law), "4100 bytes of range from 8 moved");
  rt_footprint_free(f);
}

/* One site of 3000 bytes moving 1000 a launch: the last launch adds 1000 bytes to the one before,
   so a 128 KiB L2 (131072 bytes) takes 1 + ceil(2 x 131072 / 1000) = 264 launches, within
   16 x 131072 / 3000 = 699 and the run's 500. */
Test(tail, the_launches_an_l2_holds_by_the_bytes_each_adds) {
  uint64_t lo = 1 << 20, hi = (1 << 20) + 3000;
  int64_t d = 1000;
  rt_tail t = {.len = 500, .law = {.ref = 100, .n = 1, .lo = &lo, .hi = &hi, .delta = &d}};
  cr_expect_eq(rt_tail_launches(&t, 131072), 264);
  t.len = 200;
  cr_expect_eq(rt_tail_launches(&t, 131072), 200, "no more than the run");
  d = 0;
  cr_expect_eq(rt_tail_launches(&t, 131072), 1, "a footprint that stays: its last launch");
  d = 1;                                                     /* adds 1 byte a launch */
  t.len = 100000;
  cr_expect_eq(rt_tail_launches(&t, 131072), 699, "16 L2s' worth of references at most");
  cr_expect_eq(rt_tail_launches(&t, 64 << 20), 11184, "32 MiB of references at most (2^25 / 3000)");
  hi = lo + (33 << 20);
  cr_expect_eq(rt_tail_launches(&t, 64 << 20), 0, "a launch of more than 32 MiB: none");
  uint64_t los[2] = {lo, lo}, his[2] = {lo + 3000, lo + 3000};
  int64_t ds[2] = {1000, 1000};
  rt_tail two = {.len = 500, .law = {.ref = 100, .n = 2, .lo = los, .hi = his, .delta = ds}};
  cr_expect_eq(rt_tail_launches(&two, 131072), 264, "two sites on one range: the same launches");
  his[0] = his[1] = lo + (20 << 20);                         /* 2 x 20 MiB referenced a launch */
  cr_expect_eq(rt_tail_launches(&two, 64 << 20), 0, "overlapping ranges counted each: 40 MiB, none");
  d = -(int64_t)(2 << 20);                                   /* launch 500 would lie below 0 */
  t.len = 500;
  cr_expect_eq(rt_tail_launches(&t, 131072), 0, "a law that leaves the address space");
}

/* The last traced launch's span: its sites' ranges, each byte once (rt_footprint_last_span, which
   rt_launch_at_cliff compares with each L2). Two rows of 128 bytes apart: 256; overlapping by 64
   (the store's row starts 64 bytes into the load's): 192; none traced yet: 0. */
Test(tail, the_last_launchs_span_counts_each_byte_once) {
  rt_footprint *f = rt_footprint_new(2, kinds);
  cr_assert_eq(rt_footprint_last_span(f), 0);
  launch(f, (const uint64_t[2]){0x10000, 0x90000}, 0, 1, 1);
  cr_assert_eq(rt_footprint_last_span(f), 256);
  launch(f, (const uint64_t[2]){0x10000, 0x10040}, 0, 1, 2);
  cr_assert_eq(rt_footprint_last_span(f), 192);
  launch(f, (const uint64_t[2]){0x10040, 0x10000}, 0, 1, 3);
  cr_assert_eq(rt_footprint_last_span(f), 192, "in either order");
  launch(f, (const uint64_t[2]){0x10000, 0x10000}, 1, 1, 4);
  cr_assert_eq(rt_footprint_last_span(f), 4100, "a range from lanes 4096 bytes apart");
  rt_footprint_free(f);
}

/* A warp on one stride is taken from its ends, whichever way it runs: 32 lanes from 0x20000 down
   by 8 bytes (0x20000 - 248 .. 0x20000 + 4) span 252 bytes, as the lane-by-lane walk finds; the
   launch's span (rt_footprint_last_span) is the same either way, and a lane moved out of line
   (lane 5 at 0x30000) is found by the walk. */
Test(tail, a_warp_on_one_stride_spans_from_its_first_lane_to_its_last) {
  uint64_t a[32];
  for (unsigned l = 0; l < 32; l++) a[l] = 0x20000 - 8 * l;
  uint64_t span[2];
  for (int affine = 0; affine < 2; affine++) {
    rt_footprint *f = rt_footprint_new(1, kinds);
    rt_footprint_row_blocks(f, 1);
    rt_footprint_event(f, 0, 0, a, 32, 4, 0, affine);
    rt_footprint_batch_end(f, 1);
    rt_footprint_launch_end(f, 1, 1, 1);
    span[affine] = rt_footprint_last_span(f);
    rt_footprint_free(f);
  }
  cr_expect_eq(span[0], 252);
  cr_expect_eq(span[1], 252);
  a[5] = 0x30000;
  cr_assert_eq(cgp_affine(a, 32), 0);
  rt_footprint *f = rt_footprint_new(1, kinds);
  rt_footprint_row_blocks(f, 1);
  rt_footprint_event(f, 0, 0, a, 32, 4, 0, cgp_affine(a, 32));
  rt_footprint_batch_end(f, 1);
  rt_footprint_launch_end(f, 1, 1, 1);
  cr_expect_eq(rt_footprint_last_span(f), 0x30000 + 4 - (0x20000 - 248));
  rt_footprint_free(f);
}
