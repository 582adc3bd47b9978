/* cgp_rt.h: libcgpredict_rt, linked into instrumented programs.

   The pass (pass/cgp_pass.h) inserts calls to the five hooks below into each marked loop nest.
   From them the runtime forms pseudo-threads (one iteration of the innermost mapped loop),
   pseudo-warps (32 consecutive threads in x + y*bx + z*bx*by order inside a block) and blocks,
   samples which blocks and launches to trace, folds each traced warp's accesses into warp
   memory instructions as soon as the warp is complete, and hands windows of consecutive blocks
   to the analyzer (classes, transactions, L2). At exit it runs the model for every requested
   device and writes the report atomically.

   One thread at a time is traced: the first thread inside a marked nest owns the runtime until it
   leaves; a thread entering one meanwhile runs it untraced (counted in the report).

   Environment:
     CGPREDICT_REPORT   report path (default cgpredict-report.json)
     CGPREDICT_DEVICE   comma-separated device names (default: every device in the database)
     CGPREDICT_QUIET    when set and not "0", no summary on stderr
     CGPREDICT_BLOCK    block shapes for kernels whose pragma gives none, e.g. "256,32x32":
                        a shape with d numbers applies to d-dimensional grids
     CGPREDICT_SAMPLE   "run" (default): threads outside the sample run uninstrumented, the
                        program's results are unchanged; "skip": they are skipped (results
                        change; for predicting at sizes too large to run); "full": trace all
     CGPREDICT_MEMORY_MB  trace memory budget (default 64)
     CGPREDICT_DIN      prefix of Dinero IV din files of each device's L2 stream
     CGPREDICT_TRACE, CGPREDICT_TRACE_MB  the trace file for `cgpredict report --device` (README)
     CGPREDICT_STRICT   "1": a tool failure turns exit status 0 into 1
*/
#ifndef CGP_RT_H
#define CGP_RT_H

#include <stdint.h>

/* What cgp_rt_thread tells the instrumented thread body to do. */
enum { CGP_RT_PLAIN = 0, CGP_RT_TRACE = 1, CGP_RT_SKIP = 2 };

/* A marked nest is about to run (one kernel launch). `desc` is the pass's JSON descriptor of
   the kernel; the same pointer comes back on every launch. */
/* For the stub (cgp_rt_stub.c), which loads this runtime after main began: from then on the stub's
   own strict exit handler, registered before main (so run after every handler of the program),
   does what CGPREDICT_STRICT asks, and this runtime's stands down. Returns 1 if the tool has
   failed so far (a report not computed or not written). */
int cgp_rt_strict_handover(void);
void cgp_rt_kernel_begin(const char *desc);
/* The same, for a nest whose descriptor gives a mapped loop's step as 0 in iv_step (known only at
   run time, cgp_abi.h): sx, sy, sz are the steps of the x, y and z loops this launch (a constant
   step as in the descriptor, 1 where not mapped). A step of 0 has no thread mapping: the launch
   is said on stderr and runs untraced. */
void cgp_rt_kernel_begin_step(const char *desc, int64_t sx, int64_t sy, int64_t sz);
/* Called just before kernel_begin (or _step) of a nest whose mapped loops' bounds are values it is
   entered with: key mixes them, one key per grid shape (cgp_abi.h, CGP_HOOK_KERNEL_CLASS). */
void cgp_rt_kernel_class(uint64_t key);
/* A pseudo-thread starts: x is the innermost mapped loop's index, y and z the next ones out
   (0 when not mapped). Returns CGP_RT_SKIP when the body may be skipped. A CGP_RT_PLAIN answer
   may carry, in bits 2 and up, a count n (at most CGP_RT_MAX_GRANT): threads x + 1 .. x + n of
   the same y and z are plain too, and a thread loop stepping by 1 may run them without calling
   here, then call cgp_rt_fast_end with the last one it ran. */
int32_t cgp_rt_thread(int64_t x, int64_t y, int64_t z);
#define CGP_RT_MAX_GRANT (1u << 28)
/* The plain threads granted after thread x ran, up to thread `last` (x itself if none). */
void cgp_rt_fast_end(int64_t last);
/* The current thread accesses `addr` through static memory instruction `sid` of the kernel;
   `base` is the pointer the address was indexed from. */
void cgp_rt_mem(uint32_t sid, const void *addr, const void *base);
/* Sites first .. first + count - 1, in order, as cgp_rt_mem(first + k, addr[k], base[k]) each:
   one call for a block's sites (what the pass emits). */
void cgp_rt_mem_block(uint32_t first, uint32_t count, void *const *addr, void *const *base);
/* A load the compiler hoisted out of the thread loop ran, outside any thread: every following
   thread of the nest makes it first, as its CUDA thread would (the latest address per sid). */
void cgp_rt_hoisted(uint32_t sid, const void *addr, const void *base);
/* The current thread enters thread-body block `bid`. */
void cgp_rt_bb(uint32_t bid);
/* What a block of a straight-line body may do instead (cgp_abi.h, CGP_HOOK_BLOCK_SEEN): mark
   bit bid % 64 of cgp_rt_block_seen[bid / 64]; the marks are taken when the thread ends.
   cgp_rt_block_seen_at(p): take them from p (the stub's array, which its objects write) instead
   of this one. */
extern uint64_t cgp_rt_block_seen[];
void cgp_rt_block_seen_at(uint64_t *p);
/* A folded loop (docs/pipeline.md, "Folded loops") ran n >= 1 iterations of its one block bid
   without hooks: its header's block hook and sites first .. first + count - 1 are issued now for
   every iteration, site s at a0[s] in the first, a1[s] in the second and so on (affine), indexed
   from base[s]. The pass folds a loop only where cgp_rt_fold and cgp_rt_tracing == 1 at its entry. */
void cgp_rt_loop(uint32_t bid, uint64_t n, uint32_t first, uint32_t count, void *const *a0, void *const *a1,
                 void *const *base);
/* The marked nest has been left. */
void cgp_rt_kernel_end(void);
/* Nonzero while the current thread is traced; the pass calls cgp_rt_mem_block and cgp_rt_bb only then. */
extern int cgp_rt_tracing;
/* 1 while a traced thread's loops are traced whole, so that a loop may be folded (cgp_rt_loop). */
extern int cgp_rt_fold;
/* The traced thread's skipping state, read and updated by the instrumented code (cgp_abi.h,
   CGP_HOOK_PAUSE): it runs a skipped iteration of a sampled loop without calling cgp_rt_bb. */
extern int32_t cgp_rt_pause[3];

#endif
