/* cgp_rt_witer.h: a warp's events in issue order (cgp_rt_witer.c), lanes at one program point
   together. */
#ifndef CGP_RT_WITER_H
#define CGP_RT_WITER_H

#include "cgp_rt_warp.h"

/* One event of a warp in issue order. */
typedef struct {
  int is_mem;
  uint32_t id;                 /* site (is_mem) or block */
  float skipped;               /* executions in untraced iterations it stands for */
  float skipped_after;         /* the iterations skipped after its window (the footprint's reach) */
  double lanes_w;              /* its lanes' weights, summed: 1 + skipped each, their own (below
                                  the event's where they left a sampled loop at different
                                  iterations: rt_wrun's lane_w) */
  unsigned nact;
  uint8_t lane[RT_WARP];
  uint64_t addr[RT_WARP];
  int has_span;                /* span[] holds each lane's (skipped > 0 in a leaf loop's window) */
  int spanned;                 /* the skipped iterations it stands for are given by spans: every
                                  lane's run reaches its window's last element, which carries them
                                  (cgp_warp_mem's `spanned`) */
  int first;                   /* every lane's element is its leaf loop's iteration 0 of the entry
                                  (cgp_warp_mem's `first`) */
  int affine;                  /* 1: addr is on one stride (cgp_affine's answer, known from the run:
                                  its lanes' first addresses on one stride and their strides one);
                                  -1: not known */
  cgp_span span[RT_WARP];
} rt_wevent;

/* Walks a warp's events; several iterators may walk one warp at once. w NULL: no warp yet
   (rt_witer_reset gives it one). */
typedef struct rt_witer rt_witer;
rt_witer *rt_witer_new(const rt_shape *s, const rt_wwarp *w);
/* The same walk with the runs under way in a binary heap instead of a sorted queue: the
   reference the fast queue must equal, event for event (a linear warp is walked as ever). */
rt_witer *rt_witer_new_reference(const rt_shape *s, const rt_wwarp *w);
/* The walk of another warp of the same shape from its start, in its memory (grown if need be:
   a batch's iterators are reused, no allocation per warp); 0 when out of memory: this warp
   cannot be walked (the iterator can still take a smaller one). */
int rt_witer_reset(rt_witer *it, const rt_wwarp *w);
/* Next event: 1, or 0 at the end. */
int rt_witer_next(rt_witer *it, rt_wevent *ev);
void rt_witer_free(rt_witer *it);

#endif
