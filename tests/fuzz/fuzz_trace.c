/* libFuzzer harness: the trace reader (cgp_trace.h). Each input is first sealed (cgp_trace_seal:
   its end marker's event count and checksum rewritten to fit its bytes; an input whose records
   are refused before the end marker is checked as it is), so that mutations reach the record
   checks and the replay instead of stopping at the checksum. Then cgp_trace_check and, when
   accepted, a replay for one device through the runtime's window and batch analysis. Neither may
   crash; a refusal must say why.

   Large event counts, with a time budget (issue 31 item 3): a run's count is 4 bytes, so a few
   bytes can ask for millions of warp events, and one such count made `report --device` run past
   300 s. A replay's work must follow what the trace promises (the end marker's warp events, which
   a replay against a report must equal the report's runtime.trace.events): traces of up to
   MAX_EVENTS events are replayed, and a replay that takes more CPU time than TIME_BASE_S +
   TIME_PER_EVENT_S per promised event aborts, a finding. CPU time, not wall time: a first run
   timed by the clock on a loaded 2-core machine, at nice 19, "found" a replay of 102,150 events
   that took 5.1 s there and 0.54 s alone. The budget per event is some 10 times what ASan+UBSan
   take (~2 us an event on the slowest inputs found, 3.5 M events in 7.9 s). Longer traces are
   read and checked in full.

   The cap is CGP_FUZZ_TRACE_MAX_EVENTS from the environment when set (a whole number from 1 to
   2^22, read once; anything else aborts at the first input, so no run believes it fuzzed a
   configuration it did not): `CGP_FUZZ_TRACE_MAX_EVENTS=4096` is the fast configuration (version
   2's cap: every input replayed is small, so the replay and check paths run thousands of times a
   second), the default 2^22 the slow one that reaches large promises within their budget. Traces
   over the cap are still sealed and checked in full either way. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgp_model.h"
#include "cgp_trace.h"

#define MAX_EVENTS (1u << 22)   /* the default cap and the largest one may ask for */
#define TIME_BASE_S 2.0
#define TIME_PER_EVENT_S 20e-6

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The replay cap: CGP_FUZZ_TRACE_MAX_EVENTS, else MAX_EVENTS. */
static uint64_t max_events(void) {
  static uint64_t cap;
  if (cap) return cap;
  const char *v = getenv("CGP_FUZZ_TRACE_MAX_EVENTS");
  cap = MAX_EVENTS;
  if (v) {
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || *v == '-' || n < 1 || n > MAX_EVENTS) {
      fprintf(stderr, "fuzz_trace: CGP_FUZZ_TRACE_MAX_EVENTS='%s': expected a whole number from 1 to %u\n", v,
              MAX_EVENTS);
      abort();
    }
    cap = n;
    fprintf(stderr, "fuzz_trace: traces of at most %llu warp events are replayed\n", n);
  }
  return cap;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static cgp_device dev;
  static int have_dev = -1;
  char err[1024];
  if (have_dev < 0) have_dev = cgp_device_find("jetson-tk1", &dev, err, sizeof err) == 0;
  unsigned char *buf = malloc(size ? size : 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  (void)cgp_trace_seal(buf, size, err, sizeof err);
  err[0] = '\0';
  uint64_t events = 0;
  if (cgp_trace_check(buf, size, "fuzz.trace", &events, err, sizeof err) != 0) {
    if (!err[0]) abort();
    free(buf);
    return 0;
  }
  if (have_dev && events <= max_events()) {
    int partial = 0;
    err[0] = '\0';
    double t0 = now();
    if (cgp_trace_replay_mem(buf, size, "fuzz.trace", NULL, &dev, 1, &partial, err, sizeof err) != 0 && !err[0]) abort();
    double took = now() - t0, budget = TIME_BASE_S + TIME_PER_EVENT_S * (double)events;
    if (took > budget) {
      fprintf(stderr, "fuzz_trace: the replay of %llu promised events took %.1f s of CPU, over its budget of %.1f s\n",
              (unsigned long long)events, took, budget);
      abort();
    }
  }
  free(buf);
  return 0;
}
