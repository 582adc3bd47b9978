/* cgp_fpga_kernel.h: one marked kernel's FPGA estimate as `cgpredict fpga`, `cgpredict compare`
   and the run's report give it (docs/model.md 11.10, 11.11, 11.14): the nest's loops and arrays
   as the source names them, the design (directives, search or baseline), what it gives, in words
   and as JSON; and the carried form, the nest written into the kernel's descriptor at build time
   so that the run's report can estimate it with the trip counts the run measured. */
#ifndef CGP_FPGA_KERNEL_H
#define CGP_FPGA_KERNEL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "cgp_fpga.h"

/* Where the design comes from (the values of cgp_pragma.h's CGP_FPGA_LIST, CGP_FPGA_AUTO and
   CGP_FPGA_BASELINE, which the driver checks). */
enum { CGP_FPGA_FROM_DIRECTIVES = 1, CGP_FPGA_FROM_SEARCH = 2, CGP_FPGA_FROM_BASELINE = 3 };

/* One kernel's estimate: the nest's loops and arrays as named in the source, the design and what
   it gives. mode: CGP_FPGA_FROM_*. */
typedef struct cgp_fpga_result {
  char kernel[256], file[1024];
  unsigned line, n_loops, n_arrays, inner;
  char names[CGP_FPGA_MAX_LOOPS][CGP_FPGA_NAME];
  uint64_t trips[CGP_FPGA_MAX_LOOPS];
  unsigned depth[CGP_FPGA_MAX_LOOPS], loop_line[CGP_FPGA_MAX_LOOPS], ops[CGP_FPGA_MAX_LOOPS];
  int skip[CGP_FPGA_MAX_LOOPS]; /* another version of an earlier loop, not estimated (cgp_fpga_nest_loop) */
  char arrays[CGP_FPGA_MAX_ARRAYS][CGP_FPGA_NAME];
  unsigned ndims[CGP_FPGA_MAX_ARRAYS];
  int on_chip[CGP_FPGA_MAX_ARRAYS];
  cgp_fpga_array shape[CGP_FPGA_MAX_ARRAYS];
  int mode, search_skipped;
  unsigned trips_given; /* loops whose trips came from `given` (a bit per loop) */
  cgp_fpga_design design;
  cgp_fpga_estimate est;
  cgp_fpga_search_count count;
  double ms; /* est.cycles at the device's clock (0 when unknown) */
} cgp_fpga_result;

/* Words for a bound and a partitioning ("memory ports", "cyclic"). */
const char *cgp_fpga_bound_name(cgp_fpga_ii_bound b);
const char *cgp_fpga_part_name(cgp_fpga_part p);
/* The design in words: "pipeline k, unroll k x4, partition A cyclic 4 (dim 2)", or "baseline (...)". */
void cgp_fpga_design_text(const cgp_fpga_result *r, char *buf, size_t cap);

/* Estimate nest n on d as r says: r's static fields (names, trips, skip, mode; design when mode is
   directives) filled. A search whose trip counts are not all known gives the baseline
   (search_skipped). Fills design (search), est, count, inner (the innermost scheduled loop of the
   first leaf) and ms. 0, or nonzero with err. */
int cgp_fpga_result_estimate(const cgp_fpga_device *d, const cgp_fpga_nest *n, cgp_fpga_result *r, char *err,
                             size_t errlen);
/* r as `cgpredict fpga --json` gives one kernel: kernel, file, line, device, innermost_il, cycles,
   time_ms, design, loops, resources. */
cJSON *cgp_fpga_result_json(const cgp_fpga_device *d, const cgp_fpga_result *r);

/* ---- The carried form (the descriptor's "fpga", the report kernel's "fpga_nest") ---- */

/* The storage a nest read back owns (its graphs and accesses). */
typedef struct cgp_fpga_store {
  cgp_fpga_ddg ddg[CGP_FPGA_MAX_LOOPS];
  cgp_fpga_access *acc[CGP_FPGA_MAX_LOOPS];
} cgp_fpga_store;

/* r's static fields (not the estimate) and n as JSON: {"loops": [{name, line, depth, trips (0
   unknown), parent, skip, nodes: [[op, type, width, array, induction], ...], edges: [[from, to,
   distance, memory], ...], access: [[affine, offset, coef...], ...]}], "arrays": [{name,
   width_bits, dims, on_chip}], "from", "design": {unroll, pipeline, part, factor, part_dim}}. */
cJSON *cgp_fpga_kernel_to_json(const cgp_fpga_result *r, const cgp_fpga_nest *n);
/* Back: r's static fields, n pointing into s. Every number range-checked (a descriptor is read
   from a file a user may have edited): nonzero with err naming the field. Free s with
   cgp_fpga_store_free whatever it returns. */
int cgp_fpga_kernel_from_json(const cJSON *o, cgp_fpga_result *r, cgp_fpga_nest *n, cgp_fpga_store *s, char *err,
                              size_t errlen);
void cgp_fpga_store_free(cgp_fpga_store *s);

#endif
