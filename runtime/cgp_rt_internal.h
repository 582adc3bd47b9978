/* cgp_rt_internal.h: state shared by the runtime's files. Not installed, not a contract. */
#ifndef CGP_RT_INTERNAL_H
#define CGP_RT_INTERNAL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "cgp_analyzer.h"
#include "cgp_model.h"
#include "cgp_rt.h"

#define RT_WARP 32
#define RT_MAX_DEVICES 8
#define RT_ALLOC_ALIGN 256      /* cudaMalloc returns 256-byte aligned memory (CUDA C Programming
                                   Guide, "Device Memory Accesses"); arrays are placed likewise */

/* One traced access, packed in 8 bytes (a lane of a triangular kernel can make millions):
   the address in the low 47 bits (user space on x86-64 and AArch64 with 4-level tables), the
   static id above it. */
typedef uint64_t rt_access;
#define RT_ADDR_BITS 47
#define RT_ADDR_MASK ((UINT64_C(1) << RT_ADDR_BITS) - 1)
#define RT_MAX_SIDS (1u << (64 - RT_ADDR_BITS))
#define RT_SID(a) ((uint32_t)((a) >> RT_ADDR_BITS))
#define RT_ADDR(a) ((a) & RT_ADDR_MASK)

/* One traced thread's accesses and block counts. */
typedef struct {
  rt_access *acc;
  size_t n, cap;
  uint32_t *bbcnt;
  int active;
} rt_lane;

/* A warp whose lanes are still being traced. */
typedef struct {
  uint64_t block_id;
  unsigned widx;
  int64_t last_row;          /* row key of its last lane: z * 2^32 + y */
  int used;
  rt_lane lane[RT_WARP];
} rt_pending;

/* A folded warp: its warp memory instructions and instruction counts. */
typedef struct {
  cgp_winst *inst;
  size_t n, cap;
  uint64_t *lines;
  size_t nl, capl;
  double total_insts, core_insts;
} rt_warp;

typedef struct {
  rt_warp **warp;
  size_t n, cap;
} rt_block;

/* A window: consecutive blocks [start, start + size) traced fully. */
typedef struct {
  unsigned k;                /* window index: starts at 0, 2W, 4W, 8W ... */
  uint64_t start, size;
  rt_block *blk;             /* blk[b] holds block start + b; nblk grows as blocks appear */
  size_t nblk;
  int64_t done_row, done_x;  /* complete once the thread position passes (row, x) */
} rt_window;

/* Per device, what one window measured (counted batches only). Blocks from first_counted on
   were counted; those with no active thread count as blocks too, with no warps. */
typedef struct {
  uint64_t first_counted, end;
  double blocks, warps;
  cgp_class_totals tot;
  double total_insts, core_insts;
} rt_wstat;

/* One sampled launch, per device per-warp averages ready for the model. */
typedef struct {
  uint64_t launch;
  double weight;
  uint64_t grid[3], blocks, total_warps, threads;
  double traced_warps;
  cgp_kernel_stats stats[RT_MAX_DEVICES];
} rt_sample;

typedef struct {
  uint64_t insts[CGP_NCLASS];
  uint64_t trans, miss;
} rt_sid_stat;

typedef struct rt_kernel {
  const char *desc_ptr;
  cJSON *desc;
  const char *name, *file;
  unsigned line, dims, block[3], can_skip;
  long long step[3];
  size_t nmem, nbb;
  unsigned *mem_size;
  unsigned char *mem_store;
  double *bb_total, *bb_core;
  uint64_t launches;
  rt_sample *samples;
  size_t nsamples, capsamples;
  rt_sid_stat *sid[RT_MAX_DEVICES];
  uint64_t warps_folded, divergent_warps, extra_issue;
  uint64_t grid_max[3];
  int block_from_env;
} rt_kernel;

typedef struct {
  int initialised, quiet;
  int sample_mode;                        /* 0 run, 1 skip, 2 full */
  cgp_device dev[RT_MAX_DEVICES];
  size_t ndev;
  unsigned line0;                         /* smallest L2 line among devices */
  unsigned env_block[3][3];               /* CGPREDICT_BLOCK per grid dimensionality */
  rt_kernel **kernels;
  size_t nkernels;
  char report_path[4096];
  uint64_t traced_accesses, traced_threads;
} rt_global;

extern rt_global cgp_rt_g;

/* cgp_rt_window.c: blocks of a window, and their analysis per device */
void rt_window_put(rt_window *win, uint64_t b, unsigned widx, rt_warp *w);
void rt_window_analyze(rt_kernel *k, const rt_window *w, unsigned tpb, rt_wstat out[RT_MAX_DEVICES]);
void rt_window_release(rt_window *w);
void rt_warp_free(rt_warp *w);
unsigned rt_active_blocks(const cgp_device *d, unsigned tpb);

/* cgp_rt_kernel.c: the kernels seen, their descriptors and sampled launches */
rt_kernel *rt_kernel_for(const char *desc);
void rt_resolve_block(const rt_kernel *k, unsigned block[3]);
void rt_record_launch(rt_kernel *k, const rt_sample *s);

/* cgp_rt_report.c: set-up at the first launch, the report at exit */
void rt_report_install(void);
int  rt_in_kernel(void);
const rt_kernel *rt_current_kernel(void);

#endif
