/* cgp_rt_warp.c: reconvergent warps from lanes recorded one after another (cgp_rt_warp.h; the lanes: cgp_rt_lanes.h): a
   warp's runs grouped across its lanes (cgp_rt_wwarp.h), in memory pools by size. Recording the
   lanes is cgp_rt_lanes.c's, issuing a warp's events in order cgp_rt_witer.c's, a warp as the
   trace file's bytes cgp_rt_wbytes.c's.

   Loops nested deeper than RT_MAXD - 1 inside the thread body are not told apart: their blocks
   count as blocks of their ancestor at that depth, so two iterations of such a loop share a key.
   The iterator never puts one lane twice into an instruction, so such events still issue in lane
   lockstep, one per iteration in order; only their interleaving with other sites is approximate. */
#include "cgp_rt_warp.h"
#include "cgp_rt_witer.h"
#include "cgp_rt_wwarp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const rt_run *r;
  uint32_t lane;
} lane_run;

static const rt_shape *sort_shape;   /* the shape the qsort comparators below read */

/* Order of runs by program point of their first element, then lane. */
static int cmp_first(const void *a, const void *b) {
  const lane_run *x = a, *y = b;
  if (x->r->ev != y->r->ev) return x->r->ev < y->r->ev ? -1 : 1;
  unsigned m = sort_shape->depth[x->r->ev];
  for (unsigned j = 0; j < m; j++)
    if (x->r->t[j] != y->r->t[j]) return x->r->t[j] < y->r->t[j] ? -1 : 1;
  return x->lane < y->lane ? -1 : x->lane > y->lane;
}

static int cmp_run_start(const void *a, const void *b) {
  return rt_wrun_cmp_points(sort_shape, a, 0, b, 0);
}

static int same_point(const rt_shape *s, const rt_run *x, const rt_run *y) {
  if (x->ev != y->ev) return 0;
  for (unsigned j = 0, m = s->depth[x->ev]; j < m; j++)     /* mostly 0 or 1 levels: no memcmp call */
    if (x->t[j] != y->t[j]) return 0;
  return 1;
}

/* Lane's run r joins group wr as segment `at`. */
static void put_seg(rt_wwarp *w, rt_wrun *wr, size_t at, uint32_t lane, const rt_run *r) {
  w->seg[at] = (rt_seg){lane, r->count, r->a0, r->stride};
  rt_wrun_add_lane(wr, wr->nseg, r->skipped);
  if (r->count > wr->maxcount) wr->maxcount = r->count;
  if (!wr->nseg || r->count < wr->mincount) wr->mincount = r->count;
  wr->lanes |= UINT32_C(1) << lane;
  wr->nseg++;
}

static void add_seg(rt_wwarp *w, rt_wrun *wr, uint32_t lane, const rt_run *r) {
  put_seg(w, wr, w->nseg++, lane, r);
}

static rt_wrun *new_wrun(rt_wwarp *w, const rt_run *r) {
  rt_wrun *wr = &w->run[w->nrun++];
  memset(wr, 0, sizeof *wr);
  wr->ev = r->ev;
  memcpy(wr->t, r->t, sizeof wr->t);
  wr->seg0 = (uint32_t)w->nseg;
  return wr;
}

/* The reference grouping: every lane's runs sorted by (event, iterations, lane); a group is one
   program point, each lane at most once. */
static void group_sorted(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                         lane_run *all, size_t total, rt_wwarp *w) {
  size_t k = 0;
  for (unsigned l = 0; l < RT_WARP; l++)
    if (active[l])
      for (size_t i = 0; i < lanes[l].n; i++) all[k++] = (lane_run){&lanes[l].run[i], l};
  sort_shape = s;
  qsort(all, total, sizeof *all, cmp_first);
  for (size_t i = 0; i < total;) {
    rt_wrun *wr = new_wrun(w, all[i].r);
    uint32_t last_lane = UINT32_MAX;
    for (; i < total; i++) {
      const rt_run *r = all[i].r;
      if (r->ev != wr->ev || memcmp(r->t, wr->t, s->depth[r->ev] * sizeof *r->t) != 0) break;
      if (all[i].lane == last_lane) break;     /* a lane twice at one point: a run of its own */
      last_lane = all[i].lane;
      add_seg(w, wr, all[i].lane, r);
    }
  }
}

/* Lanes that recorded the same program points in the same order (straight-line bodies, loops of
   one trip count: most warps): group i is every lane's run i, in lane order, with no sort. 0
   when they differ. */
static int group_direct(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                        rt_wwarp *w) {
  unsigned first = 0;
  while (first < RT_WARP && !active[first]) first++;
  if (first == RT_WARP) return 1;
  const rt_lane_rec *f = &lanes[first];
  for (unsigned l = first + 1; l < RT_WARP; l++) {
    if (!active[l]) continue;
    if (lanes[l].n != f->n) return 0;
    for (size_t i = 0; i < f->n; i++)
      if (!same_point(s, &lanes[l].run[i], &f->run[i])) return 0;
  }
  for (size_t i = 0; i < f->n; i++) {
    rt_wrun *wr = new_wrun(w, &f->run[i]);
    for (unsigned l = first; l < RT_WARP; l++)
      if (active[l]) add_seg(w, wr, l, &lanes[l].run[i]);
  }
  return 1;
}

static uint32_t point_hash(const rt_shape *s, const rt_run *r) {
  uint32_t h = r->ev * UINT32_C(0x9e3779b1);
  for (unsigned j = 0, m = s->depth[r->ev]; j < m; j++) h = (h ^ r->t[j]) * UINT32_C(0x85ebca77);
  return h ^ h >> 15;
}

/* Lanes that recorded different points (index guards, loops of different trip counts): the
   groups of the reference found by hashing each run's point instead of sorting every run; a
   group's segments in lane order, as the sorted grouping puts them. 0 (w emptied) when a lane
   has two runs at one point, whose grouping the reference decides, or when out of memory. */
static int group_hashed(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                        size_t total, rt_wwarp *w) {
  size_t tsize = 16;
  while (tsize < 2 * total) tsize <<= 1;
  uint32_t *slot = malloc(tsize * sizeof *slot), *group = malloc(total * sizeof *group);
  const rt_run **rep = malloc(total * sizeof *rep);
  size_t *fill = malloc(total * sizeof *fill);
  int ok = slot && group && rep && fill;
  size_t ngroup = 0, k = 0;
  if (ok) memset(slot, 0xff, tsize * sizeof *slot);
  for (unsigned l = 0; l < RT_WARP && ok; l++)
    if (active[l])
      for (size_t i = 0; i < lanes[l].n && ok; i++, k++) {
        const rt_run *r = &lanes[l].run[i];
        size_t h = point_hash(s, r) & (tsize - 1);
        while (slot[h] != UINT32_MAX && !same_point(s, rep[slot[h]], r)) h = (h + 1) & (tsize - 1);
        if (slot[h] == UINT32_MAX) {
          slot[h] = (uint32_t)ngroup;
          rep[ngroup] = r;
          w->run[ngroup].lanes = 0;           /* group g's lanes so far; new_wrun resets it */
          fill[ngroup++] = 0;
        }
        uint32_t g = slot[h];
        ok = !(w->run[g].lanes >> l & 1);       /* the lane twice at one point */
        w->run[g].lanes |= UINT32_C(1) << l;
        fill[g]++;
        group[k] = g;
      }
  if (ok) {
    size_t at = 0;
    for (size_t g = 0; g < ngroup; g++) {         /* segments of group g: [seg0, seg0 + count) */
      rt_wrun *wr = new_wrun(w, rep[g]);
      wr->seg0 = (uint32_t)at;
      at += fill[g];
      fill[g] = wr->seg0;
    }
    k = 0;
    for (unsigned l = 0; l < RT_WARP; l++)        /* lanes ascending: each group in lane order */
      if (active[l])
        for (size_t i = 0; i < lanes[l].n; i++, k++) {
          uint32_t g = group[k];
          put_seg(w, &w->run[g], fill[g]++, l, &lanes[l].run[i]);
        }
    w->nseg = at;
  } else {
    w->nrun = w->nseg = 0;
  }
  free(slot); free(group); free(rep); free(fill);
  return ok;
}

/* Two groups of the sorted runs start at one program point: a lane was there twice, or two
   sites share a position (more than 65534 in one block); the reference decides. */
static int has_tie(const rt_shape *s, const rt_wwarp *w) {
  for (size_t i = 1; i < w->nrun; i++)
    if (rt_wrun_cmp_points(s, &w->run[i - 1], 0, &w->run[i], 0) == 0) return 1;
  return 0;
}

/* Groups in program order: as recorded when already strictly ascending (straight-line bodies
   record them so: no sort, no tie), else sorted; 0 if two start at one point (the reference
   decides). */
static int order_groups(const rt_shape *s, rt_wwarp *w) {
  size_t up = 1;
  while (up < w->nrun && rt_wrun_cmp_points(s, &w->run[up - 1], 0, &w->run[up], 0) < 0) up++;
  if (up >= w->nrun) return 1;
  sort_shape = s;
  qsort(w->run, w->nrun, sizeof *w->run, cmp_run_start);
  return !has_tie(s, w);
}

/* Sorted runs with no tie whose lanes run once each are the warp's events in order: rt_witer_next
   then walks them without a queue, and the warp keeps only their addresses (straight-line thread
   bodies: 2DCONV, the stencils, whose warps wait in their window until a band of blocks is
   complete: 2DCONV 4096 full held 10 MB of segments, read back cold). The reference grouping
   (rt_wwarp_build_sorted) never makes a warp linear, so tests compare the two walks. */
static rt_wwarp *mark_linear(rt_wwarp *w) {
  size_t i = 0;
  while (i < w->nrun && w->run[i].maxcount == 1) i++;
  if (i < w->nrun) return w;
  uint64_t *addr = malloc((w->nseg ? w->nseg : 1) * sizeof *addr);
  if (!addr) return w;                           /* the general walk does as well */
  for (size_t k = 0; k < w->nseg; k++) addr[k] = w->seg[k].a0;   /* a one-element run has no stride */
  free(w->seg);
  w->seg = NULL;
  w->addr = addr;
  w->linear = 1;
  rt_wrun *run = realloc(w->run, (w->nrun ? w->nrun : 1) * sizeof *run);   /* sized for every lane run */
  if (run) w->run = run;
  return w;
}

/* Bits set in m, without a library call (the runtime is built for any x86-64: no popcnt). */
static inline unsigned lanes_in(uint32_t m) {
  m -= (m >> 1) & UINT32_C(0x55555555);
  m = (m & UINT32_C(0x33333333)) + ((m >> 2) & UINT32_C(0x33333333));
  return (((m + (m >> 4)) & UINT32_C(0x0f0f0f0f)) * UINT32_C(0x01010101)) >> 24;
}

/* Linear warps' allocations recycled by size class (1 KiB << c): every traced warp of a
   straight-line body is built into one, waits in its window, is analysed and freed, and a 2 KiB
   malloc and free cost 400 instructions (LU 256 full: 105 M of its 3.1 G). Idle blocks wait in
   a list per class, RT_POOL_BYTES in all at most (a window's batch of warps, freed together, is
   mostly taken again by the next); past it they are freed. One thread builds warps at a time
   (the runtime's owner), so no lock. Sanitized builds keep none, so a use after free shows. */
#define RT_POOL_CLASSES 7           /* 1 .. 64 KiB; larger warps are malloc'd */
#if defined(__SANITIZE_ADDRESS__)
#define RT_POOL_BYTES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_POOL_BYTES 0
#endif
#endif
#ifndef RT_POOL_BYTES
#define RT_POOL_BYTES ((size_t)4 << 20)
#endif
static struct {
  void *idle[RT_POOL_CLASSES];      /* each idle block's first word points to the next */
  size_t bytes;
} block_pool;

/* A block of at least `bytes`, and its class + 1 in *cls (0: plain malloc). */
static void *pool_get(size_t bytes, int *cls) {
  for (int c = 0; c < RT_POOL_CLASSES; c++)
    if (bytes <= (size_t)1024 << c) {
      *cls = c + 1;
      void *b = block_pool.idle[c];
      if (!b) return malloc((size_t)1024 << c);
      memcpy(&block_pool.idle[c], b, sizeof(void *));
      block_pool.bytes -= (size_t)1024 << c;
      return b;
    }
  *cls = 0;
  return malloc(bytes);
}

static void pool_put(void *b, int cls) {
  size_t size = cls > 0 ? (size_t)1024 << (cls - 1) : 0;
  if (!size || block_pool.bytes + size > RT_POOL_BYTES) {
    free(b);
    return;
  }
  memcpy(b, &block_pool.idle[cls - 1], sizeof(void *));
  block_pool.idle[cls - 1] = b;
  block_pool.bytes += size;
}

/* An empty linear warp of the lanes in mask, room for nrun runs and total addresses after it in
   one allocation (rt_wwarp_free frees it whole). */
static rt_wwarp *new_linear(size_t nrun, size_t total, uint32_t mask, const uint64_t thread[RT_WARP]) {
  int cls;
  rt_wwarp *w = pool_get(sizeof *w + nrun * sizeof *w->run + total * sizeof *w->addr, &cls);
  if (!w) return NULL;
  memset(w, 0, sizeof *w);
  memcpy(w->thread, thread, sizeof w->thread);
  w->threads = lanes_in(mask);
  _Static_assert(sizeof *w % 8 == 0 && sizeof *w->run % 8 == 0, "the addresses after the runs are aligned");
  w->run = (rt_wrun *)(w + 1);
  w->addr = (uint64_t *)(w->run + nrun);
  w->linear = 1;
  w->one_block = cls + 1;
  return w;
}

/* The direct grouping of lanes whose runs all have one element, written linear at once in one
   allocation (the warp, its runs, their addresses; no segments): NULL when the lanes differ, a
   run has more elements, two runs tie, or out of memory (the general build decides). */
static rt_wwarp *build_linear(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], uint32_t mask, size_t total,
                              const uint64_t thread[RT_WARP]) {
  if (!mask) return NULL;
  const rt_lane_rec *f = &lanes[__builtin_ctz(mask)];
  for (uint32_t m = mask; m; m &= m - 1)
    if (lanes[__builtin_ctz(m)].n != f->n) return NULL;
  for (size_t i = 0; i < f->n; i++)
    if (f->run[i].count != 1) return NULL;
  rt_wwarp *w = new_linear(f->n, total, mask, thread);
  if (!w) return NULL;
  for (size_t i = 0; i < f->n; i++) {
    rt_wrun *wr = new_wrun(w, &f->run[i]);
    for (uint32_t m = mask; m; m &= m - 1) {
      const rt_run *r = &lanes[__builtin_ctz(m)].run[i];
      if (r->count != 1 || !same_point(s, r, &f->run[i])) {
        rt_wwarp_free(w);
        return NULL;
      }
      rt_wrun_add_lane(wr, (uint32_t)(w->nseg - wr->seg0), r->skipped);
      w->addr[w->nseg++] = r->a0;
    }
    wr->lanes = mask;
    wr->nseg = (uint32_t)(w->nseg - wr->seg0);
    wr->maxcount = wr->mincount = 1;
  }
  if (order_groups(s, w)) return w;
  rt_wwarp_free(w);
  return NULL;
}

static rt_wwarp *build(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                       const uint64_t thread[RT_WARP], int direct) {
  size_t total = 0;
  uint32_t mask = 0;
  for (unsigned l = 0; l < RT_WARP; l++)
    if (active[l]) {
      mask |= UINT32_C(1) << l;
      total += lanes[l].n;
    }
  rt_wwarp *w = direct ? build_linear(s, lanes, mask, total, thread) : NULL;
  if (w) return w;
  w = calloc(1, sizeof *w);
  if (!w) return NULL;
  memcpy(w->thread, thread, sizeof w->thread);
  w->threads = lanes_in(mask);
  w->run = malloc((total ? total : 1) * sizeof *w->run);
  w->seg = malloc((total ? total : 1) * sizeof *w->seg);
  if (!w->run || !w->seg) {
    rt_wwarp_free(w);
    return NULL;
  }
  if (direct && group_direct(s, lanes, active, w)) {
    if (order_groups(s, w)) return mark_linear(w);
    w->nrun = w->nseg = 0;
  }
  if (direct && group_hashed(s, lanes, active, total, w)) {
    if (order_groups(s, w)) return mark_linear(w);
    w->nrun = w->nseg = 0;
  }
  lane_run *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) {
    rt_wwarp_free(w);
    return NULL;
  }
  group_sorted(s, lanes, active, all, total, w);
  free(all);
  sort_shape = s;
  qsort(w->run, w->nrun, sizeof *w->run, cmp_run_start);
  return w;
}

rt_wwarp *rt_wwarp_build(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                         const uint64_t thread[RT_WARP]) {
  return build(s, lanes, active, thread, 1);
}

rt_wwarp *rt_wwarp_build_sorted(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                                const uint64_t thread[RT_WARP]) {
  return build(s, lanes, active, thread, 0);
}

/* Bit l set when active[l] != 0: eight bytes at a time, each byte's nonzero-ness moved to its top
   bit, then the eight top bits gathered into one byte by a multiply (a loop over the lanes was
   260 instructions a warp). */
static uint32_t active_mask(const uint8_t active[RT_WARP]) {
  const uint64_t low7 = UINT64_C(0x7f7f7f7f7f7f7f7f), gather = UINT64_C(0x0102040810204080);
  uint32_t mask = 0;
  for (unsigned i = 0; i < RT_WARP / 8; i++) {
    uint64_t w;
    memcpy(&w, active + 8 * i, 8);
    uint64_t top = (((w & low7) + low7) | w) & ~low7;   /* 0x80 in each nonzero byte */
    mask |= (uint32_t)(((top >> 7) * gather) >> 56) << (8 * i);
  }
  return mask;
}

rt_wwarp *rt_wwarp_build_flat(const rt_shape *s, rt_flat *f, rt_lane_rec lanes[RT_WARP],
                              const uint8_t active[RT_WARP], const uint64_t thread[RT_WARP]) {
  uint32_t lanes_on = active_mask(active);
  rt_flat_to_masks(s, f);
  if (f->spilled || !lanes_on) {                /* lanes in their records: the general grouping */
    for (uint32_t m = lanes_on; m; m &= m - 1) rt_flat_to_lane(s, f, (unsigned)__builtin_ctz(m), &lanes[__builtin_ctz(m)]);
    rt_flat_clear(s, f);
    return build(s, lanes, active, thread, 1);
  }
  /* events in program order, each one group of its lanes in lane order: the sorted runs of the
     reference with no tie, every run one element, so linear (mark_linear), in one allocation */
  size_t nrun = 0, total = 0;
  uint8_t n[RT_FLAT_EVENTS];                    /* lanes per event */
  for (size_t e = 0; e < s->nev; e++) {
    n[e] = lanes_in(f->mask[e]);
    nrun += n[e] != 0;
    total += n[e];
  }
  rt_wwarp *w = new_linear(nrun, total, lanes_on, thread);
  if (!w) {
    rt_flat_clear(s, f);
    return NULL;
  }
  for (size_t i = 0; i < s->nev; i++) {
    uint32_t e = s->order[i], m = f->mask[e];
    if (!m) continue;
    f->mask[e] = 0;
    rt_wrun *wr = &w->run[w->nrun++];
    memset(wr, 0, sizeof *wr);
    wr->ev = e;
    wr->seg0 = (uint32_t)w->nseg;
    wr->lanes = m;
    wr->nseg = n[e];
    wr->maxcount = wr->mincount = 1;
    const uint64_t *a = &f->addr[(size_t)e * RT_WARP];
    if (e >= s->nmem) {                         /* a block: no address (0), none read */
      memset(&w->addr[w->nseg], 0, n[e] * sizeof *w->addr);
      w->nseg += n[e];
    } else if (m == UINT32_MAX) {
      memcpy(&w->addr[w->nseg], a, RT_WARP * sizeof *a);
      w->nseg += RT_WARP;
    } else {
      for (; m; m &= m - 1) w->addr[w->nseg++] = a[__builtin_ctz(m)];
    }
  }
  return w;
}

void rt_wwarp_share(rt_wwarp *w) { w->shares++; }

unsigned rt_wwarp_shares(const rt_wwarp *w) { return w->shares; }

void rt_wwarp_free(rt_wwarp *w) {
  if (!w) return;
  if (w->shares) {
    w->shares--;
    return;
  }
  if (w->one_block) {
    pool_put(w, w->one_block - 1);
    return;
  }
  free(w->run);
  free(w->seg);
  free(w->addr);
  free(w);
}

size_t rt_wwarp_bytes(const rt_wwarp *w) {
  return sizeof *w + w->nrun * sizeof *w->run + w->nseg * (w->linear ? sizeof *w->addr : sizeof *w->seg);
}

unsigned rt_wwarp_threads(const rt_wwarp *w) { return w->threads; }
int rt_wwarp_linear(const rt_wwarp *w) { return w->linear; }
const uint64_t *rt_wwarp_thread_keys(const rt_wwarp *w) { return w->thread; }

