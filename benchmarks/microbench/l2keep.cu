/* How much of the L2 one kernel's data keeps for the next launch. For each footprint F from 4 MB
   to 96 MB: a 1 GB read evicts everything, a first launch reads F (k_warm), and a second launch
   reads the same F again (k_reread). Had the L2 kept all of F, the second launch would read no
   DRAM; had it kept none, it would read F from DRAM.
   Timed (no argument): the second launch's CUDA-event time, median of 3, and F over it.
   "ncu" as argument: one round per F for Nsight Compute, which the driver runs with
   --cache-control none and reads k_reread's dram__bytes_read.sum and L2 hit rate: the bytes the
   L2 did not keep, counted by the hardware. "rw" as an extra word: the kernels read and write each
   element (a[i] = a[i] * c), as a time-step loop does. */
#include "mb.cuh"

__global__ void k_flush(const float4 *a, size_t n, float *sink) {
  float s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = __ldcg(a + i);
    s += v.x + v.w;
  }
  if (s == 1234.5f) *sink = s;
}

__device__ __forceinline__ void pass(float4 *a, size_t n, int rw, float *sink) {
  float s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = __ldcg(a + i);
    if (rw) {
      v.x *= 1.0001f;
      a[i] = v;
    } else {
      s += v.x + v.w;
    }
  }
  if (s == 1234.5f) *sink = s;
}
__global__ void k_warm(float4 *a, size_t n, int rw, float *sink) { pass(a, n, rw, sink); }
__global__ void k_reread(float4 *a, size_t n, int rw, float *sink) { pass(a, n, rw, sink); }

int main(int argc, char **argv) {
  bool ncu = false, rw = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "ncu") == 0) ncu = true;
    if (strcmp(argv[i], "rw") == 0) rw = true;
  }
  cudaDeviceProp p = mb_props();
  int grid = p.multiProcessorCount * 8, block = 256;
  const size_t MB = 1 << 20, flush_bytes = 1024 * MB;
  int sizes[] = {4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 80, 96};
  float4 *a, *f;
  float *sink;
  MB_CHECK(cudaMalloc(&a, 96 * MB));
  MB_CHECK(cudaMalloc(&f, flush_bytes));
  MB_CHECK(cudaMalloc(&sink, sizeof(float)));
  MB_CHECK(cudaMemset(a, 0, 96 * MB));
  MB_CHECK(cudaMemset(f, 0, flush_bytes));
  cudaEvent_t e0, e1;
  MB_CHECK(cudaEventCreate(&e0));
  MB_CHECK(cudaEventCreate(&e1));
  for (int s : sizes) {
    size_t n = s * MB / 16;
    std::vector<double> t;
    for (int r = 0; r < (ncu ? 1 : 3); r++) {
      k_flush<<<grid, block>>>(f, flush_bytes / 16, sink);
      k_warm<<<grid, block>>>(a, n, rw, sink);
      MB_CHECK(cudaEventRecord(e0));
      k_reread<<<grid, block>>>(a, n, rw, sink);
      MB_CHECK(cudaEventRecord(e1));
      t.push_back(mb_event_ms(e0, e1));
    }
    MB_CHECK(cudaGetLastError());
    if (ncu) continue;
    char key[96], how[512];
    snprintf(key, sizeof key, "l2keep_%s_reread_bytes_per_s_%dMB", rw ? "rw" : "read", s);
    snprintf(how, sizeof how,
             "l2keep.cu: after a 1 GB read and a first pass over %d MB (%s), a second launch %s the "
             "same %d MB; bytes over its CUDA-event time, median of 3",
             s, rw ? "read and written" : "read", rw ? "reads and writes" : "reads", s);
    mb_emit(key, (double)s * MB / (mb_median(t) * 1e-3), "B/s", how);
  }
  return 0;
}
