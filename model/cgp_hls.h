/* cgp_hls.h: real HLS results. A Vivado HLS / Vitis HLS synthesis report, csynth.xml
   (<solution>/syn/report/<top>_csynth.xml), read with libxml2: the top function's latency
   (best / average / worst case), its interval, the estimated and target clock, each loop's trip
   count, latency, iteration latency and II, and the resources with what the part has. Kept out of
   the model library the instrumented programs link (libxml2 is the driver's dependency only). */
#ifndef CGP_HLS_H
#define CGP_HLS_H

#include <stddef.h>
#include <stdint.h>

/* A count the report may leave unknown ("undef", "?", "-", empty) or give as a range
   (<range><min>a</min><max>b</max></range>, or "a ~ b"). known = 0: unknown; a single number has
   min = max. */
typedef struct cgp_hls_count {
  int known;
  uint64_t min, max;
} cgp_hls_count;

/* One loop of the report, in document order; parent is the index of the loop it is nested in, or
   -1 at the top. pipeline_ii unknown = not pipelined (or not reported). */
typedef struct cgp_hls_loop {
  char name[128];
  int parent;
  unsigned depth;
  cgp_hls_count trips, latency, iteration_latency, pipeline_ii, pipeline_depth;
} cgp_hls_loop;

/* Resources: used (Resources) and available (AvailableResources); unknown when absent. */
enum { CGP_HLS_BRAM18K, CGP_HLS_DSP, CGP_HLS_FF, CGP_HLS_LUT, CGP_HLS_URAM, CGP_HLS_NRES };

typedef struct cgp_hls_report {
  char top[128], part[64], version[32], pipeline_type[64];
  double target_clock_ns, clock_uncertainty_ns, estimated_clock_ns; /* NaN when absent or undef */
  cgp_hls_count latency_best, latency_average, latency_worst, interval_min, interval_max;
  cgp_hls_count used[CGP_HLS_NRES], available[CGP_HLS_NRES];
  cgp_hls_loop *loops;
  unsigned n_loops;
} cgp_hls_report;

/* The resource names as the report spells them (BRAM_18K, DSP, FF, LUT, URAM). */
const char *cgp_hls_resource_name(unsigned i);

/* Read csynth.xml at path (a regular file of at most 64 MiB). Nonzero on failure with err naming
   the file, the line where known, and what is wrong: not XML, not a <profile> report, no
   PerformanceEstimates / SummaryOfOverallLatency, a value that is neither a number, a range nor
   undef / ?. Free with cgp_hls_free (also after a failure). */
int cgp_hls_read(const char *path, cgp_hls_report *r, char *err, size_t errlen);
/* The same from memory; name stands for the file in messages. */
int cgp_hls_parse(const char *text, size_t len, const char *name, cgp_hls_report *r, char *err, size_t errlen);
void cgp_hls_free(cgp_hls_report *r);

#endif
