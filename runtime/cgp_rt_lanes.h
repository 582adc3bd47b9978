/* cgp_rt_lanes.h: a kernel's thread-body shape and the recording of its lanes as keyed runs
   (cgp_rt_lanes.c; docs/pipeline.md, "Reconvergent warps"). Above it, cgp_rt_warp.h groups the
   lanes into warps, cgp_rt_witer.h issues a warp's events, cgp_rt_wbytes.h writes warps as bytes.

   A GPU runs the 32 lanes of a warp in lockstep and reconverges them after a branch or a loop
   (SIMT stack, immediate post-dominator): a warp memory instruction is one static site executed
   by the lanes that reach it at the same iteration of every enclosing loop of the thread body.
   The CPU runs the lanes one after another, so each lane's events are recorded with their
   program point, its key:

       key = [p0, t1, p1, t2, p2, ..., tm, pm]

   where m is the depth of the event's innermost loop inside the thread body, tj the iteration
   (0, 1, ...) of the enclosing loop at depth j, pm the event's own position and pj (j < m) the
   position of the depth-(j+1) loop containing it; positions are reverse-postorder numbers of the
   thread body's blocks (a site adds its order in its block), so along any one lane keys increase,
   and lanes at the same program point have equal keys. Merging the lanes' events by key gives
   the warp's instructions in issue order, lanes that left a loop or took the other side of a
   branch masked.

   Bounded memory: a lane keeps runs, not accesses. A run is one event at consecutive iterations
   of its innermost loop (same outer iterations) whose addresses step by a constant; an affine
   loop of any trip count is one run per site. A warp keeps runs grouped across lanes.

   Recording a lane is the runtime's hottest path: every traced access and block entry of a
   traced thread comes here. The common case, an element that extends the run its event has open,
   is inline (the end of this header) so that cgp_rt_mem and cgp_rt_bb reach it without a call
   (ATAX 8192 full: the two calls and record's frame were 41 % of the CPU); a new run is
   rt_record_new, out of line. The types are here, not in cgp_rt_lanes.c, for that inlining only:
   nothing outside the runtime's warp code reads their fields. */
#ifndef CGP_RT_LANES_H
#define CGP_RT_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "cgp_abi.h"   /* the pause word's layout, shared with the instrumented code */
#include "cgp_analyzer.h"   /* cgp_span */

#define RT_WARP 32
#define RT_MAXD 8              /* loop depths tracked inside a thread body (deeper: see .c) */

/* The thread body's static shape. Events 0..nmem-1 are memory sites, nmem..nmem+nbb-1 blocks. */
typedef struct rt_shape rt_shape;

/* mem_block[s]: block of site s (-1: a load hoisted out of the thread loop, issued first);
   mem_order[s]: its position among its block's sites; bb_rpo[b]: reverse-postorder number of
   block b in the thread body; bb_loop[b]: innermost loop (inside the thread loop) holding b, or
   -1; loop_header[l], loop_parent[l] (-1: directly in the thread loop). NULL on inconsistent
   input (err says what). */
rt_shape *rt_shape_new(size_t nmem, const int *mem_block, const unsigned *mem_order, size_t nbb,
                       const unsigned *bb_rpo, const int *bb_loop, size_t nloops, const int *loop_header,
                       const int *loop_parent, char *err, size_t errlen);
void rt_shape_free(rt_shape *s);
size_t rt_shape_events(const rt_shape *s);

/* One lane's recorded runs. */
typedef struct rt_run rt_run;
typedef struct {
  rt_run *run;
  size_t n, cap;
  int failed;                  /* out of memory or over budget: the lane's record is cut short */
} rt_lane_rec;

/* The lane being traced (one at a time: the CPU runs threads one after another). */
typedef struct rt_tracker rt_tracker;
rt_tracker *rt_tracker_new(const rt_shape *s);
void rt_tracker_free(rt_tracker *t);
/* rt_tracker_start(t, lane), inline below (once per traced thread): start recording
   a new thread into lane (whose previous contents are dropped). */

/* Sampling inside a thread (docs/pipeline.md, "Sampling inside a thread"): of each entry of a
   leaf loop (one with no loop inside it) the runtime traces the windows of iterations
   [0, RT_ITER_FIRST) and [k RT_ITER_PERIOD, k RT_ITER_PERIOD + RT_ITER_WINDOW), k >= 1. A window
   stands for the iterations up to the next one, or to the loop's exit: its runs' `skipped` is
   (iterations skipped) / (its length) per element, but for the first window's start-up
   (rt_iter_spread). The schedule depends on the iteration only,
   so the lanes of a warp, and the warps of a batch, trace the same iterations; a loop of up to
   RT_ITER_FIRST iterations is traced whole, and a window of one entry is one run per event. */
#define RT_ITER_FIRST 64
#define RT_ITER_WINDOW 64
#define RT_ITER_PERIOD 2048
/* A tiled kernel's loop over one tile (tile(n) iterations, inside the tile loop) is traced whole up
   to this many: its footprint's geometry is learned from the first tile (docs/model.md 8b). */
#define RT_TILE_WHOLE 256
/* The length of the window that iteration `it` of a leaf loop's entry falls in the period of. */
static inline uint32_t rt_iter_window(uint32_t it) { return it < RT_ITER_PERIOD ? RT_ITER_FIRST : RT_ITER_WINDOW; }
/* The entry's first window holds the loop's start-up in its iteration 0 (a load whose value the
   thread then holds in a register, a first-iteration branch): that iteration stands for itself,
   and the iterations skipped after the window are spread over its W - 1 others; a run holding
   iteration 0 spreads its share over all its elements (its stride walk goes on in the skipped
   iterations as in the window). The iterations skipped after the window holding iteration t are
   `skipped` times this, for a run whose first element is at iteration t0 (weigh_window). */
static inline uint32_t rt_iter_spread(uint32_t t0, uint32_t t) {
  uint32_t W = rt_iter_window(t);
  return W - (t < RT_ITER_PERIOD && W > 1 && t0 > 0);
}
/* Sample the iterations of lanes started from now on (on != 0) or trace them all. */
void rt_tracker_sample(rt_tracker *t, int on);
/* The tracker's skipping state (RT_PAUSED, RT_LEFT, RT_HEADER_LAST: cgp_abi.h's CGP_PAUSE_*)
   moves to word[3], its current values copied: the instrumented code reads and updates the
   runtime's cgp_rt_pause as the contract there says. Until rt_tracker_free, which sets
   word[RT_PAUSED] to -1. */
#define RT_PAUSED CGP_PAUSE_LOOP
#define RT_LEFT CGP_PAUSE_LEFT
#define RT_HEADER_LAST CGP_PAUSE_HEADER_LAST
void rt_tracker_pause_in(rt_tracker *t, int32_t word[3]);
/* While paused (rt_tracker_block returned 1): the lane enters block bid. 0: still in a skipped
   iteration; 1: tracing resumed, at the next window or after the loop (the block is recorded). */
int rt_tracker_resume(rt_tracker *t, uint32_t bid);
/* rt_tracker_finish(t), inline below: the lane ends (its window's weights are
   settled if it ended in a skipped iteration); the tracker has no lane until the next
   rt_tracker_start. */
/* Loop folding (docs/pipeline.md, "Folded loops"): events ev[0..nev) each extended its open run
   in the iteration the lane has just recorded at its current loop level; k more iterations the
   same (each event once, on its stride) give each run k more elements and the level k more
   iterations, which is what recording them one by one would do. 1 when done; 0, with nothing
   changed, when it cannot be shown so (a run not at this iteration, a count that would pass
   2^32 - 1, a sampled window ahead, a failed lane): the caller then records them one by one. */
int rt_tracker_extend(rt_tracker *t, const uint32_t *ev, size_t nev, uint64_t k);
/* Iterations skipped so far, over all lanes (executions of the loop's body; of its header when
   the header is the whole loop). */
uint64_t rt_tracker_iterations_skipped(const rt_tracker *t);
/* The thread enters block bid (loop iterations are counted at loop headers):
   rt_tracker_block(t, bid), and accesses addr through site sid: rt_tracker_access(t, sid, addr);
   both static inline, below. */
/* Bytes the lanes' runs hold in all, across trackers (for the memory budget), and the most they
   may hold (default SIZE_MAX): a lane whose runs would grow past it fails (rt_lane_rec). */
extern size_t rt_run_bytes, rt_run_limit;
void rt_lane_free(rt_lane_rec *lane);

/* Straight-line bodies (docs/pipeline.md, "Straight-line bodies are recorded warp-major"): when
   the thread body has no loop, every event at most once per lane in program order (the blocks
   of an acyclic body run in reverse postorder), a warp's lanes can be recorded into one matrix,
   a lane mask and RT_WARP addresses per event, instead of a run per event per lane: what the
   warp's grouping would find is then read off in program order. rt_shape_flat: 1 if s has no
   loop, at most RT_FLAT_EVENTS events and no two at one position. A cycle that is no natural
   loop (irreducible control flow) runs an event out of order: that lane's events move to its
   record at once, the warp's other lanes when it is built, so the warp is what
   rt_wwarp_build gives. */
#define RT_FLAT_EVENTS CGP_FLAT_EVENTS
typedef struct rt_flat rt_flat;
int rt_shape_flat(const rt_shape *s);
/* The loop holding thread-body block `block` is traced at every iteration, never sampled inside
   the thread: it reaches the thread's local memory, whose array it reuses over the whole loop
   against an L1 all the threads' arrays share (docs/pipeline.md, "Sampling inside a thread"). */
void rt_shape_trace_whole(rt_shape *s, int block);
/* An empty matrix for a flat shape's warp, its bytes counted in rt_run_bytes: NULL when out of
   memory or when they would pass rt_run_limit (the warp is then recorded by lanes). */
rt_flat *rt_flat_new(const rt_shape *s);
void rt_flat_free(rt_flat *f);
/* f emptied for the next warp, what it held dropped (a warp outside every window). */
void rt_flat_clear(const rt_shape *s, rt_flat *f);
/* For rt_wwarp_build_flat (cgp_rt_warp.c): a straight-line body's recorded blocks turned into its
   warp's masks, and lane l's events in f, in program order, appended to its record and cleared
   from f. */
void rt_flat_to_masks(const rt_shape *s, rt_flat *f);
void rt_flat_to_lane(const rt_shape *s, rt_flat *f, unsigned l, rt_lane_rec *lane);
/* After rt_tracker_start(t, lanes[l]): the lane records into f (unless f has spilled), with
   rt_tracker_flat(t, f, l), inline below. */
/* The blocks the lane ran, of a flat shape whose body has no cycle, as bits b % 64 of seen[b / 64]
   (b < nbb; CGP_HOOK_BLOCK_SEEN), taken when the lane ends: recorded as rt_record of each block
   in the order it ran would have (reverse postorder, so program order), into the matrix or the
   lane's record, and cleared. Inline below (once per traced thread). */

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

/* A warp's lanes recorded warp-major (above, "Straight-line bodies"). */
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
  uint8_t *seen_at;            /* per event: at iteration 0 of the first window (1), after it (2)
                                  (weigh_window's scratch) */
  uint64_t iters_skipped;      /* iterations not traced, over all lanes */
  /* recording warp-major (rt_tracker_flat): flat NULL, or the warp's matrix lane flane writes */
  rt_flat *flat;
  unsigned flane;
  uint32_t frank;              /* rank of the lane's last event (0: none yet) */
};

/* Up to n executions of header block bid of the leaf loop whose iterations the tracker skips now,
   skipped as the instrumented code skips them inline (cgp_abi.h, CGP_HOOK_PAUSE): all but the
   last one left before the next window, which rt_tracker_resume takes. Returns how many; 0 when
   the tracker is not paused in bid's loop or bid is not its header. (A folded loop's iterations,
   cgp_rt_fold.c.) */
uint64_t rt_tracker_skip(rt_tracker *t, uint32_t bid, uint64_t n);
/* The iterations rt_tracker_extend may add at the current depth before the window of traced
   iterations ends (UINT64_MAX when every iteration is traced). */
uint64_t rt_tracker_room(const rt_tracker *t);
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

/* rt_tracker_seen (above), every case: the lane in its record (its blocks after its
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
