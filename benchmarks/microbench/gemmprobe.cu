/* A diagnosis, not a parameter: PolyBench/GPU's naive GEMM kernel (block 32 x 8) at N = 512 as
   its CUDA port is written (c[i][j] updated in memory every k: nvcc issues two loads and a store
   per iteration), and the same with __restrict__ pointers (c kept in a register, one store per
   thread), warm L2, CUDA-event time median of 5, in SM cycles per warp iteration per SM. The gap
   between the two is what the per-iteration store costs. */
#include "mb.cuh"

#define N 512

__global__ void k_gemm(int ni, int nj, int nk, float alpha, float beta, float *a, float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    c[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++) c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
  }
}

__global__ void k_gemm_restrict(int ni, int nj, int nk, float alpha, float beta, const float *__restrict__ a,
                                const float *__restrict__ b, float *__restrict__ c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    float s = c[i * nj + j] * beta;
    for (int k = 0; k < nk; k++) s += alpha * a[i * nk + k] * b[k * nj + j];
    c[i * nj + j] = s;
  }
}

int main(void) {
  cudaDeviceProp p = mb_props();
  float *a, *b, *c;
  size_t bytes = (size_t)N * N * sizeof(float);
  MB_CHECK(cudaMalloc(&a, bytes));
  MB_CHECK(cudaMalloc(&b, bytes));
  MB_CHECK(cudaMalloc(&c, bytes));
  MB_CHECK(cudaMemset(a, 0, bytes));
  MB_CHECK(cudaMemset(b, 0, bytes));
  MB_CHECK(cudaMemset(c, 0, bytes));
  dim3 block(32, 8), grid(N / 32, N / 8);
  cudaEvent_t e0, e1;
  MB_CHECK(cudaEventCreate(&e0));
  MB_CHECK(cudaEventCreate(&e1));
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  for (int v = 0; v < 2; v++) {
    std::vector<double> t;
    for (int r = 0; r < 6; r++) {
      MB_CHECK(cudaEventRecord(e0));
      if (v == 0) k_gemm<<<grid, block>>>(N, N, N, 1.5f, 1.2f, a, b, c);
      else k_gemm_restrict<<<grid, block>>>(N, N, N, 1.5f, 1.2f, a, b, c);
      MB_CHECK(cudaEventRecord(e1));
      double ms = mb_event_ms(e0, e1);
      if (r) t.push_back(ms);
    }
    MB_CHECK(cudaGetLastError());
    double ms = mb_median(t), warp_iters_per_sm = (double)N * N / 32 * N / p.multiProcessorCount;
    mb_emit(v ? "gemmprobe_restrict_us" : "gemmprobe_naive_us", ms * 1e3, "us",
            v ? "gemmprobe.cu: GEMM N=512 block 32x8 with __restrict__ (one store per thread), warm, CUDA events, median of 5"
              : "gemmprobe.cu: PolyBench/GPU GEMM N=512 block 32x8 as written (a store every k), warm, CUDA events, median of 5");
    mb_emit(v ? "gemmprobe_restrict_cycles_per_warp_iteration_per_sm" : "gemmprobe_naive_cycles_per_warp_iteration_per_sm",
            ms * 1e-3 * clock_khz * 1e3 / warp_iters_per_sm, "cycles", "gemmprobe.cu: the time above x the reported SM clock over warp iterations per SM");
  }
  return 0;
}
