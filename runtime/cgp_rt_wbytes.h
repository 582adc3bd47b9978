/* cgp_rt_wbytes.h: a warp as bytes and back (cgp_rt_wbytes.c), the trace file's form of it. */
#ifndef CGP_RT_WBYTES_H
#define CGP_RT_WBYTES_H

#include "cgp_rt_warp.h"

#include <string.h>

/* The low `bytes` bytes of v at o, little-endian whatever the host (one store where the host is
   little-endian itself); returns o past them: the trace's integers (cgp_rt_wbytes.c,
   cgp_rt_trace.c), through rt_le32 and rt_le64. */
static inline unsigned char *rt_le(unsigned char *o, uint64_t v, unsigned bytes) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(o, &v, bytes);
#else
  for (unsigned i = 0; i < bytes; i++) o[i] = (unsigned char)(v >> (8 * i));
#endif
  return o + bytes;
}

static inline unsigned char *rt_le32(unsigned char *o, uint32_t v) { return rt_le(o, v, 4); }
static inline unsigned char *rt_le64(unsigned char *o, uint64_t v) { return rt_le(o, v, 8); }

/* The warp as bytes (the trace file, docs/pipeline.md "One trace, every device"): little-endian
   fixed-width integers, u32 threads, u32 key mask, a u64 thread key per mask bit (or one, the
   first lane's, where the keys are consecutive: cgp_rt_wbytes.c), u32 runs,
   u32 segments, per run u32 event, u32 iterations[RT_MAXD - 1], u32 segments, f32 skipped (IEEE
   754 bits), per segment u8 lane, u32 count, u64 first address, u64 stride (or a run's affine
   form: cgp_rt_wbytes.c). rt_wwarp_size_bound: bytes enough for it; rt_wwarp_serialise writes
   it and returns its length. */
size_t rt_wwarp_size_bound(const rt_wwarp *w);
/* Events the warp issues at most (the sum of its runs' longest counts): the work to replay it. */
uint64_t rt_wwarp_events(const rt_wwarp *w);
size_t rt_wwarp_serialise(const rt_wwarp *w, unsigned char *out);
/* Read one warp of a shape with `nev` events from p[0..len): NULL, with err saying what and at
   which byte of the warp, when the bytes are truncated or inconsistent (an event out of range,
   a lane twice in one run, a count of 0, more than RT_WARP lanes); *used: bytes it took. */
rt_wwarp *rt_wwarp_deserialise(const unsigned char *p, size_t len, size_t nev, size_t *used, char *err,
                               size_t errlen);

#endif
