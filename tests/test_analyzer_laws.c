/* Address laws (analyzer/cgp_deps_law.c): the conflicts a store's law and another site's put
   between threads of the whole grid, against a brute-force walk of every pair of threads. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../analyzer/cgp_analyzer.h"

/* Feed a 1-D site: threads lo..hi-1 (whole warps), address base + stride * x. */
static void feed1(cgp_laws *s, uint32_t sid, int store, uint64_t base, int64_t stride, int64_t lo, int64_t hi) {
  for (int64_t x = lo; x < hi; x++) cgp_laws_see(s, sid, cgp_thread_key(1, (uint64_t)x, 0, 0), base + (uint64_t)(stride * x), store, 1);
}

/* TSVC's s1113, a[i] = a[LEN / 2] + b[i]: 256 threads traced of 32000; thread 16000 writes the
   element every thread reads. */
Test(laws, a_load_every_thread_makes_meets_the_thread_whose_store_writes_it) {
  cgp_laws *s = cgp_laws_new();
  cgp_laws_reset(s, 1);
  const uint64_t a = 0x100000, b = 0x900000;
  for (int64_t x = 0; x < 256; x++) {
    uint64_t t = cgp_thread_key(1, (uint64_t)x, 0, 0);
    cgp_laws_see(s, 0, t, a + 4 * 16000, 0, 1);
    cgp_laws_see(s, 1, t, b + 4 * (uint64_t)x, 0, 1);
    cgp_laws_see(s, 2, t, a + 4 * (uint64_t)x, 1, 1);
  }
  cgp_dep out[8];
  uint64_t hi[3] = {32000, 1, 1};
  size_t n = cgp_laws_beyond(s, hi, 0, NULL, 0, out, 8);
  cr_assert_eq(n, 1);
  cr_assert_eq(out[0].kind, CGP_DEP_RAW);
  cr_assert(out[0].first_sid == 2 && out[0].second_sid == 0);
  cr_assert_eq(out[0].first_thread, 16000);
  cr_assert_eq(out[0].second_thread, 16001);
  cr_assert_eq(out[0].addr, a + 4 * 16000);
  cr_assert(out[0].extrapolated && out[0].count == 0);
  /* the grid that ends before thread 16000 has no writer of it */
  uint64_t short_grid[3] = {16000, 1, 1};
  cr_assert_eq(cgp_laws_beyond(s, short_grid, 0, NULL, 0, out, 8), 0);
  /* a descending loop runs thread 16000 before 15999: the reader after it is 16001 still, and the
     kind is the nest's order's */
  uint64_t down = cgp_thread_order_mask(1, (const int[3]){1, 0, 0});
  n = cgp_laws_beyond(s, hi, down, NULL, 0, out, 8);
  cr_assert_eq(n, 1);
  cr_assert_eq(out[0].kind, CGP_DEP_WAR, "16001 runs before 16000 counting down: it read first");
  cgp_laws_free(s);
}

/* a[i] = a[i + 1000]: the traced 256 threads never meet; thread 1000 writes what thread 0 read. */
Test(laws, a_site_of_the_same_strides_meets_the_store_delta_threads_away) {
  cgp_laws *s = cgp_laws_new();
  cgp_laws_reset(s, 1);
  feed1(s, 0, 0, 0x100000 + 4000, 4, 0, 256);
  feed1(s, 1, 1, 0x100000, 4, 0, 256);
  cgp_dep out[4];
  uint64_t hi[3] = {5000, 1, 1};
  cr_assert_eq(cgp_laws_beyond(s, hi, 0, NULL, 0, out, 4), 1);
  cr_assert_eq(out[0].kind, CGP_DEP_WAR);
  cr_assert(out[0].first_sid == 0 && out[0].first_thread == 0 && out[0].second_thread == 1000);
  uint64_t small[3] = {1000, 1, 1};
  cr_assert_eq(cgp_laws_beyond(s, small, 0, NULL, 0, out, 4), 0, "no two threads 1000 apart");
  /* what the exact check found between the same sites is not said again */
  cgp_dep seen = {.kind = CGP_DEP_WAR, .first_sid = 0, .second_sid = 1};
  cr_assert_eq(cgp_laws_beyond(s, hi, 0, &seen, 1, out, 4), 0);
  cgp_laws_free(s);
}

/* No law: a second address for one thread (a loop of the thread), a store some lanes of a warp
   leave out (a condition), a coordinate never seen to move. */
Test(laws, a_site_without_a_law_for_the_grid_gives_nothing) {
  cgp_laws *s = cgp_laws_new();
  cgp_dep out[4];
  uint64_t hi[3] = {32000, 1, 1};
  cgp_laws_reset(s, 1);
  feed1(s, 0, 0, 0x100000 + 4 * 16000, 0, 0, 256);
  feed1(s, 1, 1, 0x100000, 4, 0, 256);
  cgp_laws_see(s, 1, cgp_thread_key(1, 3, 0, 0), 0x100000, 1, 1);     /* thread 3 again, elsewhere */
  cr_assert_eq(cgp_laws_beyond(s, hi, 0, NULL, 0, out, 4), 0);
  cgp_laws_reset(s, 1);
  feed1(s, 0, 0, 0x100000 + 4 * 16000, 0, 0, 256);
  for (int64_t x = 0; x < 200; x++)                                    /* if (i < 200): a partial warp */
    cgp_laws_see(s, 1, cgp_thread_key(1, (uint64_t)x, 0, 0), 0x100000 + 4 * (uint64_t)x, 1, x < 192);
  cr_assert_eq(cgp_laws_beyond(s, hi, 0, NULL, 0, out, 4), 0);
  cgp_laws_reset(s, 2);                                                /* one row traced of 2-D */
  for (int64_t x = 0; x < 32; x++) {
    cgp_laws_see(s, 0, cgp_thread_key(2, (uint64_t)x, 0, 0), 0x100000 + 4 * 100 * 512, 0, 1);
    cgp_laws_see(s, 1, cgp_thread_key(2, (uint64_t)x, 0, 0), 0x100000 + 4 * (uint64_t)x, 1, 1);
  }
  uint64_t hi2[3] = {512, 512, 1};
  cr_assert_eq(cgp_laws_beyond(s, hi2, 0, NULL, 0, out, 4), 0, "y's stride never learned");
  hi2[1] = 1;                                                          /* a grid of one row: no y */
  cr_assert_eq(cgp_laws_beyond(s, hi2, 0, NULL, 0, out, 4), 0, "row 100 is not in it");
  cgp_laws_free(s);
}

/* The reference: every pair of threads of the grid, by brute force. Is there a thread ts whose
   store (law s) writes what another thread to's access (law o) touches? */
static int brute(int dims, const int64_t hi[3], uint64_t as, const int64_t ss[3], uint64_t ao, const int64_t so[3]) {
  int64_t n = hi[0] * hi[1] * hi[2];
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      if (i == j) continue;
      int64_t ts[3] = {i % hi[0], i / hi[0] % hi[1], i / hi[0] / hi[1]}, to[3] = {j % hi[0], j / hi[0] % hi[1], j / hi[0] / hi[1]};
      uint64_t a1 = as, a2 = ao;
      for (int d = 0; d < dims; d++) {
        a1 += (uint64_t)(ss[d] * ts[d]);
        a2 += (uint64_t)(so[d] * to[d]);
      }
      if (a1 == a2) return 1;
    }
  return 0;
}

/* Random 1-D and 2-D laws (row-major strides, a uniform load or the store's strides with an
   offset), every thread of a small grid traced: cgp_laws_beyond finds a conflict exactly where
   the brute-force walk does, and the one it gives is one. */
Test(laws, the_solver_agrees_with_every_pair_of_threads) {
  srand(7);
  cgp_laws *s = cgp_laws_new();
  for (int trial = 0; trial < 400; trial++) {
    int dims = 1 + trial % 2;
    int64_t hi[3] = {2 + rand() % 12, dims == 2 ? 2 + rand() % 6 : 1, 1};
    int64_t row = hi[0] + rand() % 4;                     /* elements a row, padded */
    int64_t ss[3] = {4, 4 * row, 0}, so[3] = {0, 0, 0};
    int uniform = rand() % 2;
    int64_t off = (rand() % (2 * hi[0] * hi[1] + 4)) - (hi[0] * hi[1] + 2);
    uint64_t as = 0x100000, ao = as + (uint64_t)(4 * off);
    if (!uniform) memcpy(so, ss, sizeof so);
    cgp_laws_reset(s, dims);
    for (int64_t y = 0; y < hi[1]; y++)
      for (int64_t x = 0; x < hi[0]; x++) {
        uint64_t t = cgp_thread_key(dims, (uint64_t)x, (uint64_t)y, 0);
        cgp_laws_see(s, 0, t, ao + (uint64_t)(so[0] * x + so[1] * y), 0, 1);
        cgp_laws_see(s, 1, t, as + (uint64_t)(ss[0] * x + ss[1] * y), 1, 1);
      }
    cgp_dep out[4];
    uint64_t uhi[3] = {(uint64_t)hi[0], (uint64_t)hi[1], 1};
    size_t n = cgp_laws_beyond(s, uhi, 0, NULL, 0, out, 4);
    int want = brute(dims, hi, as, ss, ao, so);
    cr_assert_eq(n, (size_t)want, "trial %d: dims %d grid %lldx%lld row %lld uniform %d off %lld: found %zu, brute %d",
                 trial, dims, (long long)hi[0], (long long)hi[1], (long long)row, uniform, (long long)off, n, want);
    if (!n) continue;
    uint64_t xs[3], xo[3];                                /* the example is a conflict */
    int s_first = out[0].first_sid == 1;
    cgp_thread_unkey(dims, s_first ? out[0].first_thread : out[0].second_thread, xs);
    cgp_thread_unkey(dims, s_first ? out[0].second_thread : out[0].first_thread, xo);
    cr_assert_neq(out[0].first_thread, out[0].second_thread);
    cr_assert_eq(as + (uint64_t)(ss[0] * (int64_t)xs[0] + ss[1] * (int64_t)xs[1]),
                 ao + (uint64_t)(so[0] * (int64_t)xo[0] + so[1] * (int64_t)xo[1]), "trial %d", trial);
    for (int d = 0; d < dims; d++) cr_assert((int64_t)xs[d] < hi[d] && (int64_t)xo[d] < hi[d], "trial %d", trial);
  }
  cgp_laws_free(s);
}
