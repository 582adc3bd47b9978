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

Test(bank, stride_33_floats_a_padded_tile_column_is_conflict_free) { cr_assert_eq(degree(33 * 4, 4, 4), 1); }
Test(bank, stride_32_floats_in_kepler_8_byte_banks_are_16_way) { cr_assert_eq(degree(128, 4, 8), 16); }

/* Passes of 16-byte loads: a half-warp at a time (docs/model.md 8b). */
static unsigned passes16(uint64_t stride_bytes) {
  uint64_t a[32];
  uint8_t lane[32];
  for (unsigned l = 0; l < 32; l++) { a[l] = 0x4000 + l * stride_bytes; lane[l] = (uint8_t)l; }
  return cgp_bank_wavefronts(a, lane, 32, 16, 32, 4);
}

Test(bank, a_16_byte_load_at_one_address_takes_one_pass_per_half_warp) { cr_assert_eq(passes16(0), 2); }
Test(bank, a_16_byte_load_of_consecutive_words_takes_4_passes) {
  /* 512 bytes: each half-warp 256 bytes over 32 banks of 4 bytes: 2 words per bank */
  cr_assert_eq(passes16(16), 4);
}
Test(bank, a_16_byte_load_down_a_32_float_column_takes_32_passes) {
  /* syrk_tiled's Bs[tx][k..k+3]: each half's 16 lanes on banks k..k+3, 16 words each */
  cr_assert_eq(passes16(128), 32);
}
Test(bank, accesses_up_to_8_bytes_take_their_degree) {
  uint64_t a[32];
  uint8_t lane[32];
  for (unsigned l = 0; l < 32; l++) { a[l] = l * 128; lane[l] = (uint8_t)l; }
  cr_assert_eq(cgp_bank_wavefronts(a, lane, 32, 4, 32, 4), 32);
}

/* The fast degree against the reference on random warps: strides, broadcasts, random addresses,
   element sizes 1 to 16, 4-, 8- and 12-byte banks, 16 to 64 banks and 24 (the fast form shifts
   and masks for powers of two, divides otherwise: both against the reference). Descending lanes
   stay above address 0: a stride that wrapped below it would put the words' banks modulo 2^64,
   where a bank count that is no power of two differs (no GPU address wraps). */
Test(bank, fast_degree_equals_the_reference_on_random_warps) {
  uint64_t seed = 12345, a[32];
  for (int t = 0; t < 20000; t++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    unsigned n = 1 + (unsigned)(seed >> 59), kind = (unsigned)(seed >> 40) % 4;
    unsigned elem = 1u << ((seed >> 30) % 5), bank_bytes = (seed >> 20) % 3 == 2 ? 12 : (seed >> 20) % 3 ? 8 : 4;
    unsigned banks = (seed >> 10) % 4 == 3 ? 24 : 16u << ((seed >> 10) % 4);
    uint64_t stride = (seed >> 45) % 300;
    for (unsigned l = 0; l < n; l++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      a[l] = kind == 0 ? 4096 + l * stride : kind == 1 ? 4096 : kind == 2 ? (seed >> 33) % 8192 : 16384 - l * stride;
    }
    unsigned ref = cgp_bank_conflict_degree_ref(a, n, elem, banks, bank_bytes);
    cr_assert_eq(cgp_bank_conflict_degree(a, n, elem, banks, bank_bytes), ref, "case %d", t);
    /* told whether the lanes are on one stride (the analysis passes the instruction's affine) */
    cr_assert_eq(cgp_bank_conflict_degree_known(a, n, elem, banks, bank_bytes, cgp_affine(a, n)), ref, "case %d", t);
  }
}

/* The passes of a 16-byte access told its lanes' stride equal those found without it, half-warp
   by half-warp: ascending lanes on strides 0 to 40 bytes, every lane or the first n. */
Test(bank, wavefronts_told_the_stride_equal_those_found_without_it) {
  uint64_t a[32];
  uint8_t lane[32];
  for (uint64_t stride = 0; stride <= 40; stride += 4)
    for (unsigned n = 1; n <= 32; n++) {
      for (unsigned l = 0; l < n; l++) { a[l] = 4096 + l * stride; lane[l] = (uint8_t)l; }
      for (unsigned elem = 4; elem <= 16; elem *= 2)
        cr_assert_eq(cgp_bank_wavefronts_known(a, lane, n, elem, 32, 4, cgp_affine(a, n)),
                     cgp_bank_wavefronts(a, lane, n, elem, 32, 4), "stride %llu, %u lanes, %u bytes",
                     (unsigned long long)stride, n, elem);
    }
}

/* Lanes a word or less apart, or no further apart than their element, leave no word out between
   the lowest and the highest: the fast degree is the run's, ceil(words / banks). By hand: 32
   floats side by side on 32 banks of 8 bytes are 16 words, one pass; 32 doubles on banks of 4
   bytes are 64 words, two; 32 floats 2 bytes apart, from byte 6, on 4-byte banks cover bytes
   6..71, words 1..17, 17 words, one pass; the same 32 floats backwards, one pass. */
Test(bank, lanes_a_word_or_less_apart_take_the_run_of_words_they_cover) {
  uint64_t a[32];
  for (unsigned l = 0; l < 32; l++) a[l] = 4096 + 4 * l;
  cr_assert_eq(cgp_bank_conflict_degree(a, 32, 4, 32, 8), 1);
  for (unsigned l = 0; l < 32; l++) a[l] = 4096 + 8 * l;
  cr_assert_eq(cgp_bank_conflict_degree(a, 32, 8, 32, 4), 2);
  for (unsigned l = 0; l < 32; l++) a[l] = 6 + 2 * l;
  cr_assert_eq(cgp_bank_conflict_degree(a, 32, 4, 32, 4), 1);
  for (unsigned l = 0; l < 32; l++) a[l] = 4096 + 4 * (31 - l);
  cr_assert_eq(cgp_bank_conflict_degree(a, 32, 4, 32, 8), 1);
  /* and against the reference: every stride up to 17 bytes either way, elements 1 to 16 bytes,
     every start within 16 bytes, 4-, 8- and 12-byte banks, 16, 24 and 32 banks */
  for (int dir = -1; dir <= 1; dir += 2)
    for (uint64_t stride = 0; stride <= 17; stride++)
      for (unsigned elem = 1; elem <= 16; elem *= 2)
        for (uint64_t start = 0; start < 16; start++)
          for (unsigned bb = 4; bb <= 12; bb += 4)
            for (unsigned banks = 16; banks <= 32; banks += 8) {
              for (unsigned l = 0; l < 32; l++) a[l] = 8192 + start + (uint64_t)((int64_t)dir * (int64_t)(stride * l));
              cr_assert_eq(cgp_bank_conflict_degree(a, 32, elem, banks, bb),
                           cgp_bank_conflict_degree_ref(a, 32, elem, banks, bb),
                           "stride %d x %llu, elem %u, start %llu, %u banks of %u", dir, (unsigned long long)stride,
                           elem, (unsigned long long)start, banks, bb);
            }
}
