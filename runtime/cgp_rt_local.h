/* cgp_rt_local.h: where a thread's local-memory word lies on the GPU (issue 30 item 10a;
   docs/model.md, "Local memory"). A per-thread array the pass found in CUDA local memory
   (pass/cgp_local.c, the descriptor's `local_memory`) is traced at the address CUDA gives it, not
   at the CPU stack's, which every thread shares:

     "local memory is however organized such that consecutive 32-bit words are accessed by
      consecutive thread IDs. Accesses are therefore fully coalesced as long as all threads in a
      warp access the same relative address" (CUDA C Programming Guide, "Device Memory Accesses",
      "Local Memory").

   So word w of lane l of warp W is at

     RT_LOCAL_BASE + W' * RT_LOCAL_WARP_BYTES + (w * RT_WARP + l) * u + (offset mod u)

   with w = offset / u, the access's byte offset in the array over the unit u: 4 bytes (the
   guide's 32-bit word), or the access's own size when wider (a double: the 32 lanes' doubles at
   one index fill two 128-byte lines, as its two words do interleaved). W' is the warp's number in
   the grid modulo RT_LOCAL_SLOTS: every warp has its own region, placed above every address
   gpu_addr gives a user array (below 2^52: a 2^48 user address spread 16-fold), so local memory
   never aliases user memory. A region holds RT_WARP threads of RT_LOCAL_THREAD_BYTES, CUDA's
   most local memory a thread may have. */
#ifndef CGP_RT_LOCAL_H
#define CGP_RT_LOCAL_H

#include <stdint.h>

#include "cgp_rt_lanes.h"

#define RT_LOCAL_BASE (UINT64_C(1) << 60)      /* above every user array's GPU address */
#define RT_LOCAL_WORD_BYTES 4u                 /* the interleaving's 32-bit word (the guide's) */
#define RT_LOCAL_THREAD_BYTES (UINT64_C(512) * 1024)  /* "Maximum amount of local memory per thread:
                                                          512 KB" (the guide's technical
                                                          specifications, every compute capability) */
#define RT_LOCAL_WARP_BYTES ((uint64_t)RT_WARP * RT_LOCAL_THREAD_BYTES)
#define RT_LOCAL_SLOTS (UINT64_C(1) << 35)     /* warps placed apart: 2^35 * 16 MiB < 2^63 - 2^60 */

/* The GPU address of the access of `size` bytes at byte `offset` of lane `lane`'s local array, in
   warp `warp` (its number in the grid). */
static inline uint64_t rt_local_address(uint64_t warp, unsigned lane, uint64_t offset, unsigned size) {
  uint64_t u = size > RT_LOCAL_WORD_BYTES ? size : RT_LOCAL_WORD_BYTES;
  return RT_LOCAL_BASE + (warp % RT_LOCAL_SLOTS) * RT_LOCAL_WARP_BYTES + (offset / u * RT_WARP + lane) * u +
         offset % u;
}

#endif
