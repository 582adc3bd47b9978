/* cgp_rt_warp.h: reconvergent warps (docs/pipeline.md, "Reconvergent warps").

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
   loop of any trip count is one run per site. A warp keeps runs grouped across lanes. */
#ifndef CGP_RT_WARP_H
#define CGP_RT_WARP_H

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
/* rt_tracker_start(t, lane), inline in cgp_rt_record.h (once per traced thread): start recording
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
/* rt_tracker_finish(t), inline in cgp_rt_record.h: the lane ends (its window's weights are
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
   both static inline, in cgp_rt_record.h. */
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
/* After rt_tracker_start(t, lanes[l]): the lane records into f (unless f has spilled), with
   rt_tracker_flat(t, f, l), inline in cgp_rt_record.h. */
/* The blocks the lane ran, of a flat shape whose body has no cycle, as bits b % 64 of seen[b / 64]
   (b < nbb; CGP_HOOK_BLOCK_SEEN), taken when the lane ends: recorded as rt_record of each block
   in the order it ran would have (reverse postorder, so program order), into the matrix or the
   lane's record, and cleared. Inline in cgp_rt_record.h (once per traced thread). */

/* A complete warp: its lanes' runs grouped, ready to be issued any number of times. */
typedef struct rt_wwarp rt_wwarp;
/* lanes[l] with active[l] set took part; thread[l] is the lane's packed coordinate. */
rt_wwarp *rt_wwarp_build(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                         const uint64_t thread[RT_WARP]);
/* The same warp by the reference grouping (every run sorted by program point): what
   rt_wwarp_build's direct grouping of identically shaped lanes must equal, byte for byte. */
rt_wwarp *rt_wwarp_build_sorted(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                                const uint64_t thread[RT_WARP]);
/* The warp of lanes recorded into f (and, if it spilled, into their records): what
   rt_wwarp_build gives for the same lanes recorded one by one. f is emptied for the next warp
   (and the lane records hold what they would); NULL when out of memory. */
rt_wwarp *rt_wwarp_build_flat(const rt_shape *s, rt_flat *f, rt_lane_rec lanes[RT_WARP],
                              const uint8_t active[RT_WARP], const uint64_t thread[RT_WARP]);
/* Frees the warp, or drops one holder of a shared one (rt_wwarp_share): each holder frees it once. */
void rt_wwarp_free(rt_wwarp *w);
/* One more holder of w (two devices' windows holding its block: docs/pipeline.md, "Sampling"). */
void rt_wwarp_share(rt_wwarp *w);
/* Its holders besides the one freeing it last: 0 when rt_wwarp_free releases it. */
unsigned rt_wwarp_shares(const rt_wwarp *w);
size_t rt_wwarp_bytes(const rt_wwarp *w);
unsigned rt_wwarp_threads(const rt_wwarp *w);           /* lanes that took part */
/* 1 if every run of the warp has one element and no two share a point (straight-line bodies):
   it keeps only addresses and is walked without a queue; rt_wwarp_build_sorted's never is. */
int rt_wwarp_linear(const rt_wwarp *w);
/* The warp as bytes (the trace file, docs/pipeline.md "One trace, every device"): little-endian
   fixed-width integers, u32 threads, u32 key mask, a u64 thread key per mask bit, u32 runs,
   u32 segments, per run u32 event, u32 iterations[RT_MAXD - 1], u32 segments, f32 skipped (IEEE
   754 bits), per segment u8 lane, u32 count, u64 first address, u64 stride (or a run's affine
   form: cgp_rt_wbytes.c). rt_wwarp_size_bound: bytes enough for it; rt_wwarp_serialise writes
   it and returns its length. */
size_t rt_wwarp_size_bound(const rt_wwarp *w);
/* Events the warp issues at most (the sum of its runs' longest counts): the work to replay it. */
uint64_t rt_wwarp_events(const rt_wwarp *w);
size_t rt_wwarp_serialise(const rt_wwarp *w, unsigned char *out);
/* Read one warp of a shape with `nev` events from p[0..len): NULL, with err saying what and at
   which byte of the warp, when the bytes are truncated or inconsistent (an event out of range,
   a lane twice in one run, a count of 0, more than RT_WARP lanes); *used: bytes it took. */
rt_wwarp *rt_wwarp_deserialise(const unsigned char *p, size_t len, size_t nev, size_t *used, char *err,
                               size_t errlen);
const uint64_t *rt_wwarp_thread_keys(const rt_wwarp *w);

/* One event of a warp in issue order. */
typedef struct {
  int is_mem;
  uint32_t id;                 /* site (is_mem) or block */
  float skipped;               /* executions in untraced iterations it stands for */
  float skipped_after;         /* the iterations skipped after its window (the footprint's reach) */
  unsigned nact;
  uint8_t lane[RT_WARP];
  uint64_t addr[RT_WARP];
  int has_span;                /* span[] holds each lane's (skipped > 0 in a leaf loop's window) */
  int spanned;                 /* the skipped iterations it stands for are given by spans: every
                                  lane's run reaches its window's last element, which carries them
                                  (cgp_warp_mem's `spanned`) */
  cgp_span span[RT_WARP];
} rt_wevent;

/* Walks a warp's events; several iterators may walk one warp at once. w NULL: no warp yet
   (rt_witer_reset gives it one). */
typedef struct rt_witer rt_witer;
rt_witer *rt_witer_new(const rt_shape *s, const rt_wwarp *w);
/* The same walk with the runs under way in a binary heap instead of a sorted queue: the
   reference the fast queue must equal, event for event (a linear warp is walked as ever). */
rt_witer *rt_witer_new_reference(const rt_shape *s, const rt_wwarp *w);
/* The walk of another warp of the same shape from its start, in its memory (grown if need be:
   a batch's iterators are reused, no allocation per warp); 0 when out of memory: this warp
   cannot be walked (the iterator can still take a smaller one). */
int rt_witer_reset(rt_witer *it, const rt_wwarp *w);
/* Next event: 1, or 0 at the end. */
int rt_witer_next(rt_witer *it, rt_wevent *ev);
void rt_witer_free(rt_witer *it);

#include "cgp_rt_record.h"   /* the inline fast path of recording */

#endif
