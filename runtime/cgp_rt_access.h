/* cgp_rt_access.h: a traced lane's access, step by step: the address the GPU would see, whether
   a register serves it, its record. The hottest code of an instrumented program, inline in the two
   files that issue accesses, the hooks (cgp_rt.c) and the folded loops (cgp_rt_fold.c), so that
   neither pays a call for it. Each includes it after its L (cgp_rt_launch.h). */
#ifndef CGP_RT_ACCESS_H
#define CGP_RT_ACCESS_H

#include "cgp_rt_internal.h"
#include "cgp_rt_local.h"

/* An address as the GPU would see it: the base B it is indexed from placed at
   G(B) = (B / RT_HOST_ALIGN) * RT_ALLOC_ALIGN + B % RT_HOST_ALIGN, its offset from B kept. So an
   array malloc returned (B a multiple of 16) starts on a cudaMalloc boundary, and the placement is
   injective: host arrays that do not overlap do not overlap on the GPU either (their distance
   grows 16-fold; docs/pipeline.md, "Arrays are placed as cudaMalloc places them"). Shifting each
   base down to its 256-byte boundary instead, as before, laid rows of a jagged array (float **,
   rows malloc'd apart, closer than 256 bytes) over each other: false dependences, shared lines.
   With B = 16 q + r that is A + 240 q: A + (B rounded down to 16) * 15, three operations. */
_Static_assert((RT_HOST_ALIGN & (RT_HOST_ALIGN - 1)) == 0 && RT_ALLOC_ALIGN % RT_HOST_ALIGN == 0,
               "gpu_addr's form needs a power-of-two host alignment dividing the device's");
static inline uint64_t gpu_addr(const void *addr, const void *base) {
  uint64_t b = (uint64_t)(uintptr_t)base;
  return (uint64_t)(uintptr_t)addr + (b & ~(uint64_t)(RT_HOST_ALIGN - 1)) * (RT_ALLOC_ALIGN / RT_HOST_ALIGN - 1);
}

/* The GPU address of the traced lane's access to a thread's own array in local memory, at byte
   `offset` of the array: its lane's interleaved word (cgp_rt_local.h), in a region of its warp's.
   Out of line: only kernels with a local-memory site call it (site_addr_at). */
static __attribute__((noinline)) uint64_t local_addr(uint32_t sid, uint64_t offset) {
  const rt_pending *p = L->lane_warp;
  uint64_t warps_per_block = (L->tpb + RT_WARP - 1) / RT_WARP;
  return rt_local_address(p->block_id * warps_per_block + p->widx, (unsigned)(L->lane - p->lane), offset,
                          L->k->mem_size[sid]);
}

/* The GPU address of site sid's access `delta` bytes past addr, indexed from base: local_addr for
   a local-memory site, else gpu_addr (linear in the address: delta adds). */
static inline uint64_t site_addr_at(uint32_t sid, const void *addr, const void *base, uint64_t delta) {
  if (__builtin_expect(L->mem_local != NULL, 0) && L->mem_local[sid])
    return local_addr(sid, (uint64_t)(uintptr_t)addr - (uint64_t)(uintptr_t)base + delta);
  return gpu_addr(addr, base) + delta;
}

static inline uint64_t site_addr(uint32_t sid, const void *addr, const void *base) {
  return site_addr_at(sid, addr, base, 0);
}

/* May_alias reading: 1 if the load is served from a register (not issued). A compiler forwards
   only what it can prove equal: the same address expression (addr_id), not an address two
   different expressions happen to share (A[i][k] and A[j][k] when i == j), and within one
   iteration of the loop that computes that expression anew (its vary slot), not from an earlier
   iteration whose address happens to be the same (v[idx[j]] with a repeating idx[j]): a held
   value keeps the stamp of that loop's header count. */
static inline __attribute__((always_inline)) int forwarded(uint64_t fwd, uint64_t a) {
  uint32_t id = (uint32_t)(fwd >> 2), stamp = L->iter[fwd >> RT_FWD_SLOT_SHIFT];
  uint64_t bit = UINT64_C(1) << (id % 64);
  if ((fwd & 3) == CGP_LOAD + 1) {
    if (L->fwd_ids & bit)
      for (unsigned i = 0; i < L->nfwd; i++)
        if (L->fwd[i] == a && L->fwd_id[i] == id && L->fwd_stamp[i] == stamp) return 1;
  } else {
    L->nfwd = 0;                               /* a store may overwrite anything held */
    L->fwd_ids = 0;
    if ((fwd & 3) == CGP_ATOMIC + 1) return 0;
  }
  unsigned slot = L->nfwd < RT_FWD ? L->nfwd++ : L->fwd_next++ % RT_FWD;
  L->fwd[slot] = a;
  L->fwd_id[slot] = id;
  L->fwd_stamp[slot] = stamp;
  L->fwd_ids |= bit;
  return 0;
}

/* The traced lane's access through site sid < nmem at GPU address a: 1 if it is served from a
   register (not issued), 0 if recorded. No memory check: a lane grows only in rt_record_new,
   which holds it to the hard limit (rt_run_limit). */
static inline int mem_at(uint32_t sid, uint64_t a) {
  uint64_t fwd = L->mem_fwd[sid];            /* the site's forwarding word in one load */
  if (fwd != RT_FWD_NONE && forwarded(fwd, a)) {
    L->k->forwarded[sid]++;
    return 1;
  }
  cgp_rt_g.traced_accesses++;
  rt_record(L->tracker, sid, a);               /* sid < nmem: rt_tracker_access's test is made */
  return 0;
}

#endif
