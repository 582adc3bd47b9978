/* cgp_trace.h: one trace, every device (docs/pipeline.md, "One trace, every device").

   An instrumented run writes, next to its report, <report>.trace: every kernel's descriptor and,
   per analysed launch in program order, the reconvergent warps of its traced windows. Those
   warps are device independent; what a device makes of them (batches of B x no_sm blocks, L1
   and L2 of its geometry) is not. cgp_trace_replay runs the runtime's own window and batch
   analysis (cgp_rt_window.c) over them for devices the run did not analyse.

   File format (version 9: a run's lanes' weights where they differ (cgp_rt_wbytes.c); 8: a run's untraced tail, 'T'; 7: a warp of consecutive thread keys writes the first lane's alone
   (cgp_rt_wbytes.c); 6: a launch of `run` or `skip` mode traced whole, a small grid
   (rt_launch_whole), is flagged 1 as `full`'s launches are; 5: leaf-loop windows of 64
   iterations, whose first spreads the skipped
   ones over all its iterations but the loop's start-up (cgp_rt_lanes.h: a replay reads a run's
   `skipped` and its window by these rules), and a warp's run of one element a lane on an affine
   address is 20 bytes (cgp_rt_wbytes.c); 4: launches say their windows' warming extension;
   3: checked, not trusted;
   2: runs say what they stand for), little-endian
   fixed-width integers:
     header  "CGPTRACE", u32 version, u32 RT_MAXD, u64 run id (the report's runtime.run_id)
     records u8 tag, then
       'K' u32 kernel (its place in the report: increasing), u32 length, descriptor JSON (the pass's)
       'L' u32 kernel, u64 launch, u32 block x, y, z, u64 W (window blocks), u64 ext (blocks a
       window may trace before its start to warm the caches: rt_warm_extension), u8 full (1:
       every block in windows one after another, SAMPLE=full or a small grid traced whole; 2: a
       launch traced for the caches alone, the one before an analysed launch: no batch counts)
       'B' u64 window start, u64 block offset, u32 warps, per warp u32 length + rt_wwarp bytes
       'W' u64 window start, u64 size, u64 region end, u8 budget hit      (the window closed; its
           blocks before start + size - W are its extension, and it stands for them on to the
           region's end)
       'E' u64 grid blocks                                               (the launch ended)
       'T' u32 kernel, u64 run length, u64 streak, u64 ref, u32 n, per site n x (u64 lo, u64 hi,
           i64 delta)    (between launches: a run of the kernel ended, its launches from position
           `streak` on traced (0: its last was not), its launch at position p having referenced
           [lo + (p - ref) delta, hi + (p - ref) delta) per site: rt_tail, cgp_rt_tail.c; at least
           RT_LAW_POINTS of the kernel's launches since its last 'T')
       'Z' u64 records before it, u64 warp events in all the 'B' records and RT_TAIL_EVENTS a 'T'
           record (what a replay issues per device, at most: the report's runtime.trace.events),
           u32 CRC-32 (zlib) of every byte before it
                                                                         (the end; nothing follows)
   A replay against a report refuses, with FILE: byte N: what, a trace of another run (run id), a
   damaged one (checksum, or any record out of range) and one whose launches do not fit the
   report's kernels (name, block shape, launch number) or whose events are not the report's. */
#ifndef CGP_TRACE_H
#define CGP_TRACE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "cgp_model.h"

#define CGP_TRACE_MAGIC "CGPTRACE"
#define CGP_TRACE_VERSION 11u
#define CGP_TRACE_HEADER_BYTES 24
#define CGP_TRACE_CAP_BYTES ((size_t)4 << 30)

/* Replay the trace at `path` (of the run that wrote `report`) for devs[0..ndev): every sample of
   every kernel gets analysis[<device>] as the runtime would have computed it. partial[i] (may be
   NULL) is set when device i's batch is larger than half a traced window (the run sized its
   windows for smaller devices: its batches are cut at the window's end). 0, or -1 with err naming
   the file and the byte offset of what is wrong (truncated, corrupt, another report's trace). */
int cgp_trace_replay(const char *path, cJSON *report, const cgp_device *devs, size_t ndev, int *partial,
                     char *err, size_t errlen);

/* The same on a trace held in memory (`name` in messages); report NULL: only analyse (the fuzzer). */
int cgp_trace_replay_mem(const unsigned char *data, size_t len, const char *name, cJSON *report,
                         const cgp_device *devs, size_t ndev, int *partial, char *err, size_t errlen);

/* Only the reading and checking (the fuzzer's entry point): 0 if `data` is a well-formed trace;
   *events (may be NULL): the warp events a replay would issue per device, at most (a run's count
   is up to 2^32 - 1 iterations: a well-formed trace may still be long to replay). */
#include <stdint.h>
int cgp_trace_check(const unsigned char *data, size_t len, const char *name, uint64_t *events, char *err,
                    size_t errlen);

/* For the fuzzer: rewrite the end marker's event count and checksum of a trace whose records are
   otherwise well formed, so that mutated bytes reach the checks and the replay behind them. 0 if
   sealed, -1 (err) where the records are refused before the end marker. */
int cgp_trace_seal(unsigned char *data, size_t len, char *err, size_t errlen);

#endif
