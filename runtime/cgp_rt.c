/* cgp_rt.c: the hooks. Pseudo-threads arrive in the sequential program's order, which is
   lexicographic in (z, y, x); this file turns them into warps and blocks and decides what to trace.

   Sampling (docs/model.md, "Sampling"): a launch traces windows of W consecutive blocks (block
   ids [0, W), [2W, 3W), [4W, 5W), [8W, 9W) ...), W = 2 batches of the device with the most
   resident blocks; each window stands for the blocks up to the next one. Launches 0, 1, 2, 4,
   8 ... of a kernel are analysed, each standing for the launches up to the next one.
   CGPREDICT_SAMPLE=full traces every block of every launch.

   Invariants that make streaming possible:
   - a warp is complete once its last lane has finished or the program has moved past the
     warp's last row; it is then folded into warp memory instructions and its raw trace freed;
   - a window is complete once the program has moved past the last cell of its last block,
     because blocks finish in block-id order in a lexicographic sweep. */
#include "cgp_rt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rt_global cgp_rt_g;
int cgp_rt_tracing;          /* read by the pass's inlined guards: nonzero while a lane is traced */

#define RT_MAX_HOISTED 64
#define ROW(y, z) ((int64_t)(((uint64_t)(z) << 32) | (uint32_t)(y)))
#define NEVER INT64_MAX

static struct {
  rt_kernel *k;
  int active, sampled;
  unsigned bx, by, bz, tpb;
  uint64_t W;
  int64_t maxx, maxy, maxz, cur_row;
  uint64_t gdx, gdy;
  int gdx_known, gdy_known;
  rt_lane *lane;
  rt_pending *lane_warp;
  unsigned lane_tid;
  rt_pending *pend;
  size_t npend;
  rt_window *win;
  size_t nwin;
  rt_wstat (*wstat)[RT_MAX_DEVICES];      /* per window index k */
  rt_access hoist[RT_MAX_HOISTED];        /* cgp_rt_hoisted: prepended to every traced thread */
  unsigned nhoist;
  unsigned nwstat;
  uint64_t threads;
} L;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("cgpredict: out of memory while tracing\n", stderr);
    abort();
  }
  return q;
}

/* ---- folding a warp ---------------------------------------------------------------------------- */

static void warp_add_inst(rt_warp *w, const rt_kernel *k, uint32_t sid, const uint64_t *addr, unsigned n) {
  unsigned size = k->mem_size[sid];
  if (w->n == w->cap) w->inst = xrealloc(w->inst, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->inst);
  if (w->nl + 2 * n > w->capl) {
    while (w->nl + 2 * n > w->capl) w->capl = w->capl ? 2 * w->capl : 256;
    w->lines = xrealloc(w->lines, w->capl * sizeof *w->lines);
  }
  cgp_winst *in = &w->inst[w->n++];
  in->sid = sid;
  in->cls = (uint8_t)cgp_classify(addr, n, size);
  in->is_store = k->mem_store[sid];
  in->nlines = (uint16_t)cgp_lines(addr, n, size, cgp_rt_g.line0, w->lines + w->nl);
  w->nl += in->nlines;
}

/* Pair the k-th access of every lane; lanes whose k-th access has another static id form
   another warp instruction (divergence: an extra issue). */
static rt_warp *fold(rt_kernel *k, rt_pending *p) {
  rt_warp *w = calloc(1, sizeof *w);
  size_t maxn = 0, minn = SIZE_MAX;
  unsigned act[RT_WARP], na = 0;
  for (unsigned l = 0; l < RT_WARP; l++)
    if (p->lane[l].active) {
      act[na++] = l;
      if (p->lane[l].n > maxn) maxn = p->lane[l].n;
      if (p->lane[l].n < minn) minn = p->lane[l].n;
    }
  int divergent = na && minn != maxn;
  uint64_t addr[RT_WARP];
  unsigned char taken[RT_WARP];
  for (size_t i = 0; i < maxn; i++) {
    memset(taken, 0, sizeof taken);
    unsigned groups = 0;
    for (unsigned a = 0; a < na; a++) {
      const rt_lane *la = &p->lane[act[a]];
      if (taken[a] || la->n <= i) continue;
      uint32_t sid = RT_SID(la->acc[i]);
      unsigned n = 0;
      for (unsigned b = a; b < na; b++) {
        const rt_lane *lb = &p->lane[act[b]];
        if (!taken[b] && lb->n > i && RT_SID(lb->acc[i]) == sid) { taken[b] = 1; addr[n++] = RT_ADDR(lb->acc[i]); }
      }
      warp_add_inst(w, k, sid, addr, n);
      groups++;
    }
    if (groups > 1) { divergent = 1; k->extra_issue += groups - 1; }
  }
  for (size_t b = 0; b < k->nbb; b++) {
    uint32_t most = 0;
    for (unsigned a = 0; a < na; a++)
      if (p->lane[act[a]].bbcnt[b] > most) most = p->lane[act[a]].bbcnt[b];
    w->total_insts += k->bb_total[b] * most;
    w->core_insts += k->bb_core[b] * most;
  }
  k->warps_folded++;
  k->divergent_warps += divergent;
  return w;
}

/* ---- windows --------------------------------------------------------------------------------- */

static rt_window *window_of(uint64_t id) {
  for (size_t i = 0; i < L.nwin; i++)
    if (id >= L.win[i].start && id - L.win[i].start < L.win[i].size) return &L.win[i];
  return NULL;
}

/* Index and start of the window holding block `id`, or -1. */
static int window_index(uint64_t id, uint64_t *start) {
  uint64_t W = L.W;
  if (id < W) { *start = 0; return 0; }
  unsigned k = 1;
  while (k < 63 && (W << (k + 1)) <= id) k++;
  *start = W << k;
  return id - *start < W ? (int)k : -1;
}

static void window_done_cell(rt_window *w) {
  uint64_t last = w->start + w->size - 1, bxl, byl = 0, bzl = 0;
  w->done_row = NEVER;
  if (cgp_rt_g.sample_mode == 2) return;                 /* one window: closes at kernel end */
  if (L.k->dims == 1) {
    bxl = last;
  } else {
    if (!L.gdx_known) return;                            /* known once the first row is done */
    bxl = last % L.gdx;
    byl = last / L.gdx;
    if (L.k->dims == 3) {
      if (!L.gdy_known) return;
      bzl = byl / L.gdy;
      byl %= L.gdy;
    }
  }
  w->done_row = ROW((byl + 1) * L.by - 1, (bzl + 1) * L.bz - 1);
  w->done_x = (int64_t)((bxl + 1) * L.bx - 1);
}

static rt_window *open_window(unsigned k, uint64_t start) {
  L.win = xrealloc(L.win, (L.nwin + 1) * sizeof *L.win);
  rt_window *w = &L.win[L.nwin++];
  memset(w, 0, sizeof *w);
  w->k = k;
  w->start = start;
  w->size = cgp_rt_g.sample_mode == 2 ? UINT64_MAX / 4 : L.W;
  window_done_cell(w);
  return w;
}

static void flush_pending_if(int (*pred)(const rt_pending *, const void *), const void *arg);

static int pending_in_window(const rt_pending *p, const void *arg) {
  const rt_window *w = arg;
  return p->block_id >= w->start && p->block_id - w->start < w->size;
}

static void close_window(size_t i) {
  rt_window *w = &L.win[i];
  flush_pending_if(pending_in_window, w);
  if (w->k >= L.nwstat) {
    unsigned n = w->k + 1;
    L.wstat = xrealloc(L.wstat, n * sizeof *L.wstat);
    memset(L.wstat + L.nwstat, 0, (n - L.nwstat) * sizeof *L.wstat);
    L.nwstat = n;
  }
  rt_window_analyze(L.k, w, L.tpb, L.wstat[w->k]);
  rt_window_release(w);
  L.win[i] = L.win[--L.nwin];
}

static void close_passed_windows(int64_t row, int64_t x) {
  for (size_t i = 0; i < L.nwin;) {
    rt_window *w = &L.win[i];
    if (row > w->done_row || (row == w->done_row && x > w->done_x)) close_window(i);
    else i++;
  }
}

/* ---- pending warps ----------------------------------------------------------------------------- */

static void add_to_block(uint64_t block_id, unsigned widx, rt_warp *w) {
  rt_window *win = window_of(block_id);
  if (!win) { rt_warp_free(w); return; }
  uint64_t b = block_id - win->start;
  rt_window_put(win, b, widx, w);
}

static void complete_warp(rt_pending *p) {
  rt_warp *w = fold(L.k, p);
  add_to_block(p->block_id, p->widx, w);
  for (unsigned l = 0; l < RT_WARP; l++) p->lane[l].active = 0;
  p->used = 0;
}

static void flush_pending_if(int (*pred)(const rt_pending *, const void *), const void *arg) {
  for (size_t i = 0; i < L.npend; i++)
    if (L.pend[i].used && (!pred || pred(&L.pend[i], arg))) complete_warp(&L.pend[i]);
}

static int pending_before_row(const rt_pending *p, const void *arg) {
  return p->last_row < *(const int64_t *)arg;
}

static rt_pending *pending_for(uint64_t block_id, unsigned widx, int64_t last_row) {
  rt_pending *free_slot = NULL;
  for (size_t i = 0; i < L.npend; i++) {
    rt_pending *p = &L.pend[i];
    if (p->used && p->block_id == block_id && p->widx == widx) return p;
    if (!p->used && !free_slot) free_slot = p;
  }
  if (!free_slot) {
    L.pend = xrealloc(L.pend, (L.npend + 1) * sizeof *L.pend);
    free_slot = &L.pend[L.npend++];
    memset(free_slot, 0, sizeof *free_slot);
  }
  free_slot->used = 1;
  free_slot->block_id = block_id;
  free_slot->widx = widx;
  free_slot->last_row = last_row;
  return free_slot;
}

/* ---- the hooks --------------------------------------------------------------------------------- */

static void finish_lane(void) {
  if (!L.lane) return;
  rt_pending *p = L.lane_warp;
  unsigned tid = L.lane_tid;
  cgp_rt_g.traced_accesses += L.lane->n;
  cgp_rt_g.traced_threads++;
  L.lane = NULL;
  cgp_rt_tracing = 0;
  L.lane_warp = NULL;
  if (tid % RT_WARP == RT_WARP - 1 || tid == L.tpb - 1) complete_warp(p);
}

static void on_row_change(int64_t row) {
  if (!L.gdx_known) {
    L.gdx = (uint64_t)(L.maxx + 1 + L.bx - 1) / L.bx;
    L.gdx_known = 1;
  }
  if (!L.gdy_known && (row >> 32) != (L.cur_row >> 32)) {
    L.gdy = (uint64_t)(L.maxy + 1 + L.by - 1) / L.by;
    L.gdy_known = 1;
  }
  for (size_t i = 0; i < L.nwin; i++) window_done_cell(&L.win[i]);
  flush_pending_if(pending_before_row, &row);
  L.cur_row = row;
}

static int32_t untraced(void) {
  return cgp_rt_g.sample_mode == 1 && L.k->can_skip ? CGP_RT_SKIP : CGP_RT_PLAIN;
}

static int block_id_of(int64_t x, int64_t y, int64_t z, uint64_t *id) {
  uint64_t bxi = (uint64_t)x / L.bx, byi = (uint64_t)y / L.by, bzi = (uint64_t)z / L.bz;
  if (byi == 0 && bzi == 0) { *id = bxi; return 1; }
  if (!L.gdx_known || (bzi && !L.gdy_known)) return 0;
  *id = bxi + L.gdx * (byi + (L.gdy_known ? L.gdy : 0) * bzi);
  return 1;
}

int32_t cgp_rt_thread(int64_t x, int64_t y, int64_t z) {
  if (!L.active) return CGP_RT_PLAIN;
  rt_kernel *k = L.k;
  if (k->step[0] > 1 || k->step[0] < -1) x /= k->step[0] < 0 ? -k->step[0] : k->step[0];
  if (k->step[1] > 1 || k->step[1] < -1) y /= k->step[1] < 0 ? -k->step[1] : k->step[1];
  if (k->step[2] > 1 || k->step[2] < -1) z /= k->step[2] < 0 ? -k->step[2] : k->step[2];
  finish_lane();
  L.threads++;
  if (x < 0 || y < 0 || z < 0) return CGP_RT_PLAIN;          /* no such CUDA thread */
  if (x > L.maxx) L.maxx = x;
  if (y > L.maxy) L.maxy = y;
  if (z > L.maxz) L.maxz = z;
  int64_t row = ROW(y, z);
  if (L.threads == 1) L.cur_row = row;          /* the sweep may start on any row (stencils: 1) */
  else if (row != L.cur_row) on_row_change(row);
  if (L.nwin) close_passed_windows(row, x);
  if (!L.sampled) return untraced();
  uint64_t id, start = 0;
  if (!block_id_of(x, y, z, &id)) return untraced();
  int wk = cgp_rt_g.sample_mode == 2 ? 0 : window_index(id, &start);
  if (wk < 0) return untraced();
  if (!window_of(id)) open_window((unsigned)wk, start);
  unsigned tid = (unsigned)(x % L.bx) + (unsigned)(y % L.by) * L.bx + (unsigned)(z % L.bz) * L.bx * L.by;
  unsigned widx = tid / RT_WARP, last = widx * RT_WARP + RT_WARP - 1;
  if (last >= L.tpb) last = L.tpb - 1;
  int64_t last_row = ROW(y - (int64_t)(y % L.by) + (last / L.bx) % L.by,
                         z - (int64_t)(z % L.bz) + last / (L.bx * L.by));
  rt_pending *p = pending_for(id, widx, last_row);
  rt_lane *ln = &p->lane[tid % RT_WARP];
  if (!ln->bbcnt) ln->bbcnt = xrealloc(NULL, (k->nbb ? k->nbb : 1) * sizeof *ln->bbcnt);
  memset(ln->bbcnt, 0, (k->nbb ? k->nbb : 1) * sizeof *ln->bbcnt);
  if (ln->cap < L.nhoist) ln->acc = xrealloc(ln->acc, (ln->cap = 256) * sizeof *ln->acc);
  if (L.nhoist) memcpy(ln->acc, L.hoist, L.nhoist * sizeof *ln->acc);
  ln->n = L.nhoist;
  ln->active = 1;
  L.lane = ln;
  cgp_rt_tracing = 1;
  L.lane_warp = p;
  L.lane_tid = tid;
  return CGP_RT_TRACE;
}

/* An access as the GPU would see it: every array shifted to start on a cudaMalloc boundary. */
static rt_access pack(uint32_t sid, const void *addr, const void *base) {
  uintptr_t shift = (uintptr_t)base % RT_ALLOC_ALIGN;
  return (uint64_t)sid << RT_ADDR_BITS | (((uint64_t)(uintptr_t)addr - shift) & RT_ADDR_MASK);
}

void cgp_rt_mem(uint32_t sid, const void *addr, const void *base) {
  rt_lane *ln = L.lane;
  if (!ln || sid >= RT_MAX_SIDS) return;
  if (ln->n == ln->cap) ln->acc = xrealloc(ln->acc, (ln->cap = ln->cap ? 2 * ln->cap : 256) * sizeof *ln->acc);
  ln->acc[ln->n++] = pack(sid, addr, base);
}

void cgp_rt_hoisted(uint32_t sid, const void *addr, const void *base) {
  if (!L.active || sid >= RT_MAX_SIDS) return;
  unsigned i = 0;
  while (i < L.nhoist && RT_SID(L.hoist[i]) != sid) i++;
  if (i == RT_MAX_HOISTED) return;
  if (i == L.nhoist) L.nhoist++;
  L.hoist[i] = pack(sid, addr, base);
}

void cgp_rt_bb(uint32_t bid) {
  if (L.lane) L.lane->bbcnt[bid]++;
}

/* ---- launches ---------------------------------------------------------------------------------- */

static int launch_sampled(uint64_t launch) {
  return cgp_rt_g.sample_mode == 2 || launch == 0 || (launch & (launch - 1)) == 0;
}

void cgp_rt_kernel_begin(const char *desc) {
  if (L.active) cgp_rt_kernel_end();          /* the previous nest was left without its exit */
  rt_report_install();
  rt_kernel *k = rt_kernel_for(desc);
  if (!k) return;
  memset(&L, 0, sizeof L);
  L.k = k;
  L.active = 1;
  L.sampled = launch_sampled(k->launches++);
  unsigned b[3];
  rt_resolve_block(k, b);
  L.bx = b[0]; L.by = b[1]; L.bz = b[2];
  L.tpb = L.bx * L.by * L.bz;
  L.maxx = L.maxy = L.maxz = -1;
  L.cur_row = 0;
  uint64_t most = 1;
  for (size_t d = 0; d < cgp_rt_g.ndev; d++) {
    uint64_t per_batch = (uint64_t)rt_active_blocks(&cgp_rt_g.dev[d], L.tpb) * cgp_rt_g.dev[d].no_sm;
    if (per_batch > most) most = per_batch;
  }
  L.W = 2 * most;                             /* one batch to warm the L2, one to measure */
}

/* Blocks of the grid that window k stands for: [s_k, s_{k+1}) clipped to the grid. */
static double region_blocks(unsigned k, uint64_t W, uint64_t G) {
  uint64_t s = k ? W << k : 0, e = W << (k + 1);
  if (s >= G) return 0;
  return (double)((e < G ? e : G) - s);
}

static void finish_launch(void) {
  rt_kernel *k = L.k;
  uint64_t gx = (uint64_t)(L.maxx + 1 + L.bx - 1) / L.bx, gy = (uint64_t)(L.maxy + 1 + L.by - 1) / L.by;
  uint64_t gz = (uint64_t)(L.maxz + 1 + L.bz - 1) / L.bz;
  if (L.maxx < 0) gx = gy = gz = 0;
  uint64_t G = gx * gy * gz;
  uint64_t grid[3] = {(uint64_t)(L.maxx + 1), (uint64_t)(L.maxy + 1), (uint64_t)(L.maxz + 1)};
  for (int d = 0; d < 3; d++)
    if (grid[d] > k->grid_max[d]) k->grid_max[d] = grid[d];
  if (!L.sampled || G == 0) return;
  rt_sample s = {.launch = k->launches - 1, .blocks = G, .threads = L.threads};
  memcpy(s.grid, grid, sizeof grid);
  unsigned wpb = (L.tpb + RT_WARP - 1) / RT_WARP;
  s.total_warps = G * wpb;
  for (size_t d = 0; d < cgp_rt_g.ndev; d++) {
    rt_wstat sum = {0};
    for (unsigned w = 0; w < L.nwstat; w++) {
      const rt_wstat *ws = &L.wstat[w][d];
      uint64_t end = ws->end < G ? ws->end : G;
      if (ws->blocks <= 0 || end <= ws->first_counted) continue;
      double scale = cgp_rt_g.sample_mode == 2 ? 1.0 : region_blocks(w, L.W, G) / (double)(end - ws->first_counted);
      sum.blocks += scale * ws->blocks;
      sum.warps += scale * ws->warps;
      sum.total_insts += scale * ws->total_insts;
      sum.core_insts += scale * ws->core_insts;
      for (int c = 0; c < CGP_NCLASS; c++) {
        sum.tot.insts[c] += scale * ws->tot.insts[c];
        sum.tot.trans[c] += scale * ws->tot.trans[c];
        sum.tot.dram[c] += scale * ws->tot.dram[c];
      }
      if (d == 0) s.traced_warps += ws->warps;
    }
    cgp_kernel_stats *st = &s.stats[d];
    memset(st, 0, sizeof *st);
    /* blocks and warps with at least one active thread: a CUDA block or warp whose threads all
       fail the index guard costs next to nothing */
    st->blocks = (uint64_t)(sum.blocks + 0.5);
    st->threads_per_block = L.tpb;
    st->total_warps = (uint64_t)(sum.warps + 0.5);
    for (int c = 0; c < CGP_NCLASS; c++) {
      st->smem_conflict[c] = 1;
      if (sum.warps <= 0) continue;
      st->insts[c] = sum.tot.insts[c] / sum.warps;
      st->trans_pw[c] = sum.tot.insts[c] > 0 ? sum.tot.trans[c] / sum.tot.insts[c] : 0;
      st->dram_pw[c] = sum.tot.insts[c] > 0 ? sum.tot.dram[c] / sum.tot.insts[c] : 0;
    }
    st->total_insts = sum.warps > 0 ? sum.total_insts / sum.warps : 0;
    st->core_insts = sum.warps > 0 ? sum.core_insts / sum.warps : 0;
  }
  rt_record_launch(k, &s);
}

void cgp_rt_kernel_end(void) {
  if (!L.active) return;
  finish_lane();
  flush_pending_if(NULL, NULL);
  while (L.nwin) close_window(0);
  finish_launch();
  for (size_t i = 0; i < L.npend; i++)
    for (unsigned l = 0; l < RT_WARP; l++) { free(L.pend[i].lane[l].acc); free(L.pend[i].lane[l].bbcnt); }
  free(L.pend);
  free(L.win);
  free(L.wstat);
  L.active = 0;
  L.pend = NULL;
  L.win = NULL;
  L.wstat = NULL;
}

int rt_in_kernel(void) { return L.active; }
const rt_kernel *rt_current_kernel(void) { return L.active ? L.k : NULL; }
