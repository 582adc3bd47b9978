/* cgp_rt.c: the hooks. Pseudo-threads arrive in the sequential program's order, which is
   lexicographic in (z, y, x); this file turns them into the lanes of warps and blocks, decides what
   to trace and records the traced lanes' accesses. Every hook a thread or an access calls is here,
   with the helpers it inlines (and cgp_rt_access.h's): the hot path of every instrumented program,
   which a call between files would slow. What a traced warp and its block become is cgp_rt_sched.c's. A nest's
   entry and exit begin and end a launch: launches 0, 1, 3, 7 ... of a kernel are analysed, each
   standing for the launches up to the next one (plan_next_sample); every launch in `full` mode.

   The CUDA kernel's memory stream (docs/model.md, "The memory stream"): sites in the may_alias
   reading are every source-level access; a load of an address the same thread loaded or stored
   since its last store to another address is served from a register, as nvcc does when it
   cannot prove the kernel's pointers distinct, and is not issued. */
#include "cgp_rt_internal.h"
#include "cgp_rt_local.h"

#include <limits.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's state: the program's session and the launch traced (cgp_rt_internal.h). Before a
   launch, no right neighbour and no open span of the nest's CPU time. */
rt_global cgp_rt_g = {.launch = {.next_x = INT64_MIN, .plain_t0 = -1}};
/* The program's session (its devices and caches): the one the hooks' analyses run on. */
static rt_session *const S = &cgp_rt_g.session;
static rt_launch *const L = &cgp_rt_g.launch;
#include "cgp_rt_access.h"      /* after L, which their inline functions work on */
#include "cgp_rt_cpu.h"

/* Threads: the hooks keep one nest's state, so one thread at a time is traced. The first thread
   to enter a marked nest owns the runtime until it leaves; a thread entering one meanwhile runs
   it untraced (its hooks return at once) and is counted (report: runtime.concurrent_entries). */
static atomic_int rt_busy;
_Thread_local int rt_owner;
static atomic_ulong rt_concurrent;
unsigned long rt_concurrent_entries(void) { return atomic_load(&rt_concurrent); }
int cgp_rt_tracing;          /* read by the pass's inlined guards: 0 no lane is traced, 1 a lane is
                                traced, 2 it is in an iteration its tracker skips (block hooks run
                                to find the next traced iteration, memory hooks do not) */
int32_t cgp_rt_pause[3] = {-1, 0, 0};   /* the tracker's skipping state, which the instrumented
                                           code updates itself in skipped iterations (cgp_abi.h) */
uint64_t cgp_rt_block_seen[CGP_FLAT_EVENTS / 64];   /* blocks of a straight-line body the traced
                                                       thread ran (CGP_HOOK_BLOCK_SEEN), a bit
                                                       each; taken at its end */
static uint64_t *rt_seen = cgp_rt_block_seen;       /* where the instrumented code marks them */

void cgp_rt_block_seen_at(uint64_t *p) {
  if (p) rt_seen = p;
}

#define RT_LAUNCH_TOLERANCE 0.02  /* two analysed launches differ: predicted times, by more (5b) */
#define RT_DENSE_SPACING 16       /* then a sample stands for at most ~1/16 more launches */

/* The configuration of the kernel's device-independent analyses (L->kan): the dependence check's
   bounds, and each launch's thread order, set before it begins. */
static cgp_analysis_cfg kan_cfg = {.deps_max_addresses = RT_DEPS_MAX_ADDRESSES, .deps_max_checked = RT_DEPS_MAX_CHECKED};

/* ---- the hooks --------------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) void finish_lane(void) {
  if (!L->lane) return;
  rt_pending *p = L->lane_warp;
  if (L->lane->failed && L->sampled) L->k->budget_hit = 1;
  cgp_rt_g.traced_threads++;
  if (L->seen) rt_tracker_seen(L->tracker, L->seen);
  rt_tracker_finish(L->tracker);
  L->lane = NULL;
  cgp_rt_tracing = 0;
  L->lane_warp = NULL;
  /* complete once all its lanes ran, in whatever order the sweep visits them (a descending loop
     runs lane 31 first); lanes that never come (index guards) wait for the row or the end */
  if (++p->arrived >= p->lanes) rt_complete_warp(p);
}

static int32_t untraced(void) {
  return cgp_rt_g.sample_mode == 1 && L->k->can_skip ? CGP_RT_SKIP : CGP_RT_PLAIN;
}

/* untraced() for thread x inside the fast range; a PLAIN answer also grants the threads after
   it up to fast_hi (cgp_abi.h), which the code may run without asking, then reports the last
   one it ran to cgp_rt_fast_end. Only for a thread loop stepping by 1 (x is its index). */
static int32_t plain_run(int64_t x) {
  int32_t mode = untraced();
  if (mode != CGP_RT_PLAIN || L->k->step[0] != 1 || L->fast_hi <= x) return mode;
  uint64_t n = (uint64_t)(L->fast_hi - x - 1);
  return (int32_t)((n < CGP_RT_MAX_GRANT ? n : CGP_RT_MAX_GRANT) << 2);
}

/* 1 if x, y, z are the thread loops' own indices (thread_slow divides the others by their step). */
static int unit_steps(const long long *step) {
  for (int d = 0; d < 3; d++)
    if (step[d] > 1 || step[d] < -1) return 0;
  return 1;
}

/* Thread (x, y, z) is untraced and its block is L->out_*'s (or the launch is not sampled): the
   next threads of the same row, ascending, are untraced too up to the end of that block or the
   first cell at which a window closes or a batch is analysed (rt_advance_windows' thresholds), so
   cgp_rt_thread answers them with a count and a compare (the stencils' per-thread cost). */
static int32_t untraced_from(int64_t x, int64_t y, int64_t z) {
  if (!L->unit) return untraced();
  int64_t hi = L->traced && L->stop != RT_STOP_CONVERGED ? L->out_hi[0] : INT64_MAX, row = ROW(y, z);
  if (!L->unordered)
    for (size_t i = 0; i < L->nwin; i++) {
      const rt_window *w = &L->win[i];
      if (w->done_row == row && w->done_x < hi) hi = w->done_x + 1;
      size_t d = w->dev;
      if (w->next[d] < w->size && w->next_row[d] == row && w->next_x[d] < hi) hi = w->next_x[d] + 1;
    }
  L->fast_y = y;
  L->fast_z = z;
  L->fast_hi = hi > x ? hi : x;
  return plain_run(x);
}

/* The devices that trace block `id`, a bit each: those whose schedule has a window holding it
   (start[d] and region_end[d]: the window's start and the end of the blocks it stands for) and
   whose windows have not converged before it. */
static unsigned tracing_devices(uint64_t id, uint64_t *start, uint64_t *region_end) {
  unsigned want = 0;
  for (size_t d = 0; d < S->ndev; d++)
    if (id < L->dv[d].stop_from &&
        rt_window_index(L->dv[d].W, cgp_rt_g.sample_mode == 2, id, &start[d], &region_end[d]) >= 0)
      want |= 1u << d;
  return want;
}

/* A block's number needs the grid's width (and in 3-D its height), which the sweep learns at the
   end of its first row (plane). Before, a constant bound of the mapped loop gives it (the
   descriptor's extent): in a grid whose row 0 or plane 0 holds no thread (loops from 1), the first
   row or plane that does comes before the sweep knows its size; its threads were not traced in any
   mode (MachSuite's stencil3d in 32x8x1 blocks: 116 blocks of 120 counted in `full` mode). */
static int block_id_of(int64_t x, int64_t y, int64_t z, uint64_t *id) {
  uint64_t bxi = (uint64_t)x / L->bx, byi = (uint64_t)y / L->by, bzi = (uint64_t)z / L->bz;
  if (byi == 0 && bzi == 0) { *id = bxi; return 1; }
  const rt_kernel *k = L->k;
  uint64_t gdx = L->gdx_known ? L->gdx : L->unit && k->extent[0] ? (k->extent[0] + L->bx - 1) / L->bx : 0;
  uint64_t gdy = L->gdy_known ? L->gdy : L->unit && k->extent[1] ? (k->extent[1] + L->by - 1) / L->by : 0;
  if (!gdx || (bzi && !gdy)) return 0;
  *id = bxi + gdx * (byi + gdy * bzi);
  return 1;
}

static int over_budget(void) {
  if (!L->over_budget && rt_run_bytes + L->stored > cgp_rt_g.budget_bytes) {
    L->over_budget = 1;
    if (L->sampled) L->k->budget_hit = 1;         /* a warming launch's cut is no analysed launch's */
  }
  return L->over_budget;
}

static int32_t thread_slow(int64_t x, int64_t y, int64_t z);
static int32_t thread_decide(int64_t x, int64_t y, int64_t z);

/* n untraced threads of the fast range ran, the last one x: all thread_slow would note of them. */
static void count_fast(int64_t x, uint64_t n) {
  L->threads += n;
  L->prev_x = x;
  if (x > L->maxx) L->maxx = x;
}

static int32_t lane_right(int64_t x, int64_t y, int64_t z);

int32_t cgp_rt_thread(int64_t x, int64_t y, int64_t z) {
  /* the traced thread's right neighbour first, the commonest call in `full` mode: next_x is
     INT64_MIN outside a nest (end_nest) and when there is none */
  if (x == L->next_x && y == L->next_y && z == L->next_z && rt_owner) return lane_right(x, y, z);
  if (!rt_owner || !L->active) return CGP_RT_PLAIN;
  if (x < L->fast_hi && x > L->prev_x && y == L->fast_y && z == L->fast_z) {
    count_fast(x, 1);
    return plain_run(x);
  }
  return thread_slow(x, y, z);
}

void cgp_rt_fast_end(int64_t x) {
  if (!rt_owner || !L->active || x <= L->prev_x || x >= L->fast_hi) return; /* ran none granted */
  count_fast(x, (uint64_t)(x - L->prev_x));     /* threads prev_x + 1 .. x */
}

/* Lane l of the traced warp has begun at x: it holds nothing in registers yet, is traced, and
   its right neighbour is lane l + 1 at x + 1 when l + 1 < end (start_lane). */
static inline void lane_begun(unsigned l, unsigned end, int64_t x) {
  L->nfwd = 0;
  L->fwd_ids = 0;
  cgp_rt_tracing = 1;
  L->next_x = l + 1 < end ? x + 1 : INT64_MIN;
  L->next_l = l + 1;
}

/* Trace thread (x, y, z) as lane l of pending warp p. Its right neighbour is lane l + 1 of the
   same warp when l + 1 < end: end is RT_WARP or where x's row of the block ends (lane l +
   bx - x % bx), whichever comes first, when x, y, z are the loops' own indices, else 0
   (lane_end). */
static inline __attribute__((always_inline)) int32_t start_lane(rt_pending *p, unsigned l, unsigned end, int64_t x,
                                                                  int64_t y, int64_t z) {
  p->active[l] = 1;
  p->thread[l] = cgp_thread_key((int)L->k->dims, (uint64_t)x, (uint64_t)y, (uint64_t)z);
  L->lane = &p->lane[l];
  L->lane_warp = p;
  rt_tracker_start(L->tracker, L->lane);
  if (!p->flat && L->flat) p->flat = rt_flat_new(L->k->shape);
  rt_tracker_flat(L->tracker, p->flat, l);
  if (__builtin_expect(L->nhoist != 0, 0))
    for (unsigned h = 0; h < L->nhoist; h++) rt_tracker_access(L->tracker, L->hoist_sid[h], L->hoist_addr[h]);
  lane_begun(l, end, x);
  L->next_y = y;
  L->next_z = z;
  L->next_end = end;
  return CGP_RT_TRACE;
}

/* start_lane's end for lane l at column col of its block. */
static unsigned lane_end(unsigned l, unsigned col) {
  if (!L->unit) return 0;
  uint64_t end = (uint64_t)l + (L->bx - col);
  return end < RT_WARP ? (unsigned)end : RT_WARP;
}

/* lane_right's general case: the lane ends and the next one starts as thread_slow would end and
   start them, out of lane_right so that its matrix path below saves no register. */
static __attribute__((noinline)) int32_t lane_next(rt_pending *p, int64_t x, int64_t y, int64_t z) {
  finish_lane();
  count_fast(x, 1);
  return start_lane(p, L->next_l, L->next_end, x, y, z);
}

/* Thread_slow for the traced thread's right neighbour (x, y, z) = (next_x, next_y, next_z) when
   it is the next lane of the same warp and that lane does not complete the warp: then everything
   thread_slow would find is known (same row, block, window and pending warp; no window threshold
   lies between two columns of one block, so rt_advance_windows has nothing to do) and only the
   counts move. No division: the threads of a warp after its first cost what starting a lane
   costs. */
static __attribute__((noinline)) int32_t lane_right(int64_t x, int64_t y, int64_t z) {
  rt_pending *p = L->lane_warp;
  if (!L->active) return CGP_RT_PLAIN;
  if (!L->lane || L->unordered || p->arrived + 1 >= p->lanes) return thread_slow(x, y, z);
  rt_tracker *t = L->tracker;                   /* (fast_hi is INT64_MIN: thread_slow set it
                                                   before this warp's first lane began) */
  if (!(L->k->fast & RT_FAST_LANE) || !rt_tracker_matrix(t) || L->nhoist) return lane_next(p, x, y, z);
  {
    /* finish_lane and start_lane where the lane records into its warp's matrix (a straight-line
       body: no loop, so no iteration counts, pauses or open runs to reset; its blocks' marks in
       one word), with nothing else to do, and no call: no register to save (LU 256 full under
       callgrind: the lanes' ends and starts 0.87 -> 0.45 G instructions) */
    if (L->seen) rt_tracker_mark_word(t, L->seen);
    cgp_rt_g.traced_threads++;
    p->arrived++;
    count_fast(x, 1);
    unsigned l = L->next_l;
    rt_lane_rec *lane = &p->lane[l];           /* empty since its warp began (rt_complete_warp) */
    p->active[l] = 1;
    /* x is the last lane's x + 1: its key is the last key + 1 unless x's field wrapped to 0 */
    p->thread[l] = (uint64_t)x & L->key_x ? p->thread[l - 1] + 1
                                           : cgp_thread_key((int)L->k->dims, (uint64_t)x, (uint64_t)y, (uint64_t)z);
    L->lane = lane;
    rt_tracker_next_lane(t, lane, l);
    lane_begun(l, L->next_end, x);
    return CGP_RT_TRACE;
  }
}

/* Out of line, so the fast path above is a leaf that saves no registers. */
static __attribute__((noinline)) int32_t thread_slow(int64_t x, int64_t y, int64_t z) {
  return plain_mark(thread_decide(x, y, z));
}

static int32_t thread_decide(int64_t x, int64_t y, int64_t z) {
  L->fast_hi = INT64_MIN;
  L->next_x = INT64_MIN;
  const long long *step = L->step;            /* never 0 nor LLONG_MIN (kernel_begin) */
  if (step[0] > 1 || step[0] < -1) x /= step[0] < 0 ? -step[0] : step[0];
  if (step[1] > 1 || step[1] < -1) y /= step[1] < 0 ? -step[1] : step[1];
  if (step[2] > 1 || step[2] < -1) z /= step[2] < 0 ? -step[2] : step[2];
  finish_lane();
  L->threads++;
  if (x < 0 || y < 0 || z < 0) return CGP_RT_PLAIN;          /* no such CUDA thread */
  if (x > L->maxx) L->maxx = x;
  if (y > L->maxy) L->maxy = y;
  if (z > L->maxz) L->maxz = z;
  int64_t row = ROW(y, z);
  if (L->threads > 1 && (row < L->cur_row || (row == L->cur_row && x < L->prev_x))) L->unordered = 1;
  L->prev_x = x;
  if (L->threads == 1) L->cur_row = row;        /* the sweep may start on any row (stencils: 1) */
  else if (row != L->cur_row) {
    /* warps completed, windows cut: not the CPU's; with no window open there is no such work,
       and no clock is read (a read costs more than a short row's threads) */
    double paused = L->nwin ? plain_pause() : -1;
    rt_on_row_change(row);
    plain_resume(paused);
  }
  if (L->nwin) rt_advance_windows(row, x);
  if (!L->traced || L->stop == RT_STOP_CONVERGED) return untraced_from(x, y, z);
  if (x < L->out_hi[0] && x >= L->out_lo[0] && y < L->out_hi[1] && y >= L->out_lo[1] && z < L->out_hi[2] &&
      z >= L->out_lo[2])
    return untraced_from(x, y, z);              /* the block of the last thread outside the sample */
  uint64_t id, start[RT_MAX_DEVICES], region_end[RT_MAX_DEVICES];
  if (!block_id_of(x, y, z, &id)) return untraced();
  unsigned want = tracing_devices(id, start, region_end);
  if (!want) {                                  /* a block's windows depend only on its id */
    L->out_lo[0] = x - x % L->bx; L->out_hi[0] = L->out_lo[0] + L->bx;
    L->out_lo[1] = y - y % L->by; L->out_hi[1] = L->out_lo[1] + L->by;
    L->out_lo[2] = z - z % L->bz; L->out_hi[2] = L->out_lo[2] + L->bz;
    return untraced_from(x, y, z);
  }
  unsigned tid = (unsigned)(x % L->bx) + (unsigned)(y % L->by) * L->bx + (unsigned)(z % L->bz) * L->bx * L->by;
  unsigned widx = tid / RT_WARP, last = widx * RT_WARP + RT_WARP - 1;
  if (last >= L->tpb) last = L->tpb - 1;
  int64_t last_row = ROW(y - (int64_t)(y % L->by) + (last / L->bx) % L->by,
                         z - (int64_t)(z % L->bz) + last / (L->bx * L->by));
  rt_pending *p = NULL;
  for (size_t i = 0; i < L->npend && !p; i++)
    if (L->pend[i].used && L->pend[i].block_id == id && L->pend[i].widx == widx) p = &L->pend[i];
  if (id >= L->drop_from) return untraced();    /* blocks the GPU runs after those kept */
  if (!p && over_budget() && !(L->unordered && rt_drop_windows_after(id))) {
    for (size_t d = 0; d < S->ndev; d++) {           /* a warp begun is finished; no new one starts */
      rt_window *w = rt_window_of(d, id);
      if (w) w->budget_hit = 1;
    }
    return untraced();
  }
  for (size_t d = 0; d < S->ndev; d++)
    if ((want >> d & 1) && !rt_window_of(d, id) && !rt_open_window(d, start[d], region_end[d])) {
      rt_lost_to_memory();
      return untraced();
    }
  if (!p) p = rt_pending_for(id, widx, last_row);
  if (!p) { rt_lost_to_memory(); return untraced(); }
  p->lanes = last - widx * RT_WARP + 1;
  unsigned l = tid % RT_WARP;
  return start_lane(p, l, lane_end(l, (unsigned)(x % L->bx)), x, y, z);
}

/* The hottest entry point: the cheapest test first (cgp_rt_tracing is 1 only while the owner
   thread traces a lane). */
void cgp_rt_mem(uint32_t sid, const void *addr, const void *base) {
  if (cgp_rt_tracing != 1 || !rt_owner || sid >= L->nmem || !L->lane) return;
  mem_at(sid, site_addr(sid, addr, base));
}

/* cgp_rt_mem_block's sites k.. through mem_at; when `checked`, site k's forwarding check was
   made (and missed): it is recorded as it is (rt_record spills the lane: out of program order). */
static __attribute__((noinline)) void mem_block_rest(uint32_t first, uint32_t count, void *const *addr,
                                                     void *const *base, uint32_t k, int checked) {
  if (checked) {
    cgp_rt_g.traced_accesses++;
    rt_record(L->tracker, first + k, site_addr(first + k, addr[k], base[k]));
    k++;
  }
  for (; k < count; k++) mem_at(first + k, site_addr(first + k, addr[k], base[k]));
}

/* cgp_rt_mem_block while the lane records into its warp's matrix (rt_record's first case,
   RT_FAST_BLOCK): the block's sites are written with the lane's column (rt_column: the matrix's
   pointers and the lane's last rank) held in registers, not reloaded after every store; with
   RT_FAST_RANKED, one program-order test for the block. Until a site is out of program order,
   which mem_block_rest records. */
static __attribute__((noinline)) void mem_block_checked(uint32_t first, uint32_t count, void *const *addr,
                                                        void *const *base) {
  rt_tracker *t = L->tracker;
  rt_column c = rt_tracker_column(t);
  uint32_t *restrict mask = c.mask, i = 0;
  uint64_t *restrict col = c.col, traced = 0;
  const uint64_t *fwd = L->mem_fwd;
  int ranked = (L->k->fast & RT_FAST_RANKED) != 0;
  if (ranked && !rt_flat_follows_all(c.rank, &c.last, first, first + count - 1)) {
    mem_block_rest(first, count, addr, base, 0, 0);   /* one test for the block, before any check */
    return;
  }
  for (; i < count; i++) {
    uint32_t sid = first + i;
    uint64_t a = gpu_addr(addr[i], base[i]);
    if (fwd[sid] != RT_FWD_NONE && forwarded(fwd[sid], a)) {
      L->k->forwarded[sid]++;
      continue;
    }
    if (!ranked && !rt_flat_follows(c.rank, &c.last, sid)) break;
    rt_flat_store(mask, col, c.bit, sid, a);
    traced++;
  }
  rt_tracker_column_end(t, &c);
  cgp_rt_g.traced_accesses += traced;
  if (i < count) mem_block_rest(first, count, addr, base, i, 1);
}

/* The hottest entry point after the thread's. Where the lane records into its warp's matrix, the
   kernel's sites rank in the order of their numbers and none has a forwarding check (a
   straight-line body's, mostly: quiet_sites; RT_FAST_QUIET), a block's sites are a test and two
   stores each, with no call but tail calls: no register saved. Else mem_block_checked
   (RT_FAST_BLOCK), or mem_block_rest, the general path, when the lane is in its record. */
void cgp_rt_mem_block(uint32_t first, uint32_t count, void *const *addr, void *const *base) {
  if (cgp_rt_tracing != 1 || !rt_owner || !L->lane || first >= L->nmem || !count) return;
  if (count > L->nmem - first) count = (uint32_t)(L->nmem - first);
  rt_tracker *t = L->tracker;
  unsigned fast = L->k->fast;
  if (!(fast & RT_FAST_BLOCK) || !rt_tracker_matrix(t)) {
    mem_block_rest(first, count, addr, base, 0, 0);
    return;
  }
  if (!(fast & RT_FAST_QUIET)) {
    mem_block_checked(first, count, addr, base);
    return;
  }
  rt_column c = rt_tracker_column(t);
  if (!rt_flat_follows_all(c.rank, &c.last, first, first + count - 1)) {
    mem_block_rest(first, count, addr, base, 0, 0);
    return;
  }
  uint32_t *restrict mask = c.mask;
  uint64_t *restrict col = c.col;
  for (uint32_t i = 0; i < count; i++) rt_flat_store(mask, col, c.bit, first + i, gpu_addr(addr[i], base[i]));
  rt_tracker_column_end(t, &c);
  cgp_rt_g.traced_accesses += count;
}

void cgp_rt_hoisted(uint32_t sid, const void *addr, const void *base) {
  if (!rt_owner || !L->active || sid >= L->k->nmem) return;
  unsigned i = 0;
  while (i < L->nhoist && L->hoist_sid[i] != sid) i++;
  if (i == RT_MAX_HOISTED) return;
  if (i == L->nhoist) L->nhoist++;
  L->hoist_sid[i] = sid;
  L->hoist_addr[i] = gpu_addr(addr, base);
}

/* Out of line: a block of a skipped iteration, or the one after it. The values the thread holds
   in registers (forwarded) stay those of the last traced iteration: the skipped ones ran the same
   sites, most at other addresses, so what a loop keeps at one address (a sum in a global
   element) is still held, as it would be. */
static __attribute__((noinline)) void bb_paused(uint32_t bid) {
  if (rt_tracker_resume(L->tracker, bid)) cgp_rt_tracing = 1;
}

void cgp_rt_bb(uint32_t bid) {
  if (!rt_owner || !L->lane) return;
  if (rt_tracker_matrix(L->tracker) && (L->k->fast & RT_FAST_BB) && bid < L->nbb) {
                                                /* a straight-line body: no loop to count, no
                                                   iteration to skip, only the block to record */
    rt_record(L->tracker, (uint32_t)(L->nmem + bid), 0);
    return;
  }
  if (bid < L->nbb) L->iter[L->bb_slot[bid]]++; /* a header: its loop's addresses are new */
  if (cgp_rt_tracing != 1) bb_paused(bid);
  else if (rt_tracker_block(L->tracker, bid)) cgp_rt_tracing = 2;
}

/* ---- launches ---------------------------------------------------------------------------------- */

static void end_nest(void);

static int launch_sampled(const rt_kernel *k, uint64_t launch) {
  return cgp_rt_g.sample_mode == 2 || launch == k->next_sampled;
}

/* Two analysed launches of one kernel differ on a device when the model predicts the second's
   per-warp behaviour at the first's grid (its blocks, its warps scaled by the same factor, as
   docs/model.md 5b scales a run of launches) more than RT_LAUNCH_TOLERANCE away from the first's
   time: what the launches do, not only how many threads they have. */
static int launches_differ_on(const cgp_device *dev, const cgp_kernel_stats *a, const cgp_kernel_stats *b) {
  if (!a->blocks || !b->blocks) return a->blocks != b->blocks;
  cgp_kernel_stats at = cgp_stats_scaled(b, (double)a->blocks / (double)b->blocks);
  cgp_prediction pa, pb;
  char err[256];
  if (cgp_predict(dev, a, &pa, err, sizeof err) || cgp_predict(dev, &at, &pb, err, sizeof err)) return 0;
  return fabs(pa.time_ms - pb.time_ms) > RT_LAUNCH_TOLERANCE * fmax(pa.time_ms, pb.time_ms);
}

/* On any device analysed (the order they are named in does not matter). */
static int launches_differ(const rt_sample *a, const rt_sample *b) {
  for (size_t d = 0; d < S->ndev; d++)
    if (launches_differ_on(&S->dev[d], &a->stats[d], &b->stats[d])) return 1;
  return 0;
}

/* After analysed launch n: the next one to analyse. Launches 0, 1, 3, 7, 15 ... (2n + 1: not the
   powers of two, which are the launches where an index the launch number drives, a column k,
   falls on an alignment boundary, so that every sample would be the unusual launch of its run)
   while the analysed launches agree; once two in a row differ (launches_differ; launch 0 is left
   out, as the first launch of a kernel finds the caches cold), every launch n + max(1, n / RT_DENSE_SPACING) from then on, so that no
   sample stands for more than about 1 / RT_DENSE_SPACING more launches (docs/model.md 5b). */
static void plan_next_sample(rt_kernel *k, uint64_t n) {
  if (k->nsamples >= 3 && !k->dense && k->samples[k->nsamples - 1].launch == n &&
      launches_differ(&k->samples[k->nsamples - 1], &k->samples[k->nsamples - 2]))
    k->dense = 1;
  uint64_t step = k->dense ? n / RT_DENSE_SPACING : n + 1;
  k->next_sampled = n + (step ? step : 1);
}

/* Another kernel, launched among the last launches of every kernel, analyses its next launch:
   this launch (of whatever kernel) warms the caches for it too, so that an analysed launch finds
   in the L2 what the launches of the other kernels just before it leave there, as a full trace
   does (docs/model.md 4c, 5b). */
static int another_expects(const rt_kernel *k) {
  for (size_t i = 0; i < cgp_rt_g.nkernels; i++) {
    const rt_kernel *x = cgp_rt_g.kernels[i];
    if (x != k && x->launches && x->launches == x->next_sampled &&
        cgp_rt_g.launches - x->last_global <= cgp_rt_g.nkernels)
      return 1;
  }
  return 0;
}

/* The steps of this launch: the descriptor's, and for a run-time one (iv_step 0) the value given,
   which must not be 0 (no thread mapping: the loop does not advance) nor LLONG_MIN (no |step|).
   0 if one is not usable: the launch is then said on stderr and runs untraced. */
static int launch_steps(rt_kernel *k, const int64_t *given, long long *step) {
  for (int d = 0; d < 3; d++) {
    step[d] = k->step[d] ? k->step[d] : given ? given[d] : 0;
    if ((unsigned)d < k->dims && (step[d] == 0 || step[d] == LLONG_MIN)) {
      if (!k->bad_step_launches++)
        fprintf(stderr, "cgpredict: kernel '%s' (%s:%u): the %s mapped loop's step is %lld at run time: no "
                "thread mapping (thread t handles i = lo + t * step); the launch runs as the program "
                "wrote it, untraced (the report's step_note)\n", k->name, k->file, k->line,
                d == 0 ? "innermost" : d == 1 ? "second" : "third", step[d]);
      return 0;
    }
    if ((unsigned)d >= k->dims || step[d] == 0) step[d] = 1;
  }
  return 1;
}

static void kernel_begin(const char *desc, const int64_t *given);

void cgp_rt_kernel_begin(const char *desc) { kernel_begin(desc, NULL); }

void cgp_rt_kernel_begin_step(const char *desc, int64_t sx, int64_t sy, int64_t sz) {
  int64_t given[3] = {sx, sy, sz};
  kernel_begin(desc, given);
}

static void kernel_begin(const char *desc, const int64_t *given) {
  if (!rt_owner) {
    int idle = 0;
    if (!atomic_compare_exchange_strong(&rt_busy, &idle, 1)) {
      atomic_fetch_add(&rt_concurrent, 1);
      return;
    }
    rt_owner = 1;
  }
  if (L->active) {                            /* the previous nest was left without its exit (a
                                                 longjmp): what ran is its launch, and the report says so */
    L->k->left_launches++;
    end_nest();
  }
  rt_report_install();
  if (cgp_rt_g.disabled) return;
  rt_kernel *k = rt_kernel_for(desc);
  if (!k) return;
  long long step[3];
  if (!launch_steps(k, given, step)) return;
  cgp_analysis_set *kan = L->kan;
  memset(L, 0, sizeof *L);
  L->next_x = INT64_MIN;
  L->plain_t0 = -1;
  L->drop_from = UINT64_MAX;
  L->kan = kan ? kan : cgp_analysis_set_new(&kan_cfg, cgp_kernel_analyses);
  L->tracker = rt_tracker_new(k->shape);
  if (!L->tracker || !L->kan) return;
  rt_tracker_pause_in(L->tracker, cgp_rt_pause);
  rt_tracker_sample(L->tracker, cgp_rt_g.sample_iterations);
  memcpy(L->step, step, sizeof step);
  int down[3] = {step[0] < 0, step[1] < 0, step[2] < 0};
  kan_cfg.thread_order = cgp_thread_order_mask((int)k->dims, down);
  cgp_analysis_begin_launch(L->kan);
  L->k = k;
  L->nmem = k->nmem;
  L->mem_fwd = k->mem_fwd;
  L->mem_local = k->has_local ? k->mem_local : NULL;
  L->nbb = k->nbb;
  L->bb_slot = k->bb_slot;
  L->iter = k->iter;
  L->unit = unit_steps(L->step);
  L->flat = rt_shape_flat(k->shape);
  L->key_x = k->dims <= 1 ? UINT64_MAX : k->dims == 2 ? 0xffffffffu : 0x1fffff;
  if (k->block_seen) {                        /* nothing marked yet (a nest left mid-thread took
                                                 its marks in end_nest) */
    L->seen = rt_seen;
    memset(L->seen, 0, CGP_FLAT_EVENTS / 64 * sizeof *L->seen);
  }
  rt_run_limit = 2 * cgp_rt_g.budget_bytes;   /* hard limit: a lane that would grow past it is cut */
  L->active = 1;
  cgp_rt_fold = cgp_rt_g.fold && !cgp_rt_g.sample_iterations;
  L->sampled = launch_sampled(k, k->launches++);
  /* the launch before an analysed one is traced for the caches alone, so that the analysed launch
     finds in the L2 what this one leaves there (docs/model.md section 4c) */
  L->warming = !L->sampled && cgp_rt_g.sample_mode != 2 && (launch_sampled(k, k->launches) || another_expects(k));
  k->last_global = cgp_rt_g.launches++;
  L->traced = L->sampled || L->warming;
  unsigned b[3];
  rt_resolve_block(k, b);
  L->bx = b[0]; L->by = b[1]; L->bz = b[2];
  L->tpb = L->bx * L->by * L->bz;
  L->maxx = L->maxy = L->maxz = -1;
  L->cur_row = 0;
  uint64_t most = 0;
  for (size_t d = 0; d < S->ndev; d++) {
    uint64_t per_batch = rt_batch_blocks(S, d, L->tpb);
    L->dv[d].W = 2 * per_batch;               /* one batch to warm the caches, one to measure */
    L->dv[d].stop_from = UINT64_MAX;
    if (per_batch > most) {
      most = per_batch;
      L->tdev = d;
    }
    if (L->traced && rt_kernel_analyses(S, k, d)) {
      cgp_analysis_begin_launch(k->an[d]);
      rt_window_launch_begin(k, d);
    }
  }
  L->W = L->dv[L->tdev].W;
  k->fp_dev = L->tdev;                        /* the footprint, like the trace, on its windows */
  if (k->fp) rt_footprint_row_blocks(k->fp, k->dims <= 1 ? 1 : 0);   /* a 2-D row: once known */
  if (L->traced) rt_trace_launch_begin(k, k->launches - 1, b, L->W, L->warming ? 2 : cgp_rt_g.sample_mode == 2);
}

static uint64_t record_launch(void);

/* The launch's grid, its sample when analysed, the launches the latest sample stands for (this
   one with its own grid), and the next launch to analyse. */
static void finish_launch(void) {
  rt_record_stood_for(L->k, record_launch());
  if (L->sampled) plan_next_sample(L->k, L->k->launches - 1);
}

/* Its blocks (0: none ran). */
static uint64_t record_launch(void) {
  rt_kernel *k = L->k;
  uint64_t gx = (uint64_t)(L->maxx + 1 + L->bx - 1) / L->bx, gy = (uint64_t)(L->maxy + 1 + L->by - 1) / L->by;
  uint64_t gz = (uint64_t)(L->maxz + 1 + L->bz - 1) / L->bz;
  if (L->maxx < 0) gx = gy = gz = 0;
  uint64_t G = gx * gy * gz;
  uint64_t grid[3] = {(uint64_t)(L->maxx + 1), (uint64_t)(L->maxy + 1), (uint64_t)(L->maxz + 1)};
  uint64_t gb[3] = {gx, gy, gz};
  for (int d = 0; d < 3; d++) {
    if (grid[d] > k->grid_max[d]) k->grid_max[d] = grid[d];
    if (gb[d] > k->gridblocks_max[d]) k->gridblocks_max[d] = gb[d];
  }
  if (L->traced) rt_trace_launch_end(G);
  if (!L->traced || G == 0) return G;
  for (size_t d = 0; d < S->ndev; d++) rt_window_launch_end(S, k, d, G);
  if (k->fp) rt_footprint_launch_end(k->fp, G);
  if (!L->sampled) return G;                    /* a warming launch: the caches only */
  rt_sample s = {.launch = k->launches - 1, .blocks = G, .threads = L->threads};
  memcpy(s.grid, grid, sizeof grid);
  memcpy(s.gridblocks, gb, sizeof gb);
  s.total_warps = G * ((L->tpb + RT_WARP - 1) / RT_WARP);
  /* `full` mode stopped by the budget: the blocks after the last window were not traced, and it
     stands for them, as a sampled launch's last window does */
  for (size_t d = 0; d < S->ndev; d++)
    if (cgp_rt_g.sample_mode == 2 && L->over_budget && L->dv[d].nwstat)
      L->dv[d].wstat[L->dv[d].nwstat - 1].region_end = UINT64_MAX;
  s.traced_warps = L->fold_traced;
  for (size_t d = 0; d < S->ndev; d++)                  /* the device that traced the most windows */
    if (L->dv[d].windows > s.windows) s.windows = L->dv[d].windows;
  s.stop = L->stop ? L->stop : L->over_budget ? RT_STOP_BUDGET : RT_STOP_GRID;
  for (size_t d = 0; d < S->ndev; d++) {
    cgp_totals sum = L->dv[d].fold, sum_tiled = L->dv[d].fold_tiled;
    for (size_t w = 0; w < L->dv[d].nwstat; w++)
      rt_launch_stats_add(&L->dv[d].wstat[w], G, (double)L->threads / (double)G, &sum, &sum_tiled,
                          d == 0 ? &s.traced_warps : NULL);
    rt_launch_stats_sum(&sum, L->tpb, &s.stats[d]);
    rt_tile_stats(k, d, &s.stats[d]);
    s.has_tiled |= rt_launch_stats_tiled(k, d, &sum_tiled, L->tpb, &s.tiled[d]);
  }
  for (size_t w = 0; w < L->dv[0].nwstat; w++) rt_wstat_count(k, &L->dv[0].wstat[w]);
  rt_record_launch(k, &s);
  rt_record_deps(k, s.launch, cgp_analysis_deps(L->kan));
  return G;
}

static void end_nest(void) {
  if (!L->active) return;
  finish_lane();
  plain_close();
  L->k->threads_all += L->threads;
  rt_close_windows();
  finish_launch();
  for (size_t d = 0; d < S->ndev; d++)
    if (L->traced && L->k->an[d]) cgp_analysis_end_launch(L->k->an[d]);
  for (size_t i = 0; i < L->npend; i++) {
    for (unsigned l = 0; l < RT_WARP; l++) rt_lane_free(&L->pend[i].lane[l]);
    rt_flat_free(L->pend[i].flat);
  }
  free(L->pend);
  free(L->win);
  for (size_t d = 0; d < RT_MAX_DEVICES; d++) free(L->dv[d].wstat);
  L->k->iters_skipped += rt_tracker_iterations_skipped(L->tracker);
  rt_tracker_free(L->tracker);
  L->active = 0;
  L->next_x = INT64_MIN;                      /* no right neighbour outside a nest */
  cgp_rt_fold = 0;
  L->pend = NULL;
  L->win = NULL;
  for (size_t d = 0; d < RT_MAX_DEVICES; d++) L->dv[d].wstat = NULL;
  L->tracker = NULL;
}

void cgp_rt_kernel_end(void) {
  if (!rt_owner) return;
  end_nest();
  rt_owner = 0;
  atomic_store(&rt_busy, 0);
}

void rt_nest_forget_in_child(void) {
  L->active = 0;                              /* every hook returns at once: the child's threads
                                                 are plain, nothing is traced into the parent's
                                                 windows, trace or report */
  L->lane = NULL;
  L->next_x = INT64_MIN;
  cgp_rt_tracing = 0;
  cgp_rt_fold = 0;
}

int rt_in_kernel(void) { return L->active; }
const rt_kernel *rt_current_kernel(void) { return L->active ? L->k : NULL; }
