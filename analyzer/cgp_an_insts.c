/* cgp_an_insts.c: instructions a warp issues (MODEL.md section 6). A block a warp executes
   costs its PTX-equivalent count once, however many of its lanes take part: lanes a loop or a
   branch leaves behind are masked, not free (their slots are counted by cgp_an_divergence.c). */
#include "cgp_analyzer.h"

#include <stdlib.h>

typedef struct {
  const cgp_analysis_cfg *cfg;
  int counting;
  cgp_totals t;
} insts;

static void *create(const cgp_analysis_cfg *cfg) {
  insts *a = calloc(1, sizeof *a);
  if (a) a->cfg = cfg;
  return a;
}

static void begin_batch(void *self, int counting, unsigned nwarps, unsigned nblocks) {
  insts *a = self;
  a->counting = counting;
  if (!counting) return;
  a->t.warps += nwarps;
  a->t.blocks += nblocks;
}

static double at(const double *v, uint32_t i) { return v ? v[i] : 0; }

static void block_exec(void *self, const cgp_block_exec *b) {
  insts *a = self;
  const cgp_analysis_cfg *c = a->cfg;
  if (!a->counting || b->bid >= c->nbid) return;
  double n = 1 + b->skipped;
  a->t.total_insts += n * at(c->bid_total, b->bid);
  a->t.core_insts += n * at(c->bid_core, b->bid);
  a->t.fp32_insts += n * at(c->bid_fp32, b->bid);
  a->t.fp64_insts += n * at(c->bid_fp64, b->bid);
  a->t.int_insts += n * at(c->bid_int, b->bid);
  a->t.sfu_insts += n * at(c->bid_sfu, b->bid);
}

static void results(void *self, cgp_totals *tot, cgp_site_totals *sites) {
  insts *a = self;
  (void)sites;
  tot->warps += a->t.warps;
  tot->blocks += a->t.blocks;
  tot->total_insts += a->t.total_insts;
  tot->core_insts += a->t.core_insts;
  tot->fp32_insts += a->t.fp32_insts;
  tot->fp64_insts += a->t.fp64_insts;
  tot->int_insts += a->t.int_insts;
  tot->sfu_insts += a->t.sfu_insts;
  a->t = (cgp_totals){0};
}

const cgp_analysis_ops cgp_an_insts = {.name = "insts", .create = create, .begin_batch = begin_batch,
                                       .block_exec = block_exec, .results = results, .destroy = free};
