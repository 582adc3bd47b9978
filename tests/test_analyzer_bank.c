/* test_analyzer_bank.c: shared-memory bank conflict degree (MODEL.md section 8). */
#include <criterion/criterion.h>

#include "cgp_analyzer.h"

static unsigned degree(uint64_t stride_bytes, unsigned elem, unsigned bank_bytes) {
  uint64_t a[32];
  for (unsigned l = 0; l < 32; l++) a[l] = 0x4000 + l * stride_bytes;
  return cgp_bank_conflict_degree(a, 32, elem, 32, bank_bytes);
}

Test(bank, stride_1_floats_are_conflict_free) { cr_assert_eq(degree(4, 4, 4), 1); }
Test(bank, stride_2_floats_are_2_way) { cr_assert_eq(degree(8, 4, 4), 2); }
Test(bank, stride_32_floats_are_32_way) { cr_assert_eq(degree(128, 4, 4), 32); }
Test(bank, same_address_broadcasts) { cr_assert_eq(degree(0, 4, 4), 1); }
Test(bank, doubles_span_two_4_byte_words) { cr_assert_eq(degree(8, 8, 4), 2); }
Test(bank, doubles_in_8_byte_banks_are_conflict_free) { cr_assert_eq(degree(8, 8, 8), 1); }

Test(bank, two_lanes_on_one_word_and_one_on_another_bank_word) {
  uint64_t a[3] = {0, 0, 128}; /* words 0, 0 and 32: same bank, two distinct words */
  cr_assert_eq(cgp_bank_conflict_degree(a, 3, 4, 32, 4), 2);
}

Test(bank, zero_banks_or_bank_bytes_are_rejected) {
  uint64_t a[1] = {0};
  cr_assert_eq(cgp_bank_conflict_degree(a, 1, 4, 0, 4), 0);
  cr_assert_eq(cgp_bank_conflict_degree(a, 1, 4, 32, 0), 0);
}
