/* cgp_an_bank.c: bank conflicts of shared-memory accesses (MODEL.md section 8, docs/model.md 8b).
   A tiled kernel's shared-memory instructions (the tiler's, space CGP_SPACE_SHARED, addresses
   offsets in shared memory) count by class with their degree, and take one LSU wavefront per
   conflicting pass (the degree: the L1 and shared memory share the data path). Without tiling,
   the accesses of shared(...) arrays are still global ones; their degree at their global
   addresses is measured per site and only reported. */
#include "cgp_analyzer.h"

#include <stdlib.h>

typedef struct {
  const cgp_analysis_cfg *cfg;
  int counting;
  double *deg, *insts;
  cgp_totals t;
} bank;

static void *create(const cgp_analysis_cfg *cfg) {
  bank *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->cfg = cfg;
  b->deg = calloc(cfg->nsid ? cfg->nsid : 1, sizeof *b->deg);
  b->insts = calloc(cfg->nsid ? cfg->nsid : 1, sizeof *b->insts);
  if (!b->deg || !b->insts) { free(b->deg); free(b->insts); free(b); return NULL; }
  return b;
}

static void begin_batch(void *self, int counting, unsigned nwarps, unsigned nblocks) {
  (void)nwarps; (void)nblocks;
  ((bank *)self)->counting = counting;
}

static void warp_mem(void *self, const cgp_warp_mem *m) {
  bank *b = self;
  const cgp_analysis_cfg *c = b->cfg;
  if (!b->counting) return;
  double w = 1 + m->skipped;
  if (m->space == CGP_SPACE_SHARED) {
    unsigned deg = cgp_bank_wavefronts_known(m->addr, m->lane, m->nact, m->size, c->smem_banks, c->smem_bank_bytes,
                                             m->affine);
    double d = deg ? deg : 1;
    int cls = m->cls < CGP_NCLASS ? m->cls : CGP_CLASS_UNCOAL;
    b->t.smem_insts[cls] += w;
    b->t.smem_conflict[cls] += w * d;
    b->t.lsu_wavefronts += w * d;
    if (m->sid < c->nsid) { b->deg[m->sid] += w * d; b->insts[m->sid] += w; }
    return;
  }
  if (m->sid >= c->nsid || !c->sid_shared || !c->sid_shared[m->sid]) return;
  if (c->sid_footprint && c->sid_footprint[m->sid] >= 0) return;   /* tiled: its copy's global loads */
  b->deg[m->sid] += w * cgp_bank_conflict_degree_known(m->addr, m->nact, m->size, c->smem_banks, c->smem_bank_bytes,
                                                       m->affine);
}

static void results(void *self, cgp_totals *tot, cgp_site_totals *sites) {
  bank *b = self;
  for (int c = 0; c < CGP_NCLASS; c++) {
    tot->smem_insts[c] += b->t.smem_insts[c];
    tot->smem_conflict[c] += b->t.smem_conflict[c];
  }
  tot->lsu_wavefronts += b->t.lsu_wavefronts;
  b->t = (cgp_totals){0};
  for (size_t s = 0; s < b->cfg->nsid; s++) {
    sites[s].bank_degree_sum += b->deg[s];
    sites[s].smem_insts += b->insts[s];
    b->deg[s] = b->insts[s] = 0;
  }
}

static void destroy(void *self) {
  bank *b = self;
  free(b->deg);
  free(b->insts);
  free(b);
}

const cgp_analysis_ops cgp_an_bank = {.name = "bank", .create = create, .begin_batch = begin_batch,
                                      .warp_mem = warp_mem, .results = results, .destroy = destroy};
