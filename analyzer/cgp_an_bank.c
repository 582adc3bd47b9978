/* cgp_an_bank.c: bank conflicts of the sites whose array the pragma keeps in shared memory
   (shared(...)), MODEL.md section 8. Measured per site and reported; the time still charges
   those accesses as global ones until tile loads are modelled (docs/model.md, section 8). */
#include "cgp_analyzer.h"

#include <stdlib.h>

typedef struct {
  const cgp_analysis_cfg *cfg;
  int counting;
  double *deg;
} bank;

static void *create(const cgp_analysis_cfg *cfg) {
  bank *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->cfg = cfg;
  b->deg = calloc(cfg->nsid ? cfg->nsid : 1, sizeof *b->deg);
  if (!b->deg) { free(b); return NULL; }
  return b;
}

static void begin_batch(void *self, int counting, unsigned nwarps, unsigned nblocks) {
  (void)nwarps; (void)nblocks;
  ((bank *)self)->counting = counting;
}

static void warp_mem(void *self, const cgp_warp_mem *m) {
  bank *b = self;
  const cgp_analysis_cfg *c = b->cfg;
  if (!b->counting || m->sid >= c->nsid || !c->sid_shared || !c->sid_shared[m->sid]) return;
  b->deg[m->sid] += (1 + m->skipped) * cgp_bank_conflict_degree(m->addr, m->nact, m->size, c->smem_banks,
                                                                c->smem_bank_bytes);
}

static void results(void *self, cgp_totals *tot, cgp_site_totals *sites) {
  bank *b = self;
  (void)tot;
  for (size_t s = 0; s < b->cfg->nsid; s++) { sites[s].bank_degree_sum += b->deg[s]; b->deg[s] = 0; }
}

static void destroy(void *self) {
  bank *b = self;
  free(b->deg);
  free(b);
}

const cgp_analysis_ops cgp_an_bank = {.name = "bank", .create = create, .begin_batch = begin_batch,
                                      .warp_mem = warp_mem, .results = results, .destroy = destroy};
