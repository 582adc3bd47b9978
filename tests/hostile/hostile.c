/* The program tests/hostile/run builds with cgpredict and with a plain cc: one marked nest (fill),
   ended, left or forked around as its first argument says; its own atexit handler and output. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 8192
static float a[N];
static jmp_buf env;

static void bye(void) { printf("atexit handler ran\n"); }
static int is(const char *mode, const char *m) { return strcmp(mode, m) == 0; }

/* What happens halfway through the nest (a call: the pass inlines it into the nest). */
static void midway(const char *m, pid_t *child) {
  if (is(m, "fork-inside")) fflush(stdout), *child = fork();
  if (is(m, "term-inside")) raise(SIGTERM);
  if (is(m, "int-inside")) raise(SIGINT);
  if (is(m, "segv-inside")) raise(SIGSEGV);
  if (is(m, "exit-inside")) exit(3);
  if (is(m, "longjmp") || is(m, "longjmp-then-nest")) longjmp(env, 1);
}

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "ok";
  int n = is(m, "zero") ? 0 : N;
  pid_t child = -1;
  atexit(bye);
  printf("mode %s\n", m);
  if (is(m, "fork-before")) fflush(stdout), child = fork();
  if (!setjmp(env)) {
#pragma cgpredict kernel name(fill)
    for (int i = 0; i < n; i++) {
      a[i] = 2.0f * (float)i;
      if (i == n / 2) midway(m, &child);
    }
  }
  if (is(m, "longjmp-then-nest")) {
#pragma cgpredict kernel name(second)
    for (int i = 0; i < N; i++) a[i] += 1.0f;
  }
  if (is(m, "long")) {                        /* long enough to be stopped by a signal inside it */
    fputs("the slow nest begins\n", stderr);   /* (stderr: unbuffered, for the script to wait on) */
#pragma cgpredict kernel name(slow)
    for (long i = 0; i < (1L << 36); i++) a[i % N] += 1.0f;
  }
  if (is(m, "fork-after")) fflush(stdout), child = fork();
  if (child > 0) waitpid(child, NULL, 0);      /* the child's lines first, as in any run */
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i];
  printf("%s sum %.0f\n", child == 0 ? "child" : "parent", s);
  fflush(stdout);
  if (child == 0) exit(0);
  if (is(m, "_exit")) _exit(0);
  if (is(m, "quick_exit")) quick_exit(0);
  if (is(m, "kill-after")) raise(SIGKILL);
  if (is(m, "term-after")) raise(SIGTERM);
  return is(m, "status") ? 7 : 0;
}
