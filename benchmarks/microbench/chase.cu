/* Load latency by pointer chasing, in SM cycles (clock64), as the dissection papers measure it:
   one thread follows a chain of indices, each load's address the value the last load returned,
   so no two loads overlap. The chain visits 128-byte lines of a footprint in a random order (a
   random cyclic permutation, so no prefetcher or row buffer can guess the next line).
   - L1: loads ld.global.ca (cached in L1), footprints 4 KB to 1 MB, warmed by one full pass;
     the latency while the footprint fits is the L1 hit latency, the curve shows the capacity.
   - L2: loads ld.global.cg (L2 only, L1 bypassed), footprints 1 MB to 128 MB, warmed by one full
     pass: the L2 hit latency, and where one SM's chase stops finding its lines in L2.
   - DRAM: ld.global.cg over 1 GB never touched since it was copied in, the lines of each 2 MB
     page in random order and the pages in sequence (no TLB miss on most steps): the latency of a
     load that misses L2. Also across the whole 1 GB at random (TLB misses included).
   Cycles per step include the loop's own instructions (an add and a compare), as in the papers. */
#include "mb.cuh"
#include <random>

template <bool CG>
__device__ __forceinline__ uint32_t mb_load(const uint32_t *p) {
  uint32_t v;
  if (CG)
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  else
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

template <bool CG>
__global__ void k_chase(const uint32_t *next, uint32_t start, long long warm, int steps,
                        unsigned long long *cycles, uint32_t *sink) {
  uint32_t j = start;
  for (long long i = 0; i < warm; i++) j = mb_load<CG>(next + j);
  long long t0 = clock64();
  for (int i = 0; i < steps; i++) j = mb_load<CG>(next + j);
  long long t1 = clock64();
  *cycles = (unsigned long long)(t1 - t0);
  *sink = j;
}

/* Chain over `bytes` at 128-byte lines; page_bytes > 0 keeps the order page by page. Returns
   the first element's index. */
static uint32_t build_chain(std::vector<uint32_t> &h, size_t bytes, size_t page_bytes, unsigned seed) {
  const size_t line = 128, per = line / 4;
  size_t lines = bytes / line;
  std::vector<uint32_t> order(lines);
  for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
  std::mt19937 rng(seed);
  size_t chunk = page_bytes ? page_bytes / line : lines;
  for (size_t s = 0; s < lines; s += chunk) std::shuffle(order.begin() + s, order.begin() + std::min(lines, s + chunk), rng);
  h.assign(bytes / 4, 0);
  for (size_t i = 0; i < lines; i++) h[order[i] * per] = (uint32_t)(order[(i + 1) % lines] * per);
  return (uint32_t)(order[0] * per);
}

template <bool CG>
static double chase(size_t bytes, size_t page_bytes, bool warm, int steps) {
  std::vector<uint32_t> h;
  uint32_t start = build_chain(h, bytes, page_bytes, 12345u + (unsigned)(bytes >> 10));
  uint32_t *d, *sink;
  unsigned long long *cyc, c = 0;
  MB_CHECK(cudaMalloc(&d, bytes));
  MB_CHECK(cudaMalloc(&sink, sizeof(uint32_t)));
  MB_CHECK(cudaMalloc(&cyc, sizeof c));
  MB_CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
  long long lines = (long long)(bytes / 128);
  k_chase<CG><<<1, 1>>>(d, start, warm ? std::max(lines, 2000LL) : 0, steps, cyc, sink);
  MB_CHECK(cudaDeviceSynchronize());
  MB_CHECK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
  cudaFree(d);
  cudaFree(sink);
  cudaFree(cyc);
  return (double)c / steps;
}

int main(void) {
  char key[96], how[512];
  const size_t KB = 1024, MB = 1024 * 1024;
  size_t l1[] = {4 * KB, 16 * KB, 64 * KB, 128 * KB, 192 * KB, 256 * KB, 512 * KB, 1024 * KB};
  for (size_t f : l1) {
    snprintf(key, sizeof key, "latency_ca_cycles_%zuKB", f / KB);
    snprintf(how, sizeof how,
             "chase.cu: one thread, ld.global.ca chase over %zu KB of 128-byte lines in random cyclic "
             "order, warmed by one pass; clock64 cycles per step over 10000 steps",
             f / KB);
    mb_emit(key, chase<false>(f, 0, true, 10000), "cycles", how);
  }
  size_t l2[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 64, 96, 128};
  for (size_t m : l2) {
    snprintf(key, sizeof key, "latency_cg_cycles_%zuMB", m);
    snprintf(how, sizeof how,
             "chase.cu: one thread, ld.global.cg chase over %zu MB of 128-byte lines in random cyclic "
             "order, warmed by one pass; clock64 cycles per step over 20000 steps",
             m);
    mb_emit(key, chase<true>(m * MB, 0, true, 20000), "cycles", how);
  }
  mb_emit("latency_dram_cycles_page_local", chase<true>(1024 * MB, 2 * MB, false, 20000), "cycles",
          "chase.cu: one thread, ld.global.cg chase over 1 GB not touched since copied in, lines of "
          "each 2 MB page in random order, pages in sequence; clock64 cycles per step over 20000 steps");
  mb_emit("latency_dram_cycles_random_1GB", chase<true>(1024 * MB, 0, false, 20000), "cycles",
          "chase.cu: one thread, ld.global.cg chase over 1 GB at random (TLB misses included), not "
          "touched since copied in; clock64 cycles per step over 20000 steps");
  return 0;
}
