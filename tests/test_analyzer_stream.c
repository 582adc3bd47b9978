/* The analyses behind cgp_analysis_ops, fed hand-made event streams: per-class counts,
   transactions in sectors, L1 and L2 misses against brute-force LRU references, masked issue
   slots, and dependences with their kinds and example threads. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_analyzer.h"

static const uint8_t kinds[4] = {CGP_LOAD, CGP_LOAD, CGP_STORE, CGP_ATOMIC};
static const double ptx[3] = {10, 4, 7};

static cgp_analysis_cfg base_cfg(void) {
  cgp_analysis_cfg c = {.nsid = 4, .nbid = 3, .sid_kind = kinds, .bid_total = ptx, .bid_core = ptx,
                        .no_sm = 2, .l2_bytes = 4096, .l2_line_bytes = 128, .l2_unit_bytes = 32,
                        .l2_assoc = 0, .l2_index = CGP_L2_FULLY_ASSOCIATIVE, .dims = 1};
  return c;
}

static cgp_warp_mem mem(uint32_t sid, const uint64_t *addr, unsigned n, unsigned sm) {
  static uint8_t lanes[32];
  static uint64_t thread[32];
  for (unsigned l = 0; l < 32; l++) { lanes[l] = (uint8_t)l; thread[l] = l; }
  cgp_warp_mem m = {.sid = sid, .kind = kinds[sid], .nact = (uint8_t)n, .warp_threads = 32, .size = 4,
                    .addr = addr, .lane = lanes, .thread = thread, .sm = sm};
  m.cls = (uint8_t)cgp_classify(addr, n, 4);
  return m;
}

/* One SM whose 4 KiB L1, in 32-byte sectors, caches global loads. */
static cgp_analysis_cfg one_sm_l1_cfg(void) {
  cgp_analysis_cfg c = base_cfg();
  c.no_sm = 1;
  c.l1_caches_global = 1;
  c.l1_bytes = 4096;
  c.l1_unit_bytes = 32;
  return c;
}

/* 32 consecutive floats from `a`: 128 bytes, 4 sectors of 32 bytes when aligned. */
static void row(uint64_t a, uint64_t out[32]) {
  for (unsigned l = 0; l < 32; l++) out[l] = a + 4 * l;
}

Test(stream, classes_and_sector_transactions) {
  cgp_analysis_cfg cfg = base_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cr_assert_not_null(s);
  uint64_t a[32], same[32];
  row(0x10000, a);
  for (unsigned l = 0; l < 32; l++) same[l] = 0x20000;
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  cgp_warp_mem m0 = mem(0, a, 32, 0), m1 = mem(1, same, 32, 0), m2 = mem(2, a, 32, 0);
  cgp_analysis_warp_mem(s, &m0);          /* coalesced: 4 sectors, all miss */
  cgp_analysis_warp_mem(s, &m1);          /* constant: 1 sector, miss */
  cgp_analysis_warp_mem(s, &m2);          /* store over the first row: 4 sectors, all hit */
  cgp_analysis_end_warp(s, 0);
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.warps, 1);
  cr_assert_eq(t.ld_insts[CGP_CLASS_COAL], 1);
  cr_assert_eq(t.ld_insts[CGP_CLASS_CONST], 1);
  cr_assert_eq(t.ld_trans[CGP_CLASS_COAL], 4);
  cr_assert_eq(t.ld_dram[CGP_CLASS_COAL], 4);
  cr_assert_eq(t.ld_trans[CGP_CLASS_CONST], 1);
  cr_assert_eq(t.st_insts, 1);
  cr_assert_eq(t.st_trans, 4);
  cr_assert_eq(t.st_dram, 0, "the store hits what the load brought in (write-allocate L2)");
  cr_assert_eq(site[0].trans, 4);
  cr_assert_eq(site[2].miss, 0);
  cgp_analysis_set_free(s);
}

/* A warp of 32 lanes with one block executed by 16 of them: 10 slots counted once, masked. */
Test(stream, masked_block_counts_its_slots_once) {
  cgp_analysis_cfg cfg = base_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cgp_analysis_begin_batch(s, 1, 2, 1);
  cgp_block_exec full = {.bid = 1, .nact = 32, .warp_threads = 32, .warp = 0};
  cgp_block_exec half = {.bid = 0, .nact = 16, .warp_threads = 32, .warp = 1};
  cgp_analysis_block_exec(s, &full);
  cgp_analysis_block_exec(s, &half);
  cgp_analysis_end_warp(s, 0);
  cgp_analysis_end_warp(s, 1);
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.total_insts, 14);
  cr_assert_eq(t.masked_slots, 10);
  cr_assert_eq(t.divergent_warps, 1);
  cgp_analysis_set_free(s);
}

/* L1 per SM then L2, against two brute-force LRUs (cgp_l2_ref) fed the same sector streams. */
Test(stream, l1_and_l2_agree_with_reference_lru) {
  cgp_analysis_cfg cfg = base_cfg();
  cfg.l1_caches_global = 1;
  cfg.l1_bytes = 1024;
  cfg.l1_unit_bytes = 32;
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cgp_l2_ref *l1[2] = {cgp_l2_ref_new(1024, 32, 0, CGP_L2_FULLY_ASSOCIATIVE),
                       cgp_l2_ref_new(1024, 32, 0, CGP_L2_FULLY_ASSOCIATIVE)};
  cgp_l2_ref *l2 = cgp_l2_ref_new(4096, 32, 0, CGP_L2_FULLY_ASSOCIATIVE);
  uint64_t hits1 = 0, miss2 = 0, trans2 = 0;
  srand(7);
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  uint64_t addr[32];
  unsigned sm = 0;
  for (int i = 0; i < 5000; i++) {
    uint64_t units[64];
    unsigned sid = (unsigned)(rand() % 3);
    if (i == 0 || rand() % 4) {              /* else the same lanes again: whole-load hits */
      uint64_t base = (uint64_t)(rand() % 512) * 16;
      sm = (unsigned)(rand() % 2);
      for (unsigned l = 0; l < 32; l++) addr[l] = base + (uint64_t)(rand() % 3 == 0 ? l * 36 : l * 4);
    }
    cgp_warp_mem m = mem(sid, addr, 32, sm);
    cgp_analysis_warp_mem(s, &m);
    unsigned n = cgp_lines(addr, 32, 4, 32, units), h = 0;
    for (unsigned j = 0; j < n; j++) {
      if (kinds[sid] == CGP_LOAD && cgp_l2_ref_access(l1[sm], units[j]) == 1) { h++; continue; }
      trans2++;
      miss2 += cgp_l2_ref_access(l2, units[j]) == 0;
    }
    hits1 += h == n ? n : 0;                 /* a load hits only as a whole (docs/model.md 5c) */
  }
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  double h1 = 0, tr2 = t.st_trans, m2 = t.st_dram;
  for (int c = 0; c < CGP_NCLASS; c++) { h1 += t.l1_hit[c]; tr2 += t.ld_trans[c]; m2 += t.ld_dram[c]; }
  cr_assert_eq((uint64_t)h1, hits1);
  cr_assert_eq((uint64_t)tr2, trans2);
  cr_assert_eq((uint64_t)m2, miss2);
  cr_assert_gt(hits1, 0);
  cr_assert_gt(miss2, 0);
  cgp_l2_ref_free(l1[0]);
  cgp_l2_ref_free(l1[1]);
  cgp_l2_ref_free(l2);
  cgp_analysis_set_free(s);
}

/* A warming batch moves the caches but counts nothing. */
Test(stream, warming_batch_counts_nothing) {
  cgp_analysis_cfg cfg = base_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  uint64_t a[32];
  row(0x4000, a);
  cgp_warp_mem m = mem(0, a, 32, 0);
  cgp_analysis_begin_batch(s, 0, 1, 1);
  cgp_analysis_warp_mem(s, &m);
  cgp_analysis_end_batch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  cgp_analysis_warp_mem(s, &m);
  cgp_analysis_end_batch(s);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.warps, 1);
  cr_assert_eq(t.ld_trans[CGP_CLASS_COAL], 4);
  cr_assert_eq(t.ld_dram[CGP_CLASS_COAL], 0, "the warming batch brought the row in");
  cgp_analysis_set_free(s);
}

/* ---- dependences ---------------------------------------------------------------------------- */

static const cgp_dep *find(const cgp_deps *d, cgp_dep_kind kind) {
  size_t n;
  const cgp_dep *f = cgp_deps_found(d, &n);
  for (size_t i = 0; i < n; i++)
    if (f[i].kind == kind) return &f[i];
  return NULL;
}

/* Thread 5 writes A (site 1), thread 6 reads it (site 0): raw, thread 5 first, whatever order
   the two accesses are fed in. */
Test(deps, raw_is_ordered_by_the_sequential_nest) {
  for (int order = 0; order < 2; order++) {
    cgp_deps *d = cgp_deps_new(100);
    if (order == 0) {
      cgp_deps_access(d, 0x100, 5, 1, 1);
      cgp_deps_access(d, 0x100, 6, 0, 0);
    } else {
      cgp_deps_access(d, 0x100, 6, 0, 0);
      cgp_deps_access(d, 0x100, 5, 1, 1);
    }
    const cgp_dep *r = find(d, CGP_DEP_RAW);
    cr_assert_not_null(r, "feed order %d", order);
    cr_assert_eq(r->first_thread, 5);
    cr_assert_eq(r->second_thread, 6);
    cr_assert_eq(r->first_sid, 1);
    cr_assert_eq(r->second_sid, 0);
    cr_assert_null(find(d, CGP_DEP_WAR));
    cgp_deps_free(d);
  }
}

/* A descending loop (for i = N - 1 down to 0) runs thread 6 before thread 5: with the launch's
   order mask, thread 6 writing A and thread 5 reading it is raw, thread 6 first (a suffix sum,
   found trying MachSuite: reported war, as if thread 5 ran first, with the remedy of an
   ascending anti-dependence). 2-D, y descending and x ascending: (x 3, y 6) runs before
   (x 4, y 6), and both before (x 0, y 5). The keys reported are the threads' own, not masked. */
Test(deps, a_descending_loop_orders_its_threads_as_it_runs_them) {
  int down1[3] = {1, 0, 0}, down2[3] = {0, 1, 0};
  cr_assert_eq(cgp_thread_order_mask(1, down1), (uint64_t)INT64_MAX);
  uint64_t m = cgp_thread_order_mask(2, down2);
  uint64_t a = cgp_thread_key(2, 3, 6, 0) ^ m, b = cgp_thread_key(2, 4, 6, 0) ^ m, c = cgp_thread_key(2, 0, 5, 0) ^ m;
  cr_assert(a < b && b < c, "y 6 runs before y 5, x ascending within a row");
  for (int feed = 0; feed < 2; feed++) {
    cgp_deps *d = cgp_deps_new(100);
    cgp_deps_order(d, cgp_thread_order_mask(1, down1));
    if (feed == 0) {
      cgp_deps_access(d, 0x100, 6, 1, 1);
      cgp_deps_access(d, 0x100, 5, 0, 0);
    } else {
      cgp_deps_access(d, 0x100, 5, 0, 0);
      cgp_deps_access(d, 0x100, 6, 1, 1);
    }
    const cgp_dep *r = find(d, CGP_DEP_RAW);
    cr_assert_not_null(r, "feed order %d", feed);
    cr_assert_eq(r->first_thread, 6);
    cr_assert_eq(r->second_thread, 5);
    cr_assert_null(find(d, CGP_DEP_WAR));
    cgp_deps_reset(d);                           /* a new launch: ascending again */
    cgp_deps_access(d, 0x100, 6, 1, 1);
    cgp_deps_access(d, 0x100, 5, 0, 0);
    cr_assert_not_null(find(d, CGP_DEP_WAR));
    cgp_deps_free(d);
  }
}

/* A thread reading and writing its own element is no dependence; another reading it after is a
   raw even when the first reader was the writer itself. */
Test(deps, own_element_is_no_dependence) {
  cgp_deps *d = cgp_deps_new(100);
  cgp_deps_access(d, 0x200, 3, 0, 0);
  cgp_deps_access(d, 0x200, 3, 1, 1);
  size_t n;
  cgp_deps_found(d, &n);
  cr_assert_eq(n, 0);
  cgp_deps_access(d, 0x200, 4, 0, 0);          /* thread 4 reads what thread 3 wrote */
  cr_assert_not_null(find(d, CGP_DEP_RAW));
  cgp_deps_free(d);
}

/* Thread 1 reads x, thread 0 then writes it (fed in that order): in the nest, thread 0's write
   comes first: raw 0 -> 1. Thread 2 writes it after thread 1 read it: war 1 -> 2. */
Test(deps, war_and_raw_from_the_two_earliest_readers) {
  cgp_deps *d = cgp_deps_new(100);
  cgp_deps_access(d, 0x300, 0, 0, 0);          /* thread 0 reads */
  cgp_deps_access(d, 0x300, 1, 0, 0);          /* thread 1 reads */
  cgp_deps_access(d, 0x300, 0, 1, 1);          /* thread 0 writes: thread 1 read it later */
  const cgp_dep *r = find(d, CGP_DEP_RAW);
  cr_assert_not_null(r);
  cr_assert_eq(r->first_thread, 0);
  cr_assert_eq(r->second_thread, 1);
  cgp_deps_access(d, 0x300, 2, 1, 1);          /* thread 2 writes after 0 and 1 read */
  cr_assert_not_null(find(d, CGP_DEP_WAR));
  cr_assert_not_null(find(d, CGP_DEP_WAW));
  cgp_deps_free(d);
}

/* Every thread reads, adds and writes one bin: waw marked as a reduction. */
Test(deps, read_modify_write_by_every_thread_is_a_reduction) {
  cgp_deps *d = cgp_deps_new(100);
  for (uint64_t t = 0; t < 8; t++) {
    cgp_deps_access(d, 0x400, t, 0, 0);
    cgp_deps_access(d, 0x400, t, 1, 1);
  }
  const cgp_dep *w = find(d, CGP_DEP_WAW);
  cr_assert_not_null(w);
  cr_assert(w->reduction);
  cr_assert(!w->scratch);
  cr_assert_eq(w->count, 7);
  /* the read of what the thread before added is that update's */
  const cgp_dep *r = find(d, CGP_DEP_RAW);
  cr_assert_not_null(r);
  cr_assert(r->reduction && !r->scratch);
  cgp_deps_free(d);
}

/* Every thread writes a shared scratch element, reads it back, writes it again (Parboil's sad:
   `static short line[16]`, filled and read by each call): its reads are of its own writes, so the
   waw between threads is no reduction (it was: "use atomicAdd"). */
Test(deps, a_shared_scratch_written_before_it_is_read_is_no_reduction) {
  cgp_deps *d = cgp_deps_new(100);
  for (uint64_t t = 0; t < 8; t++)
    for (int again = 0; again < 2; again++) {
      cgp_deps_access(d, 0x400, t, 1, 1);
      cgp_deps_access(d, 0x400, t, 0, 0);
    }
  const cgp_dep *w = find(d, CGP_DEP_WAW);
  cr_assert_not_null(w);
  cr_assert(!w->reduction);
  cr_assert(w->scratch);
  /* the reads of what the thread before wrote there go with the scratch too */
  const cgp_dep *r = find(d, CGP_DEP_RAW);
  cr_assert_not_null(r);
  cr_assert(r->scratch && !r->reduction);
  cgp_deps_free(d);
}

/* Two threads update one bin: the second's read of the first's value is noted before its write
   shows the update; it is that update's all the same (Parboil's histo, a bin or two a thread). */
Test(deps, the_read_before_two_threads_update_is_the_updates) {
  cgp_deps *d = cgp_deps_new(100);
  for (uint64_t t = 0; t < 2; t++) {
    cgp_deps_access(d, 0x400, t, 0, 0);
    cgp_deps_access(d, 0x400, t, 1, 1);
  }
  const cgp_dep *r = find(d, CGP_DEP_RAW), *w = find(d, CGP_DEP_WAW);
  cr_assert_not_null(r);
  cr_assert_not_null(w);
  cr_assert(w->reduction);
  cr_assert(r->reduction);
  cgp_deps_free(d);
}

/* A scan, a[i] += a[i - 1]: each element read and rewritten by its own thread, then read by the
   next. Its raw is a recurrence, neither part of a reduction nor of a scratch. */
Test(deps, a_scans_raw_is_no_reduction) {
  cgp_deps *d = cgp_deps_new(100);
  for (uint64_t t = 1; t < 8; t++) {
    cgp_deps_access(d, 0x400 + 4 * t, t, 0, 0);        /* a[i] */
    cgp_deps_access(d, 0x400 + 4 * (t - 1), t, 1, 0);  /* a[i - 1] */
    cgp_deps_access(d, 0x400 + 4 * t, t, 2, 1);        /* a[i] = */
  }
  const cgp_dep *r = find(d, CGP_DEP_RAW);
  cr_assert_not_null(r);
  cr_assert(!r->reduction && !r->scratch);
  cr_assert_null(find(d, CGP_DEP_WAW));
  cgp_deps_free(d);
}

/* Past max_addresses, new addresses are not followed: partial, memory bounded. */
Test(deps, table_is_bounded) {
  cgp_deps *d = cgp_deps_new(10);
  for (uint64_t a = 0; a < 1000; a++) cgp_deps_access(d, a * 4, a, 0, 1);
  cr_assert(cgp_deps_partial(d));
  cr_assert_eq(cgp_deps_addresses(d), 10);
  cgp_deps_reset(d);
  cr_assert(!cgp_deps_partial(d));
  cr_assert_eq(cgp_deps_addresses(d), 0);
  cgp_deps_free(d);
}

/* Every address is found again, however chunks collide: 20000 elements in
   1250 chunks of 16 words at random places (xorshift, fixed seed) written by thread 1, then read
   by thread 2 in another order: one raw, counted 20000 times, 20000 addresses, a second launch
   the same. An address entered twice, or a lookup that stopped short of its entry, would count
   fewer raws and more addresses. The table grows as they come (32768 slots, then 65536 once 16384
   addresses are in: every entry moved to its place in the larger table) and keeps its size for the
   second launch. */
Test(deps, every_address_is_found_again_across_collisions) {
  enum { CHUNKS = 1250, N = CHUNKS * 16 };
  static uint64_t addr[N];
  uint64_t x = 88172645463325252u;
  for (int c = 0; c < CHUNKS; c++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    for (int w = 0; w < 16; w++) addr[c * 16 + w] = (x & 0xffffffffc0u) + 4u * (unsigned)w;
  }
  cgp_deps *d = cgp_deps_new(N);               /* up to 65536 slots: chunks collide */
  for (int launch = 0; launch < 2; launch++) {
    for (int i = 0; i < N; i++) cgp_deps_access(d, addr[i], 1, 0, 1);
    for (int i = 0; i < N; i++) cgp_deps_access(d, addr[(size_t)i * 7919 % N], 2, 1, 0);
    size_t n;
    const cgp_dep *f = cgp_deps_found(d, &n);
    cr_assert_eq(n, 1, "launch %d", launch);
    cr_expect_eq(f[0].kind, CGP_DEP_RAW);
    cr_expect_eq(f[0].count, N);
    cr_expect_eq(cgp_deps_addresses(d), N);
    cr_expect(!cgp_deps_partial(d));
    cgp_deps_reset(d);
  }
  cgp_deps_free(d);
}

/* The check behind the analyzer interface (cgp_kernel_analyses): a warp whose 32 lanes store to
   one address is a write-after-write between threads 0 and 1 (site 2, twice); a constant load by
   32 lanes is checked by its first two only, an atomic not at all; and past deps_max_checked lane
   accesses the launch's check is partial. Counted: 32 (store) + 2 (constant load) = 34 of a cap
   of 40, not partial; a second store of 32 lanes passes the cap: partial. A new launch starts over. */
Test(deps, the_check_as_an_analysis_bounds_the_lanes_it_checks) {
  cgp_analysis_cfg cfg = {.nsid = 4, .sid_kind = kinds, .dims = 1, .deps_max_addresses = 64, .deps_max_checked = 40};
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_kernel_analyses);
  cr_assert_not_null(s);
  uint64_t same[32] = {0};
  for (unsigned l = 0; l < 32; l++) same[l] = 0x4000;
  cgp_analysis_begin_launch(s);
  cgp_warp_mem st = mem(2, same, 32, 0), ld = mem(0, same, 32, 0), at = mem(3, same, 32, 0);
  cgp_analysis_warp_mem(s, &st);
  cgp_analysis_warp_mem(s, &ld);
  cgp_analysis_warp_mem(s, &at);
  size_t n;
  const cgp_dep *f = cgp_deps_found(cgp_analysis_deps(s), &n);
  cr_assert_geq(n, 1);
  cr_assert_eq(f[0].kind, CGP_DEP_WAW);
  cr_assert_eq(f[0].first_sid, 2);
  cr_assert(!cgp_deps_partial(cgp_analysis_deps(s)), "34 of 40 lane accesses");
  cgp_analysis_warp_mem(s, &st);
  cr_assert(cgp_deps_partial(cgp_analysis_deps(s)), "66: past the cap");
  cgp_analysis_begin_launch(s);
  cgp_deps_found(cgp_analysis_deps(s), &n);
  cr_assert_eq(n, 0);
  cr_assert(!cgp_deps_partial(cgp_analysis_deps(s)));
  cr_assert_null(cgp_analysis_deps(NULL));
  cgp_analysis_set_free(s);
}

Test(deps, thread_keys_order_like_the_sequential_nest) {
  uint64_t xyz[3];
  cr_assert_lt(cgp_thread_key(2, 31, 0, 0), cgp_thread_key(2, 0, 1, 0));
  cr_assert_lt(cgp_thread_key(3, 5, 9, 0), cgp_thread_key(3, 0, 0, 1));
  cgp_thread_unkey(3, cgp_thread_key(3, 7, 8, 9), xyz);
  cr_assert(xyz[0] == 7 && xyz[1] == 8 && xyz[2] == 9);
}

/* The din export replays through a brute-force LRU to the cache analysis's own miss count. */
Test(stream, din_export_replays_to_the_same_misses) {
  cgp_analysis_cfg cfg = base_cfg();
  char path[] = "/tmp/cgp-din-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  cfg.din = fdopen(fd, "w+");
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  srand(11);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  for (int i = 0; i < 3000; i++) {
    uint64_t addr[32];
    uint64_t base = (uint64_t)(rand() % 400) * 32;
    for (unsigned l = 0; l < 32; l++) addr[l] = base + 4 * l * (unsigned)(1 + rand() % 2);
    cgp_warp_mem m = mem((unsigned)(rand() % 3), addr, 32, 0);
    cgp_analysis_warp_mem(s, &m);
  }
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  double misses = t.st_dram, trans = t.st_trans;
  for (int c = 0; c < CGP_NCLASS; c++) { misses += t.ld_dram[c]; trans += t.ld_trans[c]; }
  rewind(cfg.din);
  cgp_l2_ref *ref = cgp_l2_ref_new(4096, 32, 0, CGP_L2_FULLY_ASSOCIATIVE);
  int label;
  unsigned long long a;
  uint64_t n = 0, refmiss = 0;
  while (fscanf(cfg.din, "%d %llx", &label, &a) == 2) {
    cr_assert(label == 0 || label == 1);
    n++;
    refmiss += cgp_l2_ref_access(ref, a / 32) == 0;
  }
  cr_assert_eq(n, (uint64_t)trans);
  cr_assert_eq(refmiss, (uint64_t)misses);
  cgp_l2_ref_free(ref);
  fclose(cfg.din);
  unlink(path);
  cgp_analysis_set_free(s);
}

/* Warps 0..3 of one SM load the 32 floats at a, in that order. */
static void four_warps_load(cgp_analysis_set *s, const uint64_t a[32]) {
  for (unsigned w = 0; w < 4; w++) {
    cgp_warp_mem m = mem(0, a, 32, 0);
    m.warp = w;
    cgp_analysis_warp_mem(s, &m);
  }
}

/* MSHR merge: 4 warps on one SM load the same row in one round; the first misses, the other
   three find it in the L1 but still in flight: no L1 hit, no L2 traffic. The next round all
   four hit. */
Test(stream, l1_hit_on_a_fill_in_flight_waits_for_it) {
  cgp_analysis_cfg cfg = one_sm_l1_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  uint64_t a[32];
  row(0x8000, a);
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_batch(s, 1, 4, 1);
  for (int round = 0; round < 2; round++) four_warps_load(s, a);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.l1_trans[CGP_CLASS_COAL], 8 * 4);
  cr_assert_eq(t.l1_hit[CGP_CLASS_COAL], 4 * 4, "only the second round hits");
  cr_assert_eq(t.ld_trans[CGP_CLASS_COAL], 4, "the merged lookups send nothing to the L2");
  cr_assert_eq(t.ld_dram[CGP_CLASS_COAL], 4, "the first warp's 4 sectors come from DRAM");
  cr_assert_eq(t.ld_merged_dram[CGP_CLASS_COAL], 3 * 4, "the three merged warps wait for those fills");
  cgp_analysis_set_free(s);
}

/* The same merge, but the row is in the L2 (a first launch read it; the L1 is flushed when the
   next launch begins): the first warp's fills are L2 hits, so the merged lookups wait no DRAM. */
Test(stream, a_lookup_merged_with_an_l2_hit_waits_no_dram) {
  cgp_analysis_cfg cfg = one_sm_l1_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  uint64_t a[32];
  row(0x8000, a);
  for (int launch = 0; launch < 2; launch++) {
    cgp_analysis_begin_launch(s);
    cgp_analysis_begin_batch(s, launch == 1, 4, 1);
    four_warps_load(s, a);
  }
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.ld_trans[CGP_CLASS_COAL], 4);
  cr_assert_eq(t.ld_dram[CGP_CLASS_COAL], 0, "the row stayed in the L2");
  cr_assert_eq(t.l1_hit[CGP_CLASS_COAL], 0, "all merged or missed");
  cr_assert_eq(t.ld_merged_dram[CGP_CLASS_COAL], 0);
  cgp_analysis_set_free(s);
}

/* A load is an L1 hit only as a whole: row 0x9000 (4 sectors) is loaded, then row 0x9004,
   which touches the same 4 sectors hit and 0x9080, a miss: its 5 lookups are no hits, and one
   sector goes to the L2. Then row 0x9004 again: 5 hits. One SM, one warp: nothing in flight. */
Test(stream, an_instruction_with_one_l1_miss_is_not_a_hit) {
  cgp_analysis_cfg cfg = one_sm_l1_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  uint64_t a[32], b[32];
  row(0x9000, a);
  row(0x9004, b);
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  cgp_warp_mem m = mem(0, a, 32, 0);
  cgp_analysis_warp_mem(s, &m);            /* 4 lookups, 4 misses, 4 L2 sectors */
  m = mem(0, b, 32, 0);
  cgp_analysis_warp_mem(s, &m);            /* 5 lookups, 4 hit, 1 miss: not a hit */
  cgp_analysis_warp_mem(s, &m);            /* 5 lookups, 5 hits */
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.l1_trans[CGP_CLASS_COAL], 4 + 5 + 5);
  cr_assert_eq(t.l1_hit[CGP_CLASS_COAL], 5, "only the last load hits, with all its 5 sectors");
  cr_assert_eq(t.ld_trans[CGP_CLASS_COAL], 4 + 1, "only the missing sector goes to the L2");
  cr_assert_eq(site[0].l1_hit, 5);
  cgp_analysis_set_free(s);
}

/* A warp of misaligned 256-byte elements on a device with 4-byte units: each lane would touch 65
   units; the analysis caps an element at 7 units (docs/model.md, section 3) instead of
   overrunning its buffers (the first version overflowed the heap in cgp_lines). */
Test(stream, huge_misaligned_elements_stay_in_bounds) {
  cgp_analysis_cfg cfg = base_cfg();
  cfg.l2_unit_bytes = 4;
  cfg.l2_line_bytes = 4;
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cr_assert_not_null(s);
  uint64_t addr[32];
  for (unsigned l = 0; l < 32; l++) addr[l] = 0x1003 + 256 * l;
  cgp_warp_mem m = mem(0, addr, 32, 0);
  m.size = 256;
  cgp_analysis_begin_batch(s, 1, 1, 1);
  cgp_analysis_warp_mem(s, &m);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.ld_trans[m.cls], 32 * 8, "7 units of 4 bytes from a misaligned start touch 8");
  cgp_analysis_set_free(s);
}

/* The wavefronts of a load without L1 are derived from its L2 sectors (coarser()); they must be
   the distinct 128-byte lines of its lanes' bytes, counted lane by lane here, whatever the lanes'
   order, alignment and element size (up to 7 sectors; wider elements take the lane path, and
   units() cuts an element at 7 units of the size it counts). */
Test(stream, wavefronts_from_sectors_equal_the_lines_of_every_lane) {
  cgp_analysis_cfg cfg = base_cfg();
  uint64_t seed = 7;
  for (int rep = 0; rep < 400; rep++) {
    cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
    uint64_t addr[32], lines[32 * 8];
    unsigned n = 1 + rep % 32, elem = 1u << (rep % 9), nl = 0;    /* 1 to 256 bytes */
    for (unsigned l = 0; l < n; l++) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      addr[l] = rep % 3 == 0 ? 0x10000 + 4 * l : 0x10000 + (seed >> 33) % 4096;   /* rows, scatter */
      uint64_t last = addr[l] + (elem < 7 * 128 ? elem : 7 * 128) - 1;
      for (uint64_t x = addr[l] / 128; x <= last / 128; x++) {
        unsigned j = 0;
        while (j < nl && lines[j] != x) j++;
        if (j == nl) lines[nl++] = x;
      }
    }
    cgp_analysis_begin_batch(s, 1, 1, 1);
    cgp_warp_mem m = mem(0, addr, n, 0);
    m.size = elem;
    cgp_analysis_warp_mem(s, &m);
    cgp_totals t = {0};
    cgp_site_totals site[4] = {0};
    cgp_analysis_results(s, &t, site);
    cr_assert_eq(t.lsu_wavefronts, nl, "warp %d: %u lanes of %u bytes", rep, n, elem);
    cgp_analysis_set_free(s);
  }
}

/* LSU wavefronts: one per distinct 128-byte line an instruction touches: a coalesced row of 32
   floats is 1, a column (lanes 512 bytes apart) 32, a broadcast 1. */
Test(stream, wavefronts_count_distinct_l1_lines) {
  cgp_analysis_cfg cfg = base_cfg();
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  uint64_t rowa[32], col[32], one[32];
  row(0x10000, rowa);
  for (unsigned l = 0; l < 32; l++) { col[l] = 0x40000 + 512 * l; one[l] = 0x9000; }
  cgp_analysis_begin_batch(s, 1, 1, 1);
  cgp_warp_mem a = mem(0, rowa, 32, 0), b = mem(1, col, 32, 0), c = mem(0, one, 32, 0);
  cgp_analysis_warp_mem(s, &a);
  cgp_analysis_warp_mem(s, &b);
  cgp_analysis_warp_mem(s, &c);
  cgp_totals t = {0};
  cgp_site_totals site[4] = {0};
  cgp_analysis_results(s, &t, site);
  cr_assert_eq(t.lsu_wavefronts, 1 + 32 + 1);
  cgp_analysis_set_free(s);
}
