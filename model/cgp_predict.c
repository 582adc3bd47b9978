/* cgp_predict.c: the model for one launch, from measured per-warp quantities to time, in the
   order of docs/model.md: occupancy (2), memory (5), computation (6), shared memory (8),
   MWP/CWP and cycles (7), Little's-law bound (9). */
#include "cgp_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every per-warp count must be a finite non-negative number; names the first that is not. */
static int check_stats(const cgp_kernel_stats *k, char *err, size_t errlen) {
  const struct { const char *name; const double *v; int n; } f[] = {
    {"insts", k->insts, 3}, {"trans_pw", k->trans_pw, 3}, {"dram_pw", k->dram_pw, 3},
    {"total_insts", &k->total_insts, 1}, {"core_insts", &k->core_insts, 1}, {"sync_insts", &k->sync_insts, 1},
    {"smem_insts", k->smem_insts, 3}, {"smem_conflict", k->smem_conflict, 3},
    {"smem_load_insts", &k->smem_load_insts, 1}, {"st_insts", &k->st_insts, 1}, {"st_trans_pw", &k->st_trans_pw, 1},
    {"st_dram_pw", &k->st_dram_pw, 1}, {"masked_slots", &k->masked_slots, 1}, {"l1_trans_pw", k->l1_trans_pw, 3},
    {"l1_hit_pw", k->l1_hit_pw, 3}, {"fp32_insts", &k->fp32_insts, 1}, {"fp64_insts", &k->fp64_insts, 1},
    {"lsu_wavefronts", &k->lsu_wavefronts, 1},
    {"overlap_insts", k->overlap_insts, 3}, {"merged_dram_pw", k->merged_dram_pw, 3},
    {"int_insts", &k->int_insts, 1}, {"sfu_insts", &k->sfu_insts, 1},
  };
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    for (int c = 0; c < f[i].n; c++)
      if (!isfinite(f[i].v[c]) || f[i].v[c] < 0) {
        snprintf(err, errlen, "kernel stats: field \"%s\"%s%s: expected a finite non-negative number, got %g",
                 f[i].name, f[i].n > 1 ? " " : "", f[i].n > 1 ? cgp_stats_class_name(c) : "", f[i].v[c]);
        return -1;
      }
  return 0;
}

/* Warps that overlap on one SM: B blocks' warps, at most `cap` (the warps that have an active
   thread), at least 1. */
static unsigned resident_warps(const cgp_device *d, const cgp_kernel_stats *k, unsigned B, uint64_t cap) {
  unsigned wpb = (k->threads_per_block + d->warp_size - 1) / d->warp_size;
  uint64_t n = (uint64_t)B * wpb;
  if (cap < n) n = cap;
  return n ? (unsigned)n : 1;
}

/* Active warps of B average blocks of the launch, ceil(B x total_warps / blocks). */
static uint64_t warps_of_blocks(const cgp_kernel_stats *k, uint64_t B) {
  return k->blocks ? (B * k->total_warps + k->blocks - 1) / k->blocks : 0;
}

/* Section 2. Blocks go round robin over the SMs, one per SM first: a round of at most
   B_max x no_sm blocks puts ceil(blocks_in_round / no_sm) on the busiest SM. Full rounds use
   B_max; a last partial round (tail) gets its own B and N. */
static int occupancy_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p, char *err,
                           size_t errlen) {
  unsigned bmax = cgp_active_blocks(d, k->threads_per_block, k->smem_per_block, k->regs_per_thread);
  if (!bmax) {
    snprintf(err, errlen, "%u threads a block (%u bytes of shared memory, %u registers a thread) do not fit on %s",
             k->threads_per_block, k->smem_per_block, k->regs_per_thread, d->name);
    return -1;
  }
  uint64_t per_round = cgp_round_blocks(d, bmax);
  p->batch = cgp_batches(d, k->blocks, bmax);
  if (k->blocks <= per_round) {
    uint64_t blocks_per_sm = (k->blocks + d->no_sm - 1) / d->no_sm;
    p->B = (unsigned)(blocks_per_sm ? blocks_per_sm : 1);
    p->N = resident_warps(d, k, p->B, warps_of_blocks(k, p->B));
  } else {
    p->B = bmax;
    p->N = resident_warps(d, k, p->B, (k->total_warps + d->no_sm - 1) / d->no_sm);
    p->tail_blocks = k->blocks % per_round;
    if (p->tail_blocks) {
      p->tail_B = (unsigned)((p->tail_blocks + d->no_sm - 1) / d->no_sm);
      p->tail_N = resident_warps(d, k, p->tail_B, warps_of_blocks(k, p->tail_B));
    }
  }
  p->occupancy = (double)p->N * d->warp_size / d->max_threads_per_sm;
  return 0;
}

static void memory_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p) {
  double dep = 0;
  for (int c = 0; c < CGP_STATS_NCLASS; c++) {
    p->mem_l_c[c] = cgp_mem_latency_class_l1(d, c, k->trans_pw[c], k->dram_pw[c], k->l1_trans_pw[c], k->l1_hit_pw[c],
                                            k->merged_dram_pw[c]);
    p->dep_del_c[c] = cgp_departure_delay_class(d, c, k->trans_pw[c], k->dram_pw[c]);
    double periods = cgp_mem_periods(d->load_overlap, k->insts[c], k->overlap_insts[c]);
    p->no_mem_insts += k->insts[c];
    p->mem_periods += periods;
    p->mem_cycles += p->mem_l_c[c] * periods;
    dep += p->dep_del_c[c] * k->insts[c];
  }
  /* Section 5e: Hong & Kim's unit of waiting is the period; a warp's period has mlp requests in
     flight, each leaving after departure_delay */
  p->mem_l = p->mem_periods > 0 ? p->mem_cycles / p->mem_periods : 0;
  p->departure_delay = p->no_mem_insts > 0 ? dep / p->no_mem_insts : 0;
  p->mlp = p->mem_periods > 0 ? p->no_mem_insts / p->mem_periods : 1;
}

/* Section 5e: MWP in periods: a period takes mlp departure delays and moves mlp instructions' bytes. */
static double period_mwp(const cgp_device *d, const cgp_prediction *p, double dram_bytes, unsigned N, double *mwp_lat,
                         double *mwp_bw) {
  return cgp_mwp(d, p->mem_l, p->departure_delay * p->mlp, p->mem_periods > 0 ? dram_bytes / p->mem_periods : 0, N,
                 mwp_lat, mwp_bw);
}

/* Sections 6 and 8b: shared-memory instructions are issued like the others (total_insts) and pass
   through the shared-memory pipeline once per conflicting bank word, one pass a cycle, pipelined:
   those passes are LSU wavefronts, the throughput floor of section 9, not serial compute. Tile
   loads are global loads of their class (insts[c]), in the memory terms: smem_load_insts only
   reports them. */
static void compute_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p) {
  p->comp_cycles = cgp_comp_cycles_units(d, k);
}

double cgp_dram_bytes_per_warp(const cgp_device *d, const cgp_kernel_stats *k) {
  double trans = k->st_insts * k->st_dram_pw;
  for (int c = 0; c < CGP_STATS_NCLASS; c++) trans += k->insts[c] * k->dram_pw[c];
  return trans * cgp_transaction_bytes(d);
}

static const char *binding_limit(const cgp_prediction *p) {
  double work = p->cycles - p->launch_cycles;
  if (!(work > 0)) return p->launch_cycles > 0 ? "launch_overhead" : "none";
  if (p->launch_cycles > work) return "launch_overhead";
  if (p->throughput_cycles >= p->cycles_mwp_cwp) {
    double sm = fmax(fmax(p->cpw_cores, p->cpw_issue), fmax(p->cpw_units, p->cpw_lsu)) * p->busiest_sm_warps;
    if (p->cpw_dram * (double)p->total_warps_sm_avg >= sm && p->cpw_dram >= p->cpw_l2) return "dram_bandwidth";
    if (p->cpw_l2 * (double)p->total_warps_sm_avg >= sm) return "l2_bandwidth";
    if (p->cpw_lsu >= p->cpw_issue && p->cpw_lsu >= p->cpw_cores && p->cpw_lsu >= p->cpw_units) return "lsu_wavefronts";
    if (p->cpw_issue >= p->cpw_cores && p->cpw_issue >= p->cpw_units) return "issue";
    return p->cpw_cores >= p->cpw_units ? "cores" : p->unit_bound;
  }
  if (p->exec_case == 1) return "occupancy";
  if (p->exec_case == 3) return "compute";
  return p->mwp_bw < p->mwp_lat ? "dram_bandwidth" : "memory_latency";
}

static void littles_law_terms(const cgp_device *d, const cgp_kernel_stats *k, double dram_bytes,
                              cgp_prediction *p) {
  p->cpw_units = cgp_units_cpw(d, k, &p->unit_bound);
  p->cpw_lsu = k->lsu_wavefronts * CGP_LSU_CYCLES_PER_WAVEFRONT;
  p->cpw_bound = fmax(fmax(cgp_throughput_cpw(d, k, dram_bytes, &p->cpw_cores, &p->cpw_issue, &p->cpw_dram),
                           p->cpw_units), p->cpw_lsu);
  p->busiest_sm_warps = cgp_busiest_sm_warps(d, k);
  p->total_warps_sm_avg = (double)k->total_warps / d->no_sm;
  /* Section 9b: the L2's bandwidth, shared by all SMs as DRAM's is */
  p->cpw_l2 = cgp_l2_cpw(d, k);
  p->cpw_bound = fmax(p->cpw_bound, p->cpw_l2);
  p->throughput_cycles = cgp_throughput_cycles_sm(p->busiest_sm_warps, fmax(fmax(p->cpw_cores, p->cpw_issue),
                                                  fmax(p->cpw_units, p->cpw_lsu)),
                                                  cgp_throughput_cycles(d, k->total_warps, fmax(p->cpw_dram, p->cpw_l2)));
  p->latency_bound_cycles = p->mem_cycles + p->comp_cycles;
  p->littles_law_cycles = cgp_littles_law_cycles(d, k->total_warps, p->N, p->latency_bound_cycles, p->cpw_bound,
                                                 &p->warp_throughput);
}

/* Section 7 for `rounds` rounds of N warps and B blocks per SM: MWP, CWP, the execution case,
   the sync cost; writes them into p when `keep`. Returns the Hong & Kim cycles (sync included)
   and adds the printed eq. 16 form to *paper. */
static double rounds_cycles(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p, double dram_bytes,
                            unsigned N, unsigned B, uint64_t rounds, int keep, double *paper) {
  double mwp_lat, mwp_bw, cwp_full;
  int exec_case;
  double mwp = period_mwp(d, p, dram_bytes, N, &mwp_lat, &mwp_bw);
  double cwp = cgp_cwp(p->mem_cycles, p->comp_cycles, N, &cwp_full);
  double sync = cgp_sync_cycles(p->departure_delay, mwp, k->sync_insts, B, rounds);
  double cycles = sync + cgp_exec_cycles(p->mem_cycles, p->comp_cycles, p->mem_l, p->mem_periods, mwp, cwp, N, rounds,
                                         &exec_case);
  *paper += sync + cgp_exec_cycles_paper(p->mem_cycles, p->comp_cycles, p->mem_l, p->mem_periods, mwp, cwp, N, rounds);
  if (keep) {
    p->mwp = mwp; p->mwp_lat = mwp_lat; p->mwp_bw = mwp_bw;
    p->cwp = cwp; p->cwp_full = cwp_full;
    p->exec_case = exec_case;
  }
  return cycles;
}

int cgp_predict(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  p->bound = "none";
  p->unit_bound = "none";
  if (check_stats(k, err, errlen) || occupancy_terms(d, k, p, err, errlen)) return -1;
  memory_terms(d, k, p);
  compute_terms(d, k, p);
  double dram_bytes = cgp_dram_bytes_per_warp(d, k);
  /* Section 2: batch - 1 full rounds and a partial one with its own N, or batch full rounds */
  uint64_t full = p->tail_blocks ? p->batch - 1 : p->batch;
  double paper = 0, ignored = 0;
  p->cycles_full_wave = full ? rounds_cycles(d, k, p, dram_bytes, p->N, p->B, 1, 0, &ignored) : 0;
  p->cycles_mwp_cwp = rounds_cycles(d, k, p, dram_bytes, p->N, p->B, full, 1, &paper);
  p->sync_cycles = cgp_sync_cycles(p->departure_delay, p->mwp, k->sync_insts, p->B, full);
  if (p->tail_blocks) {
    /* the reported MWP, CWP and case stay those of the full rounds */
    double tail_mwp = period_mwp(d, p, dram_bytes, p->tail_N, &ignored, &ignored);
    p->tail_cycles = rounds_cycles(d, k, p, dram_bytes, p->tail_N, p->tail_B, 1, 0, &paper);
    p->sync_cycles += cgp_sync_cycles(p->departure_delay, tail_mwp, k->sync_insts, p->tail_B, 1);
    p->cycles_mwp_cwp += p->tail_cycles;
  }
  p->cycles_paper = paper;
  littles_law_terms(d, k, dram_bytes, p);
  /* Section 9: never faster than the throughput bound; section 7b: plus one launch */
  p->launch_cycles = d->launch_overhead_cycles;
  p->cycles = fmax(p->cycles_mwp_cwp, p->throughput_cycles) + p->launch_cycles;
  p->time_ms = p->cycles / d->freq_hz * 1e3;
  p->bound = binding_limit(p);
  if (!isfinite(p->cycles)) {
    snprintf(err, errlen, "the model gave a non-finite cycle count on %s", d->name);
    return -1;
  }
  return 0;
}

cgp_kernel_stats cgp_stats_scaled(const cgp_kernel_stats *k, double factor) {
  cgp_kernel_stats g = *k;
  g.blocks = (uint64_t)llround((double)k->blocks * factor);
  g.total_warps = (uint64_t)llround((double)k->total_warps * factor);
  if (!g.blocks) g.blocks = 1;
  if (!g.total_warps) g.total_warps = 1;
  return g;
}
