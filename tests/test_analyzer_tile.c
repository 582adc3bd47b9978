/* test_analyzer_tile.c: the tiler (analyzer/cgp_tile.c, docs/model.md section 8b) on a hand-built
   stream: one 32x32 block of the tiled GEMM of the README (A[i][k], B[k][j]; N = 64 floats a row),
   one tile iteration, warps issuing round robin as the runtime does. */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_analyzer.h"

#define N 64
#define A0 0x100000u
#define B0 0x200000u

typedef struct {
  unsigned n;
  cgp_warp_mem ev[4096];
  uint64_t addr[4096][32];
} sink;

static void collect(void *ctx, const cgp_warp_mem *m) {
  sink *s = ctx;
  cr_assert_lt(s->n, 4096);
  s->ev[s->n] = *m;
  memcpy(s->addr[s->n], m->addr, m->nact * sizeof *m->addr);
  s->ev[s->n].addr = s->addr[s->n];
  s->n++;
}

static const int32_t footprint[2] = {0, 1};

static cgp_analysis_cfg gemm_cfg(unsigned vector_bytes, unsigned pad) {
  static uint8_t kind[2] = {CGP_LOAD, CGP_LOAD}, pads[2];
  pads[0] = pads[1] = (uint8_t)pad;
  return (cgp_analysis_cfg){.nsid = 2, .sid_kind = kind, .dims = 2, .tile = 32, .tile_header = 1,
                            .block = {32, 32, 1}, .sid_footprint = footprint, .sid_pad = pads,
                            .smem_vector_bytes = vector_bytes};
}

/* A bx x by block (0,0) of the tiled GEMM: lane l of warp w is thread t = 32 w + l, at tx = t % bx,
   ty = t / bx. Iterations u = 0 .. tile - 1 of the tile kk = 0: A[ty][u] and B[u][tx]; then every
   warp runs the tile header again. */
static void feed_block(cgp_tile *t, sink *s, unsigned bx, unsigned by, unsigned tile) {
  uint64_t keys[32], a[32];
  uint8_t lane[32];
  for (unsigned u = 0; u < tile; u++)
    for (unsigned w = 0; w < bx * by / 32; w++)
      for (unsigned sid = 0; sid < 2; sid++) {
        for (unsigned l = 0; l < 32; l++) {
          unsigned tx = (32 * w + l) % bx, ty = (32 * w + l) / bx;
          keys[l] = cgp_thread_key(2, tx, ty, 0);
          lane[l] = (uint8_t)l;
          a[l] = sid == 0 ? A0 + (ty * N + u) * 4 : B0 + (u * N + tx) * 4;
        }
        cgp_warp_mem m = {.sid = sid, .kind = CGP_LOAD, .nact = 32, .warp_threads = 32, .size = 4, .addr = a,
                          .lane = lane, .thread = keys, .warp = w};
        m.affine = (uint8_t)cgp_affine(a, 32);
        m.cls = (uint8_t)cgp_classify_known(a, 32, 4, m.affine);
        cgp_tile_mem(t, &m, collect, s);
      }
  for (unsigned w = 0; w < bx * by / 32; w++) cgp_tile_header(t, w, collect, s);
}

/* The README's 32 x 32 block: warp w holds row ty = w, tx = lane. */
static void feed(cgp_tile *t, sink *s) { feed_block(t, s, 32, 32, 32); }

static unsigned count(const sink *s, uint32_t sid, int space, int kind, unsigned size) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->n; i++)
    n += s->ev[i].sid == sid && s->ev[i].space == space && s->ev[i].kind == kind && s->ev[i].size == size;
  return n;
}

Test(tile, gemm_footprints_are_32x32_rows_of_a_and_b) {
  cgp_analysis_cfg cfg = gemm_cfg(16, 0);
  cgp_tile *t = cgp_tile_new(&cfg);
  cr_assert_not_null(t);
  cgp_tile_begin_batch(t, 1, 32);
  static sink s;
  s.n = 0;
  feed(t, &s);
  /* two 32x32 float footprints: 4096 bytes each */
  cr_expect_eq(cgp_tile_smem_bytes(t), 8192);
  cr_expect_eq(cgp_tile_flags(t), 0);
  /* the copy: F = 1024 elements over 1024 threads, one global load and one shared store a warp
     and footprint; warp w loads row w of A's tile (A[w][0..31]) and row w of B's (B[w][0..31]) */
  cr_expect_eq(count(&s, 0, CGP_SPACE_GLOBAL, CGP_LOAD, 4), 32);
  cr_expect_eq(count(&s, 1, CGP_SPACE_GLOBAL, CGP_LOAD, 4), 32);
  cr_expect_eq(count(&s, UINT32_MAX, CGP_SPACE_SHARED, CGP_STORE, 4), 64);
  unsigned checked = 0;
  for (unsigned i = 0; i < s.n; i++) {
    const cgp_warp_mem *m = &s.ev[i];
    if (m->space != CGP_SPACE_GLOBAL) continue;
    cr_expect_eq(m->nact, 32);
    cr_expect_eq(m->cls, CGP_CLASS_COAL);
    uint64_t base = m->sid == 0 ? A0 : B0;
    for (unsigned l = 0; l < 32; l++) cr_expect_eq(m->addr[l], base + (m->warp * N + l) * 4);
    checked++;
  }
  cr_expect_eq(checked, 64);
  /* A[ty][k] read along k, rows 16-byte aligned: one 16-byte load per 4 iterations, every lane one
     address (broadcast); B[k][tx]: 32 loads of 4 bytes, lane l at word 32 u + l of B's tile. The
     first iteration's reads of A came before the step along k was known: counted apart
     (cgp_tile_results), as one instruction each: 8 loads a warp in all. */
  unsigned a16 = count(&s, 0, CGP_SPACE_SHARED, CGP_LOAD, 16), b4 = count(&s, 1, CGP_SPACE_SHARED, CGP_LOAD, 4);
  cr_expect_eq(a16, 32 * 7, "A: %u", a16);
  cr_expect_eq(b4 + 0, 32 * 31, "B: %u", b4);   /* u = 0 of B before the warps told its rows */
  for (unsigned i = 0; i < s.n; i++) {
    const cgp_warp_mem *m = &s.ev[i];
    if (m->space != CGP_SPACE_SHARED || m->kind != CGP_LOAD) continue;
    if (m->sid == 0) {
      for (unsigned l = 1; l < 32; l++) cr_expect_eq(m->addr[l], m->addr[0]);
      cr_expect_eq(m->addr[0] % 16, 0);
    } else {
      for (unsigned l = 1; l < 32; l++) cr_expect_eq(m->addr[l], m->addr[0] + 4 * l);
    }
  }
  cgp_totals tot = {0};
  cgp_site_totals sites[2];
  memset(sites, 0, sizeof sites);
  sites[0].smem_insts = 1;                             /* measured so far: one read of degree 2 */
  sites[0].bank_degree_sum = 2;
  cgp_tile_results(t, &tot, sites);
  cr_expect_float_eq(tot.sync_insts, 64, 1e-9);        /* two barriers a warp */
  cr_expect_float_eq(tot.tile_load_insts, 64, 1e-9);
  /* deferred: A's 32 first reads (u = 0) and B's 32 at the site's mean degree */
  cr_expect_float_eq(sites[0].smem_insts, 1 + 32, 1e-9);
  cr_expect_float_eq(sites[0].bank_degree_sum, 2 + 2 * 32, 1e-9);
  cgp_tile_free(t);
}

Test(tile, without_vector_loads_or_with_padding_a_is_read_a_float_at_a_time) {
  for (unsigned pad = 0; pad < 2; pad++) {
    cgp_analysis_cfg cfg = gemm_cfg(pad ? 16 : 0, pad);
    cgp_tile *t = cgp_tile_new(&cfg);
    cgp_tile_begin_batch(t, 1, 32);
    static sink s;
    s.n = 0;
    feed(t, &s);
    cr_expect_eq(count(&s, 0, CGP_SPACE_SHARED, CGP_LOAD, 16), 0);
    cr_expect_eq(count(&s, 0, CGP_SPACE_SHARED, CGP_LOAD, 4), 32 * 31);
    /* a padded row is 33 floats: 2 x 33 x 32 x 4 bytes */
    cr_expect_eq(cgp_tile_smem_bytes(t), pad ? 2 * 33 * 32 * 4 : 8192);
    cgp_tile_free(t);
  }
}

Test(tile, no_tile_no_tiler) {
  cgp_analysis_cfg cfg = gemm_cfg(16, 0);
  cfg.tile = 0;
  cr_expect_null(cgp_tile_new(&cfg));
  cfg = gemm_cfg(16, 0);
  cfg.tile_header = -1;
  cr_expect_null(cgp_tile_new(&cfg));
}

/* The what-if tiling of an untiled kernel (docs/model.md 8c) cuts its loop every 32 iterations. A
   loop of 18 iterations ends inside a tile (CGP_TILE_PARTIAL): from then on the what-if stands for
   no tiled code, for the rest of the kernel, and is fed nothing more; a loop of 32 keeps it fed.
   One warp of 32 threads, thread x reading row x of A along the loop (bid 1 its header, bid 2 its
   body, bid 0 after it), entered twice: `first` iterations, then 32. */
static const uint8_t wi_kind[1] = {CGP_LOAD}, wi_in_loop[3] = {0, 1, 1};
static const int32_t wi_footprint[1] = {0};
static const double wi_ptx[3] = {3, 2, 4};

static void whatif_loop(cgp_analysis_set *s, unsigned iterations, unsigned entry) {
  uint64_t a[32], keys[32];
  uint8_t lane[32];
  for (unsigned u = 0; u < iterations; u++) {
    cgp_block_exec head = {.bid = 1, .nact = 32, .warp_threads = 32}, body = head;
    body.bid = 2;
    cgp_analysis_block_exec(s, &head);
    for (unsigned l = 0; l < 32; l++) {
      keys[l] = cgp_thread_key(1, l, 0, 0);
      lane[l] = (uint8_t)l;
      a[l] = A0 + ((uint64_t)l * N * 4 + entry * 32 + u) * 4;
    }
    cgp_warp_mem m = {.sid = 0, .kind = CGP_LOAD, .nact = 32, .warp_threads = 32, .size = 4, .addr = a,
                      .lane = lane, .thread = keys};
    m.affine = (uint8_t)cgp_affine(a, 32);
    m.cls = (uint8_t)cgp_classify_known(a, 32, 4, m.affine);
    cgp_analysis_warp_mem(s, &m);
    cgp_analysis_block_exec(s, &body);
  }
  cgp_block_exec after = {.bid = 0, .nact = 32, .warp_threads = 32};
  cgp_analysis_block_exec(s, &after);
}

/* The what-if's totals after a first entry of `first` iterations and, if `again`, a second of 32. */
static cgp_totals whatif_after(unsigned first, int again, unsigned *flags) {
  cgp_analysis_cfg wi = {.nsid = 1, .nbid = 3, .sid_kind = wi_kind, .bid_total = wi_ptx, .bid_core = wi_ptx,
                         .no_sm = 1, .l2_bytes = 1 << 16, .l2_line_bytes = 128, .l2_unit_bytes = 32,
                         .l2_index = CGP_L2_FULLY_ASSOCIATIVE, .dims = 1, .block = {32, 1, 1},
                         .smem_banks = 32, .smem_bank_bytes = 4},
                    cfg = wi;
  wi.tile = 32;
  wi.tile_header = 1;
  wi.tile_virtual = 1;
  wi.sid_footprint = wi_footprint;
  wi.bid_in_tile_loop = wi_in_loop;
  cfg.whatif = &wi;
  cgp_analysis_set *s = cgp_analysis_set_new(&cfg, cgp_analyses);
  cr_assert_not_null(s);
  cr_assert_not_null(cgp_analysis_whatif(s));
  cgp_analysis_begin_launch(s);
  cgp_analysis_begin_batch(s, 1, 1, 1);
  whatif_loop(s, first, 0);
  if (again) whatif_loop(s, 32, 1);
  cgp_analysis_end_warp(s, 0);
  cgp_analysis_end_batch(s);
  cgp_totals t;
  memset(&t, 0, sizeof t);
  cgp_analysis_whatif_results(s, &t);
  *flags = cgp_tile_flags(cgp_analysis_tiler(cgp_analysis_whatif(s)));
  cgp_analysis_set_free(s);
  return t;
}

Test(tile, a_whatif_whose_loop_ends_inside_a_tile_is_fed_no_more) {
  unsigned f1, f2, f3, f4;
  cgp_totals once = whatif_after(18, 0, &f1), twice = whatif_after(18, 1, &f2);
  cr_expect(f1 & CGP_TILE_PARTIAL);
  cr_expect(f2 & CGP_TILE_PARTIAL);
  cr_expect_gt(once.total_insts, 0);
  /* the second entry, after the what-if stopped standing for tiled code, changed nothing */
  cr_expect_eq(twice.total_insts, once.total_insts);
  cr_expect_eq(twice.sync_insts, once.sync_insts);
  cr_expect_eq(twice.tile_load_insts, once.tile_load_insts);
  for (int c = 0; c < CGP_NCLASS; c++) {
    cr_expect_eq(twice.smem_insts[c], once.smem_insts[c]);
    cr_expect_eq(twice.ld_insts[c], once.ld_insts[c]);
  }
  /* a whole tile: the what-if goes on, the second entry's tile counted (two barriers a tile) */
  cgp_totals whole = whatif_after(32, 0, &f3), whole_twice = whatif_after(32, 1, &f4);
  cr_expect_eq(f3 & CGP_TILE_PARTIAL, 0);
  cr_expect_eq(f4 & CGP_TILE_PARTIAL, 0);
  cr_expect_eq(whole.sync_insts, 2);
  cr_expect_eq(whole_twice.sync_insts, 4);
  cr_expect_gt(whole_twice.total_insts, whole.total_insts);
}

/* A block of 8 x 8 threads and tiles of 8 (GEMM's A[ty][k] and B[k][tx]): a footprint row is 8
   elements, so each warp's share of the copy (elements 32 w .. 32 w + 31) crosses a row every 8
   lanes. Every lane's global and shared address by hand, with a pad of 1 (rows of 9 floats in
   shared memory), and each event's affine flag and class those of its addresses. */
Test(tile, a_copy_whose_rows_are_shorter_than_a_warp_gives_each_lane_its_row_and_column) {
  cgp_analysis_cfg cfg = gemm_cfg(0, 1);
  cfg.tile = 8;
  cfg.block[0] = cfg.block[1] = 8;
  cgp_tile *t = cgp_tile_new(&cfg);
  cr_assert_not_null(t);
  cgp_tile_begin_batch(t, 1, 2);
  static sink s;
  s.n = 0;
  feed_block(t, &s, 8, 8, 8);
  cr_expect_eq(cgp_tile_smem_bytes(t), 2 * 8 * 9 * 4);
  unsigned loads = 0, stores = 0;
  for (unsigned i = 0; i < s.n; i++) {
    const cgp_warp_mem *m = &s.ev[i];
    cr_expect_eq(m->affine, cgp_affine(m->addr, m->nact), "event %u", i);
    cr_expect_eq(m->cls, cgp_classify(m->addr, m->nact, m->size), "event %u", i);
    if (m->kind == CGP_LOAD && m->space == CGP_SPACE_GLOBAL) {
      cr_expect_eq(m->nact, 32);
      for (unsigned l = 0; l < 32; l++) {
        unsigned p = 32 * m->warp + l, lo = p % 8, hi = p / 8;     /* k, ty of A; tx, k of B */
        uint64_t want = m->sid == 0 ? A0 + (hi * N + lo) * 4 : B0 + (hi * N + lo) * 4;
        cr_expect_eq(m->addr[l], want, "sid %u warp %u lane %u", m->sid, m->warp, l);
      }
      loads++;
    } else if (m->kind == CGP_STORE && m->space == CGP_SPACE_SHARED) {
      /* the store after each load, to the same elements' padded places: A's copy at 0, B's after
         A's 8 rows of 9 floats (288 bytes), at the next 128-byte boundary */
      const cgp_warp_mem *g = &s.ev[i - 1];
      cr_assert(g->kind == CGP_LOAD && g->space == CGP_SPACE_GLOBAL);
      uint64_t off = g->sid == 0 ? 0 : 384;
      for (unsigned l = 0; l < 32; l++) {
        unsigned p = 32 * m->warp + l;
        cr_expect_eq(m->addr[l], off + ((p / 8) * 9 + p % 8) * 4, "sid %u warp %u lane %u", g->sid, m->warp, l);
      }
      stores++;
    }
  }
  cr_expect_eq(loads, 4);      /* 64 elements a footprint over 64 threads: one load a warp each */
  cr_expect_eq(stores, 4);
  cgp_tile_free(t);
}
