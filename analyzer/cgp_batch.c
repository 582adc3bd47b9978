/* cgp_batch.c: the warps resident together, interleaved into the L2 as the SM would issue
   them [MODEL.md section 4 choice: round robin over resident warps, one warp memory
   instruction at a time; a finished warp drops out]. */
#include "cgp_analyzer.h"

#include <stdlib.h>

/* Reference one instruction's lines (ascending, as cgp_lines wrote them); returns its misses. */
static unsigned issue(cgp_l2 *l2, const cgp_winst *in, const uint64_t *lines) {
  unsigned misses = 0;
  for (unsigned j = 0; j < in->nlines; j++) misses += !cgp_l2_access(l2, lines[j]);
  return misses;
}

static void tally(const cgp_winst *in, unsigned misses, cgp_class_totals *tot, uint64_t *sid_trans,
                  uint64_t *sid_miss, size_t nsid) {
  if (tot && in->cls < CGP_NCLASS) {
    tot->insts[in->cls] += 1;
    tot->trans[in->cls] += in->nlines;
    tot->dram[in->cls] += misses;
  }
  if (in->sid < nsid) {
    if (sid_trans) sid_trans[in->sid] += in->nlines;
    if (sid_miss) sid_miss[in->sid] += misses;
  }
}

void cgp_l2_run_batch(cgp_l2 *l2, const cgp_warp_trace *warps, size_t nwarps, int count,
                      cgp_class_totals *tot, uint64_t *sid_trans, uint64_t *sid_miss, size_t nsid) {
  size_t longest = 0, *next_line = calloc(nwarps ? nwarps : 1, sizeof *next_line);
  if (!next_line) return;
  for (size_t w = 0; w < nwarps; w++)
    if (warps[w].n > longest) longest = warps[w].n;
  for (size_t k = 0; k < longest; k++)
    for (size_t w = 0; w < nwarps; w++) {
      if (k >= warps[w].n) continue;
      const cgp_winst *in = &warps[w].inst[k];
      unsigned misses = issue(l2, in, warps[w].lines + next_line[w]);
      next_line[w] += in->nlines;
      if (count) tally(in, misses, tot, sid_trans, sid_miss, nsid);
    }
  free(next_line);
}
