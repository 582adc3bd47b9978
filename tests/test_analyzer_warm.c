/* What untraced work brings into the L2 (cgp_l2_warm.c): the units of the iterations a sampled
   instruction stood for, in iteration order across spans, each with its span's tag, and the lines
   two windows in a row shared; and the cache analysis that references them (cgp_an_cache.c),
   counting a span's misses as its instruction's and the shared lines' nowhere. */
#include <criterion/criterion.h>

#include "cgp_analyzer.h"

/* The references a flush makes, in order. */
typedef struct {
  uint64_t unit[256];
  uint32_t tag[256];
  unsigned n;
} refs;

static void record(void *ctx, const uint64_t *units, const uint32_t *tag, unsigned n) {
  refs *r = ctx;
  for (unsigned i = 0; i < n && r->n < 256; i++) {
    r->unit[r->n] = units[i];
    r->tag[r->n++] = tag[i];
  }
}

static uint8_t lanes[32];
static uint64_t threads[32];

/* A warp instruction of n lanes at addr, each standing for iterations lo .. hi - 1 after its own
   on stride st (bytes an iteration). */
static cgp_warp_mem spanned(int kind, const uint64_t *addr, unsigned n, cgp_span *sp, int64_t st, uint32_t lo,
                            uint32_t hi) {
  for (unsigned l = 0; l < 32; l++) {
    lanes[l] = (uint8_t)l;
    threads[l] = l;
  }
  for (unsigned l = 0; l < n; l++) sp[l] = (cgp_span){st, lo, hi};
  cgp_warp_mem m = {.kind = (uint8_t)kind, .nact = (uint8_t)n, .warp_threads = 32, .size = 4, .addr = addr,
                    .lane = lanes, .thread = threads, .span = sp, .carries = hi > lo};
  m.affine = (uint8_t)cgp_affine(addr, n);
  m.cls = (uint8_t)cgp_classify(addr, n, 4);
  return m;
}

/* A lane on a 128-byte stride (32-byte units: one unit an iteration) and one on a single element
   (stride 0), both standing for iterations 1 .. 3: iteration by iteration, the moving one's units
   132, 136, 140 (0x1000 / 32 + 4 o) with its span's tag (7); then, at the end, as CGP_REF_AGAIN,
   each span's unit of the last iteration in the order they were added: the moving one's 140, the
   still one's 1024 (which the instruction itself read). */
Test(spans, iterations_in_order_across_spans_and_every_spans_last_unit_again_at_the_end) {
  cgp_spans *s = cgp_spans_new(32);
  cr_assert_not_null(s);
  uint64_t a[1] = {0x1000}, b[1] = {0x8000};
  cgp_span sa[1], sb[1];
  cgp_warp_mem ma = spanned(CGP_LOAD, a, 1, sa, 128, 1, 4), mb = spanned(CGP_STORE, b, 1, sb, 0, 1, 4);
  ma.warp = 3;
  mb.warp = 3;
  refs r = {0};
  cgp_spans_add(s, &ma, 7, record, &r);
  cgp_spans_add(s, &mb, 9, record, &r);
  cr_assert(cgp_spans_pending(s, 3));
  cr_assert(!cgp_spans_pending(s, 4));
  cr_assert_eq(r.n, 0, "nothing referenced before the flush");
  cgp_spans_flush(s, record, &r);
  const uint64_t want[5] = {132, 136, 140, 140, 1024};
  const uint32_t tag[5] = {7, 7, 7, CGP_REF_AGAIN, CGP_REF_AGAIN};
  cr_assert_eq(r.n, 5);
  for (unsigned i = 0; i < 5; i++) {
    cr_expect_eq(r.unit[i], want[i], "reference %u: unit %llu", i, (unsigned long long)r.unit[i]);
    cr_expect_eq(r.tag[i], tag[i], "reference %u: tag %u", i, r.tag[i]);
  }
  cr_assert(!cgp_spans_pending(s, 3));
  cgp_spans_free(s);
}

/* Within an iteration the spans come in the order they were added (the program's), however they
   got there: a load of one array's element and then a store to another's on a 128-byte stride
   (one unit an iteration), each iteration load then store; and a
   span on a 32-byte stride (A, tag 1: a unit every iteration) added before one on a 4-byte stride
   (B, tag 2: in the unit its instruction read, 256, to iteration 7, then in 257), both over
   iterations 1 .. 9: at iteration 8, A's unit before B's, though B was waiting for it since
   iteration 1 and A only since iteration 7. Each flush ends with the spans' last units again. */
Test(spans, an_iterations_units_come_in_the_order_the_spans_were_added) {
  cgp_spans *s = cgp_spans_new(32);
  uint64_t a[1] = {0x1000}, b[1] = {0x9000};
  cgp_span sl[1], ss[1];
  cgp_warp_mem ml = spanned(CGP_LOAD, a, 1, sl, 128, 1, 4), ms = spanned(CGP_STORE, b, 1, ss, 128, 1, 4);
  refs r = {0};
  cgp_spans_add(s, &ml, 1, record, &r);
  cgp_spans_add(s, &ms, 2, record, &r);
  cgp_spans_flush(s, record, &r);
  cr_assert_eq(r.n, 8);
  cr_expect(r.unit[6] == 0x1000 / 32 + 12 && r.unit[7] == 0x9000 / 32 + 12 && r.tag[6] == CGP_REF_AGAIN &&
            r.tag[7] == CGP_REF_AGAIN, "the load's last unit again, then the store's");
  for (unsigned i = 0; i < 6; i++) {
    cr_expect_eq(r.unit[i], (i % 2 ? 0x9000 : 0x1000) / 32 + 4 * (i / 2 + 1), "reference %u: unit %llu", i,
                 (unsigned long long)r.unit[i]);
    cr_expect_eq(r.tag[i], i % 2 ? 2 : 1, "reference %u: the %s's first", i, i % 2 ? "load" : "store");
  }
  uint64_t x[1] = {0x1000}, y[1] = {0x2000};
  cgp_span sx[1], sy[1];
  cgp_warp_mem mx = spanned(CGP_LOAD, x, 1, sx, 32, 1, 10), my = spanned(CGP_LOAD, y, 1, sy, 4, 1, 10);
  r.n = 0;
  cgp_spans_add(s, &mx, 1, record, &r);
  cgp_spans_add(s, &my, 2, record, &r);
  cgp_spans_flush(s, record, &r);
  const uint64_t want[12] = {129, 130, 131, 132, 133, 134, 135, 136, 257, 137, 137, 257};
  const uint32_t tag[12] = {1, 1, 1, 1, 1, 1, 1, 1, 2, 1, CGP_REF_AGAIN, CGP_REF_AGAIN};
  cr_assert_eq(r.n, 12, "%u references", r.n);
  for (unsigned i = 0; i < 12; i++) {
    cr_expect_eq(r.unit[i], want[i], "reference %u: unit %llu", i, (unsigned long long)r.unit[i]);
    cr_expect_eq(r.tag[i], tag[i], "reference %u: tag %u", i, r.tag[i]);
  }
  cgp_spans_free(s);
}

/* A lane on a 4-byte stride from 0x2000 over iterations 1 .. 39 touches bytes 0x2004 .. 0x209f:
   units 257 .. 260 where it reaches them, ascending, each once (256 is the one its instruction
   read); on a -4-byte stride from 0x20a0 (unit 261), the same bytes: units 260 .. 256, descending;
   then the unit of the last iteration again (260; 256). */
Test(spans, a_small_stride_references_each_unit_once_where_it_reaches_it) {
  for (int dir = 0; dir < 2; dir++) {
    cgp_spans *s = cgp_spans_new(32);
    uint64_t a[1] = {dir ? 0x20a0 : 0x2000};
    cgp_span sp[1];
    cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, dir ? -4 : 4, 1, 40);
    refs r = {0};
    cgp_spans_add(s, &m, 1, record, &r);
    cgp_spans_flush(s, record, &r);
    cr_assert_eq(r.n, dir ? 6 : 5, "direction %d: %u references", dir, r.n);
    for (unsigned i = 0; i + 1 < r.n; i++) cr_expect_eq(r.unit[i], dir ? 260 - i : 257 + i);
    cr_expect(r.unit[r.n - 1] == (dir ? 256u : 260u) && r.tag[r.n - 1] == CGP_REF_AGAIN, "direction %d", dir);
    cgp_spans_free(s);
  }
}

/* A coalesced warp (32 consecutive floats, 128 bytes: 4 units) on a 256-byte stride over
   iterations 1 and 2: one span of the warp's bytes, 4 units an iteration (a lane at a time would
   also give 8 distinct units, in 64 references), and iteration 2's 4 again at the end. */
Test(spans, a_coalesced_warp_is_one_span) {
  cgp_spans *s = cgp_spans_new(32);
  uint64_t a[32];
  for (unsigned l = 0; l < 32; l++) a[l] = 0x4000 + 4 * l;
  cgp_span sp[32];
  cgp_warp_mem m = spanned(CGP_LOAD, a, 32, sp, 256, 1, 3);
  refs r = {0};
  cgp_spans_add(s, &m, 1, record, &r);
  cgp_spans_flush(s, record, &r);
  cr_assert_eq(r.n, 12);
  for (unsigned i = 0; i < 12; i++) cr_expect_eq(r.unit[i], 0x4000 / 32 + 8 + (i < 8 ? i / 4 : 1) * 8 + i % 4);
  cgp_spans_free(s);
}

/* Every reference a flush makes, in order (up to 1 << 16). */
typedef struct {
  uint64_t unit[1 << 16];
  uint32_t tag[1 << 16];
  unsigned n;
} many_refs;

static void record_many(void *ctx, const uint64_t *units, const uint32_t *tag, unsigned n) {
  many_refs *r = ctx;
  for (unsigned i = 0; i < n && r->n < (1u << 16); i++) {
    r->unit[r->n] = units[i];
    r->tag[r->n++] = tag[i];
  }
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* The flush by schedule against the reference's buckets (cgp_l2_warm.c): 400 random batches of
   warps, each lane on one of a few strides (below a unit, a unit, several, none, both ways), from
   one of a few first iterations to one of a few last ones, coalesced warps among them (one span
   of the warp's bytes), in a quarter of the batches lanes at different places in their units
   (many schedules: above 8 the fast path steps aside): the same
   units with the same tags in the same order, on units of 32 bytes and of 128. Tried against a
   fast path that ignored a span's place in its unit, or its first iteration: both fail here. */
Test(spans, by_schedule_and_by_bucket_alike) {
  static many_refs fast, ref;
  static const int64_t strides[] = {4, -4, 8, 32, 128, 0, 256, -64, 12};
  unsigned by_schedule = 0;
  for (int round = 0; round < 400; round++) {
    unsigned ub = round % 2 ? 128 : 32;
    cgp_spans *a = cgp_spans_new(ub), *b = cgp_spans_new(ub);
    cr_assert(a && b);
    fast.n = ref.n = 0;
    unsigned nst = 1 + (unsigned)(next_rand() % 3), nlo = 1 + (unsigned)(next_rand() % 2);
    int64_t st[3];
    uint32_t lo[2], hi[2];
    for (unsigned i = 0; i < nst; i++) st[i] = strides[next_rand() % 9];
    for (unsigned i = 0; i < nlo; i++) {
      lo[i] = 1 + (uint32_t)(next_rand() % 3);
      hi[i] = lo[i] + 1 + (uint32_t)(next_rand() % 200);
    }
    unsigned warps = 1 + (unsigned)(next_rand() % 6);
    for (unsigned w = 0; w < warps; w++) {
      unsigned sites = 1 + (unsigned)(next_rand() % 3);
      for (unsigned site = 0; site < sites; site++) {
        uint64_t addr[32];
        cgp_span sp[32];
        unsigned n = 1 + (unsigned)(next_rand() % 32), pick = (unsigned)(next_rand() % nlo);
        int coalesced = next_rand() % 2;
        uint64_t base = 0x100000 + (next_rand() % 4096) * 4;
        int64_t s0 = st[next_rand() % nst];
        int scatter = round % 4 == 0;            /* lanes at different places in their units */
        for (unsigned l = 0; l < n; l++)
          addr[l] = coalesced ? base + 4 * l : base + 16384 * l + (scatter ? (next_rand() % 8) * 4 : 0);
        cgp_warp_mem m = spanned(next_rand() % 3 ? CGP_LOAD : CGP_STORE, addr, n, sp, s0, lo[pick], hi[pick]);
        if (!coalesced)
          for (unsigned l = 0; l < n; l++) sp[l].stride = st[next_rand() % nst];
        m.warp = w;
        cgp_spans_add(a, &m, 1 + w * 4 + site, record_many, &fast);
        cgp_spans_add(b, &m, 1 + w * 4 + site, record_many, &ref);
      }
    }
    cgp_spans_flush(a, record_many, &fast);
    cgp_spans_flush_reference(b, record_many, &ref);
    by_schedule += cgp_spans_by_schedule(a);
    cr_assert_eq(cgp_spans_by_schedule(b), 0);
    cr_assert_eq(fast.n, ref.n, "round %d: %u references by schedule, %u by bucket", round, fast.n, ref.n);
    cr_assert_lt(fast.n, 1u << 16, "round %d: the recorder held every reference", round);
    for (unsigned i = 0; i < ref.n; i++) {
      cr_assert_eq(fast.unit[i], ref.unit[i], "round %d, reference %u: unit %llu against %llu", round, i,
                   (unsigned long long)fast.unit[i], (unsigned long long)ref.unit[i]);
      cr_assert_eq(fast.tag[i], ref.tag[i], "round %d, reference %u: tag", round, i);
    }
    cr_assert(!cgp_spans_pending(a, 0) && !cgp_spans_pending(b, 0));
    cgp_spans_free(a);
    cgp_spans_free(b);
  }
  cr_assert_gt(by_schedule, 200, "%u of 400 flushes went by schedule", by_schedule);
  cr_assert_lt(by_schedule, 400, "some had too many schedules");
}

/* Units 5 and 6 in one window, 6 and 7 in the next (a 1-D grid's blocks 0 and 9: no row known):
   the grid shares 6 only. */
Test(shared, units_two_windows_in_a_row_referenced) {
  cgp_shared *h = cgp_shared_new();
  cr_assert_not_null(h);
  cgp_shared_note(h, 5, 0);
  cgp_shared_note(h, 6, 0);
  cgp_shared_next_window(h);
  cgp_shared_note(h, 6, 9);
  cgp_shared_note(h, 7, 9);
  cgp_shared_note(h, 6, 9);
  refs r = {0};
  cgp_shared_each(h, 100, 10, 1000, record, &r);
  cr_assert_eq(r.n, 1);
  cr_assert_eq(r.unit[0], 6);
  cr_assert_eq(r.tag[0], CGP_REF_AGAIN);
  cgp_shared_next_window(h);                   /* a window with none of them */
  cgp_shared_next_window(h);
  cgp_shared_note(h, 6, 30);
  r.n = 0;
  cgp_shared_each(h, 100, 10, 1000, record, &r);
  cr_assert_eq(r.n, 0, "the window before did not reference 6");
  cgp_shared_free(h);
}

/* The references of a flush, counted, with their sum and first and last unit. */
typedef struct {
  unsigned n;
  uint64_t sum, first, last;
} ref_count;

static void count_refs(void *ctx, const uint64_t *units, const uint32_t *tag, unsigned n) {
  ref_count *r = ctx;
  (void)tag;
  for (unsigned i = 0; i < n; i++) {
    if (!r->n) r->first = units[i];
    r->last = units[i];
    r->sum += units[i];
    r->n++;
  }
}

/* Sets start small and grow as units come (cgp_l2_warm.c, seen_room): what they answer is the
   same at every size. A window of 2000 units (0, 3, ... 5997) and the next of 2000 (0, 6, ...
   11994): the grid shares the 1000 multiples of 6 below 6000, in the second window's order
   (0 first, 5994 last, sum 6 x 999 x 1000 / 2). A window follows at most 4096 units (half of
   SHARED_CAP): two windows of 0 .. 4999 share 0 .. 4095 only. */
Test(shared, a_window_of_thousands_of_units_is_followed_up_to_its_bound) {
  cgp_shared *h = cgp_shared_new();
  cr_assert_not_null(h);
  for (uint64_t u = 0; u < 6000; u += 3) cgp_shared_note(h, u, 0);
  cgp_shared_next_window(h);
  for (uint64_t u = 0; u < 12000; u += 6) cgp_shared_note(h, u, 9);
  ref_count r = {0};
  cgp_shared_each(h, 100, 10, 1000, count_refs, &r);
  cr_assert_eq(r.n, 1000);
  cr_assert_eq(r.first, 0);
  cr_assert_eq(r.last, 5994);
  cr_assert_eq(r.sum, 6u * 999 * 1000 / 2);
  cgp_shared_next_window(h);
  for (uint64_t u = 0; u < 5000; u++) cgp_shared_note(h, u, 20);
  cgp_shared_next_window(h);
  for (uint64_t u = 0; u < 5000; u++) cgp_shared_note(h, u, 29);
  r = (ref_count){0};
  cgp_shared_each(h, 100, 10, 1000, count_refs, &r);
  cr_assert_eq(r.n, 4096, "a window follows half of SHARED_CAP units: %u", r.n);
  cr_assert_eq(r.last, 4095);
  cgp_shared_free(h);
}

/* Rows of 128 blocks: a window ending at block (79, 0), the next starting at (0, 1) with 48 blocks
   between (80 .. 127): R + 0 - 79 = 48 + 1, R = 128. Ending at (15, 0), the next at (8, 2) with
   248 between: 2 R + 8 - 15 = 249, R = 128; with 247 between, 2 R = 255: no row of whole blocks.
   One row, another layer, or a row narrower than a column seen (ending at (2, 0), the next at
   (9, 2) after 10: 2 R = 4) tell nothing. */
Test(shared, the_grid_row_from_two_windows_places) {
  cr_assert_eq(cgp_grid_row(cgp_grid_block(79, 0, 0), cgp_grid_block(0, 1, 0), 48), 128);
  cr_assert_eq(cgp_grid_row(cgp_grid_block(15, 0, 0), cgp_grid_block(8, 2, 0), 248), 128);
  cr_assert_eq(cgp_grid_row(cgp_grid_block(15, 0, 0), cgp_grid_block(8, 2, 0), 247), 0, "no row of whole blocks");
  cr_assert_eq(cgp_grid_row(cgp_grid_block(15, 3, 0), cgp_grid_block(32, 3, 0), 16), 0, "one row");
  cr_assert_eq(cgp_grid_row(cgp_grid_block(15, 3, 0), cgp_grid_block(0, 4, 1), 16), 0, "another layer");
  cr_assert_eq(cgp_grid_row(cgp_grid_block(2, 0, 0), cgp_grid_block(9, 2, 0), 10), 0, "a row of 2 < 10 columns");
}

/* GEMVER's v1[j] on a grid of rows of 128 blocks: unit 1 is read by the blocks of column 3 alone,
   unit 2 by columns 3 and 4, in windows at rows 1 and 2 (blocks 0 .. 15 of each; the windows
   before them placed the row: (79, 0), then (0, 1) after 48 blocks). After the second, 112 blocks
   untraced (the rest of row 2): no block of column 3 among them, so unit 1 is not referenced
   again, unit 2 is (the grid shares it). With 240 untraced, a whole row, unit 1 is, if the L2
   holds a row's new units (128 x 10 <= 2000), not if it does not (128 x 10 > 1000). */
/* A grid of rows of 128 blocks, its first window at (64 .. 79, 0), 48 blocks untraced after it. */
static cgp_shared *rows_of_128(uint64_t capacity) {
  cgp_shared *h = cgp_shared_new();
  cr_assert_not_null(h);
  cgp_shared_note(h, 9, cgp_grid_block(79, 0, 0));
  cgp_shared_each(h, 48, 10, capacity, record, &(refs){0});
  return h;
}

/* A window at (0 .. 15, row): unit 1 read by column 3, with `two` unit 2 by columns 3 and 4, unit 8
   by columns 0 and 15. */
static void window_at_row(cgp_shared *h, uint64_t row, int two) {
  cgp_shared_next_window(h);
  cgp_shared_note(h, 1, cgp_grid_block(3, row, 0));
  if (two) {
    cgp_shared_note(h, 2, cgp_grid_block(3, row, 0));
    cgp_shared_note(h, 2, cgp_grid_block(4, row, 0));
  }
  cgp_shared_note(h, 8, cgp_grid_block(0, row, 0));
  cgp_shared_note(h, 8, cgp_grid_block(15, row, 0));
}

Test(shared, a_unit_one_column_of_blocks_reads_is_kept_only_across_a_row_the_l2_holds) {
  const uint64_t skipped[3] = {112, 240, 240}, capacity[3] = {2000, 2000, 1000};
  const unsigned want[3] = {1, 2, 1};
  for (int c = 0; c < 3; c++) {
    cgp_shared *h = rows_of_128(capacity[c]);
    for (uint64_t row = 1; row <= 2; row++) {
      window_at_row(h, row, 1);
      refs r = {0};
      cgp_shared_each(h, row == 1 ? 112 : skipped[c], 10, capacity[c], record, &r);
      if (row == 1) continue;
      cr_assert_eq(r.n, want[c] + 1, "case %d: %u units kept", c, r.n);  /* and unit 8, columns 0 and 15 */
      cr_assert_eq(r.unit[want[c] == 2 ? 1 : 0], 2, "case %d", c);
      if (want[c] == 2) cr_assert_eq(r.unit[0], 1, "case %d", c);
    }
    cgp_shared_free(h);
  }
}

/* The same grid: unit 1 read by column 3 in the windows at rows 1 and 2 (blocks 0 .. 15), then a
   window at (16 .. 31, 3), which reads no block of column 3 (unit 8, the vector every column
   reads, at 16 and 31), and 240 blocks untraced after it, whole rows: the grid's rows go on
   reading unit 1, and it is kept, after unit 8, where the L2 holds a row's new units; not where it
   does not; nor is unit 8 after a new launch's first window that does not read it. Before, a unit
   the window just closed did not read was never kept: GEMVER's v1[j] and CORR's mean[j] and
   stddev[j] at N = 640 on the TK1 (rows of 20 blocks, windows of 16), +9.4 and +9.8 % against
   `full`. */
Test(shared, a_column_the_last_window_missed_is_kept_from_the_two_before) {
  const uint64_t capacity[2] = {2000, 1000};
  for (int c = 0; c < 2; c++) {
    cgp_shared *h = rows_of_128(capacity[c]);
    for (uint64_t row = 1; row <= 2; row++) {
      window_at_row(h, row, 0);
      cgp_shared_each(h, 128, 10, capacity[c], record, &(refs){0});
    }
    cgp_shared_next_window(h);                            /* window at (16 .. 31, 3) */
    cgp_shared_note(h, 8, cgp_grid_block(16, 3, 0));
    cgp_shared_note(h, 8, cgp_grid_block(31, 3, 0));
    cgp_shared_note(h, 7, cgp_grid_block(20, 3, 0));
    refs r = {0};
    cgp_shared_each(h, 240, 10, capacity[c], record, &r);
    cr_assert_eq(r.n, c == 0 ? 2u : 1u, "case %d: %u units kept", c, r.n);
    cr_assert_eq(r.unit[0], 8, "case %d", c);
    if (c == 0) cr_assert_eq(r.unit[1], 1, "unit 1, column 3's");
    /* a new launch's first window (its sweep back at row 0) reading unit 5 alone: another
       launch's data may have moved, so unit 8, which the two windows before it read, is not kept */
    cgp_shared_next_window(h);
    cgp_shared_note(h, 5, cgp_grid_block(0, 0, 0));
    r.n = 0;
    cgp_shared_each(h, 240, 10, capacity[c], record, &r);
    cr_assert_eq(r.n, 0, "case %d, a new launch: %u units kept", c, r.n);
    cgp_shared_free(h);
  }
}

/* GEMVER's v1[j] at N = 768 on the TK1: rows of 24 blocks, windows of 16, block column c reading
   unit 100 + c. The windows fall at columns 0 .. 15 (row 0), 8 .. 23 (row 1), 16 .. 23 and 0 .. 7
   (rows 2 and 3), 8 .. 23 (row 5), 16 .. 23 and 0 .. 7 (rows 10, 11), 8 .. 23 (row 21), 0 .. 15 (row
   32), with 16, 48, 112, then 240 blocks (10 rows) untraced after each, as the run places them.
   Columns 0 .. 7 are read by the windows at rows 3 and 11 and never by two in a row, yet every
   untraced row reads them: after the window at row 11 and again after the one at row 32, all 24
   columns' units are kept, those of 0 .. 7 once each; not where the L2 cannot hold a row's new
   units; and unit 7, which one window's block alone read, never. Before, only the units the last
   two windows (or the two before them) read were: columns 0 .. 7 missed at rows 21 and 32 in
   every other window, +15.4 % against `full` (CORR's and COVAR's reduce kernels +17.5 and +14.4 %;
   now +0.14, 0.00 and 0.00 %). */
Test(shared, a_column_two_windows_of_the_sweep_read_is_kept) {
  const unsigned lo[7][2] = {{0, 16}, {8, 24}, {16, 24}, {8, 24}, {16, 24}, {8, 24}, {0, 16}};
  const uint64_t row[7] = {0, 1, 2, 5, 10, 21, 32}, after[7] = {16, 48, 112, 240, 240, 240, 240};
  const uint64_t capacity[2] = {1000, 100};
  for (int c = 0; c < 2; c++) {
    cgp_shared *h = cgp_shared_new();
    cr_assert_not_null(h);
    for (int w = 0; w < 7; w++) {
      if (w) cgp_shared_next_window(h);
      for (unsigned x = lo[w][0]; x < lo[w][1]; x++) cgp_shared_note(h, 100 + x, cgp_grid_block(x, row[w], 0));
      if (lo[w][0] == 16)                         /* and the next row's columns 0 .. 7 */
        for (unsigned x = 0; x < 8; x++) cgp_shared_note(h, 100 + x, cgp_grid_block(x, row[w] + 1, 0));
      if (w == 3) cgp_shared_note(h, 7, cgp_grid_block(9, row[w], 0));
      refs r = {0};
      cgp_shared_each(h, after[w], 10, capacity[c], record, &r);   /* a row: 24 x 10 new units */
      if (w != 4 && w != 6) continue;
      unsigned times[24] = {0}, other = 0;
      for (unsigned i = 0; i < r.n; i++) {
        if (r.unit[i] >= 100 && r.unit[i] < 124) times[r.unit[i] - 100]++;
        else other++;
        cr_assert_eq(r.tag[i], CGP_REF_AGAIN);
      }
      cr_assert_eq(other, 0, "case %d, window %d: unit 7 kept", c, w);
      for (unsigned x = 0; x < 24; x++)
        cr_assert_eq(times[x], c == 0 ? 1u : 0u, "case %d, window %d: column %u's unit kept %u times", c, w, x,
                     times[x]);
    }
    cgp_shared_free(h);
  }
}

/* ---- through the cache analysis ----------------------------------------------------------------- */

static const uint8_t kinds[2] = {CGP_LOAD, CGP_STORE};
static const double ptx[1] = {1};

/* A fully associative L2 of 4 KiB in 32-byte units (128 of them), no L1. */
static cgp_analysis_cfg cfg_l2(void) {
  return (cgp_analysis_cfg){.nsid = 2, .nbid = 1, .sid_kind = kinds, .bid_total = ptx, .bid_core = ptx, .no_sm = 1,
                            .l2_bytes = 4096, .l2_line_bytes = 128, .l2_unit_bytes = 32, .l2_assoc = 0,
                            .l2_index = CGP_L2_FULLY_ASSOCIATIVE, .dims = 1};
}

static double dram(const cgp_totals *t) { return t->ld_dram[0] + t->ld_dram[1] + t->ld_dram[2]; }

/* The analyses of *cfg, in the first batch (of `warps` warps in one block, counted or warming
   only) of a launch's first window. */
static cgp_analysis_set *first_batch(const cgp_analysis_cfg *cfg, int counting, unsigned warps) {
  cgp_analysis_set *s = cgp_analysis_set_new(cfg, cgp_analyses);
  cr_assert_not_null(s);
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_window(s);
  cgp_analysis_begin_batch(s, counting, warps, 1);
  return s;
}

/* One lane at 0x10000 on a 128-byte stride stands for iterations 1 .. 3 (skipped 3): counted as 4
   executions of its own (4 transactions), 4 misses (its own, and its span's 3 units, none in the
   L2), and once the warp moves on (an instruction without a span), the units of those iterations
   are in the L2: a load of the third one hits. */
Test(cache_warm, the_skipped_iterations_units_are_in_the_l2_once_the_warp_moves_on) {
  cgp_analysis_cfg cfg = cfg_l2();
  cgp_analysis_set *s = first_batch(&cfg, 1, 1);
  uint64_t a[1] = {0x10000};
  cgp_span sp[1];
  cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, 128, 1, 4);
  m.skipped = 3;
  m.spanned = 1;
  cgp_analysis_warp_mem(s, &m);
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  uint64_t c[1] = {0x10000 + 3 * 128};
  cgp_warp_mem next = spanned(CGP_LOAD, c, 1, sp, 0, 0, 0);
  next.span = NULL;
  cgp_analysis_warp_mem(s, &next);
  cgp_analysis_end_batch(s);
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.ld_trans[CGP_CLASS_CONST] + t.ld_trans[CGP_CLASS_COAL] + t.ld_trans[CGP_CLASS_UNCOAL], 5);
  cr_assert_eq(dram(&t), 4, "the spanned load's 4 (itself, and its span's 3 units), the next none");
  cgp_analysis_set_free(s);
}

/* With an L1 that caches global loads (4 units of 32 bytes, one SM): a lane at 0x10000 read
   in its window, then its span of iterations 1 .. 8 on a 32-byte stride. Once the warp moves on,
   the span's 8 units went through the L1 too, as the skipped iterations' loads did, and evicted
   0x10000 from it: the same address read again misses the L1 (0 hits; before, the L1 had seen
   the window's load alone and hit). A unit of the span's last four (0x10000 + 8 x 32) hits.
   Whether or not the load is `spanned` (a load whose instruction counts its skipped iterations'
   misses itself, its span's counted nowhere, as where not every lane reaches the window's end or
   in a window of a loop around its own: its span's units went through the L2 only, and the
   re-read hit the L1 the skipped iterations had evicted it from). */
Test(cache_warm, the_skipped_iterations_loads_go_through_the_l1) {
  cgp_analysis_cfg cfg = cfg_l2();
  cfg.l1_bytes = 4 * 32;
  cfg.l1_unit_bytes = 32;
  cfg.l1_caches_global = 1;
  const uint64_t again[2] = {0x10000, 0x10000 + 8 * 32};
  const double want[2] = {0, 1};
  for (int c = 0; c < 4; c++) {
    cgp_analysis_set *s = first_batch(&cfg, 1, 1);
    uint64_t a[1] = {0x10000};
    cgp_span sp[1];
    cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, 32, 1, 9);
    m.skipped = 8;
    m.spanned = c < 2;
    cgp_analysis_warp_mem(s, &m);
    cgp_analysis_end_batch(s);
    cgp_totals t = {0};
    cgp_site_totals site[2] = {0};
    cgp_analysis_results(s, &t, site);         /* the spanned load's counts, taken off */
    cgp_analysis_begin_batch(s, 1, 1, 1);
    uint64_t b[1] = {again[c % 2]};
    cgp_warp_mem next = spanned(CGP_LOAD, b, 1, sp, 0, 0, 0);
    next.span = NULL;
    cgp_analysis_warp_mem(s, &next);
    cgp_analysis_end_batch(s);
    memset(&t, 0, sizeof t);
    cgp_analysis_results(s, &t, site);
    cr_assert_eq(t.l1_hit[next.cls], want[c % 2], "0x%llx, %sspanned: %g L1 hits", (unsigned long long)again[c % 2],
                 m.spanned ? "" : "not ", t.l1_hit[next.cls]);
    cgp_analysis_set_free(s);
  }
}

/* One load of lane 0 at addr on a `stride`-byte stride standing for iterations 1 .. 3 (skipped
   3, spanned), site 1, in s's batch; the batch ended: site 1's totals. */
static cgp_site_totals spanned_site(cgp_analysis_set *s, uint64_t addr, int64_t stride, int first) {
  uint64_t a[1] = {addr};
  cgp_span sp[1];
  cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, stride, 1, 4);
  m.skipped = 3;
  m.sid = 1;
  m.spanned = 1;
  m.first = (uint8_t)first;
  cgp_analysis_warp_mem(s, &m);
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  cgp_analysis_results(s, &t, site);
  return site[1];
}

/* With an L1 that caches global loads (16 units of 32 bytes, one SM): a lane at 0x10000 on a
   32-byte stride stands for iterations 1 .. 3, and another load of the batch read iteration 2's
   unit before it. Its L2 transactions are its own miss and those of the span's units the L1 misses
   (iterations 1 and 3): 3, not 4 (as the GPU's load of iteration 2 hits the L1 another lane
   filled: ATAX's row walk at N = 150 on the H100, rows of 600 bytes sharing a sector with the next
   row's start, 4.10 L2 transactions a warp against `full` mode's 3.75, now 3.75). Its L2 misses
   are 3 either way: iteration 2's unit is in the L2 too. Without the other load, 4. */
Test(cache_warm, a_spanned_loads_skipped_iterations_make_transactions_where_the_l1_misses) {
  cgp_analysis_cfg cfg = cfg_l2();
  cfg.l1_bytes = 16 * 32;
  cfg.l1_unit_bytes = 32;
  cfg.l1_caches_global = 1;
  for (int other = 0; other < 2; other++) {
    cgp_analysis_set *s = first_batch(&cfg, 1, 2);
    cgp_span sp[1];
    if (other) {
      uint64_t b[1] = {0x10000 + 2 * 32};
      cgp_warp_mem o = spanned(CGP_LOAD, b, 1, sp, 0, 0, 0);
      o.span = NULL;
      o.warp = 1;
      cgp_analysis_warp_mem(s, &o);
    }
    cgp_site_totals site = spanned_site(s, 0x10000, 32, 0);
    cr_assert_eq(site.trans, other ? 3 : 4, "%s the other load: %g transactions", other ? "after" : "without",
                 site.trans);
    cr_assert_eq(site.miss, other ? 3 : 4, "%g misses", site.miss);
    cgp_analysis_set_free(s);
  }
}

/* A lane at 0x10008 on a 4-byte stride: the address one stride back lies in its unit, so in the
   iterations it stands for (skipped 3, their addresses in the same unit: no new unit for the span)
   it re-reads the unit, and a unit re-read misses as the traced element did. Unless the element is
   its loop's iteration 0 (`first`): its lane read nothing one stride back, its miss is the cold
   one, and the iterations like it re-read what their lane's previous iteration read. With the L1
   and without: 1 L2 miss (its own) for a first element, 4 for another; with the L1, likewise
   1 or 4 transactions; without, 4 either way (no L1: every execution is a transaction). ATAX's
   row walk at N = 150, whose rows start in the sector where the row before ends, counted one
   miss a row too many on the TK1 and the H100. */
Test(cache_warm, a_loops_first_element_re_reads_nothing) {
  for (int l1 = 0; l1 < 2; l1++)
    for (int first = 0; first < 2; first++) {
      cgp_analysis_cfg cfg = cfg_l2();
      if (l1) {
        cfg.l1_bytes = 16 * 32;
        cfg.l1_unit_bytes = 32;
        cfg.l1_caches_global = 1;
      }
      cgp_analysis_set *s = first_batch(&cfg, 1, 1);
      cgp_site_totals site = spanned_site(s, 0x10008, 4, first);
      cr_assert_eq(site.miss, first ? 1 : 4, "L1 %d, first %d: %g misses", l1, first, site.miss);
      cr_assert_eq(site.trans, l1 && first ? 1 : 4, "L1 %d, first %d: %g transactions", l1, first, site.trans);
      cgp_analysis_set_free(s);
    }
}

/* The same spanned load, but the L2 already holds the units of iterations 2 and 3 (an earlier
   load of each, in a batch that only warms) and not its own nor iteration 1's: 2 misses (its own
   and iteration 1's) in 4 transactions, the hit rate the skipped iterations have, where taking
   them as the traced one (miss) gave 4; both the class's and the site's. */
Test(cache_warm, the_skipped_iterations_count_their_own_l2_misses) {
  cgp_analysis_cfg cfg = cfg_l2();
  cgp_analysis_set *s = first_batch(&cfg, 0, 1);
  cgp_span sp[1];
  for (unsigned o = 2; o <= 3; o++) {
    uint64_t w[1] = {0x10000 + o * 128};
    cgp_warp_mem warm = spanned(CGP_LOAD, w, 1, sp, 0, 0, 0);
    warm.span = NULL;
    cgp_analysis_warp_mem(s, &warm);
  }
  cgp_analysis_end_batch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  uint64_t a[1] = {0x10000};
  cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, 128, 1, 4);
  m.skipped = 3;
  m.sid = 1;
  m.spanned = 1;
  cgp_analysis_warp_mem(s, &m);
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.ld_trans[m.cls], 4);
  cr_assert_eq(t.ld_dram[m.cls], 2, "its own miss and iteration 1's; %g", t.ld_dram[m.cls]);
  cr_assert_eq(dram(&t), 2);
  cr_assert_eq(site[1].trans, 4);
  cr_assert_eq(site[1].miss, 2);
  cgp_analysis_set_free(s);
}

/* q warp loads of 32 lanes, each lane walking its own row (lanes 4 KiB apart: uncoalesced, a span
   a lane) in 4-byte steps: a window of 8 iterations, one 32-byte unit, t = 0 .. 7 (t 0 reaches the
   unit, 1 .. 7 re-read it), each element standing for one skipped iteration (t = 8 .. 15, the next
   unit, carried by t 7's span), all of a counted batch in the 128-unit L2, the warps side by side
   iteration by iteration: its L2 misses. */
static double row_walk_misses(unsigned q) {
  cgp_analysis_cfg cfg = cfg_l2();
  cgp_analysis_set *s = first_batch(&cfg, 1, q);
  static uint64_t a[32];
  static cgp_span sp[32];
  for (unsigned t = 0; t < 8; t++)
    for (unsigned i = 0; i < q; i++) {
      for (unsigned l = 0; l < 32; l++) a[l] = 0x100000 + (uint64_t)(i * 32 + l) * 4096 + 4 * t;
      cgp_warp_mem m = spanned(CGP_LOAD, a, 32, sp, 4, t == 7 ? 1 : 0, t == 7 ? 9 : 0);
      m.skipped = 1;
      m.spanned = 1;
      m.warp = i;
      cgp_analysis_warp_mem(s, &m);
    }
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  cgp_analysis_results(s, &t, site);
  cgp_analysis_set_free(s);
  return dram(&t);
}

/* 3 x 32 = 96 rows at once fit the 128-unit L2: a miss where a lane reaches a unit, the window's
   (96) and the skipped iterations' (96, its span's), re-reads hit: 192, as a full trace of the 16
   iterations. 5 x 32 = 160 do not, and LRU evicts each unit before its lane re-reads it: every
   iteration misses, 160 x 16 = 2560, the skipped re-reads as the window's did (160 + 7 x 160 x 2
   + the span's 160); counting every element once and the skipped iterations' misses from the
   span alone, which references a unit once: 160 x 9 = 1440. */
Test(cache_warm, a_row_walk_that_thrashes_the_l2_misses_every_iteration_as_a_full_trace) {
  cr_assert_eq(row_walk_misses(3), 192, "%g", row_walk_misses(3));
  cr_assert_eq(row_walk_misses(5), 2560, "%g", row_walk_misses(5));
}

/* 32 lanes walking their own rows (4 KiB apart) in 4-byte steps, the odd lanes' rows 16 bytes into
   a 32-byte unit: a warming batch reads every lane's first unit, then a counted window of 8
   iterations, each element standing for one skipped iteration (t 7's span carries t = 8 .. 15).
   Traced whole, the 16 iterations miss where a lane reaches a unit anew after its first: the even
   lanes at t = 8 (16), the odd ones at t = 4 and 12 (32): 48. The window misses at t = 4, the odd
   lanes (16), which reach their unit anew and so re-read nothing in the iteration it stands for
   (t = 12 is their span's, which also gives the even lanes' t = 8): 16 + 32 = 48, the odd lanes'
   misses counted once each. Weighing the instruction's 16 misses by its lanes' mean re-read share
   (the even lanes, one half, re-read their units at t = 4) counted them 1.5 times: 56. */
Test(cache_warm, a_spanned_instructions_misses_are_weighed_by_the_lanes_that_make_them) {
  cgp_analysis_cfg cfg = cfg_l2();
  cgp_analysis_set *s = first_batch(&cfg, 0, 1);
  static uint64_t a[32];
  static cgp_span sp[32];
  for (unsigned l = 0; l < 32; l++) a[l] = 0x100000 + (uint64_t)l * 4096 + (l % 2) * 16;
  cgp_warp_mem warm = spanned(CGP_LOAD, a, 32, sp, 0, 0, 0);
  warm.span = NULL;
  cgp_analysis_warp_mem(s, &warm);
  cgp_analysis_end_batch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  for (unsigned t = 0; t < 8; t++) {
    for (unsigned l = 0; l < 32; l++) a[l] = 0x100000 + (uint64_t)l * 4096 + (l % 2) * 16 + 4 * t;
    cgp_warp_mem m = spanned(CGP_LOAD, a, 32, sp, 4, t == 7 ? 1 : 0, t == 7 ? 9 : 0);
    m.skipped = 1;
    m.spanned = 1;
    cgp_analysis_warp_mem(s, &m);
  }
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(dram(&t), 48, "%g L2 misses, a full trace's 48", dram(&t));
  cr_assert_eq(site[0].miss, 48, "the site's: %g", site[0].miss);
  cgp_analysis_set_free(s);
}

/* A window of one batch in which m is read: its L2 misses (DRAM transactions). */
static double window_misses(cgp_analysis_set *s, const cgp_warp_mem *m) {
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  cgp_analysis_begin_window(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  cgp_analysis_warp_mem(s, m);
  cgp_analysis_end_batch(s);
  cgp_analysis_results(s, &t, site);
  return dram(&t);
}

/* A unit the windows at two places of the grid both read survives the untraced blocks after the
   second, whose new lines fill the L2 (skip_blocks); a unit only the second read does not. */
Test(cache_warm, lines_two_windows_read_survive_the_untraced_blocks) {
  cgp_analysis_cfg cfg = cfg_l2();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cgp_analysis_begin_launch(s);
  uint64_t x[1] = {0x20000}, y[1] = {0x30000};
  cgp_span sp[1];
  cgp_warp_mem mx = spanned(CGP_LOAD, x, 1, sp, 0, 0, 0), my = spanned(CGP_LOAD, y, 1, sp, 0, 0, 0);
  mx.span = my.span = NULL;
  for (int w = 0; w < 2; w++) {                 /* window 1 reads x; window 2 reads x and y */
    cgp_analysis_begin_window(s);
    cgp_analysis_begin_batch(s, 1, 1, 1);
    cgp_analysis_warp_mem(s, &mx);
    if (w == 1) cgp_analysis_warp_mem(s, &my);
    cgp_analysis_end_batch(s);
    cgp_analysis_skip_blocks(s, 1000);          /* 1000 blocks of the window's misses: all new */
  }
  cgp_totals t = {0};
  cgp_site_totals site[2] = {0};
  cgp_analysis_results(s, &t, site);            /* the two windows' counts, taken off */
  cr_assert_eq(window_misses(s, &mx), 0, "x, read by both windows, is still in the L2");
  cr_assert_eq(window_misses(s, &my), 1, "y, read by the second window only, was aged out");
  cgp_analysis_set_free(s);
}
