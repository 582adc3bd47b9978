/* cgp_an_classes.c: how many warp memory instructions of each class a warp issues (MODEL.md
   section 3). Loads by class; stores and atomics apart, since a warp does not wait for them
   (docs/model.md, "Stores"). The class itself is computed once per instruction by the runtime
   (cgp_classify), as it does not depend on the device. */
#include "cgp_analyzer.h"

#include <stdlib.h>

typedef struct {
  int counting;
  size_t nsid;
  cgp_totals t;
  cgp_site_totals *site;
  uint64_t out[2 * CGP_WARP];       /* cgp_lines_known's sectors */
} classes;

static void *create(const cgp_analysis_cfg *cfg) {
  classes *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->nsid = cfg->nsid;
  c->site = calloc(cfg->nsid ? cfg->nsid : 1, sizeof *c->site);
  if (!c->site) { free(c); return NULL; }
  return c;
}

static void begin_batch(void *self, int counting, unsigned nwarps, unsigned nblocks) {
  (void)nwarps; (void)nblocks;
  ((classes *)self)->counting = counting;
}

static void warp_mem(void *self, const cgp_warp_mem *m) {
  classes *c = self;
  if (!c->counting || m->cls >= CGP_NCLASS || m->space == CGP_SPACE_SHARED) return;
  double n = 1 + m->skipped;
  if (m->kind == CGP_LOAD) {
    c->t.ld_insts[m->cls] += n;
    if (m->overlap) c->t.ld_overlap[m->cls] += n;
  } else {
    c->t.st_insts += n;
  }
  if (m->sid < c->nsid) {
    c->site[m->sid].insts[m->cls] += n;
    c->site[m->sid].lanes += cgp_warp_mem_lanes(m) * m->nact;   /* what its lanes ran */
    if (m->cls == CGP_CLASS_UNCOAL && m->kind == CGP_LOAD && m->on_stride) c->site[m->sid].uncoal_on_stride += n;
    if (m->size <= CGP_SECTOR_BYTES && m->nact <= CGP_WARP)
      c->site[m->sid].sectors +=
          cgp_warp_mem_per_lanes(m, cgp_lines_known(m->addr, m->nact, m->size, CGP_SECTOR_BYTES, m->affine, c->out));
  }
}

static void results(void *self, cgp_totals *tot, cgp_site_totals *sites) {
  classes *c = self;
  for (int k = 0; k < CGP_NCLASS; k++) {
    tot->ld_insts[k] += c->t.ld_insts[k];
    tot->ld_overlap[k] += c->t.ld_overlap[k];
  }
  tot->st_insts += c->t.st_insts;
  for (size_t s = 0; s < c->nsid; s++) {
    for (int k = 0; k < CGP_NCLASS; k++) sites[s].insts[k] += c->site[s].insts[k];
    sites[s].lanes += c->site[s].lanes;
    sites[s].sectors += c->site[s].sectors;
    sites[s].uncoal_on_stride += c->site[s].uncoal_on_stride;
    c->site[s] = (cgp_site_totals){0};
  }
  c->t = (cgp_totals){0};
}

static void destroy(void *self) {
  classes *c = self;
  free(c->site);
  free(c);
}

const cgp_analysis_ops cgp_an_classes = {.name = "classes", .create = create, .begin_batch = begin_batch,
                                         .warp_mem = warp_mem, .results = results, .destroy = destroy};
