/* cgp_rt_sched.c: the warps whose lanes are still coming, and the windows their blocks fall in.
   The hooks (cgp_rt.c) hand it every traced lane's warp and the sweep's position; it completes the
   warps, opens and closes the windows and hands a window's batches to the analyses
   (cgp_rt_window.c) as soon as the sweep has passed them. Below the hooks: it never calls them.

   Sampling (docs/pipeline.md, "Sampling"): a launch traces, per device, windows of W consecutive
   blocks (block ids [0, W), [2W, 3W), [4W, 5W), [8W, 9W) ...), W = 2 of the device's batches, each
   standing for the blocks up to the next one (a stencil's window after the first also traces the
   rest of a row of blocks before it, to warm the caches: rt_warm_extension); a block is traced if
   it lies in some device's window, and each device analyses only its own windows. CGPREDICT_SAMPLE=full traces every block of every
   launch, window after window.

   Invariants that make streaming possible, in bounded memory:
   - a thread's accesses are recorded as runs keyed by program point (cgp_rt_lanes.h), not one by
     one; a warp is complete once its last lane has finished or the program has moved past the
     warp's last row; it is then grouped into a compact warp and its lanes' runs are reused;
   - a window is complete once the program has moved past the last cell of its last block,
     because blocks finish in block-id order in a lexicographic sweep; it is then analysed and
     freed;
   - past the memory budget (CGPREDICT_MEMORY_MB), no new thread of the launch is traced and the
     report says so. */
#include "cgp_rt_internal.h"

#include <stdlib.h>
#include <string.h>

static rt_launch *const L = &cgp_rt_g.launch;
static rt_session *const S = &cgp_rt_g.session;
#include "cgp_rt_cpu.h"          /* after L, which its inline functions work on */

#define NEVER INT64_MAX

/* ---- pending warps ----------------------------------------------------------------------------- */

void rt_lost_to_memory(void) {
  if (L->sampled) L->k->oom_lost++;
}

rt_window *rt_window_of(size_t d, uint64_t id) {
  for (size_t i = 0; i < L->nwin; i++)
    if (L->win[i].dev == d && id >= L->win[i].start && id - L->win[i].start < L->win[i].size) return &L->win[i];
  return NULL;
}

static int held(uint64_t id) {
  for (size_t i = 0; i < L->nwin; i++)
    if (id >= L->win[i].start && id - L->win[i].start < L->win[i].size) return 1;
  return 0;
}

void rt_complete_warp(rt_pending *p) {
  rt_window *win[RT_MAX_DEVICES];
  size_t nwin = 0;
  for (size_t d = 0; d < S->ndev; d++)
    if ((win[nwin] = rt_window_of(d, p->block_id))) nwin++;
  if (!nwin && p->flat) rt_flat_clear(L->k->shape, p->flat);
  if (nwin) {
    rt_wwarp *w = p->flat ? rt_wwarp_build_flat(L->k->shape, p->flat, p->lane, p->active, p->thread)
                          : rt_wwarp_build(L->k->shape, p->lane, p->active, p->thread);
    size_t bytes = w ? rt_wwarp_bytes(w) : 0, put = 0;
    for (size_t i = 1; w && i < nwin; i++) rt_wwarp_share(w);
    for (size_t i = 0; w && i < nwin; i++) {
      uint64_t b = p->block_id - win[i]->start;
      size_t before = b < win[i]->nblk && win[i]->nw ? win[i]->nw[b] : 0;
      rt_window_put(win[i], b, w);              /* (drops this holder if out of memory) */
      put += b < win[i]->nblk && win[i]->nw[b] == before + 1;
    }
    if (put) L->stored += bytes;
    if (put < nwin) rt_lost_to_memory();
  }
  for (unsigned l = 0; l < RT_WARP; l++) {
    p->active[l] = 0;
    p->lane[l].n = 0;
    p->lane[l].failed = 0;
  }
  p->used = 0;
  p->arrived = 0;
}

static void flush_pending_if(int (*pred)(const rt_pending *, const void *), const void *arg) {
  for (size_t i = 0; i < L->npend; i++)
    if (L->pend[i].used && (!pred || pred(&L->pend[i], arg))) rt_complete_warp(&L->pend[i]);
}

static int pending_before_row(const rt_pending *p, const void *arg) {
  return p->last_row < *(const int64_t *)arg;
}


static int pending_in_window(const rt_pending *p, const void *arg) {
  const rt_window *w = arg;
  return p->block_id >= w->start && p->block_id - w->start < w->size;
}

rt_pending *rt_pending_for(uint64_t block_id, unsigned widx, int64_t last_row) {
  rt_pending *free_slot = NULL;
  for (size_t i = 0; i < L->npend; i++) {
    rt_pending *p = &L->pend[i];
    if (p->used && p->block_id == block_id && p->widx == widx) return p;
    if (!p->used && !free_slot) free_slot = p;
  }
  if (!free_slot) {
    rt_pending *np = realloc(L->pend, (L->npend + 1) * sizeof *np);
    if (!np) return NULL;
    L->pend = np;
    free_slot = &L->pend[L->npend++];
    memset(free_slot, 0, sizeof *free_slot);
  }
  free_slot->used = 1;
  free_slot->block_id = block_id;
  free_slot->widx = widx;
  free_slot->last_row = last_row;
  free_slot->arrived = 0;
  return free_slot;
}

/* ---- windows --------------------------------------------------------------------------------- */

/* The last cell (row, x) of block `id` in the sweep; NEVER while the grid's extent is unknown. */
static void cell_of(uint64_t id, int64_t *row, int64_t *x) {
  uint64_t bxl, byl = 0, bzl = 0;
  *row = NEVER;
  *x = NEVER;
  if (L->k->dims == 1) {
    bxl = id;
  } else {
    if (!L->gdx_known) return;                           /* known once the first row is done */
    bxl = id % L->gdx;
    byl = id / L->gdx;
    if (L->k->dims == 3) {
      if (!L->gdy_known) return;
      bzl = byl / L->gdy;
      byl %= L->gdy;
    }
  }
  *row = ROW((byl + 1) * L->by - 1, (bzl + 1) * L->bz - 1);
  *x = (int64_t)((bxl + 1) * L->bx - 1);
}

static int passed(int64_t row, int64_t x, int64_t r, int64_t c) { return row > r || (row == r && x > c); }

/* Sampled mode: outside a launch's first window, a window's first batch only warms the caches (1);
   a warming launch's batches all do (2, docs/model.md section 4c). */
static int warms(const rt_window *w) { return L->warming ? 2 : !rt_full_windows(w->dev) && w->start > 0; }

/* The dependence check's: a launch analysed, on its first window (docs/pipeline.md), the trace
   device's (the most blocks: the first window every device shared before issue 30 item 7). */
static cgp_analysis_set *deps_for(size_t d, const rt_window *w) {
  return L->sampled && d == L->tdev && w->start == 0 ? L->kan : NULL;
}

static void window_cells(rt_window *w) {
  cell_of(w->start + w->size - 1, &w->done_row, &w->done_x);
  size_t d = w->dev;
  uint64_t e = w->next[d] + rt_batch_blocks(S, d, L->tpb);
  cell_of(w->start + (e < w->size ? e : w->size) - 1, &w->next_row[d], &w->next_x[d]);
}

rt_window *rt_open_window(size_t d, uint64_t start, uint64_t pre, uint64_t region_end) {
  rt_window *nw = realloc(L->win, (L->nwin + 1) * sizeof *nw);
  if (!nw) return NULL;
  L->win = nw;
  rt_window *w = &L->win[L->nwin++];
  memset(w, 0, sizeof *w);
  w->dev = d;
  w->start = start - pre;
  w->size = L->dv[d].W + pre;
  w->ext = pre;
  w->region_end = region_end;
  window_cells(w);
  return w;
}

static int pending_in_range(const rt_pending *p, const void *arg) {
  const uint64_t *r = arg;
  return p->block_id >= r[0] && p->block_id < r[1];
}

/* Analyse device d's next batch of window w: its blocks are complete. */
static void analyse_next_batch(rt_window *w, size_t d) {
  double paused = plain_pause();
  uint64_t bpb = rt_batch_blocks(S, d, L->tpb), b0 = w->next[d], b1 = b0 + bpb < w->size ? b0 + bpb : w->size;
  uint64_t range[2] = {w->start + b0, w->start + b1};
  flush_pending_if(pending_in_range, range);
  /* dependences: device independent, checked on a launch's first window (docs/pipeline.md) */
  rt_window_next_batch(S, L->k, w, d, L->tpb, warms(w), deps_for(d, w));
  plain_resume(paused);
}

/* Release blocks [freed, b) of window w, written to the trace first when it is the trace
   device's (cgp_rt_trace.c). */
static size_t free_below(rt_window *w, uint64_t b) {
  if (w->dev == L->tdev) rt_trace_blocks(L->k, w, b);
  return rt_window_free_below(w, b);
}

/* Release the blocks its device has analysed (a warming window keeps its first batch, which
   counts after all if no second batch comes). */
static void release_analysed(rt_window *w) {
  size_t d = w->dev;
  uint64_t lo = warms(w) == 1 && !w->counted[d] ? 0 : w->next[d];
  size_t bytes = free_below(w, lo);
  L->stored -= bytes < L->stored ? bytes : L->stored;
}

/* Device d's closed windows folded into its launch sums as the grid passes them
   (rt_wstat_fold), but not once `full` mode is over the budget (finish_launch). */
static void fold_windows(size_t d) {
  rt_wstat_fold(L->dv[d].wstat, &L->dv[d].nwstat, L->over_budget && rt_full_windows(d), &L->dv[d].fold,
                &L->dv[d].fold_tiled, d == 0 ? &L->fold_traced : NULL, L->sampled && d == 0 ? L->k : NULL);
}

/* The blocks before the grid's first whole row (2-D) or plane (3-D) of blocks: the boundary of a
   stencil, whose blocks may have fewer threads (a loop from 1) and other neighbours than the rest,
   so a window there stands for nothing but itself in the convergence test; 0 while not known. */
static uint64_t first_slab(void) {
  if (L->k->dims <= 1) return 1;
  if (!L->gdx_known) return 0;
  if (L->k->dims == 2) return L->gdx;
  return L->gdy_known ? L->gdx * L->gdy : 0;
}

/* Device d's windows converged (docs/pipeline.md, "Sampling"; cgp_rt_converge.c): run and skip
   modes, an analysed launch whose sweep goes forward (`full` traces every block). */
static int window_converged(size_t d) {
  uint64_t slab = first_slab();
  if (!cgp_rt_g.converge || rt_full_windows(d) || !L->sampled || L->unordered || L->over_budget || !slab ||
      L->dv[d].nwstat != L->dv[d].windows)          /* folded windows (beyond 72) */
    return 0;
  return rt_windows_converged(&S->dev[d], L->dv[d].wstat, L->dv[d].nwstat, slab, &L->dv[d].agreed);
}

static int pending_unheld(const rt_pending *p, const void *arg) {
  (void)arg;
  return !held(p->block_id);
}

/* Window i (just analysed, the last of its device's L->dv[].wstat) stands for the rest of the grid:
   its device's windows opened after it are dropped with their warps (warps another device's
   windows hold stay there), and no later block is traced for it; none at all once every device
   has stopped. */
static void stop_after(size_t i) {
  rt_window *w = &L->win[i];
  size_t d = w->dev;
  w->region_end = UINT64_MAX;
  L->dv[d].wstat[L->dv[d].nwstat - 1].region_end = UINT64_MAX;
  L->k->skip_to[d] = UINT64_MAX;                 /* the blocks it stands for age the L2 */
  L->dv[d].stop_from = w->start + w->size;
  for (size_t j = L->nwin; j-- > i + 1;) {
    rt_window *later = &L->win[j];
    if (later->dev != d) continue;
    size_t bytes = rt_window_free_below(later, later->nblk);
    L->stored -= bytes < L->stored ? bytes : L->stored;
    rt_window_release(later);
    memmove(later, later + 1, (L->nwin - j - 1) * sizeof *L->win);
    L->nwin--;
  }
  flush_pending_if(pending_unheld, NULL);
  int all = 1;
  for (size_t e = 0; e < S->ndev; e++) all &= L->dv[e].stop_from != UINT64_MAX;
  if (all) L->stop = RT_STOP_CONVERGED;
}

/* Window i is the last its device has open. */
static int last_of_device(size_t i) {
  for (size_t j = i + 1; j < L->nwin; j++)
    if (L->win[j].dev == L->win[i].dev) return 0;
  return 1;
}

static void close_window(size_t i) {
  double paused = plain_pause();
  rt_window *w = &L->win[i];
  /* Over the memory budget no window opens after the last one open, so it stands for the rest of
     the grid: the blocks the windows that never opened would have stood for (as `full` mode's last
     window does, finish_launch). Its record in the trace says so, so a replay counts the same.
     Before, a sampled launch cut in its first window stood for that window's region only: a
     2048x2048 grid of 4096 blocks was predicted as 1056 of them. */
  size_t d = w->dev;
  if (L->over_budget && last_of_device(i)) w->region_end = UINT64_MAX;
  flush_pending_if(pending_in_window, w);
  rt_wstat *ns = realloc(L->dv[d].wstat, (L->dv[d].nwstat + 1) * sizeof *ns);
  if (ns) {
    L->dv[d].wstat = ns;
    rt_wstat *out = &ns[L->dv[d].nwstat++];
    memset(out, 0, sizeof *out);
    rt_window_finish(S, L->k, w, d, L->tpb, warms(w), deps_for(d, w), out);
    L->dv[d].windows++;
    if (window_converged(d)) stop_after(i);
    /* after the stop, which sets the region a trace records for the window, as a replay reads it */
    if (L->dv[d].nwstat >= 2) rt_wstat_centre(&ns[L->dv[d].nwstat - 2], out);
    fold_windows(d);
  } else {
    rt_lost_to_memory();
  }
  size_t bytes = free_below(w, w->nblk);
  L->stored -= bytes < L->stored ? bytes : L->stored;
  if (d == L->tdev) rt_trace_window(w);
  rt_window_release(w);
  /* windows stay in the order they opened (block order): each device analyses them, and the
     trace replays them, in that order */
  memmove(&L->win[i], &L->win[i + 1], (L->nwin - i - 1) * sizeof *L->win);
  L->nwin--;
  plain_resume(paused);
}

void rt_advance_windows(int64_t row, int64_t x) {
  if (L->unordered) return;
  for (size_t i = 0; i < L->nwin;) {
    rt_window *w = &L->win[i];
    if (passed(row, x, w->done_row, w->done_x)) { close_window(i); continue; }
    int moved = 0;
    size_t d = w->dev;
    while (w->next[d] < w->size && passed(row, x, w->next_row[d], w->next_x[d])) {
      analyse_next_batch(w, d);
      window_cells(w);
      moved = 1;
    }
    if (moved) release_analysed(w);
    i++;
  }
}

void rt_on_row_change(int64_t row) {
  if (!L->gdx_known) {
    L->gdx = (uint64_t)(L->maxx + 1 + L->bx - 1) / L->bx;
    L->gdx_known = 1;
    if (L->k->fp) rt_footprint_row_blocks(L->k->fp, L->gdx);
  }
  if (!L->gdy_known && (row >> 32) != (L->cur_row >> 32)) {
    L->gdy = (uint64_t)(L->maxy + 1 + L->by - 1) / L->by;
    L->gdy_known = 1;
  }
  for (size_t i = 0; i < L->nwin; i++) window_cells(&L->win[i]);
  flush_pending_if(pending_before_row, &row);
  L->cur_row = row;
}

static int pending_from_block(const rt_pending *p, const void *arg) {
  return p->block_id >= *(const uint64_t *)arg;
}

int rt_drop_windows_after(uint64_t id) {
  while (L->nwin && rt_run_bytes + L->stored > cgp_rt_g.budget_bytes) {
    size_t hi = 0;
    for (size_t i = 1; i < L->nwin; i++)
      if (L->win[i].start > L->win[hi].start) hi = i;
    rt_window *w = &L->win[hi];
    if (w->start <= id) break;
    L->drop_from = w->start;
    size_t bytes = rt_window_free_below(w, w->nblk);
    L->stored -= bytes < L->stored ? bytes : L->stored;
    rt_window_release(w);
    memmove(&L->win[hi], &L->win[hi + 1], (L->nwin - hi - 1) * sizeof *L->win);
    L->nwin--;
    flush_pending_if(pending_from_block, &L->drop_from); /* their warps are dropped too */
    if (L->sampled) L->k->windows_dropped = 1;
  }
  if (rt_run_bytes + L->stored > cgp_rt_g.budget_bytes) return 0;
  L->over_budget = 0;
  return 1;
}

static int window_cmp(const void *a, const void *b) {
  uint64_t x = ((const rt_window *)a)->start, y = ((const rt_window *)b)->start;
  return (x > y) - (x < y);
}

void rt_close_windows(void) {
  flush_pending_if(NULL, NULL);
  /* a sweep that went back kept its windows to the end: analyse them in block order, the order a
     GPU runs its blocks in, whatever order the C loop ran them */
  if (L->unordered) qsort(L->win, L->nwin, sizeof *L->win, window_cmp);
  if (L->drop_from != UINT64_MAX)               /* each device's last window: to the grid's end */
    for (size_t i = 0; i < L->nwin; i++)
      if (last_of_device(i)) L->win[i].region_end = UINT64_MAX;
  while (L->nwin) close_window(0);
}
