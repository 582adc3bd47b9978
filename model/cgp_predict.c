/* cgp_predict.c: the model for one launch, from measured per-warp quantities to time, in the
   order of docs/model.md: occupancy (2), memory (5), computation (6), shared memory (8),
   MWP/CWP and cycles (7), Little's-law bound (9). */
#include "cgp_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every per-warp count must be a finite non-negative number; names the first that is not. */
static int check_stats(const cgp_kernel_stats *k, char *err, size_t errlen) {
  static const char *const cls[CGP_STATS_NCLASS] = {"constant", "coalesced", "uncoalesced"};
  const struct { const char *name; const double *v; int n; } f[] = {
    {"insts", k->insts, 3}, {"trans_pw", k->trans_pw, 3}, {"dram_pw", k->dram_pw, 3},
    {"total_insts", &k->total_insts, 1}, {"core_insts", &k->core_insts, 1}, {"sync_insts", &k->sync_insts, 1},
    {"smem_insts", k->smem_insts, 3}, {"smem_conflict", k->smem_conflict, 3},
    {"smem_load_insts", &k->smem_load_insts, 1},
  };
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    for (int c = 0; c < f[i].n; c++)
      if (!isfinite(f[i].v[c]) || f[i].v[c] < 0) {
        snprintf(err, errlen, "kernel stats: field \"%s\"%s%s: expected a finite non-negative number, got %g",
                 f[i].name, f[i].n > 1 ? " " : "", f[i].n > 1 ? cls[c] : "", f[i].v[c]);
        return -1;
      }
  return 0;
}

/* Warps that overlap on one SM: B blocks' warps, or fewer when the grid is small. */
static unsigned resident_warps(const cgp_device *d, const cgp_kernel_stats *k, unsigned B) {
  unsigned wpb = (k->threads_per_block + d->warp_size - 1) / d->warp_size;
  uint64_t n = (uint64_t)B * wpb;
  uint64_t per_sm = (k->total_warps + d->no_sm - 1) / d->no_sm;
  if (per_sm < n) n = per_sm;
  return n ? (unsigned)n : 1;
}

static int occupancy_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p, char *err,
                           size_t errlen) {
  unsigned bmax = cgp_active_blocks(d, k->threads_per_block, k->smem_per_block, k->regs_per_thread);
  if (!bmax) {
    snprintf(err, errlen, "%u threads a block (%u bytes of shared memory, %u registers a thread) do not fit on %s",
             k->threads_per_block, k->smem_per_block, k->regs_per_thread, d->name);
    return -1;
  }
  uint64_t blocks_per_sm = (k->blocks + d->no_sm - 1) / d->no_sm;
  p->B = blocks_per_sm < bmax ? (unsigned)(blocks_per_sm ? blocks_per_sm : 1) : bmax;
  p->N = resident_warps(d, k, p->B);
  p->batch = cgp_batches(d, k->blocks, bmax);
  p->occupancy = (double)p->N * d->warp_size / d->max_threads_per_sm;
  return 0;
}

static void memory_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p) {
  double dep = 0;
  for (int c = 0; c < CGP_STATS_NCLASS; c++) {
    p->mem_l_c[c] = cgp_mem_latency_class(d, c, k->trans_pw[c], k->dram_pw[c]);
    p->dep_del_c[c] = cgp_departure_delay_class(d, c, k->trans_pw[c], k->dram_pw[c]);
    p->no_mem_insts += k->insts[c];
    p->mem_cycles += p->mem_l_c[c] * k->insts[c];
    dep += p->dep_del_c[c] * k->insts[c];
  }
  p->mem_l = p->no_mem_insts > 0 ? p->mem_cycles / p->no_mem_insts : 0;
  p->departure_delay = p->no_mem_insts > 0 ? dep / p->no_mem_insts : 0;
}

/* Sections 6 and 8: tiles loaded into shared memory wait like memory; accesses to shared
   arrays issue like ALU work, once per conflicting bank word (degree 0 = not measured = 1). */
static void compute_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p) {
  double smem = 0;
  for (int c = 0; c < CGP_STATS_NCLASS; c++) smem += k->smem_insts[c] * (k->smem_conflict[c] > 0 ? k->smem_conflict[c] : 1);
  p->mem_cycles += k->smem_load_insts * d->smem_load_const;
  p->comp_cycles = d->inst_cycle * k->total_insts + d->lat_smem * smem;
}

static double dram_bytes_per_warp(const cgp_device *d, const cgp_kernel_stats *k) {
  double misses = 0;
  for (int c = 0; c < CGP_STATS_NCLASS; c++) misses += k->insts[c] * k->dram_pw[c];
  return misses * d->l2_line_bytes;
}

static const char *binding_limit(const cgp_prediction *p) {
  if (!(p->cycles > 0)) return "none";
  if (p->throughput_cycles >= p->cycles_mwp_cwp) {
    if (p->cpw_dram >= p->cpw_issue && p->cpw_dram >= p->cpw_cores) return "dram_bandwidth";
    return p->cpw_issue >= p->cpw_cores ? "issue" : "cores";
  }
  if (p->exec_case == 1) return "occupancy";
  if (p->exec_case == 3) return "compute";
  return p->mwp_bw < p->mwp_lat ? "dram_bandwidth" : "memory_latency";
}

static void littles_law_terms(const cgp_device *d, const cgp_kernel_stats *k, double dram_bytes,
                              cgp_prediction *p) {
  p->cpw_bound = cgp_throughput_cpw(d, k, dram_bytes, &p->cpw_cores, &p->cpw_issue, &p->cpw_dram);
  p->throughput_cycles = cgp_throughput_cycles(d, k->total_warps, p->cpw_bound);
  p->latency_bound_cycles = p->mem_cycles + p->comp_cycles;
  p->littles_law_cycles = cgp_littles_law_cycles(d, k->total_warps, p->N, p->latency_bound_cycles, p->cpw_bound,
                                                 &p->warp_throughput);
}

int cgp_predict(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  p->bound = "none";
  if (check_stats(k, err, errlen) || occupancy_terms(d, k, p, err, errlen)) return -1;
  memory_terms(d, k, p);
  compute_terms(d, k, p);
  double dram_bytes = dram_bytes_per_warp(d, k);
  p->mwp = cgp_mwp(d, p->mem_l, p->departure_delay, p->no_mem_insts > 0 ? dram_bytes / p->no_mem_insts : 0, p->N,
                   &p->mwp_lat, &p->mwp_bw);
  p->cwp = cgp_cwp(p->mem_cycles, p->comp_cycles, p->N, &p->cwp_full);
  p->sync_cycles = cgp_sync_cycles(p->departure_delay, p->mwp, k->sync_insts, p->B, p->batch);
  p->cycles_mwp_cwp = p->sync_cycles + cgp_exec_cycles(p->mem_cycles, p->comp_cycles, p->mem_l, p->no_mem_insts,
                                                       p->mwp, p->cwp, p->N, p->batch, &p->exec_case);
  p->cycles_paper = p->sync_cycles + cgp_exec_cycles_paper(p->mem_cycles, p->comp_cycles, p->mem_l,
                                                           p->no_mem_insts, p->mwp, p->cwp, p->N, p->batch);
  littles_law_terms(d, k, dram_bytes, p);
  /* Section 9: never faster than the throughput bound */
  p->cycles = fmax(p->cycles_mwp_cwp, p->throughput_cycles);
  p->time_ms = p->cycles / d->freq_hz * 1e3;
  p->bound = binding_limit(p);
  if (!isfinite(p->cycles)) {
    snprintf(err, errlen, "the model gave a non-finite cycle count on %s", d->name);
    return -1;
  }
  return 0;
}
