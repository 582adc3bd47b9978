/* test_analyzer.c: class and L2 lines of one warp memory instruction (MODEL.md section 3).
   Clean cases use 4-byte floats, 32 lanes, a base aligned to 256 bytes and 64-byte lines. */
#include <criterion/criterion.h>

#include "cgp_analyzer.h"

#define LINE 64
#define BASE UINT64_C(0x10000) /* 256-byte aligned */

static void strided(uint64_t *addr, unsigned n, uint64_t base, int64_t stride_bytes) {
  for (unsigned l = 0; l < n; l++) addr[l] = base + (uint64_t)((int64_t)l * stride_bytes);
}

static unsigned lines_of(const uint64_t *addr, unsigned n, unsigned elem, uint64_t *out) {
  unsigned k = cgp_lines(addr, n, elem, LINE, out);
  for (unsigned i = 1; i < k; i++) cr_assert_lt(out[i - 1], out[i], "lines not strictly ascending at %u", i);
  return k;
}

Test(classify, stride_0_is_constant_with_one_line) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE, 0);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_CONST);
  cr_assert_eq(lines_of(a, 32, 4, out), 1);
  cr_assert_eq(out[0], BASE / LINE);
}

Test(classify, stride_1_is_coalesced_with_two_lines) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE, 4);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_COAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 2);
  cr_assert_eq(out[0], BASE / LINE);
  cr_assert_eq(out[1], BASE / LINE + 1);
}

Test(classify, stride_2_is_uncoalesced_with_four_lines) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE, 8);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_UNCOAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 4);
}

Test(classify, stride_32_is_uncoalesced_with_32_lines) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE, 128);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_UNCOAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 32);
  for (unsigned i = 0; i < 32; i++) cr_assert_eq(out[i], BASE / LINE + 2 * i);
}

Test(classify, misaligned_stride_1_touches_three_lines) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE + 4, 4);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_COAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 3);
}

Test(classify, partial_warp_counts_only_active_lanes) {
  uint64_t a[8], out[16];
  strided(a, 8, BASE, 4);
  cr_assert_eq(cgp_classify(a, 8, 4), CGP_CLASS_COAL);
  cr_assert_eq(lines_of(a, 8, 4, out), 1);
  strided(a, 8, BASE, 128);
  cr_assert_eq(cgp_classify(a, 8, 4), CGP_CLASS_UNCOAL);
  cr_assert_eq(lines_of(a, 8, 4, out), 8);
}

Test(classify, single_active_lane_is_constant) {
  uint64_t a[1] = {BASE + 12}, out[2];
  cr_assert_eq(cgp_classify(a, 1, 4), CGP_CLASS_CONST);
  cr_assert_eq(lines_of(a, 1, 4, out), 1);
}

Test(classify, doubles_stride_1_are_coalesced_with_four_lines) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE, 8);
  cr_assert_eq(cgp_classify(a, 32, 8), CGP_CLASS_COAL);
  cr_assert_eq(lines_of(a, 32, 8, out), 4);
}

Test(classify, straddling_access_counts_both_lines) {
  uint64_t a[1] = {BASE + 62}, out[2];
  cr_assert_eq(lines_of(a, 1, 4, out), 2);
  cr_assert_eq(out[0], BASE / LINE);
  cr_assert_eq(out[1], BASE / LINE + 1);
}

Test(classify, access_ending_on_a_boundary_stays_in_one_line) {
  uint64_t a[1] = {BASE + 60}, out[2];
  cr_assert_eq(lines_of(a, 1, 4, out), 1);
}

Test(classify, reversed_stride_1_is_coalesced_and_lines_sorted) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE + 31 * 4, -4);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_COAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 2);
  cr_assert_eq(out[0], BASE / LINE);
  strided(a, 32, BASE + 31 * 128, -128);
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_UNCOAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 32);
}

Test(classify, one_wide_gap_makes_uncoalesced) {
  uint64_t a[32], out[64];
  strided(a, 32, BASE, 4);
  for (unsigned l = 16; l < 32; l++) a[l] += 4; /* lanes 15 and 16 are 2 elements apart */
  cr_assert_eq(cgp_classify(a, 32, 4), CGP_CLASS_UNCOAL);
  cr_assert_eq(lines_of(a, 32, 4, out), 3);
}

Test(classify, class_names) {
  cr_assert_str_eq(cgp_class_name(CGP_CLASS_CONST), "constant");
  cr_assert_str_eq(cgp_class_name(CGP_CLASS_COAL), "coalesced");
  cr_assert_str_eq(cgp_class_name(CGP_CLASS_UNCOAL), "uncoalesced");
}
