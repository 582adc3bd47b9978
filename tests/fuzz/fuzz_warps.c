/* libFuzzer harness: reconvergent warps (runtime/cgp_rt_warp.c) on synthetic lanes. The input
   picks a thread-body shape (blocks, loops, sites) and, per lane, a stream of block entries and
   accesses; the harness records the 32 lanes, builds the warp and issues it, and checks what must
   always hold: no lane twice in one instruction, lanes in ascending order, every recorded access
   issued exactly once (runs compress, never lose), and nothing read out of bounds (ASan).

   An input is read for at most MAX_READ bytes: 3 for the sizes, 5 for the loops (at most 3), 8
   for the blocks' loops, 8 for the sites' blocks, then per lane 1 (active) + 1 (events, at most
   63) + 63 x 2. A longer input behaves as its first MAX_READ bytes, so scripts/fuzz.sh runs this
   target with -max_len=4120 rather than spend mutations on bytes no one reads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_rt_witer.h"

#define MAX_READ (3 + 5 + 8 + 8 + RT_WARP * (1 + 1 + 63 * 2))   /* = 4120 */

typedef struct {
  const uint8_t *p;
  size_t n;
} input;

static unsigned take(input *in, unsigned mod) {
  if (!in->n || !mod) return 0;
  unsigned v = *in->p++ % mod;
  in->n--;
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  size_t nbb = 1 + take(&in, 8), nl = take(&in, 4), nmem = 1 + take(&in, 8);
  int bl[8], lh[4], lp[4], mb[8];
  unsigned rpo[8], mo[8];
  for (size_t b = 0; b < nbb; b++) { rpo[b] = (unsigned)b; bl[b] = -1; }
  for (size_t l = 0; l < nl; l++) {
    lh[l] = (int)take(&in, (unsigned)nbb);
    lp[l] = l ? (int)take(&in, (unsigned)l + 1) - 1 : -1;     /* parents come first: no cycle */
    bl[lh[l]] = (int)l;
  }
  for (size_t b = 0; b < nbb; b++)
    if (bl[b] < 0 && nl) bl[b] = (int)take(&in, (unsigned)nl + 1) - 1;
  for (size_t s = 0; s < nmem; s++) { mb[s] = (int)take(&in, (unsigned)nbb + 1) - 1; mo[s] = (unsigned)s; }
  char err[128];
  rt_shape *sh = rt_shape_new(nmem, mb, mo, nbb, rpo, bl, nl, lh, lp, err, sizeof err);
  if (!sh) return 0;                                      /* inconsistent shapes are refused */
  rt_tracker *t = rt_tracker_new(sh);
  rt_lane_rec lanes[RT_WARP];
  uint8_t active[RT_WARP];
  uint64_t thread[RT_WARP];
  memset(lanes, 0, sizeof lanes);
  size_t recorded = 0;
  for (unsigned l = 0; l < RT_WARP; l++) {
    active[l] = take(&in, 8) != 0;
    thread[l] = l;
    if (!active[l]) continue;
    rt_tracker_start(t, &lanes[l]);
    unsigned events = take(&in, 64);
    for (unsigned e = 0; e < events; e++) {
      unsigned what = take(&in, 256);
      if (what < 96) rt_tracker_block(t, what % (unsigned)nbb);
      else {
        rt_tracker_access(t, what % (unsigned)nmem, 0x1000 + 4 * (uint64_t)take(&in, 256));
        recorded++;
      }
    }
  }
  rt_wwarp *w = rt_wwarp_build(sh, lanes, active, thread);
  if (w) {
    rt_witer *it = rt_witer_new(sh, w);
    rt_wevent ev;
    size_t issued = 0;
    while (it && rt_witer_next(it, &ev)) {
      if (ev.nact == 0 || ev.nact > RT_WARP) abort();
      for (unsigned k = 1; k < ev.nact; k++)
        if (ev.lane[k] <= ev.lane[k - 1]) abort();      /* ascending, so never twice */
      if (ev.is_mem) issued += ev.nact;
    }
    if (issued != recorded) abort();
    rt_witer_free(it);
    rt_wwarp_free(w);
  }
  if (size - in.n > MAX_READ) abort();                  /* the bound scripts/fuzz.sh relies on */
  for (unsigned l = 0; l < RT_WARP; l++) rt_lane_free(&lanes[l]);
  rt_tracker_free(t);
  rt_shape_free(sh);
  return 0;
}
