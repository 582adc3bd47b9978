/* cgp_rt_window.c: a window's blocks and their analysis. Per device, the window's blocks are
   cut into batches of B x no_sm blocks (the blocks resident together), and each batch's warps go
   through the L2 together, interleaved round robin (analyzer/cgp_analyzer.h). The L2 starts
   empty in each window; outside the first window, the window's first batch only warms it. */
#include "cgp_rt_internal.h"

#include <stdlib.h>
#include <string.h>

void rt_warp_free(rt_warp *w) {
  if (!w) return;
  free(w->inst);
  free(w->lines);
  free(w);
}

void rt_window_put(rt_window *win, uint64_t b, unsigned widx, rt_warp *w) {
  if (b >= win->nblk) {
    size_t n = win->nblk ? win->nblk : 8;
    while (n <= b) n *= 2;
    win->blk = realloc(win->blk, n * sizeof *win->blk);
    memset(win->blk + win->nblk, 0, (n - win->nblk) * sizeof *win->blk);
    win->nblk = n;
  }
  rt_block *blk = &win->blk[b];
  if (blk->n == blk->cap) blk->warp = realloc(blk->warp, (blk->cap = blk->cap ? 2 * blk->cap : 8) * sizeof *blk->warp);
  (void)widx;                                  /* warps arrive as they complete: in warp-id order
                                                  in a sweep, the partial ones at the edge last */
  blk->warp[blk->n++] = w;
}

void rt_window_release(rt_window *w) {
  for (size_t b = 0; b < w->nblk; b++) {
    for (size_t i = 0; i < w->blk[b].n; i++) rt_warp_free(w->blk[b].warp[i]);
    free(w->blk[b].warp);
  }
  free(w->blk);
  w->blk = NULL;
  w->nblk = 0;
}

unsigned rt_active_blocks(const cgp_device *d, unsigned tpb) {
  unsigned b = cgp_active_blocks(d, tpb, 0, 0);
  return b ? b : 1;
}

static cgp_l2_index l2_index_of(const cgp_device *d) {
  if (strcmp(d->l2_index, "modulo") == 0) return CGP_L2_MODULO;
  if (strcmp(d->l2_index, "xor") == 0) return CGP_L2_XOR;
  return CGP_L2_FULLY_ASSOCIATIVE;
}

/* The warp at a coarser line size (lines are sorted, so duplicates are adjacent): its
   instructions with new line counts in *inst, their lines in *pool. */
static void coarsen(const rt_warp *w, unsigned shift, cgp_winst **inst, uint64_t **pool) {
  cgp_winst *in = malloc((w->n ? w->n : 1) * sizeof *in);
  uint64_t *out = malloc((w->nl ? w->nl : 1) * sizeof *out);
  const uint64_t *src = w->lines;
  size_t nout = 0;
  for (size_t i = 0; i < w->n; i++) {
    in[i] = w->inst[i];
    unsigned n = 0;
    for (unsigned j = 0; j < w->inst[i].nlines; j++) {
      uint64_t l = src[j] >> shift;
      if (!n || out[nout - 1] != l) { out[nout++] = l; n++; }
    }
    src += w->inst[i].nlines;
    in[i].nlines = (uint16_t)n;
  }
  *inst = in;
  *pool = out;
}

static unsigned log2u(unsigned v) {
  unsigned s = 0;
  while ((1u << s) < v) s++;
  return s;
}

static void analyze_device(rt_kernel *k, const rt_window *w, unsigned tpb, size_t d, rt_wstat *out) {
  const cgp_device *dev = &cgp_rt_g.dev[d];
  uint64_t bpb = (uint64_t)rt_active_blocks(dev, tpb) * dev->no_sm;
  cgp_l2 *l2 = cgp_l2_new(dev->l2_bytes, dev->l2_line_bytes, dev->l2_assoc, l2_index_of(dev));
  if (!l2) return;
  unsigned shift = log2u(dev->l2_line_bytes) - log2u(cgp_rt_g.line0);
  size_t nbatches = (w->nblk + bpb - 1) / bpb, used = 0;
  for (size_t j = 0; j < nbatches; j++)
    for (size_t b = j * bpb; b < (j + 1) * bpb && b < w->nblk; b++)
      if (w->blk[b].n) { used = j + 1; break; }
  int warmup = w->start > 0 && used >= 2;
  out->first_counted = w->start + (warmup ? bpb : 0);
  out->end = w->start + w->size;
  uint64_t *st = calloc(k->nmem ? k->nmem : 1, sizeof *st), *sm = calloc(k->nmem ? k->nmem : 1, sizeof *sm);
  for (size_t j = 0; j < used; j++) {
    size_t nw = 0, cap = 0, nblocks = 0;
    cgp_warp_trace *tr = NULL;
    uint64_t **pools = NULL;
    int count = !(warmup && j == 0);
    for (size_t b = j * bpb; b < (j + 1) * bpb && b < w->nblk; b++) {
      const rt_block *blk = &w->blk[b];
      nblocks += blk->n > 0;
      for (size_t i = 0; i < blk->n; i++) {
        const rt_warp *wp = blk->warp[i];
        if (nw == cap) {
          cap = cap ? 2 * cap : 64;
          tr = realloc(tr, cap * sizeof *tr);
          pools = realloc(pools, cap * sizeof *pools);
        }
        tr[nw].n = wp->n;
        if (shift) {
          cgp_winst *in;
          coarsen(wp, shift, &in, &pools[nw]);
          tr[nw].inst = in;
          tr[nw].lines = pools[nw];
        } else {
          tr[nw].inst = wp->inst;
          tr[nw].lines = wp->lines;
        }
        nw++;
        if (!count) continue;
        out->warps += 1;
        out->total_insts += wp->total_insts;
        out->core_insts += wp->core_insts;
        for (size_t m = 0; m < wp->n; m++) k->sid[d][wp->inst[m].sid].insts[wp->inst[m].cls]++;
      }
    }
    cgp_l2_run_batch(l2, tr, nw, count, &out->tot, st, sm, k->nmem);
    if (count) out->blocks += (double)nblocks;
    for (size_t i = 0; i < nw; i++)
      if (shift) { free((void *)tr[i].inst); free(pools[i]); }
    free(tr);
    free(pools);
  }
  for (size_t s = 0; s < k->nmem; s++) { k->sid[d][s].trans += st[s]; k->sid[d][s].miss += sm[s]; }
  free(st);
  free(sm);
  cgp_l2_free(l2);
}

void rt_window_analyze(rt_kernel *k, const rt_window *w, unsigned tpb, rt_wstat out[RT_MAX_DEVICES]) {
  for (size_t d = 0; d < cgp_rt_g.ndev; d++) analyze_device(k, w, tpb, d, &out[d]);
}
