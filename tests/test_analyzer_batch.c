/* test_analyzer_batch.c: resident warps interleaved round robin into the L2 (MODEL.md section 4). */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_analyzer.h"

#define LINE 64


/* Warp A: sids 0, 1, 2 on lines 1, 2, 1. Warp B: sids 3, 4 on lines 1, 3. In a 2-line LRU,
   round robin issues A0 (1 miss), B3 (1 hit: A0 brought it in), A1 (2 miss), B4 (3 miss, evicts
   1), A2 (1 miss). Warp after warp would give misses 1 1 0 0 1 instead. */
Test(batch, round_robin_interleaves_one_instruction_per_warp) {
  static const uint64_t la[] = {1, 2, 1}, lb[] = {1, 3};
  const cgp_winst a[] = {{0, CGP_CLASS_CONST, 0, 1}, {1, CGP_CLASS_CONST, 0, 1}, {2, CGP_CLASS_CONST, 0, 1}};
  const cgp_winst b[] = {{3, CGP_CLASS_CONST, 0, 1}, {4, CGP_CLASS_CONST, 1, 1}};
  const cgp_warp_trace warps[] = {{a, 3, la}, {b, 2, lb}};
  cgp_l2 *c = cgp_l2_new(2 * LINE, LINE, 0, CGP_L2_FULLY_ASSOCIATIVE);
  cr_assert_not_null(c);
  uint64_t trans[5] = {0}, miss[5] = {0};
  cgp_class_totals tot;
  memset(&tot, 0, sizeof tot);
  cgp_l2_run_batch(c, warps, 2, 1, &tot, trans, miss, 5);
  static const uint64_t want_miss[5] = {1, 1, 1, 0, 1};
  for (unsigned s = 0; s < 5; s++) {
    cr_assert_eq(miss[s], want_miss[s], "sid %u", s);
    cr_assert_eq(trans[s], 1, "sid %u", s);
  }
  cr_assert_eq(tot.insts[CGP_CLASS_CONST], 5);
  cr_assert_eq(tot.dram[CGP_CLASS_CONST], 4);
  cgp_l2_free(c);
}

/* One warp: coalesced {0,1} 2 misses, coalesced {1,2} 1 miss, uncoalesced {10,20,30} 3 misses,
   constant {0} a hit. Totals are added to what *tot already holds. */
Test(batch, per_class_totals_add_instructions_lines_and_misses) {
  static const uint64_t lines[] = {0, 1, /* */ 1, 2, /* */ 10, 20, 30, /* */ 0};
  const cgp_winst w[] = {{0, CGP_CLASS_COAL, 0, 2}, {0, CGP_CLASS_COAL, 0, 2},
                         {1, CGP_CLASS_UNCOAL, 1, 3}, {2, CGP_CLASS_CONST, 0, 1}};
  const cgp_warp_trace warp = {w, 4, lines};
  cgp_l2 *c = cgp_l2_new(1024 * LINE, LINE, 0, CGP_L2_FULLY_ASSOCIATIVE);
  cr_assert_not_null(c);
  cgp_class_totals tot = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  uint64_t trans[2] = {0}, miss[2] = {0}; /* nsid 2: sid 2 is out of range and skipped */
  cgp_l2_run_batch(c, &warp, 1, 1, &tot, trans, miss, 2);
  cr_assert_eq(tot.insts[CGP_CLASS_CONST], 2);
  cr_assert_eq(tot.insts[CGP_CLASS_COAL], 3);
  cr_assert_eq(tot.insts[CGP_CLASS_UNCOAL], 2);
  cr_assert_eq(tot.trans[CGP_CLASS_CONST], 2);
  cr_assert_eq(tot.trans[CGP_CLASS_COAL], 5);
  cr_assert_eq(tot.trans[CGP_CLASS_UNCOAL], 4);
  cr_assert_eq(tot.dram[CGP_CLASS_CONST], 1);
  cr_assert_eq(tot.dram[CGP_CLASS_COAL], 4);
  cr_assert_eq(tot.dram[CGP_CLASS_UNCOAL], 4);
  cr_assert_eq(trans[0], 4);
  cr_assert_eq(miss[0], 3);
  cr_assert_eq(trans[1], 3);
  cr_assert_eq(miss[1], 3);
  cgp_l2_run_batch(c, &warp, 1, 1, NULL, NULL, miss, 2); /* NULL outputs are allowed */
  cr_assert_eq(miss[0], 3, "second pass must hit everywhere");
  cgp_l2_free(c);
}

Test(batch, count_zero_warms_without_counting) {
  static const uint64_t l[] = {5, 6, 7};
  const cgp_winst w[] = {{0, CGP_CLASS_UNCOAL, 0, 3}};
  const cgp_warp_trace warp = {w, 1, l};
  cgp_l2 *c = cgp_l2_new(64 * LINE, LINE, 4, CGP_L2_XOR);
  cr_assert_not_null(c);
  cgp_class_totals tot;
  memset(&tot, 0, sizeof tot);
  uint64_t trans[1] = {0}, miss[1] = {0};
  cgp_l2_run_batch(c, &warp, 1, 0, &tot, trans, miss, 1);
  cr_assert_eq(tot.insts[CGP_CLASS_UNCOAL], 0);
  cr_assert_eq(tot.trans[CGP_CLASS_UNCOAL], 0);
  cr_assert_eq(trans[0], 0);
  cgp_l2_run_batch(c, &warp, 1, 1, &tot, trans, miss, 1);
  cr_assert_eq(tot.insts[CGP_CLASS_UNCOAL], 1);
  cr_assert_eq(tot.trans[CGP_CLASS_UNCOAL], 3);
  cr_assert_eq(tot.dram[CGP_CLASS_UNCOAL], 0, "the warm-up batch must have filled the cache");
  cr_assert_eq(miss[0], 0);
  cgp_l2_free(c);
}
