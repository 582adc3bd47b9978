/* cgp_rt_window.c: a window's blocks through the analyses. Per device, the window's blocks are cut
   into batches of B x no_sm blocks (the blocks resident together; block j of a batch on SM
   j mod no_sm), and each batch's warps issue round robin, one warp memory instruction at a time
   [MODEL.md section 4 choice], every warp's events in the order its reconverged lanes run them
   (cgp_rt_warp.h). cgp_rt.c decides when a batch is complete and whether it counts. */
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
  rt_wwarp **list = realloc(win->blk[b], (win->nw[b] + 1) * sizeof *list);
  if (!list) { rt_wwarp_free(w); return; }
  list[win->nw[b]++] = w;                    /* warps arrive as they complete: in warp-id order in
                                                a sweep, the partial ones at the edge last */
  win->blk[b] = list;
}

size_t rt_window_free_below(rt_window *w, uint64_t b) {
  size_t bytes = 0;
  for (; w->freed < b && w->freed < w->nblk; w->freed++) {
    for (size_t i = 0; i < w->nw[w->freed]; i++) {
      bytes += rt_wwarp_bytes(w->blk[w->freed][i]);
      rt_wwarp_free(w->blk[w->freed][i]);
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

unsigned rt_active_blocks(const cgp_device *d, unsigned tpb) {
  unsigned b = cgp_active_blocks(d, tpb, 0, 0);
  return b ? b : 1;
}

uint64_t rt_batch_blocks(size_t d, unsigned tpb) {
  const cgp_device *dev = &cgp_rt_g.dev[d];
  return (uint64_t)rt_active_blocks(dev, tpb) * dev->no_sm;
}

uint64_t rt_deps_checked;

typedef struct {
  rt_witer *it;
  const rt_wwarp *w;
  unsigned sm;
} live_warp;

/* Events of one warp up to and including its next memory instruction; 0 when it has none left. */
static int step(rt_kernel *k, cgp_analysis_set *an, live_warp *lw, unsigned widx, cgp_deps *deps) {
  rt_wevent ev;
  while (rt_witer_next(lw->it, &ev)) {
    unsigned threads = rt_wwarp_threads(lw->w);
    if (!ev.is_mem) {
      cgp_block_exec b = {ev.id, (uint8_t)ev.nact, (uint8_t)threads, widx, lw->sm};
      cgp_analysis_block_exec(an, &b);
      continue;
    }
    uint32_t sid = ev.id;
    cgp_warp_mem m = {.sid = sid, .kind = k->mem_kind[sid], .nact = (uint8_t)ev.nact,
                      .warp_threads = (uint8_t)threads, .size = k->mem_size[sid], .addr = ev.addr,
                      .lane = ev.lane, .thread = rt_wwarp_thread_keys(lw->w), .warp = widx, .sm = lw->sm};
    m.cls = (uint8_t)cgp_classify(ev.addr, ev.nact, m.size);
    cgp_analysis_warp_mem(an, &m);
    if (deps && m.kind != CGP_ATOMIC && rt_deps_checked < RT_DEPS_MAX_CHECKED) {
      /* lanes reading one address: its two earliest readers are the first two lanes, which is
         all the check keeps of readers (cgp_an_deps.c) */
      unsigned n = m.cls == CGP_CLASS_CONST && m.kind == CGP_LOAD && ev.nact > 2 ? 2 : ev.nact;
      for (unsigned l = 0; l < n; l++)
        cgp_deps_access(deps, ev.addr[l], m.thread[ev.lane[l]], sid, m.kind == CGP_STORE);
      rt_deps_checked += n;
      if (rt_deps_checked >= RT_DEPS_MAX_CHECKED) k->deps_partial = 1;
    }
    return 1;
  }
  return 0;
}

void rt_window_batch(rt_kernel *k, const rt_window *w, size_t d, uint64_t b0, uint64_t b1, int counting,
                     cgp_deps *deps) {
  cgp_analysis_set *an = rt_kernel_analyses(k, d);
  if (!an) return;
  if (b1 > w->nblk) b1 = w->nblk;
  size_t nw = 0, nblocks = 0;
  for (size_t b = b0; b < b1; b++) { nw += w->nw[b]; nblocks += w->nw[b] > 0; }
  if (!nw) return;
  live_warp *lw = calloc(nw, sizeof *lw);
  if (!lw) return;
  unsigned no_sm = cgp_rt_g.dev[d].no_sm;
  size_t i = 0;
  for (size_t b = b0; b < b1; b++)
    for (size_t j = 0; j < w->nw[b]; j++, i++) {
      lw[i].w = w->blk[b][j];
      lw[i].it = rt_witer_new(k->shape, lw[i].w);
      lw[i].sm = (unsigned)((b - b0) % no_sm);
    }
  cgp_analysis_begin_batch(an, counting, (unsigned)nw, (unsigned)nblocks);
  for (size_t live = nw; live;) {
    live = 0;
    for (i = 0; i < nw; i++) {
      if (!lw[i].it) continue;
      if (step(k, an, &lw[i], (unsigned)i, deps)) { live++; continue; }
      cgp_analysis_end_warp(an, (unsigned)i);
      rt_witer_free(lw[i].it);
      lw[i].it = NULL;
    }
  }
  cgp_analysis_end_batch(an);
  free(lw);
}
