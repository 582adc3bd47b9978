/* libFuzzer harness: the trace reader (cgp_trace.h). The bytes go through cgp_trace_check (header,
   records, kernel descriptors, every warp's runs and segments) and, when accepted, are replayed
   for one device through the runtime's window and batch analysis. Neither may crash; a refusal
   must say why.

   The replay is bounded to MAX_EVENTS warp events: a run's count is 4 bytes, so a few bytes can ask
   for a million events, which took ~0.8 s each (ASan+UBSan) and held the whole run near 50-250
   exec/s. What the replay does per event does not change with the count: with a cap of 10^6 and
   of 4096, the same 400-input corpus reaches the same 668 edges and 2092 features, and 4096
   events still overflow the TK1's L2 (2048 lines of 64 bytes: 64 events of 32 lanes) and L1. Longer
   traces are still read and checked in full. */
#include <stdint.h>
#include <stdlib.h>

#include "cgp_model.h"
#include "cgp_trace.h"

#define MAX_EVENTS 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static cgp_device dev;
  static int have_dev = -1;
  char err[1024];
  if (have_dev < 0) have_dev = cgp_device_find("jetson-tk1", &dev, err, sizeof err) == 0;
  err[0] = '\0';
  uint64_t events = 0;
  if (cgp_trace_check(data, size, "fuzz.trace", &events, err, sizeof err) != 0) {
    if (!err[0]) abort();
    return 0;
  }
  if (have_dev && events <= MAX_EVENTS) {
    int partial = 0;
    err[0] = '\0';
    if (cgp_trace_replay_mem(data, size, "fuzz.trace", NULL, &dev, 1, &partial, err, sizeof err) != 0 && !err[0]) abort();
  }
  return 0;
}
