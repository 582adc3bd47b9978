/* The program tests/hostile/run builds with cgpredict and with a plain cc: one marked nest (fill,
   a gather whose prediction depends on its addresses), ended, left or forked around as its first
   argument says; its own atexit handler and output. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (1 << 18)
static float a[N], b[N];
static jmp_buf env;
static const char *mode = "ok";
static pid_t child = -1;

static void bye(void) { printf("atexit handler ran\n"); }
static int is(const char *m) { return strcmp(mode, m) == 0; }

/* What happens halfway through the nest: not inlined, so the nest's body stays a plain gather
   (the pass warns that this call is not traced). */
__attribute__((noinline)) static void midway(void) {
  if (is("fork-inside")) fflush(stdout), child = fork();
  if (is("term-inside")) raise(SIGTERM);
  if (is("int-inside")) raise(SIGINT);
  if (is("segv-inside")) raise(SIGSEGV);
  if (is("exit-inside")) exit(3);
  if (is("longjmp") || is("longjmp-then-nest")) longjmp(env, 1);
}

int main(int argc, char **argv) {
  if (argc > 1) mode = argv[1];
  int n = is("zero") ? 0 : N, half = is("fork-inside") || is("term-inside") || is("int-inside") ||
                                    is("segv-inside") || is("exit-inside") || is("longjmp") ||
                                    is("longjmp-then-nest") ? N / 2 : -1;
  atexit(bye);
  printf("mode %s\n", mode);
  for (int i = 0; i < N; i++) b[i] = (float)(i % 7);
  if (is("fork-before")) fflush(stdout), child = fork();
  if (!setjmp(env)) {
#pragma cgpredict kernel name(fill)
    for (int i = 0; i < n; i++) {
      a[i] = 2.0f * b[(i * 33) % N];
      if (i == half) midway();
    }
  }
  if (is("longjmp-then-nest")) {
#pragma cgpredict kernel name(second)
    for (int i = 0; i < N; i++) a[i] += 1.0f;
  }
  if (is("long")) {                           /* long enough to be stopped by a signal inside it */
    fputs("the slow nest begins\n", stderr);   /* (stderr: unbuffered, for the script to wait on) */
#pragma cgpredict kernel name(slow)
    for (long i = 0; i < (1L << 36); i++) a[i % N] += 1.0f;
  }
  if (is("fork-after")) fflush(stdout), child = fork();
  if (child > 0) waitpid(child, NULL, 0);      /* the child's lines first, as in any run */
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i];
  printf("%s sum %.0f\n", child == 0 ? "child" : "parent", s);
  fflush(stdout);
  if (child == 0) exit(0);
  if (is("_exit")) _exit(0);
  if (is("quick_exit")) quick_exit(0);
  if (is("kill-after")) raise(SIGKILL);
  if (is("term-after")) raise(SIGTERM);
  return is("status") ? 7 : 0;
}
