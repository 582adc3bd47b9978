/* cgp_rt_converge.c: when a launch's windows have told all there is to tell (docs/pipeline.md,
   "Sampling", and docs/model.md section 5b). A window's per-warp measures are compared with the
   running estimate of the windows before it (not the launch's first, whose caches start cold,
   nor any in the grid's first row or plane of blocks: cgp_rt.c): the warps a block has, the class
   mix and instruction counts per warp, the L2 transactions per load of each class, and the L2
   and L1 hit rates. Once every one is within its tolerance on every device, the window
   stands for the rest of the grid and no later block is traced. */
#include "cgp_rt_internal.h"

#include <math.h>

/* Relative tolerance of counts and transactions, absolute of hit rates (issue 30's 2 %). */
#define RT_CONVERGE_REL 0.02
#define RT_CONVERGE_ABS 0.02
/* Per-warp counts this small are taken as equal: a class a warp uses once in 100 is noise. */
#define RT_CONVERGE_FLOOR 0.01

static int near_rel(double a, double b) {
  if (fabs(a) < RT_CONVERGE_FLOOR && fabs(b) < RT_CONVERGE_FLOOR) return 1;
  return fabs(a - b) <= RT_CONVERGE_REL * fmax(fabs(a), fabs(b));
}

static double ratio(double num, double den) { return den > 0 ? num / den : 0; }

int rt_window_agrees(const cgp_totals *w, const cgp_totals *est) {   /* est: one window or a sum */
  if (!(w->warps > 0) || !(est->warps > 0) || !(w->blocks > 0) || !(est->blocks > 0)) return 0;
  if (!near_rel(w->warps / w->blocks, est->warps / est->blocks)) return 0;   /* active warps a block */
  double pw = 1.0 / w->warps, pe = 1.0 / est->warps;
  if (!near_rel(w->total_insts * pw, est->total_insts * pe) || !near_rel(w->st_insts * pw, est->st_insts * pe))
    return 0;
  for (int c = 0; c < CGP_NCLASS; c++) {
    if (!near_rel(w->ld_insts[c] * pw, est->ld_insts[c] * pe)) return 0;
    if (w->ld_insts[c] * pw < RT_CONVERGE_FLOOR && est->ld_insts[c] * pe < RT_CONVERGE_FLOOR) continue;
    if (!near_rel(ratio(w->ld_trans[c], w->ld_insts[c]), ratio(est->ld_trans[c], est->ld_insts[c]))) return 0;
    if (fabs(ratio(w->ld_dram[c], w->ld_trans[c]) - ratio(est->ld_dram[c], est->ld_trans[c])) > RT_CONVERGE_ABS)
      return 0;
    if (fabs(ratio(w->l1_hit[c], w->l1_trans[c]) - ratio(est->l1_hit[c], est->l1_trans[c])) > RT_CONVERGE_ABS)
      return 0;
  }
  return fabs(ratio(w->st_dram, w->st_trans) - ratio(est->st_dram, est->st_trans)) <= RT_CONVERGE_ABS;
}
