/* cgp_an_divergence.c: what divergence costs a warp. A GPU runs the lanes of a warp in lockstep
   and reconverges them after a branch or a loop (SIMT stack, immediate post-dominator), so a
   block executed by some of the warp's threads but not all still takes the whole warp's issue
   slots: its PTX count is charged once (cgp_an_insts.c) and counted here as masked. A warp is
   divergent when any of its blocks or memory instructions ran with lanes masked. */
#include "cgp_analyzer.h"

#include <stdlib.h>

typedef struct {
  const cgp_analysis_cfg *cfg;
  int counting;
  unsigned nwarps;
  unsigned char *div;
  double masked, divergent, lanes;
} divergence;

static void *create(const cgp_analysis_cfg *cfg) {
  divergence *d = calloc(1, sizeof *d);
  if (d) d->cfg = cfg;
  return d;
}

static void begin_batch(void *self, int counting, unsigned nwarps, unsigned nblocks) {
  divergence *d = self;
  (void)nblocks;
  d->counting = counting;
  if (nwarps > d->nwarps) {
    unsigned char *p = realloc(d->div, nwarps);
    if (!p) { d->counting = 0; return; }
    d->div = p;
  }
  d->nwarps = nwarps;
  for (unsigned w = 0; w < nwarps; w++) d->div[w] = 0;
}

static void block_exec(void *self, const cgp_block_exec *b) {
  divergence *d = self;
  if (!d->counting || b->nact >= b->warp_threads) return;
  if (b->bid < d->cfg->nbid && d->cfg->bid_total) d->masked += (1 + b->skipped) * d->cfg->bid_total[b->bid];
  if (b->warp < d->nwarps) d->div[b->warp] = 1;
}

static void warp_mem(void *self, const cgp_warp_mem *m) {
  divergence *d = self;
  if (!d->counting) return;
  d->lanes += m->nact * cgp_warp_mem_lanes(m);
  if (m->nact < m->warp_threads && m->warp < d->nwarps) d->div[m->warp] = 1;
}

static void end_warp(void *self, unsigned warp) {
  divergence *d = self;
  if (d->counting && warp < d->nwarps) d->divergent += d->div[warp];
}

static void results(void *self, cgp_totals *tot, cgp_site_totals *sites) {
  divergence *d = self;
  (void)sites;
  tot->masked_slots += d->masked;
  tot->divergent_warps += d->divergent;
  tot->mem_lanes += d->lanes;
  d->masked = d->divergent = d->lanes = 0;
}

static void destroy(void *self) {
  divergence *d = self;
  free(d->div);
  free(d);
}

const cgp_analysis_ops cgp_an_divergence = {.name = "divergence", .create = create, .begin_batch = begin_batch,
                                            .block_exec = block_exec, .warp_mem = warp_mem, .end_warp = end_warp,
                                            .results = results, .destroy = destroy};
