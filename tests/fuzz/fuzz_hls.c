/* libFuzzer harness: the csynth.xml reader (cgp_hls.h). Any bytes go through cgp_hls_parse; it may
   refuse them, but must say why, and what it accepts must hold together: every loop's parent is
   an earlier loop one level up, every known range has min <= max. */
#include <stdint.h>
#include <stdlib.h>

#include "cgp_hls.h"

static void check_count(cgp_hls_count c) {
  if (c.known && c.min > c.max) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cgp_hls_report r;
  char err[1024];
  err[0] = '\0';
  if (cgp_hls_parse((const char *)data, size, "fuzz_csynth.xml", &r, err, sizeof err) != 0) {
    if (!err[0]) abort();
    cgp_hls_free(&r);
    return 0;
  }
  const cgp_hls_count all[5] = {r.latency_best, r.latency_average, r.latency_worst, r.interval_min, r.interval_max};
  for (int i = 0; i < 5; i++) check_count(all[i]);
  for (unsigned i = 0; i < CGP_HLS_NRES; i++) check_count(r.used[i]), check_count(r.available[i]);
  for (unsigned i = 0; i < r.n_loops; i++) {
    const cgp_hls_loop *l = &r.loops[i];
    if (l->parent >= (int)i || (l->parent < 0 ? l->depth != 0 : l->depth != r.loops[l->parent].depth + 1)) abort();
    check_count(l->trips), check_count(l->latency), check_count(l->iteration_latency), check_count(l->pipeline_ii);
  }
  cgp_hls_free(&r);
  return 0;
}
