/* test_analyzer_l2.c: the LRU L2 (MODEL.md section 4) against its definition, reference by
   reference, plus a hand-checked case, reset and parameter checks. A fully associative cache of
   at most 64 Ki lines is a recency list (cgp_l2_list.c) unless made general (cgp_l2_new_as): the
   tests that compare with the reference, and those of marks, aging, holds and reset, run both
   representations. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "cgp_analyzer.h"

#define LINE 64

/* The representation the tests' caches take: 0, cgp_l2_new's (a small fully associative cache
   is a recency list); 1, the bitmap of positions whatever the size. */
static int general;

static cgp_l2 *new_l2(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index) {
  return cgp_l2_new_as(capacity_bytes, line_bytes, assoc, index, general);
}

typedef struct {
  unsigned lines, assoc; /* capacity in lines; assoc ignored when fully associative */
  cgp_l2_index index;
} geometry;

typedef struct {
  unsigned hits, misses;
} outcome;

static uint64_t rng_next(uint64_t *s) { /* xorshift64*: fixed seeds, reproducible traces */
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

/* Run trace through both simulators, asserting they agree on every reference. */
static outcome agree_as(geometry g, const uint64_t *trace, size_t n) {
  cgp_l2 *fast = new_l2((uint64_t)g.lines * LINE, LINE, g.assoc, g.index);
  cgp_l2_ref *ref = cgp_l2_ref_new((uint64_t)g.lines * LINE, LINE, g.assoc, g.index);
  cr_assert_not_null(fast);
  cr_assert_not_null(ref);
  outcome o = {0, 0};
  for (size_t i = 0; i < n; i++) {
    int want = cgp_l2_ref_access(ref, trace[i]), got = cgp_l2_access(fast, trace[i]);
    cr_assert_eq(got, want, "lines %u assoc %u index %d general %d: reference %zu (line %llu): got %d, want %d",
                 g.lines, g.assoc, (int)g.index, general, i, (unsigned long long)trace[i], got, want);
    if (got) o.hits++; else o.misses++;
  }
  cgp_l2_free(fast);
  cgp_l2_ref_free(ref);
  return o;
}

/* agree_as for both representations (they must count alike too). */
static outcome agree(geometry g, const uint64_t *trace, size_t n) {
  int was = general;
  general = 1;
  outcome a = agree_as(g, trace, n);
  general = 0;
  outcome b = agree_as(g, trace, n);
  general = was;
  cr_assert(a.hits == b.hits && a.misses == b.misses);
  return b;
}

/* Uniform references over `footprint` lines spaced `spacing` apart from a random base. */
static uint64_t *random_trace(uint64_t seed, size_t n, unsigned footprint, uint64_t spacing) {
  uint64_t *t = malloc(n * sizeof *t), base = rng_next(&seed) >> 24;
  cr_assert_not_null(t);
  for (size_t i = 0; i < n; i++) t[i] = base + (rng_next(&seed) % footprint) * spacing;
  return t;
}

static const geometry geometries[] = {
  {512, 0, CGP_L2_FULLY_ASSOCIATIVE}, {2048, 0, CGP_L2_FULLY_ASSOCIATIVE},
  {64, 1, CGP_L2_MODULO}, {64, 1, CGP_L2_XOR}, {128, 2, CGP_L2_MODULO}, {128, 2, CGP_L2_XOR},
  {256, 4, CGP_L2_MODULO}, {256, 4, CGP_L2_XOR}, {256, 16, CGP_L2_MODULO}, {512, 16, CGP_L2_XOR},
  {64, 64, CGP_L2_MODULO}, /* one set, set-associative path */
};
#define NGEOM (sizeof geometries / sizeof geometries[0])

Test(l2, agrees_with_reference_on_random_traces) {
  static const double footprint_over_capacity[] = {0.5, 0.9, 1.0, 1.1, 2.0};
  static const uint64_t spacing[] = {1, 3, 64};
  uint64_t seed = 1;
  for (size_t g = 0; g < NGEOM; g++)
    for (size_t f = 0; f < 5; f++)
      for (size_t s = 0; s < 3; s++) {
        unsigned footprint = (unsigned)(geometries[g].lines * footprint_over_capacity[f]);
        uint64_t *t = random_trace(seed++, 20000, footprint, spacing[s]);
        outcome o = agree(geometries[g], t, 20000);
        cr_assert_gt(o.misses, 0);
        if (f == 0 && spacing[s] == 1) cr_assert_gt(o.hits, 10000, "half-capacity footprint must mostly hit");
        free(t);
      }
}

/* Streams a hash keeping neighbouring lines together could get wrong: column sweeps with a
   power-of-two pitch (each column read with its right neighbour), runs of consecutive lines
   with strided jumps, and repeats of the most recent line; about 300,000 references per
   geometry, tiny ones (1 and 4 lines) included. */
Test(l2, agrees_with_reference_on_column_strided_and_repeated_streams) {
  static const geometry extra[] = {{1, 0, CGP_L2_FULLY_ASSOCIATIVE}, {4, 0, CGP_L2_FULLY_ASSOCIATIVE},
                                   {4, 4, CGP_L2_XOR}, {1, 1, CGP_L2_MODULO}};
  static uint64_t t[30000];
  uint64_t seed = 5;
  for (size_t g = 0; g < NGEOM + 4; g++) {
    geometry geo = g < NGEOM ? geometries[g] : extra[g - NGEOM];
    for (uint64_t pitch = 16; pitch <= 4096; pitch *= 16) {
      uint64_t rows = 2 * geo.lines / pitch + 2;
      for (size_t i = 0; i < 30000; i++) t[i] = (i / 2 % rows) * pitch + (i / 2 / rows + i % 2) % pitch;
      agree(geo, t, 30000);
    }
    for (unsigned k = 0; k < 4; k++) {
      uint64_t pos = 0, span = (uint64_t)geo.lines * (k + 1) / 2 + 1;
      for (size_t i = 0; i < 30000; i++) {
        uint64_t r = rng_next(&seed);
        if (r % 8 == 0) t[i] = i ? t[i - 1] : 0;                       /* the most recent line again */
        else if (r % 8 == 1) t[i] = r % (2 * span);
        else { t[i] = pos; pos = (pos + 1 + (r % 3 == 0) * ((uint64_t)8 << k)) % (2 * span); }
      }
      agree(geo, t, 30000);
    }
  }
}

/* cgp_l2_access_many is n cgp_l2_access calls: on random, strided and repeating streams, cut
   into chunks of 0 to 100 lines (around the batch's prefetch distance, so chunk boundaries fall
   everywhere) with single lines by either call in between, the hits of every chunk are the
   reference's. Caches small and big enough for the batch to prefetch, of every kind. */
Test(l2, batched_access_agrees_with_reference) {
  static const geometry geos[] = {
    {512, 0, CGP_L2_FULLY_ASSOCIATIVE}, {4096, 0, CGP_L2_FULLY_ASSOCIATIVE}, /* prefetches */
    {256, 4, CGP_L2_MODULO}, {512, 16, CGP_L2_XOR}, {16384, 16, CGP_L2_XOR}, /* prefetches */
    {64, 64, CGP_L2_MODULO}, {4, 4, CGP_L2_XOR}, /* more than 16 ways; one set */
  };
  static const unsigned chunk[] = {1, 0, 2, 3, 7, 8, 9, 1, 16, 31, 32, 33, 100, 1, 4};
  enum { N = 30000, NCHUNK = sizeof chunk / sizeof chunk[0] };
  static uint64_t t[N];
  static int want[N];
  uint64_t seed = 11;
  for (general = 0; general < 2; general++)
  for (size_t g = 0; g < sizeof geos / sizeof geos[0]; g++)
    for (int kind = 0; kind < 3; kind++) {
      uint64_t span = geos[g].lines + geos[g].lines / 2 + 1, rows = span / 65 + 1;
      for (size_t i = 0; i < N; i++) {
        uint64_t r = rng_next(&seed);
        if (kind == 0) t[i] = 1000 + r % span;                                         /* random */
        else if (kind == 1) t[i] = (i / 2 % rows) * 65 + (i / 2 / rows + i % 2) % 65;  /* columns */
        else t[i] = r % 3 == 0 && i ? t[i - 1] : r % 5 == 0 && i > 8 ? t[i - 8] : r % span; /* repeats */
      }
      cgp_l2 *fast = new_l2((uint64_t)geos[g].lines * LINE, LINE, geos[g].assoc, geos[g].index);
      cgp_l2_ref *ref = cgp_l2_ref_new((uint64_t)geos[g].lines * LINE, LINE, geos[g].assoc, geos[g].index);
      cr_assert_not_null(fast);
      cr_assert_not_null(ref);
      for (size_t i = 0; i < N; i++) want[i] = cgp_l2_ref_access(ref, t[i]);
      cr_assert_eq(cgp_l2_access_many(fast, NULL, 0), 0);
      unsigned k = 0, total = 0, want_total = 0;
      for (size_t i = 0; i < N; k++) {
        unsigned m = chunk[k % NCHUNK], w = 0;
        if (m > N - i) m = (unsigned)(N - i);
        for (unsigned j = 0; j < m; j++) w += (unsigned)want[i + j];
        unsigned got = m == 1 && k % 2 ? (unsigned)cgp_l2_access(fast, t[i]) : cgp_l2_access_many(fast, t + i, m);
        cr_assert_eq(got, w, "lines %u assoc %u index %d stream %d: chunk of %u at %zu: %u hits, want %u",
                     geos[g].lines, geos[g].assoc, (int)geos[g].index, kind, m, i, got, w);
        i += m;
        total += got;
        want_total += w;
      }
      cr_assert_eq(total, want_total);
      cr_assert(want_total > 0 && want_total < N, "stream %d must both hit and miss", kind);
      cgp_l2_free(fast);
      cgp_l2_ref_free(ref);
    }
}

Test(l2, fully_associative_cyclic_sweep_of_capacity_plus_one_always_misses) {
  geometry g = {512, 0, CGP_L2_FULLY_ASSOCIATIVE};
  uint64_t t[20 * 513];
  for (size_t i = 0; i < 20 * 513; i++) t[i] = 1000 + i % 513;
  outcome o = agree(g, t, 20 * 513);
  cr_assert_eq(o.hits, 0);
}

Test(l2, fully_associative_cyclic_sweep_of_capacity_hits_after_first_pass) {
  geometry g = {512, 0, CGP_L2_FULLY_ASSOCIATIVE};
  uint64_t t[20 * 512];
  for (size_t i = 0; i < 20 * 512; i++) t[i] = 77 * (i % 512);
  outcome o = agree(g, t, 20 * 512);
  cr_assert_eq(o.misses, 512);
}

Test(l2, cyclic_sweeps_agree_for_every_geometry) {
  static uint64_t t[30000];
  for (size_t g = 0; g < NGEOM; g++)
    for (unsigned extra = 0; extra < 3; extra++) {
      unsigned period = geometries[g].lines + extra;
      for (size_t i = 0; i < 30000; i++) t[i] = 5 + i % period;
      agree(geometries[g], t, 30000);
    }
}

Test(l2, ping_pong_hits_after_first_two) {
  for (size_t g = 0; g < NGEOM; g++) {
    uint64_t t[1000];
    for (size_t i = 0; i < 1000; i++) t[i] = i % 2 ? 4096 : 8192;
    outcome o = agree(geometries[g], t, 1000);
    if (geometries[g].assoc != 1) cr_assert_eq(o.misses, 2, "geometry %zu", g);
  }
}

/* Lines that all fall in set 0: modulo takes multiples of sets; xor takes k*sets + (k mod sets). */
static uint64_t one_set_line(unsigned k, unsigned sets, cgp_l2_index index) {
  return (uint64_t)k * sets + (index == CGP_L2_XOR ? k % sets : 0);
}

Test(l2, lines_mapping_to_one_set_thrash_beyond_assoc) {
  for (size_t g = 0; g < NGEOM; g++) {
    if (geometries[g].index == CGP_L2_FULLY_ASSOCIATIVE) continue;
    unsigned a = geometries[g].assoc, sets = geometries[g].lines / a;
    static uint64_t t[20000];
    for (size_t i = 0; i < 20000; i++) {
      t[i] = one_set_line((unsigned)(i % (a + 1)), sets, geometries[g].index);
      cr_assert_eq(cgp_l2_set_of(t[i], sets, geometries[g].index), 0);
    }
    cr_assert_eq(agree(geometries[g], t, 20000).hits, 0, "geometry %zu", g);
    for (size_t i = 0; i < 20000; i++) t[i] = one_set_line((unsigned)(i % a), sets, geometries[g].index);
    cr_assert_eq(agree(geometries[g], t, 20000).misses, a, "geometry %zu", g);
    uint64_t seed = 99 + g;
    for (size_t i = 0; i < 20000; i++)
      t[i] = one_set_line((unsigned)(rng_next(&seed) % (a + a / 2 + 1)), sets, geometries[g].index);
    agree(geometries[g], t, 20000);
  }
}

Test(l2, large_fully_associative_agrees_with_reference) {
  geometry g = {8192, 0, CGP_L2_FULLY_ASSOCIATIVE}; /* 512 KiB of 64-byte lines */
  uint64_t *t = random_trace(7, 50000, 9000, 1);
  outcome o = agree(g, t, 50000);
  cr_assert_gt(o.hits, 0);
  free(t);
}

/* 2 MiB of 64-byte lines, too big for the reference: sweeps whose LRU answer is known. */
Test(l2, fully_associative_32768_lines_sweeps) {
  const unsigned lines = 32768;
  for (general = 0; general < 2; general++) {
  cgp_l2 *c = new_l2((uint64_t)lines * LINE, LINE, 0, CGP_L2_FULLY_ASSOCIATIVE);
  cr_assert_not_null(c);
  unsigned misses = 0;
  for (unsigned i = 0; i < 4 * lines; i++) misses += !cgp_l2_access(c, (uint64_t)(i % lines) << 20);
  cr_assert_eq(misses, lines);
  cgp_l2_reset(c);
  for (unsigned i = 0; i < 4 * (lines + 1); i++)
    cr_assert_eq(cgp_l2_access(c, 3 * (uint64_t)(i % (lines + 1))), 0, "reference %u", i);
  cgp_l2_free(c);
  }
}

/* Lines 1000 apart, each alone in its group of the fully associative table (the bitmap of
   positions): more groups with a resident line than the table first holds, so it grows; still
   exact. As a recency list the same cache has all its memory from the start. */
Test(l2, sparse_lines_grow_the_table_and_stay_exact) {
  geometry g = {4096, 0, CGP_L2_FULLY_ASSOCIATIVE};
  general = 0;
  cgp_l2 *list = new_l2((uint64_t)g.lines * LINE, LINE, 0, g.index);
  general = 1;
  cgp_l2 *c = new_l2((uint64_t)g.lines * LINE, LINE, 0, g.index);
  size_t list_bytes = cgp_l2_bytes(list);
  cr_assert_not_null(c);
  size_t before = cgp_l2_bytes(c);
  uint64_t *t = random_trace(11, 60000, 6000, 1000);
  for (size_t i = 0; i < 60000; i++) cgp_l2_access(c, t[i]);
  for (size_t i = 0; i < 60000; i++) cgp_l2_access(list, t[i]);
  cr_assert_gt(cgp_l2_bytes(c), before);
  cr_assert_eq(cgp_l2_degraded(c), 0);
  cr_assert_eq(cgp_l2_bytes(list), list_bytes);
  cr_assert_eq(cgp_l2_degraded(list), 0);
  cgp_l2_free(c);
  cgp_l2_free(list);
  outcome o = agree(g, t, 60000);
  cr_assert_gt(o.hits, 0);
  free(t);
}

/* A stream of new lines through a small cache: the groups its evicted lines leave are dropped in
   place when the table fills, so the table never grows; the last 64 lines are the ones held. */
Test(l2, new_lines_without_end_keep_the_table_its_size) {
  geometry g = {64, 0, CGP_L2_FULLY_ASSOCIATIVE};
  for (general = 0; general < 2; general++) {
  cgp_l2 *c = new_l2((uint64_t)g.lines * LINE, LINE, 0, g.index);
  cr_assert_not_null(c);
  size_t before = cgp_l2_bytes(c);
  enum { N = 100000 };
  uint64_t *t = malloc((N + 65) * sizeof *t);
  cr_assert_not_null(t);
  for (size_t i = 0; i < N; i++) t[i] = i;
  for (size_t i = 0; i < 65; i++) t[N + i] = N - 1 - i;   /* newest first */
  for (size_t i = 0; i < N; i++) cr_assert_eq(cgp_l2_access(c, t[i]), 0);
  for (size_t i = 0; i < 64; i++) cr_assert_eq(cgp_l2_access(c, t[N + i]), 1, "line %zu back", i);
  cr_assert_eq(cgp_l2_access(c, t[N + 64]), 0);
  cr_assert_eq(cgp_l2_bytes(c), before);
  cgp_l2_free(c);
  agree(g, t, N + 65);
  free(t);
  }
}

Test(l2, two_way_two_sets_hand_checked) {
  /* set = line mod 2. Per set, most recent first:
     0 m [0]; 2 m [2 0]; 4 m [4 2]; 0 m [0 4]; 4 h [4 0]; 1 m [1]; 3 m [3 1]; 1 h [1 3];
     0 h [0 4]; 5 m [5 1]; 3 m [3 5]; 4 h [4 0]. */
  static const uint64_t t[] = {0, 2, 4, 0, 4, 1, 3, 1, 0, 5, 3, 4};
  static const int want[] = {0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1};
  cgp_l2 *c = cgp_l2_new(4 * LINE, LINE, 2, CGP_L2_MODULO);
  cgp_l2_ref *r = cgp_l2_ref_new(4 * LINE, LINE, 2, CGP_L2_MODULO);
  cr_assert_not_null(c);
  cr_assert_not_null(r);
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    cr_assert_eq(cgp_l2_access(c, t[i]), want[i], "fast, reference %zu", i);
    cr_assert_eq(cgp_l2_ref_access(r, t[i]), want[i], "ref, reference %zu", i);
  }
  cgp_l2_free(c);
  cgp_l2_ref_free(r);
}

Test(l2, reset_empties_the_cache) {
  for (general = 0; general < 2; general++)
  for (size_t g = 0; g < NGEOM; g++) {
    cgp_l2 *c = new_l2((uint64_t)geometries[g].lines * LINE, LINE, geometries[g].assoc, geometries[g].index);
    cr_assert_not_null(c);
    for (uint64_t m = 0; m < 8; m++) cgp_l2_access(c, m);
    cr_assert_eq(cgp_l2_access(c, 7), 1, "geometry %zu", g);
    cgp_l2_reset(c);
    for (uint64_t m = 0; m < 8; m++) cr_assert_eq(cgp_l2_access(c, m), 0, "geometry %zu line %llu", g, (unsigned long long)m);
    cr_assert_eq(cgp_l2_access(c, 7), 1, "geometry %zu", g);
    cgp_l2_free(c);
  }
}

Test(l2, new_rejects_inconsistent_parameters) {
  cr_assert_null(cgp_l2_new(4096, 48, 4, CGP_L2_MODULO));          /* line not a power of two */
  cr_assert_null(cgp_l2_new(4096, 0, 4, CGP_L2_MODULO));           /* no line */
  cr_assert_null(cgp_l2_new(0, 64, 0, CGP_L2_FULLY_ASSOCIATIVE));  /* no capacity */
  cr_assert_null(cgp_l2_new(1000, 64, 0, CGP_L2_FULLY_ASSOCIATIVE)); /* not whole lines */
  cr_assert_null(cgp_l2_new(6 * 64, 64, 4, CGP_L2_MODULO));        /* not a multiple of line*assoc */
  cr_assert_null(cgp_l2_new(12 * 64, 64, 4, CGP_L2_XOR));          /* 3 sets */
  cr_assert_null(cgp_l2_new(4096, 64, 0, CGP_L2_MODULO));          /* no ways */
  cr_assert_null(cgp_l2_new(4096, 64, 128, CGP_L2_MODULO));        /* more ways than lines */
  cr_assert_null(cgp_l2_new(4096, 64, 4, (cgp_l2_index)7));        /* unknown index */
  cr_assert_null(cgp_l2_ref_new(12 * 64, 64, 4, CGP_L2_XOR));
  cgp_l2 *ok[] = {cgp_l2_new(4096, 64, 4, CGP_L2_MODULO), cgp_l2_new(4096, 64, 0, CGP_L2_FULLY_ASSOCIATIVE),
                  cgp_l2_new(3 * 64, 64, 0, CGP_L2_FULLY_ASSOCIATIVE), cgp_l2_new(64, 64, 1, CGP_L2_XOR)};
  for (size_t i = 0; i < 4; i++) {
    cr_assert_not_null(ok[i], "valid geometry %zu rejected", i);
    cgp_l2_free(ok[i]);
  }
}

Test(l2, set_index_functions_follow_their_formulas) {
  cr_assert_eq(cgp_l2_set_of(0x1234, 8, CGP_L2_MODULO), 0x1234 % 8);
  cr_assert_eq(cgp_l2_set_of(0x1234, 8, CGP_L2_XOR), (0x1234 ^ (0x1234 >> 3)) % 8);
  cr_assert_eq(cgp_l2_set_of(0x1234, 8, CGP_L2_FULLY_ASSOCIATIVE), 0);
  /* A power-of-two column (every 256th line) lands in one modulo set but spreads under xor. */
  unsigned seen = 0;
  for (uint64_t k = 0; k < 16; k++) {
    cr_assert_eq(cgp_l2_set_of(k * 256, 256, CGP_L2_MODULO), 0);
    seen |= 1u << (cgp_l2_set_of(k * 256, 256, CGP_L2_XOR) & 31);
  }
  cr_assert_eq(seen, 0xffffu);
}

/* cgp_l2_age (docs/model.md section 4c): n lines nobody referenced, as the reference sees them,
   on a fully associative and a set-associative cache; never more than the capacity. */
Test(l2, aging_is_references_of_fresh_lines_capped_at_the_capacity) {
  geometry gs[] = {{64, 0, CGP_L2_FULLY_ASSOCIATIVE}, {64, 4, CGP_L2_XOR}};
  for (general = 0; general < 2; general++)
  for (int g = 0; g < 2; g++) {
    cgp_l2 *fast = new_l2(64 * LINE, LINE, gs[g].assoc, gs[g].index);
    cgp_l2_ref *ref = cgp_l2_ref_new(64 * LINE, LINE, gs[g].assoc, gs[g].index);
    uint64_t s = 99, fresh = 0;
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < 40; i++) {
        uint64_t line = rng_next(&s) % 96;
        cr_assert_eq(cgp_l2_access(fast, line), cgp_l2_ref_access(ref, line), "geometry %d round %d", g, round);
      }
      uint64_t n = rng_next(&s) % 80, want = n < 64 ? n : 64;
      uint64_t first = cgp_l2_age(fast, &n);
      cr_assert_eq(n, want, "aged by %llu, capacity 64", (unsigned long long)n);
      cr_assert_eq(first, CGP_L2_FRESH_LINE + fresh);
      for (uint64_t i = 0; i < n; i++) cgp_l2_ref_access(ref, CGP_L2_FRESH_LINE + fresh++);
    }
    /* aged by the whole capacity: nothing referenced before hits */
    uint64_t all = 1000;
    cgp_l2_age(fast, &all);
    for (uint64_t line = 0; line < 96; line++) cr_expect_eq(cgp_l2_access(fast, line), 0, "line %llu", (unsigned long long)line);
    cgp_l2_free(fast);
    cgp_l2_ref_free(ref);
  }
}

/* Inherited hits (docs/model.md 5b): after the mark, a hit on a line last referenced before it.
   4 lines: 1 2 3 | mark | 2 (inherited) 5 (miss) 2 (not: referenced since the mark), then 2 and 5
   alternately 40 times (hits past the 32 positions a renumbering comes at), 1 (inherited: still
   resident, its position renumbered below the mark's), 3 (inherited), 7 (miss, evicts the least
   recent: 5), 5 (miss). 3 inherited of 44 hits; a mark not renumbered would have counted every
   reference after the renumbering as before it. Set associative: none tracked. */
Test(l2, hits_on_lines_from_before_the_mark_are_inherited) {
  for (general = 0; general < 2; general++) {
  cgp_l2 *c = new_l2(4 * LINE, LINE, 0, CGP_L2_FULLY_ASSOCIATIVE);
  cr_assert(cgp_l2_tracks_inherited(c));
  unsigned hits = 0;
  for (uint64_t l = 1; l <= 3; l++) hits += (unsigned)cgp_l2_access(c, l);
  cgp_l2_mark(c);
  uint64_t seq[] = {2, 5, 2};
  for (int i = 0; i < 3; i++) hits += (unsigned)cgp_l2_access(c, seq[i]);
  cr_expect_eq(cgp_l2_inherited(c), 1);
  for (int i = 0; i < 40; i++) hits += (unsigned)cgp_l2_access(c, i % 2 ? 2 : 5);
  cr_expect_eq(cgp_l2_inherited(c), 1, "the hits since the mark are its own");
  hits += (unsigned)cgp_l2_access(c, 1);
  hits += (unsigned)cgp_l2_access(c, 3);
  cr_expect_eq(cgp_l2_inherited(c), 3);
  cr_expect_eq(cgp_l2_access(c, 7), 0);
  cr_expect_eq(cgp_l2_access(c, 5), 0, "5 was the least recent");
  cr_expect_eq(hits, 44);
  cr_expect_eq(cgp_l2_inherited(c), 3);
  cgp_l2_mark(c);                       /* the most recent line (5) is looked up after a mark */
  cr_expect_eq(cgp_l2_access(c, 5), 1);
  cr_expect_eq(cgp_l2_inherited(c), 4);
  cgp_l2_free(c);
  }
  cgp_l2 *s = cgp_l2_new(8 * LINE, LINE, 2, CGP_L2_MODULO);
  cr_assert_not_null(s);
  cr_expect_not(cgp_l2_tracks_inherited(s));
  cgp_l2_free(s);
}

/* cgp_l2_holds says what a reference would return, changes nothing, and agrees with the
   reference's history walk: before every reference of random traces over every geometry, a
   probe of the line and of a random one (the probes made, the references still agree with the
   reference simulator's, which makes none). */
Test(l2, holds_is_a_reference_that_changes_nothing) {
  uint64_t seed = 77;
  for (general = 0; general < 2; general++)
  for (size_t g = 0; g < NGEOM; g++) {
    geometry G = geometries[g];
    cgp_l2 *fast = new_l2((uint64_t)G.lines * LINE, LINE, G.assoc, G.index);
    cgp_l2_ref *ref = cgp_l2_ref_new((uint64_t)G.lines * LINE, LINE, G.assoc, G.index);
    uint64_t *t = random_trace(seed++, 6000, G.lines + G.lines / 4, 1);
    unsigned held = 0;
    for (size_t i = 0; i < 6000; i++) {
      uint64_t other = t[rng_next(&seed) % 6000];
      cr_assert_eq(cgp_l2_holds(fast, other), cgp_l2_ref_holds(ref, other), "geometry %zu, probe before %zu", g, i);
      int would = cgp_l2_holds(fast, t[i]);
      cr_assert_eq(would, cgp_l2_ref_holds(ref, t[i]), "geometry %zu, reference %zu", g, i);
      int got = cgp_l2_access(fast, t[i]), want = cgp_l2_ref_access(ref, t[i]);
      cr_assert(got == want && got == would, "geometry %zu, reference %zu: holds %d, access %d, want %d", g, i, would,
                got, want);
      held += (unsigned)would;
    }
    cr_assert(held > 0 && held < 6000, "geometry %zu: %u held", g, held);
    free(t);
    cgp_l2_free(fast);
    cgp_l2_ref_free(ref);
  }
  cgp_l2 *c = cgp_l2_new(4 * LINE, LINE, 0, CGP_L2_FULLY_ASSOCIATIVE);   /* by hand: 4 lines */
  for (uint64_t l = 1; l <= 5; l++) cgp_l2_access(c, l);
  cr_assert(!cgp_l2_holds(c, 1) && cgp_l2_holds(c, 2) && cgp_l2_holds(c, 5) && !cgp_l2_holds(c, 6));
  cr_assert(!cgp_l2_holds(c, 1), "asking did not bring line 1 back");
  cgp_l2_free(c);
}

/* The recency list's table (cgp_l2_list.c) under collisions: 48 lines whose Fibonacci hash sends
   them to the last two slots of its 64 (a cache of 32 lines), so that their run wraps round the
   table's end, and 16 whose home is slot 0 or 1, inside that run. Every eviction then deletes from
   the middle of a long, wrapped run, which backward shifting must keep searchable; the hits must
   be the reference's, and the table must find each line it holds. */
Test(l2, a_list_whose_lines_collide_round_the_table_end_stays_exact) {
  enum { N = 20000 };
  static uint64_t pool[64], t[N];
  unsigned near_end = 0, at_start = 0;
  for (uint64_t line = 1; near_end < 48 || at_start < 16; line++) {
    uint64_t home = (line * CGP_FIBONACCI) >> 58;
    if (home >= 62 && near_end < 48) pool[near_end++] = line;
    else if (home <= 1 && at_start < 16) pool[48 + at_start++] = line;
  }
  uint64_t seed = 3;
  for (size_t i = 0; i < N; i++) t[i] = pool[rng_next(&seed) % (i < N / 2 ? 40 : 64)];
  geometry g = {32, 0, CGP_L2_FULLY_ASSOCIATIVE};
  outcome o = agree(g, t, N);
  cr_assert(o.hits > N / 10 && o.misses > N / 10, "%u hits, %u misses", o.hits, o.misses);
}
