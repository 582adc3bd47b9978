/* cgp_predict.c: the model for one launch, from measured per-warp quantities to time. */
#include "cgp_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Warps that overlap on one SM: the occupancy limit, or fewer when the grid is small. */
static unsigned resident_warps(const cgp_device *d, const cgp_kernel_stats *k, unsigned B) {
  unsigned wpb = (k->threads_per_block + d->warp_size - 1) / d->warp_size;
  uint64_t n = (uint64_t)B * wpb;
  uint64_t per_sm = (k->total_warps + d->no_sm - 1) / d->no_sm;
  if (per_sm < n) n = per_sm;
  return n ? (unsigned)n : 1;
}

static void memory_terms(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p) {
  double dep = 0;
  p->no_mem_insts = p->mem_cycles = 0;
  for (int c = 0; c < 3; c++) {
    p->mem_l_c[c] = cgp_mem_latency_class(d, c, k->trans_pw[c], k->dram_pw[c]);
    p->dep_del_c[c] = cgp_departure_delay_class(d, c, k->trans_pw[c], k->dram_pw[c]);
    p->no_mem_insts += k->insts[c];
    p->mem_cycles += p->mem_l_c[c] * k->insts[c];
    dep += p->dep_del_c[c] * k->insts[c];
  }
  p->mem_l = p->no_mem_insts > 0 ? p->mem_cycles / p->no_mem_insts : 0;
  p->departure_delay = p->no_mem_insts > 0 ? dep / p->no_mem_insts : 0;
  /* Section 8: tiles loaded into shared memory wait like memory; accesses to it issue like ALU work */
  p->mem_cycles += k->smem_load_insts * d->smem_load_const;
}

static double dram_bytes_per_warp(const cgp_device *d, const cgp_kernel_stats *k) {
  double misses = 0;
  for (int c = 0; c < 3; c++) misses += k->insts[c] * k->dram_pw[c];
  return misses * d->l2_line_bytes;
}

static const char *binding_limit(const cgp_prediction *p) {
  if (p->throughput_cycles >= p->cycles_mwp_cwp) {
    if (p->cpw_bound == p->cpw_dram) return "dram_bandwidth";
    return p->cpw_bound == p->cpw_issue ? "issue" : "cores";
  }
  if (p->exec_case == 3) return "compute";
  if (p->exec_case == 1) return "occupancy";
  return p->mwp == p->mwp_bw ? "dram_bandwidth" : "memory_latency";
}

int cgp_predict(const cgp_device *d, const cgp_kernel_stats *k, cgp_prediction *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  unsigned bmax = cgp_active_blocks(d, k->threads_per_block, k->smem_per_block, k->regs_per_thread);
  if (!bmax) {
    snprintf(err, errlen, "%u threads a block (%u bytes of shared memory) do not fit on %s",
             k->threads_per_block, k->smem_per_block, d->name);
    return -1;
  }
  uint64_t blocks_per_sm = (k->blocks + d->no_sm - 1) / d->no_sm;
  p->B = blocks_per_sm < bmax ? (unsigned)(blocks_per_sm ? blocks_per_sm : 1) : bmax;
  p->N = resident_warps(d, k, p->B);
  p->batch = cgp_batches(d, k->blocks, bmax);
  p->occupancy = (double)p->N * d->warp_size / d->max_threads_per_sm;
  memory_terms(d, k, p);
  double smem = 0;
  for (int c = 0; c < 3; c++) smem += k->smem_insts[c] * (k->smem_conflict[c] > 0 ? k->smem_conflict[c] : 1);
  p->comp_cycles = d->inst_cycle * k->total_insts + d->lat_smem * smem;
  double dram_pw_bytes = dram_bytes_per_warp(d, k);
  p->mwp = cgp_mwp(d, p->mem_l, p->departure_delay, p->no_mem_insts > 0 ? dram_pw_bytes / p->no_mem_insts : 0,
                   p->N, &p->mwp_lat, &p->mwp_bw);
  p->cwp = cgp_cwp(p->mem_cycles, p->comp_cycles, p->N, &p->cwp_full);
  p->cycles_mwp_cwp = cgp_exec_cycles(p->mem_cycles, p->comp_cycles, p->mem_l, p->no_mem_insts, p->mwp,
                                      p->cwp, p->N, p->batch, &p->exec_case);
  p->cycles_paper = cgp_exec_cycles_paper(p->mem_cycles, p->comp_cycles, p->mem_l, p->no_mem_insts, p->mwp,
                                          p->cwp, p->N, p->batch);
  /* Section 9: never faster than the throughput bound */
  p->cpw_bound = cgp_throughput_cpw(d, k, dram_pw_bytes, &p->cpw_cores, &p->cpw_issue, &p->cpw_dram);
  p->latency_bound_cycles = p->mem_cycles + p->comp_cycles;
  double warps_per_sm = (double)k->total_warps / d->no_sm;
  p->throughput_cycles = warps_per_sm * p->cpw_bound;
  p->cycles = fmax(p->cycles_mwp_cwp, p->throughput_cycles);
  p->time_ms = p->cycles / d->freq_hz * 1e3;
  p->bound = binding_limit(p);
  if (!isfinite(p->cycles)) {
    snprintf(err, errlen, "the model gave a non-finite cycle count on %s", d->name);
    return -1;
  }
  return 0;
}
