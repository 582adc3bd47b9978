/* cgp_rt_stub.c: what `cgpredict cc -c` links into each instrumented object (ld -r), so that
   the object also links with a plain `cc`, without the runtime archive.

   Every hook and cgp_rt_tracing are defined here WEAK: when the real runtime is linked in
   (`cgpredict cc` at link time appends libcgpredict_rt.a), ... its strong definitions win if
   they are extracted; otherwise these run. On their first call they load the shared runtime,
   libcgpredict_rt.so, by the absolute path it was built at (or $CGPREDICT_RUNTIME_SO), and
   forward every hook to it; cgp_rt_tracing, which the instrumented code reads directly, is
   copied from the loaded runtime after each hook (only hooks change it). Several instrumented
   objects in one program carry one copy each; the linker keeps one.

   If the shared runtime cannot be loaded, the program runs uninstrumented (every thread
   "plain", nothing traced), says so once on stderr and writes no report. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgp_abi.h"
#include "cgp_rt.h"

#ifndef CGP_RUNTIME_SO
#define CGP_RUNTIME_SO "libcgpredict_rt.so"
#endif

#define WEAK __attribute__((weak))

WEAK int cgp_rt_tracing;
/* Defined by the runtime when it is linked in (a weak reference: null otherwise). */
extern int cgp_rt_strict_handover(void) __attribute__((weak));
/* Never updated here: its loop stays -1, so the instrumented code calls cgp_rt_bb in every
   block (forwarded below) instead of skipping an iteration itself (cgp_abi.h). */
WEAK int32_t cgp_rt_pause[3] = {-1, 0, 0};
/* Never set here either: no loop is folded, every iteration calls the hooks (cgp_rt_loop is
   forwarded all the same). */
WEAK int cgp_rt_fold;
/* The marks of a straight-line body's blocks (cgp_abi.h, CGP_HOOK_BLOCK_SEEN): the loaded
   runtime is told to read them here, where these objects write them. */
WEAK uint64_t cgp_rt_block_seen[CGP_FLAT_EVENTS / 64];

static struct {
  int state;                              /* 0: not tried, 1: loaded, -1: not available */
  void (*begin)(const char *);
  void (*begin_step)(const char *, int64_t, int64_t, int64_t);
  void (*klass)(uint64_t);
  int32_t (*thread)(int64_t, int64_t, int64_t);
  void (*fast_end)(int64_t);
  void (*mem)(uint32_t, const void *, const void *);
  void (*mem_block)(uint32_t, uint32_t, void *const *, void *const *);
  void (*hoisted)(uint32_t, const void *, const void *);
  void (*bb)(uint32_t);
  void (*loop)(uint32_t, uint64_t, uint32_t, uint32_t, void *const *, void *const *, void *const *);
  void (*end)(void);
  void (*seen_at)(uint64_t *);
  int (*handover)(void);
  int *tracing;
} rt;

/* CGPREDICT_STRICT=1 (README): a tool failure turns exit status 0 into 1, after every handler of
   the program. The loaded runtime's handler would be registered too late for that (at its load,
   after main began), so this one, registered before main, does it instead, asking the runtime
   whether it failed; not loading it at all is a failure too. Not when the runtime is linked in
   (its own handler, registered before main, does it): the weak reference is then not null. */
static pid_t stub_pid;

static void stub_strict_exit(int status, void *arg) {
  (void)arg;
  if (status != 0 || getpid() != stub_pid || !rt.state) return;
  if (rt.state > 0 && !rt.handover()) return;
  fflush(NULL);
  fputs("cgpredict: CGPREDICT_STRICT=1: exit status 1 instead of 0 (the tool failed, see above)\n", stderr);
  _exit(1);
}

__attribute__((constructor)) static void stub_init(void) {
  const char *s = getenv("CGPREDICT_STRICT");
  if (cgp_rt_strict_handover || !s || strcmp(s, "1") != 0) return;
  stub_pid = getpid();
  on_exit(stub_strict_exit, NULL);
}

/* The dynamic section of the program: absent (a null weak reference) in a statically linked one,
   where loading a shared library that needs the C library's shared copy cannot work. */
extern char _DYNAMIC[] __attribute__((weak));

/* Why `path` cannot be loaded before trying it, or NULL: a static program, or a path that is not
   a regular file (a FIFO would block dlopen's read for ever, a device read without end). */
static const char *unloadable(const char *path) {
  struct stat st;
  if (!_DYNAMIC) return "the program is linked statically (-static): link it dynamically, or with `cgpredict cc`";
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return "not a regular file";
  return NULL;
}

static int load(void) {
  if (rt.state) return rt.state > 0;
  const char *path = getenv("CGPREDICT_RUNTIME_SO");
  if (!path || !*path) path = CGP_RUNTIME_SO;
  const char *why = unloadable(path);
  void *h = why ? NULL : dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h) {
    *(void **)&rt.begin = dlsym(h, CGP_HOOK_KERNEL_BEGIN);
    *(void **)&rt.begin_step = dlsym(h, CGP_HOOK_KERNEL_BEGIN_STEP);
    *(void **)&rt.klass = dlsym(h, CGP_HOOK_KERNEL_CLASS);
    *(void **)&rt.thread = dlsym(h, CGP_HOOK_THREAD);
    *(void **)&rt.fast_end = dlsym(h, CGP_HOOK_FAST_END);
    *(void **)&rt.mem = dlsym(h, CGP_HOOK_MEM);
    *(void **)&rt.mem_block = dlsym(h, CGP_HOOK_MEM_BLOCK);
    *(void **)&rt.hoisted = dlsym(h, CGP_HOOK_HOISTED);
    *(void **)&rt.bb = dlsym(h, CGP_HOOK_BB);
    *(void **)&rt.loop = dlsym(h, CGP_HOOK_LOOP);
    *(void **)&rt.end = dlsym(h, CGP_HOOK_KERNEL_END);
    *(void **)&rt.seen_at = dlsym(h, CGP_HOOK_BLOCK_SEEN_AT);
    rt.tracing = dlsym(h, CGP_HOOK_TRACING);
    *(void **)&rt.handover = dlsym(h, CGP_RT_STRICT_HANDOVER);
  }
  if (!h || !rt.begin || !rt.begin_step || !rt.klass || !rt.thread || !rt.fast_end || !rt.mem || !rt.mem_block || !rt.hoisted || !rt.bb || !rt.loop || !rt.end || !rt.seen_at ||
      !rt.tracing || !rt.handover) {
    fprintf(stderr, "cgpredict: this program has loop nests compiled with `cgpredict cc -c` but was linked "
            "without the cgpredict runtime, and the runtime library '%s' cannot be loaded (%s): the nests run "
            "uninstrumented and no report is written. Link the program with `cgpredict cc`, or set "
            "CGPREDICT_RUNTIME_SO to libcgpredict_rt.so.\n", path, why ? why : h ? "a hook is missing" : dlerror());
    rt.state = -1;
    return 0;
  }
  rt.seen_at(cgp_rt_block_seen);
  if (stub_pid) rt.handover();                /* from now on our strict handler, not its own */
  rt.state = 1;
  return 1;
}

WEAK void cgp_rt_kernel_begin(const char *desc) {
  if (!load()) return;
  rt.begin(desc);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_kernel_begin_step(const char *desc, int64_t sx, int64_t sy, int64_t sz) {
  if (!load()) return;
  rt.begin_step(desc, sx, sy, sz);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_kernel_class(uint64_t key) {
  if (!load()) return;
  rt.klass(key);
}

WEAK int32_t cgp_rt_thread(int64_t x, int64_t y, int64_t z) {
  if (rt.state <= 0) return CGP_RT_PLAIN;   /* kernel_begin has run first */
  int32_t r = rt.thread(x, y, z);
  cgp_rt_tracing = *rt.tracing;
  return r;
}

WEAK void cgp_rt_fast_end(int64_t last) {
  if (rt.state > 0) rt.fast_end(last);
}

WEAK void cgp_rt_mem(uint32_t sid, const void *addr, const void *base) {
  if (rt.state <= 0) return;
  rt.mem(sid, addr, base);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_mem_block(uint32_t first, uint32_t count, void *const *addr, void *const *base) {
  if (rt.state <= 0) return;
  rt.mem_block(first, count, addr, base);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_hoisted(uint32_t sid, const void *addr, const void *base) {
  if (rt.state <= 0) return;
  rt.hoisted(sid, addr, base);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_bb(uint32_t bid) {
  if (rt.state <= 0) return;
  rt.bb(bid);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_loop(uint32_t bid, uint64_t n, uint32_t first, uint32_t count, void *const *a0, void *const *a1,
                      void *const *base) {
  if (rt.state <= 0) return;
  rt.loop(bid, n, first, count, a0, a1, base);
  cgp_rt_tracing = *rt.tracing;
}

WEAK void cgp_rt_kernel_end(void) {
  if (rt.state <= 0) return;
  rt.end();
  cgp_rt_tracing = *rt.tracing;
}
