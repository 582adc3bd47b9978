/* DRAM and L2 bandwidth, reads and writes apart, with every SM at full occupancy (8 blocks of 256
   threads per SM, a grid-stride loop of 16-byte accesses).
   - DRAM: 1 GB read (ld.global), 1 GB written (st.global), and a 1 GB copy; one pass each.
   - L2: an 8 MB footprint (far below the L2's capacity, so every access hits it after the first
     pass) read 64 times with ld.global.cg (L1 bypassed: each SM would otherwise re-read its own
     share from L1), and written 64 times with st.global.cg.
   Best of 5 launches, CUDA-event time; bytes moved over time. Also per SM per cycle, with the
   clock measured inside the same kernel (mb.cuh). */
#include "mb.cuh"

__global__ void k_read(const float4 *a, size_t n, int passes, float *sink, unsigned long long *clk) {
  mb_clock_start(clk);
  float s = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; p++)
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      float4 v = __ldcg(a + i);
      s += v.x + v.y + v.z + v.w;
    }
  if (s == 1234.5f) *sink = s;
  mb_clock_end(clk);
}

__global__ void k_write(float4 *a, size_t n, int passes, unsigned long long *clk) {
  mb_clock_start(clk);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float4 v = make_float4(1.f, 2.f, 3.f, (float)threadIdx.x);
  for (int p = 0; p < passes; p++)
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) __stcg(a + i, v);
  mb_clock_end(clk);
}

__global__ void k_copy(const float4 *a, float4 *b, size_t n, unsigned long long *clk) {
  mb_clock_start(clk);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) b[i] = a[i];
  mb_clock_end(clk);
}

int main(void) {
  cudaDeviceProp p = mb_props();
  int sm = p.multiProcessorCount, grid = sm * 8, block = 256;
  mb_clock clk;
  cudaEvent_t e0, e1;
  MB_CHECK(cudaEventCreate(&e0));
  MB_CHECK(cudaEventCreate(&e1));
  const size_t big = 1ull << 30, small = 8ull << 20;
  float4 *a, *b;
  float *sink;
  MB_CHECK(cudaMalloc(&a, big));
  MB_CHECK(cudaMalloc(&b, big));
  MB_CHECK(cudaMalloc(&sink, sizeof(float)));
  MB_CHECK(cudaMemset(a, 0, big));
  MB_CHECK(cudaMemset(b, 0, big));
  char how[512];

  for (int test = 0; test < 5; test++) {
    double best = 1e30, hz = 0, bytes = 0;
    for (int r = 0; r < 5; r++) {
      MB_CHECK(cudaEventRecord(e0));
      switch (test) {
      case 0: k_read<<<grid, block>>>(a, big / 16, 1, sink, clk.d); bytes = big; break;
      case 1: k_write<<<grid, block>>>(a, big / 16, 1, clk.d); bytes = big; break;
      case 2: k_copy<<<grid, block>>>(a, b, big / 16, clk.d); bytes = 2.0 * big; break;
      case 3: k_read<<<grid, block>>>(a, small / 16, 64, sink, clk.d); bytes = 64.0 * small; break;
      case 4: k_write<<<grid, block>>>(a, small / 16, 64, clk.d); bytes = 64.0 * small; break;
      }
      MB_CHECK(cudaEventRecord(e1));
      double ms = mb_event_ms(e0, e1);
      MB_CHECK(cudaGetLastError());
      if (ms < best) {
        best = ms;
        hz = clk.hz();
      }
    }
    static const char *key[] = {"dram_read", "dram_write", "dram_copy", "l2_read", "l2_write"};
    static const char *what[] = {
        "1 GB read once with 16-byte ld.global.cg", "1 GB written once with 16-byte st.global.cg",
        "1 GB copied (read + write counted)", "8 MB read 64 times with 16-byte ld.global.cg (L2 hits)",
        "8 MB written 64 times with 16-byte st.global.cg (L2 hits)"};
    double bw = bytes / (best * 1e-3);
    char k1[96], k2[96];
    snprintf(k1, sizeof k1, "%s_bytes_per_s", key[test]);
    snprintf(k2, sizeof k2, "%s_bytes_per_cycle_per_sm", key[test]);
    snprintf(how, sizeof how,
             "bandwidth.cu: %s, %d blocks x %d threads, grid-stride; bytes over CUDA-event time, best of 5",
             what[test], grid, block);
    mb_emit(k1, bw, "B/s", how);
    snprintf(how, sizeof how, "bandwidth.cu: %s; B/s over (SMs x the SM clock measured in that kernel, %.0f MHz)",
             what[test], hz / 1e6);
    mb_emit(k2, bw / (sm * hz), "B/cycle/SM", how);
  }
  return 0;
}
