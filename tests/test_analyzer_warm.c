/* What untraced work brings into the L2 (cgp_l2_warm.c): the units of the iterations a sampled
   instruction stood for, in iteration order across spans, and the lines two windows in a row
   shared; and the cache analysis that references them (cgp_an_cache.c), counting nothing. */
#include <criterion/criterion.h>

#include "cgp_analyzer.h"

/* The references a flush makes, in order. */
typedef struct {
  uint64_t unit[256];
  uint8_t store[256];
  unsigned n;
} refs;

static void record(void *ctx, const uint64_t *units, const uint8_t *store, unsigned n) {
  refs *r = ctx;
  for (unsigned i = 0; i < n && r->n < 256; i++) {
    r->unit[r->n] = units[i];
    r->store[r->n++] = store[i];
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
                    .lane = lanes, .thread = threads, .span = sp};
  m.affine = (uint8_t)cgp_affine(addr, n);
  m.cls = (uint8_t)cgp_classify(addr, n, 4);
  return m;
}

/* A lane on a 128-byte stride (32-byte units: one unit an iteration) and one on a single element
   (stride 0), both standing for iterations 1 .. 3: iteration by iteration, the moving one's units
   132, 136, 140 (0x1000 / 32 + 4 o), the still one's unit 1024 at the first and again at the end. */
Test(spans, iterations_in_order_across_spans_and_a_still_one_again_at_the_end) {
  cgp_spans *s = cgp_spans_new(32);
  cr_assert_not_null(s);
  uint64_t a[1] = {0x1000}, b[1] = {0x8000};
  cgp_span sa[1], sb[1];
  cgp_warp_mem ma = spanned(CGP_LOAD, a, 1, sa, 128, 1, 4), mb = spanned(CGP_STORE, b, 1, sb, 0, 1, 4);
  ma.warp = 3;
  mb.warp = 3;
  refs r = {0};
  cgp_spans_add(s, &ma, record, &r);
  cgp_spans_add(s, &mb, record, &r);
  cr_assert(cgp_spans_pending(s, 3));
  cr_assert(!cgp_spans_pending(s, 4));
  cr_assert_eq(r.n, 0, "nothing referenced before the flush");
  cgp_spans_flush(s, record, &r);
  const uint64_t want[5] = {132, 1024, 136, 140, 1024};
  const uint8_t kind[5] = {0, 1, 0, 0, 1};
  cr_assert_eq(r.n, 5);
  for (unsigned i = 0; i < 5; i++) {
    cr_expect_eq(r.unit[i], want[i], "reference %u: unit %llu", i, (unsigned long long)r.unit[i]);
    cr_expect_eq(r.store[i], kind[i]);
  }
  cr_assert(!cgp_spans_pending(s, 3));
  cgp_spans_free(s);
}

/* A lane on a 4-byte stride over iterations 1 .. 39 touches bytes 0x2004 .. 0x209f: units 256 ..
   260, each once, ascending; on a -4-byte stride from 0x20a0, bytes 0x2004 .. 0x209f again, the
   units descending. */
Test(spans, a_small_stride_references_each_unit_once_in_the_direction_it_moves) {
  for (int dir = 0; dir < 2; dir++) {
    cgp_spans *s = cgp_spans_new(32);
    uint64_t a[1] = {dir ? 0x20a0 : 0x2000};
    cgp_span sp[1];
    cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, dir ? -4 : 4, 1, 40);
    refs r = {0};
    cgp_spans_add(s, &m, record, &r);
    cgp_spans_flush(s, record, &r);
    cr_assert_eq(r.n, 5, "direction %d: %u units", dir, r.n);
    for (unsigned i = 0; i < 5; i++) cr_expect_eq(r.unit[i], dir ? 260 - i : 256 + i);
    cgp_spans_free(s);
  }
}

/* A coalesced warp (32 consecutive floats, 128 bytes: 4 units) on a 256-byte stride over
   iterations 1 and 2: one span of the warp's bytes, 4 units an iteration (a lane at a time would
   also give 8 distinct units, in 64 references). */
Test(spans, a_coalesced_warp_is_one_span) {
  cgp_spans *s = cgp_spans_new(32);
  uint64_t a[32];
  for (unsigned l = 0; l < 32; l++) a[l] = 0x4000 + 4 * l;
  cgp_span sp[32];
  cgp_warp_mem m = spanned(CGP_LOAD, a, 32, sp, 256, 1, 3);
  refs r = {0};
  cgp_spans_add(s, &m, record, &r);
  cgp_spans_flush(s, record, &r);
  cr_assert_eq(r.n, 8);
  for (unsigned i = 0; i < 8; i++) cr_expect_eq(r.unit[i], 0x4000 / 32 + 8 + (i / 4) * 8 + i % 4);
  cgp_spans_free(s);
}

/* Units 5 and 6 in one window, 6 and 7 in the next: the grid shares 6 only. */
Test(shared, units_two_windows_in_a_row_referenced) {
  cgp_shared *h = cgp_shared_new();
  cr_assert_not_null(h);
  cgp_shared_note(h, 5);
  cgp_shared_note(h, 6);
  cgp_shared_next_window(h);
  cgp_shared_note(h, 6);
  cgp_shared_note(h, 7);
  cgp_shared_note(h, 6);
  refs r = {0};
  cgp_shared_each(h, record, &r);
  cr_assert_eq(r.n, 1);
  cr_assert_eq(r.unit[0], 6);
  cgp_shared_next_window(h);                   /* a window with none of them */
  cgp_shared_next_window(h);
  cgp_shared_note(h, 6);
  r.n = 0;
  cgp_shared_each(h, record, &r);
  cr_assert_eq(r.n, 0, "the window before did not reference 6");
  cgp_shared_free(h);
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

/* One lane at 0x10000 on a 128-byte stride stands for iterations 1 .. 3 (skipped 3): counted as 4
   executions of its own (4 transactions, 4 misses), and once the warp moves on (an instruction
   without a span), the units of those iterations are in the L2: a load of the third one hits. */
Test(cache_warm, the_skipped_iterations_units_are_in_the_l2_once_the_warp_moves_on) {
  cgp_analysis_cfg cfg = cfg_l2();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_window(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  uint64_t a[1] = {0x10000};
  cgp_span sp[1];
  cgp_warp_mem m = spanned(CGP_LOAD, a, 1, sp, 128, 1, 4);
  m.skipped = 3;
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
  cr_assert_eq(dram(&t), 4, "the spanned load's 4 (itself, and its 3 skipped iterations as it), the next none");
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
