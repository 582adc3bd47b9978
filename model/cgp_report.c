/* cgp_report.c: from a report's samples to predictions, and the report's file and table. */
#include "cgp_report.h"
#include "cgp_json.h"
#include "cgp_file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


cJSON *cgp_report_new(const char *tool_version) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "version", CGP_REPORT_SCHEMA);
  cJSON_AddStringToObject(r, "tool_version", tool_version);
  cJSON_AddArrayToObject(r, "kernels");
  return r;
}

static cJSON *arr3(const double *v) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < 3; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

cJSON *cgp_report_stats_to_json(const cgp_kernel_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "blocks", (double)s->blocks);
  cJSON_AddNumberToObject(o, "threads_per_block", s->threads_per_block);
  cJSON_AddNumberToObject(o, "total_warps", (double)s->total_warps);
  cJSON_AddNumberToObject(o, "smem_per_block", s->smem_per_block);
  cJSON_AddNumberToObject(o, "regs_per_thread", s->regs_per_thread);
  cJSON_AddItemToObject(o, "insts", arr3(s->insts));
  cJSON_AddItemToObject(o, "trans_pw", arr3(s->trans_pw));
  cJSON_AddItemToObject(o, "dram_pw", arr3(s->dram_pw));
  cJSON_AddNumberToObject(o, "total_insts", s->total_insts);
  cJSON_AddNumberToObject(o, "core_insts", s->core_insts);
  cJSON_AddNumberToObject(o, "sync_insts", s->sync_insts);
  cJSON_AddItemToObject(o, "smem_insts", arr3(s->smem_insts));
  cJSON_AddItemToObject(o, "smem_conflict", arr3(s->smem_conflict));
  cJSON_AddNumberToObject(o, "smem_load_insts", s->smem_load_insts);
  cJSON_AddNumberToObject(o, "st_insts", s->st_insts);
  cJSON_AddNumberToObject(o, "st_trans_pw", s->st_trans_pw);
  cJSON_AddNumberToObject(o, "st_dram_pw", s->st_dram_pw);
  cJSON_AddNumberToObject(o, "masked_slots", s->masked_slots);
  cJSON_AddItemToObject(o, "l1_trans_pw", arr3(s->l1_trans_pw));
  cJSON_AddItemToObject(o, "l1_hit_pw", arr3(s->l1_hit_pw));
  cJSON_AddNumberToObject(o, "fp32_insts", s->fp32_insts);
  cJSON_AddNumberToObject(o, "fp64_insts", s->fp64_insts);
  cJSON_AddNumberToObject(o, "int_insts", s->int_insts);
  cJSON_AddNumberToObject(o, "sfu_insts", s->sfu_insts);
  cJSON_AddNumberToObject(o, "lsu_wavefronts", s->lsu_wavefronts);
  cJSON_AddItemToObject(o, "ld_wavefronts_pw", arr3(s->ld_wavefronts_pw));
  cJSON_AddItemToObject(o, "overlap_insts", arr3(s->overlap_insts));
  cJSON_AddItemToObject(o, "merged_dram_pw", arr3(s->merged_dram_pw));
  return o;
}

/* Every stats field is a finite, non-negative number no larger than its type and the model can
   use: a count per warp above CGP_REPORT_MAX_PER_WARP (days of one warp's work) is refused,
   block and warp totals must be whole numbers a double holds exactly, the per-block fields must
   fit in 32 bits. */
#define CGP_REPORT_MAX_PER_WARP 1e15
#define CGP_REPORT_MAX_TOTAL 9007199254740992.0 /* 2^53 */
#define CGP_REPORT_MAX_U32 4294967295.0

static int check_range(const cJSON *v, const char *key, int index, double max, char *err, size_t errlen) {
  char where[80];
  if (index >= 0) snprintf(where, sizeof where, "\"%s\"[%d]", key, index);
  else snprintf(where, sizeof where, "\"%s\"", key);
  if (!cJSON_IsNumber(v)) {
    snprintf(err, errlen, "field %s: %s", where, v ? "expected a number" : "missing");
    return -1;
  }
  double x = v->valuedouble;
  if (!(x >= 0) || !(x <= max)) {
    snprintf(err, errlen, "field %s: %g is out of range (expected a number from 0 to %g)", where, x, max);
    return -1;
  }
  return 0;
}

static int get_num_max(const cJSON *o, const char *key, double max, double *out, char *err, size_t errlen) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (check_range(v, key, -1, max, err, errlen) != 0) return -1;
  *out = v->valuedouble;
  return 0;
}

static int get_num(const cJSON *o, const char *key, double *out, char *err, size_t errlen) {
  return get_num_max(o, key, CGP_REPORT_MAX_PER_WARP, out, err, errlen);
}

static int get_arr3(const cJSON *o, const char *key, double *out, char *err, size_t errlen) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
    snprintf(err, errlen, "field \"%s\": expected an array of 3 numbers", key);
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    const cJSON *v = cJSON_GetArrayItem(a, i);
    if (check_range(v, key, i, CGP_REPORT_MAX_PER_WARP, err, errlen) != 0) return -1;
    out[i] = v->valuedouble;
  }
  return 0;
}

/* Fields added after schema 1's first reports: absent means 0 (not measured). */
static int opt_num(const cJSON *o, const char *key, double *out, char *err, size_t errlen) {
  return cJSON_GetObjectItemCaseSensitive(o, key) ? get_num(o, key, out, err, errlen) : 0;
}

static int opt_arr3(const cJSON *o, const char *key, double *out, char *err, size_t errlen) {
  return cJSON_GetObjectItemCaseSensitive(o, key) ? get_arr3(o, key, out, err, errlen) : 0;
}

int cgp_report_stats_from_json(const cJSON *o, cgp_kernel_stats *s, char *err, size_t errlen) {
  double blocks, tpb, warps, smem, regs;
  memset(s, 0, sizeof *s);
  if (get_num_max(o, "blocks", CGP_REPORT_MAX_TOTAL, &blocks, err, errlen) ||
      get_num_max(o, "threads_per_block", CGP_REPORT_MAX_U32, &tpb, err, errlen) ||
      get_num_max(o, "total_warps", CGP_REPORT_MAX_TOTAL, &warps, err, errlen) ||
      get_num_max(o, "smem_per_block", CGP_REPORT_MAX_U32, &smem, err, errlen) ||
      get_num_max(o, "regs_per_thread", CGP_REPORT_MAX_U32, &regs, err, errlen) || get_arr3(o, "insts", s->insts, err, errlen) ||
      get_arr3(o, "trans_pw", s->trans_pw, err, errlen) || get_arr3(o, "dram_pw", s->dram_pw, err, errlen) ||
      get_num(o, "total_insts", &s->total_insts, err, errlen) ||
      get_num(o, "core_insts", &s->core_insts, err, errlen) ||
      get_num(o, "sync_insts", &s->sync_insts, err, errlen) ||
      get_arr3(o, "smem_insts", s->smem_insts, err, errlen) ||
      get_arr3(o, "smem_conflict", s->smem_conflict, err, errlen) ||
      get_num(o, "smem_load_insts", &s->smem_load_insts, err, errlen) ||
      opt_num(o, "st_insts", &s->st_insts, err, errlen) || opt_num(o, "st_trans_pw", &s->st_trans_pw, err, errlen) ||
      opt_num(o, "st_dram_pw", &s->st_dram_pw, err, errlen) ||
      opt_num(o, "masked_slots", &s->masked_slots, err, errlen) ||
      opt_arr3(o, "l1_trans_pw", s->l1_trans_pw, err, errlen) || opt_arr3(o, "l1_hit_pw", s->l1_hit_pw, err, errlen) ||
      opt_num(o, "fp32_insts", &s->fp32_insts, err, errlen) || opt_num(o, "fp64_insts", &s->fp64_insts, err, errlen) ||
      opt_num(o, "int_insts", &s->int_insts, err, errlen) || opt_num(o, "sfu_insts", &s->sfu_insts, err, errlen) ||
      opt_num(o, "lsu_wavefronts", &s->lsu_wavefronts, err, errlen) ||
      opt_arr3(o, "ld_wavefronts_pw", s->ld_wavefronts_pw, err, errlen) ||
      opt_arr3(o, "overlap_insts", s->overlap_insts, err, errlen) ||
      opt_arr3(o, "merged_dram_pw", s->merged_dram_pw, err, errlen))
    return -1;
  s->blocks = (uint64_t)blocks;
  s->threads_per_block = (unsigned)tpb;
  s->total_warps = (uint64_t)warps;
  s->smem_per_block = (unsigned)smem;
  s->regs_per_thread = (unsigned)regs;
  return 0;
}

/* ---- predictions ----------------------------------------------------------------------------- */

static cJSON *prediction_detail(const cgp_prediction *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "occupancy", p->occupancy);
  cJSON_AddNumberToObject(o, "exec_case", p->exec_case);
  cJSON_AddNumberToObject(o, "no_mem_insts", p->no_mem_insts);
  cJSON_AddNumberToObject(o, "mem_cycles", p->mem_cycles);
  cJSON_AddNumberToObject(o, "mem_periods", p->mem_periods);
  cJSON_AddNumberToObject(o, "mlp", p->mlp);
  cJSON_AddNumberToObject(o, "comp_cycles", p->comp_cycles);
  cJSON_AddNumberToObject(o, "mem_l", p->mem_l);
  cJSON_AddNumberToObject(o, "departure_delay", p->departure_delay);
  cJSON_AddNumberToObject(o, "mwp_lat", p->mwp_lat);
  cJSON_AddNumberToObject(o, "mwp_bw", p->mwp_bw);
  cJSON_AddNumberToObject(o, "cwp_full", p->cwp_full);
  cJSON *mc = cJSON_AddObjectToObject(o, "per_class");
  for (int c = 0; c < 3; c++) {
    cJSON *x = cJSON_AddObjectToObject(mc, cgp_stats_class_name(c));
    cJSON_AddNumberToObject(x, "mem_l", p->mem_l_c[c]);
    cJSON_AddNumberToObject(x, "dep_del", p->dep_del_c[c]);
  }
  cJSON_AddNumberToObject(o, "cycles_mwp_cwp", p->cycles_mwp_cwp);
  cJSON_AddNumberToObject(o, "cycles_paper_eq16", p->cycles_paper);
  cJSON_AddNumberToObject(o, "latency_bound_cycles", p->latency_bound_cycles);
  cJSON_AddNumberToObject(o, "cpw_cores", p->cpw_cores);
  cJSON_AddNumberToObject(o, "cpw_issue", p->cpw_issue);
  cJSON_AddNumberToObject(o, "cpw_dram", p->cpw_dram);
  cJSON_AddNumberToObject(o, "cpw_lsu", p->cpw_lsu);
  cJSON_AddNumberToObject(o, "cpw_l2", p->cpw_l2);
  cJSON_AddNumberToObject(o, "launch_cycles", p->launch_cycles);
  cJSON_AddNumberToObject(o, "busiest_sm_warps", p->busiest_sm_warps);
  cJSON_AddNumberToObject(o, "cpw_bound", p->cpw_bound);
  cJSON_AddNumberToObject(o, "throughput_cycles", p->throughput_cycles);
  cJSON_AddNumberToObject(o, "sync_cycles", p->sync_cycles);
  cJSON_AddNumberToObject(o, "warp_throughput", p->warp_throughput);
  cJSON_AddNumberToObject(o, "littles_law_cycles", p->littles_law_cycles);
  return o;
}

typedef struct {
  double time_ms, cycles, rep_score, launches;
  cgp_prediction rep;
  cgp_kernel_stats rep_stats;
} kernel_total;

/* One run of launches at `blocks`, predicted with the per-warp stats *st of a sample of `own`
   blocks, scaled by the grid (the sample's own grid gives its stats unchanged). */
static int run_at_grid(const cgp_device *dev, const cgp_kernel_stats *st, double own, double blocks,
                       cgp_prediction *p, char *err, size_t errlen) {
  cgp_kernel_stats g = blocks != own ? cgp_stats_scaled(st, blocks / own) : *st;
  return cgp_predict(dev, &g, p, err, errlen);
}

/* The launches sample s stands for, each at its own grid (docs/model.md 4d): "launch_grids" holds
   [mean blocks, launches] runs; each run is predicted with the sample's per-warp stats, its
   blocks and warps scaled from the sample's by its grid over the sample's. Between s and the next
   analysed launch `next` (NULL: s is the last), `gap` launches on, a launch d after s is
   predicted as (1 - d / gap) of s's stats and d / gap of next's, each at the launch's grid: the
   trapezoid rule, whose error a steady drift does not accumulate (docs/model.md 5b); a run takes
   its launches' mean d. Without the field (a report of schema 1.4 or older) *ms and *cycles stay
   weight x the sample's. */
static int launch_grids_time(const cJSON *s, const cgp_device *dev, const cgp_kernel_stats *st, const cJSON *next,
                             const cgp_kernel_stats *next_st, double gap, double *ms, double *cycles, char *err,
                             size_t errlen) {
  const cJSON *lg = cJSON_GetObjectItemCaseSensitive(s, "launch_grids"), *e;
  double own = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "blocks"));   /* the sample's grid */
  if (!cJSON_IsArray(lg) || cJSON_GetArraySize(lg) == 0 || st->blocks == 0 || !(own >= 1)) return 0;
  double next_own = next ? cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(next, "blocks")) : 0;
  int blend = next && next_st && next_st->blocks && next_own >= 1 && gap > 1;
  double sum_ms = 0, sum_cycles = 0, d = 0;
  cJSON_ArrayForEach(e, lg) {
    double b = cJSON_GetNumberValue(cJSON_GetArrayItem(e, 0)), n = cJSON_GetNumberValue(cJSON_GetArrayItem(e, 1));
    if (!(b >= 1 && b <= CGP_REPORT_MAX_TOTAL && n >= 0 && n <= CGP_REPORT_MAX_TOTAL))
      return snprintf(err, errlen, "launch_grids: an entry is not [blocks >= 1, launches >= 0]"), -1;
    cgp_prediction p, q;
    if (run_at_grid(dev, st, own, b, &p, err, errlen) != 0) return -1;
    double w = n > 0 ? (d + (n - 1) / 2) / gap : 0;  /* the run's mean place towards next */
    if (blend && w > 0) {
      if (w > 1) w = 1;
      if (run_at_grid(dev, next_st, next_own, b, &q, err, errlen) != 0) return -1;
      p.time_ms = (1 - w) * p.time_ms + w * q.time_ms;
      p.cycles = (1 - w) * p.cycles + w * q.cycles;
    }
    sum_ms += n * p.time_ms;
    sum_cycles += n * p.cycles;
    d += n;
  }
  *ms = sum_ms;
  *cycles = sum_cycles;
  return 0;
}

/* Sample s's per-warp stats on dev from its `key` (edited), and its prediction at its own grid. */
static int sample_stats(const cJSON *kernel, const cJSON *s, const char *key, const cgp_device *dev,
                        double (*edit)(cgp_kernel_stats *), cgp_kernel_stats *st, cgp_prediction *p, char *err,
                        size_t errlen) {
  const cJSON *an = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, key), dev->name);
  if (!an)
    return snprintf(err, errlen, "device '%s' was not analysed when the program ran (its L2 behaviour is not in "
                    "the report); run the program again with CGPREDICT_DEVICE=%s", dev->name, dev->name), -1;
  char e[256];
  if (cgp_report_stats_from_json(an, st, e, sizeof e) != 0)
    return snprintf(err, errlen, "kernel '%s', device '%s': %s",
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(kernel, "name")), dev->name, e), -1;
  if (edit) edit(st);
  if (cgp_predict(dev, st, p, e, sizeof e) != 0) return snprintf(err, errlen, "device '%s': %s", dev->name, e), -1;
  return 0;
}

/* Samples a and b are of one launch shape (their "shape", the runtime's key for the bounds the
   nest was entered with; none on either: one). Between two of different shapes nothing drifts: the
   launches each stands for are its own shape's (docs/model.md 5b). */
static int same_shape(const cJSON *a, const cJSON *b) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, "shape"), *y = b ? cJSON_GetObjectItemCaseSensitive(b, "shape") : NULL;
  return (!x && !y) || (cJSON_IsNumber(x) && cJSON_IsNumber(y) && x->valuedouble == y->valuedouble);
}

/* 1 if the predicted times of p[0..n) never turn: none rising after one fell, none falling after
   one rose. */
static int monotone(const cgp_prediction *p, int n) {
  int up = 0, down = 0;
  for (int i = 1; i < n; i++) {
    up |= p[i].time_ms > p[i - 1].time_ms;
    down |= p[i].time_ms < p[i - 1].time_ms;
  }
  return !(up && down);
}

/* A sample whose launch found an L2 the run did not know (it ran after another kernel's untraced
   launch) names a later analysed launch of its grid that stands in for it (`stand_in`, written by
   runtime/cgp_rt_report.c; docs/model.md 5b): it takes that one's analysis. A name that matches no
   later sample changes nothing. */
static void stand_ins(const cJSON *samples, cgp_kernel_stats *st, cgp_prediction *p) {
  int i = 0;
  for (const cJSON *s = samples->child; s; s = s->next, i++) {
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(s, "stand_in");
    if (!cJSON_IsNumber(in)) continue;
    int j = i + 1;
    for (const cJSON *t = s->next; t; t = t->next, j++)
      if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "launch")) == in->valuedouble) {
        st[i] = st[j];
        p[i] = p[j];
        break;
      }
  }
}

/* Sum the samples' predictions, each standing for the launches up to the next (launch_grids_time),
   from each sample's `key` ("analysis", or "analysis_tiled": the what-if tiling's, docs/model.md
   8c). Samples come in launch order. The launches between two analysed ones are interpolated
   between them where the two are close, as the runtime places them once launches differ (launch n
   and n + cgp_dense_step(n)), and the analysed launches' times around them (the one
   before, the two, the one after) never turn: a drift, seen closely. Else the launches between are
   each the analysed one before them: where the times turn, one of the two is unlike its
   neighbours (the first launch of a time step after other kernels, its L2 cold), which must not
   spread over them; where the two lie far apart (the doubling schedule, launch n and 2n + 1), a
   straight line over half the launches knows no more than the step (docs/model.md 5b). */
static int predict_kernel_of(const cJSON *kernel, const char *key, const cgp_device *dev, kernel_total *t,
                             double (*edit)(cgp_kernel_stats *), char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  const cJSON *samples = cJSON_GetObjectItemCaseSensitive(kernel, "samples"), *s;
  int n = cJSON_GetArraySize(samples), i = 0;
  if (n <= 0) return 0;
  cgp_kernel_stats *st = calloc((size_t)n, sizeof *st);
  cgp_prediction *p = calloc((size_t)n, sizeof *p);
  int rc = st && p ? 0 : (snprintf(err, errlen, "out of memory"), -1);
  for (s = samples->child; s && rc == 0; s = s->next, i++)
    rc = sample_stats(kernel, s, key, dev, edit, &st[i], &p[i], err, errlen);
  stand_ins(samples, st, p);
  for (s = samples->child, i = 0; s && rc == 0; s = s->next, i++) {
    double w = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "weight"));
    int lo = i > 0 ? i - 1 : 0, hi = i + 2 < n ? i + 2 : n - 1;
    double at = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "launch"));
    double gap = s->next ? cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s->next, "launch")) - at : 0;
    int drift = gap > 1 && gap <= (double)cgp_dense_step(at > 0 ? (uint64_t)at : 0) && monotone(&p[lo], hi - lo + 1) &&
                same_shape(s, s->next);
    double time = w * p[i].time_ms, cycles = w * p[i].cycles;
    char e[256];
    if (launch_grids_time(s, dev, &st[i], drift ? s->next : NULL, drift ? &st[i + 1] : NULL, drift ? gap : 0, &time,
                          &cycles, e, sizeof e) != 0) {
      snprintf(err, errlen, "device '%s': %s", dev->name, e);
      rc = -1;
      break;
    }
    t->time_ms += time;
    t->cycles += cycles;
    t->launches += w;
    if (time >= t->rep_score) { t->rep_score = time; t->rep = p[i]; t->rep_stats = st[i]; }
  }
  free(st);
  free(p);
  return rc;
}

static int predict_kernel(const cJSON *kernel, const cgp_device *dev, kernel_total *t,
                          double (*edit)(cgp_kernel_stats *), char *err, size_t errlen) {
  return predict_kernel_of(kernel, "analysis", dev, t, edit, err, errlen);
}

/* What-if: the uncoalesced loads made coalesced (loop interchange or a transposed layout). Each
   moved instruction takes what one of the kernel's coalesced loads takes (its L1 units, L2
   transactions when no L1 caches globals, LSU wavefronts; 2 transactions and 1 wavefront if it has
   none) and keeps the reuse it had: the fraction of its L1 units that hit (the same threads read
   the same elements, now in fewer lines) and of its L2 transactions that missed. Class 1 is then
   the instruction-weighted mean of the coalesced loads and the moved ones. */
double cgp_whatif_coalesce(cgp_kernel_stats *s) { return cgp_whatif_coalesce_share(s, 1.0); }

double cgp_whatif_coalesce_share(cgp_kernel_stats *s, double share) {
  if (s->insts[2] <= 0 || !(share > 0)) return 0;
  if (share > 1) share = 1;
  double n1 = s->insts[1], n2 = share * s->insts[2], n = n1 + n2, left = s->insts[2] - n2;
  int have1 = n1 > 0;
  double units = have1 && s->l1_trans_pw[1] > 0 ? s->l1_trans_pw[1] : (s->l1_trans_pw[2] > 0 ? 4.0 : 0.0);
  double l1_hit = s->l1_trans_pw[2] > 0 ? s->l1_hit_pw[2] / s->l1_trans_pw[2] : 0;
  double miss_rate = s->trans_pw[2] > 0 ? s->dram_pw[2] / s->trans_pw[2] : 0;
  /* L2 transactions of a moved load: its L1 misses when there is an L1, else a coalesced load's */
  double tr = units > 0 ? units * (1.0 - l1_hit) : (have1 ? s->trans_pw[1] : 2.0);
  double wf_u = s->ld_wavefronts_pw[2] > 0 ? s->ld_wavefronts_pw[2] : fmax(s->trans_pw[2], 1.0);
  double wf_c = have1 && s->ld_wavefronts_pw[1] > 0 ? s->ld_wavefronts_pw[1] : 1.0;
  s->lsu_wavefronts = fmax(s->lsu_wavefronts - n2 * fmax(wf_u - wf_c, 0.0), 0.0);
  s->ld_wavefronts_pw[1] = wf_c;
  s->trans_pw[1] = (n1 * s->trans_pw[1] + n2 * tr) / n;
  s->dram_pw[1] = (n1 * s->dram_pw[1] + n2 * tr * miss_rate) / n;
  s->l1_trans_pw[1] = (n1 * s->l1_trans_pw[1] + n2 * units) / n;
  s->l1_hit_pw[1] = (n1 * s->l1_hit_pw[1] + n2 * units * l1_hit) / n;
  /* the moved loads' lookups merge with DRAM fills as often as the uncoalesced ones' did */
  double merged = s->l1_trans_pw[2] > 0 ? s->merged_dram_pw[2] / s->l1_trans_pw[2] : 0;
  s->merged_dram_pw[1] = (n1 * s->merged_dram_pw[1] + n2 * units * merged) / n;
  s->insts[1] = n;
  s->insts[2] = left;                   /* the rest keep their per-instruction figures */
  s->overlap_insts[1] += share * s->overlap_insts[2];
  s->overlap_insts[2] -= share * s->overlap_insts[2];
  if (left <= 0) {
    s->insts[2] = s->overlap_insts[2] = 0;
    s->trans_pw[2] = s->dram_pw[2] = s->l1_trans_pw[2] = s->l1_hit_pw[2] = s->ld_wavefronts_pw[2] = 0;
    s->merged_dram_pw[2] = 0;
  }
  return 1;
}

/* "a, b" of the strings of array a (at most about n bytes). */
static void join_names(const cJSON *a, char *out, size_t n) {
  const cJSON *e;
  size_t at = 0;
  out[0] = '\0';
  cJSON_ArrayForEach(e, a) {
    const char *s = cJSON_GetStringValue(e);
    if (!s || at + 8 >= n) break;
    at += (size_t)snprintf(out + at, n - at, "%s%.40s", at ? ", " : "", s);
    if (at >= n) at = n - 1;
  }
}

/* Tiling in shared memory, from the what-if tiling the run analysed (docs/model.md 8c): offered
   when every sample has it for the device and it predicts a gain of 1 % or more. */
static void add_tiling_suggestion(cJSON *sug, const cJSON *kernel, const cgp_device *dev, const kernel_total *base) {
  const cJSON *wi = cJSON_GetObjectItemCaseSensitive(kernel, "tiling_whatif");
  kernel_total t;
  char err[512];
  if (!cJSON_IsObject(wi) || predict_kernel_of(kernel, "analysis_tiled", dev, &t, NULL, err, sizeof err) != 0 ||
      !(t.time_ms > 0 && t.time_ms < 0.99 * base->time_ms))
    return;
  char sh[200], acc[200], kept[200], regs[300] = "", text[1000];
  join_names(cJSON_GetObjectItemCaseSensitive(wi, "shared"), sh, sizeof sh);
  /* the registers: the accumulators (written; before schema 1.8 every one was taken as one), and
     the values read alone, loaded once before the tile loop */
  const cJSON *accumulated = cJSON_GetObjectItemCaseSensitive(wi, "accumulated"), *r;
  cJSON *read_only = cJSON_CreateArray();
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(wi, "registers")) {
    int written = !accumulated;
    const cJSON *a;
    cJSON_ArrayForEach(a, accumulated) written |= !strcmp(cJSON_GetStringValue(a), cJSON_GetStringValue(r));
    if (!written) cJSON_AddItemToArray(read_only, cJSON_CreateString(cJSON_GetStringValue(r)));
  }
  join_names(accumulated ? accumulated : cJSON_GetObjectItemCaseSensitive(wi, "registers"), acc, sizeof acc);
  join_names(read_only, kept, sizeof kept);
  cJSON_Delete(read_only);
  if (acc[0]) snprintf(regs, sizeof regs, "; accumulate %s in a register", acc);
  if (kept[0])
    snprintf(regs + strlen(regs), sizeof regs - strlen(regs), "; keep %s in a register, loaded once before the tile "
             "loop", kept);
  unsigned tile = (unsigned)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(wi, "tile"));
  int line = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(wi, "loop_line"));
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(wi, "kind"));
  int pad = kind && !strcmp(kind, "pad");
  if (pad)
    snprintf(text, sizeof text, "pad the shared tiles of %s by one element a row (shared(%s pad(1)) in the pragma; "
             "in CUDA, declare the tile [%u][%u + 1]) so a column is read without bank conflicts: %.3g ms instead of "
             "%.3g ms (%u bytes of shared memory a block)",
             sh, sh, tile, tile, t.time_ms, base->time_ms, t.rep_stats.smem_per_block);
  else
    snprintf(text, sizeof text, "tile the loop at line %d by %u with %s in shared memory (a tile loop `for (kk = 0; "
             "kk < n; kk += %u)` around it, and shared(%s) tile(%u) in the pragma%s): %.3g ms instead of %.3g ms "
             "(%u bytes of shared memory a block)",
             line, tile, sh, tile, sh, tile, regs, t.time_ms, base->time_ms, t.rep_stats.smem_per_block);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "change", text);
  cJSON_AddStringToObject(o, "kind", pad ? "pad" : "tile");
  cJSON_AddNumberToObject(o, "predicted_ms", t.time_ms);
  cJSON_AddNumberToObject(o, "speedup", base->time_ms / t.time_ms);
  cJSON_AddItemToArray(sug, o);
}

/* The block shape: the fastest of the shapes `cgpredict blocks` ran (the kernel's block_whatif,
   docs/model.md 8d) on this device, offered when it gains 1 % or more. */
static void add_block_suggestion(cJSON *sug, const cJSON *kernel, const cgp_device *dev, const kernel_total *base) {
  const cJSON *w, *best = NULL;
  double best_ms = 0;
  cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(kernel, "block_whatif")) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(w, "time_ms"), dev->name);
    if (cJSON_IsNumber(t) && t->valuedouble > 0 && (!best || t->valuedouble < best_ms)) {
      best = w;
      best_ms = t->valuedouble;
    }
  }
  if (!best || !(best_ms < 0.99 * base->time_ms)) return;
  unsigned b[3];
  for (int i = 0; i < 3; i++) b[i] = (unsigned)cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(best, "block"), i));
  int dims = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(kernel, "dims"));
  char shape[48], pragma[48], text[400];
  if (dims >= 3) { snprintf(shape, sizeof shape, "%ux%ux%u", b[0], b[1], b[2]); snprintf(pragma, sizeof pragma, "%u,%u,%u", b[0], b[1], b[2]); }
  else if (dims == 2) { snprintf(shape, sizeof shape, "%ux%u", b[0], b[1]); snprintf(pragma, sizeof pragma, "%u,%u", b[0], b[1]); }
  else { snprintf(shape, sizeof shape, "%u", b[0]); snprintf(pragma, sizeof pragma, "%u", b[0]); }
  snprintf(text, sizeof text, "launch it in blocks of %s threads (block(%s) in the pragma; dim3 block(%s) in CUDA): "
           "%.3g ms instead of %.3g ms", shape, pragma, pragma, best_ms, base->time_ms);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "change", text);
  cJSON_AddStringToObject(o, "kind", "block");
  cJSON_AddNumberToObject(o, "predicted_ms", best_ms);
  cJSON_AddNumberToObject(o, "speedup", base->time_ms / best_ms);
  cJSON_AddItemToArray(sug, o);
}

/* Is making the uncoalesced loads coalesced worth saying? Only where one of them moves at least twice
   the bytes its lanes read (sector_bytes_per_warp_instruction against active lanes x size): a warp
   split over two or three rows by a narrow block (stencil3d in 16x8x2 blocks: 2.9 lines of 64 B
   for 105 bytes) is near its minimum already, and the what-if, which gives the moved
   loads a coalesced load's cost, promised a gain that following it (block(32,8,1)) did not give
   (issue 30 item 6). A report without the field (older) keeps the suggestion. */
static int is_uncoalesced_load(const cJSON *m) {
  const char *cls = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "class"));
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "kind"));
  return cls && strcmp(cls, "uncoalesced") == 0 && kind && strcmp(kind, "load") == 0;
}

/* A gather: a site indexed by data it loads (the pass's index_loaded: x[col[j]]), or one whose
   uncoalesced instructions mostly follow no stride of the thread index (the run's
   uncoalesced_on_thread_stride below one half: a binary search's probes, a table row picked at
   random), whose addresses the data chooses. */
static int is_gather(const cJSON *m) {
  const cJSON *on = cJSON_GetObjectItemCaseSensitive(m, "uncoalesced_on_thread_stride");
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "index_loaded")) || (cJSON_IsNumber(on) && on->valuedouble < 0.5);
}

/* Of the uncoalesced loads' warp instructions, the share that a loop interchange or a transposed
   array could make coalesced: all but the gathers'. 1 for a report whose sites say nothing. */
static double movable_share(const cJSON *kernel) {
  const cJSON *m;
  double all = 0, gathers = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(kernel, "memory")) {
    if (!is_uncoalesced_load(m)) continue;
    double n = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "warp_instructions_traced"));
    if (!(n > 0)) continue;
    all += n;
    if (is_gather(m)) gathers += n;
  }
  return all > 0 ? (all - gathers) / all : 1;
}

static int coalescing_pays(const cJSON *kernel) {
  const cJSON *m;
  int known = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(kernel, "memory")) {
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(m, "sector_bytes_per_warp_instruction");
    if (!is_uncoalesced_load(m) || is_gather(m)) continue;
    double lanes = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "active_lanes_per_warp_instruction"));
    double size = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "size"));
    if (!cJSON_IsNumber(sec) || !(sec->valuedouble > 0) || !(lanes * size > 0)) return 1;
    known = 1;
    if (sec->valuedouble >= 2 * lanes * size) return 1;
  }
  return !known;
}

/* The uncoalesced loads that are gathers (gathers 1) or not, as "x (line 99), y (line 12)": at most
   three, each array once; "" if none. */
static void uncoalesced_loads(const cJSON *kernel, int gathers, char *out, size_t len) {
  const cJSON *m, *seen[3];
  size_t used = 0;
  int n = 0;
  out[0] = '\0';
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(kernel, "memory")) {
    if (!is_uncoalesced_load(m) || is_gather(m) != gathers || n == 3) continue;
    const char *array = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "array"));
    int again = 0;
    for (int i = 0; i < n && array; i++)
      again |= strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(seen[i], "array")), array) == 0;
    if (!array || !*array || again) continue;
    seen[n] = m;
    int w = snprintf(out + used, len - used, "%s%s (line %g)", n ? ", " : "", array,
                     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "line")));
    if (w < 0 || (size_t)w >= len - used) break;
    used += (size_t)w;
    n++;
  }
}

/* Where no coalescing suggestion names them (every uncoalesced load a gather: XSBench's lookups,
   NPB CG's rows of a CSR matrix), the summary says why none is offered, and what a CUDA port does
   instead (XSBench's sort the lookups; a sparse matrix-vector product takes ELL or a warp a row). */
static void gathers_note(FILE *f, const cJSON *k) {
  char g[200];
  uncoalesced_loads(k, 1, g, sizeof g);
  if (!g[0]) return;
  const cJSON *p, *s;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions"))
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(p, "suggestions")) {
      const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "kind"));
      if (kind && strcmp(kind, "coalesce") == 0) return;
    }
  fprintf(f, "    note: the uncoalesced loads of %s are gathers (their addresses follow the data, not the thread "
             "index): no loop interchange coalesces them; reordering the data can (sorted keys, a padded "
             "column-major layout such as ELL for a sparse matrix's rows; not predicted)\n", g);
}

/* cgp_whatif_coalesce_share with the share of the kernel being suggested for (add_suggestions). */
static double coalesce_share;
static double whatif_coalesce_movable(cgp_kernel_stats *s) { return cgp_whatif_coalesce_share(s, coalesce_share); }

static void add_suggestions(cJSON *pred, const cJSON *kernel, const cgp_device *dev, const kernel_total *base) {
  cJSON *sug = cJSON_AddArrayToObject(pred, "suggestions");
  kernel_total t;
  char err[512];
  /* offered only when it predicts a gain (1 % or more); gathers stay as they are (docs/model.md 8c) */
  coalesce_share = movable_share(kernel);
  if (base->rep_stats.insts[2] > 0 && coalesce_share > 0 && coalescing_pays(kernel) &&
      predict_kernel(kernel, dev, &t, whatif_coalesce_movable, err, sizeof err) == 0 &&
      t.time_ms > 0 && t.time_ms < 0.99 * base->time_ms) {
    cJSON *o = cJSON_CreateObject();
    char text[800], moved[200], gathers[200];
    uncoalesced_loads(kernel, 0, moved, sizeof moved);
    uncoalesced_loads(kernel, 1, gathers, sizeof gathers);
    snprintf(text, sizeof text, "make the uncoalesced loads%s%s coalesced (interchange the loops or transpose "
             "the array so consecutive threads touch consecutive elements): %.3g ms instead of %.3g ms%s%s%s",
             moved[0] ? " of " : "", moved, t.time_ms, base->time_ms,
             gathers[0] ? "; the loads of " : "", gathers,
             gathers[0] ? " are gathers (their addresses follow the data, not the thread index), which no interchange "
                          "coalesces: left as they are" : "");
    cJSON_AddStringToObject(o, "change", text);
    cJSON_AddStringToObject(o, "kind", "coalesce");
    cJSON_AddNumberToObject(o, "predicted_ms", t.time_ms);
    cJSON_AddNumberToObject(o, "speedup", base->time_ms / t.time_ms);
    cJSON_AddItemToArray(sug, o);
  }
  add_tiling_suggestion(sug, kernel, dev, base);
  add_block_suggestion(sug, kernel, dev, base);
}

/* The real-GPU mechanisms a device file states no number for (docs/model.md sections 7b, 9b): on
   that device, a kernel they would bound comes out too fast. */
static void add_not_modelled(cJSON *pred, const cgp_device *d) {
  cJSON *a = cJSON_AddArrayToObject(pred, "not_modelled");
  if (!(d->launch_overhead_cycles > 0)) cJSON_AddItemToArray(a, cJSON_CreateString("launch floor"));
  if (!(d->l2_read_bandwidth_bytes_per_s > 0)) cJSON_AddItemToArray(a, cJSON_CreateString("L2 read bandwidth"));
  if (!(d->l2_write_bandwidth_bytes_per_s > 0)) cJSON_AddItemToArray(a, cJSON_CreateString("L2 write bandwidth"));
  if (!(d->host_sync_launch_s > 0)) cJSON_AddItemToArray(a, cJSON_CreateString("host synchronisation cost"));
}

int cgp_report_has_time(const cJSON *prediction) {
  return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(prediction, "time_ms"));
}

/* 1 if the run lost every warp of the kernel it would have analysed for device `dev`: the kernel is
   partial (the report's memory_note: an allocation failed) and no sample was kept though it was
   launched, or every sample with warps analysed none of them. Its time would read 0 ms, as if the
   kernel took none. An empty grid (a sample of no warp) is predicted: its launches cost what a
   launch costs. */
static int none_analysed(const cJSON *kernel, const char *dev) {
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(kernel, "partial"))) return 0;
  const cJSON *samples = cJSON_GetObjectItemCaseSensitive(kernel, "samples"), *s;
  if (cJSON_GetArraySize(samples) == 0) return cgp_json_num(kernel, "launches", 0) > 0;
  cJSON_ArrayForEach(s, samples) {
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "analysis"), dev);
    if (!(cgp_json_num(s, "total_warps", 0) > 0) || !an || cgp_json_num(an, "total_warps", 0) > 0) return 0;
  }
  return 1;
}

int cgp_report_predict(cJSON *report, const cgp_device *devs, size_t ndev, char *err, size_t errlen) {
  cJSON *kernel;
  cJSON_ArrayForEach(kernel, cJSON_GetObjectItemCaseSensitive(report, "kernels")) {
    cJSON_DeleteItemFromObjectCaseSensitive(kernel, "predictions");
    cJSON *preds = cJSON_AddArrayToObject(kernel, "predictions");
    for (size_t d = 0; d < ndev; d++) {
      if (none_analysed(kernel, devs[d].name)) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "device", devs[d].name);
        cJSON_AddStringToObject(p, "note", "no time: the run ran out of memory before it kept a warp of this kernel "
                                           "(its memory_note); run it with more memory or a smaller input");
        cJSON_AddItemToArray(preds, p);
        continue;
      }
      kernel_total t;
      if (predict_kernel(kernel, &devs[d], &t, NULL, err, errlen) != 0) return -1;
      cJSON *p = cJSON_CreateObject();
      cJSON_AddStringToObject(p, "device", devs[d].name);
      cJSON_AddNumberToObject(p, "time_ms", t.time_ms);
      cJSON_AddNumberToObject(p, "cycles", t.cycles);
      cJSON_AddNumberToObject(p, "launch_ms", t.rep.time_ms);
      cJSON_AddNumberToObject(p, "launches", t.launches);
      cJSON_AddNumberToObject(p, "host_sync_ms", cgp_host_sync_ms(&devs[d], t.launches));
      add_not_modelled(p, &devs[d]);
      cJSON_AddNumberToObject(p, "mwp", t.rep.mwp);
      cJSON_AddNumberToObject(p, "cwp", t.rep.cwp);
      cJSON_AddNumberToObject(p, "n", t.rep.N);
      cJSON_AddNumberToObject(p, "b", t.rep.B);
      cJSON_AddNumberToObject(p, "batch", (double)t.rep.batch);
      cJSON_AddStringToObject(p, "bound", t.rep.bound ? t.rep.bound : "none");
      cJSON_AddItemToObject(p, "detail", prediction_detail(&t.rep));
      add_suggestions(p, kernel, &devs[d], &t);
      cJSON_AddItemToArray(preds, p);
    }
  }
  return cgp_report_offload(report, devs, ndev);
}

size_t cgp_report_devices(const cJSON *report, char ***names) {
  *names = NULL;
  size_t n = 0;
  /* the first sample's analysis; with no sample kept (out of memory), the GPUs the first kernel
     was predicted for */
  const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "kernels"), 0);
  const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k, "samples"), 0);
  const cJSON *d, *from = s ? cJSON_GetObjectItemCaseSensitive(s, "analysis") : cJSON_GetObjectItemCaseSensitive(k, "predictions");
  cJSON_ArrayForEach(d, from) {
    const char *name = s ? d->string : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "device"));
    if (!s && cgp_report_is_fpga(d)) continue;
    char **bigger = realloc(*names, (n + 1) * sizeof **names);
    char *copy = name ? strdup(name) : NULL;
    if (!bigger || !copy) {                /* out of memory: the names so far */
      free(copy);
      if (bigger) *names = bigger;
      break;
    }
    *names = bigger;
    (*names)[n++] = copy;
  }
  return n;
}

/* ---- files ------------------------------------------------------------------------------------ */

int cgp_report_write(const cJSON *report, const char *path, char *err, size_t errlen) {
  char *text = cJSON_Print(report);
  if (!text) { snprintf(err, errlen, "cannot write report '%s': out of memory formatting it", path); return -1; }
  size_t n = strlen(text);
  text[n] = '\n';                        /* the NUL becomes the final newline; length is known */
  char e[4400];
  int rc = cgp_write_file_atomic(path, text, n + 1, e, sizeof e);
  cJSON_free(text);
  if (rc != 0) {              /* "cannot write 'p': why" -> "cannot write report 'p': why" */
    const char *rest = strncmp(e, "cannot write ", 13) == 0 ? e + 13 : e;
    snprintf(err, errlen, "cannot write report %s", rest);
  }
  return rc;
}

/* cJSON says NULL both for bad JSON and for a failed allocation: count the failures. */
static int parse_oom;
static void *parse_malloc(size_t n) {
  void *p = malloc(n);
  if (!p) parse_oom = 1;
  return p;
}

static void text_position(const char *text, const char *at, unsigned *line, unsigned *col) {
  *line = 1;
  *col = 1;
  for (const char *p = text; p < at && *p; p++) {
    if (*p == '\n') { (*line)++; *col = 1; }
    else if (((unsigned char)*p & 0xC0) != 0x80) (*col)++;   /* columns count characters */
  }
}

/* Every kernel has a name and samples whose weight and per-device stats the model can use. */
static int check_kernels(const cJSON *r, const char *name, char *err, size_t errlen) {
  const cJSON *k;
  int ki = 0;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(r, "kernels")) {
    const cJSON *kn = cJSON_GetObjectItemCaseSensitive(k, "name");
    if (!cJSON_IsObject(k) || !cJSON_IsString(kn)) {
      snprintf(err, errlen, "%s: kernels[%d]: field \"name\": expected a string", name, ki);
      return -1;
    }
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(k, "samples");
    if (!cJSON_IsArray(samples)) {
      snprintf(err, errlen, "%s: kernel '%s': field \"samples\": expected an array", name, kn->valuestring);
      return -1;
    }
    const cJSON *s;
    int si = 0;
    cJSON_ArrayForEach(s, samples) {
      char e[512];
      const cJSON *an = cJSON_GetObjectItemCaseSensitive(s, "analysis");
      if (check_range(cJSON_GetObjectItemCaseSensitive(s, "weight"), "weight", -1, CGP_REPORT_MAX_TOTAL, e, sizeof e) != 0) {
        snprintf(err, errlen, "%s: kernel '%s', samples[%d]: %s", name, kn->valuestring, si, e);
        return -1;
      }
      if (!cJSON_IsObject(an)) {
        snprintf(err, errlen, "%s: kernel '%s', samples[%d]: field \"analysis\": expected an object", name,
                 kn->valuestring, si);
        return -1;
      }
      const cJSON *d;
      cJSON_ArrayForEach(d, an) {
        cgp_kernel_stats st;
        if (!cJSON_IsObject(d) || cgp_report_stats_from_json(d, &st, e, sizeof e) != 0) {
          snprintf(err, errlen, "%s: kernel '%s', samples[%d], device '%s': %s", name, kn->valuestring, si,
                   d->string, cJSON_IsObject(d) ? e : "expected an object");
          return -1;
        }
      }
      si++;
    }
    ki++;
  }
  return 0;
}

/* "cgpredict-report/1" or "cgpredict-report/1.<digits>": a MAJOR this cgpredict reads. */
static int same_major(const char *v) {
  size_t n = strlen(CGP_REPORT_SCHEMA_MAJOR);
  if (strncmp(v, CGP_REPORT_SCHEMA_MAJOR, n) != 0) return 0;
  if (v[n] == '\0') return 1;
  return v[n] == '.' && v[n + 1] && strspn(v + n + 1, "0123456789") == strlen(v + n + 1);
}

int cgp_report_parse(const char *text, size_t len, const char *name, cJSON **report, char *err, size_t errlen) {
  *report = NULL;
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    unsigned line, col;
    text_position(text, nul, &line, &col);
    snprintf(err, errlen, "%s:%u:%u: not valid JSON: a NUL byte", name, line, col);
    return -1;
  }
  cJSON_Hooks hooks = {parse_malloc, free};
  const char *end = NULL;
  parse_oom = 0;
  cJSON_InitHooks(&hooks);
  cJSON *r = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  cJSON_InitHooks(NULL);
  if (parse_oom) {
    cJSON_Delete(r);
    snprintf(err, errlen, "%s: out of memory while parsing (%zu bytes of JSON)", name, len);
    return -1;
  }
  if (r && end) {                          /* only white space may follow the value */
    while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
    if (end < text + len) { cJSON_Delete(r); r = NULL; }
  }
  if (!r) {
    unsigned line, col;
    const char *at = end ? end : cJSON_GetErrorPtr();
    if (!at || at < text || at > text + len) at = text;
    text_position(text, at, &line, &col);
    snprintf(err, errlen, "%s:%u:%u: not valid JSON", name, line, col);
    return -1;
  }
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "version");
  if (!cJSON_IsString(v) || !same_major(v->valuestring)) {
    if (cJSON_IsString(v) && strncmp(v->valuestring, "cgpredict-report/", 17) == 0)
      snprintf(err, errlen, "%s: field \"version\": a report of schema %.40s, which this cgpredict (schema %s) cannot "
               "read: only %s.x reports; use the cgpredict that wrote it", name, v->valuestring, CGP_REPORT_SCHEMA,
               CGP_REPORT_SCHEMA_MAJOR);
    else
      snprintf(err, errlen, "%s: field \"version\": not a cgpredict report of schema %s", name, CGP_REPORT_SCHEMA);
    cJSON_Delete(r);
    return -1;
  }
  if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "kernels"))) {
    snprintf(err, errlen, "%s: field \"kernels\": expected an array", name);
    cJSON_Delete(r);
    return -1;
  }
  if (check_kernels(r, name, err, errlen) != 0) {
    cJSON_Delete(r);
    return -1;
  }
  *report = r;
  return 0;
}

int cgp_report_load(const char *path, cJSON **report, char *err, size_t errlen) {
  char *text;
  size_t len;
  *report = NULL;
  if (cgp_read_regular_file(path, CGP_FILE_CAP_BYTES, &text, &len, err, errlen) != 0) return -1;
  int rc = cgp_report_parse(text, len, path, report, err, errlen);
  free(text);
  return rc;
}

/* ---- the table -------------------------------------------------------------------------------- */

/* Class mix and L2 hit rate of a kernel on a device, from the same samples, weighted the same way,
   as its predicted time: each sample counts its launches (weight) times its warps. */
static void class_shares(const cJSON *kernel, const char *dev, double share[3], double *hit) {
  double insts[3] = {0}, tr = 0, miss = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(kernel, "samples")) {
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "analysis"), dev);
    cgp_kernel_stats st;
    char e[128];
    if (!an || cgp_report_stats_from_json(an, &st, e, sizeof e) != 0) continue;
    double w = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "weight")) * (double)st.total_warps;
    if (!(w > 0)) continue;
    for (int c = 0; c < 3; c++) {
      insts[c] += w * st.insts[c];
      tr += w * st.insts[c] * st.trans_pw[c];
      miss += w * st.insts[c] * st.dram_pw[c];
    }
  }
  double n = insts[0] + insts[1] + insts[2];
  for (int c = 0; c < 3; c++) share[c] = n > 0 ? 100.0 * insts[c] / n : 0;
  *hit = tr > 0 ? 100.0 * (1.0 - miss / tr) : 0;
}


/* A kernel the launch floor binds on one device, beside devices whose file models no launch cost
   (docs/model.md section 7b): the latter show it too fast. */
static void launch_note(FILE *f, const cJSON *k) {
  const cJSON *p, *q;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
    const char *bound = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "bound"));
    if (!bound || strcmp(bound, "launch_overhead") != 0) continue;
    char others[256] = "";
    size_t used = 0;
    cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(k, "predictions"))
      if (!cgp_report_is_fpga(q) && cgp_report_has_time(q) &&
          !(cgp_json_num(cJSON_GetObjectItemCaseSensitive(q, "detail"), "launch_cycles", NAN) > 0) &&
          used < sizeof others)
        used += (size_t)snprintf(others + used, sizeof others - used, "%s%s", used ? ", " : "",
                                 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(q, "device")));
    double launches = cgp_json_num(p, "launches", NAN);
    double per = launches > 0 ? cgp_json_num(p, "time_ms", NAN) / launches * 1e3 : 0;
    fprintf(f, "    note: on %s the launch's fixed cost binds (%.2f us a launch in all)", 
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device")), per);
    if (*others) fprintf(f, "; %s model%s no launch cost (none measured) and show this kernel too fast",
                         others, strchr(others, ',') ? "" : "s");
    fprintf(f, "\n");
    return;
  }
}

/* Devices that leave out a mechanism another device of the report models: comparing them, the
   former look faster than they are where that mechanism binds. */
static void not_modelled_note(FILE *f, const cJSON *report) {
  const cJSON *k0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "kernels"), 0), *p, *q, *m;
  const cJSON *preds = cJSON_GetObjectItemCaseSensitive(k0, "predictions");
  cJSON_ArrayForEach(p, preds) {
    char list[256] = "";
    size_t used = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(p, "not_modelled")) {
      int other_has = 0;                            /* another device models it */
      cJSON_ArrayForEach(q, preds) {
        if (cgp_report_is_fpga(q) || !cgp_report_has_time(q)) continue;
        int lacks = 0;
        const cJSON *n;
        cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(q, "not_modelled"))
          lacks |= strcmp(cJSON_GetStringValue(n), cJSON_GetStringValue(m)) == 0;
        other_has |= !lacks;
      }
      if (other_has && used < sizeof list)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", cJSON_GetStringValue(m));
    }
    if (used)
      fprintf(f, "  note, %s: its file has no measured %s (benchmarks/microbench has not run on it), which other "
              "devices here model: where they bind, it looks faster than it is\n",
              cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device")), list);
  }
}

/* Per device, what a program that synchronises after every launch pays on the host. */
static void host_sync_note(FILE *f, const cJSON *report) {
  const cJSON *k0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "kernels"), 0), *p0;
  cJSON_ArrayForEach(p0, cJSON_GetObjectItemCaseSensitive(k0, "predictions")) {
    const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p0, "device"));
    double ms = 0, launches = 0;
    const cJSON *k, *p;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(report, "kernels"))
      cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions"))
        if (dev && strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device")), dev) == 0) {
          ms += cgp_json_num(p, "host_sync_ms", 0);            /* none: an FPGA's, or no time */
          launches += cgp_json_num(p, "launches", 0);
        }
    if (ms > 0)
      fprintf(f, "  host, %s: a program that synchronises after every launch (cudaDeviceSynchronize) adds %.3f ms "
              "(%.0f launches x %.2f us), not in the times above\n", dev, ms, launches, ms / launches * 1e3);
  }
}

/* The widest kernel and device names of the report (at least the headers' 14), so that long names
   keep the columns. */
static void name_widths(const cJSON *report, int *kw, int *dw) {
  *kw = *dw = 14;
  const cJSON *k, *p;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(report, "kernels")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name"));
    if (name && (int)strlen(name) > *kw) *kw = (int)strlen(name);
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
      const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device"));
      if (dev && (int)strlen(dev) > *dw) *dw = (int)strlen(dev);
    }
  }
  if (*kw > 200) *kw = 200;
  if (*dw > 64) *dw = 64;
}

void cgp_report_fpga_text(const cJSON *p, char *buf, size_t cap) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "time_ms");
  if (!cJSON_IsNumber(t) || cJSON_GetObjectItemCaseSensitive(p, "from_hls")) {
    snprintf(buf, cap, "FPGA: %s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "note")));
    return;
  }
  const cJSON *off = cJSON_GetObjectItemCaseSensitive(p, "offchip");
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "estimate"), "resources");
  char cm[32], om[32];
  cgp_report_format_ms(cm, sizeof cm, cgp_json_num(p, "compute_ms", NAN));
  cgp_report_format_ms(om, sizeof om, cgp_json_num(off, "ms", NAN));
  snprintf(buf, cap, "FPGA: %s; compute %s ms, off-chip %s ms (%.0f B, %s); DSP %.0f, BRAM18K %.0f + %.0f for the data%s",
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "design")), cm, om,
           cgp_json_num(off, "bytes_read", NAN) + cgp_json_num(off, "bytes_written", NAN),
           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(off, "buffered")) ? "copied in, then out"
                                                                              : "streamed: too large for block RAM",
           cgp_json_num(res, "dsp", NAN), cgp_json_num(res, "bram18k", NAN), cgp_json_num(off, "buffer_bram18k", NAN),
           cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(res, "fits")) ? ", does NOT fit the device" : "");
}

/* An FPGA's line of the summary: its time, then what it is made of (docs/model.md 11.14). */
static void fpga_line(FILE *f, int kw, const char *name, int dw, const char *dev, const cJSON *p) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "time_ms");
  char ms[32] = "?", text[2048];
  if (cJSON_IsNumber(t)) cgp_report_format_ms(ms, sizeof ms, t->valuedouble);
  cgp_report_fpga_text(p, text, sizeof text);
  fprintf(f, "  %-*s %-*s %11s  %s\n", kw, name, dw, dev, ms, text);
}

/* With GPUs and FPGAs predicted: the faster kind for this kernel, in numbers. */
static void fastest_line(FILE *f, const cJSON *k) {
  const cJSON *p, *best[2] = {NULL, NULL};             /* [0] GPU, [1] FPGA */
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
    int fp = cgp_report_is_fpga(p);
    if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(p, "time_ms"))) continue;
    if (!best[fp] || cgp_json_num(p, "time_ms", NAN) < cgp_json_num(best[fp], "time_ms", NAN)) best[fp] = p;
  }
  if (!best[0] || !best[1]) return;
  int w = cgp_json_num(best[1], "time_ms", NAN) < cgp_json_num(best[0], "time_ms", NAN);
  double fast = cgp_json_num(best[w], "time_ms", NAN), slow = cgp_json_num(best[!w], "time_ms", NAN);
  char a[32], b[32];
  cgp_report_format_ms(a, sizeof a, fast);
  cgp_report_format_ms(b, sizeof b, slow);
  fprintf(f, "    GPU or FPGA: %s, %s %s ms against %s %s %s ms (%.3gx)\n", w ? "the FPGA" : "the GPU",
          cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(best[w], "device")), a, w ? "the GPU" : "the FPGA",
          cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(best[!w], "device")), b, fast > 0 ? slow / fast : 0);
}

void cgp_report_print_summary(FILE *f, const cJSON *report, const char *path) {
  int kw, dw;
  name_widths(report, &kw, &dw);
  if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "kernels")) == 0) {
    const char *why = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "runtime"), "kernels_note"));
    fprintf(f, "cgpredict: %s (report: %s)\n", why ? why : "the report lists no kernel", path);
    return;
  }
  fprintf(f, "cgpredict: predicted time per kernel and device (report: %s)\n", path);
  fprintf(f, "  %-*s %-*s %11s  %-15s %7s %6s %4s %3s %7s  %-17s %6s\n", kw, "kernel", dw, "device", "time (ms)",
          "bound", "MWP", "CWP", "N", "B", "batch", "const/coal/uncoal", "L2 hit");
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(report, "kernels")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name"));
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
      const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device"));
      if (cgp_report_is_fpga(p)) {
        fpga_line(f, kw, name, dw, dev, p);
        continue;
      }
      if (!cgp_report_has_time(p)) {
        fprintf(f, "  %-*s %-*s %11s  %s\n", kw, name, dw, dev, "?",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "note")));
        continue;
      }
      double share[3], hit;
      class_shares(k, dev, share, &hit);
      char classes[40];
      snprintf(classes, sizeof classes, "%.0f/%.0f/%.0f %%", share[0], share[1], share[2]);
      char ms[32];
      cgp_report_format_ms(ms, sizeof ms, cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "time_ms")));
      fprintf(f, "  %-*s %-*s %11s  %-15s %7.2f %6.2f %4.0f %3.0f %7.0f  %-17s %5.1f%%\n", kw, name, dw, dev, ms,
              cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "bound")),
              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "mwp")),
              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "cwp")),
              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "n")),
              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "b")),
              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "batch")), classes, hit);
      const cJSON *s;
      cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(p, "suggestions"))
        fprintf(f, "    suggestion: %s\n", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "change")));
    }
    fastest_line(f, k);
    gathers_note(f, k);
    const cJSON *safe = cJSON_GetObjectItemCaseSensitive(k, "parallel_safe");
    if (cJSON_IsFalse(safe)) {
      int deps = 0, exits = 0, beyond = 0;
      const cJSON *d;
      cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(k, "dependences")) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "kind"));
        if (kind && strcmp(kind, "exit") == 0) exits++;
        else deps++;
        beyond += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "extrapolated"));
      }
      fprintf(f, "    not parallel as written: ");
      if (deps) fprintf(f, "%d dependence(s) between threads%s", deps, exits ? ", " : "");
      if (beyond)
        fprintf(f, " (%d not seen but extrapolated: the traced threads' addresses, carried to the whole grid, put "
                   "another thread on the same element)", beyond);
      if (exits) fprintf(f, "%d early exit(s) from a mapped loop", exits);
      fprintf(f, " (see \"dependences\" in the report); the time above is for the loop as if it were parallel\n");
    } else if (cJSON_IsTrue(safe) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                         cJSON_GetObjectItemCaseSensitive(k, "dependence_check"), "partial"))) {
      /* Parboil's sad: 1 warp traced before the budget, a race on a global scratch row unseen */
      fprintf(f, "    note: no dependence found, but the check stopped early (its bound on addresses or accesses, "
                 "the trace budget, or memory): threads it did not see may still conflict (\"dependence_check\" in the report)\n");
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(k, "benign_races")) {
      const cJSON *at = cJSON_GetObjectItemCaseSensitive(w, "first");
      const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(at, "array"));
      if (!name) name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(at, "variable"));
      fprintf(f, "    note: benign race on '%s' (%s:%g), every writer writing %s: parallel; in CUDA a plain store\n",
              name ? name : "?", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(at, "file")),
              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(at, "line")),
              cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "value")));
    }
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(k, "warnings"))
      fprintf(f, "    warning: %s\n", cJSON_GetStringValue(w));
    const cJSON *priv = cJSON_GetObjectItemCaseSensitive(k, "privatized");
    if (cJSON_GetArraySize(priv) > 0) {
      fprintf(f, "    note: private to each thread (declared outside the nest; each iteration writes it before reading it, "
                 "it counts a mapped loop, or OpenMP makes it private: a clause at the pragma, a parallel region "
                 "around it):");
      cJSON_ArrayForEach(w, priv) fprintf(f, " %s", cJSON_GetStringValue(w));
      fputc('\n', f);
    }
    const char *note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "sampling_note"));
    if (note) fprintf(f, "    note: %s\n", note);
    note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "memory_note"));
    if (note) fprintf(f, "    note: %s\n", note);
    note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "launch_sampling_note"));
    if (note) fprintf(f, "    note: %s\n", note);
    note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "l2_note"));
    if (note) fprintf(f, "    note: %s\n", note);
    note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "left_note"));
    if (note) fprintf(f, "    note: %s\n", note);
    launch_note(f, k);
  }
  host_sync_note(f, report);
  cgp_report_print_offload(f, report);
  not_modelled_note(f, report);
}
