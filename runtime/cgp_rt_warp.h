/* cgp_rt_warp.h: complete warps (cgp_rt_warp.c): a warp's lanes, recorded one after another as
   keyed runs (cgp_rt_lanes.h), grouped into one record that can be issued any number of times
   (cgp_rt_witer.h) and written as bytes (cgp_rt_wbytes.h). */
#ifndef CGP_RT_WARP_H
#define CGP_RT_WARP_H

#include "cgp_rt_lanes.h"

/* A complete warp: its lanes' runs grouped, ready to be issued any number of times. */
typedef struct rt_wwarp rt_wwarp;
/* lanes[l] with active[l] set took part; thread[l] is the lane's packed coordinate. */
rt_wwarp *rt_wwarp_build(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                         const uint64_t thread[RT_WARP]);
/* The same warp by the reference grouping (every run sorted by program point): what
   rt_wwarp_build's direct grouping of identically shaped lanes must equal, byte for byte. */
rt_wwarp *rt_wwarp_build_sorted(const rt_shape *s, const rt_lane_rec lanes[RT_WARP], const uint8_t active[RT_WARP],
                                const uint64_t thread[RT_WARP]);
/* The warp of lanes recorded into f (and, if it spilled, into their records): what
   rt_wwarp_build gives for the same lanes recorded one by one. f is emptied for the next warp
   (and the lane records hold what they would); NULL when out of memory. */
rt_wwarp *rt_wwarp_build_flat(const rt_shape *s, rt_flat *f, rt_lane_rec lanes[RT_WARP],
                              const uint8_t active[RT_WARP], const uint64_t thread[RT_WARP]);
/* Frees the warp, or drops one holder of a shared one (rt_wwarp_share): each holder frees it once. */
void rt_wwarp_free(rt_wwarp *w);
/* One more holder of w (two devices' windows holding its block: docs/pipeline.md, "Sampling"). */
void rt_wwarp_share(rt_wwarp *w);
/* Its holders besides the one freeing it last: 0 when rt_wwarp_free releases it. */
unsigned rt_wwarp_shares(const rt_wwarp *w);
size_t rt_wwarp_bytes(const rt_wwarp *w);
unsigned rt_wwarp_threads(const rt_wwarp *w);           /* lanes that took part */
/* 1 if every run of the warp has one element and no two share a point (straight-line bodies):
   it keeps only addresses and is walked without a queue; rt_wwarp_build_sorted's never is. */
int rt_wwarp_linear(const rt_wwarp *w);
const uint64_t *rt_wwarp_thread_keys(const rt_wwarp *w);

#endif
