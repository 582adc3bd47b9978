/* cgp_rt_converge.c: when a launch's windows have told all there is to tell (docs/pipeline.md,
   "Sampling", and docs/model.md section 5b). A window's per-warp measures are compared with the
   running estimate of the windows before it (not the launch's first, whose caches start cold,
   nor any in the grid's first row or plane of blocks: cgp_rt_sched.c): the warps a block has, the class
   mix and instruction counts per warp, the L2 transactions per load of each class, and the L2
   and L1 hit rates. Once every one is within its tolerance, the device's window stands for the
   rest of the grid and no later block is traced for it; each device decides on its own windows
   (cgp_rt_sched.c stops tracing when every device has stopped). */
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

/* Has the device's L2 taken in its capacity of new lines since the launch began, as far as the
   windows up to the last closed one tell? Each window's L2 misses per block (loads' and stores'
   DRAM transactions), over the blocks it stands for, the last one's over its own blocks only: until
   then what a window finds in the L2 is what the launch's start left there, not what it keeps. */
static int l2_turned_over(const cgp_device *dev, const rt_wstat *ws, size_t n) {
  double lines = 0, cap = (double)cgp_l2_capacity_bytes(dev) / cgp_transaction_bytes(dev);
  for (size_t w = 0; w < n; w++) {
    const cgp_totals *t = &ws[w].tot;
    if (!(t->blocks > 0)) continue;
    double blocks = w + 1 < n ? (double)(ws[w + 1].region_start - ws[w].region_start) : t->blocks;
    lines += (t->ld_dram[0] + t->ld_dram[1] + t->ld_dram[2] + t->st_dram) / t->blocks * blocks;
  }
  return lines >= cap;
}

/* The window just closed is past the grid's first row (or plane) of blocks and agrees with the
   window before it that is past it too, and that one agreed with its own predecessor: three such
   windows in a row alike, after the device's L2 has taken in its capacity of new lines. Each
   device decides on its own windows (issue 30 item 7). [Choice: a plateau, not a mean, and the L2
   turned over: LU's kernel 2 on the TK1 at N = 512 has its misses per load at 0.5 in the windows at
   blocks 32, 64 and 128 and 0.56 from block 256 on, once its blocks have brought 128 KB of new
   lines; converging at 128 made it -27 % against every window traced.] */
int rt_windows_converged(const cgp_device *dev, const rt_wstat *ws, size_t n, uint64_t slab, unsigned *agreed) {
  if (n < 3 || ws[n - 2].region_start < slab) {   /* the first window past the row, or none */
    *agreed = 0;
    return 0;
  }
  if (!l2_turned_over(dev, ws, n) || !rt_window_agrees(&ws[n - 1].tot, &ws[n - 2].tot)) {
    *agreed = 0;
    return 0;
  }
  return ++*agreed >= RT_CONVERGE_AGREEMENTS;
}
