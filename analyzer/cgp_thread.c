/* cgp_thread.c: thread keys (cgp_thread_key, cgp_analyzer.h): a key's coordinates, the order a
   launch runs its threads in, and a thread's block. Below the analyses: every file that orders or
   places threads (the dependence check, the caches' shared lines, the tiler) calls it, it calls none. */
#include "cgp_analyzer.h"

uint64_t cgp_thread_order_mask(int dims, const int descending[3]) {
  if (dims <= 1) return descending[0] ? INT64_MAX : 0;
  if (dims == 2) return (descending[0] ? 0xffffffffu : 0) | (descending[1] ? UINT64_C(0x7fffffff) << 32 : 0);
  uint64_t m = 0;
  for (int d = 0; d < 3; d++)
    if (descending[d]) m |= UINT64_C(0x1fffff) << (21 * d);
  return m;
}

void cgp_thread_unkey(int dims, uint64_t key, uint64_t xyz[3]) {
  if (dims <= 1) { xyz[0] = key; xyz[1] = xyz[2] = 0; return; }
  if (dims == 2) { xyz[0] = key & 0xffffffffu; xyz[1] = key >> 32; xyz[2] = 0; return; }
  xyz[0] = key & 0x1fffff; xyz[1] = key >> 21 & 0x1fffff; xyz[2] = key >> 42 & 0x1fffff;
}

uint64_t cgp_thread_block(const cgp_analysis_cfg *cfg, uint64_t key, uint64_t off[3]) {
  uint64_t xyz[3], b[3];
  cgp_thread_unkey(cfg->dims, key, xyz);
  for (int d = 0; d < 3; d++) {
    uint64_t e = cfg->block[d] ? cfg->block[d] : 1;
    if (off) off[d] = xyz[d] % e;
    b[d] = xyz[d] / e;
  }
  return cgp_grid_block(b[0], b[1], b[2]);
}
