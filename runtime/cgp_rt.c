/* cgp_rt.c: the hooks. Pseudo-threads arrive in the sequential program's order, which is
   lexicographic in (z, y, x); this file turns them into the lanes of warps and blocks, decides what
   to trace and records the traced lanes' accesses. Every hook a thread or an access calls is here,
   with the helpers it inlines (and cgp_rt_access.h's): the hot path of every instrumented program,
   which a call between files would slow. What a traced warp and its block become is
   cgp_rt_sched.c's; a nest's entry and exit are cgp_rt_nest.c's.

   The CUDA kernel's memory stream (docs/model.md, "The memory stream"): sites in the may_alias
   reading are every source-level access; a load of an address the same thread loaded or stored
   since its last store to another address is served from a register, as nvcc does when it
   cannot prove the kernel's pointers distinct, and is not issued. */
#include "cgp_rt_internal.h"

#include <stdatomic.h>

/* The runtime's state: the program's session and the launch traced (cgp_rt_internal.h). */
rt_global cgp_rt_g;
/* The program's session (its devices and caches): the one the hooks' analyses run on. */
static rt_session *const S = &cgp_rt_g.session;
static rt_launch *const L = &cgp_rt_g.launch;

/* No launch yet (rt_launch_clear), set when the program (or the library, dlopen'ed by the stub) is
   loaded, not by an initialiser: that would move all of cgp_rt_g (about 160 KB) from .bss into
   every instrumented binary's data. */
__attribute__((constructor)) static void launch_none(void) { rt_launch_clear(L); }
#include "cgp_rt_access.h"      /* after L, which their inline functions work on */
#include "cgp_rt_cpu.h"

/* Threads: the hooks keep one nest's state, so one thread at a time is traced. The first thread
   to enter a marked nest owns the runtime until it leaves; a thread entering one meanwhile runs
   it untraced (its hooks return at once) and is counted (report: runtime.concurrent_entries). */
static atomic_int rt_busy;
_Thread_local int rt_owner;
atomic_ulong rt_concurrent;

int rt_owner_enter(void) {
  if (!rt_owner) {
    int idle = 0;
    if (!atomic_compare_exchange_strong(&rt_busy, &idle, 1)) {
      atomic_fetch_add(&rt_concurrent, 1);
      return 0;
    }
    rt_owner = 1;
  }
  return 1;
}

void rt_owner_leave(void) {
  rt_owner = 0;
  atomic_store(&rt_busy, 0);
}

int cgp_rt_tracing;          /* read by the pass's inlined guards: 0 no lane is traced, 1 a lane is
                                traced, 2 it is in an iteration its tracker skips (block hooks run
                                to find the next traced iteration, memory hooks do not) */
int32_t cgp_rt_pause[3] = {-1, 0, 0};   /* the tracker's skipping state, which the instrumented
                                           code updates itself in skipped iterations (cgp_abi.h) */
uint64_t cgp_rt_block_seen[CGP_FLAT_EVENTS / 64];   /* blocks of a straight-line body the traced
                                                       thread ran (CGP_HOOK_BLOCK_SEEN), a bit
                                                       each; taken at its end */

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

void rt_finish_lane(void) { finish_lane(); }

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
   (start[d] and region_end[d]: the window's start and the end of the blocks it stands for; pre[d]:
   the blocks before start it traces to warm the caches) and whose windows have not converged
   before it. */
static unsigned tracing_devices(uint64_t id, uint64_t *start, uint64_t *pre, uint64_t *region_end) {
  unsigned want = 0;
  for (size_t d = 0; d < S->ndev; d++)
    if (id < L->dv[d].stop_from && rt_window_index(L->dv[d].W, L->dv[d].ext, rt_full_windows(d), L->dv[d].spacing,
                                                   id, &start[d], &pre[d], &region_end[d]) >= 0)
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
  uint64_t gdx = L->gdx_known ? L->gdx : rt_bound_blocks(k, 0, L->bx, L->unit);
  uint64_t gdy = L->gdy_known ? L->gdy : rt_bound_blocks(k, 1, L->by, L->unit);
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
  uint64_t id, start[RT_MAX_DEVICES], pre[RT_MAX_DEVICES], region_end[RT_MAX_DEVICES];
  if (!block_id_of(x, y, z, &id)) return untraced();
  unsigned want = tracing_devices(id, start, pre, region_end);
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
    if ((want >> d & 1) && !rt_window_of(d, id) && !rt_open_window(d, start[d], pre[d], region_end[d])) {
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
