/* cgp_rt_window.c: a window's blocks through the analyses. Per device, the window's blocks are cut
   into batches of B x no_sm blocks (the blocks resident together; block j of a batch on SM
   j mod no_sm), and each batch's warps issue round robin, one warp memory instruction at a time
   [MODEL.md section 4 choice], every warp's events in the order its reconverged lanes run them
   (cgp_rt_lanes.h, cgp_rt_witer.h). cgp_rt_sched.c decides when a batch is complete and whether
   it counts. */
#include "cgp_rt_internal.h"

#include <stdlib.h>
#include <string.h>

void rt_window_put(rt_window *win, uint64_t b, rt_wwarp *w) {
  if (b >= win->nblk) {
    size_t n = win->nblk ? win->nblk : 8;
    while (n <= b) n *= 2;
    rt_wwarp ***blk = realloc(win->blk, n * sizeof *blk);
    size_t *nw = realloc(win->nw, n * sizeof *nw);
    if (!blk || !nw) {                       /* the warp is lost, the window still counts */
      if (blk) win->blk = blk;
      if (nw) win->nw = nw;
      rt_wwarp_free(w);
      return;
    }
    memset(blk + win->nblk, 0, (n - win->nblk) * sizeof *blk);
    memset(nw + win->nblk, 0, (n - win->nblk) * sizeof *nw);
    win->blk = blk;
    win->nw = nw;
    win->nblk = n;
  }
  size_t n = win->nw[b];
  if ((n & (n - 1)) == 0) {                  /* 0, 1, 2, 4...: the list is full (it doubles) */
    rt_wwarp **list = realloc(win->blk[b], (n ? 2 * n : 1) * sizeof *list);
    if (!list) { rt_wwarp_free(w); return; }
    win->blk[b] = list;
  }
  win->blk[b][win->nw[b]++] = w;             /* warps arrive as they complete: in warp-id order in
                                                a sweep, the partial ones at the edge last */
}

size_t rt_window_free_below(rt_window *w, uint64_t b) {
  size_t bytes = 0;
  for (; w->freed < b && w->freed < w->nblk; w->freed++) {
    for (size_t i = 0; i < w->nw[w->freed]; i++) {
      rt_wwarp *ww = w->blk[w->freed][i];
      if (!rt_wwarp_shares(ww)) bytes += rt_wwarp_bytes(ww);   /* released by its last holder */
      rt_wwarp_free(ww);
    }
    free(w->blk[w->freed]);
    w->blk[w->freed] = NULL;
    w->nw[w->freed] = 0;
  }
  return bytes;
}

void rt_window_release(rt_window *w) {
  for (size_t b = 0; b < w->nblk; b++) {
    for (size_t i = 0; i < w->nw[b]; i++) rt_wwarp_free(w->blk[b][i]);
    free(w->blk[b]);
  }
  free(w->blk);
  free(w->nw);
  w->blk = NULL;
  w->nw = NULL;
  w->nblk = 0;
}

int rt_window_index(uint64_t W, uint64_t ext, int full, uint64_t spacing, uint64_t id, uint64_t *start,
                    uint64_t *pre, uint64_t *region_end) {
  *pre = 0;
  if (full) {
    *start = id / W * W;
    *region_end = *start + W;
    return 0;
  }
  if (id < W) { *start = 0; *region_end = 2 * W; return 0; }
  if (spacing && id >= spacing) {             /* from `spacing` on, a window every `spacing` blocks */
    uint64_t s = id / spacing * spacing, p = 0;
    if (id - s >= W) {                          /* before the next: its extension, at most the gap */
      if (s > UINT64_MAX - spacing) return -1;
      s += spacing;
      p = ext < spacing - W ? ext : spacing - W;
      if (id < s - p) return -1;
    }
    *start = s;
    *pre = p;
    *region_end = s <= UINT64_MAX - spacing ? s + spacing : UINT64_MAX;
    return 1;
  }
  unsigned k = 1;
  while (k < 62 && (W << (k + 1)) <= id) k++;
  if (id >= W << k) {                          /* in window k, or between it and window k + 1 */
    if (id - (W << k) < W) {
      *start = W << k;
      *region_end = k < 62 ? W << (k + 1) : UINT64_MAX;
      return (int)k;
    }
    if (k == 62) return -1;
    k++;
  }
  /* before window k (k >= 1): its extension reaches back at most to window k - 1's end */
  uint64_t s = W << k, gap = s - (k == 1 ? W : (W << (k - 1)) + W), p = ext < gap ? ext : gap;
  if (id < s - p) return -1;
  *start = s;
  *pre = p;
  *region_end = k < 62 ? W << (k + 1) : UINT64_MAX;
  return (int)k;
}

unsigned rt_active_blocks(const cgp_device *d, unsigned tpb) {
  unsigned b = cgp_active_blocks(d, tpb, 0, 0);
  return b ? b : 1;
}

uint64_t rt_batch_blocks(const rt_session *s, size_t d, unsigned tpb) {
  const cgp_device *dev = &s->dev[d];
  return cgp_round_blocks(dev, rt_active_blocks(dev, tpb));
}

/* A stencil's block reads the rows its neighbour above read (its halo). In a full trace that block
   ran one row of blocks earlier, and where the L2 holds a row of blocks' lines, what it read is
   still there; a window whose warming batch is shorter than a row never traced it, so its counted
   batch missed the halo (3DCONV at 512 on the TK1, a row of 16 blocks, batches of 8: +19 % against
   `full`). The window then warms from the block above its counted batch's first on. Where the L2
   cannot hold a row, nothing of the row above is left, and one batch warms, as before. The row and
   the lines a block brings in (its DRAM bytes) are the last analysed launch's: a launch knows
   neither before its first row is done, and its windows' places are set at its start. */
uint64_t rt_warm_extension(const rt_session *s, const rt_kernel *k, size_t d, uint64_t batch) {
  if (k->dims < 2 || !k->nsamples || !batch) return 0;
  const rt_sample *last = &k->samples[k->nsamples - 1];
  const cgp_kernel_stats *st = &last->stats[d];
  uint64_t row = last->gridblocks[0];
  if (row <= batch || !st->blocks) return 0;
  double per_block = cgp_dram_bytes_per_warp(&s->dev[d], st) * (double)st->total_warps / (double)st->blocks;
  if (per_block * (double)row > (double)cgp_l2_capacity_bytes(&s->dev[d])) return 0;
  return (row + batch - 1) / batch * batch - batch;
}

/* At most this many counted batches: a longer row's edge is at most 1/16 of what a window counts
   (PolyBench's rows in 32x8 blocks on the TK1 are at most 16 batches: 2DCONV at 4096) and a window
   stays within the memory budget however wide the grid. */
#define RT_ROW_BATCHES 16

/* A first launch's row from its bound counts where it is at most this many batches: a wider
   row's partial edge block is under 1/32 of the row, which windows of two batches, never on the
   edge, leave out (2DCONV at 4096, rows of 128 blocks: 5.9 times the accesses traced for a
   prediction 0.2 % away). */
#define RT_FIRST_ROW_BATCHES 4

uint64_t rt_row_blocks(const rt_kernel *k, unsigned bx, int unit) {
  if (k->nsamples) return k->samples[k->nsamples - 1].gridblocks[0];
  return bx && k->extent[0] % bx ? rt_bound_blocks(k, 0, bx, unit) : 0;
}

uint64_t rt_window_blocks(const rt_kernel *k, uint64_t batch, uint64_t row) {
  if (k->dims < 2 || !batch || row <= batch) return 2 * batch;
  if (!k->nsamples && row > RT_FIRST_ROW_BATCHES * batch) return 2 * batch;
  return batch + (row < RT_ROW_BATCHES * batch ? row : RT_ROW_BATCHES * batch);
}

/* The windows of a sampled launch sit at blocks 0, 2W, 4W, 8W ..., each standing for the blocks up
   to the next: a grid of up to 2W blocks is its first window's, whose stats stand for the blocks
   it did not trace, however those differ (NPB CG's sparse rows a thread each: the first 16 blocks
   of 28 on the TK1 stood for the rest), and what the untraced blocks leave in the L2 is aged, not
   known (CG's dot product, launched next, found none of the vector p the gathers keep there:
   +94 %). Such a grid costs at most twice its first window to trace whole. A grid of up to 4W
   blocks holds two windows, at 0 and 2W, too few to tell whether they agree (a launch converges
   on three, cgp_rt_converge.c), and each stands for a gap as long as itself: LU's kernel 2 at N =
   100 on the TK1, 36 blocks whose active square starts in the grid's third row of blocks, had
   the gap after its first window, [16, 32), counted as that window's mostly idle blocks (-5.5 %
   against `full`; -2.7 % with the gap split, rt_wstat_centre). Tracing it whole costs at most
   twice its windows; beyond 2W only where that is at most RT_WHOLE_THREADS threads, which a
   device of many SMs passes long before (the H100: W = 2112 blocks of 256 threads). (The one
   bound on a launch traced whole for what its windows cannot see: the L2's cliff's too.) The grid is
   the kernel's last launch's (a launch's own is known only at its end), or for its first launch
   the one its mapped loops' constant bounds give (rt_bound_blocks); a first launch of bounds
   known only at run time keeps the windows. */
#define RT_WHOLE_WINDOWS 2
#define RT_WHOLE_TWO_WINDOWS 4
#define RT_WHOLE_THREADS (UINT64_C(1) << 18)

uint64_t rt_grid_guess(const rt_kernel *k, const unsigned *block, int unit) {
  uint64_t G = k->last_blocks;
  if (!G && unit) {                            /* a first launch: its constant bounds, if known */
    G = 1;
    for (unsigned d = 0; d < k->dims && d < 3 && G; d++) G *= rt_bound_blocks(k, d, block[d], unit);
  }
  return G;
}

int rt_launch_whole(uint64_t G, uint64_t W, unsigned tpb) {
  if (!G || G > RT_WHOLE_TWO_WINDOWS * W) return 0;
  return G <= RT_WHOLE_WINDOWS * W || G * tpb <= RT_WHOLE_THREADS;
}

/* A launch whose bytes come near an L2's capacity is where the L2 turns from holding a launch's
   data to losing it (an LRU cache swept by more than it holds misses every line; by less, it hits
   them on the next sweep): there a window's traffic, a fraction of the launch's, fits in the L2
   where the launch's does not, and the next launch (or the next window) finds what the untraced
   blocks would have evicted. LU at N = 256 on the TK1 (128 KiB): kernel 2's launch 44 sweeps 178
   KiB, its windows 30 % of that; sampled, it and the launches before it found all their lines in
   the L2 where `full` missed 1470 a launch. So a traced launch (analysed or warming) is traced
   whole for a device where its kernel's last traced launch spanned between half and twice the
   device's L2 (span: rt_footprint_last_span) and its grid has at most RT_WHOLE_THREADS threads: such
   launches are small on a small L2, and a large L2's cliff is left to the windows, whose cost
   would be a whole launch of millions of threads. */

int rt_launch_at_cliff(uint64_t span, uint64_t l2_bytes, uint64_t threads) {
  if (!span || !l2_bytes || !threads || threads > RT_WHOLE_THREADS) return 0;
  return span >= l2_bytes / 2 && span <= 2 * l2_bytes;
}

/* Windows at 0, 2W, 4W, 8W ... leave the grid's second half to one window, which stands for it
   whatever it holds: a grid whose work depends on where a block is (LU's kernel 2, whose guard
   leaves active only a square in the grid's lower right, shrinking launch by launch) was
   estimated from windows that all fell before that square (-7.6 % against `full` at N = 512,
   launches whose active blocks were 10 % counted none). From the spacing on, windows sit every
   `spacing` blocks: the largest W 2^j (j >= 1) that puts at least RT_SPREAD_WINDOWS of them in
   the grid (2W in a grid of under 32 windows). Windows before the spacing are where they were;
   a launch whose windows converge (cgp_rt_converge.c) stops as soon as before. */
#define RT_SPREAD_WINDOWS 8

uint64_t rt_window_spacing(uint64_t W, uint64_t G) {
  if (!W || !G) return 0;
  uint64_t c = 2 * W;
  while (c <= UINT64_MAX / 2 / RT_SPREAD_WINDOWS && 2 * c * RT_SPREAD_WINDOWS <= G) c *= 2;
  return c;
}

uint64_t rt_counted_from(const rt_window *w, uint64_t bpb) { return (w->ext + bpb + bpb - 1) / bpb * bpb; }


typedef struct {
  rt_witer *it;
  const rt_wwarp *w;
  unsigned sm;
} live_warp;

/* Events of one warp up to and including its next memory instruction; 0 when it has none left. */
static int step(rt_kernel *k, cgp_analysis_set *an, live_warp *lw, unsigned widx, cgp_analysis_set *kan,
                rt_footprint *fp) {
  rt_wevent ev;
  while (rt_witer_next(lw->it, &ev)) {
    unsigned threads = rt_wwarp_threads(lw->w);
    if (!ev.is_mem) {
      cgp_block_exec b = {ev.id, (uint8_t)ev.nact, (uint8_t)threads, widx, lw->sm, ev.skipped};
      cgp_analysis_block_exec(an, &b);
      continue;
    }
    uint32_t sid = ev.id;
    /* what its lanes stand for, on average, below the instruction's 1 + skipped (rt_wevent's
       lanes_w: exact, so 0 where every lane stands for as much) */
    double most = 1.0 + ev.skipped, mean = ev.nact ? ev.lanes_w / ev.nact : most;
    cgp_warp_mem m = {.sid = sid, .kind = k->mem_kind[sid], .overlap = k->mem_overlap[sid], .nact = (uint8_t)ev.nact,
                      .warp_threads = (uint8_t)threads, .size = k->mem_size[sid], .addr = ev.addr,
                      .lane = ev.lane, .thread = rt_wwarp_thread_keys(lw->w), .warp = widx, .sm = lw->sm,
                      .skipped = ev.skipped, .lanes_short = most > mean ? most - mean : 0,
                      .span = ev.has_span || ev.spanned ? ev.span : NULL,
                      .spanned = (uint8_t)ev.spanned, .carries = (uint8_t)ev.has_span,
                      .first = (uint8_t)ev.first,
                      .space = k->mem_local[sid] ? CGP_SPACE_LOCAL : CGP_SPACE_GLOBAL};
    m.affine = (uint8_t)(ev.affine >= 0 ? ev.affine : cgp_affine(ev.addr, ev.nact));
    m.cls = (uint8_t)cgp_classify_lanes(ev.addr, ev.lane, ev.nact, m.size, m.affine);
    /* is an uncoalesced load's pattern the thread index's (an interchange or a transposition
       could make it coalesced) or the data's? Only those pay for the test */
    m.on_stride = m.cls != CGP_CLASS_UNCOAL || m.kind != CGP_LOAD ||
                  (uint8_t)cgp_on_thread_stride(ev.addr, ev.lane, m.thread, ev.nact, (int)k->dims);
    cgp_analysis_warp_mem(an, &m);
    /* (it checks global memory only; a load the pass proved no store of the nest writes can be
       in no dependence, and is not checked: docs/pipeline.md, "Dependences through memory") */
    if (kan && !k->mem_unwritten[sid]) cgp_analysis_warp_mem(kan, &m);
    /* a thread's own array in local memory (cgp_rt_local.h): no host copy */
    if (fp && !k->mem_local[sid]) rt_footprint_event(fp, sid, widx, ev.addr, ev.nact, m.size, ev.skipped_after, m.affine);
    return 1;
  }
  return 0;
}

/* The kernel's iterators, at least n of them (a batch's warps: resident blocks' worth). */
static int batch_iters(rt_kernel *k, size_t n) {
  if (n <= k->niters) return 1;
  rt_witer **it = realloc(k->iters, n * sizeof *it);
  if (!it) return 0;
  k->iters = it;
  for (; k->niters < n; k->niters++)
    if (!(it[k->niters] = rt_witer_new(k->shape, NULL))) return 0;
  return 1;
}

size_t rt_window_batch(rt_session *s, rt_kernel *k, const rt_window *w, size_t d, uint64_t b0, uint64_t b1,
                       int counting, cgp_analysis_set *kan, double *threads) {
  cgp_analysis_set *an = rt_kernel_analyses(s, k, d);
  *threads = 0;
  if (!an) return 0;
  if (b1 > w->nblk) b1 = w->nblk;
  size_t nw = 0, nblocks = 0;
  uint64_t b_end = b0;                          /* past the batch's last block with a warp */
  for (size_t b = b0; b < b1; b++) {
    nw += w->nw[b];
    nblocks += w->nw[b] > 0;
    if (w->nw[b]) b_end = b + 1;
  }
  if (!nw) return 0;
  if (!batch_iters(k, nw)) return 0;
  live_warp *lw = calloc(nw, sizeof *lw);
  if (!lw) return 0;
  unsigned no_sm = s->dev[d].no_sm;
  size_t i = 0;
  for (size_t b = b0; b < b1; b++)
    for (size_t j = 0; j < w->nw[b]; j++, i++) {
      lw[i].w = w->blk[b][j];
      *threads += rt_wwarp_threads(lw[i].w);
      lw[i].it = rt_witer_reset(k->iters[i], lw[i].w) ? k->iters[i] : NULL;
      lw[i].sm = (unsigned)((b - b0) % no_sm);
    }
  cgp_analysis_begin_batch(an, counting, (unsigned)nw, (unsigned)nblocks);
  rt_footprint *fp = d == k->fp_dev ? k->fp : NULL;   /* device independent: measured once */
  for (size_t live = nw; live;) {
    live = 0;
    for (i = 0; i < nw; i++) {
      if (!lw[i].it) continue;
      if (step(k, an, &lw[i], (unsigned)i, kan, fp)) { live++; continue; }
      cgp_analysis_end_warp(an, (unsigned)i);
      lw[i].it = NULL;
    }
  }
  cgp_analysis_end_batch(an);
  /* the blocks it traced: a batch the memory budget cut short reaches less far */
  if (fp) rt_footprint_batch_end(fp, w->start + b_end);
  free(lw);
  return nw;
}

/* What follows is shared by the run (cgp_rt_sched.c, as the sweep completes batches and windows) and
   the replay of a trace (cgp_rt_trace.c, a whole window at once): per device, the same batches
   in the same order, so the same sums. */

/* The blocks the last window stood for without tracing them, up to `end` (the next window's start or
   the grid's end, whichever the GPU reaches first), to device d's analyses: the GPU runs them
   between the two (docs/model.md section 4c). Windows come in block order: the sweep's, or sorted
   when the sweep ran backwards (cgp_rt_sched.c, rt_close_windows). */
static void rt_window_skipped(rt_session *s, rt_kernel *k, size_t d, uint64_t end) {
  uint64_t to = k->skip_to[d] < end ? k->skip_to[d] : end;
  cgp_analysis_set *an = rt_kernel_analyses(s, k, d);
  if (an && to > k->skip_from[d]) cgp_analysis_skip_blocks(an, (double)(to - k->skip_from[d]));
  k->skip_from[d] = k->skip_to[d] = 0;
}

void rt_window_launch_begin(rt_kernel *k, size_t d) { k->skip_from[d] = k->skip_to[d] = 0; }

void rt_window_launch_end(rt_session *s, rt_kernel *k, size_t d, uint64_t G) { rt_window_skipped(s, k, d, G); }

void rt_window_next_batch(rt_session *s, rt_kernel *k, rt_window *w, size_t d, unsigned tpb, int warms,
                          cgp_analysis_set *kan) {
  uint64_t bpb = rt_batch_blocks(s, d, tpb), b0 = w->next[d], b1 = b0 + bpb < w->size ? b0 + bpb : w->size;
  int counting = warms != 2 && !(warms && b0 < rt_counted_from(w, bpb));
  if (b0 == 0) {
    rt_window_skipped(s, k, d, w->start);
    cgp_analysis_begin_window(rt_kernel_analyses(s, k, d));
  }
  /* a batch without warps (blocks the memory budget left untraced) does not count: the window
     then stands on its warming batch, as when no second batch came */
  double threads;
  size_t issued = rt_window_batch(s, k, w, d, b0, b1, counting, kan, &threads);
  w->counted[d] += counting && issued > 0;
  if (counting && issued > 0) w->threads_counted[d] += threads;
  w->next[d] = b1;
}

void rt_window_finish(rt_session *s, rt_kernel *k, rt_window *w, size_t d, unsigned tpb, int warms,
                      cgp_analysis_set *kan, rt_wstat *out) {
  cgp_analysis_set *an = rt_kernel_analyses(s, k, d);
  if (!an) return;
  uint64_t last = w->nblk < w->size ? w->nblk : w->size;
  while (w->next[d] < last) rt_window_next_batch(s, k, w, d, tpb, warms, kan);
  if (warms == 2) {                                  /* a warming launch: nothing counted */
    out->first_counted = w->start + w->size;
  } else if (!w->counted[d] && w->next[d] > 0) {     /* only warming batches came */
    uint64_t b0 = w->ext < w->nblk ? w->ext : 0, b1 = b0 + rt_batch_blocks(s, d, tpb);   /* the one after the extension */
    rt_window_batch(s, k, w, d, b0, b1, 1, NULL, &w->threads_counted[d]);
    w->counted[d] = 1;
    out->first_counted = w->start + b0;
  } else {
    out->first_counted = w->start + (warms ? rt_counted_from(w, rt_batch_blocks(s, d, tpb)) : 0);
  }
  out->end = w->start + w->size;
  out->region_start = w->start + w->ext;             /* the extension warms the region before */
  out->region_end = w->region_end;
  k->skip_from[d] = out->end;                         /* stood for, not traced: rt_window_skipped */
  k->skip_to[d] = w->region_end;
  out->budget_hit = w->budget_hit;
  cgp_analysis_results(an, &out->tot, k->site[d]);
  cgp_analysis_whatif_results(an, &out->tot_tiled);
  out->seen_blocks = out->tot.blocks;
  out->seen_threads = w->threads_counted[d];
}

/* A window stood for the blocks from its start to the next window's: the gap after its last traced
   block was its alone. Where a grid's work changes along it, that is a step, always one way: LU's
   kernel 2, active only in a square at the grid's lower right that grows toward the grid's end,
   had the rows of the square that began inside a gap counted as the idle window before it (-2.7 %
   against `full` at N = 2048 with windows every 1152 blocks at the end, -10.4 % with the gaps
   doubling). Splitting each gap between the windows on either side makes the estimate of a
   linear change exact; a grid whose windows are alike is as before. Only between windows whose
   regions are as long (rt_window_spacing's, and the first two): where the gaps double, the later
   window would take a quarter of its predecessor's region. The launch's first window splits its
   gap too: it counts from its start, and standing for its whole region it stood for blocks
   farther on than any it traced (LU's kernel 2 at N = 100 on the TK1, -5.5 % -> -2.7 % against
   `full`; XSBench's lookups, 79 blocks in windows at 0, 32 and 64, unchanged). */
void rt_wstat_centre(rt_wstat *a, rt_wstat *b) {
  if (a->budget_hit || b->budget_hit || b->region_start != a->region_end ||
      a->region_end == UINT64_MAX || b->region_end == UINT64_MAX || a->end >= a->region_end ||
      b->region_end - b->region_start != a->region_end - a->region_start)
    return;
  double half = (double)(a->region_end - a->end) / 2;
  a->half_after = half;
  b->half_before = half;
}

void rt_launch_stats_add(const rt_wstat *ws, uint64_t G, double block_threads, cgp_totals *sum, cgp_totals *sum_tiled,
                         double *traced_warps) {
  uint64_t end = ws->end < G ? ws->end : G, rend = ws->region_end < G ? ws->region_end : G;
  double lo = (double)ws->region_start - ws->half_before, hi = (double)rend - ws->half_after;
  if (ws->tot.warps <= 0 || end <= ws->first_counted || !(hi > lo)) return;
  /* a window the memory budget cut short stands on the threads it traced, in blocks of the
     launch's mean size (it may have traced only some warps of a block: Rodinia's lavaMD, one
     block of 216 threads, one warp of 32 traced before the budget, stood for 1 warp, not 6.75) */
  double measured = (double)(end - ws->first_counted);
  if (ws->budget_hit && ws->seen_threads > 0 && block_threads > 0) measured = ws->seen_threads / block_threads;
  else if (ws->budget_hit && ws->seen_blocks > 0) measured = ws->seen_blocks;
  double scale = (hi - lo) / measured;
  for (int t = 0; t < 2; t++) {                      /* the kernel's sums, and the what-if's */
    const double *src = (const double *)(t ? &ws->tot_tiled : &ws->tot);
    double *dst = (double *)(t ? sum_tiled : sum);
    if (!dst) continue;
    for (size_t i = 0; i < sizeof *sum / sizeof(double); i++) dst[i] += scale * src[i];
    /* blocks: a window the budget cut short counted its last, partly traced blocks whole; it
       stands for its region's blocks */
    if (ws->budget_hit) ((cgp_totals *)dst)->blocks += (hi - lo) - scale * ws->tot.blocks;
  }
  if (traced_warps) *traced_warps += ws->tot.warps;
}

void rt_wstat_count(rt_kernel *k, const rt_wstat *ws) {
  k->warps_traced += (uint64_t)ws->tot.warps;
  k->divergent_warps += (uint64_t)ws->tot.divergent_warps;
  k->masked_slots += ws->tot.masked_slots;
}

/* A closed window's stats were kept until the launch ended (finish_launch clamps them to the grid,
   known only then), which in `full` mode, one window after another, grew without bound: 5.4 KB a
   window, 1.4 GB for a grid of 4 M blocks (issue 31 item 5). A window is folded into the launch's
   sums (rt_launch_stats_add, in window order: the same operations, the same bits) once a later
   window starts at or past the end of the blocks it stands for: then the grid reaches past that
   end and the clamps change nothing. Not a window the budget cut (it stands on the launch's mean
   block, known at its end), nor any while `hold` (`full` mode over the budget: the last window
   then stands for the rest of the grid, finish_launch). Windows are folded RT_WSTAT_FOLD at a
   time, RT_WSTAT_KEEP staying unfolded (the array moves once per RT_WSTAT_FOLD windows). */
#define RT_WSTAT_KEEP 8
#define RT_WSTAT_FOLD 64

static int foldable(const rt_wstat *ws, size_t n, size_t i) {
  return !ws[i].budget_hit && ws[n - 1].region_start >= ws[i].region_end;
}

void rt_wstat_fold(rt_wstat *ws, size_t *n, int hold, cgp_totals *fold, cgp_totals *fold_tiled, double *traced,
                   rt_kernel *count) {
  if (hold || *n < RT_WSTAT_KEEP + RT_WSTAT_FOLD) return;
  size_t m = 0;
  while (*n - m > RT_WSTAT_KEEP && foldable(ws, *n, m)) {
    rt_launch_stats_add(&ws[m], UINT64_MAX, 0, fold, fold_tiled, traced);
    if (count) rt_wstat_count(count, &ws[m]);   /* as finish_launch adds them, in the same order */
    m++;
  }
  if (!m) return;
  memmove(ws, ws + m, (*n - m) * sizeof *ws);
  *n -= m;
}

void rt_launch_stats_sum(const cgp_totals *sum_in, unsigned tpb, cgp_kernel_stats *st) {
  const cgp_totals sum = *sum_in;
  memset(st, 0, sizeof *st);
  /* blocks and warps with at least one active thread: a CUDA block or warp whose threads all
     fail the index guard costs next to nothing */
  st->blocks = (uint64_t)(sum.blocks + 0.5);
  st->threads_per_block = tpb;
  st->total_warps = (uint64_t)(sum.warps + 0.5);
  for (int c = 0; c < CGP_NCLASS; c++) st->smem_conflict[c] = 1;
  if (sum.warps <= 0) return;
  double w = sum.warps;
  for (int c = 0; c < CGP_NCLASS; c++) {
    double n = sum.ld_insts[c];
    st->insts[c] = n / w;
    st->overlap_insts[c] = sum.ld_overlap[c] / w;
    st->trans_pw[c] = n > 0 ? sum.ld_trans[c] / n : 0;
    st->dram_pw[c] = n > 0 ? sum.ld_dram[c] / n : 0;
    st->l1_trans_pw[c] = n > 0 ? sum.l1_trans[c] / n : 0;
    st->l1_hit_pw[c] = n > 0 ? sum.l1_hit[c] / n : 0;
    st->merged_dram_pw[c] = n > 0 ? sum.ld_merged_dram[c] / n : 0;
    st->ld_wavefronts_pw[c] = n > 0 ? sum.ld_wavefronts[c] / n : 0;
  }
  st->st_insts = sum.st_insts / w;
  st->st_trans_pw = sum.st_insts > 0 ? sum.st_trans / sum.st_insts : 0;
  st->st_dram_pw = sum.st_insts > 0 ? sum.st_dram / sum.st_insts : 0;
  st->total_insts = sum.total_insts / w;
  st->core_insts = sum.core_insts / w;
  st->fp32_insts = sum.fp32_insts / w;
  st->fp64_insts = sum.fp64_insts / w;
  st->int_insts = sum.int_insts / w;
  st->sfu_insts = sum.sfu_insts / w;
  st->masked_slots = sum.masked_slots / w;
  st->lsu_wavefronts = sum.lsu_wavefronts / w;
  st->sync_insts = sum.sync_insts / w;
  st->smem_load_insts = sum.tile_load_insts / w;
  for (int c = 0; c < CGP_NCLASS; c++) {
    st->smem_insts[c] = sum.smem_insts[c] / w;
    st->smem_conflict[c] = sum.smem_insts[c] > 0 ? sum.smem_conflict[c] / sum.smem_insts[c] : 1;
  }
}

void rt_tile_stats(const rt_kernel *k, size_t d, cgp_kernel_stats *st) {
  st->smem_per_block = (unsigned)cgp_tile_smem_bytes(cgp_analysis_tiler(k->an[d]));
}

int rt_launch_stats_tiled(const rt_kernel *k, size_t d, const cgp_totals *sum_tiled, unsigned tpb,
                          cgp_kernel_stats *st) {
  const cgp_analysis_set *wi = cgp_analysis_whatif(k->an[d]);
  /* no what-if where it cannot stand for tiled code: a footprint never understood, or a loop that
     is not a whole number of tiles */
  if (!wi || (cgp_tile_flags(cgp_analysis_tiler(wi)) & (CGP_TILE_UNLEARNED | CGP_TILE_PARTIAL))) return 0;
  rt_launch_stats_sum(sum_tiled, tpb, st);
  st->smem_per_block = (unsigned)cgp_tile_smem_bytes(cgp_analysis_tiler(wi));
  return 1;
}
