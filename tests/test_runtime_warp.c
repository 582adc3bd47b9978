/* Reconvergent warps on synthetic lanes: each test drives 32 lanes through a small thread body by
   hand (the calls the instrumented code makes) and checks the warp instructions, their lanes and
   classes, and the block executions with masked lanes, against a hand count. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_analyzer.h"
#include "cgp_rt_wbytes.h"
#include "cgp_rt_witer.h"   /* and cgp_rt_lanes.h: the tracker's serial, for the wrap test */

typedef struct {
  rt_shape *s;
  rt_tracker *t;
  rt_lane_rec lane[RT_WARP];
  uint8_t active[RT_WARP];
  uint64_t thread[RT_WARP];
} fixture;

static void setup(fixture *f, size_t nmem, const int *mb, const unsigned *mo, size_t nbb, const unsigned *rpo,
                  const int *bl, size_t nl, const int *lh, const int *lp) {
  char err[256] = "";
  memset(f, 0, sizeof *f);
  f->s = rt_shape_new(nmem, mb, mo, nbb, rpo, bl, nl, lh, lp, err, sizeof err);
  cr_assert_not_null(f->s, "%s", err);
  f->t = rt_tracker_new(f->s);
  cr_assert_not_null(f->t);
}

static void lane(fixture *f, unsigned l) {
  f->active[l] = 1;
  f->thread[l] = l;
  rt_tracker_start(f->t, &f->lane[l]);
}

static void teardown(fixture *f) {
  for (unsigned l = 0; l < RT_WARP; l++) rt_lane_free(&f->lane[l]);
  rt_tracker_free(f->t);
  rt_shape_free(f->s);
}

/* The warp's events in issue order. */
typedef struct {
  rt_wevent ev[512];
  size_t n;
} events;

static void issue(fixture *f, events *out) {
  rt_wwarp *w = rt_wwarp_build(f->s, f->lane, f->active, f->thread);
  cr_assert_not_null(w);
  rt_witer *it = rt_witer_new(f->s, w);
  out->n = 0;
  while (out->n < 512 && rt_witer_next(it, &out->ev[out->n])) out->n++;
  rt_witer_free(it);
  rt_wwarp_free(w);
}

static size_t count_mem(const events *e, uint32_t sid) {
  size_t n = 0;
  for (size_t i = 0; i < e->n; i++) n += e->ev[i].is_mem && e->ev[i].id == sid;
  return n;
}

/* Block executions of bid with fewer than `threads` lanes: the masked issues of that block. */
static size_t masked(const events *e, uint32_t bid, unsigned threads) {
  size_t n = 0;
  for (size_t i = 0; i < e->n; i++) n += !e->ev[i].is_mem && e->ev[i].id == bid && e->ev[i].nact < threads;
  return n;
}

static cgp_class cls(const rt_wevent *ev, unsigned size) { return cgp_classify(ev->addr, ev->nact, size); }

static unsigned lines64(const rt_wevent *ev, unsigned size) {
  uint64_t out[2 * RT_WARP];
  return cgp_lines(ev->addr, ev->nact, size, 64, out);
}

#define A 0x100000u
#define X 0x200000u
#define Y 0x300000u

/* for i { s = 0; for (j = 0; j <= i % 64; j++) s += a[j]; y[i] = x[i] + s; }, warp 0: lane l
   runs l + 1 iterations. Blocks: 0 thread header, 1 the j loop (header = body), 2 after it.
   Sites: 0 a[j] (block 1), 1 x[i], 2 y[i] (block 2). By hand: a[j] issues 32 times, the t-th
   time with lanes t..31, all at one address (constant, 1 line); x[i] and y[i] once each with all
   32 lanes, coalesced, 2 lines of 64 bytes; block 1 runs 32 times, 31 of them with lanes masked. */
Test(reconverge, triangular_loop_masks_finished_lanes) {
  fixture f;
  const int mb[] = {1, 2, 2}, bl[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 2};
  setup(&f, 3, mb, mo, 3, rpo, bl, 1, lh, lp);
  for (unsigned l = 0; l < RT_WARP; l++) {
    lane(&f, l);
    rt_tracker_block(f.t, 0);
    for (unsigned j = 0; j <= l; j++) {
      rt_tracker_block(f.t, 1);
      rt_tracker_access(f.t, 0, A + 4 * j);
    }
    rt_tracker_block(f.t, 2);
    rt_tracker_access(f.t, 1, X + 4 * l);
    rt_tracker_access(f.t, 2, Y + 4 * l);
  }
  events e;
  issue(&f, &e);
  cr_assert_eq(count_mem(&e, 0), 32);
  cr_assert_eq(count_mem(&e, 1), 1);
  cr_assert_eq(count_mem(&e, 2), 1);
  size_t t = 0;
  for (size_t i = 0; i < e.n; i++) {
    const rt_wevent *ev = &e.ev[i];
    if (!ev->is_mem) continue;
    if (ev->id == 0) {
      cr_assert_eq(ev->nact, 32 - t, "a[j] at j=%zu: %u lanes", t, ev->nact);
      cr_assert_eq(ev->lane[0], t);
      cr_assert_eq(cls(ev, 4), CGP_CLASS_CONST);
      cr_assert_eq(lines64(ev, 4), 1);
      t++;
    } else {
      cr_assert_eq(t, 32, "x[i] and y[i] issue after the loop");
      cr_assert_eq(ev->nact, 32);
      cr_assert_eq(cls(ev, 4), CGP_CLASS_COAL);
      cr_assert_eq(lines64(ev, 4), 2);
    }
  }
  cr_assert_eq(masked(&e, 1, 32), 31);
  cr_assert_eq(masked(&e, 0, 32) + masked(&e, 2, 32), 0);
  teardown(&f);
}

/* if (lane is even) A[i] = ...; B[i] ... : blocks 0 (head), 1 (then), 2 (join). By hand: A[i]
   issues once with the 16 even lanes, 8 bytes apart: uncoalesced by the adjacent-lane rule, 2
   lines of 64 bytes; B[i] once with all 32 lanes; block 1 is the one masked issue. */
Test(reconverge, branch_taken_by_half_the_lanes) {
  fixture f;
  const int mb[] = {1, 2}, bl[] = {-1, -1, -1};
  const unsigned mo[] = {0, 0}, rpo[] = {0, 1, 2};
  setup(&f, 2, mb, mo, 3, rpo, bl, 0, NULL, NULL);
  for (unsigned l = 0; l < RT_WARP; l++) {
    lane(&f, l);
    rt_tracker_block(f.t, 0);
    if (l % 2 == 0) {
      rt_tracker_block(f.t, 1);
      rt_tracker_access(f.t, 0, A + 4 * l);
    }
    rt_tracker_block(f.t, 2);
    rt_tracker_access(f.t, 1, X + 4 * l);
  }
  events e;
  issue(&f, &e);
  cr_assert_eq(count_mem(&e, 0), 1);
  cr_assert_eq(count_mem(&e, 1), 1);
  for (size_t i = 0; i < e.n; i++) {
    const rt_wevent *ev = &e.ev[i];
    if (!ev->is_mem) continue;
    if (ev->id == 0) {
      cr_assert_eq(ev->nact, 16);
      cr_assert_eq(cls(ev, 4), CGP_CLASS_UNCOAL);
      cr_assert_eq(lines64(ev, 4), 2);
    } else {
      cr_assert_eq(ev->nact, 32);
      cr_assert_eq(cls(ev, 4), CGP_CLASS_COAL);
    }
  }
  cr_assert_eq(masked(&e, 1, 32), 1);
  cr_assert_eq(masked(&e, 2, 32), 0);
  teardown(&f);
}

/* for (k = 0; k < 10; k++) { v = B[k][i]; if (lane 3 && k == 4) break; } C[i] = v; blocks 0
   (head), 1 (loop header with B's load), 2 (latch), 3 (after). By hand: B issues 10 times, the
   last 5 without lane 3 (31 lanes); C once with 32 lanes; blocks 1 and 2 are masked 5 and 6
   times (lane 3 leaves before its 5th latch). */
Test(reconverge, one_lane_leaves_a_loop_early) {
  fixture f;
  const int mb[] = {1, 3}, bl[] = {-1, 0, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0}, rpo[] = {0, 1, 2, 3};
  setup(&f, 2, mb, mo, 4, rpo, bl, 1, lh, lp);
  for (unsigned l = 0; l < RT_WARP; l++) {
    lane(&f, l);
    rt_tracker_block(f.t, 0);
    for (unsigned k = 0; k < 10; k++) {
      rt_tracker_block(f.t, 1);
      rt_tracker_access(f.t, 0, A + 128 * k + 4 * l);
      if (l == 3 && k == 4) break;
      rt_tracker_block(f.t, 2);
    }
    rt_tracker_block(f.t, 3);
    rt_tracker_access(f.t, 1, Y + 4 * l);
  }
  events e;
  issue(&f, &e);
  cr_assert_eq(count_mem(&e, 0), 10);
  cr_assert_eq(count_mem(&e, 1), 1);
  unsigned k = 0;
  for (size_t i = 0; i < e.n; i++) {
    const rt_wevent *ev = &e.ev[i];
    if (!ev->is_mem || ev->id != 0) continue;
    cr_assert_eq(ev->nact, k < 5 ? 32u : 31u, "B at k=%u", k);
    /* lane 3 masked leaves lanes 2 and 4 adjacent, 8 bytes apart: uncoalesced by the rule of
       MODEL.md section 3, still the same 2 lines */
    cr_assert_eq(cls(ev, 4), k < 5 ? CGP_CLASS_COAL : CGP_CLASS_UNCOAL);
    cr_assert_eq(lines64(ev, 4), 2);
    cr_assert_eq(ev->addr[0], A + 128 * k);
    k++;
  }
  cr_assert_eq(masked(&e, 1, 32), 5);
  cr_assert_eq(masked(&e, 2, 32), 6);
  cr_assert_eq(masked(&e, 3, 32), 0);
  teardown(&f);
}

/* Nested loops, the inner one's trip count by lane: for k < 2 { for (m = 0; m <= lane % 2; m++)
   A[k][m]; D[k]; }. Issue order by hand: A(k0,m0) 32 lanes, A(k0,m1) 16 odd lanes, D(k0),
   A(k1,m0), A(k1,m1), D(k1): the inner loop reconverges before D each k. */
Test(reconverge, nested_loops_issue_in_program_order) {
  fixture f;
  const int mb[] = {2, 3}, bl[] = {-1, 0, 1, 0, -1}, lh[] = {1, 2}, lp[] = {-1, 0};
  const unsigned mo[] = {0, 0}, rpo[] = {0, 1, 2, 3, 4};
  setup(&f, 2, mb, mo, 5, rpo, bl, 2, lh, lp);
  for (unsigned l = 0; l < RT_WARP; l++) {
    lane(&f, l);
    rt_tracker_block(f.t, 0);
    for (unsigned k = 0; k < 2; k++) {
      rt_tracker_block(f.t, 1);
      for (unsigned m = 0; m <= l % 2; m++) {
        rt_tracker_block(f.t, 2);
        rt_tracker_access(f.t, 0, A + 1024 * k + 64 * m);
      }
      rt_tracker_block(f.t, 3);
      rt_tracker_access(f.t, 1, X + 4 * k);
    }
    rt_tracker_block(f.t, 4);
  }
  events e;
  issue(&f, &e);
  const struct { uint32_t sid; unsigned nact; uint64_t addr; } want[] = {
      {0, 32, A}, {0, 16, A + 64}, {1, 32, X}, {0, 32, A + 1024}, {0, 16, A + 1024 + 64}, {1, 32, X + 4}};
  size_t k = 0;
  for (size_t i = 0; i < e.n; i++) {
    if (!e.ev[i].is_mem) continue;
    cr_assert_lt(k, 6);
    cr_assert_eq(e.ev[i].id, want[k].sid, "instruction %zu", k);
    cr_assert_eq(e.ev[i].nact, want[k].nact, "instruction %zu", k);
    cr_assert_eq(e.ev[i].addr[0], want[k].addr, "instruction %zu", k);
    k++;
  }
  cr_assert_eq(k, 6);
  teardown(&f);
}

/* Two sites in one loop: block 0 the thread's entry, block 1 the loop's header and body, sites 0
   and 1 in it. */
static void setup_one_loop(fixture *f) {
  const int mb[] = {1, 1}, bl[] = {-1, 0}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 1}, rpo[] = {0, 1};
  setup(f, 2, mb, mo, 2, rpo, bl, 1, lh, lp);
}

/* Bounded memory: an affine loop of any trip count is one run per site and lane. */
Test(reconverge, affine_loop_keeps_one_run_per_site) {
  fixture f;
  setup_one_loop(&f);
  for (unsigned l = 0; l < RT_WARP; l++) {
    lane(&f, l);
    rt_tracker_block(f.t, 0);
    for (unsigned k = 0; k < 100000; k++) {
      rt_tracker_block(f.t, 1);
      rt_tracker_access(f.t, 0, A + 4 * k);
      rt_tracker_access(f.t, 1, X + 4096 * k + 4 * l);
    }
    cr_assert_eq(f.lane[l].n, 4, "runs: thread header, loop block, two sites");
  }
  rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
  cr_assert_lt(rt_wwarp_bytes(w), 4096);
  rt_witer *it = rt_witer_new(f.s, w);
  rt_wevent ev;
  size_t n = 0;
  while (rt_witer_next(it, &ev)) n += ev.is_mem;
  cr_assert_eq(n, 200000);
  rt_witer_free(it);
  rt_wwarp_free(w);
  teardown(&f);
}

/* The iterator tells an event's lanes on one stride where its run shows it (rt_wevent.affine):
   lane l reading x[4096 k + 4 l] (first addresses 4 bytes apart, one stride of 4096) is on one
   stride at every k, known without testing the lanes; with every third lane stepping 4 bytes
   further (4100 k + 4 l) the lanes are on one stride only at k = 0 (by chance), so the iterator
   does not say and the lanes are tested. What it says is cgp_affine's answer. Both walk 8
   iterations of the j loop. */
Test(reconverge, a_run_on_one_stride_says_its_events_are_on_one_stride) {
  for (int skew = 0; skew < 2; skew++) {
    fixture f;
    setup_one_loop(&f);
    for (unsigned l = 0; l < RT_WARP; l++) {
      lane(&f, l);
      rt_tracker_block(f.t, 0);
      for (unsigned k = 0; k < 8; k++) {
        rt_tracker_block(f.t, 1);
        rt_tracker_access(f.t, 1, X + (4096 + (skew && l % 3 == 0 ? 4 : 0)) * k + 4 * l);
      }
    }
    events e;
    issue(&f, &e);
    size_t known = 0, mem = 0;
    for (size_t i = 0; i < e.n; i++) {
      if (!e.ev[i].is_mem) continue;
      mem++;
      int truth = cgp_affine(e.ev[i].addr, e.ev[i].nact);
      if (e.ev[i].affine >= 0) {
        known++;
        cr_expect_eq(e.ev[i].affine, truth, "event %zu", i);
      }
      cr_expect_eq(truth, !skew || mem == 1, "skew %d, iteration %zu", skew, mem - 1);
    }
    cr_expect_eq(mem, 8);
    cr_expect_eq(known, skew ? 0 : 8, "skew %d: %zu known", skew, known);
    teardown(&f);
  }
}

/* A warp two devices' windows hold (issue 30 item 7): each holder frees it once, the last frees it
   (under CGP_SANITIZE a double free or a read after the last would fail), its bytes unchanged. */
Test(reconverge, a_shared_warp_is_freed_by_its_last_holder) {
  fixture f;
  setup_one_loop(&f);
  for (unsigned l = 0; l < RT_WARP; l++) {
    lane(&f, l);
    rt_tracker_block(f.t, 0);
    for (unsigned k = 0; k < 4; k++) {
      rt_tracker_block(f.t, 1);
      rt_tracker_access(f.t, 0, A + 4 * k);
    }
  }
  rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
  size_t bytes = rt_wwarp_bytes(w);
  rt_wwarp_share(w);
  rt_wwarp_share(w);
  cr_assert_eq(rt_wwarp_shares(w), 2);
  cr_assert_eq(rt_wwarp_bytes(w), bytes);
  rt_wwarp_free(w);
  rt_wwarp_free(w);
  cr_assert_eq(rt_wwarp_shares(w), 0, "one holder left");
  cr_assert_eq(rt_wwarp_threads(w), RT_WARP, "still readable");
  rt_wwarp_free(w);
  teardown(&f);
}

/* Thread keys as bytes: a warp of consecutive threads writes its first lane's key alone (8 bytes,
   flagged in the thread count's top bit); one of other keys writes every lane's. Both read back
   to the same keys. */
Test(reconverge, consecutive_thread_keys_take_one_key) {
  size_t bytes[2];
  for (int spread = 1; spread <= 3; spread += 2) {
    fixture f;
    const int mb[] = {0}, bl[] = {-1};
    const unsigned mo[] = {0}, rpo[] = {0};
    setup(&f, 1, mb, mo, 1, rpo, bl, 0, NULL, NULL);
    for (unsigned l = 0; l < RT_WARP; l++) {
      lane(&f, l);
      f.thread[l] = 500 + spread * l;
      rt_tracker_block(f.t, 0);
      rt_tracker_access(f.t, 0, X + 4 * l);
    }
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
    cr_assert_not_null(w);
    unsigned char *b = malloc(rt_wwarp_size_bound(w));
    size_t n = rt_wwarp_serialise(w, b), used = 0;
    cr_expect_eq(!!(b[3] & 0x80), spread == 1, "spread %d: flag", spread);
    bytes[spread / 2] = n;
    char err[256];
    rt_wwarp *r = rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    cr_expect_eq(used, n);
    cr_expect_eq(memcmp(rt_wwarp_thread_keys(r), rt_wwarp_thread_keys(w), RT_WARP * sizeof(uint64_t)), 0);
    cr_expect_eq(rt_wwarp_threads(r), RT_WARP);
    rt_wwarp_free(r);
    free(b);
    rt_wwarp_free(w);
    teardown(&f);
  }
  cr_expect_eq(bytes[1] - bytes[0], 8 * (RT_WARP - 1), "keys 1 apart: %zu bytes, 3 apart: %zu", bytes[0], bytes[1]);
}

/* Warps w and r (read back from w's bytes) issue the same events, lanes and addresses, r walked by
   the reference iterator where `reference`: their number. */
static size_t same_events(const rt_shape *s, const rt_wwarp *w, const rt_wwarp *r, int reference) {
  rt_witer *i1 = rt_witer_new(s, w), *i2 = reference ? rt_witer_new_reference(s, r) : rt_witer_new(s, r);
  rt_wevent e1, e2;
  size_t events = 0;
  for (;;) {
    int m1 = rt_witer_next(i1, &e1), m2 = rt_witer_next(i2, &e2);
    cr_assert_eq(m1, m2);
    if (!m1) break;
    cr_assert(e1.is_mem == e2.is_mem && e1.id == e2.id && e1.nact == e2.nact);
    cr_assert_eq(memcmp(e1.lane, e2.lane, e1.nact), 0);
    cr_assert_eq(memcmp(e1.addr, e2.addr, e1.nact * sizeof *e1.addr), 0);
    events++;
  }
  rt_witer_free(i1);
  rt_witer_free(i2);
  return events;
}

/* The trace's bytes of a warp (rt_wwarp_serialise) read back to a warp that issues the same
   events; every shorter prefix, a lane out of range and an affine run whose lanes are not as many
   as its segments are refused, never trusted. x[i] and y[i] (one element a lane, 4 bytes apart)
   are affine runs of 20 bytes (the warp's last 40); a[j]'s runs are segments of 21 bytes each. */
Test(reconverge, warp_bytes_round_trip_and_truncations_are_refused) {
  fixture f;
  const int mb[] = {1, 2, 2}, bl[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 2};
  setup(&f, 3, mb, mo, 3, rpo, bl, 1, lh, lp);
  for (unsigned l = 0; l < RT_WARP; l += 1 + l % 2) {      /* some lanes inactive */
    lane(&f, l);
    f.thread[l] = 1000 + l;
    rt_tracker_block(f.t, 0);
    for (unsigned j = 0; j <= l % 5; j++) {
      rt_tracker_block(f.t, 1);
      rt_tracker_access(f.t, 0, A + 4 * j * l);
    }
    rt_tracker_block(f.t, 2);
    rt_tracker_access(f.t, 1, X + 4 * l);
    rt_tracker_access(f.t, 2, Y + 4 * l);
  }
  rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
  cr_assert_not_null(w);
  size_t used = 0;
  unsigned char *b = malloc(rt_wwarp_size_bound(w));
  size_t n = rt_wwarp_serialise(w, b);
  cr_assert_leq(n, rt_wwarp_size_bound(w));
  char err[256];
  rt_wwarp *r = rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err);
  cr_assert_not_null(r, "%s", err);
  cr_assert_eq(used, n);
  cr_assert_eq(rt_wwarp_threads(r), rt_wwarp_threads(w));
  cr_assert_eq(memcmp(rt_wwarp_thread_keys(r), rt_wwarp_thread_keys(w), RT_WARP * sizeof(uint64_t)), 0);
  cr_assert_gt(same_events(f.s, w, r, 0), 10);
  rt_wwarp_free(r);
  for (size_t k = 0; k < n; k++) {
    err[0] = '\0';
    cr_assert_null(rt_wwarp_deserialise(b, k, rt_shape_events(f.s), &used, err, sizeof err), "prefix %zu accepted", k);
    cr_assert(strstr(err, "truncated"), "prefix %zu: %s", k, err);
  }
  cr_assert_null(rt_wwarp_deserialise(b, n, 2, &used, err, sizeof err), "an event beyond the shape accepted");
  unsigned active = 0;
  for (unsigned l = 0; l < RT_WARP; l += 1 + l % 2) active++;
  const size_t run_bytes = 4 + 4 + 4;              /* event, segments and flags, skipped */
  /* its lanes are threads 0, 1, 3, 5 ...: consecutive keys, the first lane's alone written */
  cr_assert(b[3] & 0x80, "consecutive keys flagged");
  cr_assert(active > 1);
  size_t runs_at = 8 + 8 + 8, nrun = b[runs_at - 8], sa = runs_at + nrun * run_bytes, seg0 = 0;
  for (size_t r = 0; r < nrun && !seg0; r++) {    /* the first run of segments: its first one */
    const unsigned char *ns = &b[runs_at + r * run_bytes + 4];
    if (ns[3] & 0x10) sa += 4 * (RT_MAXD - 1);      /* its loop stamps (none here: runs from 0) */
    if (ns[3] & 0x80) sa += 20;                     /* an affine run */
    else seg0 = sa;
  }
  cr_assert(seg0 && seg0 + 21 <= n - 40, "a[j]'s segments before the two affine runs");
  unsigned char keep = b[seg0];
  b[seg0] = 40;
  cr_assert_null(rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err), "lane 40 accepted");
  cr_assert(strstr(err, "lane 40"), "%s", err);
  b[seg0] = keep;
  b[n - 20] = 1;                            /* y[i]'s affine run: lane 0 alone */
  b[n - 19] = b[n - 18] = b[n - 17] = 0;
  cr_assert_null(rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err), "a lane mask of 1 accepted");
  cr_assert(strstr(err, "affine run"), "%s", err);
  free(b);
  rt_wwarp_free(w);
  teardown(&f);
}

/* A loop's runs whose lanes step alike take 32 bytes each in the trace, not 21 a lane (RUN_RIGID):
   a[k] (lane l at A + 4 l + 128 k: lanes 4 bytes apart, every one stepping 128) and y[k] (every
   lane at Y + 4 k) and the loop's block over 10 iterations, in lanes 0 .. 31 and again with lane 5
   idle. The warp reads
   back to one that issues the same events, each of its prefixes is refused, and so is a rigid run
   whose lane mask does not hold its segments. A lane of another stride makes its run segments. */
Test(reconverge, runs_whose_lanes_step_alike_take_one_record) {
  for (int variant = 0; variant < 3; variant++) {      /* 0 every lane, 1 lane 5 idle, 2 lane 7 off stride */
    fixture f;
    setup_one_loop(&f);
    unsigned active = 0;
    for (unsigned l = 0; l < RT_WARP; l++) {
      if (variant == 1 && l == 5) continue;
      lane(&f, l);
      active++;
      rt_tracker_block(f.t, 0);
      for (unsigned k = 0; k < 10; k++) {
        rt_tracker_block(f.t, 1);
        rt_tracker_access(f.t, 0, A + 4 * l + (variant == 2 && l == 7 ? 256 : 128) * k);
        rt_tracker_access(f.t, 1, Y + 4 * k);
      }
    }
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
    cr_assert_not_null(w);
    unsigned char *b = malloc(rt_wwarp_size_bound(w));
    size_t n = rt_wwarp_serialise(w, b), used = 0;
    cr_assert_leq(n, rt_wwarp_size_bound(w));
    /* header, keys (consecutive: one), counts; the runs: thread entry, loop block, a[k], y[k] */
    const size_t run_bytes = 4 + 4 + 4, runs_at = 8 + 8 + 8, nrun = b[runs_at - 8];
    cr_assert_eq(nrun, 4, "runs: %zu", nrun);
    size_t rigid = 0, seg_bytes = 0;
    for (size_t r = 0; r < nrun; r++) {
      const unsigned char *ns = &b[runs_at + r * run_bytes + 4];
      uint32_t nseg = (uint32_t)ns[0] | (uint32_t)ns[1] << 8;
      cr_assert_eq(nseg, active);
      cr_assert_not(ns[3] & 0x10, "no loop stamps: every run starts at iteration 0");
      if (ns[3] & 0x80) seg_bytes += 20;             /* affine: one element a lane */
      else if (ns[3] & 0x20) { rigid++; seg_bytes += 32; }
      else seg_bytes += 21 * nseg;
    }
    /* the entry's run is one element a lane (affine, 20 bytes); the loop's three are rigid */
    cr_expect_eq(rigid, variant == 2 ? 2 : 3, "variant %d: %zu rigid runs", variant, rigid);
    cr_expect_eq(n, runs_at + nrun * run_bytes + seg_bytes, "variant %d: %zu bytes", variant, n);
    if (variant < 2) cr_expect_eq(n, runs_at + 4 * run_bytes + 20 + 3 * 32, "the loop's runs 32 bytes of lanes each");
    char err[256];
    rt_wwarp *r = rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    cr_assert_eq(used, n);
    size_t events = same_events(f.s, w, r, 1);
    cr_assert_eq(events, 1 + 10 * 3, "the entry, then each iteration's block, a[k] and y[k]: %zu", events);
    rt_wwarp_free(r);
    for (size_t k = 0; k < n; k++)
      cr_assert_null(rt_wwarp_deserialise(b, k, rt_shape_events(f.s), &used, err, sizeof err), "prefix %zu accepted", k);
    if (variant < 2) {                               /* y[k]'s run, the last: its lane mask to lane 0 */
      b[n - 32] = 1;
      b[n - 31] = b[n - 30] = b[n - 29] = 0;
      cr_assert_null(rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err), "a lane mask of 1 accepted");
      cr_assert(strstr(err, "rigid run"), "%s", err);
    }
    free(b);
    rt_wwarp_free(w);
    teardown(&f);
  }
}

/* Direct grouping (lanes of one shape) and hashed grouping (lanes of different shapes) against
   the sorted reference, byte for byte, on random warps of the triangular body above: a[j] in the
   j loop, then x[i], y[i]; each case draws how many lanes are active, whether the lanes share one
   trip count (the direct path) or not (the hashed path), and whether a lane reaches a[j] twice in
   one iteration (a point visited twice: the fallback to the reference). */
static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
  return *s;
}

Test(reconverge, direct_and_hashed_grouping_equal_the_sorted_reference) {
  uint64_t seed = 12345;
  unsigned direct_cases = 0, hashed_cases = 0;
  for (int c = 0; c < 400; c++) {
    fixture f;
    const int mb[] = {1, 2, 2}, bl[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
    const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 2};
    setup(&f, 3, mb, mo, 3, rpo, bl, 1, lh, lp);
    unsigned same = rnd(&seed) % 2, trips = (unsigned)(rnd(&seed) % 5), twice = rnd(&seed) % 8 == 0;
    unsigned stride = 4u << (rnd(&seed) % 4);
    for (unsigned l = 0; l < RT_WARP; l++) {
      if (rnd(&seed) % 4 == 0) continue;                    /* an inactive lane */
      lane(&f, l);
      rt_tracker_block(f.t, 0);
      unsigned n = same ? trips : (unsigned)(rnd(&seed) % 5);
      for (unsigned j = 0; j < n; j++) {
        rt_tracker_block(f.t, 1);
        rt_tracker_access(f.t, 0, A + stride * (j + (same ? 0 : l)));
        if (twice && j == 0) rt_tracker_access(f.t, 0, A + 8 * l);   /* same iteration: same point */
      }
      rt_tracker_block(f.t, 2);
      rt_tracker_access(f.t, 1, X + 4 * l);
      rt_tracker_access(f.t, 2, Y + stride * l);
    }
    direct_cases += same && !twice;
    hashed_cases += !same && !twice;                 /* lanes of different trip counts */
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread), *r = rt_wwarp_build_sorted(f.s, f.lane, f.active, f.thread);
    cr_assert(w && r);
    unsigned char *bw = malloc(rt_wwarp_size_bound(w)), *br = malloc(rt_wwarp_size_bound(r));
    size_t n = rt_wwarp_serialise(w, bw), nr = rt_wwarp_serialise(r, br);
    cr_assert_eq(n, nr, "case %d: %zu bytes against the reference's %zu", c, n, nr);
    cr_assert_eq(memcmp(bw, br, n), 0, "case %d (same %u, trips %u, twice %u) differs from the reference", c, same,
                 trips, twice);
    free(bw);
    free(br);
    rt_wwarp_free(w);
    rt_wwarp_free(r);
    teardown(&f);
  }
  cr_assert_gt(direct_cases, 100, "the direct path was exercised");
  cr_assert_gt(hashed_cases, 100, "the hashed path was exercised");
}

/* Straight-line bodies give linear warps (rt_wwarp_linear: addresses only, no queue), built
   directly when every lane ran the same blocks and by the hashed grouping when a guard split
   them; their events, walked linearly, must equal the general walk (a queue of runs) of the
   reference grouping's warp, event by event: the body s0 in block 0, s1 in block 1 (the
   guarded side), s2 in block 2, on random warps (inactive lanes, the guard taken by every lane
   or by some). Their trace bytes must be the reference's too (rt_wwarp_serialise tests a linear
   run's addresses for an affine form in place), also with every lane active (lanes in a row)
   and with s1's addresses not affine in the lane. */
static void walk(const rt_shape *s, const rt_wwarp *w, events *out) {
  rt_witer *it = rt_witer_new(s, w);
  cr_assert_not_null(it);
  out->n = 0;
  while (out->n < 512 && rt_witer_next(it, &out->ev[out->n])) out->n++;
  rt_witer_free(it);
}

Test(reconverge, linear_warps_walk_as_the_reference_does) {
  uint64_t seed = 777;
  unsigned split = 0;
  for (int c = 0; c < 200; c++) {
    fixture f;
    const int mb[] = {0, 1, 2}, bl[] = {-1, -1, -1};
    const unsigned mo[] = {0, 0, 0}, rpo[] = {0, 1, 2};
    setup(&f, 3, mb, mo, 3, rpo, bl, 0, NULL, NULL);
    unsigned all = rnd(&seed) % 2, took = 0, skipped_it = 0;
    int every_lane = c % 5 == 0, scattered = c % 3 == 0;   /* lanes in a row; x not affine */
    for (unsigned l = 0; l < RT_WARP; l++) {
      if (!every_lane && rnd(&seed) % 4 == 0) continue;
      lane(&f, l);
      rt_tracker_block(f.t, 0);
      rt_tracker_access(f.t, 0, A + 4 * l);
      if (all || rnd(&seed) % 2) {
        rt_tracker_block(f.t, 1);
        rt_tracker_access(f.t, 1, X + 128 * l + (scattered ? 4 * (l * l % 7) : 0));
        took++;
      } else {
        skipped_it++;
      }
      rt_tracker_block(f.t, 2);
      rt_tracker_access(f.t, 2, Y + 4 * (RT_WARP - l));
    }
    split += took && skipped_it;
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread), *r = rt_wwarp_build_sorted(f.s, f.lane, f.active, f.thread);
    cr_assert(w && r);
    cr_assert(rt_wwarp_linear(w), "case %d: a straight-line warp is linear", c);
    cr_assert(!rt_wwarp_linear(r));
    events *ew = malloc(sizeof *ew), *er = malloc(sizeof *er);
    walk(f.s, w, ew);
    walk(f.s, r, er);
    cr_assert_eq(ew->n, er->n, "case %d: %zu events against the reference's %zu", c, ew->n, er->n);
    for (size_t i = 0; i < ew->n; i++) {
      const rt_wevent *a = &ew->ev[i], *b = &er->ev[i];
      cr_assert(a->is_mem == b->is_mem && a->id == b->id && a->nact == b->nact && a->skipped == b->skipped,
                "case %d, event %zu: %d %u (%u lanes) against %d %u (%u lanes)", c, i, a->is_mem, a->id, a->nact,
                b->is_mem, b->id, b->nact);
      for (unsigned k = 0; k < a->nact; k++)
        cr_assert(a->lane[k] == b->lane[k] && a->addr[k] == b->addr[k], "case %d, event %zu, lane %u differs", c, i, k);
    }
    /* the trace's bytes: a linear warp's runs, tested for an affine form in place, as the
       reference's segments are */
    unsigned char *bw = malloc(rt_wwarp_size_bound(w)), *br = malloc(rt_wwarp_size_bound(r));
    size_t nw = rt_wwarp_serialise(w, bw), nr = rt_wwarp_serialise(r, br);
    cr_assert(nw == nr && memcmp(bw, br, nw) == 0, "case %d: %zu bytes against the reference's %zu", c, nw, nr);
    free(bw);
    free(br);
    free(ew);
    free(er);
    rt_wwarp_free(w);
    rt_wwarp_free(r);
    teardown(&f);
  }
  cr_assert_gt(split, 50, "the guard split the lanes of many warps (the hashed grouping)");
}

/* ---- sampling inside a thread (RT_ITER_*) ---------------------------------------------------- */

/* Block b entered as the instrumented code enters it: in a skipped iteration the block hook goes
   to rt_tracker_resume, and the memory hooks do not run (*paused). */
static void enter(fixture *f, uint32_t b, int *paused) {
  if (*paused) *paused = !rt_tracker_resume(f->t, b);
  else *paused = rt_tracker_block(f->t, b);
}

/* The triangular body with lane l running trips[l] iterations of the j loop, a[j] at A + 4j, with
   sampling on. */
static void sampled_warp_step(fixture *f, const unsigned *trips, unsigned step);

static void sampled_warp(fixture *f, const unsigned *trips) { sampled_warp_step(f, trips, 4); }

/* The same, a[j] at A + step j (step 0: one element every iteration). */
static void sampled_warp_step(fixture *f, const unsigned *trips, unsigned step) {
  const int mb[] = {1, 2, 2}, bl[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 2};
  setup(f, 3, mb, mo, 3, rpo, bl, 1, lh, lp);
  rt_tracker_sample(f->t, 1);
  for (unsigned l = 0; l < RT_WARP; l++) {
    int paused = 0;
    lane(f, l);
    enter(f, 0, &paused);
    for (unsigned j = 0; j < trips[l]; j++) {
      enter(f, 1, &paused);
      if (!paused) rt_tracker_access(f->t, 0, A + step * j);
    }
    enter(f, 2, &paused);
    cr_assert(!paused, "lane %u: still paused after the loop", l);
    rt_tracker_access(f->t, 1, X + 4 * l);
    rt_tracker_access(f->t, 2, Y + 4 * l);
    rt_tracker_finish(f->t);
  }
}

/* Per event id (site, or nmem + block): the warp's events issued, and the executions they stand
   for (sum of 1 + skipped). Iterations of a[j] issued go to iters[] (its address / 4). */
typedef struct {
  size_t issued[7];
  double stands[7];
  double lanes[7];             /* the executions its lanes stand for (rt_wevent's lanes_w) */
  unsigned iters[4096];
  size_t niters;
} weighed;

static void weigh(fixture *f, weighed *o) {
  memset(o, 0, sizeof *o);
  rt_wwarp *w = rt_wwarp_build(f->s, f->lane, f->active, f->thread);
  cr_assert_not_null(w);
  rt_witer *it = rt_witer_new(f->s, w);
  rt_wevent ev;
  while (rt_witer_next(it, &ev)) {
    unsigned id = ev.is_mem ? ev.id : 3 + ev.id;
    o->issued[id]++;
    o->stands[id] += 1 + ev.skipped;
    o->lanes[id] += ev.lanes_w;
    if (ev.is_mem && ev.id == 0 && o->niters < 4096) o->iters[o->niters++] = (unsigned)((ev.addr[0] - A) / 4);
  }
  rt_witer_free(it);
  rt_wwarp_free(w);
}

/* Iterations a lane with T iterations has traced, by hand from the schedule: the first
   RT_ITER_FIRST, then RT_ITER_WINDOW from the start of each RT_ITER_PERIOD after the first
   (fewer if the loop ends inside one). */
static unsigned traced_by_hand(unsigned T) {
  if (T <= RT_ITER_FIRST) return T;
  unsigned n = RT_ITER_FIRST;
  for (unsigned s = RT_ITER_PERIOD; s < T; s += RT_ITER_PERIOD) n += T - s < RT_ITER_WINDOW ? T - s : RT_ITER_WINDOW;
  return n;
}

/* Lanes of one trip count T: the warp issues a[j] at the traced iterations only, and they stand
   for exactly T executions (a window for the iterations up to the next one, the last one for
   those up to the loop's exit, wherever in the period it falls); x[i] and y[i] for themselves. */
Test(reconverge, sampled_iterations_stand_for_the_whole_loop) {
  const unsigned Ts[] = {100, 256, 257, 300, 2047, 2048, 2049, 2175, 2176, 2177, 4096 + 130, 6000};
  for (size_t c = 0; c < sizeof Ts / sizeof *Ts; c++) {
    unsigned T = Ts[c], trips[RT_WARP];
    for (unsigned l = 0; l < RT_WARP; l++) trips[l] = T;
    fixture f;
    sampled_warp(&f, trips);
    weighed o;
    weigh(&f, &o);
    unsigned traced = traced_by_hand(T);
    cr_assert_eq(o.issued[0], traced, "T=%u: a[j] issued %zu times, by hand %u", T, o.issued[0], traced);
    cr_assert_eq(o.stands[0], (double)T, "T=%u: a[j] stands for %g executions", T, o.stands[0]);
    cr_assert_eq(o.stands[3 + 1], (double)T, "T=%u: the loop block stands for %g", T, o.stands[3 + 1]);
    cr_assert_eq(o.issued[1], 1);
    cr_assert_eq(o.stands[1], 1.0);
    cr_assert_eq(o.stands[2], 1.0);
    cr_assert_eq(rt_tracker_iterations_skipped(f.t), (uint64_t)RT_WARP * (T - traced), "T=%u", T);
    for (size_t i = 0; i < o.niters; i++) {    /* the right iterations, in order */
      unsigned t = o.iters[i];
      cr_assert(t < RT_ITER_FIRST || (t >= RT_ITER_PERIOD && t % RT_ITER_PERIOD < RT_ITER_WINDOW), "T=%u: iteration %u traced",
                T, t);
      if (i) cr_assert_gt(t, o.iters[i - 1]);
    }
    teardown(&f);
  }
}

/* The skipped iterations of each window of a[j] (lanes of one trip count T) are given by spans:
   every element of a window that stands for skipped iterations is `spanned`, and its last element
   carries them, lane 0's span covering the window's skipped executions (the sum of its elements'
   `skipped`) on a[j]'s stride, 4 bytes, so that the cache counts their L2 misses there
   (cgp_an_cache.c) and the elements' own once. The loop's iteration 0, the first a[j], is
   `first` (its lanes read nothing one stride back), no other element is. */
Test(reconverge, a_windows_skipped_iterations_are_spanned_by_its_last_element) {
  const unsigned Ts[] = {300, 2047, 2049, 2177, 4096 + 130, 6000};
  for (size_t c = 0; c < sizeof Ts / sizeof *Ts; c++) {
    unsigned T = Ts[c], trips[RT_WARP];
    for (unsigned l = 0; l < RT_WARP; l++) trips[l] = T;
    fixture f;
    sampled_warp(&f, trips);
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
    cr_assert_not_null(w);
    rt_witer *it = rt_witer_new(f.s, w);
    rt_wevent ev;
    double window = 0, spanned_iters = 0;
    unsigned spans = 0, loads = 0;
    while (rt_witer_next(it, &ev)) {
      /* the loop's iteration 0 is its load's first event, and only that one is `first`; the
         sites after the loop are in no loop */
      if (ev.is_mem) cr_assert_eq(ev.first, ev.id == 0 && loads == 0, "T=%u: site %u, load event %u", T, ev.id, loads);
      loads += ev.is_mem && ev.id == 0;
      if (!ev.is_mem || ev.id != 0 || !(ev.skipped > 0)) continue;
      cr_assert(ev.spanned, "T=%u: an element standing for %g skipped executions is not spanned", T, (double)ev.skipped);
      window += ev.skipped;
      if (!ev.has_span) continue;
      cr_assert_eq(ev.span[0].stride, 4, "T=%u", T);
      cr_assert_eq(ev.span[0].lo, 1);
      cr_assert_lt(fabs((double)(ev.span[0].hi - ev.span[0].lo) - window), 1.0, "T=%u: span of %u iterations, window %g", T,
                   ev.span[0].hi - ev.span[0].lo, window);
      spanned_iters += ev.span[0].hi - ev.span[0].lo;
      window = 0;
      spans++;
    }
    cr_assert_eq(window, 0, "T=%u: skipped executions after the last span", T);
    cr_assert_gt(spans, 0);
    cr_assert_lt(fabs(spanned_iters - (double)(T - traced_by_hand(T))), spans, "T=%u: spans cover %g of %u skipped", T,
                 spanned_iters, T - traced_by_hand(T));
    rt_witer_free(it);
    rt_wwarp_free(w);
    teardown(&f);
  }
}

/* The loop's start-up, sampled: a warp's lanes through T iterations of the loop's block (block 1),
   site 0 at a[j] every iteration, site 1 as `x` says (X_FIRST: iteration 0 only, at x[128 l + j];
   X_LATER: iterations 1 .. only, likewise; X_STILL: every iteration, at x[l]), site 2 after it. */
enum { X_FIRST, X_LATER, X_STILL };
static void startup_warp(fixture *f, unsigned T, int x) {
  const int mb[] = {1, 1, 2}, bl[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 1, 0}, rpo[] = {0, 1, 2};
  setup(f, 3, mb, mo, 3, rpo, bl, 1, lh, lp);
  rt_tracker_sample(f->t, 1);
  for (unsigned l = 0; l < RT_WARP; l++) {
    int paused = 0;
    lane(f, l);
    enter(f, 0, &paused);
    for (unsigned j = 0; j < T; j++) {
      enter(f, 1, &paused);
      if (paused) continue;
      rt_tracker_access(f->t, 0, A + 4 * j);
      if (x == X_STILL) rt_tracker_access(f->t, 1, X + 4 * l);
      else if ((j == 0) != (x == X_LATER)) rt_tracker_access(f->t, 1, X + 128 * l + 4 * j);
    }
    enter(f, 2, &paused);
    rt_tracker_access(f->t, 2, Y + 4 * l);
    rt_tracker_finish(f->t);
  }
}

/* The loop's start-up: site 1 (x, in the loop's block) is recorded in iteration 0 only, as a load
   whose value the thread then holds in a register is (MVT's x2[i] += A[j][i] y2[j]), or in
   iterations 1.. only. Iteration 0 of the entry's first window stands for itself: the load stands
   for 1 execution, not 1 + the window's share (T = 512, W = 64: 8); a run from iteration 1 stands
   for T - 1, and its span for the 448 iterations skipped after the window, not 448 x 64 / 63;
   a[j], every iteration, for T, its span 448 too (docs/pipeline.md, "Sampling inside a thread"). */
Test(reconverge, the_first_windows_iteration_0_stands_for_itself) {
  const unsigned T = 512, gap = T - RT_ITER_FIRST;
  for (int from1 = 0; from1 < 2; from1++) {
    fixture f;
    startup_warp(&f, T, from1 ? X_LATER : X_FIRST);
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
    cr_assert_not_null(w);
    rt_witer *it = rt_witer_new(f.s, w);
    rt_wevent ev;
    double stands[2] = {0, 0};
    unsigned span[2] = {0, 0};
    while (rt_witer_next(it, &ev)) {
      if (!ev.is_mem || ev.id > 1) continue;
      stands[ev.id] += 1 + ev.skipped;
      if (ev.has_span) span[ev.id] = ev.span[0].hi - ev.span[0].lo;
    }
    cr_assert_lt(fabs(stands[0] - T), 1e-3, "a[j] stands for %g executions, by hand %u", stands[0], T);
    double want = from1 ? T - 1 : 1;
    cr_assert_lt(fabs(stands[1] - want), 1e-3, "x (%s) stands for %g executions, by hand %g",
                 from1 ? "iterations 1.." : "iteration 0", stands[1], want);
    cr_assert_eq(span[0], gap, "a[j]'s span: %u iterations, by hand %u", span[0], gap);
    cr_assert_eq(span[1], from1 ? gap : 0, "x's span: %u iterations", span[1]);
    rt_witer_free(it);
    rt_wwarp_free(w);
    teardown(&f);
  }
}

/* A value reloaded every iteration from one element a lane (x[l], stride 0: `tmp[i] +=` through
   memory), from iteration 0, beside a[j]: its first element, the read that finds x[l] cold, stands
   for itself, and its others for the skipped iterations, T in all (T = 512, W = 64: 1 + 448 / 63
   each); spread over all 64, the first stood for 1 + 448 / 64 = 8 (GESUMMV at N = 200 on the H100,
   its first L1 miss counted 1 + 136 / 64 times: +2.6 % against `full`). a[j], which moves, keeps
   its spread (T in all, its first element 8). */
Test(reconverge, a_value_reloaded_from_iteration_0_stands_for_itself_there) {
  const unsigned T = 512, gap = T - RT_ITER_FIRST;
  fixture f;
  startup_warp(&f, T, X_STILL);
  rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
  cr_assert_not_null(w);
  rt_witer *it = rt_witer_new(f.s, w);
  rt_wevent ev;
  double stands[2] = {0, 0}, first[2] = {-1, -1}, second = -1;
  while (rt_witer_next(it, &ev)) {
    if (!ev.is_mem || ev.id > 1) continue;
    if (first[ev.id] < 0) first[ev.id] = 1 + ev.skipped;
    else if (ev.id == 1 && second < 0) second = 1 + ev.skipped;
    stands[ev.id] += 1 + ev.skipped;
    cr_assert_lt(fabs(ev.lanes_w - ev.nact * (1.0 + ev.skipped)), 1e-3, "its lanes stand for as much");
  }
  cr_assert_lt(fabs(stands[1] - T), 1e-3, "x[l] stands for %g executions, by hand %u", stands[1], T);
  cr_assert_eq(first[1], 1, "x[l]'s first element stands for %g", first[1]);
  cr_assert_lt(fabs(second - (1 + gap / 63.0)), 1e-4, "x[l]'s second: %g, by hand %g", second, 1 + gap / 63.0);
  cr_assert_lt(fabs(stands[0] - T), 1e-3, "a[j] stands for %g executions, by hand %u", stands[0], T);
  cr_assert_lt(fabs(first[0] - (1 + gap / 64.0)), 1e-4, "a[j]'s first element: %g", first[0]);
  rt_witer_free(it);
  rt_wwarp_free(w);
  teardown(&f);
}

/* a[j] on one element (stride 0), read every iteration: its window's hits and misses are those of
   the iterations it stands for, so no element is `spanned` (its last still carries the span, whose
   units keep the element in the L2). */
Test(reconverge, a_window_on_one_element_is_not_spanned) {
  unsigned trips[RT_WARP];
  for (unsigned l = 0; l < RT_WARP; l++) trips[l] = 3000;
  fixture f;
  sampled_warp_step(&f, trips, 0);
  rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
  rt_witer *it = rt_witer_new(f.s, w);
  rt_wevent ev;
  unsigned standing = 0, spans = 0;
  while (rt_witer_next(it, &ev)) {
    if (!ev.is_mem || ev.id != 0 || !(ev.skipped > 0)) continue;
    standing++;
    spans += ev.has_span;
    cr_assert(!ev.spanned);
  }
  cr_assert_gt(standing, 0);
  cr_assert_gt(spans, 0);
  rt_witer_free(it);
  rt_wwarp_free(w);
  teardown(&f);
}

/* Lanes of different trip counts (2000 + 97 k, k = 7 l mod 32, so that the longest lane is
   neither the first nor the last): a GPU warp issues a[j] while any lane is in the loop, max T =
   5007 times; the windows' elements stand for that, the lanes that left early masked in the
   traced iterations. */
Test(reconverge, sampled_iterations_of_a_triangular_loop_stand_for_the_longest_lane) {
  unsigned trips[RT_WARP];
  for (unsigned l = 0; l < RT_WARP; l++) trips[l] = 2000 + 97 * (7 * l % 32);
  fixture f;
  sampled_warp(&f, trips);
  weighed o;
  weigh(&f, &o);
  cr_assert_eq(o.issued[0], traced_by_hand(5007));
  cr_assert_eq(o.stands[0], 5007.0, "a[j] stands for %g executions", o.stands[0]);
  uint64_t skipped = 0;
  for (unsigned l = 0; l < RT_WARP; l++) skipped += trips[l] - traced_by_hand(trips[l]);
  cr_assert_eq(rt_tracker_iterations_skipped(f.t), skipped);
  teardown(&f);
}

/* The same lanes, each standing for its own trips: the windows' elements of a[j] stand for the
   longest lane's 5007 executions (the test above), but its lanes for the sum of their trip counts,
   what they run (transactions and misses count that: cgp_warp_mem's lanes_short); so does the
   warp read back from its trace bytes. Within 1 %: an element only some of a run's lanes reach
   (their window cut short by the loop's end) gives each the mean of the run's lane weights, not
   its own (112112 by hand, 111642 so: -0.4 %). The runs of the windows at 2048 and 4096 carry
   their loop stamps in the bytes (RUN_STAMPS): read back, every event comes in the same order, at
   the same addresses. */
Test(reconverge, the_lanes_of_a_triangular_loop_stand_for_their_own_trips) {
  unsigned trips[RT_WARP];
  double want = 0;
  for (unsigned l = 0; l < RT_WARP; l++) {
    trips[l] = 2000 + 97 * (7 * l % 32);
    want += trips[l];
  }
  fixture f;
  sampled_warp(&f, trips);
  weighed o;
  weigh(&f, &o);
  cr_assert_float_eq(o.lanes[0], want, 1e-2 * want, "a[j]'s lanes stand for %g executions, %g by hand", o.lanes[0],
                     want);
  cr_assert_lt(o.lanes[0], RT_WARP * o.stands[0], "below every lane standing for the longest");
  rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
  cr_assert_not_null(w);
  unsigned char *b = malloc(rt_wwarp_size_bound(w));
  size_t n = rt_wwarp_serialise(w, b), used = 0;
  char err[256];
  rt_wwarp *r = rt_wwarp_deserialise(b, n, rt_shape_events(f.s), &used, err, sizeof err);
  cr_assert_not_null(r, "%s", err);
  rt_witer *i1 = rt_witer_new(f.s, w), *i2 = rt_witer_new(f.s, r);
  rt_wevent e1, e2;
  double back = 0;
  while (rt_witer_next(i1, &e1)) {
    cr_assert(rt_witer_next(i2, &e2));
    cr_assert_eq(e1.lanes_w, e2.lanes_w, "an event's lanes weigh %g, read back %g", e1.lanes_w, e2.lanes_w);
    if (e2.is_mem && e2.id == 0) back += e2.lanes_w;
  }
  cr_assert_not(rt_witer_next(i2, &e2));
  cr_assert_eq(back, o.lanes[0]);
  rt_witer_free(i1);
  rt_witer_free(i2);
  cr_assert_gt(same_events(f.s, w, r, 0), 3 * 64);
  rt_wwarp_free(r);
  rt_wwarp_free(w);
  free(b);
  teardown(&f);
}

/* A loop in the form `for` has before rotation: its header (block 1) tests the condition and
   runs T + 1 times, the body (block 3, a[j]) T times, the exit goes from the header to block 2.
   The windows must stand for T bodies and T + 1 headers, wherever the loop ends. */
Test(reconverge, sampled_loop_whose_header_tests_the_exit_counts_one_more_header) {
  const int mb[] = {3, 2, 2}, bl[] = {-1, 0, -1, 0}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 3, 2};
  const unsigned Ts[] = {200, 256, 1000, 2048, 2100, 2200, 5000};
  for (size_t c = 0; c < sizeof Ts / sizeof *Ts; c++) {
    unsigned T = Ts[c];
    fixture f;
    setup(&f, 3, mb, mo, 4, rpo, bl, 1, lh, lp);
    rt_tracker_sample(f.t, 1);
    for (unsigned l = 0; l < RT_WARP; l++) {
      int paused = 0;
      lane(&f, l);
      enter(&f, 0, &paused);
      for (unsigned j = 0; j < T; j++) {
        enter(&f, 1, &paused);
        enter(&f, 3, &paused);
        if (!paused) rt_tracker_access(f.t, 0, A + 4 * j);
      }
      enter(&f, 1, &paused);                        /* the test that leaves */
      enter(&f, 2, &paused);
      cr_assert(!paused);
      rt_tracker_access(f.t, 1, X + 4 * l);
      rt_tracker_access(f.t, 2, Y + 4 * l);
      rt_tracker_finish(f.t);
    }
    weighed o;
    weigh(&f, &o);
    cr_assert_eq(o.stands[0], (double)T, "T=%u: a[j] stands for %g", T, o.stands[0]);
    cr_assert_eq(o.stands[3 + 3], (double)T, "T=%u: the body stands for %g", T, o.stands[3 + 3]);
    cr_assert_eq(o.stands[3 + 1], (double)T + 1, "T=%u: the header stands for %g", T, o.stands[3 + 1]);
    cr_assert_eq(rt_tracker_iterations_skipped(f.t), (uint64_t)RT_WARP * (T - traced_by_hand(T)), "T=%u", T);
    teardown(&f);
  }
}

/* Without rt_tracker_sample every iteration is traced. */
Test(reconverge, iterations_are_all_traced_unless_sampling_is_asked) {
  const int mb[] = {1, 2, 2}, bl[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 2};
  fixture f;
  setup(&f, 3, mb, mo, 3, rpo, bl, 1, lh, lp);
  lane(&f, 0);
  int paused = 0;
  enter(&f, 0, &paused);
  for (unsigned j = 0; j < 5000; j++) {
    enter(&f, 1, &paused);
    cr_assert(!paused, "iteration %u skipped", j);
  }
  teardown(&f);
}

/* The hard memory limit holds where a lane grows: with rt_run_limit 2 KiB above what is held, a
   straight-line lane of a block and 100 accesses (a run each, 64 bytes) grows to 16 runs (1 KiB)
   and 32 (2 KiB) but not 64 (4 KiB), and is cut there: failed set, rt_run_bytes never past the
   limit, the events after the cut not recorded. Without the limit the lane keeps all 101. */
Test(reconverge, hard_limit_cuts_the_lane_that_would_grow_past_it) {
  fixture f;
  int mb[100];
  unsigned mo[100];
  const unsigned rpo[] = {0};
  const int bl[] = {-1};
  for (unsigned i = 0; i < 100; i++) { mb[i] = 0; mo[i] = i; }
  setup(&f, 100, mb, mo, 1, rpo, bl, 0, NULL, NULL);
  size_t before = rt_run_bytes, saved = rt_run_limit;
  for (int limited = 1; limited >= 0; limited--) {
    rt_run_limit = limited ? before + 2048 : SIZE_MAX;
    lane(&f, (unsigned)limited);
    rt_tracker_block(f.t, 0);
    for (uint32_t i = 0; i < 100; i++) {
      rt_tracker_access(f.t, i, A + 4 * i);
      if (limited) cr_assert_leq(rt_run_bytes, rt_run_limit, "access %u", i);
    }
    rt_tracker_finish(f.t);
    cr_assert_eq(f.lane[limited].failed, limited);
    cr_assert_eq(f.lane[limited].n, limited ? 32u : 101u, "lane %d: %zu runs", limited, f.lane[limited].n);
  }
  rt_run_limit = saved;
  teardown(&f);
}

/* Lane l of a random loop warp: for (j = 0; j < trips; j++) { if (coin) a = A[f(j)]; if (coin)
   x = X[...]; } y = Y[l], each lane with its own trip count (0 to 12), a[j]'s stride changing
   once mid-loop (two runs of one site in a lane), both guards taken at random. */
static void random_loop_lane(fixture *f, unsigned l, uint64_t *seed) {
  unsigned trips = (unsigned)(rnd(seed) % 13), turn = (unsigned)(rnd(seed) % 14);
  uint64_t stride = 4 << rnd(seed) % 3;
  rt_tracker_block(f->t, 0);
  for (unsigned j = 0; j <= trips; j++) {
    rt_tracker_block(f->t, 1);
    if (j == trips) break;
    if (rnd(seed) % 2) rt_tracker_access(f->t, 0, A + 4 * l + (j < turn ? stride * j : 4096 + 8 * j));
    if (rnd(seed) % 3) {
      rt_tracker_block(f->t, 2);
      rt_tracker_access(f->t, 1, X + 128 * l + 4 * j);
    }
  }
  rt_tracker_block(f->t, 3);
  rt_tracker_access(f->t, 2, Y + 4 * l);
}

/* The sorted queue of runs under way walks as the reference heap does, on 300 random loop
   warps (random_loop_lane), some lanes idle: many runs under way, runs starting mid-queue, lanes
   leaving early; the lanes' addresses and spans alike, a run of lanes on one stride (x[l], y[l])
   written from its first lane's (take's rigid path) and the reference's segment by segment.
   Mutation-checked: a queue that pushes every cursor last fails it, and so does a rigid path one
   byte off. */
Test(reconverge, sorted_queue_walks_as_the_reference_heap) {
  uint64_t seed = 4242;
  size_t events_seen = 0;
  for (int c = 0; c < 300; c++) {
    fixture f;
    const int mb[] = {1, 2, 3}, bl[] = {-1, 0, 0, -1}, lh[] = {1}, lp[] = {-1};
    const unsigned mo[] = {0, 0, 0}, rpo[] = {0, 1, 2, 3};
    setup(&f, 3, mb, mo, 4, rpo, bl, 1, lh, lp);
    for (unsigned l = 0; l < RT_WARP; l++) {
      if (rnd(&seed) % 5 == 0) continue;
      lane(&f, l);
      random_loop_lane(&f, l, &seed);
    }
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
    cr_assert_not_null(w);
    cr_assert(!rt_wwarp_linear(w), "case %d: loops are never linear", c);
    rt_witer *fast = rt_witer_new(f.s, w), *ref = rt_witer_new_reference(f.s, w);
    cr_assert(fast && ref);
    rt_wevent a, b;
    for (size_t i = 0;; i++) {
      int more = rt_witer_next(fast, &a), ref_more = rt_witer_next(ref, &b);
      cr_assert_eq(more, ref_more, "case %d: %zu events against the reference's", c, i);
      if (!more) break;
      events_seen++;
      cr_assert(a.is_mem == b.is_mem && a.id == b.id && a.nact == b.nact && a.skipped == b.skipped,
                "case %d, event %zu: %d %u (%u lanes) against %d %u (%u lanes)", c, i, a.is_mem, a.id, a.nact,
                b.is_mem, b.id, b.nact);
      for (unsigned k = 0; k < a.nact; k++)
        cr_assert(a.lane[k] == b.lane[k] && a.addr[k] == b.addr[k] && a.span[k].stride == b.span[k].stride &&
                      a.span[k].lo == b.span[k].lo && a.span[k].hi == b.span[k].hi,
                  "case %d, event %zu, lane %u differs", c, i, k);
    }
    rt_witer_free(fast);
    rt_witer_free(ref);
    rt_wwarp_free(w);
    teardown(&f);
  }
  cr_assert_gt(events_seen, 300 * 20);
}

/* One iterator reset onto warp after warp of a shape (rt_witer_reset: a batch's iterators are
   reused) walks each as a new one does: 60 random loop warps of growing and shrinking sizes,
   every fourth a linear one (no iteration: the blocks around the loop and y[l]), every tenth
   from the sixth instead a loop of 600 iterations whose a[j] jumps every time (a run per element: a queue of about 600
   runs, more than four times the next warp's, so the next reset shrinks it). */
Test(reconverge, a_reset_iterator_walks_as_a_new_one) {
  const int mb[] = {1, 2, 3}, bl[] = {-1, 0, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 0}, rpo[] = {0, 1, 2, 3};
  fixture f;
  setup(&f, 3, mb, mo, 4, rpo, bl, 1, lh, lp);
  rt_witer *reused = rt_witer_new(f.s, NULL);
  cr_assert_not_null(reused);
  uint64_t seed = 99;
  unsigned linear = 0;
  for (int c = 0; c < 60; c++) {
    for (unsigned l = 0; l < RT_WARP; l++) {
      f.active[l] = 0;
      if (c % 4 != 3 && rnd(&seed) % 5 == 0) continue;
      lane(&f, l);
      if (c % 10 == 5) {
        rt_tracker_block(f.t, 0);
        for (unsigned j = 0; j < 600; j++) {
          rt_tracker_block(f.t, 1);
          rt_tracker_access(f.t, 0, A + 4 * l + 4096 * (rnd(&seed) % 64));
        }
        rt_tracker_block(f.t, 1);
        rt_tracker_block(f.t, 3);
        continue;
      }
      if (c % 4 != 3) {
        random_loop_lane(&f, l, &seed);
        continue;
      }
      rt_tracker_block(f.t, 0);
      rt_tracker_block(f.t, 1);
      rt_tracker_block(f.t, 3);
      rt_tracker_access(f.t, 2, Y + 4 * l);
    }
    rt_wwarp *w = rt_wwarp_build(f.s, f.lane, f.active, f.thread);
    cr_assert_not_null(w);
    linear += (unsigned)rt_wwarp_linear(w);
    cr_assert(rt_witer_reset(reused, w), "case %d", c);
    rt_witer *fresh = rt_witer_new(f.s, w);
    cr_assert_not_null(fresh);
    rt_wevent a, b;
    for (size_t i = 0;; i++) {
      int more = rt_witer_next(reused, &a), fresh_more = rt_witer_next(fresh, &b);
      cr_assert_eq(more, fresh_more, "case %d: %zu events against a new iterator's", c, i);
      if (!more) break;
      cr_assert(a.is_mem == b.is_mem && a.id == b.id && a.nact == b.nact, "case %d, event %zu", c, i);
      for (unsigned k = 0; k < a.nact; k++)
        cr_assert(a.lane[k] == b.lane[k] && a.addr[k] == b.addr[k], "case %d, event %zu, lane %u", c, i, k);
    }
    rt_witer_free(fresh);
    rt_wwarp_free(w);
  }
  cr_assert_eq(linear, 12u, "linear warps: %u", linear);   /* every fourth, but cases 15, 35, 55 */
  rt_witer_free(reused);
  teardown(&f);
}

/* 200 random loop warps whose lanes skip a[j] or x[j] in some iterations (a run may end where
   another lane's has an index), each recorded twice, lane after lane: f with `after` called on it
   after each lane, g as it comes; every lane's runs must be the same. `what` names f's case. */
static void record_twice(uint64_t seed, void (*after)(fixture *f, unsigned l, int c), const char *what) {
  const int mb[] = {1, 2, 3}, bl[] = {-1, 0, 0, -1}, lh[] = {1}, lp[] = {-1};
  const unsigned mo[] = {0, 0, 0}, rpo[] = {0, 1, 2, 3};
  for (int c = 0; c < 200; c++) {
    fixture f, g;
    setup(&f, 3, mb, mo, 4, rpo, bl, 1, lh, lp);
    setup(&g, 3, mb, mo, 4, rpo, bl, 1, lh, lp);
    uint64_t sf = seed + (uint64_t)c, sg = sf;
    for (unsigned l = 0; l < RT_WARP; l++) {
      lane(&f, l);
      random_loop_lane(&f, l, &sf);
      after(&f, l, c);
      lane(&g, l);
      random_loop_lane(&g, l, &sg);
      const rt_lane_rec *a = &f.lane[l], *b = &g.lane[l];
      cr_assert_eq(a->n, b->n, "case %d, lane %u: %zu runs %s, %zu without", c, l, a->n, what, b->n);
      for (size_t r = 0; r < a->n; r++)
        cr_assert(a->run[r].ev == b->run[r].ev && a->run[r].count == b->run[r].count &&
                      a->run[r].a0 == b->run[r].a0 && (a->run[r].count < 2 || a->run[r].stride == b->run[r].stride),
                  "case %d, lane %u, run %zu: event %u x %u %s against event %u x %u", c, l, r, a->run[r].ev,
                  a->run[r].count, what, b->run[r].ev, b->run[r].count);
    }
    teardown(&f);
    teardown(&g);
  }
}

static void finish_lane(fixture *f, unsigned l, int c) {
  (void)l; (void)c;
  rt_tracker_finish(f->t);
}

/* A lane's open runs are closed when the next lane starts (a new serial, rt_tracker_start),
   whether the lane before finished or not, so every lane starts with none open: recorded with a
   finish after each lane and with none, the lanes' runs are the same. Mutation-checked: with a
   start after a finish keeping the serial, an event's first element extends a run of another
   event at the index it had in the lane before. */
Test(reconverge, a_finished_lane_leaves_no_run_open) { record_twice(77, finish_lane, "with a finish"); }

static void wrap_after_lane_0(fixture *f, unsigned l, int c) {
  cr_assert_eq(f->t->serial, l < 2 ? 1u : l, "case %d, lane %u: serial %u", c, l, f->t->serial);
  if (l == 0) f->t->serial = UINT32_MAX;        /* the next start wraps */
}

/* When the lane serial wraps (once in 2^32 lanes) every event's open run is cleared: a lane
   after the wrap takes serial 1 again, which the first lane had. Recorded with the serial set to
   wrap after lane 0 and without, the lanes' runs are the same. Mutation-checked: without the
   clearing, lane 1 extends lane 0's runs. */
Test(reconverge, a_wrapped_lane_serial_leaves_no_run_open) { record_twice(91, wrap_after_lane_0, "across the wrap"); }

/* Block b of descriptor loop `loop` (-1: none; header: it heads it) entered as the instrumented
   code enters it (pass/cgp_hooks.c, bb_hook): in a skipped iteration of that very loop, the
   tracker's pause word (rt_tracker_pause_in) is updated inline, as cgp_abi.h allows, and only
   the header that ends the skipping, or a block of another loop, goes to the runtime. *inline_n
   counts the blocks handled inline. */
static void enter_inline(fixture *f, int32_t word[3], uint32_t b, int loop, int header, int *paused,
                         size_t *inline_n) {
  if (*paused && word[RT_PAUSED] == loop) {
    if (!header) {
      word[RT_HEADER_LAST] = 0;
      ++*inline_n;
      return;
    }
    if (word[RT_LEFT] > 1) {
      word[RT_LEFT]--;
      word[RT_HEADER_LAST] = 1;
      ++*inline_n;
      return;
    }
  }
  enter(f, b, paused);
}

/* The skipping the instrumented code does inline is the runtime's, exactly: 64 random lanes of
   a sampled loop, in both forms a loop takes (rotated: header = body with a[j], a guarded block
   with x[j], the exit from the latch; and `for` before rotation: a header that tests the exit,
   a body with a[j]), 0 to 7000 iterations, recorded once with every block calling the runtime
   (enter) and once as the instrumented code runs (enter_inline): every run the same (events,
   counts, addresses, iterations, weights of skipped iterations), and the iterations skipped.
   The inline path must have taken most blocks: it is the one under test. */
Test(reconverge, inline_skipping_equals_the_runtimes) {
  uint64_t seed = 2718;
  for (int form = 0; form < 2; form++) {
    /* rotated: blocks 0 thread header, 1 loop header (a[j]), 2 guarded (x[j]), 3 after (y);
       `for`: 0 thread header, 1 loop header (the test), 2 body (a[j]), 3 after (x, y) */
    const int mb_rot[] = {1, 2, 3}, mb_for[] = {2, 3, 3}, bl[] = {-1, 0, 0, -1}, lh[] = {1}, lp[] = {-1};
    const unsigned mo[] = {0, 0, 1}, rpo[] = {0, 1, 2, 3};
    fixture f, g;
    setup(&f, 3, form ? mb_for : mb_rot, mo, 4, rpo, bl, 1, lh, lp);
    setup(&g, 3, form ? mb_for : mb_rot, mo, 4, rpo, bl, 1, lh, lp);
    rt_tracker_sample(f.t, 1);
    rt_tracker_sample(g.t, 1);
    int32_t word[3];
    rt_tracker_pause_in(g.t, word);
    size_t inline_n = 0, blocks = 0;
    for (unsigned c = 0; c < 64; c++) {
      unsigned l = c % RT_WARP, trips = (unsigned)(rnd(&seed) % 7001);
      uint64_t coins = seed;                        /* both recordings draw the same guards */
      for (int rec = 0; rec < 2; rec++) {
        fixture *x = rec ? &g : &f;
        uint64_t s = coins;
        int paused = 0;
        lane(x, l);
#define ENTER(b, loop, header) \
  (rec ? enter_inline(x, word, b, loop, header, &paused, &inline_n) : enter(x, b, &paused), blocks += rec)
        ENTER(0, -1, 0);
        for (unsigned j = 0; j < trips; j++) {
          ENTER(1, 0, 1);
          if (form) ENTER(2, 0, 0);
          if (!paused) rt_tracker_access(x->t, 0, A + 4 * j);
          if (!form && rnd(&s) % 3 == 0) {
            ENTER(2, 0, 0);
            if (!paused) rt_tracker_access(x->t, 1, X + 8 * j);
          }
        }
        if (form) ENTER(1, 0, 1);                     /* the test that leaves */
        ENTER(3, -1, 0);
#undef ENTER
        cr_assert(!paused, "form %d, lane %u: still paused after the loop", form, l);
        if (form) rt_tracker_access(x->t, 1, X + 4 * l);
        rt_tracker_access(x->t, 2, Y + 4 * l);
        rt_tracker_finish(x->t);
        if (rec) seed = s;
      }
      const rt_lane_rec *a = &f.lane[l], *b = &g.lane[l];
      cr_assert_eq(a->n, b->n, "form %d, case %u (%u iterations): %zu runs inline, %zu by the runtime", form, c,
                   trips, b->n, a->n);
      for (size_t r = 0; r < a->n; r++) {
        const rt_run *p = &a->run[r], *q = &b->run[r];
        cr_assert(p->ev == q->ev && p->count == q->count && p->a0 == q->a0 && p->gen == q->gen &&
                      p->skipped == q->skipped && (p->count < 2 || p->stride == q->stride) &&
                      memcmp(p->t, q->t, sizeof p->t) == 0,
                  "form %d, case %u, run %zu: event %u x %u (skipped %g) inline, event %u x %u (skipped %g) by the "
                  "runtime",
                  form, c, r, q->ev, q->count, (double)q->skipped, p->ev, p->count, (double)p->skipped);
      }
    }
    cr_assert_eq(rt_tracker_iterations_skipped(g.t), rt_tracker_iterations_skipped(f.t), "form %d", form);
    cr_assert_gt(rt_tracker_iterations_skipped(f.t), 64 * 2000, "form %d: iterations were skipped", form);
    cr_assert_gt(inline_n, blocks * 3 / 4, "form %d: %zu of %zu blocks inline", form, inline_n, blocks);
    teardown(&f);
    teardown(&g);
    cr_assert_eq(word[RT_PAUSED], -1, "a freed tracker leaves the word unpaused");
  }
}

/* ---- straight-line bodies recorded warp-major (rt_flat) -------------------------------------- */

/* Only a loop-free body whose events all have positions of their own is flat; its matrix is
   refused past the hard limit. */
Test(reconverge, only_loop_free_bodies_are_recorded_warp_major) {
  fixture f;
  const int mb[] = {0, 1, 2}, bl[] = {-1, -1, -1};
  const unsigned mo[] = {0, 0, 0}, rpo[] = {0, 1, 2};
  setup(&f, 3, mb, mo, 3, rpo, bl, 0, NULL, NULL);
  cr_assert(rt_shape_flat(f.s));
  size_t saved = rt_run_limit;
  rt_run_limit = rt_run_bytes + 100;            /* the matrix of 6 events is 1.5 KiB */
  cr_assert_null(rt_flat_new(f.s));
  rt_run_limit = saved;
  rt_flat *m = rt_flat_new(f.s);
  cr_assert_not_null(m);
  rt_flat_free(m);
  teardown(&f);
  const int mbl[] = {1, 2, 2}, bll[] = {-1, 0, -1}, lh[] = {1}, lp[] = {-1};
  setup(&f, 3, mbl, mo, 3, rpo, bll, 1, lh, lp);
  cr_assert(!rt_shape_flat(f.s), "a body with a loop is not flat");
  cr_assert_null(rt_flat_new(f.s));
  teardown(&f);
}

/* A flat warp is the warp rt_wwarp_build makes of the same lanes recorded one by one, byte for
   byte, on random warps of the straight-line body s0 (block 0), s1 (block 1, guarded), s2
   (block 2): inactive lanes, the guard split, and in some warps a lane that runs block 1 and
   s1 again after s2 (a cycle no natural loop makes: the lane moves to its record at once, the
   warp's other lanes when it is built). One matrix serves every warp: each build empties it.
   Mutation-checked: building from the matrix without moving the other lanes after a spill, or
   leaving the matrix's masks set after a build, fails it. */
Test(reconverge, flat_warps_equal_the_lane_by_lane_grouping) {
  uint64_t seed = 4242;
  unsigned spilled = 0, split = 0;
  fixture f, g;
  const int mb[] = {0, 1, 2}, bl[] = {-1, -1, -1};
  const unsigned mo[] = {0, 0, 0}, rpo[] = {0, 1, 2};
  setup(&f, 3, mb, mo, 3, rpo, bl, 0, NULL, NULL);
  setup(&g, 3, mb, mo, 3, rpo, bl, 0, NULL, NULL);
  rt_flat *m = rt_flat_new(f.s);
  cr_assert_not_null(m);
  for (int c = 0; c < 300; c++) {
    unsigned all = rnd(&seed) % 2, cycle = rnd(&seed) % 4 == 0, took = 0, passed = 0, again = 0;
    memset(f.active, 0, sizeof f.active);
    memset(g.active, 0, sizeof g.active);
    for (unsigned l = 0; l < RT_WARP; l++) {
      if (rnd(&seed) % 4 == 0) continue;
      int guard = all || rnd(&seed) % 2, repeat = cycle && rnd(&seed) % 3 == 0;
      for (int by_lane = 0; by_lane < 2; by_lane++) {
        fixture *h = by_lane ? &g : &f;
        lane(h, l);
        if (!by_lane) rt_tracker_flat(h->t, m, l);
        rt_tracker_block(h->t, 0);
        rt_tracker_access(h->t, 0, A + 4 * l);
        if (guard) {
          rt_tracker_block(h->t, 1);
          rt_tracker_access(h->t, 1, X + 128 * l);
        }
        rt_tracker_block(h->t, 2);
        rt_tracker_access(h->t, 2, Y + 4 * (RT_WARP - l));
        if (repeat) {
          rt_tracker_block(h->t, 1);
          rt_tracker_access(h->t, 1, X + 256 * l);
        }
        rt_tracker_finish(h->t);
      }
      took += guard;
      passed += !guard;
      again += repeat;
    }
    split += took && passed;
    spilled += again > 0;
    rt_wwarp *w = rt_wwarp_build_flat(f.s, m, f.lane, f.active, f.thread),
             *r = rt_wwarp_build(g.s, g.lane, g.active, g.thread);
    cr_assert(w && r);
    for (size_t e = 0; e < 6; e++) cr_assert_eq(m->mask[e], 0, "case %d: the matrix is emptied", c);
    cr_assert_eq(rt_wwarp_linear(w), rt_wwarp_linear(r), "case %d", c);
    cr_assert_eq(rt_wwarp_bytes(w), rt_wwarp_bytes(r), "case %d", c);
    unsigned char *bw = malloc(rt_wwarp_size_bound(w)), *br = malloc(rt_wwarp_size_bound(r));
    size_t n = rt_wwarp_serialise(w, bw), nr = rt_wwarp_serialise(r, br);
    cr_assert_eq(n, nr, "case %d: %zu bytes against %zu", c, n, nr);
    cr_assert_eq(memcmp(bw, br, n), 0, "case %d (all %u, repeats %u) differs from the lane-by-lane warp", c, all,
                 again);
    events *ew = malloc(sizeof *ew), *er = malloc(sizeof *er);
    walk(f.s, w, ew);
    walk(g.s, r, er);
    cr_assert_eq(ew->n, er->n, "case %d", c);
    for (size_t i = 0; i < ew->n; i++) {
      cr_assert(ew->ev[i].id == er->ev[i].id && ew->ev[i].nact == er->ev[i].nact, "case %d, event %zu", c, i);
      for (unsigned k = 0; k < ew->ev[i].nact; k++)
        cr_assert(ew->ev[i].lane[k] == er->ev[i].lane[k] && ew->ev[i].addr[k] == er->ev[i].addr[k],
                  "case %d, event %zu, lane %u", c, i, k);
    }
    free(ew);
    free(er);
    free(bw);
    free(br);
    rt_wwarp_free(w);
    rt_wwarp_free(r);
  }
  cr_assert_gt(split, 100, "the guard split many warps");
  cr_assert_gt(spilled, 30, "lanes went out of program order in many warps");
  rt_flat_free(m);
  teardown(&f);
  teardown(&g);
}

/* Blocks marked (cgp_abi.h, CGP_HOOK_BLOCK_SEEN) and taken when the lane ends give the warp that
   recording each block as it runs gives, byte for byte: in the matrix, and in the lanes' records
   (no matrix), where the blocks go after the sites (the grouping orders them). Body: a hoisted
   load h (issued first), s0 in block 0, s1 in block 1 (guarded), s2 in block 2; random warps with
   inactive lanes, the guard split, and in some warps a lane running s0 again at its end (out of
   program order: it spills to its record, its marks with it, while the others' stay in the
   matrix). Mutation-checked: dropping the lane's bit from the blocks' masks, or giving every
   lane a block all the marking lanes ran, fails it. */
Test(reconverge, marked_blocks_equal_blocks_recorded_as_they_run) {
  uint64_t seed = 77;
  const int mb[] = {0, 1, 2, -1}, bl[] = {-1, -1, -1};
  const unsigned mo[] = {0, 0, 0, 0}, rpo[] = {0, 1, 2};
  for (int matrix = 0; matrix < 2; matrix++) {
    fixture f, g;
    setup(&f, 4, mb, mo, 3, rpo, bl, 0, NULL, NULL);
    setup(&g, 4, mb, mo, 3, rpo, bl, 0, NULL, NULL);
    cr_assert(rt_shape_flat(f.s));
    rt_flat *m = matrix ? rt_flat_new(f.s) : NULL;
    uint64_t seen[CGP_FLAT_EVENTS / 64] = {0};
    unsigned spills = 0;
    for (int c = 0; c < 200; c++) {
      memset(f.active, 0, sizeof f.active);
      memset(g.active, 0, sizeof g.active);
      for (unsigned l = 0; l < RT_WARP; l++) {
        if (rnd(&seed) % 4 == 0) continue;
        int guard = rnd(&seed) % 2, back = c % 5 == 0 && rnd(&seed) % 8 == 0;
        spills += back;
        lane(&f, l);
        lane(&g, l);
        rt_tracker_flat(f.t, m, l);
        rt_tracker_access(f.t, 3, Y + 0x80000u + 64 * (uint64_t)c);
        rt_tracker_access(g.t, 3, Y + 0x80000u + 64 * (uint64_t)c);
        for (uint32_t b = 0; b < 3; b++) {
          if (b == 1 && !guard) continue;
          seen[0] |= UINT64_C(1) << b;
          rt_tracker_block(g.t, b);
          rt_tracker_access(f.t, b, A + 4 * l + 1024 * b);
          rt_tracker_access(g.t, b, A + 4 * l + 1024 * b);
        }
        if (back) {                              /* s0 again, out of program order: f's lane
                                                    spills to its record, its marks follow it */
          rt_tracker_access(f.t, 0, X + 4 * l);
          rt_tracker_access(g.t, 0, X + 4 * l);
        }
        rt_tracker_seen(f.t, seen);
        cr_assert_eq(seen[0], 0, "the marks are taken");
        rt_tracker_finish(f.t);
        rt_tracker_finish(g.t);
      }
      rt_wwarp *w = matrix ? rt_wwarp_build_flat(f.s, m, f.lane, f.active, f.thread)
                           : rt_wwarp_build(f.s, f.lane, f.active, f.thread),
               *r = rt_wwarp_build(g.s, g.lane, g.active, g.thread);
      cr_assert(w && r);
      unsigned char *bw = malloc(rt_wwarp_size_bound(w)), *br = malloc(rt_wwarp_size_bound(r));
      size_t n = rt_wwarp_serialise(w, bw), nr = rt_wwarp_serialise(r, br);
      cr_assert_eq(n, nr, "matrix %d, case %d", matrix, c);
      cr_assert_eq(memcmp(bw, br, n), 0, "matrix %d, case %d differs from the recorded blocks' warp", matrix, c);
      free(bw);
      free(br);
      rt_wwarp_free(w);
      rt_wwarp_free(r);
    }
    cr_assert_gt(spills, 5, "matrix %d: lanes went back in some warps", matrix);
    rt_flat_free(m);
    teardown(&f);
    teardown(&g);
  }
}
