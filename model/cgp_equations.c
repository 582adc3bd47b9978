/* cgp_equations.c: one function per quantity of the model, numbered as in docs/model.md.
   Degenerate inputs (no memory instruction, no computation, no DRAM traffic) give the limit
   the equation tends to, never a division by zero: a limit that cannot bind is INFINITY and
   min() drops it; a quantity divided by an empty count is 0. */
#include "cgp_model.h"

#include <math.h>

/* Section 2. Threads are allocated per warp, so a 48-thread block takes 64 thread slots (and
   64 threads' registers). Registers unknown (0) do not limit; a count above the device's
   max_regs_per_thread is capped there (the compiler spills the rest). Limits a device file does
   not give (0) do not apply. */
unsigned cgp_active_blocks(const cgp_device *d, unsigned threads_per_block, unsigned smem_per_block,
                           unsigned regs_per_thread) {
  if (!threads_per_block || threads_per_block > d->max_threads_per_block) return 0;
  if (smem_per_block && d->smem_per_block && smem_per_block > d->smem_per_block) return 0;
  unsigned warps = (threads_per_block + d->warp_size - 1) / d->warp_size, slots = warps * d->warp_size;
  unsigned b = d->max_blocks_per_sm;
  if (d->max_threads_per_sm / slots < b) b = d->max_threads_per_sm / slots;
  if (d->max_warps_per_sm && d->max_warps_per_sm / warps < b) b = d->max_warps_per_sm / warps;
  if (smem_per_block && d->smem_per_sm / smem_per_block < b) b = d->smem_per_sm / smem_per_block;
  if (regs_per_thread) {
    if (d->max_regs_per_thread && regs_per_thread > d->max_regs_per_thread) regs_per_thread = d->max_regs_per_thread;
    uint64_t regs_per_block = (uint64_t)regs_per_thread * slots;
    if (d->regs_per_sm / regs_per_block < b) b = (unsigned)(d->regs_per_sm / regs_per_block);
  }
  return b;
}

/* Section 2 [choice: ceil, a partial round still costs a round]. */
uint64_t cgp_round_blocks(const cgp_device *d, unsigned active_blocks) {
  return (uint64_t)active_blocks * d->no_sm;
}

uint64_t cgp_batches(const cgp_device *d, uint64_t blocks, unsigned active_blocks) {
  uint64_t per_round = cgp_round_blocks(d, active_blocks);
  return per_round ? (blocks + per_round - 1) / per_round : 0;
}

/* Section 5, CGPredict eqs. 1-8. Fewer than one transaction (an empty class) adds nothing. */
double cgp_mem_latency_class(const cgp_device *d, int c, double trans_pw, double dram_pw) {
  if (c == CGP_STATS_CONST) return d->lat_l2 + dram_pw * d->lat_dram;
  if (dram_pw <= 1.0) return d->lat_l2 + fmax(trans_pw - 1.0, 0.0) * d->dd_l2;
  return d->lat_l2 + d->lat_dram + (dram_pw - 1.0) * d->dd_dram;
}

/* Section 5 with an L1 (section 5c). h = l1_hit_pw / l1_trans_pw of a class is the fraction of
   its L1 lookups that hit; hits are taken as whole warp instructions (temporal reuse), so a
   fraction h of the instructions costs lat_l1 and the rest pay the L2/DRAM latency of their own
   misses, trans_pw / (1 - h) and dram_pw / (1 - h) each (trans_pw and dram_pw count only L1
   misses, averaged over all of the class's instructions). A lookup merged with a fill in flight
   that missed the L2 waits for DRAM like that fill (merged_pw of them per instruction): it counts
   with the DRAM transactions here, though it moves no bytes (departure delay and bandwidth take
   dram_pw alone). Nothing looked up in an L1 (a device whose L1 caches no global loads looks up
   only local memory there, section 3b): the plain section 5 latency. */
double cgp_mem_latency_class_l1(const cgp_device *d, int c, double trans_pw, double dram_pw, double l1_trans_pw,
                                double l1_hit_pw, double merged_pw) {
  if (!(l1_trans_pw > 0)) return cgp_mem_latency_class(d, c, trans_pw, dram_pw);
  double h = fmin(fmax(l1_hit_pw / l1_trans_pw, 0.0), 1.0);
  if (h >= 1.0) return d->lat_l1;
  double waits = dram_pw + fmax(merged_pw, 0.0);
  return h * d->lat_l1 + (1.0 - h) * cgp_mem_latency_class(d, c, trans_pw / (1.0 - h), waits / (1.0 - h));
}

double cgp_departure_delay_class(const cgp_device *d, int c, double trans_pw, double dram_pw) {
  if (c == CGP_STATS_CONST) return trans_pw * d->dd_l2 + dram_pw * d->dd_dram;
  return fmax(trans_pw * d->dd_l2, dram_pw * d->dd_dram);
}

const char *cgp_stats_class_name(int c) {
  static const char *const names[CGP_STATS_NCLASS] = {"constant", "coalesced", "uncoalesced"};
  return c >= 0 && c < CGP_STATS_NCLASS ? names[c] : "?";
}

double cgp_dram_bytes_per_cycle_sm(const cgp_device *d) {
  return d->dram_bandwidth_bytes_per_s / (d->no_sm * d->freq_hz);
}

/* Section 5e: a load waits on its own, unless it is one of up to U loads of a store-free loop that
   the compiler's unrolled body issues before their uses (U = load_overlap): those U wait as one. */
double cgp_mem_periods(unsigned load_overlap, double insts, double overlap_insts) {
  double u = load_overlap > 1 ? (double)load_overlap : 1.0;
  double ov = fmin(fmax(overlap_insts, 0.0), fmax(insts, 0.0));
  return insts - ov + ov / u;
}

/* Section 7, Hong & Kim: warps whose memory requests overlap, limited by latency over departure
   delay, by DRAM bandwidth (only bytes that miss the L2 count), and by the warps there are.
   At least 1: one warp always has its own request in flight. */
double cgp_mwp(const cgp_device *d, double mem_l, double departure_delay, double dram_bytes_per_mem_inst,
               unsigned N, double *mwp_lat, double *mwp_bw) {
  double bytes_per_cycle = cgp_dram_bytes_per_cycle_sm(d);
  *mwp_lat = departure_delay > 0 ? mem_l / departure_delay : INFINITY;
  *mwp_bw = dram_bytes_per_mem_inst > 0 && mem_l > 0 ? bytes_per_cycle / (dram_bytes_per_mem_inst / mem_l) : INFINITY;
  double m = fmin(fmin(*mwp_lat, *mwp_bw), (double)N);
  return m < 1.0 ? 1.0 : m;
}

/* Section 7. No computation: CWP_full is infinite, so CWP = N. */
double cgp_cwp(double mem_cycles, double comp_cycles, unsigned N, double *cwp_full) {
  *cwp_full = comp_cycles > 0 ? (mem_cycles + comp_cycles) / comp_cycles : INFINITY;
  return fmin(*cwp_full, (double)N);
}

/* Section 7 [choice: Hong & Kim's form, MWP - 1 and batch on the whole bracket]. Case 1 is tested
   first, so MWP = CWP = N is case 1 even though CWP >= MWP also holds. */
double cgp_exec_cycles(double mem_cycles, double comp_cycles, double mem_l, double no_mem_insts,
                       double mwp, double cwp, unsigned N, uint64_t batch, int *exec_case) {
  double comp_per_mem = no_mem_insts > 0 ? comp_cycles / no_mem_insts : 0;
  if (mwp >= N && cwp >= N) {
    *exec_case = 1;
    return (mem_cycles + comp_cycles + comp_per_mem * (mwp - 1)) * (double)batch;
  }
  if (cwp >= mwp) {
    *exec_case = 2;
    return (mem_cycles * N / mwp + comp_per_mem * (mwp - 1)) * (double)batch;
  }
  *exec_case = 3;
  return (mem_l + comp_cycles * N) * (double)batch;
}

/* Section 7, CGPredict's printed eq. 16: MWP where Hong & Kim have MWP - 1, and the
   comp_cycles / no_mem_insts term outside the batch product. Debug only. */
double cgp_exec_cycles_paper(double mem_cycles, double comp_cycles, double mem_l, double no_mem_insts,
                             double mwp, double cwp, unsigned N, uint64_t batch) {
  double comp_per_mem = no_mem_insts > 0 ? comp_cycles / no_mem_insts : 0;
  if (mwp >= N && cwp >= N) return (mem_cycles + comp_cycles) * (double)batch + comp_per_mem * mwp;
  if (cwp >= mwp) return mem_cycles * N / mwp * (double)batch + comp_per_mem * mwp;
  return (mem_l + comp_cycles * N) * (double)batch;
}

/* Section 8 (CGPredict eqs. 19-23, after Hong & Kim): MWP - 1 requests wait behind each barrier. */
double cgp_sync_cycles(double departure_delay, double mwp, double sync_insts, unsigned B, uint64_t batch) {
  return departure_delay * fmax(mwp - 1.0, 0.0) * sync_insts * B * (double)batch;
}

/* Section 6b: a warp instruction on unit u occupies the SM's lanes_u lanes for warp_size / lanes_u
   cycles, and never less than one issue slot (inst_cycle). Instructions outside the measured
   mix (total_insts minus the four units, memory and control among them) take one issue slot.
   An unmeasured mix (all four 0) is today's inst_cycle * total_insts. */
static const char *const unit_names[4] = {"fp32", "fp64", "int", "sfu"};

static void unit_mix(const cgp_device *d, const cgp_kernel_stats *k, double insts[4], double lanes[4]) {
  insts[0] = k->fp32_insts; insts[1] = k->fp64_insts; insts[2] = k->int_insts; insts[3] = k->sfu_insts;
  lanes[0] = d->fp32_lanes; lanes[1] = d->fp64_lanes; lanes[2] = d->int_lanes; lanes[3] = d->sfu_lanes;
}

double cgp_comp_cycles_units(const cgp_device *d, const cgp_kernel_stats *k) {
  double insts[4], lanes[4], in_units = 0, cycles = 0;
  unit_mix(d, k, insts, lanes);
  for (int u = 0; u < 4; u++) {
    if (!(insts[u] > 0)) continue;
    double per = lanes[u] > 0 ? fmax(d->inst_cycle, d->warp_size / lanes[u]) : d->inst_cycle;
    cycles += insts[u] * per;
    in_units += insts[u];
  }
  return cycles + fmax(k->total_insts - in_units, 0.0) * d->inst_cycle;
}

double cgp_units_cpw(const cgp_device *d, const cgp_kernel_stats *k, const char **unit) {
  double insts[4], lanes[4], best = 0;
  unit_mix(d, k, insts, lanes);
  *unit = "none";
  for (int u = 0; u < 4; u++) {
    double cpw = insts[u] > 0 && lanes[u] > 0 ? insts[u] * d->warp_size / lanes[u] : 0;
    if (cpw > best) { best = cpw; *unit = unit_names[u]; }
  }
  return best;
}

/* Section 9, Volkov / Gajger: cycles one SM must spend per warp, whatever the latency hiding. */
double cgp_throughput_cpw(const cgp_device *d, const cgp_kernel_stats *k, double dram_bytes_per_warp,
                          double *cpw_cores, double *cpw_issue, double *cpw_dram) {
  double bytes_per_cycle = cgp_dram_bytes_per_cycle_sm(d);
  *cpw_cores = k->core_insts * d->warp_size / d->cores_per_sm;
  *cpw_issue = k->total_insts / ((double)d->schedulers_per_sm * d->issue_per_scheduler);
  *cpw_dram = dram_bytes_per_warp / bytes_per_cycle;
  return fmax(fmax(*cpw_cores, *cpw_issue), *cpw_dram);
}

/* Section 9b: a resource shared by all SMs, like DRAM: the launch's bytes over the bandwidth, one
   SM's share per warp. Reads and writes are one pipeline (the L2 slices serve both), so their times
   add. */
double cgp_l2_cpw(const cgp_device *d, const cgp_kernel_stats *k) {
  double share = d->no_sm * d->freq_hz, tb = cgp_transaction_bytes(d), cpw = 0;
  if (d->l2_read_bandwidth_bytes_per_s > 0) {
    double rd = 0;
    for (int c = 0; c < CGP_STATS_NCLASS; c++) rd += k->insts[c] * k->trans_pw[c];
    cpw += rd * tb / (d->l2_read_bandwidth_bytes_per_s / share);
  }
  if (d->l2_write_bandwidth_bytes_per_s > 0)
    cpw += k->st_insts * k->st_trans_pw * tb / (d->l2_write_bandwidth_bytes_per_s / share);
  return cpw;
}

double cgp_host_sync_ms(const cgp_device *d, double launches) { return launches * d->host_sync_launch_s * 1e3; }

double cgp_throughput_cycles(const cgp_device *d, uint64_t total_warps, double cpw_bound) {
  return (double)total_warps * cpw_bound / d->no_sm;
}

double cgp_busiest_sm_warps(const cgp_device *d, const cgp_kernel_stats *k) {
  double wpb = ceil((double)k->threads_per_block / d->warp_size);
  double per_sm = ceil((double)k->blocks / d->no_sm) * wpb;
  return fmin(per_sm, (double)k->total_warps);
}

double cgp_throughput_cycles_sm(double busiest_sm_warps, double cpw_sm, double dram_cycles) {
  return fmax(busiest_sm_warps * cpw_sm, dram_cycles);
}

/* Section 9: warps in flight over latency (Little's law), capped by the hardware throughput. */
double cgp_littles_law_cycles(const cgp_device *d, uint64_t total_warps, unsigned N, double latency_bound,
                              double cpw_bound, double *warp_throughput) {
  double by_latency = latency_bound > 0 ? N / latency_bound : INFINITY;
  double by_hardware = cpw_bound > 0 ? 1.0 / cpw_bound : INFINITY;
  *warp_throughput = fmin(by_latency, by_hardware);
  return isinf(*warp_throughput) ? 0.0 : (double)total_warps / (d->no_sm * *warp_throughput);
}
