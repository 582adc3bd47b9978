/* cgp_rt_cpu.h: the nest's CPU time. The threads the runtime lets run untraced run the nest's
   own code (the clean copy; no hook inside), so their time, counted while they run and not while
   the runtime analyses, is the CPU's time for them (docs/model.md section 12). The thread's CPU
   clock (user and system, so page faults count; unlike a wall clock, not the time other processes
   took the core): a span opens when a thread is let run untraced after a traced one (or first),
   closes when a traced or skipped one comes, and is paused while a batch or window is analysed;
   the clock is read only there. Inline in the files that open, pause and close spans, each after
   its L (cgp_rt_launch.h): the hooks (cgp_rt.c), where every thread thread_slow answers is
   marked and a call would cost the hot path, the windows (cgp_rt_sched.c) and the nest's exit
   (cgp_rt_nest.c). Only some launches of a kernel are timed (rt_launch_timed): the clock is a
   system call (some 0.5 us), and a kernel of thousands of short launches read it twice a launch
   (JACOBI1D at TSTEPS = 10000: 40,000 reads, a quarter of its instrumented run). */
#ifndef CGP_RT_CPU_H
#define CGP_RT_CPU_H

#include <time.h>

#include "cgp_rt_internal.h"

/* The launches whose untraced threads are timed: a kernel's first RT_TIMED_FIRST, then every
   RT_TIMED_EVERY-th (n: the launch's index among the kernel's). cpu_ms is the time per timed
   thread times every thread, so launches spread over the run stand for the rest. */
#define RT_TIMED_FIRST 32
#define RT_TIMED_EVERY 16
static inline int rt_launch_timed(uint64_t n) { return n < RT_TIMED_FIRST || n % RT_TIMED_EVERY == 0; }

static inline double plain_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void plain_close(void) {
  if (L->plain_t0 < 0) return;
  L->k->plain_s += plain_now() - L->plain_t0;
  L->k->plain_threads += L->threads - L->plain_from;
  L->plain_t0 = -1;
}

/* thread_slow's answer r for the thread it just counted. */
static inline int32_t plain_mark(int32_t r) {
  if (r == CGP_RT_TRACE || r == CGP_RT_SKIP) {
    if (L->plain_t0 >= 0) {
      L->threads--;                             /* this one is not of the span */
      plain_close();
      L->threads++;
    }
  } else if (L->plain_t0 < 0 && L->timed) {
    L->plain_from = L->threads - 1;             /* this one is */
    L->plain_t0 = plain_now();
  }
  return r;
}

/* Runtime work inside a span: the span's clock stops for it. */
static inline double plain_pause(void) { return L->plain_t0 >= 0 ? plain_now() : -1; }
static inline void plain_resume(double t) {
  if (t >= 0) L->plain_t0 += plain_now() - t;
}

#endif
