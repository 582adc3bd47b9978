/* libFuzzer harness: the trace reader (cgp_trace.h). The bytes go through cgp_trace_check (header,
   records, kernel descriptors, every warp's runs and segments) and, when accepted, are replayed
   for one device through the runtime's window and batch analysis. Neither may crash; a refusal
   must say why. */
#include <stdint.h>
#include <stdlib.h>

#include "cgp_model.h"
#include "cgp_trace.h"

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
  if (have_dev && events <= 1000000) {           /* a count of 2^32 is well formed, only long */
    int partial = 0;
    err[0] = '\0';
    if (cgp_trace_replay_mem(data, size, "fuzz.trace", NULL, &dev, 1, &partial, err, sizeof err) != 0 && !err[0]) abort();
  }
  return 0;
}
