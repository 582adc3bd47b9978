/* cgp_rt_nest.c: a marked nest is a launch. Its entry takes the runtime for the calling thread
   (cgp_rt.c), sets the launch up afresh (cgp_rt_g.launch, cgp_rt_launch.h) and decides whether
   it is analysed, traced for the caches alone or run untraced; its exit closes the windows still
   open, records the launch and plans the next one to analyse. Launches 0, 1, 3, 7 ... of a kernel
   are analysed, each standing for the launches up to the next one (plan_next_sample); every
   launch in `full` mode. Above the hooks: it calls them, they never call it. */
#include "cgp_rt_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rt_launch *const L = &cgp_rt_g.launch;
static rt_session *const S = &cgp_rt_g.session;
#include "cgp_rt_cpu.h"          /* after L, which its inline functions work on */

#define RT_LAUNCH_TOLERANCE 0.02  /* two analysed launches differ: predicted times, by more (5b) */

static uint64_t *rt_seen = cgp_rt_block_seen;       /* where the instrumented code marks the body's
                                                       blocks (cgp_rt.h) */

void cgp_rt_block_seen_at(uint64_t *p) {
  if (p) rt_seen = p;
}

/* The configuration of the kernel's device-independent analyses (L->kan): the dependence check's
   bounds, and each launch's thread order, set before it begins. */
static cgp_analysis_cfg kan_cfg = {.deps_max_addresses = RT_DEPS_MAX_ADDRESSES, .deps_max_checked = RT_DEPS_MAX_CHECKED};

/* 1 if x, y, z are the thread loops' own indices (thread_slow divides the others by their step). */
static int unit_steps(const long long *step) {
  for (int d = 0; d < 3; d++)
    if (step[d] > 1 || step[d] < -1) return 0;
  return 1;
}

static void end_nest(void);

/* ---- launch shapes (docs/model.md 5b, "Launches of one shape") ----------------------------------
   A nest entered with its mapped loops' bounds as values (cgp_rt_kernel_class's key, called just
   before kernel_begin) has one grid per key. Once a key recurs (comes back after another key's
   launches) and one of its launches was analysed, its launches are analysed on a schedule of their
   own (0, 1, 3, 7 ... of that key's launches, closer once two of them differ) and stand with that
   key's latest analysed launch: NPB MG's resid, entered at five grid sizes in turn, went dense
   while its levels, compared with each other, differed, and each stood for another's.
   The first launch of a run of a kernel's launches (one after another kernel's) is of a shape of its
   own, where the kernel's runs are longer than one launch: it finds the L2 as the other kernel left
   it, the launches after it as the kernel itself did (ADI's kernel 4, N - 1 launches a time step
   after kernels 1 to 3: the first of each run reads its rows from DRAM, and stood for the next
   31 launches, +2.7 % against `full` at N = 512). */
#define RT_RUN_START_KEY 0x9e3779b97f4a7c15ull
static _Thread_local int shape_given;
static _Thread_local uint64_t shape_key;

void cgp_rt_kernel_class(uint64_t key) {
  shape_key = key;
  shape_given = 1;
}

/* The shape of `key`, made if new; -1 when RT_SHAPES are taken (the kernel's schedule then). */
static int shape_of(rt_kernel *k, uint64_t key) {
  for (unsigned i = 0; i < k->nshapes; i++)
    if (k->shapes[i].key == key) return (int)i;
  if (k->nshapes == RT_SHAPES) return -1;
  k->shapes[k->nshapes] = (rt_shape_class){.key = key, .last = -1, .prev = -1, .succ = -1};
  return (int)k->nshapes++;
}

/* Shape c (-1: none) is on its own schedule: it recurs and has an analysed launch. A shape that
   never comes back (LU's grid, shrinking every 32 launches of k) keeps the kernel's, which sees its
   launches drift. */
static int own_schedule(const rt_kernel *k, int c) {
  return rt_shape_recurs(k, c) && k->shapes[c].nsamples;
}

/* Shape c's runs are long: more than RT_RUN_OPENING of its launches one after another in one of
   them (ADI's kernel 6 past the first launch of each time step). */
#define RT_RUN_OPENING 2
static int long_runs(const rt_kernel *k, int c) { return c >= 0 && k->shapes[c].most_in_run > RT_RUN_OPENING; }

/* Is a launch of shape c among the first RT_RUN_OPENING of a later run of it, where its runs are
   long (docs/model.md 5b, "A later run opens with analysed launches")? ahead: asked for the
   kernel's next launch, not the current one. */
static int run_opening(const rt_kernel *k, int c, int ahead) {
  if (!long_runs(k, c)) return 0;
  const rt_shape_class *sc = &k->shapes[c];
  uint64_t runs = sc->runs, in_run = sc->in_run;
  if (ahead && k->cur_shape == c) in_run++;
  else if (ahead) runs++, in_run = 1;
  return runs >= 2 && in_run <= RT_RUN_OPENING;
}

/* Is a launch of shape c, the shape's launches-th and the kernel's launch-th, analysed? */
static int shape_sampled(const rt_kernel *k, int c, uint64_t launch, int ahead) {
  if (cgp_rt_g.sample_mode == 2) return 1;
  /* (at or past: a shape's launch planned while it was on the kernel's schedule may have gone by) */
  if (own_schedule(k, c))
    return k->shapes[c].launches >= k->shapes[c].next_sampled || run_opening(k, c, ahead);
  return launch >= k->next_sampled;
}

/* Is the kernel's next launch analysed? Its shape is taken to be the one that followed this
   launch's shape last time (a V-cycle's levels come in turn). */
static int next_sampled(const rt_kernel *k, int c) {
  int q = c >= 0 ? k->shapes[c].succ : -1;
  return shape_sampled(k, q, k->launches, 1);
}

/* Two analysed launches of one kernel differ on a device when the model predicts the second's
   per-warp behaviour at the first's grid (its blocks, its warps scaled by the same factor, as
   docs/model.md 5b scales a run of launches) more than RT_LAUNCH_TOLERANCE away from the first's
   time: what the launches do, not only how many threads they have. */
static double launch_drift_on(const cgp_device *dev, const cgp_kernel_stats *a, const cgp_kernel_stats *b) {
  if (!a->blocks || !b->blocks) return a->blocks != b->blocks ? INFINITY : 0;
  cgp_kernel_stats at = cgp_stats_scaled(b, (double)a->blocks / (double)b->blocks);
  cgp_prediction pa, pb;
  char err[256];
  if (cgp_predict(dev, a, &pa, err, sizeof err) || cgp_predict(dev, &at, &pb, err, sizeof err)) return 0;
  double m = fmax(pa.time_ms, pb.time_ms);
  return m > 0 ? fabs(pa.time_ms - pb.time_ms) / m : 0;
}

/* How far apart two analysed launches are, relatively: the most on any device analysed (the order
   they are named in does not matter). They differ above RT_LAUNCH_TOLERANCE. */
static double launch_drift(const rt_sample *a, const rt_sample *b) {
  double most = 0;
  for (size_t d = 0; d < S->ndev; d++) most = fmax(most, launch_drift_on(&S->dev[d], &a->stats[d], &b->stats[d]));
  return most;
}

/* A kernel whose analysed launches have all agreed is settled, from its RT_SETTLED_SAMPLES-th on,
   while its last two measure the same behaviour, their predicted times within RT_SETTLED_DRIFT
   and their warps' active lanes and loads' and stores' L2 transactions per warp too
   (same_traffic): its next analysed launch is 4n + 3, not 2n + 1 (docs/model.md 5b). A drift,
   however slow, keeps it doubling. */
#define RT_SETTLED_SAMPLES 4
#define RT_SETTLED_DRIFT 1e-4

/* x and y within RT_SETTLED_DRIFT of each other, relatively. */
static int close_to(double x, double y) {
  double m = fmax(fabs(x), fabs(y));
  return m == 0 || fabs(x - y) <= RT_SETTLED_DRIFT * m;
}

/* Do two analysed launches keep as many lanes of their warps active, and move the same L2
   transactions per warp on every device? A guard that idles more threads every launch (LU's
   kernel 1, `j > k` in a grid of one block) leaves the time unchanged while each warp keeps a
   thread, and maybe the sectors its warps touch, but not the lanes: the launches drift, and
   settling on two of them stood them for launches with a warp fewer (+4.2 % against `full` at
   N = 150). */
static int same_traffic(const rt_sample *a, const rt_sample *b) {
  if (!close_to(a->lanes_pw, b->lanes_pw)) return 0;
  for (size_t d = 0; d < S->ndev; d++) {
    const cgp_kernel_stats *x = &a->stats[d], *y = &b->stats[d];
    if (!close_to(x->st_insts * x->st_trans_pw, y->st_insts * y->st_trans_pw)) return 0;
    for (int c = 0; c < 3; c++)
      if (!close_to(x->insts[c] * x->trans_pw[c], y->insts[c] * y->trans_pw[c])) return 0;
  }
  return 1;
}

/* The launch to analyse after launch n: 2n + 1; settled, 4n + 3; dense, n + cgp_dense_step(n). */
static uint64_t next_after(uint64_t n, int dense, int settled) {
  uint64_t step = dense ? cgp_dense_step(n) : settled ? 3 * n + 3 : n + 1;
  return n + (step ? step : 1);
}

/* After analysed launch n of a kernel or a shape that has analysed `samples` launches: its last
   two, `last` and `prev` (NULL: not to be compared), compared from its third while it is not
   *dense, which is set where they differ; the next launch to analyse. */
static uint64_t plan_after(uint64_t n, unsigned samples, const rt_sample *last, const rt_sample *prev, int *dense) {
  int settled = 0;
  if (samples >= 3 && last && prev && !*dense) {
    double drift = launch_drift(last, prev);
    *dense = drift > RT_LAUNCH_TOLERANCE;
    settled = samples >= RT_SETTLED_SAMPLES && drift <= RT_SETTLED_DRIFT && same_traffic(last, prev);
  }
  return next_after(n, *dense, settled);
}

/* After analysed launch n: the next one to analyse. Launches 0, 1, 3, 7 (2n + 1: not the powers
   of two, which are the launches where an index the launch number drives, a column k, falls on
   an alignment boundary, so that every sample would be the unusual launch of its run), then,
   while the analysed launches measure the same, 31, 127, 511 ... (4n + 3: settled); once two in
   a row differ (their launch_drift above RT_LAUNCH_TOLERANCE; launch 0 is left out, as the first
   launch of a kernel finds the caches cold), every launch n + cgp_dense_step(n) (n / 16) from
   then on, so that no sample stands for more than about 1 / CGP_DENSE_SPACING more launches
   (docs/model.md 5b). */
/* Of the next `gap` launches of kernel k's run, the first whose lines, by the run's footprint law,
   an L2 holds differently from the next launch's (rt_law_edge; the edge of what an earlier kernel
   left: ADI's kernel 6 sweeping up the rows kernel 4 swept down, docs/model.md 5b), on any device,
   as launches after this one; 0 where there is none, no law, or a gap of 2 or less. */
static uint64_t law_edge(rt_kernel *k, uint64_t gap) {
  rt_law law;
  if (!k->fp || gap <= 2 || !rt_footprint_law(k->fp, k->runs, &law)) return 0;
  uint64_t first = 0;
  for (size_t d = 0; d < S->ndev; d++) {
    uint64_t e = rt_law_edge(S->l2[d], cgp_transaction_bytes(&S->dev[d]), &law, k->run_pos, gap);
    if (e && e < gap && (!first || e < first)) first = e;
  }
  rt_law_free(&law);
  return first;
}

static void plan_next_sample(rt_kernel *k, uint64_t n) {
  const rt_sample *last = k->nsamples >= 2 && k->samples[k->nsamples - 1].launch == n ? &k->samples[k->nsamples - 1] : NULL;
  k->next_sampled = plan_after(n, (unsigned)k->nsamples, last, last ? last - 1 : NULL, &k->dense);
  uint64_t e = law_edge(k, k->next_sampled - n);   /* sooner where the run reaches an edge */
  if (e) k->next_sampled = n + e;
}

/* The same for shape c, whose latest launch (its n-th) was just analysed. Where the shape's
   runs are long (long_runs: its next launches are the run's next), sooner at an edge, as the
   kernel's. */
static void plan_shape(rt_kernel *k, int c) {
  rt_shape_class *sc = &k->shapes[c];
  const rt_sample *last = sc->last >= 0 ? &k->samples[sc->last] : NULL, *prev = sc->prev >= 0 ? &k->samples[sc->prev] : NULL;
  uint64_t n = sc->launches - 1;
  sc->next_sampled = plan_after(n, sc->nsamples, last, prev, &sc->dense);
  uint64_t e = long_runs(k, c) ? law_edge(k, sc->next_sampled - n) : 0;
  if (e) sc->next_sampled = n + e;
}

/* Does kernel k's next analysed launch want the launches before it traced, to find in the L2 what
   they leave there (docs/model.md 5b, "Warming launches")? Until one of its warm-started analysed
   launches past its first has shown no inherited hits, yes; once one has shown them, yes; else
   only every RT_INHERIT_RECHECK-th analysed launch, which checks again. */
static int wants_warming(const rt_kernel *k) {
  return k->inherits || !k->inherit_checks || k->nsamples % RT_INHERIT_RECHECK == RT_INHERIT_RECHECK - 1;
}

/* Kernel x, launched before, analyses its next launch and wants the launches before it warmed. */
static int expects_analysed(const rt_kernel *x) {
  return x->launches && next_sampled(x, x->cur_shape) && wants_warming(x);
}

/* The run of kernel p ends (docs/model.md 5b, "A run's untraced last launches warm the caches by
   their footprint's law"): where its last launches were not all traced and its traced ones show
   a law, the launches each device's L2 holds go into it (rt_tail_warm), and into the trace for a
   replay. `full` traces them all. */
static void end_of_run(rt_kernel *p) {
  p->tail_warmed = 0;
  if (cgp_rt_g.sample_mode == 2 || !p->fp || p->run_streak == 1) return;
  rt_tail t = {.len = p->run_pos, .streak = p->run_streak};
  if (!rt_footprint_law(p->fp, p->runs, &t.law)) return;
  rt_trace_tail(p, &t);
  int all = 1;
  for (size_t d = 0; d < S->ndev; d++) all &= p->an[d] && rt_tail_warm(S, p, d, &t);
  p->tail_warmed = all;
  rt_law_free(&t.law);
}

/* Kernel k begins: the run of launches of the kernel before it, another one's, ends (its length
   and k, the kernel after it, kept; its untraced last launches into the caches), and k's run
   begins or goes on. */
static void note_run(rt_kernel *k) {
  rt_kernel *p = cgp_rt_g.last_kernel;
  if (p != k) {
    if (p) {
      p->run_len = p->run_pos;
      p->run_succ = k;
      end_of_run(p);
    }
    k->run_pos = 0;
    k->runs++;
  }
  k->run_pos++;
  cgp_rt_g.last_kernel = k;
}

/* Another kernel expects to analyse its next launch and wants it warmed, and this launch (of
   whatever kernel) is among the last launches before it: it warms the caches for it too, so that
   an analysed launch finds in the L2 what the launches of the other kernels just before it leave
   there, as a full trace does (docs/model.md 4c, 5b). The last launches are those while a kernel
   launched among the last nkernels launches of all waits (K1(k), K2(k), K3(k) per k), and the last
   nkernels of a run of k as long as its last one, where the kernel after that run waits (ADI's
   N - 1 launches of kernel 4 per time step, then kernel 5 once). */
static int another_expects(const rt_kernel *k) {
  for (size_t i = 0; i < cgp_rt_g.nkernels; i++) {
    const rt_kernel *x = cgp_rt_g.kernels[i];
    if (x != k && cgp_rt_g.launches - x->last_global <= cgp_rt_g.nkernels && expects_analysed(x)) return 1;
  }
  return k->run_succ && k->run_pos + cgp_rt_g.nkernels > k->run_len &&
         expects_analysed(k->run_succ);
}

/* Device d's share of an analysed launch's inherited hits (the launch's sums, before the stats):
   above RT_INHERIT_TOLERANCE of its L2 transactions, or on an L2 that cannot tell, sets *inherits.
   (record_launch then marks the kernel as inheriting, or, where no device did, counts a check of a
   warm-started launch past the first.) */
static void note_inherited(const cgp_totals *sum, size_t d, int *inherits) {
  double trans = sum->st_trans;
  for (int c = 0; c < CGP_NCLASS; c++) trans += sum->ld_trans[c];
  if (!cgp_l2_tracks_inherited(S->l2[d]) || sum->l2_inherited > RT_INHERIT_TOLERANCE * trans) *inherits = 1;
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
  int has_key = shape_given;                  /* taken whatever becomes of this launch */
  uint64_t key = shape_key;
  shape_given = 0;
  if (!rt_owner_enter()) return;
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
  if (!launch_steps(k, given, step)) {
    cgp_rt_g.untraced++;                      /* it runs untraced: the caches miss what it does */
    return;
  }
  cgp_analysis_set *kan = L->kan;
  rt_launch_clear(L);
  L->kan = kan ? kan : cgp_analysis_set_new(&kan_cfg, cgp_kernel_analyses);
  L->tracker = rt_tracker_new(k->shape);
  if (!L->tracker || !L->kan) return;
  rt_tracker_pause_in(L->tracker, cgp_rt_pause);
  rt_tracker_sample(L->tracker, cgp_rt_g.sample_iterations);
  memcpy(L->step, step, sizeof step);
  int down[3] = {step[0] < 0, step[1] < 0, step[2] < 0};
  kan_cfg.thread_order = cgp_thread_order_mask((int)k->dims, down);
  kan_cfg.dims = (int)k->dims;
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
  cgp_rt_fold = cgp_rt_g.fold;
  /* every launch since this kernel's last one, that one included, was traced: the caches are as
     the GPU's would be */
  L->warm_started = k->launches && k->prev_traced && k->untraced_seen == cgp_rt_g.untraced;
  const rt_kernel *before_it = cgp_rt_g.last_kernel;
  note_run(k);
  if (k->run_pos > 1 || k->run_len > 1) {     /* its runs are longer than one launch */
    key ^= k->run_pos == 1 ? RT_RUN_START_KEY : 0;
    has_key = 1;
  }
  int c = has_key ? shape_of(k, key) : -1;
  if (k->cur_shape >= 0) k->shapes[k->cur_shape].succ = c;
  if (c >= 0 && (c != k->cur_shape || !k->shapes[c].runs)) {
    k->shapes[c].runs++;
    k->shapes[c].in_run = 0;
  }
  if (c >= 0 && ++k->shapes[c].in_run > k->shapes[c].most_in_run) k->shapes[c].most_in_run = k->shapes[c].in_run;
  k->cur_shape = c;
  L->timed = rt_launch_timed(k->launches);
  L->sampled = shape_sampled(k, c, k->launches++, 0);
  if (c >= 0) k->shapes[c].launches++;
  /* the launch before an analysed one is traced for the caches alone, so that the analysed launch
     finds in the L2 what this one leaves there (docs/model.md section 4c), where that kernel's
     analysed launches find something there (wants_warming) */
  int before = !L->sampled && cgp_rt_g.sample_mode != 2 && next_sampled(k, c);
  L->warming = before && wants_warming(k);
  if (!L->warming && !L->sampled && cgp_rt_g.sample_mode != 2) L->warming = another_expects(k);
  if (before && !L->warming) k->warming_skipped++;
  k->warming_traced += L->warming;
  k->last_global = cgp_rt_g.launches++;
  L->traced = L->sampled || L->warming;
  /* the launch just before ran untraced: the last kernel's own, or one since it (a run-time step
     of 0, untraced before it counts as a launch of its kernel); the last kernel's own untraced
     last launches, put into every L2 by its footprint's law as its run ended, leave the L2 known
     (ADI at N = 128 and two time steps: kernel 1's second launch, after kernel 6's warmed tail,
     was "after an untraced launch, its prediction may be off", its prediction equal to full's) */
  int prev_untraced = before_it && ((!before_it->prev_traced && !before_it->tail_warmed) ||
                                    before_it->untraced_seen != cgp_rt_g.untraced);
  L->after_untraced = prev_untraced && before_it != k ? before_it : NULL;
  cgp_rt_g.untraced += !L->traced;
  if (!L->traced) k->run_streak = 0;
  else if (k->run_pos == 1 || !k->run_streak) k->run_streak = k->run_pos;
  k->prev_traced = L->traced;
  k->untraced_seen = cgp_rt_g.untraced;
  unsigned b[3];
  rt_resolve_block(k, b);
  L->bx = b[0]; L->by = b[1]; L->bz = b[2];
  L->tpb = L->bx * L->by * L->bz;
  L->maxx = L->maxy = L->maxz = -1;
  L->cur_row = 0;
  uint64_t most = 0;
  for (size_t d = 0; d < S->ndev; d++) {
    uint64_t per_batch = rt_batch_blocks(S, d, L->tpb);
    /* one batch to warm the caches, one to measure; in sampled modes, blocks before them that warm
       too where a stencil's halo is in the row of blocks above (`full` counts every batch) */
    L->dv[d].W = cgp_rt_g.sample_mode == 2 || !L->sampled
                     ? 2 * per_batch
                     : rt_window_blocks(k, per_batch, rt_row_blocks(k, L->bx, L->unit));
    L->dv[d].ext = cgp_rt_g.sample_mode == 2 ? 0 : rt_warm_extension(S, k, d, per_batch);
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
  /* a grid small for a device's windows is traced whole for it, as `full` traces it: windows of
     two batches one after another (a warming launch too: the analysed one after it finds what
     the whole launch left); each device on its own windows (issue 30 item 7) */
  uint64_t G = rt_grid_guess(k, b, L->unit), span = L->traced && k->fp ? rt_footprint_last_span(k->fp) : 0;
  for (size_t d = 0; d < S->ndev; d++) {
    L->dv[d].whole = L->traced && cgp_rt_g.sample_mode != 2 &&
                     (rt_launch_whole(G, L->dv[d].W, L->tpb) || rt_launch_at_cliff(span, cgp_l2_capacity_bytes(&S->dev[d]), G * L->tpb));
    L->dv[d].spacing = rt_window_spacing(L->dv[d].W, G);
    if (!L->dv[d].whole) continue;
    L->dv[d].W = 2 * rt_batch_blocks(S, d, L->tpb);
    L->dv[d].ext = 0;
  }
  L->W = L->dv[L->tdev].W;
  k->fp_dev = L->tdev;                        /* the footprint, like the trace, on its windows */
  if (k->fp) rt_footprint_row_blocks(k->fp, k->dims <= 1 ? 1 : 0);   /* a 2-D row: once known */
  if (L->traced)
    rt_trace_launch_begin(k, k->launches - 1, b, L->W, L->dv[L->tdev].ext, L->warming ? 2 : rt_full_windows(L->tdev));
}

static uint64_t record_launch(void);

/* The launch's grid, its sample when analysed, the launches the latest sample stands for (this
   one with its own grid), and the next launch to analyse. */
static void finish_launch(void) {
  rt_kernel *k = L->k;
  int c = k->cur_shape;
  size_t had = k->nsamples;
  uint64_t G = record_launch();
  int analysed = k->nsamples > had;
  int own = own_schedule(k, c);
  if (analysed) {
    k->samples[k->nsamples - 1].shape = own ? c : -1;
    k->samples[k->nsamples - 1].key_shape = c;
    if (c >= 0) {
      rt_shape_class *sc = &k->shapes[c];
      sc->prev = sc->last;
      sc->last = (long)k->nsamples - 1;
      sc->nsamples++;
    }
  }
  /* it stands with its shape's latest analysed launch, on the shape's own schedule, else with the
     kernel's latest */
  rt_record_stood_for(k, own_schedule(k, c) ? k->shapes[c].last : (long)k->nsamples - 1, G);
  if (!L->sampled) return;
  plan_next_sample(k, k->launches - 1);
  if (c >= 0 && analysed) plan_shape(k, c);
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
  k->last_blocks = G;
  if (L->traced) rt_trace_launch_end(G);
  if (!L->traced || G == 0) return G;
  for (size_t d = 0; d < S->ndev; d++) rt_window_launch_end(S, k, d, G);
  if (k->fp) rt_footprint_launch_end(k->fp, G, k->runs, k->run_pos);
  if (!L->sampled) return G;                    /* a warming launch: the caches only */
  rt_sample s = {.launch = k->launches - 1, .blocks = G, .threads = L->threads, .after = L->after_untraced};
  memcpy(s.grid, grid, sizeof grid);
  memcpy(s.gridblocks, gb, sizeof gb);
  s.total_warps = G * ((L->tpb + RT_WARP - 1) / RT_WARP);
  /* `full` mode stopped by the budget: the blocks after the last window were not traced, and it
     stands for them, as a sampled launch's last window does */
  for (size_t d = 0; d < S->ndev; d++)
    if (rt_full_windows(d) && L->over_budget && L->dv[d].nwstat)
      L->dv[d].wstat[L->dv[d].nwstat - 1].region_end = UINT64_MAX;
  s.traced_warps = L->fold_traced;
  for (size_t d = 0; d < S->ndev; d++)                  /* the device that traced the most windows */
    if (L->dv[d].windows > s.windows) s.windows = L->dv[d].windows;
  s.stop = L->stop ? L->stop : L->over_budget ? RT_STOP_BUDGET : RT_STOP_GRID;
  int inherits = 0;
  for (size_t d = 0; d < S->ndev; d++) {
    cgp_totals sum = L->dv[d].fold, sum_tiled = L->dv[d].fold_tiled;
    for (size_t w = 0; w < L->dv[d].nwstat; w++)
      rt_launch_stats_add(&L->dv[d].wstat[w], G, (double)L->threads / (double)G, &sum, &sum_tiled,
                          d == 0 ? &s.traced_warps : NULL);
    if (d == 0) s.lanes_pw = sum.warps > 0 ? sum.mem_lanes / sum.warps : 0;
    note_inherited(&sum, d, &inherits);
    rt_launch_stats_sum(&sum, L->tpb, &s.stats[d]);
    rt_tile_stats(k, d, &s.stats[d]);
    s.has_tiled |= rt_launch_stats_tiled(k, d, &sum_tiled, L->tpb, &s.tiled[d]);
  }
  if (inherits) k->inherits = 1;
  else if (L->warm_started && s.launch > 0) k->inherit_checks++;
  for (size_t w = 0; w < L->dv[0].nwstat; w++) rt_wstat_count(k, &L->dv[0].wstat[w]);
  rt_record_launch(k, &s);
  rt_record_deps(k, s.launch, cgp_analysis_deps(L->kan), s.grid);
  return G;
}

static void end_nest(void) {
  if (!L->active) return;
  rt_finish_lane();
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
  rt_owner_leave();
}
