/* cgp_tile.c: a tiled loop nest's memory stream as its shared-memory CUDA port issues it
   (docs/model.md section 8b).

   The C code reads the arrays of shared(...) from global memory inside the tile loop; the CUDA
   port copies, once per tile iteration, the block's footprint of each (every element the block's
   threads touch through one address expression in that tile iteration) into shared memory, meets
   at a barrier, reads the copies, and meets again. So for each site of a footprint:
   - its accesses become shared-memory instructions at the element's place in the footprint, laid
     out row-major (the direction of smallest address step fastest; pad(n) elements after each
     row), whose bank conflicts the bank analysis counts;
   - nvcc unrolls the loop over one tile (its trip count is the constant tile(n)) and, on devices
     whose file says so (smem_load_vector_bytes, V), reads consecutive elements of a row with one
     V-byte load when the row moves along that loop and rows stay V-byte aligned (no padding, tile
     a multiple of V / element bytes): one instruction of V bytes per V / element iterations;
   - each tile iteration of a warp issues its share of the footprint's copy: element p of the
     footprint (row-major, no padding) is loaded by thread p mod T of the block's T threads, so
     warp w loads p = 32 w + lane + r T for r = 0, 1, ...: a global load of those elements and a
     shared store to their padded places;
   - each tile iteration costs every warp two barriers.
   The geometry is learned from the stream: the address step per thread coordinate (x, y, z; from
   two lanes, or two warps of one block at the first iteration of one tile, that differ in one
   coordinate) and per iteration of the loop over one tile (u: the same lane's next access). A
   direction whose extent is 1 steps by 0. Until every direction is known, shared instructions are
   counted without a degree (the site's mean degree is used, cgp_tile_results) and tile loads are
   not issued. */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

enum { DX, DY, DZ, DU, ND };

typedef struct {
  uint32_t sid;                   /* the first site: tile loads are reported under it */
  unsigned elem;
  int64_t s[ND];
  uint8_t known[ND];
  uint64_t E[ND];                 /* extents: block dims, tile */
  /* a reference access from the first iteration (u = 0) of one tile of one block */
  int has_ref;
  uint64_t ref_block, ref_tile, ref_key, ref_addr;
  /* geometry, once every direction is known */
  int ready, overlap;
  int nvar, order[ND];            /* varying directions, smallest step first */
  uint64_t lin[ND], coef[ND];     /* row-major position multipliers: unpadded, padded */
  uint64_t F;                     /* elements */
  uint64_t bytes, off;            /* shared bytes (padded), offset in the block's shared memory */
  unsigned vec;                   /* elements one shared load reads */
} foot;

typedef struct {                  /* per warp and footprint, in the warp's current tile */
  int have;                       /* an access seen in this tile */
  uint64_t key, addr;             /* the first one's lane 0: thread and address (u = 0) */
  double w;                       /* its weight */
} wfoot;

typedef struct {                  /* per warp and site */
  uint64_t u;                     /* accesses of the site in this tile so far */
  uint64_t key, addr;             /* lane 0 of the last one */
} wsite;

struct cgp_tile {
  const cgp_analysis_cfg *cfg;
  size_t nfoot;
  foot *f;
  int counting;
  unsigned nwarps, cap;
  uint64_t *wtile;                /* per warp: tile iterations begun */
  uint64_t *wruns;                /* per warp: header executions (a virtual tile loop) */
  uint8_t *win;                   /* per warp: a footprint access in this tile iteration */
  uint32_t (*lane_off)[CGP_WARP][3]; /* per warp: each lane's offset in its block (cgp_thread_block) */
  uint64_t *wblock;               /* per warp: its block; valid when lane_ok */
  uint8_t *lane_ok;
  uint64_t (*lin)[CGP_WARP];      /* nwarps x nfoot: each lane's part of a learned footprint's shared
                                     address, its offsets times their multipliers (tile_mem); valid
                                     where lin_ok, as lane_off is where lane_ok */
  uint8_t *lin_ok;                /* 0: lin not computed yet; 1: computed; 2: and on one stride
                                     over the lanes (cgp_affine), so a whole warp's shared
                                     addresses are too */
  wfoot *wf;                      /* nwarps x nfoot */
  wsite *ws;                      /* nwarps x nsid */
  double sync, loads, merged;
  double *deferred;               /* per site and class: shared instructions without a degree */
  unsigned flags;
};

static uint64_t warp_in_block(const cgp_tile *t, uint64_t key) {
  uint64_t off[3];
  cgp_thread_block(t->cfg, key, off);
  uint64_t bx = t->cfg->block[0] ? t->cfg->block[0] : 1, by = t->cfg->block[1] ? t->cfg->block[1] : 1;
  return (off[0] + off[1] * bx + off[2] * bx * by) / CGP_WARP;
}

cgp_tile *cgp_tile_new(const cgp_analysis_cfg *cfg) {
  if (!cfg->tile || cfg->tile_header < 0 || !cfg->sid_footprint) return NULL;
  size_t nf = 0;
  for (size_t s = 0; s < cfg->nsid; s++)
    if (cfg->sid_footprint[s] >= 0 && (size_t)cfg->sid_footprint[s] + 1 > nf) nf = (size_t)cfg->sid_footprint[s] + 1;
  if (!nf) return NULL;
  cgp_tile *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->cfg = cfg;
  t->nfoot = nf;
  t->f = calloc(nf, sizeof *t->f);
  t->deferred = calloc(cfg->nsid * CGP_NCLASS + 1, sizeof *t->deferred);
  if (!t->f || !t->deferred) { cgp_tile_free(t); return NULL; }
  for (size_t i = 0; i < nf; i++) t->f[i].sid = UINT32_MAX;
  for (size_t s = 0; s < cfg->nsid; s++) {
    int32_t fi = cfg->sid_footprint[s];
    if (fi >= 0 && t->f[fi].sid == UINT32_MAX) t->f[fi].sid = (uint32_t)s;
  }
  cgp_tile_begin_launch(t);
  return t;
}

void cgp_tile_free(cgp_tile *t) {
  if (!t) return;
  free(t->f); free(t->wtile); free(t->wruns); free(t->win); free(t->lane_off); free(t->wblock); free(t->lane_ok); free(t->lin); free(t->lin_ok); free(t->wf); free(t->ws); free(t->deferred);
  free(t);
}

/* A new launch: geometry is learned again (the arrays' rows may have another length). */
void cgp_tile_begin_launch(cgp_tile *t) {
  for (size_t i = 0; i < t->nfoot; i++) {
    foot *f = &t->f[i];
    uint32_t sid = f->sid;
    *f = (foot){.sid = sid};
    for (int d = 0; d < 3; d++) f->E[d] = t->cfg->block[d] ? t->cfg->block[d] : 1;
    f->E[DU] = t->cfg->tile;
    for (int d = 0; d < ND; d++)
      if (f->E[d] <= 1) f->known[d] = 1;
  }
}

int cgp_tile_begin_batch(cgp_tile *t, int counting, unsigned nwarps) {
  t->counting = counting;
  if (nwarps > t->cap) {
    size_t n = nwarps;
    uint64_t *wt = realloc(t->wtile, n * sizeof *wt), *wr = realloc(t->wruns, n * sizeof *wr);
    if (wt) t->wtile = wt;
    if (wr) t->wruns = wr;
    uint8_t *wi = realloc(t->win, n), *lo = realloc(t->lane_ok, n);
    if (wi) t->win = wi;
    if (lo) t->lane_ok = lo;
    uint32_t (*lf)[CGP_WARP][3] = realloc(t->lane_off, n * sizeof *lf);
    if (lf) t->lane_off = lf;
    uint64_t *wb = realloc(t->wblock, n * sizeof *wb);
    if (wb) t->wblock = wb;
    wfoot *wf = realloc(t->wf, n * t->nfoot * sizeof *wf);
    if (wf) t->wf = wf;
    size_t nl = n * t->nfoot > 0 ? n * t->nfoot : 1;
    uint64_t (*ln)[CGP_WARP] = realloc(t->lin, nl * sizeof *ln);
    if (ln) t->lin = ln;
    uint8_t *lk = realloc(t->lin_ok, nl);
    if (lk) t->lin_ok = lk;
    wsite *ws = realloc(t->ws, n * (t->cfg->nsid ? t->cfg->nsid : 1) * sizeof *ws);
    if (ws) t->ws = ws;
    if (!wt || !wr || !wi || !lo || !lf || !wb || !wf || !ws || !ln || !lk) { t->nwarps = 0; return -1; }
    t->cap = nwarps;
  }
  t->nwarps = nwarps;
  memset(t->wtile, 0, nwarps * sizeof *t->wtile);
  memset(t->wruns, 0, nwarps * sizeof *t->wruns);
  memset(t->win, 0, nwarps);
  memset(t->lane_ok, 0, nwarps);
  memset(t->lin_ok, 0, nwarps * t->nfoot);
  memset(t->wf, 0, nwarps * t->nfoot * sizeof *t->wf);
  memset(t->ws, 0, nwarps * (t->cfg->nsid ? t->cfg->nsid : 1) * sizeof *t->ws);
  return 0;
}

/* Solve for the one unknown direction whose coordinate differs: da = sum_d s_d dd. */
static void learn(foot *f, const int64_t dd[ND], int64_t da) {
  int unknown = -1;
  for (int d = 0; d < ND; d++) {
    if (!dd[d]) continue;
    /* addresses wrap modulo 2^64 (hostile traces too): unsigned arithmetic */
    if (f->known[d]) { da = (int64_t)((uint64_t)da - (uint64_t)f->s[d] * (uint64_t)dd[d]); continue; }
    if (unknown >= 0) return;                /* two unknowns: nothing to learn */
    unknown = d;
  }
  if (unknown < 0 || (dd[unknown] == -1 && da == INT64_MIN) || da % dd[unknown]) return;
  f->s[unknown] = da / dd[unknown];
  f->known[unknown] = 1;
}

static uint64_t mag(int64_t v) { return v < 0 ? 0 - (uint64_t)v : (uint64_t)v; }

/* Every direction known: the row-major layout. */
static void settle(cgp_tile *t, foot *f) {
  for (int d = 0; d < ND; d++)
    if (!f->known[d]) return;
  f->nvar = 0;
  for (int d = 0; d < ND; d++)
    if (f->s[d] && f->E[d] > 1) f->order[f->nvar++] = d;
  for (int i = 1; i < f->nvar; i++)          /* insertion sort by step magnitude */
    for (int j = i; j > 0 && mag(f->s[f->order[j]]) < mag(f->s[f->order[j - 1]]); j--) {
      int x = f->order[j]; f->order[j] = f->order[j - 1]; f->order[j - 1] = x;
    }
  unsigned pad = t->cfg->sid_pad && f->sid < t->cfg->nsid ? t->cfg->sid_pad[f->sid] : 0;
  uint64_t lin = 1, coef = 1;
  for (int i = 0; i < f->nvar; i++) {
    int d = f->order[i];
    if (i > 0 && mag(f->s[d]) < mag(f->s[f->order[i - 1]]) * f->E[f->order[i - 1]]) f->overlap = 1;
    f->lin[d] = lin;
    f->coef[d] = coef;
    lin *= f->E[d];
    coef *= f->E[d] + (i == 0 ? pad : 0);
  }
  f->F = lin;
  f->bytes = coef * f->elem;
  f->vec = 1;
  unsigned vb = t->cfg->smem_vector_bytes;
  if (f->nvar && f->order[0] == DU && f->s[DU] == (int64_t)f->elem && !pad && f->elem &&
      vb > f->elem && vb % f->elem == 0 && t->cfg->tile % (vb / f->elem) == 0)
    f->vec = vb / f->elem;
  f->ready = 1;
  if (f->overlap) t->flags |= CGP_TILE_OVERLAP;
  uint64_t off = 0;                          /* footprints one after another, 128-byte aligned */
  for (size_t i = 0; i < t->nfoot; i++) {
    t->f[i].off = off;
    off += (t->f[i].bytes + 127) / 128 * 128;
  }
}

uint64_t cgp_tile_smem_bytes(const cgp_tile *t) {
  uint64_t b = 0;
  for (size_t i = 0; t && i < t->nfoot; i++) b += t->f[i].bytes;
  return b;
}

unsigned cgp_tile_flags(const cgp_tile *t) {
  unsigned fl = t ? t->flags : 0;
  for (size_t i = 0; t && i < t->nfoot; i++)
    if (t->f[i].sid != UINT32_MAX && !t->f[i].ready) fl |= CGP_TILE_UNLEARNED;
  return fl;
}

int cgp_tile_partial(const cgp_tile *t) { return t && (t->flags & CGP_TILE_PARTIAL); }

static uint64_t position(const foot *f, const uint64_t off[3], uint64_t u, const uint64_t *mult) {
  uint64_t c[ND] = {off[0], off[1], off[2], u}, p = 0;
  for (int i = 0; i < f->nvar; i++) p += mult[f->order[i]] * c[f->order[i]];
  return p;
}

/* The offsets in its block of every lane of m's warp (a warp's threads are fixed within a batch:
   computed once), and its block. */
static const uint32_t (*lanes_of(cgp_tile *t, const cgp_warp_mem *m, uint64_t *block))[3] {
  uint32_t (*lo)[3] = t->lane_off[m->warp];
  if (!t->lane_ok[m->warp]) {
    for (unsigned l = 0; l < CGP_WARP; l++) {
      uint64_t off[3], b;
      b = cgp_thread_block(t->cfg, m->thread[l], off);
      for (int d = 0; d < 3; d++) lo[l][d] = (uint32_t)off[d];
      if (l == m->lane[0]) t->wblock[m->warp] = b;
    }
    t->lane_ok[m->warp] = 1;
  }
  *block = t->wblock[m->warp];
  return (const uint32_t (*)[3])lo;
}

void cgp_tile_mem(cgp_tile *t, const cgp_warp_mem *m, cgp_tile_emit emit, void *ctx) {
  int32_t fi = t->cfg->sid_footprint[m->sid];
  foot *f = &t->f[fi];
  if (!f->elem) f->elem = m->size;
  if (m->warp >= t->nwarps || !m->nact) return;
  wfoot *wf = &t->wf[(size_t)m->warp * t->nfoot + fi];
  wsite *ws = &t->ws[(size_t)m->warp * t->cfg->nsid + m->sid];
  uint64_t key0 = m->thread[m->lane[0]], blk;
  const uint32_t (*lo)[3] = lanes_of(t, m, &blk);
  const uint32_t *off0 = lo[m->lane[0]];
  uint64_t u = ws->u++;
  t->win[m->warp] = 1;
  if (!f->ready) {                          /* learn the steps */
    for (unsigned l = 1; l < m->nact; l++) {
      const uint32_t *off = lo[m->lane[l]];
      int64_t dd[ND] = {(int64_t)off[0] - off0[0], (int64_t)off[1] - off0[1], (int64_t)off[2] - off0[2], 0};
      learn(f, dd, (int64_t)(m->addr[l] - m->addr[0]));
    }
    if (u > 0 && ws->key == key0) learn(f, (const int64_t[ND]){0, 0, 0, 1}, (int64_t)(m->addr[0] - ws->addr));
    uint64_t tile = t->wtile[m->warp];
    if (u == 0) {
      if (f->has_ref && f->ref_block == blk && f->ref_tile == tile && f->ref_key != key0) {
        uint64_t roff[3];
        cgp_thread_block(t->cfg, f->ref_key, roff);
        int64_t dd[ND] = {(int64_t)off0[0] - (int64_t)roff[0], (int64_t)off0[1] - (int64_t)roff[1],
                          (int64_t)off0[2] - (int64_t)roff[2], 0};
        learn(f, dd, (int64_t)(m->addr[0] - f->ref_addr));
      } else if (!f->has_ref || f->ref_block != blk || f->ref_tile != tile) {
        f->has_ref = 1; f->ref_block = blk; f->ref_tile = tile; f->ref_key = key0; f->ref_addr = m->addr[0];
      }
    }
    settle(t, f);
  }
  ws->key = key0;
  ws->addr = m->addr[0];
  if (u == 0 && !wf->have) { wf->have = 1; wf->key = key0; wf->addr = m->addr[0]; wf->w = 1 + m->skipped; }
  double w = 1 + m->skipped;
  if (!f->ready) {
    if (t->counting) t->deferred[m->sid * CGP_NCLASS + (m->cls < CGP_NCLASS ? m->cls : CGP_CLASS_UNCOAL)] += w;
    return;
  }
  if (f->vec > 1 && u % f->vec) {            /* read by the 16-byte load of an earlier iteration */
    if (t->counting) t->merged += w;
    return;
  }
  /* position() times the element size is linear in the offsets and the iteration (modulo 2^64,
     as position's sum): each direction's multiplier times the element, 0 where the footprint does
     not vary; a lane's offsets' part is its warp's for the batch (lin) */
  uint64_t k[ND] = {0, 0, 0, 0}, sh[CGP_WARP];
  for (int i = 0; i < f->nvar; i++) k[f->order[i]] = f->coef[f->order[i]] * f->elem;
  size_t wfi = (size_t)m->warp * t->nfoot + (size_t)fi;
  uint64_t *lin = t->lin[wfi], base = f->off + k[DU] * u;
  if (!t->lin_ok[wfi]) {
    for (unsigned l = 0; l < CGP_WARP; l++) lin[l] = k[DX] * lo[l][0] + k[DY] * lo[l][1] + k[DZ] * lo[l][2];
    t->lin_ok[wfi] = (uint8_t)(1 + cgp_affine(lin, CGP_WARP));
  }
  unsigned n = m->nact < CGP_WARP ? m->nact : CGP_WARP;
  if (n == CGP_WARP) {                       /* every lane, in lane order (cgp_warp_mem): lane l is l */
    for (unsigned l = 0; l < CGP_WARP; l++) sh[l] = base + lin[l];
  } else {
    for (unsigned l = 0; l < n; l++) sh[l] = base + lin[m->lane[l]];
  }
  cgp_warp_mem s = *m;
  s.addr = sh;
  /* the bank analysis reads it (the only one a shared instruction's affine matters to): every
     lane, lanes 0 .. 31 in order, takes lin's stride; else the lanes' own */
  s.affine = (uint8_t)(n == CGP_WARP && t->lin_ok[wfi] == 2 ? 1 : cgp_affine(sh, n));
  s.size = f->elem * f->vec;
  s.space = CGP_SPACE_SHARED;
  emit(ctx, &s);
}

/* The copy's element at indices idx of footprint f, whose element 0 the warp reads at global
   address base: its global address and its (padded) place in shared memory. */
static void copy_at(const foot *f, const uint64_t idx[ND], uint64_t base, uint64_t *ga, uint64_t *sa) {
  uint64_t a = base;
  for (int i = 0; i < f->nvar; i++) a += (uint64_t)f->s[f->order[i]] * idx[f->order[i]];
  *ga = a;
  *sa = f->off + position(f, idx, idx[DU], f->coef) * f->elem;
}

/* Warp `warp`'s share of each footprint's copy for the tile iteration it just finished. */
static void finish_tile(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx) {
  if (warp >= t->nwarps || !t->win[warp]) return;
  t->win[warp] = 0;
  double wmax = 1;
  uint64_t T = (uint64_t)(t->cfg->block[0] ? t->cfg->block[0] : 1) * (t->cfg->block[1] ? t->cfg->block[1] : 1) *
               (t->cfg->block[2] ? t->cfg->block[2] : 1);
  for (size_t fi = 0; fi < t->nfoot; fi++) {
    wfoot *wf = &t->wf[(size_t)warp * t->nfoot + fi];
    foot *f = &t->f[fi];
    if (!wf->have) continue;
    wf->have = 0;
    if (wf->w > wmax) wmax = wf->w;
    if (!f->ready) continue;
    uint64_t off0[3];
    cgp_thread_block(t->cfg, wf->key, off0);
    int64_t base = (int64_t)wf->addr;
    for (int d = 0; d < 3; d++) base = (int64_t)((uint64_t)base - (uint64_t)f->s[d] * off0[d]);
    uint64_t wl = warp_in_block(t, wf->key);
    uint64_t ga[CGP_WARP], sa[CGP_WARP], keys[CGP_WARP];
    uint8_t lanes[CGP_WARP];
    /* along the fastest direction (order[0]) the next element's addresses are this one's plus
       its steps; where it wraps to 0, carrying into a slower direction, both are computed anew
       from the indices (copy_at) */
    int o = f->nvar ? f->order[0] : DU;
    uint64_t da = f->nvar ? (uint64_t)f->s[o] : 0, ds = f->nvar ? f->coef[o] * f->elem : 0;
    for (uint64_t p0 = wl * CGP_WARP; p0 < f->F; p0 += T) {
      unsigned n = 0;
      uint64_t idx[ND] = {0};                /* element p0's indices, then counted up lane by lane */
      for (int i = 0; i < f->nvar; i++) idx[f->order[i]] = p0 / f->lin[f->order[i]] % f->E[f->order[i]];
      int wrapped = 1, carried = 0;          /* carried: a wrap between two of the lanes */
      for (unsigned l = 0; l < CGP_WARP && p0 + l < f->F; l++, n++) {
        if (wrapped) {
          carried |= l > 0;
          copy_at(f, idx, (uint64_t)base, &ga[l], &sa[l]);
        } else {
          ga[l] = ga[l - 1] + da;
          sa[l] = sa[l - 1] + ds;
        }
        lanes[l] = (uint8_t)l;
        keys[l] = wf->key;
        wrapped = 0;
        for (int i = 0; i < f->nvar && ++idx[f->order[i]] == f->E[f->order[i]]; i++) {
          idx[f->order[i]] = 0;
          wrapped = 1;
        }
      }
      cgp_warp_mem g = {.sid = f->sid, .kind = CGP_LOAD, .nact = (uint8_t)n, .warp_threads = CGP_WARP,
                        .size = f->elem, .addr = ga, .lane = lanes, .thread = keys, .warp = warp,
                        .skipped = wf->w - 1, .space = CGP_SPACE_GLOBAL, .on_stride = 1};
      /* lanes that did not wrap are da (ds) apart, each from the one before: on one stride */
      g.affine = (uint8_t)(carried ? cgp_affine(ga, n) : n >= 2);
      g.cls = (uint8_t)cgp_classify_known(ga, n, g.size, g.affine);
      emit(ctx, &g);
      cgp_warp_mem s = g;
      s.sid = UINT32_MAX;                    /* the copy's store: no site of the source */
      s.kind = CGP_STORE;
      s.addr = sa;
      s.space = CGP_SPACE_SHARED;
      s.affine = (uint8_t)(carried ? cgp_affine(sa, n) : n >= 2);
      s.cls = (uint8_t)cgp_classify_known(sa, n, s.size, s.affine);
      emit(ctx, &s);
      if (t->counting) t->loads += wf->w;
    }
  }
  if (t->counting) t->sync += 2 * wmax;
}

void cgp_tile_header(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx) {
  if (warp >= t->nwarps) return;
  if (t->cfg->tile_virtual && t->wruns[warp]++ % t->cfg->tile) return;   /* inside a tile */
  finish_tile(t, warp, emit, ctx);
  t->wtile[warp]++;
  for (size_t s = 0; s < t->cfg->nsid; s++) t->ws[(size_t)warp * t->cfg->nsid + s].u = 0;
}

void cgp_tile_end_warp(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx) { cgp_tile_left(t, warp, emit, ctx); }

void cgp_tile_left(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx) {
  if (warp >= t->nwarps) return;
  /* a virtual tile loop that ended inside a tile: the loop is not a whole number of tiles */
  if (t->cfg->tile_virtual && t->wruns[warp] % t->cfg->tile) t->flags |= CGP_TILE_PARTIAL;
  if (t->cfg->tile_virtual) t->wruns[warp] = 0;
  finish_tile(t, warp, emit, ctx);
}

void cgp_tile_results(cgp_tile *t, cgp_totals *tot, cgp_site_totals *sites) {
  tot->sync_insts += t->sync;
  tot->tile_load_insts += t->loads;
  /* a tile load is a global load and a shared store; a merged read is one instruction less */
  tot->total_insts += t->sync + 2 * t->loads - t->merged;
  for (size_t s = 0; s < t->cfg->nsid; s++) {
    double deg = sites[s].smem_insts > 0 ? sites[s].bank_degree_sum / sites[s].smem_insts : 1;
    for (int c = 0; c < CGP_NCLASS; c++) {
      double n = t->deferred[s * CGP_NCLASS + c];
      if (!n) continue;
      sites[s].smem_insts += n;
      sites[s].bank_degree_sum += deg * n;
      tot->smem_insts[c] += n;
      tot->smem_conflict[c] += deg * n;
      tot->lsu_wavefronts += deg * n;
    }
  }
  memset(t->deferred, 0, t->cfg->nsid * CGP_NCLASS * sizeof *t->deferred);
  t->sync = t->loads = t->merged = 0;
}
