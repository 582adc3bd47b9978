/* test_analyzer.c: class and L2 lines of one warp memory instruction (MODEL.md section 3).
   Clean cases use 4-byte floats, 32 lanes, a base aligned to 256 bytes and 64-byte lines. */
#include <criterion/criterion.h>
#include <stdlib.h>

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

/* A divergent warp: lanes 0, 5, 9 and 30 active, each reading a[lane]. The lanes between them
   would have filled the gaps: coalesced (two lines of 64 bytes), where neighbour by neighbour it looked 5
   elements wide. The same lanes reading a[32 * lane] stay uncoalesced, all reading a[0] constant. */
Test(classify, a_divergent_warps_consecutive_elements_are_coalesced) {
  const uint8_t lane[4] = {0, 5, 9, 30};
  uint64_t a[4], out[8];
  for (unsigned k = 0; k < 4; k++) a[k] = BASE + 4u * lane[k];
  cr_assert_eq(cgp_classify(a, 4, 4), CGP_CLASS_UNCOAL, "without the lanes: gaps");
  cr_assert_eq(cgp_classify_lanes(a, lane, 4, 4, cgp_affine(a, 4)), CGP_CLASS_COAL);
  cr_assert_eq(lines_of(a, 4, 4, out), 2, "the lines of the whole warp's a[tid]");
  for (unsigned k = 0; k < 4; k++) a[k] = BASE + 128u * lane[k];
  cr_assert_eq(cgp_classify_lanes(a, lane, 4, 4, 0), CGP_CLASS_UNCOAL);
  for (unsigned k = 0; k < 4; k++) a[k] = BASE;
  cr_assert_eq(cgp_classify_lanes(a, lane, 4, 4, 1), CGP_CLASS_CONST);
  const uint8_t all[3] = {3, 4, 5};              /* no gap: as cgp_classify */
  uint64_t b[3] = {BASE, BASE + 8, BASE + 16};
  cr_assert_eq(cgp_classify_lanes(b, all, 3, 4, 1), CGP_CLASS_UNCOAL);
}

/* Addresses that follow the thread index, whatever the block shape, against those the data
   chose. 1-D: a[7 * tid] does; a random pick does not. A divergent warp on its stride does; one
   lane off it of four neighbour pairs is too many. 2-D, a warp of two rows of 16 (block 16 x 16):
   A[x][y] of a 1024-column row-major array, x and y the thread's, does; A[x * x] does not. A few
   lanes elsewhere (sad's edge threads reading a padded row) leave the rest's stride. */
Test(classify, addresses_on_a_stride_of_the_thread_index_or_chosen_by_the_data) {
  uint64_t key[32], a[32];
  uint8_t lane[32];
  for (unsigned l = 0; l < 32; l++) {
    lane[l] = (uint8_t)l;
    key[l] = 64 + l;
    a[l] = BASE + 28u * (64 + l);
  }
  cr_assert(cgp_on_thread_stride(a, lane, key, 32, 1));
  static const unsigned pick[32] = {3, 0, 7, 7, 1, 11, 2, 0, 5, 9, 3, 3, 8, 0, 1, 4,
                                    6, 2, 10, 7, 0, 0, 3, 5, 1, 9, 2, 4, 8, 6, 11, 1};
  for (unsigned l = 0; l < 32; l++) a[l] = BASE + 4u * pick[l];
  cr_assert_not(cgp_on_thread_stride(a, lane, key, 32, 1), "num_nucs[mat], mat picked at random");
  uint8_t some[5] = {2, 6, 7, 20, 31};              /* a divergent warp still on its stride */
  uint64_t b[5];
  for (unsigned k = 0; k < 5; k++) b[k] = BASE + 4096u * (64 + some[k]);
  cr_assert(cgp_on_thread_stride(b, some, key, 5, 1));
  b[3] += 8;
  cr_assert_not(cgp_on_thread_stride(b, some, key, 5, 1));
  for (unsigned l = 0; l < 32; l++) {              /* 2-D: x = 16 + l % 16, y = 8 + l / 16 */
    uint64_t x = 16 + l % 16, y = 8 + l / 16;
    key[l] = cgp_thread_key(2, x, y, 0);
    a[l] = BASE + 4096u * x + 4u * y;
  }
  cr_assert(cgp_on_thread_stride(a, lane, key, 32, 2), "two rows of a 16-wide block");
  for (unsigned l = 0; l < 32; l++) {
    uint64_t x = 16 + l % 16;
    a[l] = BASE + 4u * x * x;
  }
  cr_assert_not(cgp_on_thread_stride(a, lane, key, 32, 2));
  cr_assert(cgp_on_thread_stride(a, lane, key, 2, 2), "two lanes are always on a stride");
  for (unsigned l = 0; l < 32; l++) {              /* 1-D, Parboil's sad: edge threads read a */
    key[l] = 64 + l;                               /* padded copy at one address */
    a[l] = l < 2 || l > 29 ? BASE + 0x100000 : BASE + 32u * (64 + l);
  }
  cr_assert(cgp_on_thread_stride(a, lane, key, 32, 1), "26 of 31 neighbours 32 bytes a step");
  for (unsigned l = 0; l < 32; l++) a[l] = l % 4 == 0 ? BASE + 0x100000 : BASE + 32u * (64 + l);
  cr_assert_not(cgp_on_thread_stride(a, lane, key, 32, 1), "15 of 31 are not three quarters");
}

Test(classify, class_names) {
  cr_assert_str_eq(cgp_class_name(CGP_CLASS_CONST), "constant");
  cr_assert_str_eq(cgp_class_name(CGP_CLASS_COAL), "coalesced");
  cr_assert_str_eq(cgp_class_name(CGP_CLASS_UNCOAL), "uncoalesced");
}

/* The brute-force reference: every byte of every lane's element, its line, sorted and deduped. */
static unsigned lines_reference(const uint64_t *addr, unsigned n, unsigned elem, unsigned line, uint64_t *out) {
  unsigned k = 0;
  for (unsigned l = 0; l < n; l++)
    for (unsigned b = 0; b < (elem ? elem : 1); b++) {
      uint64_t m = (addr[l] + b) / line;
      unsigned i = 0;
      while (i < k && out[i] < m) i++;
      if (i < k && out[i] == m) continue;
      for (unsigned j = k; j > i; j--) out[j] = out[j - 1];
      out[i] = m;
      k++;
    }
  return k;
}

/* Lanes ascending, descending, strided, shuffled, partial, misaligned, elements of 1 to 16 bytes,
   lines of 32, 64, 128 and 48 bytes (the division path): the lines of warps on one stride (read
   as a range, or walked from the lowest lane) and of the others (lane by lane) are the
   reference's, and the class is what its definition says (no two lanes apart: constant;
   neighbours at most an element apart: coalesced), both with cgp_affine's answer and without. */
Test(classify, lines_and_classes_agree_with_the_brute_force_reference) {
  const unsigned elems[] = {1, 2, 4, 8, 12, 16}, lines[] = {32, 64, 128, 48};
  uint64_t seed = 12345;
  unsigned affine = 0;
  for (unsigned trial = 0; trial < 4000; trial++) {
    uint64_t a[32], fast[32 * 17], ref[32 * 17];
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    unsigned n = 1 + (unsigned)(seed >> 59), elem = elems[(seed >> 40) % 6], line = lines[(seed >> 30) % 4];
    /* bytes: -4 .. 4 elements, or any of -150 .. 150 (gaps shorter and longer than a line) */
    int64_t stride = (seed >> 45) % 2 ? ((int64_t)((seed >> 20) % 9) - 4) * (int64_t)elem
                                      : (int64_t)((seed >> 20) % 301) - 150;
    uint64_t base = UINT64_C(1) << 32 | ((seed >> 8) % 512);
    for (unsigned l = 0; l < n; l++) a[l] = base + (uint64_t)((int64_t)l * stride);
    if (trial % 3 == 0)
      for (unsigned l = n; l > 1; l--) {                   /* shuffled */
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        unsigned j = (unsigned)(seed >> 33) % l;
        uint64_t t = a[l - 1]; a[l - 1] = a[j]; a[j] = t;
      }
    unsigned kr = lines_reference(a, n, elem, line, ref);
    for (int known = 0; known < 2; known++) {        /* cgp_affine's answer, or none (lane by lane) */
      unsigned k = known ? cgp_lines(a, n, elem, line, fast) : cgp_lines_known(a, n, elem, line, 0, fast);
      cr_assert_eq(k, kr, "trial %u (%d): %u lines, the reference %u", trial, known, k, kr);
      for (unsigned i = 0; i < k; i++) cr_assert_eq(fast[i], ref[i], "trial %u (%d): line %u", trial, known, i);
    }
    /* by definition: every lane at lane 0's address; else every neighbour within an element */
    unsigned at0 = 0, near = 0;
    for (unsigned l = 0; l < n; l++) {
      at0 += a[l] == a[0];
      near += l == 0 || llabs((long long)(a[l] - a[l - 1])) <= (long long)elem;
    }
    cgp_class want = at0 == n ? CGP_CLASS_CONST : near == n ? CGP_CLASS_COAL : CGP_CLASS_UNCOAL;
    cr_assert_eq(cgp_classify(a, n, elem), want, "trial %u", trial);
    cr_assert_eq(cgp_classify_known(a, n, elem, 0), want, "trial %u, lane by lane", trial);
    affine += cgp_affine(a, n);
  }
  cr_assert(affine > 1500 && affine < 3500, "%u of 4000 warps on one stride: both paths taken", affine);
}

/* Column walks: lanes a whole number of lines apart (1 to 3 lines, and 4096 bytes), ascending and
   descending, at every offset in the line for elements of 1 to 16 bytes (inside one line, where
   each lane is a line of its own, and straddling two), on warps of 2 to 32 lanes: the lines
   cgp_lines finds for a warp on one stride are the brute-force reference's. */
Test(classify, lanes_whole_lines_apart_take_a_line_each_as_the_reference_does) {
  const unsigned elems[] = {1, 4, 8, 16}, lines[] = {32, 64, 128};
  unsigned one_each = 0;
  for (unsigned li = 0; li < 3; li++)
    for (unsigned ei = 0; ei < 4; ei++)
      for (int m = -4; m <= 4; m++) {
        if (m == 0) continue;
        int64_t stride = m == 4 ? 4096 : m == -4 ? -4096 : (int64_t)m * lines[li];
        for (unsigned off = 0; off < lines[li]; off += elems[ei] / 2 + 1)
          for (unsigned n = 2; n <= 32; n += 5) {
            uint64_t a[32], got[32 * 17], want[32 * 17];
            uint64_t base = (UINT64_C(1) << 32) + 16 * 4096 + off;
            for (unsigned l = 0; l < n; l++) a[l] = base + (uint64_t)((int64_t)l * stride);
            unsigned k = cgp_lines(a, n, elems[ei], lines[li], got), kr = lines_reference(a, n, elems[ei], lines[li], want);
            cr_assert_eq(k, kr, "line %u elem %u stride %lld offset %u lanes %u", lines[li], elems[ei], (long long)stride,
                         off, n);
            for (unsigned i = 0; i < k; i++) cr_assert_eq(got[i], want[i], "line %u elem %u stride %lld offset %u: %u",
                                                          lines[li], elems[ei], (long long)stride, off, i);
            one_each += k == n;
          }
      }
  cr_assert_gt(one_each, 1000, "most walks take a line a lane");
}

/* cgp_affine against its definition (every lane at lane 0's address plus its lane number times
   lane 1's distance, modulo 2^64), on every warp size, with one lane moved by one byte at each
   position in turn (the two-lane steps and the last odd lane each see one), and on strides that
   wrap below 0. */
Test(classify, affine_is_one_stride_for_every_lane_and_only_then) {
  for (unsigned n = 0; n <= 32; n++)
    for (int stride = -9; stride <= 9; stride += 3)
      for (int moved = -1; moved < (int)n; moved++) {
        uint64_t a[32];
        for (unsigned l = 0; l < n; l++) a[l] = 100 + (uint64_t)((int64_t)l * stride);
        if (moved >= 0) a[moved] += 1;
        int want = n >= 2;
        for (unsigned l = 0; l < n && want; l++) want = a[l] == a[0] + (uint64_t)l * (a[1] - a[0]);
        cr_assert_eq(cgp_affine(a, n), want, "n %u, stride %d, lane %d moved", n, stride, moved);
      }
}

/* An access within an element of 2^64 (a hostile trace's address: the trace fuzzer's fast
   configuration found it in 30 s) touches the lines up to the top of the address space and no
   further: its last byte wrapped to near 0, and the walk from its first line ran on past 2^64
   lines, writing beyond out[] (heap-buffer-overflow in the cache analysis's unit buffer). */
Test(classify, an_access_at_the_top_of_the_address_space_stays_within_its_lines) {
  const unsigned lines[] = {32, 48};                 /* the shift path and the division path */
  for (unsigned i = 0; i < 2; i++) {
    uint64_t a[3] = {UINT64_MAX - 2, UINT64_MAX - 100, UINT64_MAX - 2}, out[2 * 3 * 8] = {0};
    for (unsigned n = 1; n <= 3; n++) {
      unsigned k = cgp_lines_known(a, n, 16, lines[i], 0, out);
      cr_assert(k >= 1 && k <= 3, "line %u, %u lanes: %u lines (at most two each, three in all)", lines[i], n, k);
      cr_assert_eq(out[k - 1], UINT64_MAX / lines[i], "line %u: the last line is the top one", lines[i]);
      for (unsigned j = 1; j < k; j++) cr_assert_lt(out[j - 1], out[j]);
    }
  }
}

/* cgp_log2(v) is the least s with 2^s >= v (0 for v <= 1): against that definition, on every
   v below 2^16, each power of two and its neighbours, and the top of the range. */
Test(classify, log2_is_the_least_power_of_two_at_or_above) {
  for (uint64_t v = 0; v < (UINT64_C(1) << 16); v++) {
    unsigned s = 0;
    while (s < 64 && (UINT64_C(1) << s) < v) s++;
    cr_assert_eq(cgp_log2(v), s, "v = %llu", (unsigned long long)v);
  }
  for (unsigned s = 1; s < 64; s++) {
    uint64_t p = UINT64_C(1) << s;
    cr_assert_eq(cgp_log2(p), s);
    cr_assert_eq(cgp_log2(p - 1), s == 1 ? 0 : s);
    cr_assert_eq(cgp_log2(p + 1), s + 1);
  }
  cr_assert_eq(cgp_log2(UINT64_MAX), 64);
}
