/* cgp_rt_warp.c: reconvergent warps from lanes recorded one after another (cgp_rt_warp.h).

   Loops nested deeper than RT_MAXD - 1 inside the thread body are not told apart: their blocks
   count as blocks of their ancestor at that depth, so two iterations of such a loop share a key.
   The iterator never puts one lane twice into an instruction, so such events still issue in lane
   lockstep, one per iteration in order; only their interleaving with other sites is approximate. */
#include "cgp_rt_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rt_run_bytes, rt_run_limit = SIZE_MAX;

/* ---- shape ----------------------------------------------------------------------------------- */

void rt_shape_free(rt_shape *s) {
  if (!s) return;
  free(s->depth);
  free(s->pos);
  free(s->eff_loop);
  free(s->is_header);
  free(s->ldepth);
  free(s->is_leaf);
  free(s->multi);
  free(s->ev_header);
  free(s->rank);
  free(s->order);
  free(s);
}

size_t rt_shape_events(const rt_shape *s) { return s->nev; }
int rt_shape_flat(const rt_shape *s) { return s->flat; }

static const rt_shape *sort_shape;

static int cmp_position(const void *a, const void *b) {
  uint32_t x = sort_shape->pos[*(const uint32_t *)a][0], y = sort_shape->pos[*(const uint32_t *)b][0];
  return (x > y) - (x < y);
}

/* A shape with no loop: its events in program order and their ranks, if no two share a position
   (else it is not flat: the grouping decides ties). Only out of memory fails. */
static int order_flat(rt_shape *s) {
  if (s->nloops || s->nev == 0 || s->nev > RT_FLAT_EVENTS) return 1;
  s->order = malloc(s->nev * sizeof *s->order);
  s->rank = malloc(s->nev * sizeof *s->rank);
  if (!s->order || !s->rank) return 0;
  for (uint32_t e = 0; e < s->nev; e++) s->order[e] = e;
  sort_shape = s;
  qsort(s->order, s->nev, sizeof *s->order, cmp_position);
  for (uint32_t i = 0; i < s->nev; i++) {
    if (i > 0 && s->pos[s->order[i]][0] == s->pos[s->order[i - 1]][0]) return 1;
    s->rank[s->order[i]] = i + 1;
  }
  s->flat = 1;
  return 1;
}

/* Positions of an event in block b: its own at its depth, its loops' headers above. */
static void chain(const rt_shape *s, const unsigned *bb_rpo, const int *loop_header, const int *loop_parent,
                  int b, uint32_t own, uint8_t *depth, uint32_t pos[RT_MAXD]) {
  int l = s->eff_loop[b];
  unsigned m = l >= 0 ? s->ldepth[l] : 0;
  *depth = (uint8_t)m;
  pos[m] = ((bb_rpo[b] + 1) << 16) | own;
  for (unsigned j = m; j >= 1; j--) {           /* loop l sits at depth j: its header at level j-1 */
    pos[j - 1] = (bb_rpo[loop_header[l]] + 1) << 16;
    l = loop_parent[l];
  }
}

rt_shape *rt_shape_new(size_t nmem, const int *mem_block, const unsigned *mem_order, size_t nbb,
                       const unsigned *bb_rpo, const int *bb_loop, size_t nloops, const int *loop_header,
                       const int *loop_parent, char *err, size_t errlen) {
  rt_shape *s = calloc(1, sizeof *s);
  if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
  s->nmem = nmem; s->nbb = nbb; s->nev = nmem + nbb; s->nloops = nloops;
  s->depth = calloc(s->nev ? s->nev : 1, 1);
  s->pos = calloc(s->nev ? s->nev : 1, sizeof *s->pos);
  s->eff_loop = calloc(nbb ? nbb : 1, sizeof *s->eff_loop);
  s->is_header = calloc(nbb ? nbb : 1, 1);
  s->ldepth = calloc(nloops ? nloops : 1, 1);
  s->is_leaf = calloc(nloops ? nloops : 1, 1);
  s->multi = calloc(nloops ? nloops : 1, 1);
  s->ev_header = calloc(s->nev ? s->nev : 1, 1);
  if (!s->depth || !s->pos || !s->eff_loop || !s->is_header || !s->ldepth || !s->is_leaf || !s->multi ||
      !s->ev_header) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  for (size_t l = 0; l < nloops; l++) {
    unsigned d = 1;
    int p = loop_parent[l];
    while (p >= 0 && d <= nloops) {
      if ((size_t)p >= nloops) { snprintf(err, errlen, "loop %zu: parent %d out of range", l, p); goto fail; }
      p = loop_parent[p];
      d++;
    }
    if (d > nloops) { snprintf(err, errlen, "loop %zu: its parents form a cycle", l); goto fail; }
    if (loop_header[l] < 0 || (size_t)loop_header[l] >= nbb) {
      snprintf(err, errlen, "loop %zu: header %d is not a thread-body block", l, loop_header[l]);
      goto fail;
    }
    s->ldepth[l] = (uint8_t)(d < 255 ? d : 255);
  }
  for (size_t l = 0; l < nloops; l++) s->is_leaf[l] = s->ldepth[l] <= RT_MAXD - 1;
  for (size_t l = 0; l < nloops; l++)
    if (loop_parent[l] >= 0) s->is_leaf[loop_parent[l]] = 0;
  for (size_t b = 0; b < nbb; b++) {
    if (bb_rpo[b] >= 0xfffe) { snprintf(err, errlen, "block %zu: too many blocks in the thread body", b); goto fail; }
    int l = bb_loop[b];
    if (l >= 0 && (size_t)l >= nloops) { snprintf(err, errlen, "block %zu: loop %d out of range", b, l); goto fail; }
    while (l >= 0 && s->ldepth[l] > RT_MAXD - 1) l = loop_parent[l];
    s->eff_loop[b] = l;
    s->is_header[b] = l >= 0 && loop_header[l] == (int)b;
    if (l >= 0 && !s->is_header[b]) s->multi[l] = 1;
    s->ev_header[nmem + b] = s->is_header[b];
  }
  unsigned hoisted = 0;
  for (size_t i = 0; i < nmem; i++) {
    if (mem_block[i] < 0) {                     /* issued first, in site order */
      s->depth[i] = 0;
      s->pos[i][0] = ++hoisted;
      continue;
    }
    if ((size_t)mem_block[i] >= nbb) { snprintf(err, errlen, "site %zu: block %d out of range", i, mem_block[i]); goto fail; }
    unsigned own = mem_order[i] + 1 < 0xffff ? mem_order[i] + 1 : 0xffff;
    chain(s, bb_rpo, loop_header, loop_parent, mem_block[i], own, &s->depth[i], s->pos[i]);
    s->ev_header[i] = s->is_header[mem_block[i]];
  }
  for (size_t b = 0; b < nbb; b++)
    chain(s, bb_rpo, loop_header, loop_parent, (int)b, 0, &s->depth[nmem + b], s->pos[nmem + b]);
  if (!order_flat(s)) { snprintf(err, errlen, "out of memory"); goto fail; }
  return s;
fail:
  rt_shape_free(s);
  return NULL;
}

/* ---- recording a lane -------------------------------------------------------------------------- */

rt_tracker *rt_tracker_new(const rt_shape *s) {
  rt_tracker *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->s = s;
  t->iter_first = UINT32_MAX;
  t->pause = t->own_pause;
  t->pause[RT_PAUSED] = -1;
  t->open = calloc(s->nev ? s->nev : 1, sizeof *t->open);   /* serial 0: none open */
  if (!t->open) { free(t); return NULL; }
  return t;
}

void rt_tracker_pause_in(rt_tracker *t, int32_t word[3]) {
  memcpy(word, t->pause, 3 * sizeof *word);
  t->pause = word;
}

void rt_tracker_free(rt_tracker *t) {
  if (!t) return;
  t->pause[RT_PAUSED] = -1;
  free(t->open);
  free(t);
}

void rt_lane_free(rt_lane_rec *lane) {
  rt_run_bytes -= lane->cap * sizeof *lane->run;
  free(lane->run);
  memset(lane, 0, sizeof *lane);
}

/* Once in 2^32 lanes the serials start again, with every event's open run cleared. */
void rt_tracker_reserial(rt_tracker *t) {
  memset(t->open, 0, (t->s->nev ? t->s->nev : 1) * sizeof *t->open);
  t->serial = 1;
}

int rt_tracker_extend(rt_tracker *t, const uint32_t *ev, size_t nev, uint64_t k) {
  rt_lane_rec *lane = t->lane;
  unsigned d = t->d;
  if (!lane || lane->failed || d == 0 || k > UINT32_MAX - 1 - (uint64_t)t->t_at[d] ||
      t->t_at[d] + k >= t->iter_first)
    return 0;
  for (size_t i = 0; i < nev; i++) {
    if (ev[i] >= t->s->nev || t->s->depth[ev[i]] < d) return 0;
    uint64_t o = t->open[ev[i]];
    if ((uint32_t)(o >> 32) != t->serial) return 0;
    const rt_run *R = &lane->run[(uint32_t)o];
    if ((uint32_t)o >= lane->n || R->gen != t->gen_at[d] || R->t[d - 1] + R->count != t->t_at[d] + 1 ||
        R->count < 2 || k > UINT32_MAX - (uint64_t)R->count)
      return 0;
  }
  for (size_t i = 0; i < nev; i++) lane->run[(uint32_t)t->open[ev[i]]].count += (uint32_t)k;
  t->t_at[d] += (uint32_t)k;
  return 1;
}

void rt_tracker_sample(rt_tracker *t, int on) { t->iter_first = on ? RT_ITER_FIRST : UINT32_MAX; }

uint64_t rt_tracker_iterations_skipped(const rt_tracker *t) { return t->iters_skipped; }

/* The last window's runs: each element stands for `header` more executions if its event is in
   the loop's header block, `body` more otherwise, spread over the window's iterations. */
static void weigh_window(rt_tracker *t, uint32_t header, uint32_t body) {
  if (t->lane->failed) return;
  float h = (float)header / (float)t->win_len, b = (float)body / (float)t->win_len;
  for (size_t r = t->win_r0; r < t->win_r1 && r < t->lane->n; r++) {
    rt_run *R = &t->lane->run[r];
    R->skipped = t->s->ev_header[R->ev] ? h : b;
  }
}

int rt_tracker_window(rt_tracker *t, int l, unsigned dl) {
  if (!t->s->is_leaf[l]) return 0;
  uint32_t it = t->t_at[dl], phase = it % RT_ITER_PERIOD;
  uint32_t len = it < RT_ITER_PERIOD ? RT_ITER_FIRST : RT_ITER_WINDOW;
  if (phase == 0) {                              /* a window opens: its runs are its own */
    t->gen_at[dl] = ++t->gen;
    t->win_r0 = t->lane->n;
    return 0;
  }
  if (phase != len) return 0;
  t->win_len = len;                              /* the window closes: skip up to the next one */
  t->win_r1 = t->lane->n;
  uint32_t gap = RT_ITER_PERIOD - len;
  t->pause[RT_LEFT] = (int32_t)gap;
  weigh_window(t, gap, gap);
  t->pause[RT_PAUSED] = l;
  t->paused_t = it;
  t->pause[RT_HEADER_LAST] = 1;
  return 1;
}

/* The loop left while paused, after 1 + j header executions (iteration paused_t and j more):
   as many bodies, but one fewer when the last was only the header's exit test. */
void rt_tracker_leave_paused(rt_tracker *t) {
  uint32_t header = 1 + (RT_ITER_PERIOD - t->win_len - (uint32_t)t->pause[RT_LEFT]);
  uint32_t body = header - (t->pause[RT_HEADER_LAST] && t->s->multi[t->pause[RT_PAUSED]]);
  weigh_window(t, header, body);
  t->iters_skipped += body;
  t->pause[RT_PAUSED] = -1;
}

int rt_tracker_resume(rt_tracker *t, uint32_t bid) {
  const rt_shape *s = t->s;
  if (t->pause[RT_PAUSED] < 0) return 1;
  int l = bid < s->nbb ? s->eff_loop[bid] : -1;
  if (l == t->pause[RT_PAUSED]) {
    t->pause[RT_HEADER_LAST] = s->is_header[bid];
    if (!s->is_header[bid] || --t->pause[RT_LEFT]) return 0;
    uint32_t gap = RT_ITER_PERIOD - t->win_len;
    t->iters_skipped += gap;
    t->pause[RT_PAUSED] = -1;                    /* the next window: its header counts it */
    t->t_at[s->ldepth[l]] = t->paused_t + gap - 1;
  } else {
    rt_tracker_leave_paused(t);
  }
  return !rt_tracker_block(t, bid);             /* a window opens, or the block is outside */
}

/* Room for one more run in the lane: 0 (the lane failed) past rt_run_limit or out of memory. */
static int lane_room(rt_lane_rec *lane) {
  if (lane->n < lane->cap) return 1;
  size_t cap = lane->cap ? 2 * lane->cap : 16;
  rt_run *p = rt_run_bytes + (cap - lane->cap) * sizeof *p > rt_run_limit ? NULL : realloc(lane->run, cap * sizeof *p);
  if (!p) { lane->failed = 1; return 0; }
  rt_run_bytes += (cap - lane->cap) * sizeof *p;
  lane->run = p;
  lane->cap = cap;
  return 1;
}

void rt_record_new(rt_tracker *t, uint32_t e, uint64_t addr, unsigned m) {
  rt_lane_rec *lane = t->lane;
  if (!lane_room(lane)) return;
  rt_run *R = &lane->run[lane->n];
  memset(R, 0, sizeof *R);
  R->ev = e;
  R->count = 1;
  R->a0 = addr;
  R->gen = m ? t->gen_at[m] : 0;
  for (unsigned j = 1; j <= m; j++) R->t[j - 1] = t->t_at[j];
  t->open[e] = (uint64_t)t->serial << 32 | lane->n++;
}

/* ---- straight-line bodies, warp-major -------------------------------------------------------- */

/* No lane has marked blocks yet (rt_flat_mark). */
static void marks_clear(rt_flat *f) {
  memset(f->blocks, 0, sizeof f->blocks);
  f->any = 0;
  f->all = ~UINT64_C(0);
  f->marked = 0;
}

rt_flat *rt_flat_new(const rt_shape *s) {
  if (!s->flat) return NULL;
  size_t bytes = sizeof(rt_flat) + s->nev * (sizeof(uint32_t) + RT_WARP * sizeof(uint64_t));
  if (rt_run_bytes + bytes > rt_run_limit) return NULL;
  rt_flat *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->mask = calloc(s->nev, sizeof *f->mask);
  f->addr = malloc(s->nev * RT_WARP * sizeof *f->addr);
  if (!f->mask || !f->addr) {
    free(f->mask);
    free(f->addr);
    free(f);
    return NULL;
  }
  marks_clear(f);
  f->bytes = bytes;
  rt_run_bytes += bytes;
  return f;
}

void rt_flat_free(rt_flat *f) {
  if (!f) return;
  rt_run_bytes -= f->bytes;
  free(f->mask);
  free(f->addr);
  free(f);
}

void rt_flat_clear(const rt_shape *s, rt_flat *f) {
  memset(f->mask, 0, s->nev * sizeof *f->mask);
  marks_clear(f);
  f->spilled = 0;
}

/* The lanes' marked blocks (f->blocks) into the blocks' masks, and cleared: a block every lane
   that marked marked (each block of a body without a branch, most of the others) costs a store,
   a block some lanes skipped a pass over the lanes. */
static void blocks_to_masks(const rt_shape *s, rt_flat *f) {
  if (!f->any) return;
  for (uint64_t m = f->any; m; m &= m - 1) {
    unsigned b = (unsigned)__builtin_ctzll(m);
    uint32_t lanes = 0;
    if (f->all >> b & 1) {
      lanes = f->marked;
    } else {
      for (unsigned l = 0; l < RT_WARP; l++) lanes |= (uint32_t)(f->blocks[l] >> b & 1) << l;
    }
    f->mask[s->nmem + b] |= lanes;
  }
  marks_clear(f);
}

/* Lane l's events in f, in program order, appended to its record (as rt_record writes an event
   outside every loop: a run of one; a block's address is 0) and cleared from f. */
static void flat_to_lane(const rt_shape *s, rt_flat *f, unsigned l, rt_lane_rec *lane) {
  uint32_t bit = UINT32_C(1) << l;
  for (size_t i = 0; i < s->nev; i++) {
    uint32_t e = s->order[i];
    if (!(f->mask[e] & bit)) continue;
    f->mask[e] &= ~bit;
    if (!lane->failed && lane_room(lane))
      lane->run[lane->n++] =
          (rt_run){.ev = e, .count = 1, .a0 = e < s->nmem ? f->addr[(size_t)e * RT_WARP + l] : 0};
  }
}

void rt_flat_spill(rt_tracker *t) {
  rt_flat *f = t->flat;
  flat_to_lane(t->s, f, t->flane, t->lane);
  f->spilled = 1;
  t->flat = NULL;
}

void rt_tracker_seen_all(rt_tracker *t, uint64_t *seen) {
  const rt_shape *s = t->s;
  rt_flat *f = t->flat;
  rt_lane_rec *lane = t->lane;
  for (size_t i = 0; i < (s->nbb + 63) / 64; i++) {
    for (uint64_t m = seen[i]; m; m &= m - 1) {
      size_t e = s->nmem + 64 * i + (size_t)__builtin_ctzll(m);
      if (f) {
        f->mask[e] |= UINT32_C(1) << t->flane;     /* a block's address is never read: 0 */
      } else if (lane && !lane->failed && lane_room(lane)) {
        /* after the lane's sites, not among them: the grouping orders every run by its
           program point (build), so a run of one's place in the record does not matter */
        lane->run[lane->n++] = (rt_run){.ev = (uint32_t)e, .count = 1};
      }
    }
    seen[i] = 0;
  }
}

/* ---- a warp ---------------------------------------------------------------------------------- */

typedef struct {
  uint32_t ev, maxcount, mincount;
  uint32_t lanes;              /* mask of its lanes: all of them take part in elements < mincount */
  uint32_t t[RT_MAXD - 1];
  uint32_t seg0, nseg;
  float skipped;               /* per element, the most of its lanes' runs (the warp issues an
                                  instruction while any lane runs the iteration) */
} rt_wrun;

typedef struct {
  uint32_t lane, count;
  uint64_t a0, stride;
} rt_seg;

struct rt_wwarp {
  rt_wrun *run;
  size_t nrun;
  rt_seg *seg;                 /* NULL when linear */
  size_t nseg;
  unsigned threads;
  int linear;                  /* every run one element, no two at one point: run k is event k */
  int one_block;               /* run and addr are in w's own allocation (new_linear), of
                                  block_pool class one_block - 1 when it has one */
  unsigned shares;             /* holders besides the first (rt_wwarp_share; in the padding after
                                  one_block, so a warp's bytes are what they were) */
  uint64_t *addr;              /* linear: run k's addresses at [seg0, seg0 + nseg), its lanes
                                  those of its mask in ascending order (8 bytes a lane, not 24) */
  uint64_t thread[RT_WARP];
};

typedef struct {
  const rt_run *r;
  uint32_t lane;
} lane_run;


/* Order of runs by program point of their first element, then lane. */
static int cmp_first(const void *a, const void *b) {
  const lane_run *x = a, *y = b;
  if (x->r->ev != y->r->ev) return x->r->ev < y->r->ev ? -1 : 1;
  unsigned m = sort_shape->depth[x->r->ev];
  for (unsigned j = 0; j < m; j++)
    if (x->r->t[j] != y->r->t[j]) return x->r->t[j] < y->r->t[j] ? -1 : 1;
  return x->lane < y->lane ? -1 : x->lane > y->lane;
}

static int cmp_points(const rt_shape *s, const rt_wrun *x, uint32_t ai, const rt_wrun *y, uint32_t bi);

static int cmp_run_start(const void *a, const void *b) {
  return cmp_points(sort_shape, a, 0, b, 0);
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
  if (r->skipped > wr->skipped) wr->skipped = r->skipped;
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
    if (cmp_points(s, &w->run[i - 1], 0, &w->run[i], 0) == 0) return 1;
  return 0;
}

/* Groups in program order: as recorded when already strictly ascending (straight-line bodies
   record them so: no sort, no tie), else sorted; 0 if two start at one point (the reference
   decides). */
static int order_groups(const rt_shape *s, rt_wwarp *w) {
  size_t up = 1;
  while (up < w->nrun && cmp_points(s, &w->run[up - 1], 0, &w->run[up], 0) < 0) up++;
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
      if (r->skipped > wr->skipped) wr->skipped = r->skipped;
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
  blocks_to_masks(s, f);
  if (f->spilled || !lanes_on) {                /* lanes in their records: the general grouping */
    for (uint32_t m = lanes_on; m; m &= m - 1) flat_to_lane(s, f, (unsigned)__builtin_ctz(m), &lanes[__builtin_ctz(m)]);
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

/* ---- issuing a warp's events in order ---------------------------------------------------------- */

typedef struct {
  uint32_t run, i;
} cursor;

struct rt_witer {
  const rt_shape *s;
  const rt_wwarp *w;
  cursor *heap;              /* the runs under way, n of them from q0; runs start in first-key
                                order (next_run) */
  size_t n, q0, next_run;
  size_t cap;                /* of heap and hold */
  int reference;             /* heap[] is a binary heap (rt_witer_new_reference), else sorted */
  cursor *hold;
};

/* Program order of two (run, element) points: positions level by level, iterations between. */
static int cmp_points(const rt_shape *s, const rt_wrun *x, uint32_t ai, const rt_wrun *y, uint32_t bi) {
  cursor a = {0, ai}, b = {0, bi};
  unsigned mx = s->depth[x->ev], my = s->depth[y->ev], m = mx < my ? mx : my;
  for (unsigned j = 0;; j++) {
    uint32_t px = s->pos[x->ev][j], py = s->pos[y->ev][j];
    if (px != py) return px < py ? -1 : 1;
    if (j == m) break;
    uint32_t tx = x->t[j] + (j + 1 == mx ? a.i : 0), ty = y->t[j] + (j + 1 == my ? b.i : 0);
    if (tx != ty) return tx < ty ? -1 : 1;
  }
  return mx == my ? 0 : mx < my ? -1 : 1;
}

static int cmp_key(const rt_witer *it, cursor a, cursor b) {
  return cmp_points(it->s, &it->w->run[a.run], a.i, &it->w->run[b.run], b.i);
}

/* The order the runs under way leave in: program order, then run (one cursor a run at a time),
   so both queues below pop the same sequence, even where two runs' lanes meet at one point. */
static int before(const rt_witer *it, cursor a, cursor b) {
  int c = cmp_key(it, a, b);
  return c < 0 || (c == 0 && a.run < b.run);
}

/* The reference queue: a binary heap. */
static void sift_down(rt_witer *it, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < it->n && before(it, it->heap[l], it->heap[m])) m = l;
    if (r < it->n && before(it, it->heap[r], it->heap[m])) m = r;
    if (m == i) return;
    cursor c = it->heap[i]; it->heap[i] = it->heap[m]; it->heap[m] = c;
    i = m;
  }
}

static void heap_push(rt_witer *it, cursor c) {
  size_t i = it->n++;
  it->heap[i] = c;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!before(it, it->heap[i], it->heap[p])) break;
    cursor t = it->heap[i]; it->heap[i] = it->heap[p]; it->heap[p] = t;
    i = p;
  }
}

/* The fast queue: sorted, from heap[q0]. A loop's next element goes after every run of the
   iteration under way, so a push is mostly one comparison with the last and a pop none (the
   heap compared about five times an event: GEMM full, 8 % of the CPU); a run that starts
   mid-queue is placed by binary search. At most one cursor a run: n <= nrun, heap's size. */
static void sorted_push(rt_witer *it, cursor c) {
  if (it->q0 + it->n == it->w->nrun) {
    memmove(it->heap, it->heap + it->q0, it->n * sizeof *it->heap);
    it->q0 = 0;
  }
  cursor *q = it->heap + it->q0;
  size_t at = it->n;                            /* after the last, or before the first element
                                                   c goes before (found in [lo, at - 1]) */
  if (at && before(it, c, q[at - 1])) {
    size_t lo = 0, hi = at - 1;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (before(it, c, q[mid])) hi = mid; else lo = mid + 1;
    }
    at = lo;
    memmove(q + at + 1, q + at, (it->n - at) * sizeof *q);
  }
  q[at] = c;
  it->n++;
}

static void push(rt_witer *it, cursor c) {
  if (it->reference) heap_push(it, c);
  else sorted_push(it, c);
}

static cursor front(const rt_witer *it) { return it->heap[it->q0]; }

static cursor pop(rt_witer *it) {
  cursor c = it->heap[it->q0];
  if (it->reference) {
    it->heap[0] = it->heap[--it->n];
    sift_down(it, 0);
  } else {
    it->q0++;
    it->n--;
  }
  return c;
}

/* Up to PREFETCH_MAX bytes from p, a host cache line at a time. */
#define PREFETCH_MAX 4096
static void prefetch_bytes(const void *p, size_t n) {
  const char *c = p;
  if (n > PREFETCH_MAX) n = PREFETCH_MAX;
  for (size_t b = 0; b < n; b += 64) __builtin_prefetch(c + b);
}

/* The queue's room: at least need (every run of the warp once), and at most about four times
   it, so that an iterator reused after a large warp does not keep that warp's room (the
   iterators of every batch index would otherwise keep the largest warp each ever walked). */
static int queue_room(rt_witer *it, size_t need) {
  if (need <= it->cap && it->cap <= 4 * need + 256) return 1;
  if (!need) {
    free(it->heap);
    free(it->hold);
    it->heap = it->hold = NULL;
    it->cap = 0;
    return 1;
  }
  cursor *heap = realloc(it->heap, need * sizeof *heap);
  if (!heap) return need <= it->cap;            /* a failed shrink keeps the larger room */
  it->heap = heap;
  cursor *hold = realloc(it->hold, need * sizeof *hold);
  if (!hold) {                                  /* cap: the smaller of the two */
    if (need < it->cap) it->cap = need;
    return need <= it->cap;
  }
  it->hold = hold;
  it->cap = need;
  return 1;
}

int rt_witer_reset(rt_witer *it, const rt_wwarp *w) {
  it->w = w;
  it->n = it->q0 = it->next_run = 0;
  /* A batch's iterators are set together, then walked round robin: warps built long before
     (their window waited for a band of blocks), so their first runs and lanes are fetched now. */
  prefetch_bytes(w->run, w->nrun * sizeof *w->run);
  if (w->linear) {
    prefetch_bytes(w->addr, w->nseg * sizeof *w->addr);
    return queue_room(it, 0);                   /* next_linear needs no queue */
  }
  prefetch_bytes(w->seg, w->nseg * sizeof *w->seg);
  return queue_room(it, w->nrun);
}

rt_witer *rt_witer_new(const rt_shape *s, const rt_wwarp *w) {
  rt_witer *it = calloc(1, sizeof *it);
  if (!it) return NULL;
  it->s = s;
  if (w && !rt_witer_reset(it, w)) { rt_witer_free(it); return NULL; }
  return it;
}

rt_witer *rt_witer_new_reference(const rt_shape *s, const rt_wwarp *w) {
  rt_witer *it = rt_witer_new(s, w);
  if (it) it->reference = 1;
  return it;
}

void rt_witer_free(rt_witer *it) {
  if (!it) return;
  free(it->heap);
  free(it->hold);
  free(it);
}

/* Lanes of run element c: 0 if one of them is already in ev (then c waits for the next event). */
static int take(const rt_witer *it, cursor c, rt_wevent *ev, uint32_t *present) {
  const rt_wrun *r = &it->w->run[c.run];
  const rt_seg *sg = &it->w->seg[r->seg0];
  uint32_t mask = 0;
  if (c.i < r->mincount) {
    mask = r->lanes;                            /* every lane of the run: the common case */
  } else {
    for (uint32_t k = 0; k < r->nseg; k++)
      if (sg[k].count > c.i) mask |= UINT32_C(1) << sg[k].lane;
  }
  if (mask & *present) return 0;
  *present |= mask;
  if (r->skipped > ev->skipped) ev->skipped = r->skipped;
  if (ev->nact == 0 && c.i < r->mincount) {     /* first contribution, lanes in order: append */
    for (uint32_t k = 0; k < r->nseg; k++) {
      ev->lane[k] = (uint8_t)sg[k].lane;
      ev->addr[k] = sg[k].a0 + (uint64_t)c.i * sg[k].stride;
    }
    ev->nact = r->nseg;
    return 1;
  }
  for (uint32_t k = 0; k < r->nseg; k++) {
    if (sg[k].count <= c.i) continue;
    unsigned j = ev->nact++;                    /* insertion by lane: lanes in lane order */
    while (j > 0 && ev->lane[j - 1] > sg[k].lane) {
      ev->lane[j] = ev->lane[j - 1];
      ev->addr[j] = ev->addr[j - 1];
      j--;
    }
    ev->lane[j] = (uint8_t)sg[k].lane;
    ev->addr[j] = sg[k].a0 + (uint64_t)c.i * sg[k].stride;
  }
  return 1;
}

/* Start the runs whose first element comes no later than every run under way: runs are sorted by
   first key (rt_wwarp_build), so the queue holds only the runs of the current loop iterations. */
static void start_runs(rt_witer *it) {
  while (it->next_run < it->w->nrun &&
         (!it->n || cmp_key(it, (cursor){(uint32_t)it->next_run, 0}, front(it)) <= 0)) {
    push(it, (cursor){(uint32_t)it->next_run++, 0});
    if (it->next_run < it->w->nrun) {           /* the next run's lanes: read soon, likely cold
                                                    (2DCONV 4096 full: 10 % less CPU) */
      const rt_wrun *nr = &it->w->run[it->next_run];
      prefetch_bytes(&it->w->seg[nr->seg0], nr->nseg * sizeof *it->w->seg);
    }
  }
}

/* Event e as rt_wevent names it: a site, or a block. */
static void event_of(const rt_witer *it, uint32_t e, rt_wevent *ev) {
  ev->is_mem = e < it->s->nmem;
  ev->id = ev->is_mem ? e : (uint32_t)(e - it->s->nmem);
}

/* A linear warp's next event: run next_run, all its lanes (in lane order: a group's segments are). */
static int next_linear(rt_witer *it, rt_wevent *ev) {
  const rt_wwarp *w = it->w;
  if (it->next_run >= w->nrun) return 0;
  const rt_wrun *r = &w->run[it->next_run++];
  const uint64_t *a = &w->addr[r->seg0];
  if (it->next_run < w->nrun) {                 /* likely cold: the next run's addresses (they
                                                    follow this run's; at most RT_WARP of them), and
                                                    the run after it */
    prefetch_bytes(&a[r->nseg], RT_WARP * sizeof *a);
    __builtin_prefetch(&w->run[it->next_run + 1]);
  }
  event_of(it, r->ev, ev);
  ev->skipped = r->skipped;
  ev->nact = r->nseg;
  if (r->lanes == UINT32_MAX) {                 /* every lane: two block copies */
    static const uint8_t every[RT_WARP] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                           16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    memcpy(ev->lane, every, sizeof every);
    memcpy(ev->addr, a, RT_WARP * sizeof *a);
    return 1;
  }
  uint32_t k = 0;
  for (uint32_t m = r->lanes; m; m &= m - 1, k++) {
    ev->lane[k] = (uint8_t)__builtin_ctz(m);
    ev->addr[k] = a[k];
  }
  return 1;
}

int rt_witer_next(rt_witer *it, rt_wevent *ev) {
  if (it->w->linear) return next_linear(it, ev);
  start_runs(it);
  if (!it->n) return 0;
  size_t nhold = 0;
  uint32_t present = 0;
  cursor first = pop(it);
  const rt_wrun *r = &it->w->run[first.run];
  event_of(it, r->ev, ev);
  ev->nact = 0;
  ev->skipped = 0;
  take(it, first, ev, &present);
  if (first.i + 1 < r->maxcount) it->hold[nhold++] = (cursor){first.run, first.i + 1};
  start_runs(it);                            /* runs starting at this very point join it */
  while (it->n && cmp_key(it, front(it), first) == 0) {
    cursor c = pop(it);
    if (take(it, c, ev, &present)) {
      if (c.i + 1 < it->w->run[c.run].maxcount) it->hold[nhold++] = (cursor){c.run, c.i + 1};
    } else {
      it->hold[nhold++] = c;
    }
  }
  for (size_t i = 0; i < nhold; i++) push(it, it->hold[i]);
  return 1;
}

/* ---- a warp as bytes (the trace file) --------------------------------------------------------- */

#define RUN_BYTES (4 + 4 * (RT_MAXD - 1) + 4 + 4)
#define SEG_BYTES (1 + 4 + 8 + 8)

static uint32_t key_mask(const rt_wwarp *w) {
  uint32_t m = 0;
  for (unsigned l = 0; l < RT_WARP; l++)
    if (w->thread[l]) m |= UINT32_C(1) << l;
  return m;
}

size_t rt_wwarp_size(const rt_wwarp *w) {
  uint32_t m = key_mask(w);
  size_t keys = 0;
  for (; m; m &= m - 1) keys++;
  return 16 + 8 * keys + w->nrun * RUN_BYTES + w->nseg * SEG_BYTES;
}

static unsigned char *put32(unsigned char *o, uint32_t v) {
  for (int i = 0; i < 4; i++) o[i] = (unsigned char)(v >> (8 * i));
  return o + 4;
}

static unsigned char *put64(unsigned char *o, uint64_t v) {
  for (int i = 0; i < 8; i++) o[i] = (unsigned char)(v >> (8 * i));
  return o + 8;
}

uint64_t rt_wwarp_events(const rt_wwarp *w) {
  uint64_t n = 0;
  for (size_t r = 0; r < w->nrun; r++) n += w->run[r].maxcount;
  return n;
}

void rt_wwarp_serialise(const rt_wwarp *w, unsigned char *o) {
  uint32_t m = key_mask(w);
  o = put32(o, w->threads);
  o = put32(o, m);
  for (unsigned l = 0; l < RT_WARP; l++)
    if (m >> l & 1) o = put64(o, w->thread[l]);
  o = put32(o, (uint32_t)w->nrun);
  o = put32(o, (uint32_t)w->nseg);
  for (size_t r = 0; r < w->nrun; r++) {
    o = put32(o, w->run[r].ev);
    for (unsigned j = 0; j < RT_MAXD - 1; j++) o = put32(o, w->run[r].t[j]);
    o = put32(o, w->run[r].nseg);
    uint32_t bits;
    memcpy(&bits, &w->run[r].skipped, 4);
    o = put32(o, bits);
  }
  /* each run's segments in run order: runs are sorted by first key, their segments are not */
  for (size_t r = 0; r < w->nrun; r++) {
    uint32_t lanes = w->run[r].lanes;             /* a linear warp's, in ascending order */
    for (uint32_t k = 0; k < w->run[r].nseg; k++, lanes &= lanes - 1) {
      size_t at = w->run[r].seg0 + k;
      rt_seg sg = w->linear ? (rt_seg){(uint32_t)__builtin_ctz(lanes), 1, w->addr[at], 0} : w->seg[at];
      *o++ = (unsigned char)sg.lane;
      o = put32(o, sg.count);
      o = put64(o, sg.a0);
      o = put64(o, sg.stride);
    }
  }
}

static uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

rt_wwarp *rt_wwarp_deserialise(const unsigned char *p, size_t len, size_t nev, size_t *used, char *err,
                               size_t errlen) {
  size_t at = 0;
#define NEED(n, what)                                                                              \
  do {                                                                                             \
    if (len - at < (size_t)(n)) {                                                                  \
      snprintf(err, errlen, "warp truncated at byte %zu (%s)", at, what);                         \
      goto fail;                                                                                   \
    }                                                                                              \
  } while (0)
  rt_wwarp *w = calloc(1, sizeof *w);
  if (!w) { snprintf(err, errlen, "out of memory"); return NULL; }
  NEED(8, "header");
  w->threads = get32(p);
  uint32_t m = get32(p + 4);
  at = 8;
  if (w->threads > RT_WARP) { snprintf(err, errlen, "warp at byte 0: %u threads (at most %d)", w->threads, RT_WARP); goto fail; }
  for (unsigned l = 0; l < RT_WARP; l++)
    if (m >> l & 1) {
      NEED(8, "thread keys");
      w->thread[l] = get64(p + at);
      at += 8;
    }
  NEED(8, "run and segment counts");
  size_t nrun = get32(p + at), nseg = get32(p + at + 4);
  at += 8;
  if (nrun > (len - at) / RUN_BYTES || nseg > (len - at) / SEG_BYTES || nrun > nseg) {
    snprintf(err, errlen, "warp truncated at byte %zu (%zu runs, %zu segments announced)", at, nrun, nseg);
    goto fail;
  }
  NEED(nrun * RUN_BYTES + nseg * SEG_BYTES, "runs and segments");
  w->run = malloc((nrun ? nrun : 1) * sizeof *w->run);
  w->seg = malloc((nseg ? nseg : 1) * sizeof *w->seg);
  if (!w->run || !w->seg) { snprintf(err, errlen, "out of memory"); goto fail; }
  w->nrun = nrun;
  w->nseg = nseg;
  size_t seg0 = 0, segs_at = at + nrun * RUN_BYTES;
  for (size_t r = 0; r < nrun; r++, at += RUN_BYTES) {
    rt_wrun *wr = &w->run[r];
    wr->ev = get32(p + at);
    for (unsigned j = 0; j < RT_MAXD - 1; j++) wr->t[j] = get32(p + at + 4 + 4 * j);
    wr->nseg = get32(p + at + 4 + 4 * (RT_MAXD - 1));
    uint32_t bits = get32(p + at + 8 + 4 * (RT_MAXD - 1));
    memcpy(&wr->skipped, &bits, 4);
    wr->seg0 = (uint32_t)seg0;
    wr->maxcount = 0;
    if (wr->ev >= nev) { snprintf(err, errlen, "warp byte %zu: event %u out of range (%zu events)", at, wr->ev, nev); goto fail; }
    if (!(wr->skipped >= 0 && wr->skipped <= (float)RT_ITER_PERIOD)) {   /* NaN fails too; a window
                                                                               stands for a period at most */
      snprintf(err, errlen, "warp byte %zu: a run standing for %g skipped iterations per element (0 to %d)", at,
               (double)wr->skipped, RT_ITER_PERIOD);
      goto fail;
    }
    if (wr->nseg == 0 || wr->nseg > RT_WARP || wr->nseg > nseg - seg0) {
      snprintf(err, errlen, "warp byte %zu: a run of %u segments (1 to %d, %zu left)", at, wr->nseg, RT_WARP, nseg - seg0);
      goto fail;
    }
    uint32_t lanes = 0;
    for (uint32_t k = 0; k < wr->nseg; k++) {
      size_t sa = segs_at + (seg0 + k) * SEG_BYTES;
      rt_seg *sg = &w->seg[seg0 + k];
      sg->lane = p[sa];
      sg->count = get32(p + sa + 1);
      sg->a0 = get64(p + sa + 5);
      sg->stride = get64(p + sa + 13);
      if (sg->lane >= RT_WARP || (lanes >> sg->lane) != 0 || sg->count == 0) {
        snprintf(err, errlen, "warp byte %zu: segment with lane %u, count %u (lanes below %d, ascending in a run, "
                 "count >= 1)", sa, sg->lane, sg->count, RT_WARP);
        goto fail;
      }
      lanes |= UINT32_C(1) << sg->lane;
      if (sg->count > wr->maxcount) wr->maxcount = sg->count;
      if (k == 0 || sg->count < wr->mincount) wr->mincount = sg->count;
    }
    wr->lanes = lanes;
    seg0 += wr->nseg;
  }
  if (seg0 != nseg) { snprintf(err, errlen, "warp byte %zu: runs hold %zu of %zu segments", at, seg0, nseg); goto fail; }
  *used = segs_at + nseg * SEG_BYTES;
  return w;
fail:
  rt_wwarp_free(w);
  return NULL;
#undef NEED
}
