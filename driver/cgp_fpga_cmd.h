/* cgp_fpga_cmd.h: `cgpredict fpga FILE.c [--device NAME] [--baseline | --search] [--json] [-- FLAGS...]`,
   the FPGA estimate of a source's marked nests from the compiler alone (docs/model.md 11.9-11.11),
   and the estimate itself for other commands (cgpredict compare). */
#ifndef CGP_FPGA_CMD_H
#define CGP_FPGA_CMD_H

#include <stddef.h>

#include "cgp_fpga.h"

/* Which design: the pragma's (directives, auto, none; no clause: the search), the baseline, the search. */
enum { CGP_FPGA_MODE_PRAGMA, CGP_FPGA_MODE_BASELINE, CGP_FPGA_MODE_SEARCH };

/* One kernel's estimate: the nest's loops and arrays as named in the source, the design and what
   it gives. mode: CGP_FPGA_BASELINE, CGP_FPGA_LIST or CGP_FPGA_AUTO (cgp_pragma.h). */
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

/* Trip counts from elsewhere (a run's report) for a kernel's loops whose count is not static:
   trips[l] for nest loop l, 0 = none. */
typedef struct cgp_fpga_trips {
  char kernel[256];
  uint64_t trips[CGP_FPGA_MAX_LOOPS];
} cgp_fpga_trips;

/* Compile file (flags to clang) and estimate each marked nest on d; a loop whose trip count is
   not static takes the one `given` has for its kernel, if any (given may be NULL, n_given 0).
   *out (malloc'd, n entries: those estimated before any failure). Returns 0, or 1 with the errors
   on stderr. */
int cgp_fpga_estimate_file(const char *file, const cgp_fpga_device *d, char **flags, int nflags, int mode,
                           const cgp_fpga_trips *given, size_t n_given, cgp_fpga_result **out, size_t *n);
/* The design in words: "pipeline k, unroll k x4, partition A cyclic 4 (dim 2)", or "baseline (...)". */
void cgp_fpga_design_text(const cgp_fpga_result *r, char *buf, size_t cap);

/* argv: the arguments after `fpga`. Returns the exit status (0, 1 failure, 2 usage). */
int cgp_fpga_cmd(int argc, char **argv);

#endif
