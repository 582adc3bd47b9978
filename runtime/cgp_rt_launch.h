/* cgp_rt_launch.h: the launch being traced, one object, cgp_rt_g.launch. Each file that works on
   it names it L, at a constant address (static rt_launch *const L = &cgp_rt_g.launch): L->x costs
   what a file's static did, on the hot path of every instrumented program. Those files, and what
   they share, calls going one way (cgp_rt_internal.h):
   cgp_rt_nest.c (a launch's begin and end) -> cgp_rt.c (the hooks; cgp_rt_fold.c above it too)
   -> cgp_rt_sched.c (pending warps, windows). Inline in them: the nest's CPU time in the nest's,
   the hooks' and the windows' files (cgp_rt_cpu.h), a lane's access steps in the hooks' and the
   folded loops' (cgp_rt_access.h).
   Part of cgp_rt_internal.h, which includes it where the types it names are defined. */
#ifndef CGP_RT_LAUNCH_H
#define CGP_RT_LAUNCH_H

#ifndef CGP_RT_INTERNAL_H
#error "cgp_rt_launch.h is part of cgp_rt_internal.h: include that"
#endif

#define RT_MAX_HOISTED 64   /* hoisted loads a launch's threads make first (cgp_rt_hoisted) */
/* A row of the sweep's cells, (y, z), as one key ordered as the sweep visits rows. */
#define ROW(y, z) ((int64_t)(((uint64_t)(z) << 32) | (uint32_t)(y)))

/* A warp whose lanes are still being traced. */
typedef struct {
  uint64_t block_id;
  unsigned widx;
  int64_t last_row;          /* row key of its last lane: z * 2^32 + y */
  int used;
  unsigned arrived, lanes;   /* lanes traced so far; lanes the warp has (32, fewer at a block's end) */
  uint8_t active[RT_WARP];
  uint64_t thread[RT_WARP];
  rt_lane_rec lane[RT_WARP];
  rt_flat *flat;             /* a straight-line body's lanes, warp-major (NULL: in lane[]) */
} rt_pending;

/* The launch traced: set afresh as a marked nest is entered (cgp_rt_nest.c, kernel_begin), read
   and moved on by every hook. */
typedef struct rt_launch {
  rt_kernel *k;
  int active, sampled, over_budget;
  int warming;                            /* traced for the caches alone: the next launch is analysed */
  int traced;                             /* sampled or warming */
  const rt_kernel *after_untraced;        /* the kernel of the launch just before this one, when
                                             that was another kernel's and ran untraced: the L2
                                             this one finds is not known (rt_sample.after) */
  int warm_started;                       /* every launch since its kernel's last one was traced */
  int unordered;                          /* the sweep went back (a descending loop): windows and
                                             batches are complete only at the nest's end */
  uint64_t drop_from;                     /* blocks from here on are not traced: their windows
                                             made room for earlier ones (rt_drop_windows_after) */
  int stop;                               /* why tracing stopped before the grid's end: RT_STOP_*
                                             (RT_STOP_CONVERGED: every device's windows did) */
  int64_t prev_x;
  unsigned bx, by, bz, tpb;
  uint64_t W;                             /* the trace device's windows' (rt_trace_launch_begin) */
  size_t tdev;                            /* the trace device: the one with the most resident
                                             blocks (the first such), whose windows the trace holds */
  int64_t maxx, maxy, maxz, cur_row;
  uint64_t gdx, gdy;
  int gdx_known, gdy_known;
  rt_tracker *tracker;
  rt_lane_rec *lane;                      /* the lane being traced, NULL if none */
  rt_pending *lane_warp;
  rt_pending *pend;
  size_t npend;
  rt_window *win;
  size_t nwin;
  struct {                                /* per device: its own windows (issue 30 item 7) */
    uint64_t W;                           /* 2 of its batches */
    uint64_t ext;                         /* blocks a window may trace before them (rt_warm_extension) */
    uint64_t spacing;                     /* windows every so many blocks from there on
                                             (rt_window_spacing); 0: gaps double throughout */
    int whole;                            /* the launch is traced whole for it, as `full` traces
                                             every launch: the kernel's grid is small for its
                                             windows (rt_launch_whole) */
    rt_wstat *wstat;                      /* per closed window not yet folded (fold_windows) */
    size_t nwstat;
    unsigned windows;                     /* windows closed this launch */
    unsigned agreed;                      /* windows in a row that agreed with the one before */
    uint64_t stop_from;                   /* its windows converged: no block from here on is
                                             traced for it (stop_after); UINT64_MAX none */
    cgp_totals fold, fold_tiled;          /* the folded windows' scaled sums, and the what-if
                                             tiling's (docs/model.md 8c) */
  } dv[RT_MAX_DEVICES];
  double fold_traced;                     /* the folded windows' warps (device 0) */
  size_t stored;                          /* bytes of complete warps waiting in windows */
  uint32_t hoist_sid[RT_MAX_HOISTED];     /* cgp_rt_hoisted: issued first by every traced thread */
  uint64_t hoist_addr[RT_MAX_HOISTED];
  unsigned nhoist;
  size_t nmem;                            /* k's, and its mem_fwd: cgp_rt_mem reads them here */
  const uint64_t *mem_fwd;
  const uint8_t *mem_local;               /* k's mem_local when it has a local-memory site, else NULL */
  uint64_t fwd[RT_FWD];                   /* (address, address expression, stamp) held in registers */
  uint32_t fwd_id[RT_FWD], fwd_stamp[RT_FWD];
  size_t nbb;                             /* k's, and its bb_slot and iter: cgp_rt_bb counts headers */
  const uint32_t *bb_slot;
  uint32_t *iter;
  unsigned nfwd, fwd_next;
  uint64_t fwd_ids;                       /* bit id % 64 set for every id held (and maybe for
                                             ids evicted since): a load whose bit is clear is
                                             not held, with no scan */
  uint64_t threads;
  cgp_analysis_set *kan;                  /* the kernel's device-independent analyses (the dependence
                                             check: cgp_kernel_analyses), with kan_cfg */
  int64_t out_lo[3], out_hi[3];           /* the cells of the last block found outside every
                                             window; out_hi[0] == 0: none */
  int64_t fast_y, fast_z, fast_hi;        /* threads (x, fast_y, fast_z), prev_x < x < fast_hi:
                                             untraced, nothing to do but count (untraced_from) */
  int64_t next_x, next_y, next_z;         /* the traced thread's right neighbour, when it is the
                                             next lane of the same warp (lane_right); next_x
                                             INT64_MIN: none (any other value may be an index) */
  unsigned next_l;                        /* its lane */
  unsigned next_end;                      /* lanes l + 1 < next_end of the traced warp have a
                                             right neighbour in it (start_lane) */
  long long step[3];                      /* the mapped loops' steps this launch: the descriptor's,
                                             or for its iv_step 0 cgp_rt_kernel_begin_step's */
  int unit;                               /* unit_steps(step) */
  int flat;                               /* rt_shape_flat(k->shape) */
  uint64_t *seen;                         /* rt_seen when the body's blocks mark it, else NULL */
  uint64_t key_x;                         /* x's field in cgp_thread_key for the kernel's dims */
  double plain_t0;                        /* untraced threads running since this thread CPU time
                                             (s), < 0: not; */
  uint64_t plain_from;                    /* and L->threads then (the nest's CPU time: cgp_rt_cpu.h) */
  int timed;                              /* this launch's untraced threads are timed (rt_launch_timed) */
} rt_launch;

/* No launch: no right neighbour, no open span of the nest's CPU time, no block dropped; the rest
   0. Before the first launch (cgp_rt.c, at load) and at each launch's start (cgp_rt_nest.c). */
static inline void rt_launch_clear(rt_launch *l) {
  memset(l, 0, sizeof *l);
  l->next_x = INT64_MIN;
  l->plain_t0 = -1;
  l->drop_from = UINT64_MAX;
}

/* The files' own functions: hidden, so that a call is direct, and one from its own file may be
   inlined as a static one was (-fPIC assumes a visible function may be replaced at load time). */
#pragma GCC visibility push(hidden)

/* cgp_rt.c: one thread at a time owns the runtime (rt_owner: the calling thread does; every hook
   tests it first). It enters a marked nest: 1 if it owns the runtime (it did, or takes it now), 0
   if another thread does (counted). It leaves its nest: rt_owner_leave. */
extern _Thread_local int rt_owner;
int rt_owner_enter(void);
void rt_owner_leave(void);
/* finish_lane, for a nest's exit: the traced lane, if any, ends (its warp complete if it was the
   last). */
void rt_finish_lane(void);

/* cgp_rt_sched.c: pending warps and windows, as the sweep moves. An allocation failed and what it
   was for is lost to an analysed launch: said in the report (memory_note) and on stderr, the
   prediction marked partial. */
void rt_lost_to_memory(void);
/* Device d's window holding block id, or NULL. */
rt_window *rt_window_of(size_t d, uint64_t id);
/* The warp built once, into every device's window holding its block (shared: rt_wwarp_share),
   its bytes counted once. */
void rt_complete_warp(rt_pending *p);
/* The pending warp widx of block block_id (its last lane on row last_row), a free slot taken
   when it is new; NULL when out of memory. */
rt_pending *rt_pending_for(uint64_t block_id, unsigned widx, int64_t last_row);
/* Device d's window opens at block start, standing for [start, region_end), and traces the pre
   blocks before start to warm the caches; NULL when out of memory. */
rt_window *rt_open_window(size_t d, uint64_t start, uint64_t pre, uint64_t region_end);
/* The sweep enters row `row`: the grid's width (and in 3-D its height) is known once its first
   row (plane) is done; the windows' thresholds follow, and warps of earlier rows are complete. */
void rt_on_row_change(int64_t row);
/* Close the windows the sweep has left and analyse the batches it has completed. */
void rt_advance_windows(int64_t row, int64_t x);
/* Over budget in a sweep that went back (its windows wait for the nest's end): the windows the GPU
   runs last, those after block `id`, make room for it, highest first, and no block from the
   first one dropped on is traced again; the kept windows, the GPU's first, stand for the grid
   (end_nest). Returns 1 if that brought the trace back under the budget. */
int rt_drop_windows_after(uint64_t id);
/* The nest's end: every pending warp complete, every window closed, in block order (a sweep
   that went back kept them all to the end). */
void rt_close_windows(void);

#pragma GCC visibility pop

#endif
