/* The SM clock the kernels run at: a kernel spins on clock64() for a fixed number of cycles
   while %globaltimer (nanoseconds) measures how long that took. Twice: one warp per SM (a light
   load) and every SM full of dependent FMAs (the heaviest arithmetic load), since a GPU may lower
   its clock under load. */
#include "mb.cuh"

__global__ void k_spin(long long cycles, unsigned long long *clk) {
  mb_clock_start(clk);
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  mb_clock_end(clk);
}

__global__ void k_fma(long long cycles, float *sink, unsigned long long *clk) {
  mb_clock_start(clk);
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f;
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
#pragma unroll
    for (int i = 0; i < 64; i++) a = fmaf(a, b, c);
  }
  if (a == 12345.0f) *sink = a;
  mb_clock_end(clk);
}

int main(void) {
  cudaDeviceProp p = mb_props();
  mb_clock clk;
  float *sink;
  MB_CHECK(cudaMalloc(&sink, sizeof(float)));
  const long long cycles = 400000000LL; /* about 0.2 s at 2 GHz */
  k_spin<<<p.multiProcessorCount, 32>>>(cycles / 10, clk.d); /* wake the GPU up */
  MB_CHECK(cudaDeviceSynchronize());
  k_spin<<<p.multiProcessorCount, 32>>>(cycles, clk.d);
  MB_CHECK(cudaDeviceSynchronize());
  mb_emit("sm_clock_hz_light", clk.hz(), "Hz",
          "clock.cu k_spin: one warp per SM spins 4e8 clock64() cycles; cycles over %globaltimer ns");
  k_fma<<<p.multiProcessorCount * 2, 1024>>>(cycles, sink, clk.d);
  MB_CHECK(cudaDeviceSynchronize());
  mb_emit("sm_clock_hz_fma_load", clk.hz(), "Hz",
          "clock.cu k_fma: 2048 threads per SM on every SM run dependent FMAs for 4e8 clock64() "
          "cycles; cycles over %globaltimer ns");
  mb_emit("sm_count", p.multiProcessorCount, "SMs", "cudaGetDeviceProperties multiProcessorCount");
  mb_emit("l2_bytes_reported", p.l2CacheSize, "B", "cudaGetDeviceProperties l2CacheSize");
  int clock_khz = 0, mem_khz = 0, bus = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
  if (clock_khz > 0) mb_emit("sm_clock_hz_reported", clock_khz * 1e3, "Hz", "cudaDevAttrClockRate");
  if (mem_khz > 0 && bus > 0)
    mb_emit("dram_peak_bytes_per_s_reported", 2.0 * mem_khz * 1e3 * bus / 8.0, "B/s",
            "2 x cudaDevAttrMemoryClockRate x cudaDevAttrGlobalMemoryBusWidth / 8");
  return 0;
}
