/* Footprints (analyzer/cgp_footprint.c, docs/model.md section 12): the range set against a byte
   map (the obviously-correct reference), and the two extrapolations on hand-computed examples. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_analyzer.h"

Test(footprint, ranges_count_each_byte_once_as_a_byte_map_does) {
  enum { SPACE = 4096 };
  srand(7);
  for (int trial = 0; trial < 200; trial++) {
    static unsigned char map[SPACE], not_map[SPACE];
    memset(map, 0, sizeof map);
    memset(not_map, 0, sizeof not_map);
    cgp_ranges r, not, outside;
    cgp_ranges_init(&r);
    cgp_ranges_init(&not);
    cgp_ranges_init(&outside);
    int n = 1 + rand() % 40;
    for (int i = 0; i < n; i++) {
      uint64_t lo = (uint64_t)(rand() % SPACE), len = (uint64_t)(rand() % 200);
      uint64_t hi = lo + len > SPACE ? SPACE : lo + len;
      cr_assert_eq(cgp_ranges_add(&r, lo, hi), 0);
      for (uint64_t b = lo; b < hi; b++) map[b] = 1;
      lo = (uint64_t)(rand() % SPACE);
      len = (uint64_t)(rand() % 100);
      hi = lo + len > SPACE ? SPACE : lo + len;
      cr_assert_eq(cgp_ranges_add(&not, lo, hi), 0);
      for (uint64_t b = lo; b < hi; b++) not_map[b] = 1;
    }
    uint64_t bytes = 0, out_bytes = 0;
    for (int b = 0; b < SPACE; b++) bytes += map[b], out_bytes += map[b] && !not_map[b];
    cr_assert_eq(cgp_ranges_bytes(&r), bytes, "trial %d", trial);
    for (size_t i = 0; i + 1 < r.n; i++) cr_assert_lt(r.r[i].hi, r.r[i + 1].lo);   /* sorted, apart */
    for (size_t i = 0; i < r.n; i++)
      cr_assert_eq(cgp_ranges_add_outside(&outside, r.r[i].lo, r.r[i].hi, &not), 0);
    cr_assert_eq(cgp_ranges_bytes(&outside), out_bytes, "trial %d", trial);
    cgp_ranges_free(&r);
    cgp_ranges_free(&not);
    cgp_ranges_free(&outside);
  }
}

Test(footprint, past_the_cap_the_closest_ranges_join_counting_more_never_less) {
  cgp_ranges r;
  cgp_ranges_init(&r);
  for (uint64_t i = 0; i <= CGP_RANGES_MAX; i++) cr_assert_eq(cgp_ranges_add(&r, 100 * i, 100 * i + 10), 0);
  cr_assert_eq(r.n, CGP_RANGES_MAX);
  /* CGP_RANGES_MAX + 1 ranges of 10 bytes, 90 apart: one gap of 90 joined */
  cr_assert_eq(cgp_ranges_bytes(&r), 10 * (CGP_RANGES_MAX + 1) + 90);
  cgp_ranges_free(&r);
}

Test(footprint, a_sampled_instruction_reaches_over_the_iterations_it_stands_for) {
  /* a 4-byte load at 1000..1004 stepping 4096 bytes an iteration (a column), standing for 7
     executions per iteration of a 256-iteration window: 7 x 256 iterations further, up to
     1004 + 4096 x 1792 */
  uint64_t lo, hi;
  cgp_footprint_event(1000, 1004, 4096, 7, 256, &lo, &hi);
  cr_expect_eq(lo, 1000);
  cr_expect_eq(hi, 1004 + 4096ull * 1792);
  cgp_footprint_event(1000000, 1000004, -8, 15, 128, &lo, &hi);          /* descending */
  cr_expect_eq(lo, 1000000 - 8 * 1920);
  cr_expect_eq(hi, 1000004);
  cgp_footprint_event(1000, 1004, 4096, 0, 256, &lo, &hi);                /* nothing skipped */
  cr_expect_eq(hi, 1004);
}

Test(footprint, a_range_moving_with_the_blocks_is_carried_to_the_grids_end) {
  /* rows of 4096 bytes, one block a row: batches ending at blocks 8 and 16 reach 8 x 4096 and
     16 x 4096; a grid of 64 blocks reaches 64 x 4096 */
  cgp_extent e;
  cgp_extent_reset(&e);
  cgp_extent_note(&e, 8, 0, 8 * 4096, 1);
  cgp_extent_note(&e, 16, 8 * 4096, 16 * 4096, 1);
  uint64_t lo, hi;
  cr_assert(cgp_extent_final(&e, 64, &lo, &hi));
  cr_expect_eq(lo, 0);
  cr_expect_eq(hi, 64 * 4096);
  /* a range every batch reads whole (GEMM's B) stays as it is */
  cgp_extent_reset(&e);
  cgp_extent_note(&e, 8, 0, 1 << 20, 1);
  cgp_extent_note(&e, 16, 0, 1 << 20, 1);
  cr_assert(cgp_extent_final(&e, 64, &lo, &hi));
  cr_expect_eq(hi, 1 << 20);
  /* every block traced: nothing to carry */
  cgp_extent_reset(&e);
  cgp_extent_note(&e, 8, 0, 100, 1);
  cgp_extent_note(&e, 16, 100, 200, 1);
  cr_assert(cgp_extent_final(&e, 16, &lo, &hi));
  cr_expect_eq(hi, 200);
  cgp_extent_reset(&e);
  cr_expect_not(cgp_extent_final(&e, 16, &lo, &hi));                      /* no batch: none */
}

Test(footprint, a_2d_grid_is_carried_by_whole_rows_of_blocks) {
  /* C[i][j] of a 512 x 512 float matrix (rows of 2048 bytes) in blocks of 32 x 8: 16 blocks a row
     of blocks, each row of blocks 8 rows of C (16384 bytes). Batches of 8 blocks ending at 8 and
     16 (window 0), 48 and 80 (the measured halves of windows 32 and 64). A batch's range ends at
     the last row it reaches, up to its last column: block 7 ends row 7 at byte 7 x 2048 + 8 x 128
     = 15360, block 15 row 7's end, 16384; block 47 row 23's end, 49152; block 79 row 39's end,
     81920. The slope from the first batch to the last (66560 bytes over 72 blocks) carries 81920
     to 954,595 by block 1024, 9 % short; the slope between the batches ending rows (16, 48, 80:
     65536 bytes over 64 blocks, 1024 a block) carries it to 1024 x 1024 = 1,048,576, C's end. */
  cgp_extent e;
  cgp_extent_reset(&e);
  cgp_extent_note(&e, 8, 0, 15360, 0);
  cgp_extent_note(&e, 16, 0, 16384, 1);
  cgp_extent_note(&e, 48, 32768, 49152, 1);
  cgp_extent_note(&e, 80, 65536, 81920, 1);
  uint64_t lo, hi;
  cr_assert(cgp_extent_final(&e, 1024, &lo, &hi));
  cr_expect_eq(lo, 0);
  cr_expect_eq(hi, 1048576);
  /* with no row's end among them, the slope of all batches, as a 1-D grid's */
  cgp_extent_reset(&e);
  cgp_extent_note(&e, 8, 0, 15360, 0);
  cgp_extent_note(&e, 80, 65536, 81920, 0);
  cr_assert(cgp_extent_final(&e, 1024, &lo, &hi));
  cr_expect_eq(hi, 81920 + (uint64_t)(66560.0 / 72 * 944));
}
