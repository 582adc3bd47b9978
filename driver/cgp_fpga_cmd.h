/* cgp_fpga_cmd.h: `cgpredict fpga FILE.c [--device NAME] [--baseline | --search] [--json] [-- FLAGS...]`,
   the FPGA estimate of a source's marked nests from the compiler alone (docs/model.md 11.9-11.11),
   and the estimate itself for other commands (cgpredict compare). */
#ifndef CGP_FPGA_CMD_H
#define CGP_FPGA_CMD_H

#include <stddef.h>

#include "cgp_fpga.h"
#include "cgp_fpga_kernel.h"

struct cgp_kernel_pragma;
struct cgp_hls_nest;

/* Which design: the pragma's (directives, auto, none; no clause: the search), the baseline, the search. */
enum { CGP_FPGA_MODE_PRAGMA, CGP_FPGA_MODE_BASELINE, CGP_FPGA_MODE_SEARCH };

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

/* Kernel k's nest h as the model takes it (n points into h) and r's static fields: names, trips,
   the design source (mode: CGP_FPGA_MODE_*, with the pragma's clause) and, for directives, the
   design. 0, or 1 with `file:line:col: error: ...` in err. */
int cgp_fpga_prepare(const struct cgp_kernel_pragma *k, const struct cgp_hls_nest *h, int mode, cgp_fpga_result *r,
                     cgp_fpga_nest *n, char *err, size_t errlen);

/* For `cgpredict build`: each of the nk kernels of file as the run's report estimates it on an
   FPGA, json[i] (malloc'd; NULL when out of memory): the carried nest (cgp_fpga_kernel_to_json),
   or {"note": why there is none}. Never fails the build: a source the FPGA side cannot take gets
   the note. */
void cgp_fpga_carry(const char *file, char **flags, int nflags, const struct cgp_kernel_pragma *k, size_t nk,
                    char **json);

/* argv: the arguments after `fpga`. Returns the exit status (0, 1 failure, 2 usage). */
int cgp_fpga_cmd(int argc, char **argv);

#endif
