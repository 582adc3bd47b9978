/* cgp_rt_file.c: tool failures at exit. The program comes first: a failure is reported on
   stderr and the run carries on to the program's own exit. In strict mode (CGPREDICT_STRICT=1)
   an exit handler registered before main, so run after every handler of the program, turns
   exit status 0 into 1; it flushes every stream first, then _exit(1). */
#define _DEFAULT_SOURCE             /* on_exit: the only exit handler that sees the status */
#include "cgp_rt_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int tool_failed;
static volatile int handed_over;         /* the stub exits strictly for us (cgp_rt_strict_handover) */
static pid_t started_in;                 /* a fork's exit status is its own: no failure of ours */

void rt_tool_failure(const char *what) {
  fflush(stdout);
  fprintf(stderr, "cgpredict: %s\n", what);
  tool_failed = 1;
}

int rt_tool_failed(void) { return tool_failed; }

static int strict_mode(void) {
  const char *s = getenv("CGPREDICT_STRICT");
  return s && strcmp(s, "1") == 0;
}

static void strict_exit(int status, void *arg) {
  (void)arg;
  if (handed_over || !tool_failed || status != 0 || getpid() != started_in) return;
  fflush(NULL);
  fputs("cgpredict: CGPREDICT_STRICT=1: exit status 1 instead of 0 (the tool failed, see above)\n", stderr);
  _exit(1);
}

int cgp_rt_strict_handover(void) {
  handed_over = 1;
  return tool_failed;
}

__attribute__((constructor(101))) static void rt_file_init(void) {
  started_in = getpid();
  if (strict_mode()) on_exit(strict_exit, NULL);
}
