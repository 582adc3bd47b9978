/* cgp_rt_internal.h: the runtime's own state, shared by its files. Not installed, not a contract.
   cgp_rt_nest.c (a nest's entry and exit: launches) -> cgp_rt.c (the hooks: threads, lanes,
   accesses; cgp_rt_fold.c, folded loops, above it too) -> cgp_rt_sched.c (pending warps, windows)
   -> cgp_rt_window.c (batches through the analyses) -> cgp_rt_kernel.c (kernels, descriptors,
   launches) -> cgp_rt_setup.c (set-up, exit and crash handlers) -> cgp_rt_report.c (the
   report). The launch the files before cgp_rt_window.c work
   on is one object, cgp_rt_g.launch (cgp_rt_launch.h); the nest's CPU time is inline in them
   (cgp_rt_cpu.h). */
#ifndef CGP_RT_INTERNAL_H
#define CGP_RT_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cgp_analyzer.h"
#include "cgp_rt_footprint.h"
#include "cgp_model.h"
#include "cgp_rt.h"
#include "cgp_rt_wbytes.h"
#include "cgp_rt_witer.h"

#define RT_MAX_DEVICES 16
#define RT_ALLOC_ALIGN 256      /* cudaMalloc returns 256-byte aligned memory (CUDA C Programming
                                   Guide, "Device Memory Accesses"); arrays are placed likewise */
#define RT_HOST_ALIGN 16        /* malloc's alignment (x86-64 glibc): arrays start 16 bytes apart or
                                   more; gpu_addr spreads them by RT_ALLOC_ALIGN / RT_HOST_ALIGN */
#define RT_DEFAULT_BUDGET_MB 64 /* trace state (runs, stored warps) the runtime may hold: README */
#define RT_DEFAULT_TRACE_MB 512 /* the trace file's cap on disk (CGPREDICT_TRACE_MB): README */
#define RT_FWD 16               /* addresses a thread holds in registers for forwarding */
/* Warming launches (cgp_rt_nest.c, docs/model.md 5b): an analysed launch inherits when its L2 hits
   on what earlier launches left reach this share of its L2 transactions; a kernel whose launches
   do not is checked again every RT_INHERIT_RECHECK-th analysed launch */
#define RT_INHERIT_TOLERANCE 0.001
#define RT_INHERIT_RECHECK 4
#define RT_DEPS_MAX_ADDRESSES_LOG2 16      /* element addresses the dependence check follows per launch:
                                              2^16, 8 MiB of table (2^18 cost ADI at N = 1024 27 %
                                              more CPU; the same verdicts and dependences on PolyBench
                                              at STANDARD sizes and MachSuite: docs/pipeline.md) */
#define RT_DEPS_MAX_ADDRESSES (1u << RT_DEPS_MAX_ADDRESSES_LOG2)
#define RT_DEPS_MAX_CHECKED (1u << 24)     /* lane accesses it checks per launch (then: partial) */

/* A window: consecutive blocks [start, start + size) traced fully, standing for [start,
   region_end). Its batches are analysed per device as soon as their blocks are complete, and
   their warps freed once every device has analysed them. */
typedef struct {
  uint64_t start, size, region_end;
  uint64_t ext;              /* of its blocks, those before the schedule's start: traced only to
                                warm the caches (rt_warm_extension); it stands for [start + ext,
                                region_end), and its batches count from rt_counted_from on */
  size_t dev;                /* the device whose window it is (each has its own: cgp_rt_sched.c) */
  rt_wwarp ***blk;           /* blk[b]: the warps of block start + b (shared with another device's
                                window holding the block: rt_wwarp_share) */
  size_t *nw;
  size_t nblk;
  int64_t done_row, done_x;  /* complete once the thread position passes (row, x) */
  uint64_t next[RT_MAX_DEVICES];              /* per device: first block not yet analysed */
  int64_t next_row[RT_MAX_DEVICES], next_x[RT_MAX_DEVICES];   /* last cell of that batch */
  unsigned counted[RT_MAX_DEVICES];           /* batches analysed with counting on */
  double threads_counted[RT_MAX_DEVICES];     /* threads of their warps */
  uint64_t freed;            /* blocks [0, freed) released */
  int budget_hit;            /* tracing stopped inside it: scale by the blocks it saw */
} rt_window;

/* Per device, what one window measured; blocks from first_counted on were counted. */
typedef struct {
  uint64_t first_counted, end, region_start, region_end;
  double half_before, half_after;   /* blocks of the gap before its region (after it) it stands for
                                       (rt_wstat_centre): its region is [region_start - half_before,
                                       region_end - half_after) */
  double seen_blocks;        /* blocks with a traced warp, counted */
  double seen_threads;       /* threads of the warps counted (when the budget cut it, the measure) */
  int budget_hit;
  cgp_totals tot;
  cgp_totals tot_tiled;      /* the what-if tiling's (docs/model.md 8c), when the kernel has one */
} rt_wstat;

/* Why a launch's tracing stopped: at the grid's end (the windows' schedule ran out), once a
   window agreed with the running estimate (cgp_rt_converge.c), or at the memory budget. */
enum { RT_STOP_GRID = 0, RT_STOP_CONVERGED = 1, RT_STOP_BUDGET = 2 };
#define RT_CONVERGE_AGREEMENTS 2   /* three windows alike in a row (cgp_rt_sched.c, window_converged) */

/* cgp_rt_converge.c: 1 if a window's totals agree with another's (or with sums over several)
   within the tolerances of docs/pipeline.md, "Sampling". */
int rt_window_agrees(const cgp_totals *w, const cgp_totals *est);
/* One device's windows ws[0..n) of a launch, the last just closed, in block order: 1 once the
   launch may stop tracing for it (docs/pipeline.md, "Sampling"): the last three windows, all past
   the grid's first `slab` blocks, alike in a row (*agreed counts the agreements, reset when one
   fails) and the device's L2 turned over. */
int rt_windows_converged(const cgp_device *dev, const rt_wstat *ws, size_t n, uint64_t slab, unsigned *agreed);

/* The launches a sample stands for, by their own grids (docs/model.md 4d): `count` launches of
   `blocks` blocks in all (each entry a run of consecutive launches; equal grids share one entry;
   when RT_STOOD_MAX are full, neighbours merge pairwise, so an entry's grid is the mean of its
   launches'). */
#define RT_STOOD_MAX 64
typedef struct {
  double blocks, count;
} rt_stood;

/* One sampled launch, per device per-warp averages ready for the model. */
typedef struct {
  unsigned nstood;
  rt_stood stood[RT_STOOD_MAX];
  uint64_t launch;
  uint64_t grid[3], gridblocks[3], blocks, total_warps, threads;
  double traced_warps;
  double lanes_pw;                          /* lane executions of memory instructions a warp (the
                                               first device's analysis: cgp_totals.mem_lanes) */
  unsigned windows;                         /* windows of blocks traced */
  int stop;                                 /* why the last one was the last: RT_STOP_* */
  cgp_kernel_stats stats[RT_MAX_DEVICES];
  int has_tiled;                            /* the what-if tiling was analysed: */
  cgp_kernel_stats tiled[RT_MAX_DEVICES];   /* its stats (docs/model.md 8c) */
  int shape;                                /* its launch shape (rt_shape_class) when analysed on
                                               that shape's own schedule, -1: the kernel's */
  int key_shape;                            /* its launch's shape whatever the schedule, -1: none */
  uint64_t stood_launches;                  /* the launches it stands for, itself included */
  const struct rt_kernel *after;            /* the launch before it was this other kernel's and ran
                                               untraced: the L2 it found is not known (NULL: it is) */
} rt_sample;

/* A launch shape of a kernel: the launches entered with one key (cgp_rt_kernel_class, a mix of
   the mapped loops' bound values), scheduled apart from the kernel's others once it recurs (comes
   back after another shape's launches) and one of its launches has been analysed (docs/model.md
   5b, "Launches of one shape"). */
#define RT_SHAPES 16
typedef struct {
  uint64_t key;
  uint64_t launches;          /* of this shape so far */
  uint64_t next_sampled;      /* the next of them to analyse */
  int dense;
  long last, prev;            /* its latest two samples (indices into samples[]), -1: none */
  unsigned nsamples;
  unsigned runs;              /* runs of consecutive launches of it: from 2 on, it recurs */
  uint64_t in_run, most_in_run; /* its launches in its latest run so far; the most in any run */
  int succ;                   /* the shape of the launch that came after its latest, -1: not seen */
} rt_shape_class;

/* A dependence found in some launch, as the report lists it. */
typedef struct {
  cgp_dep d;
  uint64_t launch;
} rt_dep;

/* The recording hot path's specialisations (cgp_rt.c), each built of the tracker's primitives
   (cgp_rt_lanes.h, "the matrix's primitives") and each giving what the general path gives; a
   kernel's are chosen once, by fast_paths (cgp_rt_kernel.c), none under
   CGPREDICT_FAST=0. All but RT_FAST_BB are for a lane recording into its warp's matrix. */
#define RT_FAST_LANE 1u       /* lane_right starts the warp's next lane inline (the body's block
                                 marks, if any, in one word: at most 64 blocks) */
#define RT_FAST_BLOCK 2u      /* cgp_rt_mem_block writes a block's sites with the lane's column in
                                 registers (mem_block_checked: forwarding checks, an order test each) */
#define RT_FAST_RANKED 4u     /* ... one order test for the block: the sites rank in the order of
                                 their numbers */
#define RT_FAST_QUIET 8u      /* ... and no forwarding check either: the all-quiet loop */
#define RT_FAST_BB 16u        /* cgp_rt_bb records a straight-line body's block with no loop to count */

typedef struct rt_kernel {
  const char *desc_ptr;
  cJSON *desc;
  const char *name, *file;
  const char *function;       /* the function the nest was compiled into ("": not said) */
  unsigned line, dims, block[3], can_skip;
  long long step[3];
  uint64_t extent[3];         /* per mapped loop ([0] x): 1 + its largest index when the pass
                                 found it a constant bound, 0 if not ("extent") */
  size_t nmem, nbb;
  unsigned *mem_size;
  uint8_t *mem_kind, *mem_noalias, *mem_shared;
  uint8_t *mem_local;         /* per site: the descriptor's `local_memory`, a thread's own array in
                                 CUDA local memory (cgp_rt_local.h) */
  int has_local;              /* some site is */
  uint8_t *mem_unwritten;     /* per site: the descriptor's `unwritten`, a load no store of the
                                 nest can write: not fed to the dependence check */
  uint8_t *mem_overlap;       /* per site: the descriptor's `overlap` (docs/model.md section 5e) */
  int32_t *mem_footprint;     /* per site: its tile footprint (docs/model.md 8b), -1 none */
  uint8_t *mem_pad;           /* per site: its array's shared(A pad(n)) */
  int32_t *wi_footprint;      /* the what-if tiling of an untiled kernel (docs/model.md 8c): per
                                 site its footprint, -1 untouched, CGP_TILE_REGISTER */
  int wi_header, wi_loop;     /* its loop over one tile: header bid and loops[] index; -1 none */
  uint8_t *wi_pad;            /* a tiled kernel's what-if instead: per site its pad, each unpadded
                                 footprint padded by one element; NULL none */
  double *wi_bb_total, *wi_bb_core, *wi_bb_int;   /* its PTX counts per block (the loop unrolled) */
  uint8_t *wi_bb_in;          /* its blocks: 1 for the loop's */
  cgp_analysis_cfg cfg_wi[RT_MAX_DEVICES];
  unsigned tile;              /* tile(n), 0 none */
  int tile_header;            /* bid of the tile loop's header, -1 none */
  uint32_t *mem_addr_id;      /* sites sharing one address expression share it (forwarding) */
  uint64_t *mem_fwd;          /* per site, what cgp_rt_mem's forwarding check does: RT_FWD_NONE
                                 (noalias) or the may_alias site's kind + 1, in the low 2 bits;
                                 its mem_addr_id in bits 2-33; from bit 34 its vary slot: 1 + the
                                 loop whose iterations compute its address anew, 0 if none (one
                                 load, not four) */
#define RT_FWD_NONE 0
#define RT_FWD_SLOT_SHIFT 34
  uint32_t *bb_slot;          /* per block: 1 + the loop it heads, or nloops + 1 (no loop's) */
  uint32_t *iter;             /* per slot (nloops + 2): headers run, the stamp of a held value */
  double *bb_total, *bb_core, *bb_fp32, *bb_fp64, *bb_int, *bb_sfu;
  rt_shape *shape;
  int block_seen;             /* the body's blocks mark cgp_rt_block_seen (CGP_HOOK_BLOCK_SEEN) */
  unsigned fast;              /* the hot path's specialisations its lanes take (RT_FAST_*) */
  uint64_t launches;
  uint64_t next_sampled;      /* the next launch to analyse (docs/model.md 5b) */
  uint64_t last_global;       /* cgp_rt_g.launches when it last began */
  uint64_t last_blocks;       /* its last launch's grid, in blocks (0: none yet) */
  /* Its runs (launches with no other kernel's between, docs/model.md 5b): the one in flight's
     launches so far, the last one's length and the kernel launched after it (NULL: none yet) */
  uint64_t run_pos, run_len;
  struct rt_kernel *run_succ;
  uint64_t runs;              /* runs begun (the one in flight's number, from 1) */
  uint64_t run_streak;        /* the run position its last traced launches in a row began at (0:
                                 the last launch ran untraced) */
  int dense;                  /* analysed launches differ: launches analysed closer together */
  rt_shape_class shapes[RT_SHAPES];
  unsigned nshapes;
  int cur_shape;              /* the launch in flight's shape, -1: none */
  /* Warming launches (docs/model.md 5b): an analysed launch's hits on what earlier launches left
     in an L2 (inherits: one was above RT_INHERIT_TOLERANCE of its L2 transactions, on a device) and
     the warm-started analysed launches past its first that had none (inherit_checks) */
  int inherits;
  unsigned inherit_checks;
  int prev_traced;            /* its last launch was traced (analysed or warming) */
  int tail_warmed;            /* its run that just ended put its untraced last launches into every
                                 device's L2 by its footprint's law (end_of_run) */
  uint64_t untraced_seen;     /* cgp_rt_g.untraced when it last began */
  uint64_t warming_traced, warming_skipped;   /* launches traced to warm its caches, and not */
  rt_sample *samples;
  size_t nsamples, capsamples;
  cgp_analysis_cfg cfg[RT_MAX_DEVICES];
  cgp_analysis_set *an[RT_MAX_DEVICES];
  cgp_site_totals *site[RT_MAX_DEVICES];
  uint64_t *forwarded;       /* per site: loads served from a value the thread held (may_alias) */
  uint64_t warps_traced, divergent_warps;
  double masked_slots;
  rt_dep *deps;
  size_t ndeps;
  int deps_partial, budget_hit;
  int windows_dropped;       /* over budget in a backward sweep: the GPU's last blocks were dropped */
  uint64_t oom_lost;         /* warps, windows or lanes of analysed launches lost to a failed allocation */
  uint64_t left_launches;    /* launches left without the nest's exit (a longjmp out of it), ended when
                                the next nest began: each stands for the threads that ran */
  uint64_t iters_skipped;    /* leaf-loop iterations of traced threads not traced (sampling) */
  uint64_t bad_step_launches; /* launches whose run-time step of a mapped loop was 0 (or LLONG_MIN):
                                run untraced, said on stderr at the first and in step_note */
  uint64_t grid_max[3], gridblocks_max[3];
  int block_from_env;
  int trace_id;              /* its number in the trace file, -1 before its first traced launch */
  rt_witer **iters;          /* rt_window_batch's, reused from batch to batch */
  size_t niters;
  /* Per device, the blocks [skip_from, skip_to) the last window analysed stands for but did not
     trace, not yet passed to the analyses (rt_window_skipped): known to exist once the next
     window begins or the launch's grid is known. */
  uint64_t skip_from[RT_MAX_DEVICES], skip_to[RT_MAX_DEVICES];
  /* What the host would copy and what the CPU took (docs/model.md section 12) */
  struct rt_footprint *fp;    /* the bytes its traced launches read and wrote (cgp_rt_footprint.h), */
  size_t fp_dev;              /* measured on this device's windows (cgp_rt_nest.c: the trace device's) */
  double plain_s;             /* wall time of the threads run untraced, analyses excluded (cgp_rt_cpu.h) */
  uint64_t plain_threads;     /* those threads */
  uint64_t threads_all;       /* threads of every launch, traced or not */
} rt_kernel;

/* Blocks of `block` threads along mapped dimension d that its loop's constant bound gives (the
   descriptor's extent; unit steps: thread t is index t); 0 where the bound is not known. */
static inline uint64_t rt_bound_blocks(const rt_kernel *k, unsigned d, unsigned block, int unit) {
  return unit && block && k->extent[d] ? (k->extent[d] + block - 1) / block : 0;
}

/* Shape c (-1: none) of kernel k recurs: its launches came back after another shape's
   (docs/model.md 5b, "Launches of one shape"). */
static inline int rt_shape_recurs(const rt_kernel *k, int c) { return c >= 0 && k->shapes[c].runs >= 2; }

/* A session: the devices predicted and each one's simulation state, kept from kernel to kernel.
   The program's run has one (cgp_rt_g.session, set up by rt_report_install); a trace's replay
   builds its own for each device it replays (cgp_rt_trace.c). The analyses of a launch
   (cgp_rt_window.c, rt_kernel_analyses) take the session whose device d they simulate; a
   kernel's per-device state (rt_kernel: an, cfg, site, skip_from) is indexed like its dev[]. */
typedef struct rt_session {
  cgp_device dev[RT_MAX_DEVICES];         /* the GPUs, in the order named */
  size_t ndev;
  struct cgp_fpga_device *fpga;           /* FPGAs named (docs/model.md 11.14): predicted at exit */
  size_t nfpga;
  cgp_l2 *l2[RT_MAX_DEVICES];             /* each device's L2, kept from kernel to kernel */
  cgp_l2 *l2_whatif[RT_MAX_DEVICES];      /* the what-if tilings' L2, likewise (docs/model.md 8c),
                                             created at the first kernel that has one */
  FILE *din[RT_MAX_DEVICES];              /* each device's L2 stream, din format, or NULL */
  int whatif;                             /* analyse what-if tilings (the run: CGPREDICT_WHATIF,
                                             default 1; a replay: 1) */
  int general_caches;                     /* its caches the bitmap of positions whatever their size
                                             (cgp_l2_new_as; the run: CGPREDICT_FAST=0; a replay: 0) */
} rt_session;

#include "cgp_rt_launch.h"   /* the launch traced: rt_launch */

typedef struct {
  int initialised, quiet;
  int disabled;                           /* a set-up error: the program runs untraced, no report */
  int sample_mode;                        /* 0 run, 1 skip, 2 full */
  int sample_iterations;                  /* sample inside threads (not full, CGPREDICT_ITERATIONS) */
  int fold;                               /* fold affine loops (CGPREDICT_FOLD, default 1) */
  int converge;                           /* a launch stops tracing once a window agrees
                                             (CGPREDICT_CONVERGE, default 1; cgp_rt_converge.c) */
  int fast;                               /* the hot path's specialisations (CGPREDICT_FAST,
                                             default 1; 0: the general path everywhere) */
  rt_session session;                     /* the program's devices and their caches */
  char din_tmp[RT_MAX_DEVICES][4400];     /* CGPREDICT_DIN: session.din[d] written to a temporary
                                             beside din_path (cgp_file.h), */
  char din_path[RT_MAX_DEVICES][4200];    /* renamed over it at exit, removed on a signal */
  unsigned env_block[3][3];               /* CGPREDICT_BLOCK per grid dimensionality */
  int block_force;                        /* CGPREDICT_BLOCK_FORCE=1: env_block over the pragma's
                                             block() (not a tiled kernel's: its tile's shape) */
  size_t budget_bytes;                    /* CGPREDICT_MEMORY_MB */
  uint64_t trace_cap_bytes;               /* CGPREDICT_TRACE_MB (parse_env), read where the trace opens */
  rt_kernel **kernels;
  size_t nkernels;
  rt_kernel *last_kernel;                 /* the kernel launched last (NULL: none yet) */
  uint64_t launches;                      /* every kernel's launches, in program order */
  uint64_t untraced;                      /* of them, those that ran untraced */
  char report_path[4096];
  uint64_t traced_accesses, traced_threads;
  uint64_t folded_iterations;             /* loop iterations issued at once (cgp_rt_loop) */
  long pid;                               /* the process the runtime started in (a constructor) */
  uint64_t run_id;                        /* random, in the report (runtime.run_id) and the trace's
                                             header: a trace is replayed only with its own report */
  int forked;                             /* this process is a fork() of it: runs untraced, writes,
                                             removes and reports nothing (rt_report_install) */
  rt_launch launch;                       /* the launch traced, or the last one (cgp_rt_launch.h) */
} rt_global;

/* Defined in cgp_rt.c. Hidden (the runtime's own, never another module's): its files reach it at
   an address the linker fixes, not through the GOT, so the hooks' L->x costs what a static's
   L.x did. */
extern rt_global cgp_rt_g __attribute__((visibility("hidden")));

/* Device d's windows of the launch hold every block, one after another (rt_window_index's `full`),
   none counted for warming alone but a warming launch's, none converging: `full` mode, or a
   launch traced whole for d (rt_launch_whole). */
static inline int rt_full_windows(size_t d) { return cgp_rt_g.sample_mode == 2 || cgp_rt_g.launch.dv[d].whole; }

/* cgp_rt_window.c: a window's blocks, and their analysis per device */
void rt_window_put(rt_window *win, uint64_t b, rt_wwarp *w);
/* Issue the warps of blocks [b0, b1) (offsets in the window) as one batch into kernel k's
   analyses for session s's device d; kan (the kernel's device-independent analyses: the
   dependence check), if not NULL, sees every global access too. Returns the warps issued, and
   their threads in *threads. */
size_t rt_window_batch(rt_session *s, rt_kernel *k, const rt_window *w, size_t d, uint64_t b0, uint64_t b1,
                       int counting, cgp_analysis_set *kan, double *threads);
/* Session s's device d: its next batch of window w (its blocks complete); in a warming window
   (warms 1) the batches before rt_counted_from only warm the caches, in a warming launch (warms 2)
   every batch does. */
void rt_window_next_batch(rt_session *s, rt_kernel *k, rt_window *w, size_t d, unsigned tpb, int warms,
                          cgp_analysis_set *kan);
/* Window w is complete: session s's device d, its remaining batches, then what it measured into out. */
void rt_window_finish(rt_session *s, rt_kernel *k, rt_window *w, size_t d, unsigned tpb, int warms,
                      cgp_analysis_set *kan, rt_wstat *out);
/* A sampled launch begins for device d: no untraced blocks are pending. */
void rt_window_launch_begin(rt_kernel *k, size_t d);
/* The launch of G blocks ends for session s's device d: the blocks after its last window, up to
   the grid's end, reach the analyses as skipped (docs/model.md section 4c). */
void rt_window_launch_end(rt_session *s, rt_kernel *k, size_t d, uint64_t G);
/* Per-warp averages of a launch of G blocks from its windows' sums, in two steps so that windows
   are folded in as they close (cgp_rt_sched.c) or are replayed (cgp_rt_trace.c), none kept to the end:
   one window's sums for a device, scaled to the blocks it stands for, added to *sum (its warps to
   *traced_warps, if not NULL), in window order; then the per-warp averages of the sums.
   block_threads: the launch's threads per block (threads / G), the measure of a window the
   memory budget cut short; G clamps what a window stands for (UINT64_MAX: a window followed by
   one starting past its region, which the grid reaches beyond). */
void rt_launch_stats_add(const rt_wstat *ws, uint64_t G, double block_threads, cgp_totals *sum, cgp_totals *sum_tiled,
                         double *traced_warps);
void rt_launch_stats_sum(const cgp_totals *sum, unsigned tpb, cgp_kernel_stats *st);
/* One device's closed windows ws[0..*n), in block order: those the grid has passed, all but the
   last few, folded into *fold and *fold_tiled (rt_launch_stats_add; their warps into *traced, if
   not NULL, and into count's totals, if not NULL) and removed; none while hold. */
void rt_wstat_fold(rt_wstat *ws, size_t *n, int hold, cgp_totals *fold, cgp_totals *fold_tiled, double *traced,
                   rt_kernel *count);
/* A window's traced, divergent warps and masked slots into kernel k's totals (device 0's windows). */
void rt_wstat_count(rt_kernel *k, const rt_wstat *ws);
/* Windows a and b of one device, b the next: where b's region starts at a's end and is as long
   (windows every `spacing` blocks) and a is not the launch's first, each stands for half the
   untraced blocks between a's last traced block and b's start (docs/pipeline.md, "Sampling");
   not a window the budget cut short, nor one standing for the rest of the grid. */
void rt_wstat_centre(rt_wstat *a, rt_wstat *b);
/* sum_tiled (the what-if tiling's sums, rt_launch_stats_add) as the kernel's stats on device d,
   its shared memory included; 0 when device d's analyses of k have no what-if, or one that does
   not stand for tiled code (docs/model.md 8c). */
int rt_launch_stats_tiled(const rt_kernel *k, size_t d, const cgp_totals *sum_tiled, unsigned tpb,
                          cgp_kernel_stats *st);
/* The shared memory per block a tiled kernel's footprints take on device d (docs/model.md 8b). */
void rt_tile_stats(const rt_kernel *k, size_t d, cgp_kernel_stats *st);
/* Release the warps of blocks [freed, b); returns the bytes released. */
size_t rt_window_free_below(rt_window *w, uint64_t b);
void rt_window_release(rt_window *w);
unsigned rt_active_blocks(const cgp_device *d, unsigned tpb);
/* A device's window schedule (docs/pipeline.md, "Sampling"), windows of W blocks: the window holding
   block `id` ([start, start + W), standing for [start, region_end)), its number, or -1 when the
   block lies between windows. A window after the first also traces the *pre blocks before its
   start, at most ext and none of the window before (rt_warm_extension): they warm the caches.
   full: windows one after another ([W i, W (i + 1)), 0), no extension. Otherwise windows at 0, 2W,
   4W, 8W ... up to `spacing` (a power-of-two multiple of W, rt_window_spacing; 0: no limit) and
   every `spacing` blocks from there on. */
int rt_window_index(uint64_t W, uint64_t ext, int full, uint64_t spacing, uint64_t id, uint64_t *start,
                    uint64_t *pre, uint64_t *region_end);
/* Blocks resident together on session s's device d: B x no_sm. */
uint64_t rt_batch_blocks(const rt_session *s, size_t d, unsigned tpb);
/* The blocks of a window of kernel k, batches of `batch` blocks (docs/model.md 4c): one batch that
   warms the caches and one counted, or, in a 2-D or 3-D grid whose rows of blocks (`row`:
   rt_row_blocks) are longer than a batch, a row of counted blocks (its last batch short): blocks differ
   by their place in a row (its last warps at the grid's edge), and one batch, at one place in
   every row, stood for them all. (An analysed launch's windows: a warming launch counts nothing.) */
uint64_t rt_window_blocks(const rt_kernel *k, uint64_t batch, uint64_t row);
/* Kernel k's row of blocks (x): its last analysed launch's, or before one, where its x loop's
   constant bound (the descriptor's extent, unit steps) leaves the row's last block partial, the
   row that bound gives in blocks of bx threads; 0: none known. A kernel's first launch is often its
   only one (GEMVER's kernel 1 at N = 500: rows of 16 blocks whose last holds 20 columns; windows of
   two batches counted the second half of every row, the edge's block one in 8 instead of one in
   16: -5.4 % against `full`). Rows of whole blocks keep the first launch's windows of two
   batches: the longer windows cost GEMM at 1024 2.3 times the analysis for no change. */
uint64_t rt_row_blocks(const rt_kernel *k, unsigned bx, int unit);
/* The blocks device d's windows of kernel k trace before their warming batch (docs/model.md 4c):
   0, or in a 2-D or 3-D grid whose rows of blocks are longer than a batch (`batch` blocks), the
   rest of a row, in whole batches, when the L2 holds what a row of blocks brings in, by the
   kernel's last analysed launch (its grid and its DRAM bytes per block on d). */
uint64_t rt_warm_extension(const rt_session *s, const rt_kernel *k, size_t d, uint64_t batch);
/* A traced launch (analysed or warming) is traced whole for a device whose windows are W blocks
   (docs/pipeline.md, "Sampling") where its kernel's grid as known at its start (G, rt_grid_guess)
   is at most two windows, or at most four (two windows at 0 and 2W) of at most RT_WHOLE_THREADS
   threads in blocks of tpb. */
int rt_launch_whole(uint64_t G, uint64_t W, unsigned tpb);
/* Or where its kernel's last traced launch spanned `span` bytes (rt_footprint_last_span), between
   half and twice an L2 of l2_bytes, for a grid of at most RT_WHOLE_THREADS threads
   (cgp_rt_window.c): the L2's cliff. */
int rt_launch_at_cliff(uint64_t span, uint64_t l2_bytes, uint64_t threads);
/* Kernel k's grid in blocks as known at a launch's start: its last launch's, or for its first its
   constant bounds' in blocks of block[] (unit steps); 0 where neither is known. */
uint64_t rt_grid_guess(const rt_kernel *k, const unsigned *block, int unit);
/* Where the windows of W blocks in a grid of about G blocks stop doubling their gaps (rt_window_index's
   `spacing`): the largest W 2^j, j >= 1, with at least RT_SPREAD_WINDOWS of them in G; 0 where
   G is not known (gaps double throughout). */
uint64_t rt_window_spacing(uint64_t W, uint64_t G);
/* The first block (offset) of a warming window whose batches of bpb blocks count: the first batch
   that starts past its extension and one batch. */
uint64_t rt_counted_from(const rt_window *w, uint64_t bpb);

/* cgp_rt_kernel.c: the kernels seen, their descriptors and sampled launches */
/* The program's kernel of descriptor desc (created at its first launch, for cgp_rt_g.session's devices). */
rt_kernel *rt_kernel_for(const char *desc);
/* A kernel from its descriptor, on its own (the replay of a trace), per-site sums for ndev devices
   (0: the descriptor only), and its release. */
rt_kernel *rt_kernel_new(const char *desc, size_t ndev);
void rt_kernel_free(rt_kernel *k);
void rt_resolve_block(const rt_kernel *k, unsigned block[3]);
void rt_record_launch(rt_kernel *k, const rt_sample *s);
/* A launch of G blocks (G > 0), sampled or not, into the launches the latest sample stands for. */
void rt_record_stood_for(rt_kernel *k, long sample, uint64_t G);
/* The conflicts an analysed launch's check found, and those its sites' address laws put between
   threads of its whole grid (grid: 1 + the largest thread coordinate; at most RT_DEPS_BEYOND a
   launch, cgp_deps_beyond), into the kernel's, merged by kind and sites. */
#define RT_DEPS_BEYOND 16
void rt_record_deps(rt_kernel *k, uint64_t launch, const cgp_deps *d, const uint64_t grid[3]);
/* A site's per-device figures (transactions per warp instruction, L2 and L1 hit rates) into o, for
   the report and a trace replay. */
void rt_site_stats_json(cJSON *o, const cgp_site_totals *s);
/* A new, empty L2 of the device's geometry, in its transaction units (cgp_transaction_bytes);
   general as cgp_l2_new_as's. */
cgp_l2 *rt_device_l2(const cgp_device *d, int general);
/* Session s's L2s freed (its devices stay; its din streams are its owner's to close). */
void rt_session_free_caches(rt_session *s);
/* The analyses of kernel k for session s's device d (created at first use, on the session's L2s);
   NULL when out of memory. */
cgp_analysis_set *rt_kernel_analyses(rt_session *s, rt_kernel *k, size_t d);

/* cgp_rt_tail.c: a run's untraced last launches (docs/model.md 5b). A run of `len` launches whose
   last ones from position `streak` on were traced (0: its last ran untraced), its footprint's law
   `law`: the launches the device's L2 holds, from the law, into kernel k's analyses for session
   s's device d, unless the traced ones cover them. 1 if the L2 then holds what the run's last
   launches left there (warmed, or traced), 0 if the law does not reach them. */
typedef struct {
  uint64_t len, streak;
  rt_law law;
} rt_tail;
int rt_tail_warm(rt_session *s, rt_kernel *k, size_t d, const rt_tail *t);
/* The launches rt_tail_warm puts into an L2 of cap_bytes: the last K, from the run's last, where
   each brings the bytes its ranges add to the one before's, until twice cap_bytes; at most len,
   and K times the bytes a launch's ranges reference (each range counted, overlaps too) within
   16 cap_bytes and 32 MiB (one launch where that alone is more, none past 32 MiB). Exposed for
   the tests. */
uint64_t rt_tail_launches(const rt_tail *t, uint64_t cap_bytes);
/* A run's edge in an L2 (docs/model.md 5b, "Where a run leaves what the L2 holds"): the launch
   after the one at run position p, p + e with 1 < e < span, whose ranges by the footprint's law
   the L2 (of `ub`-byte units) holds a share of that differs from launch p + 1's by more than a
   half, the first such by halving (the shares taken as changing once); 0 where none does, or the
   law does not reach. Nothing in the L2 changes. */
uint64_t rt_law_edge(const cgp_l2 *l2, uint64_t ub, const rt_law *law, uint64_t p, uint64_t span);
/* The replay work a trace's tail record promises, in warp events: the 2^20 units of 32 bytes
   rt_tail_warm references at most. */
#define RT_TAIL_EVENTS (UINT64_C(1) << 15)

/* cgp_rt_trace.c: the trace file (cgp_trace.h), streamed: a launch's start, the warps of a
   window's blocks [freed, below) before they are released, a window as it closes, a launch's end;
   at exit the trace's summary into the report's "runtime", then the file kept (renamed into
   place) or removed. */
void rt_trace_launch_begin(rt_kernel *k, uint64_t launch, const unsigned block[3], uint64_t W, uint64_t ext,
                           int full);
void rt_trace_blocks(const rt_kernel *k, const rt_window *w, uint64_t below);
void rt_trace_window(const rt_window *w);
void rt_trace_launch_end(uint64_t G);
/* A run's untraced tail (rt_tail), for kernel k: replayed as the run warmed its devices. */
void rt_trace_tail(const rt_kernel *k, const rt_tail *t);
void rt_trace_report(cJSON *runtime);
void rt_trace_finish(int keep);
/* From a signal handler (async-signal-safe): removes the trace's temporary file, if any. */
void rt_trace_unlink_on_signal(void);
/* In a child of fork(): the parent's trace stream is forgotten, its buffer dropped unwritten. */
void rt_trace_forget_in_child(void);

/* What the report reads of the hooks' and the nest's state, inline: the report, last in the order
   above, calls no file before it. */
/* cgp_rt.c: marked nests entered by a thread while another was inside one (run untraced) */
extern atomic_ulong rt_concurrent __attribute__((visibility("hidden")));
static inline unsigned long rt_concurrent_entries(void) { return atomic_load(&rt_concurrent); }
/* cgp_rt_nest.c: the nest the program is inside, if any, and its kernel */
static inline int rt_in_kernel(void) { return cgp_rt_g.launch.active; }
static inline const rt_kernel *rt_current_kernel(void) {
  return cgp_rt_g.launch.active ? cgp_rt_g.launch.k : NULL;
}
/* In a child of fork(): the nest the parent was inside (if any) goes on untraced. */
static inline void rt_nest_forget_in_child(void) {
  cgp_rt_g.launch.active = 0;                 /* every hook returns at once: the child's threads
                                                 are plain, nothing is traced into the parent's
                                                 windows, trace or report */
  cgp_rt_g.launch.lane = NULL;
  cgp_rt_g.launch.next_x = INT64_MIN;
  cgp_rt_tracing = 0;
  cgp_rt_fold = 0;
}

/* cgp_rt_setup.c: set-up at the first launch (devices, environment, exit, crash and fork
   handlers) */
void rt_report_install(void);
/* cgp_rt_report.c: the report, written at exit (whole or not at all) */
void rt_write_report(void);
/* cgp_rt_names.c: the report's name of each of kernels k[0..n) (a name two share carries the
   function each was compiled into, or its place among them) */
#define RT_NAME_BYTES 512
void rt_kernel_names(const rt_kernel *const *k, size_t n, char (*out)[RT_NAME_BYTES]);


#endif
