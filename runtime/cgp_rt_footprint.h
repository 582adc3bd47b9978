/* cgp_rt_footprint.h: the bytes a kernel reads and writes, from its traced warps
   (cgp_rt_footprint.c; docs/model.md section 12). */
#ifndef CGP_RT_FOOTPRINT_H
#define CGP_RT_FOOTPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "cgp_analyzer.h"

typedef struct rt_footprint rt_footprint;
/* For a kernel of nsites sites of the given kinds (kept, not copied); NULL when out of memory. */
rt_footprint *rt_footprint_new(size_t nsites, const uint8_t *kind);
void rt_footprint_free(rt_footprint *f);
/* A batch of the measuring device (rt_kernel.fp_dev) begins; a warp instruction of it (warp: its
   number in the batch; affine: its addresses are on one stride, cgp_affine, so the first and the
   last are the lowest and the highest); the batch ends at block end_block of the launch. */
void rt_footprint_batch_begin(rt_footprint *f);
void rt_footprint_event(rt_footprint *f, uint32_t sid, unsigned warp, const uint64_t *addr, unsigned nact,
                        unsigned size, double skipped_after, int affine);
/* The launch's rows of blocks are `blocks` long (1 for a 1-D grid): a batch ending at a multiple
   ends a row (cgp_extent_note). Until told, no batch does; reset at each launch's end. */
void rt_footprint_row_blocks(rt_footprint *f, uint64_t blocks);
void rt_footprint_batch_end(rt_footprint *f, uint64_t end_block);
/* A traced launch of `blocks` blocks ends, the pos-th (from 1) of the kernel's run number `run`:
   its sites' ranges join the kernel's sets, and are kept for the law (rt_footprint_law). */
void rt_footprint_launch_end(rt_footprint *f, uint64_t blocks, uint64_t run, uint64_t pos);
/* The bytes of the union of n ranges [r[2i], r[2i + 1]) (lo <= hi), each byte once; r is sorted
   by lo here. 0 for none. */
uint64_t rt_ranges_union(uint64_t *r, size_t n);
/* The bytes the last traced launch's sites' ranges (carried to its grid's end) cover, each byte
   once (rt_ranges_union); 0 before any. A span, not the bytes touched: a column walk's range is
   every row's. */
uint64_t rt_footprint_last_span(const rt_footprint *f);
const cgp_ranges *rt_footprint_read(const rt_footprint *f);
const cgp_ranges *rt_footprint_written(const rt_footprint *f);
int rt_footprint_lost(const rt_footprint *f);

/* A run's footprint law (docs/model.md 5b, "A run's untraced last launches"): the launch at run
   position p referenced each [lo[i] + (p - ref) delta[i], hi[i] + (p - ref) delta[i]). */
typedef struct {
  uint64_t ref;                 /* the run position lo and hi are at */
  uint32_t n;                   /* sites with a range */
  uint64_t *lo, *hi;
  int64_t *delta;               /* bytes a launch, signed */
} rt_law;
/* The law of run `run`, from the kernel's last RT_LAW_POINTS traced launches: all of that run,
   every site's range no longer than the bytes its traced instructions moved (the launch was
   traced whole: no skipped blocks nor iterations stand in it), and each site's range moved
   rigidly, the same bytes a launch, from one to the next. 1 with *law filled (rt_law_free),
   0 if there is none, no site has a range, or out of memory. */
#define RT_LAW_POINTS 3
int rt_footprint_law(const rt_footprint *f, uint64_t run, rt_law *law);
/* *law with room for n sites (law->n 0, ref 0): 0, or -1 when out of memory (nothing held). */
int rt_law_new(rt_law *law, size_t n);
void rt_law_free(rt_law *law);

#endif
