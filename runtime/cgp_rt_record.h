/* cgp_rt_record.h: recording a lane, the runtime's hottest path (cgp_rt_warp.h's contract).

   Every traced access and block entry of a traced thread comes here. The common case, an
   element that extends the run its event has open, is inline so that cgp_rt_mem and cgp_rt_bb
   reach it without a call (ATAX 8192 full: the two calls and record's frame were 41 % of the
   CPU); a new run is rt_record_new, out of line. The types are here, not in cgp_rt_lanes.c, for
   that inlining only: nothing outside the runtime's warp code reads their fields. */
#ifndef CGP_RT_RECORD_H
#define CGP_RT_RECORD_H

#include "cgp_rt_warp.h"

struct rt_shape {
  size_t nmem, nbb, nev, nloops;
  uint8_t *depth;              /* per event */
  uint32_t (*pos)[RT_MAXD];    /* per event: p0..p_depth */
  int *eff_loop;               /* per block: innermost tracked loop, -1 */
  uint8_t *is_header;          /* per block: header of its eff_loop */
  uint8_t *ldepth;             /* per loop: 1 + depth of its parent */
  uint8_t *is_leaf;            /* per loop: tracked, and no loop inside it */
  uint8_t *whole;              /* per loop: every iteration traced, never sampled (a leaf that
                                  reaches local memory: rt_shape_trace_whole) */
  uint8_t *multi;              /* per loop: has a block other than its header */
  uint8_t *ev_header;          /* per event: in the header block of its eff_loop */
  int flat;                    /* rt_shape_flat: no loop, at most RT_FLAT_EVENTS events, each at a
                                  position of its own */
  uint32_t *rank;              /* flat: per event, 1 + its place in program order */
  uint32_t *order;             /* flat: the events in program order */
};

/* A warp's lanes recorded warp-major (cgp_rt_warp.h, "Straight-line bodies"). */
struct rt_flat {
  uint32_t *mask;              /* per event: the lanes that ran it */
  uint64_t *addr;              /* per event, RT_WARP addresses: lane l's at [e * RT_WARP + l] */
  int spilled;                 /* a lane went out of program order: the warp's lanes are in their
                                  records (rt_wwarp_build_flat moves the others there) */
  uint64_t blocks[RT_WARP];    /* per lane, the blocks it marked (rt_flat_mark, bodies of at
                                  most 64 blocks): a store per lane; rt_wwarp_build_flat turns
                                  them into the blocks' masks */
  uint64_t any, all;           /* the OR and the AND of the words of the lanes that marked */
  uint32_t marked;             /* those lanes */
  size_t bytes;
};

struct rt_run {
  uint32_t ev, count;
  uint32_t t[RT_MAXD - 1];     /* iterations of the loops at depth 1..m at the first element */
  uint32_t gen;                /* which instance of the innermost loop (tracker's entry count) */
  float skipped;               /* per element: executions in untraced iterations it stands for */
  uint64_t a0, stride;         /* address of element i: a0 + i * stride (mod 2^64) */
};

struct rt_tracker {
  const rt_shape *s;
  rt_lane_rec *lane;
  unsigned d;
  int loop_at[RT_MAXD];
  uint32_t t_at[RT_MAXD], gen_at[RT_MAXD], gen;
  uint64_t *open;              /* per event: its open run, serial << 32 | index in the lane; a
                                  run of an earlier lane (another serial) is closed */
  uint32_t serial;             /* of the lane recorded now, from 1 (rt_tracker_start) */
  /* sampling inside the thread (rt_tracker_sample) */
  uint32_t iter_first;         /* RT_ITER_FIRST; UINT32_MAX: every iteration is traced */
  int32_t *pause;              /* [RT_PAUSED] leaf loop whose iterations are skipped now, -1:
                                  none; [RT_LEFT] header executions left to skip before the next
                                  window; [RT_HEADER_LAST] the last block the loop ran while
                                  paused was its header. In own_pause, or where
                                  rt_tracker_pause_in puts it (the instrumented code's copy) */
  int32_t own_pause[3];
  uint32_t paused_t;           /* first iteration skipped */
  uint32_t win_len;            /* the last window's iterations (RT_ITER_PERIOD - win_len skipped
                                  after it, up to the next) */
  uint32_t win_at;             /* its first iteration */
  unsigned win_dl;             /* its loop's depth (>= 1) */
  size_t win_r0, win_r1;       /* the lane's runs recorded in it */
  uint64_t iters_skipped;      /* iterations not traced, over all lanes */
  /* recording warp-major (rt_tracker_flat): flat NULL, or the warp's matrix lane flane writes */
  rt_flat *flat;
  unsigned flane;
  uint32_t frank;              /* rank of the lane's last event (0: none yet) */
};

/* A leaf loop's header at iteration t->t_at[dl] >= iter_first: opens or closes a window of
   traced iterations; 1 when the iteration is skipped (the tracker is then paused). */
int rt_tracker_window(rt_tracker *t, int l, unsigned dl);

/* A new run of event e at the current point (m: the event's depth, capped at the tracker's). */
void rt_record_new(rt_tracker *t, uint32_t e, uint64_t addr, unsigned m);

/* The lane's events so far move from its warp's matrix to its record, and so does the rest of the
   lane (an event out of program order: a cycle that is no natural loop). */
void rt_flat_spill(rt_tracker *t);

/* ---- the matrix's primitives ------------------------------------------------------------------
   Recording into a warp's matrix is three steps, each one function here: is the event after the
   lane's last in program order (rt_flat_follows, which makes it the last), its bit and its address
   (rt_flat_store), and, at the lane's end, its blocks' marks (rt_tracker_mark_word). rt_record's
   first case is made of them, and so are the runtime's specialisations of the hot path (cgp_rt.c:
   lane_right's matrix path, cgp_rt_mem_block's loops), which hold the lane's place in registers
   (rt_column) across a block of sites or start the next lane with no call (rt_tracker_next_lane).
   Nothing outside the tracker writes its fields or the matrix's but through these. */

/* The warp's matrix the lane records into, or NULL (its record: a loop, no matrix, or spilled). */
static inline rt_flat *rt_tracker_matrix(const rt_tracker *t) { return t->flat; }

/* 1 if event e comes after the lane's last event (*last, a rank; 0: none) in program order: it is
   then the last; 0 (nothing changed) if not: the lane must spill. */
static inline int rt_flat_follows(const uint32_t *rank, uint32_t *last, uint32_t e) {
  uint32_t r = rank[e];
  if (r <= *last) return 0;
  *last = r;
  return 1;
}

/* rt_flat_follows for events first..final at once, when their ranks rise with their numbers. */
static inline int rt_flat_follows_all(const uint32_t *rank, uint32_t *last, uint32_t first, uint32_t final) {
  if (rank[first] <= *last) return 0;
  *last = rank[final];
  return 1;
}

/* The lane's event e at addr into the matrix: bit `bit` (1 << lane) of e's mask, and the address
   in the lane's column (the matrix's addresses from the lane's: col[e * RT_WARP]). */
static inline void rt_flat_store(uint32_t *restrict mask, uint64_t *restrict col, uint32_t bit, uint32_t e,
                                 uint64_t addr) {
  mask[e] |= bit;
  col[(size_t)e * RT_WARP] = addr;
}

/* A lane's place in its matrix, held in registers across a block of sites: rt_tracker_column
   takes it from a tracker whose lane records into a matrix (rt_tracker_matrix), events go in by
   rt_flat_follows(c.rank, &c.last, e) and rt_flat_store(c.mask, c.col, c.bit, e, addr), and
   rt_tracker_column_end gives the tracker back the lane's last rank; between the two, nothing
   else may record into the tracker. */
typedef struct {
  uint32_t *mask;
  uint64_t *col;
  const uint32_t *rank;
  uint32_t bit, last;
} rt_column;

static inline rt_column rt_tracker_column(const rt_tracker *t) {
  rt_flat *f = t->flat;
  return (rt_column){.mask = f->mask, .col = f->addr + t->flane, .rank = t->s->rank,
                     .bit = UINT32_C(1) << t->flane, .last = t->frank};
}

static inline void rt_tracker_column_end(rt_tracker *t, const rt_column *c) { t->frank = c->last; }

/* Event e at addr: the next element of e's open run if it is at the next iteration of the same
   loop instance and on its stride (the second element sets the stride), else a new run. */
static inline void rt_record(rt_tracker *t, uint32_t e, uint64_t addr) {
  rt_flat *f = t->flat;
  if (f) {                                      /* warp-major: a bit and an address */
    if (rt_flat_follows(t->s->rank, &t->frank, e)) {
      rt_flat_store(f->mask, f->addr + t->flane, UINT32_C(1) << t->flane, e, addr);
      return;
    }
    rt_flat_spill(t);
  }
  rt_lane_rec *lane = t->lane;
  if (!lane || lane->failed) return;
  unsigned m = t->s->depth[e];
  if (m == 0 && lane->n < lane->cap) {          /* outside every loop (straight-line bodies): a
                                                   run of one, with no iterations to copy, and
                                                   none to extend (open[e] is read only for m > 0) */
    lane->run[lane->n++] = (rt_run){.ev = e, .count = 1, .a0 = addr};
    return;
  }
  if (m > t->d) m = t->d;                       /* a site reached without its loop's header: keep going */
  uint64_t o = t->open[e];
  if ((uint32_t)(o >> 32) == t->serial && m > 0) {
    rt_run *R = &lane->run[(uint32_t)o];
    if (R->gen == t->gen_at[m] && t->t_at[m] == R->t[m - 1] + R->count) {
      if (R->count == 1) { R->stride = addr - R->a0; R->count = 2; return; }
      if (addr == R->a0 + R->count * R->stride && R->count < UINT32_MAX) { R->count++; return; }
    }
  }
  rt_record_new(t, e, addr, m);
}

/* The lane enters block bid; 1 when that starts an iteration the tracker skips (sampling inside
   the thread): until rt_tracker_resume says otherwise, the lane's events are not recorded. */
static inline int rt_tracker_block(rt_tracker *t, uint32_t bid) {
  const rt_shape *s = t->s;
  if (bid >= s->nbb) return 0;
  int l = s->eff_loop[bid];
  if (l >= 0 && s->is_header[bid]) {
    unsigned dl = s->ldepth[l];
    if (t->d >= dl && t->loop_at[dl] == l) {
      t->t_at[dl]++;
    } else {
      t->loop_at[dl] = l;
      t->t_at[dl] = 0;
      t->gen_at[dl] = ++t->gen;
      t->win_r0 = t->lane->n;                   /* the first window's runs start here */
    }
    t->d = dl;
    if (t->t_at[dl] >= t->iter_first && rt_tracker_window(t, l, dl)) return 1;
  } else {
    t->d = l >= 0 ? s->ldepth[l] : 0;
  }
  rt_record(t, (uint32_t)(s->nmem + bid), 0);
  return 0;
}

/* Out of line, rarely: a new round of serials (every event's open run cleared); the lane ended in
   a skipped iteration. */
void rt_tracker_reserial(rt_tracker *t);
void rt_tracker_leave_paused(rt_tracker *t);

/* A new serial closes every run of the lanes before, finished or not. */
static inline void rt_tracker_start(rt_tracker *t, rt_lane_rec *lane) {
  if (++t->serial == 0) rt_tracker_reserial(t);
  t->lane = lane;
  t->flat = NULL;
  lane->n = 0;
  lane->failed = 0;
  t->d = 0;
  t->gen = 0;
  t->pause[RT_PAUSED] = -1;
}

static inline void rt_tracker_finish(rt_tracker *t) {
  if (!t->lane) return;
  if (t->pause[RT_PAUSED] >= 0) rt_tracker_leave_paused(t);
  t->lane = NULL;
  t->flat = NULL;
}

/* Lane l of f marked blocks w (once, at its end). */
static inline void rt_flat_mark(rt_flat *f, unsigned l, uint64_t w) {
  f->blocks[l] |= w;
  f->any |= w;
  f->all &= w;
  f->marked |= UINT32_C(1) << l;
}

/* rt_tracker_seen (cgp_rt_warp.h), every case: the lane in its record (its blocks after its
   sites), or more than one word of marks (straight into the blocks' masks). */
void rt_tracker_seen_all(rt_tracker *t, uint64_t *seen);

/* rt_tracker_seen where the lane records into a matrix and the body has at most 64 blocks. */
static inline void rt_tracker_mark_word(rt_tracker *t, uint64_t *seen) {
  rt_flat_mark(t->flat, t->flane, seen[0]);
  seen[0] = 0;
}

static inline void rt_tracker_seen(rt_tracker *t, uint64_t *seen) {
  if (!t->flat || t->s->nbb > 64) {
    rt_tracker_seen_all(t, seen);
    return;
  }
  rt_tracker_mark_word(t, seen);
}

static inline void rt_tracker_flat(rt_tracker *t, rt_flat *f, unsigned l) {
  if (!f || f->spilled || !t->lane || l >= RT_WARP) return;
  t->flat = f;
  t->flane = l;
  t->frank = 0;
}

/* The lane recording into a matrix (rt_tracker_matrix, its marks taken) ends and lane l < RT_WARP
   of the same warp starts into it, its record `lane` empty: what rt_tracker_finish,
   rt_tracker_start(t, lane) and rt_tracker_flat(t, matrix, l) do there. A shape with a matrix
   has no loop: no pause to leave, no iteration or depth to reset, and no open run is ever read
   (every event is at depth 0), so the serial need not move. */
static inline void rt_tracker_next_lane(rt_tracker *t, rt_lane_rec *lane, unsigned l) {
  t->lane = lane;
  t->flane = l;
  t->frank = 0;
}

static inline void rt_tracker_access(rt_tracker *t, uint32_t sid, uint64_t addr) {
  if (sid < t->s->nmem) rt_record(t, sid, addr);
}

#endif
