/* cgp_model.h: devices and the performance model. Reads numbers, never traces: the analyzer's
   per-warp quantities (cgp_kernel_stats) and a device's parameters (devices/<name>.json) give
   occupancy, MWP, CWP, cycles and the Little's-law bound of one kernel launch.
   Equation numbers refer to docs/model.md (from MODEL.md). */
#ifndef CGP_MODEL_H
#define CGP_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* A GPU, every number from its device file (each cited there). Schema v2:
   devices/device.schema.json states every rule the loader enforces. */
typedef struct cgp_device {
  char name[64];
  char description[160];
  unsigned no_sm, cores_per_sm, schedulers_per_sm, issue_per_scheduler, warp_size;
  double freq_hz;
  unsigned max_threads_per_sm, max_threads_per_block, max_blocks_per_sm, regs_per_sm, smem_per_sm;
  uint64_t l2_bytes;
  unsigned l2_line_bytes, l2_assoc;
  char l2_index[24];            /* "fully_associative", "modulo" or "xor" */
  double lat_smem, lat_l2, lat_dram, smem_load_const, dd_l2, dd_dram, inst_cycle;
  double dram_bandwidth_bytes_per_s;
  unsigned smem_banks, smem_bank_bytes;
  unsigned smem_load_vector_bytes;  /* widest shared load nvcc forms from consecutive reads; 0: none */
  /* ---- schema v2 ---- */
  double dram_freq_hz;          /* optional, 0 = not given (informational) */
  unsigned max_warps_per_sm, max_regs_per_thread, smem_per_block;
  /* Unified L1 / shared memory (Volta and later): total bytes of the pool and the shared-memory
     carve-outs it allows; 0 / none where L1 and shared memory are apart. */
  unsigned l1_smem_unified_bytes;
  unsigned smem_carveout_bytes[16];
  unsigned n_smem_carveouts;
  /* Per-SM results per clock of each functional unit (CUDA C Programming Guide, arithmetic
     instruction throughput table). */
  unsigned fp32_lanes, fp64_lanes, int_lanes, sfu_lanes;
  /* L1 data cache: bytes available to global loads when no shared memory is used, geometry,
     whether plain global loads are cached there by default, hit latency. */
  unsigned l1_bytes, l1_line_bytes, l1_sector_bytes, l1_assoc, l1_sets;
  char l1_index[24];            /* as l2_index */
  int l1_caches_global;         /* 1 = global loads go through L1 by default */
  double lat_l1;
  unsigned l2_sector_bytes;     /* = l2_line_bytes when the L2 is not sectored */
  unsigned l2_sets;             /* set-indexed L2 only (l2_index modulo/xor); 0 when fully associative */
  double launch_overhead_cycles; /* fixed cost per kernel launch, core cycles (0 = not modelled) */
  char host_link_kind[16];      /* "pcie", "nvlink" or "shared_memory" */
  double host_link_bandwidth_bytes_per_s, host_link_latency_s; /* 0 = not modelled */
  double host_link_pageable_to_bytes_per_s;    /* cudaMemcpy from malloc'd memory (0: not measured) */
  double host_link_pageable_from_bytes_per_s;  /* and back to it */
  /* Real-GPU mechanisms, each measured by benchmarks/microbench (docs/model.md sections 4b, 7b,
     9b); optional, 0 = not modelled. l2_keep_bytes: the L2 bytes one kernel's data can occupy
     (a partitioned L2 keeps a line in the partition near each SM group that reads it as well as
     in its home partition), at most l2_bytes; fully associative L2s only. The L2's read and write
     bandwidths, all SMs together. host_sync_launch_s: what a program that synchronises after
     every launch pays per launch on the host beyond the kernel's duration. */
  uint64_t l2_keep_bytes;
  double l2_read_bandwidth_bytes_per_s, l2_write_bandwidth_bytes_per_s;
  double host_sync_launch_s;
  /* Section 5e: the loads of one thread, in a loop with no store, that the hardware has in flight
     together (the compiler's unroll factor, its loads issued before their uses); 1 = each load
     waits on its own (also when the device file does not say). */
  unsigned load_overlap;
} cgp_device;

/* Bytes one L2 transaction moves to or from DRAM: the sector when the L2 is sectored, else the
   line (docs/model.md section 4). */
unsigned cgp_transaction_bytes(const cgp_device *d);

/* Section 4b: the capacity the L2 simulation gives the device: l2_keep_bytes where the device file
   states it, else l2_bytes; rounded down to whole L2 transactions (cgp_transaction_bytes). */
uint64_t cgp_l2_capacity_bytes(const cgp_device *d);

/* Load and check a device file. On failure returns nonzero and writes a message naming the
   file and the field (or the JSON syntax error's position) into err. */
int cgp_device_load_file(const char *path, cgp_device *dev, char *err, size_t errlen);
/* Find <dir>/<name>.json, dir = $CGPREDICT_DEVICES_DIR or the built-in devices/ folder. An
   unknown name fails with a message listing the known ones. */
int cgp_device_find(const char *name, cgp_device *dev, char *err, size_t errlen);
/* The default devices (what a program predicts when CGPREDICT_DEVICE is not set): the names
   listed in <dir>/default-devices.txt, in its order, if that file exists, else every device in
   the folder. Free with cgp_device_names_free. */
size_t cgp_device_names(char ***names);
/* Every GPU device file in that folder (*.json but *.schema.json and FPGA files, "kind": "fpga"),
   sorted by name. */
size_t cgp_device_all_names(char ***names);
void cgp_device_names_free(char **names, size_t n);
/* The folder device names are looked up in. */
const char *cgp_devices_dir(void);

/* Access classes, the index of the per-class arrays below (MODEL.md section 3); the same order as
   the analyzer's cgp_class, named apart so that this header stands alone. */
enum { CGP_STATS_CONST = 0, CGP_STATS_COAL = 1, CGP_STATS_UNCOAL = 2, CGP_STATS_NCLASS = 3 };

/* "constant", "coalesced" or "uncoalesced": the report's name of class c (CGP_STATS_*), "?" for
   another value. The model's one table of them (the analyzer has its own, cgp_class_name). */
const char *cgp_stats_class_name(int c);

/* What the analyzer measured for one launch; per-warp quantities are averages over the warps
   with at least one active thread. Classes: [0] constant, [1] coalesced, [2] uncoalesced. */
typedef struct cgp_kernel_stats {
  uint64_t blocks;            /* blocks with at least one active thread */
  unsigned threads_per_block;
  uint64_t total_warps;       /* warps with at least one active thread */
  unsigned smem_per_block;    /* bytes, 0 if none */
  unsigned regs_per_thread;   /* 0 = unknown: registers do not limit occupancy */
  double insts[3];            /* warp memory instructions per warp, by class */
  double trans_pw[3];         /* no_c_pw: L2 transactions per warp instruction */
  double dram_pw[3];          /* no_dram_trans_c: DRAM transactions per warp instruction */
  double total_insts;         /* PTX-equivalent instructions per warp, memory ones included */
  double core_insts;          /* of those, the ones executed on CUDA cores */
  double sync_insts;          /* __syncthreads per warp */
  double smem_insts[3];       /* shared-memory warp instructions per warp by class */
  double smem_conflict[3];    /* bank-conflict degree per class (1 = none) */
  double smem_load_insts;     /* global -> shared tile loads per warp */
  /* The fields below are 0 when the analyzer did not measure them (older reports). The class
     arrays above count loads only; stores are apart because a warp does not wait for them
     (docs/model.md, "Stores"). */
  double st_insts;            /* store warp instructions per warp */
  double st_trans_pw;         /* L2 transactions per store warp instruction */
  double st_dram_pw;          /* of those, L2 misses (DRAM write-back traffic) */
  double masked_slots;        /* issue slots per warp spent with some of its threads masked */
  /* Global loads through a per-SM L1 (devices whose l1 caches global loads): L1 transactions
     looked up and L1 hits per load warp instruction, by class. trans_pw then counts only the
     L1 misses that go on to the L2. */
  double l1_trans_pw[3], l1_hit_pw[3];
  /* Section 5c: of the L1 lookups that missed, those merged with a fill in flight that missed the
     L2, per load warp instruction: they wait for DRAM but move no bytes (0: none, or older reports). */
  double merged_dram_pw[3];
  /* Instruction mix per warp by functional unit (PTX-equivalent counts; 0 = not measured). */
  double fp32_insts, fp64_insts, int_insts, sfu_insts;
  /* L1/LSU wavefronts per warp: each memory instruction takes one per distinct 128-byte L1 line
     its lanes touch (an atomic, one per lane); the SM processes one per cycle (section 9). */
  double lsu_wavefronts;
  /* Of those, per global load warp instruction by class (0 = not measured: older reports). */
  double ld_wavefronts_pw[3];
  /* Section 5e: of insts[c], the loads in a loop with no store whose address no load of that loop
     computes: up to the device's load_overlap of them wait as one (0 = none, or older reports). */
  double overlap_insts[3];
} cgp_kernel_stats;

/* Every quantity of the model for one launch on one device. */
typedef struct cgp_prediction {
  unsigned B, N;              /* active blocks and warps per SM (section 2) */
  uint64_t batch;
  double occupancy;           /* N * warp_size / max_threads_per_sm */
  double mem_l_c[3], dep_del_c[3];
  double no_mem_insts, mem_cycles, mem_l, departure_delay, comp_cycles;
  double mem_periods;         /* section 5e: a warp's memory waiting periods (no_mem_insts when no
                                 load overlaps another), and mlp = no_mem_insts / mem_periods */
  double mlp;
  double mwp_lat, mwp_bw, mwp, cwp_full, cwp;
  int exec_case;              /* 1: MWP = N = CWP; 2: CWP >= MWP (memory bound); 3: CWP < MWP */
  double sync_cycles;         /* section 8: __syncthreads cost of the launch, in both forms below */
  double cycles_mwp_cwp;      /* Hong & Kim's form + sync_cycles, used */
  double cycles_paper;        /* CGPredict's printed eq. 16 + sync_cycles, for comparison only */
  /* Section 9 (Little's law). latency_bound_cycles: one warp alone, mem_cycles + comp_cycles.
     cpw_*: cycles one SM spends per warp on each resource, cpw_bound their max.
     throughput_cycles: total_warps * cpw_bound / no_sm, the floor of the final cycles.
     warp_throughput: min(N / latency_bound, 1 / cpw_bound) warps per cycle per SM, and
     littles_law_cycles = total_warps / (no_sm * warp_throughput): Volkov's estimate, reported
     beside the MWP/CWP one, not used in cycles. */
  double latency_bound_cycles, cpw_cores, cpw_issue, cpw_dram, cpw_bound, throughput_cycles;
  double warp_throughput, littles_law_cycles;
  double cycles, time_ms;     /* max(cycles_mwp_cwp, throughput_cycles) and its time */
  /* The limit that sets `cycles`: "dram_bandwidth", "issue" or "cores" when the throughput
     floor binds, else by execution case: "occupancy" (case 1: MWP = CWP = N, too few warps),
     "memory_latency" (case 2, MWP set by mem_l / departure_delay), "dram_bandwidth" (case 2,
     MWP set by the bandwidth limit), "compute" (case 3); "none" for an empty launch. */
  const char *bound;
  /* Section 2: waves. With more blocks than one round holds, batch - 1 full rounds of B blocks
     per SM and a last, partial round of tail_blocks blocks, run with its own B and N
     (tail_B, tail_N; 0 when the last round is full or there is a single round). cycles_full_wave
     and tail_cycles are the MWP/CWP cycles of one full round and of the partial round. */
  uint64_t tail_blocks;
  unsigned tail_B, tail_N;
  double cycles_full_wave, tail_cycles;
  /* Section 6: cycles per warp of the busiest functional unit (insts_u * warp_size / lanes_u) and
     its name ("fp32", "fp64", "int", "sfu"; "none" when the mix is not measured). */
  double cpw_units;
  double cpw_lsu;             /* section 9: L1/LSU wavefronts per warp, one cycle each */
  double cpw_l2;              /* section 9b: one SM's share of the L2's read and write bandwidth per warp */
  double busiest_sm_warps;    /* section 9: warps on the SM with the most blocks */
  double total_warps_sm_avg;  /* total_warps / no_sm: the DRAM floor's share */
  const char *unit_bound;
  /* Section 7b: the fixed launch cost included in cycles (the device's launch_overhead_cycles). */
  double launch_cycles;
} cgp_prediction;

/* The coalescing suggestion's what-if (model/cgp_report.c, docs/model.md section 8c): the
   uncoalesced loads moved into class 1 with a coalesced load's L1 units, transactions and LSU
   wavefronts and their own L1 hit and L2 miss fractions. Returns 0 (s unchanged) if there are none. */
double cgp_whatif_coalesce(cgp_kernel_stats *s);
/* The same for a share (0 < share <= 1) of the uncoalesced loads: the others stay uncoalesced with
   their per-instruction figures (gathers, which no interchange coalesces: docs/model.md 8c). */
double cgp_whatif_coalesce_share(cgp_kernel_stats *s, double share);

/* Section 2: active blocks per SM, B = min of the four limits (registers only when known). */
unsigned cgp_active_blocks(const cgp_device *d, unsigned threads_per_block, unsigned smem_per_block,
                           unsigned regs_per_thread);
/* Section 2: the blocks of one round (a batch), B on each of the no_sm SMs. */
uint64_t cgp_round_blocks(const cgp_device *d, unsigned active_blocks);
/* Section 2: rounds of B * no_sm blocks, ceil(blocks / (B * no_sm)). */
uint64_t cgp_batches(const cgp_device *d, uint64_t blocks, unsigned active_blocks);
/* Section 5, eqs. 1-8: memory latency of one warp instruction of class c (CGP_STATS_*), from its
   L2 transactions and DRAM transactions per warp instruction. */
double cgp_mem_latency_class(const cgp_device *d, int c, double trans_pw, double dram_pw);
/* Section 5c: the same with a per-SM L1 in front (devices whose l1_caches_global): a fraction
   l1_hit_pw / l1_trans_pw of the instructions hit at lat_l1, the others pay the L2/DRAM latency
   of trans_pw and dram_pw (L1 misses) concentrated on them; merged_pw lookups merged with a fill
   that comes from DRAM wait with the DRAM transactions. Equal to cgp_mem_latency_class when
   l1_trans_pw is 0 (nothing looked up in an L1: a device whose L1 caches neither global loads
   nor, for want of any, local memory). */
double cgp_mem_latency_class_l1(const cgp_device *d, int c, double trans_pw, double dram_pw, double l1_trans_pw,
                                double l1_hit_pw, double merged_pw);
/* Section 6b: compute cycles per warp of the instruction mix: sum over units of
   insts_u * max(inst_cycle, warp_size / lanes_u) + the other instructions * inst_cycle
   (= inst_cycle * total_insts when the mix is not measured). */
double cgp_comp_cycles_units(const cgp_device *d, const cgp_kernel_stats *k);
/* Section 9: cycles per warp of the busiest unit, max_u insts_u * warp_size / lanes_u; writes its
   name ("fp32", "fp64", "int", "sfu", or "none" when the mix is not measured). */
double cgp_units_cpw(const cgp_device *d, const cgp_kernel_stats *k, const char **unit);
/* Section 5: departure delay of one warp instruction of class c (CGP_STATS_*). */
double cgp_departure_delay_class(const cgp_device *d, int c, double trans_pw, double dram_pw);
/* DRAM bytes one SM may move per core cycle: its share of the device's bandwidth (sections 7, 9). */
double cgp_dram_bytes_per_cycle_sm(const cgp_device *d);
/* Section 5e: the waiting periods of `insts` load instructions of which `overlap_insts` issue up to
   load_overlap at a time: insts - ov + ov / load_overlap (ov clamped to [0, insts]). */
double cgp_mem_periods(unsigned load_overlap, double insts, double overlap_insts);
/* Section 7: MWP = min(mem_l / departure_delay, bandwidth limit, N), at least 1; writes both limits
   (infinite when not binding: no departure delay, no DRAM bytes). */
double cgp_mwp(const cgp_device *d, double mem_l, double departure_delay, double dram_bytes_per_mem_inst,
               unsigned N, double *mwp_lat, double *mwp_bw);
/* Section 7: CWP = min((mem_cycles + comp_cycles) / comp_cycles, N); writes the unclamped value. */
double cgp_cwp(double mem_cycles, double comp_cycles, unsigned N, double *cwp_full);
/* Section 7: cycles of the whole launch, Hong & Kim's three cases; writes which case applied. */
double cgp_exec_cycles(double mem_cycles, double comp_cycles, double mem_l, double no_mem_insts,
                       double mwp, double cwp, unsigned N, uint64_t batch, int *exec_case);
/* Section 7: CGPredict's printed eq. 16 (MWP instead of MWP - 1, batch on one term). */
double cgp_exec_cycles_paper(double mem_cycles, double comp_cycles, double mem_l, double no_mem_insts,
                             double mwp, double cwp, unsigned N, uint64_t batch);
/* Section 8: cost of the __syncthreads of a launch, departure_delay * (MWP - 1) * no_sync_insts * B * batch. */
double cgp_sync_cycles(double departure_delay, double mwp, double sync_insts, unsigned B, uint64_t batch);
/* Section 9: cycles per warp of the throughput bound, max of cores, issue and DRAM; writes all three. */
double cgp_throughput_cpw(const cgp_device *d, const cgp_kernel_stats *k, double dram_bytes_per_warp,
                          double *cpw_cores, double *cpw_issue, double *cpw_dram);
/* Section 9: cycles per L1/LSU wavefront: the L1's t-stage processes one wavefront (the lanes'
   accesses to one 128-byte line) per cycle (NVIDIA Nsight Compute Kernel Profiling Guide,
   "Memory Tables", L1TEX wavefronts). */
#define CGP_LSU_CYCLES_PER_WAVEFRONT 1.0
/* Section 9: warps of the busiest SM: blocks go round robin over the SMs, so it runs
   ceil(blocks / no_sm) of them (at most total_warps). */
double cgp_busiest_sm_warps(const cgp_device *d, const cgp_kernel_stats *k);
/* Section 9: the throughput floor: per-SM resources (cores, issue, units, LSU) for the busiest
   SM's warps, and the whole launch's DRAM floor; the larger. */
double cgp_throughput_cycles_sm(double busiest_sm_warps, double cpw_sm, double dram_cycles);
/* Section 9b: cycles per warp the L2's bandwidth needs for the warp's traffic between the SMs and
   the L2: load transactions that miss L1 (trans_pw) over one SM's share of the read bandwidth plus
   store transactions over its share of the write bandwidth. A bandwidth of 0 (not modelled)
   contributes nothing. */
double cgp_l2_cpw(const cgp_device *d, const cgp_kernel_stats *k);
/* Section 7b: the host's cost of `launches` launches of a program that synchronises after each,
   in ms (launches x host_sync_launch_s); reported beside the kernel time, never added to it. */
double cgp_host_sync_ms(const cgp_device *d, double launches);
/* Section 12: offloading. What the host would copy for a kernel (or a program) and the CPU time
   of the nest as it ran (0: not measured). */
typedef struct {
  double bytes_in, copies_in;       /* read by the kernel: copied to the device, in that many copies */
  double bytes_out, copies_out;     /* written: copied back */
  double cpu_ms;
} cgp_host_data;
typedef struct {
  double gpu_ms, cpu_ms;            /* time_ms + host_sync_ms; the CPU's */
  double in_ms, out_ms, transfer_ms, pinned_ms;  /* copies (pageable where measured), and pinned */
  double offload_ms, speedup;       /* gpu_ms + transfer_ms; cpu_ms / offload_ms (0: no cpu_ms) */
  int shared_dram;                  /* the GPU reads the host's DRAM: no copy */
  int link_unknown, pageable_unknown;
} cgp_offload;
/* copies x latency + bytes / bandwidth, in ms (0 bytes: 0; bandwidth 0: the latency alone). */
double cgp_copy_ms(double bytes, double copies, double bandwidth, double latency_s);
void cgp_offload_estimate(const cgp_device *d, const cgp_host_data *h, double gpu_ms, cgp_offload *o);
/* "offload" (speedup above 1), "stay on the CPU", or "unknown" (no CPU time). */
const char *cgp_offload_verdict(const cgp_offload *o);
/* Section 9: the throughput floor of a launch, total_warps * cpw_bound / no_sm cycles. */
double cgp_throughput_cycles(const cgp_device *d, uint64_t total_warps, double cpw_bound);
/* Section 9: Volkov's estimate total_warps / (no_sm * min(N / latency_bound, 1 / cpw_bound));
   writes the warp throughput (warps per cycle per SM, infinite when both terms are 0). */
double cgp_littles_law_cycles(const cgp_device *d, uint64_t total_warps, unsigned N, double latency_bound,
                              double cpw_bound, double *warp_throughput);

/* Sections 4 and 5d: bytes a warp moves to or from DRAM, load misses and store write traffic,
   each transaction of cgp_transaction_bytes (the L2 sector, or the line when not sectored). */
double cgp_dram_bytes_per_warp(const cgp_device *d, const cgp_kernel_stats *k);

/* All of the above for one launch. Returns nonzero with a message naming the field on inputs it
   cannot use (negative or non-finite counts, a block that does not fit on the device). */
int cgp_predict(const cgp_device *dev, const cgp_kernel_stats *k, cgp_prediction *p, char *err, size_t errlen);
/* The same per-warp behaviour on a grid `factor` times as large (docs/model.md 5b): blocks and
   warps scaled, rounded, at least 1 each; everything per warp unchanged. */
cgp_kernel_stats cgp_stats_scaled(const cgp_kernel_stats *k, double factor);
/* The launch schedule's close spacing (docs/model.md 5b): once two analysed launches of a kernel
   differ, the runtime analyses launch n + cgp_dense_step(n) after launch n, max(1, n /
   CGP_DENSE_SPACING), and the report interpolates between analysed launches that close
   (model/cgp_report.c). [Tried, not kept: the step made odd, so as to go through every residue of
   the launch number modulo a power of two: GRAMSCHM's kernel 2 at N = 256 and 320 on the TK1
   -2.50/-3.09 -> +0.82/+1.73 % against `full`, but GRAMSCHM's kernel 3, LU's kernel 1 and ADI's
   kernel 6 moved past 2 % at 256, 512, 640 and 768; docs/model.md 5b.] */
#define CGP_DENSE_SPACING 16
static inline uint64_t cgp_dense_step(uint64_t n) { return n >= CGP_DENSE_SPACING ? n / CGP_DENSE_SPACING : 1; }

#endif
