/* cgp_analysis.c: the analyses of the product, and one device's set of them fed one stream. */
#include "cgp_analyzer.h"

#include <stdlib.h>

extern const cgp_analysis_ops cgp_an_classes, cgp_an_cache, cgp_an_insts, cgp_an_divergence, cgp_an_bank,
    cgp_an_deps;

const cgp_analysis_ops *const cgp_analyses[] = {&cgp_an_classes, &cgp_an_cache, &cgp_an_insts,
                                                &cgp_an_divergence, &cgp_an_bank, NULL};

const cgp_analysis_ops *const cgp_kernel_analyses[] = {&cgp_an_deps, NULL};

struct cgp_analysis_set {
  size_t n;
  const cgp_analysis_ops *ops[16];
  void *self[16];
  /* the analyses that take the two per-instruction calls, found once (most take one of them) */
  size_t nmem, nblock;
  void (*mem_fn[16])(void *, const cgp_warp_mem *);
  void *mem_self[16];
  void (*block_fn[16])(void *, const cgp_block_exec *);
  void *block_self[16];
  const cgp_analysis_cfg *cfg;
  cgp_tile *tile;                   /* a tiled kernel's rewriter in front of them, or NULL */
  cgp_analysis_set *whatif;         /* cfg->whatif's set, fed the same events */
  cgp_site_totals *whatif_sites;
  int whatif_fed;                   /* whatif is fed warps' instructions: it can still stand for
                                       tiled code (whatif_feeds) */
};

const cgp_analysis_set *cgp_analysis_whatif(const cgp_analysis_set *s) { return s ? s->whatif : NULL; }

const cgp_tile *cgp_analysis_tiler(const cgp_analysis_set *s) { return s ? s->tile : NULL; }

const cgp_deps *cgp_analysis_deps(const cgp_analysis_set *s) {
  for (size_t i = 0; s && i < s->n; i++)
    if (s->ops[i] == &cgp_an_deps) return cgp_an_deps_state(s->self[i]);
  return NULL;
}

static void dispatch_mem(void *ctx, const cgp_warp_mem *m) {
  cgp_analysis_set *s = ctx;
  for (size_t i = 0; i < s->nmem; i++) s->mem_fn[i](s->mem_self[i], m);
}

cgp_analysis_set *cgp_analysis_set_new(const cgp_analysis_cfg *cfg, const cgp_analysis_ops *const *ops) {
  cgp_analysis_set *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->cfg = cfg;
  if (cfg->whatif) {                /* optional: without memory for it, no what-if */
    s->whatif = cgp_analysis_set_new(cfg->whatif, ops);
    s->whatif_sites = calloc(cfg->nsid ? cfg->nsid : 1, sizeof *s->whatif_sites);
    if (!s->whatif || !s->whatif_sites) {
      cgp_analysis_set_free(s->whatif);
      free(s->whatif_sites);
      s->whatif = NULL;
      s->whatif_sites = NULL;
    }
    s->whatif_fed = s->whatif != NULL;
  }
  if (cfg->tile && cfg->tile_header >= 0 && cfg->sid_footprint) {
    if (!(s->tile = cgp_tile_new(cfg))) { cgp_analysis_set_free(s); return NULL; }
  }
  for (; *ops && s->n < 16; ops++) {
    void *self = (*ops)->create ? (*ops)->create(cfg) : NULL;
    if ((*ops)->create && !self) {
      cgp_analysis_set_free(s);
      return NULL;
    }
    s->ops[s->n] = *ops;
    s->self[s->n++] = self;
    if ((*ops)->warp_mem) {
      s->mem_fn[s->nmem] = (*ops)->warp_mem;
      s->mem_self[s->nmem++] = self;
    }
    if ((*ops)->block_exec) {
      s->block_fn[s->nblock] = (*ops)->block_exec;
      s->block_self[s->nblock++] = self;
    }
  }
  return s;
}

void cgp_analysis_set_free(cgp_analysis_set *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++)
    if (s->ops[i]->destroy) s->ops[i]->destroy(s->self[i]);
  cgp_tile_free(s->tile);
  cgp_analysis_set_free(s->whatif);
  free(s->whatif_sites);
  free(s);
}

/* A what-if whose virtual tile loop ended inside a tile (CGP_TILE_PARTIAL) stands for no tiled code
   from then on, for the rest of the kernel (the flag stays: rt_launch_stats_tiled refuses every
   launch of it), so it is fed no more of the warps' instructions, blocks and ends: analysing them
   cost CoMD's force loop, whose 18-atom loops are never a whole tile, 45 % of its run (docs/model.md
   8c). It still sees launches, windows and batches begin and end, and the warming. */
static int whatif_feeds(cgp_analysis_set *s) {
  if (s->whatif_fed && cgp_tile_partial(s->whatif->tile)) s->whatif_fed = 0;
  return s->whatif_fed;
}

#define EACH(call)                                                                           \
  for (size_t i = 0; i < s->n; i++)                                                          \
    if (s->ops[i]->call) s->ops[i]->call

void cgp_analysis_begin_launch(cgp_analysis_set *s) {
  if (s->whatif) cgp_analysis_begin_launch(s->whatif);
  if (s->tile) cgp_tile_begin_launch(s->tile);
  EACH(begin_launch)(s->self[i]);
}
void cgp_analysis_begin_window(cgp_analysis_set *s) {
  if (s->whatif) cgp_analysis_begin_window(s->whatif);
  EACH(begin_window)(s->self[i]);
}
void cgp_analysis_begin_batch(cgp_analysis_set *s, int counting, unsigned nwarps, unsigned nblocks) {
  if (s->whatif) cgp_analysis_begin_batch(s->whatif, counting, nwarps, nblocks);
  if (s->tile) cgp_tile_begin_batch(s->tile, counting, nwarps);
  EACH(begin_batch)(s->self[i], counting, nwarps, nblocks);
}
void cgp_analysis_warp_mem(cgp_analysis_set *s, const cgp_warp_mem *m) {
  if (whatif_feeds(s)) cgp_analysis_warp_mem(s->whatif, m);
  int32_t f = s->tile && m->sid < s->cfg->nsid ? s->cfg->sid_footprint[m->sid] : -1;
  if (f >= 0) cgp_tile_mem(s->tile, m, dispatch_mem, s);
  else if (f != CGP_TILE_REGISTER) dispatch_mem(s, m);
}
void cgp_analysis_block_exec(cgp_analysis_set *s, const cgp_block_exec *b) {
  if (whatif_feeds(s)) cgp_analysis_block_exec(s->whatif, b);
  const cgp_analysis_cfg *c = s->cfg;
  if (s->tile && (int)b->bid == c->tile_header) cgp_tile_header(s->tile, b->warp, dispatch_mem, s);
  else if (s->tile && c->tile_virtual && c->bid_in_tile_loop && b->bid < c->nbid && !c->bid_in_tile_loop[b->bid])
    cgp_tile_left(s->tile, b->warp, dispatch_mem, s);
  for (size_t i = 0; i < s->nblock; i++) s->block_fn[i](s->block_self[i], b);
}
void cgp_analysis_end_warp(cgp_analysis_set *s, unsigned warp) {
  if (whatif_feeds(s)) cgp_analysis_end_warp(s->whatif, warp);
  if (s->tile) cgp_tile_end_warp(s->tile, warp, dispatch_mem, s);
  EACH(end_warp)(s->self[i], warp);
}
void cgp_analysis_end_batch(cgp_analysis_set *s) {
  if (s->whatif) cgp_analysis_end_batch(s->whatif);
  EACH(end_batch)(s->self[i]);
}
void cgp_analysis_end_launch(cgp_analysis_set *s) {
  if (s->whatif) cgp_analysis_end_launch(s->whatif);
  EACH(end_launch)(s->self[i]);
}
void cgp_analysis_skip_blocks(cgp_analysis_set *s, double blocks) {
  if (s->whatif) cgp_analysis_skip_blocks(s->whatif, blocks);
  EACH(skip_blocks)(s->self[i], blocks);
}
void cgp_analysis_warm(cgp_analysis_set *s, const uint64_t *lo, const uint64_t *hi, size_t n) {
  if (s->whatif) cgp_analysis_warm(s->whatif, lo, hi, n);
  EACH(warm)(s->self[i], lo, hi, n);
}
void cgp_analysis_results(cgp_analysis_set *s, cgp_totals *tot, cgp_site_totals *sites) {
  EACH(results)(s->self[i], tot, sites);
  if (s->tile) cgp_tile_results(s->tile, tot, sites);
}
void cgp_analysis_whatif_results(cgp_analysis_set *s, cgp_totals *tot) {
  if (s->whatif) cgp_analysis_results(s->whatif, tot, s->whatif_sites);
}
