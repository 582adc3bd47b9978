/* cgp_rt_wwarp.h: a warp's layout, private to the runtime's warp code (cgp_rt_warp.c builds warps,
   cgp_rt_witer.c issues their events, cgp_rt_wbytes.c writes and reads them as bytes), and the
   comparison of two points those files share. */
#ifndef CGP_RT_WWARP_H
#define CGP_RT_WWARP_H

#include "cgp_rt_warp.h"

typedef struct {
  uint32_t ev, maxcount, mincount;
  uint32_t lanes;              /* mask of its lanes: all of them take part in elements < mincount */
  uint32_t t[RT_MAXD - 1];
  uint32_t seg0, nseg;
  float skipped;               /* per element, the most of its lanes' runs (the warp issues an
                                  instruction while any lane runs the iteration) */
  float lane_w;                /* 0 while its lanes stand for as many executions each (the common
                                  case); once two differ (lanes that leave a sampled loop at
                                  different iterations, their trip counts their own), the sum of
                                  its lanes' weights, 1 + skipped each (rt_wrun_add_lane) */
  uint32_t pad;                /* (8-byte size: a linear warp's addresses follow its runs) */
} rt_wrun;

/* Run r, holding `nseg` lanes so far, takes one whose elements each stand for `skipped`
   executions in untraced iterations: r's own `skipped` is its lanes' largest (the warp issues
   while any lane runs), lane_w what they stand for lane by lane. */
static inline void rt_wrun_add_lane(rt_wrun *r, uint32_t nseg, float skipped) {
  if (r->lane_w > 0)
    r->lane_w += 1 + skipped;
  else if (nseg > 0 && skipped != r->skipped)     /* every lane so far stood for the run's own */
    r->lane_w = (float)nseg * (1 + r->skipped) + (1 + skipped);
  if (nseg == 0 || skipped > r->skipped) r->skipped = skipped;
}

typedef struct {
  uint32_t lane, count;
  uint64_t a0, stride;
} rt_seg;

struct rt_wwarp {
  rt_wrun *run;
  size_t nrun;
  rt_seg *seg;                 /* NULL when linear */
  size_t nseg;
  unsigned threads;
  int linear;                  /* every run one element, no two at one point: run k is event k */
  int one_block;               /* run and addr are in w's own allocation (new_linear), of
                                  block_pool class one_block - 1 when it has one */
  unsigned shares;             /* holders besides the first (rt_wwarp_share; in the padding after
                                  one_block, so a warp's bytes are what they were) */
  uint64_t *addr;              /* linear: run k's addresses at [seg0, seg0 + nseg), its lanes
                                  those of its mask in ascending order (8 bytes a lane, not 24) */
  uint64_t thread[RT_WARP];
};

/* Program order of two (run, element) points: positions level by level, iterations between
   (cgp_rt_witer.c). */
int rt_wrun_cmp_points(const rt_shape *s, const rt_wrun *x, uint32_t ai, const rt_wrun *y, uint32_t bi);

#endif
