/* cgp_rt_lanes.c: a kernel's shape and the recording of its lanes (cgp_rt_lanes.h):
   the shape of the thread body, a lane's runs as the hooks record them, and straight-line bodies
   recorded warp-major. cgp_rt_warp.c builds warps from what is recorded here. */
#include "cgp_rt_lanes.h"

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
  free(s->whole);
  free(s->multi);
  free(s->ev_header);
  free(s->rank);
  free(s->order);
  free(s);
}

size_t rt_shape_events(const rt_shape *s) { return s->nev; }
int rt_shape_flat(const rt_shape *s) { return s->flat; }

void rt_shape_trace_whole(rt_shape *s, int block) {
  if (block >= 0 && (size_t)block < s->nbb && s->eff_loop[block] >= 0) s->whole[s->eff_loop[block]] = 1;
}

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
  s->whole = calloc(nloops ? nloops : 1, 1);
  s->multi = calloc(nloops ? nloops : 1, 1);
  s->ev_header = calloc(s->nev ? s->nev : 1, 1);
  if (!s->depth || !s->pos || !s->eff_loop || !s->is_header || !s->ldepth || !s->is_leaf || !s->whole || !s->multi ||
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
  t->seen_at = malloc(s->nev ? s->nev : 1);
  if (!t->open || !t->seen_at) { free(t->open); free(t->seen_at); free(t); return NULL; }
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
  free(t->seen_at);
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
   the loop's header block, `body` more otherwise, spread over the window's iterations; in the
   entry's first window, over its iterations but the first, the loop's start-up (rt_iter_spread):
   a run of iterations 1.. carries them all, one of iteration 0 alone none, one of 0..W-1 W - 1
   shares spread over its W elements. */
static void weigh_window(rt_tracker *t, uint32_t header, uint32_t body) {
  if (t->lane->failed) return;
  int startup = t->win_at == 0 && t->win_len > 1;
  size_t r1 = t->win_r1 < t->lane->n ? t->win_r1 : t->lane->n;
  unsigned dl = t->win_dl;
  /* the first window: which events ran at iteration 0, which after it (a run is consecutive) */
  if (startup) {
    for (size_t r = t->win_r0; r < r1; r++) t->seen_at[t->lane->run[r].ev] = 0;
    for (size_t r = t->win_r0; r < r1; r++) {
      const rt_run *R = &t->lane->run[r];
      uint32_t at = R->t[dl - 1];
      t->seen_at[R->ev] |= (uint8_t)((at == 0 ? 1 : 0) | (at + R->count > 1 ? 2 : 0));
    }
  }
  for (size_t r = t->win_r0; r < r1; r++) {
    rt_run *R = &t->lane->run[r];
    /* iteration 0 is the loop's start-up, left out, for an event that ran there and not again or
       not there at all; one that ran there and again (a load the registers let go every few
       iterations: MRI-Q's x[i], at 0, 4 ... 60) has its W elements' rate over the window's W
       iterations, iteration 0's element one of them */
    int regular = startup && t->seen_at[R->ev] == 3;
    float per = (float)(t->win_len - (startup && !regular));
    float extra = (float)(t->s->ev_header[R->ev] ? header : body) / per;
    if (startup && !regular && R->t[dl - 1] == 0)   /* its elements: consecutive iterations from 0 */
      extra *= (float)(R->count - 1) / (float)R->count;
    R->skipped = extra;
  }
}

int rt_tracker_window(rt_tracker *t, int l, unsigned dl) {
  if (!t->s->is_leaf[l] || t->s->whole[l]) return 0;
  uint32_t it = t->t_at[dl], phase = it % RT_ITER_PERIOD;
  uint32_t len = rt_iter_window(it);
  if (phase == 0) {                              /* a window opens: its runs are its own */
    t->gen_at[dl] = ++t->gen;
    t->win_r0 = t->lane->n;
    return 0;
  }
  if (phase != len) return 0;
  t->win_len = len;                              /* the window closes: skip up to the next one */
  t->win_at = it - len;
  t->win_dl = dl;
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

uint64_t rt_tracker_skip(rt_tracker *t, uint32_t bid, uint64_t n) {
  const rt_shape *s = t->s;
  int32_t *p = t->pause;
  if (p[RT_PAUSED] < 0 || bid >= s->nbb || s->eff_loop[bid] != p[RT_PAUSED] || !s->is_header[bid] || p[RT_LEFT] <= 1)
    return 0;
  uint64_t m = (uint64_t)(p[RT_LEFT] - 1) < n ? (uint64_t)(p[RT_LEFT] - 1) : n;
  p[RT_LEFT] -= (int32_t)m;
  p[RT_HEADER_LAST] = 1;
  return m;
}

uint64_t rt_tracker_room(const rt_tracker *t) {
  uint64_t at = t->t_at[t->d];
  if (t->iter_first == UINT32_MAX) return UINT64_MAX;
  return at + 1 < t->iter_first ? t->iter_first - 1 - at : 0;
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
void rt_flat_to_masks(const rt_shape *s, rt_flat *f) {
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
void rt_flat_to_lane(const rt_shape *s, rt_flat *f, unsigned l, rt_lane_rec *lane) {
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
  rt_flat_to_lane(t->s, f, t->flane, t->lane);
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

