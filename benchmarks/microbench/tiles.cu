// tiles.cu: kernel times that test cgpredict's tiling and padding suggestions (docs/model.md 8b, 8c)
// on the GPU this runs on; nothing here is fed to the model. float N x N, CUDA-event time of one
// launch, median and minimum of 5 after a warm-up launch (inputs resident in L2 when they fit).
//   gemm_naive_32x32   the untiled GEMM the tiling suggestion starts from (block 32x32)
//   gemm_tiled_32x32   its tiled form (the suggestion's target; as smem_kernels.cu's)
//   syrk_tiled_32x32   SYRK tiled with both tiles row copies of A (the column read conflicts)
//   syrk_padded_32x32  the same with each tile row padded by one float (the padding suggestion)
// Usage: tiles [N]  -> one line per kernel: "name N median_ms min_ms"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define TILE 32

__global__ void gemm_naive(int n, float alpha, float beta, const float *a, const float *b, float *c) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  c[row * n + col] *= beta;
  for (int k = 0; k < n; k++) c[row * n + col] += alpha * a[row * n + k] * b[k * n + col];
}

__global__ void gemm_tiled(int n, float alpha, float beta, const float *a, const float *b, float *c) {
  __shared__ float ta[TILE][TILE], tb[TILE][TILE];
  int x = threadIdx.x, y = threadIdx.y, col = blockIdx.x * TILE + x, row = blockIdx.y * TILE + y;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    ta[y][x] = a[row * n + t + x];
    tb[y][x] = b[(t + y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += ta[y][k] * tb[k][x];
    __syncthreads();
  }
  c[row * n + col] = beta * c[row * n + col] + alpha * acc;
}

// PAD = 0: the tiles as the tiled C reads them; PAD = 1: rows of TILE + 1 floats
template <int PAD>
__global__ void syrk_tiled(int n, float alpha, float beta, const float *a, float *c) {
  __shared__ float ti[TILE][TILE + PAD], tj[TILE][TILE + PAD];
  int x = threadIdx.x, y = threadIdx.y, col = blockIdx.x * TILE + x, row = blockIdx.y * TILE + y;
  int col0 = blockIdx.x * TILE;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    ti[y][x] = a[row * n + t + x];
    tj[y][x] = a[(col0 + y) * n + t + x];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += ti[y][k] * tj[x][k];
    __syncthreads();
  }
  c[row * n + col] = beta * c[row * n + col] + alpha * acc;
}

typedef void (*launch_fn)(int n, const float *a, const float *b, float *c);
static void run_gemm_naive(int n, const float *a, const float *b, float *c) {
  gemm_naive<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(n, 1.5f, 1.2f, a, b, c);
}
static void run_gemm_tiled(int n, const float *a, const float *b, float *c) {
  gemm_tiled<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(n, 1.5f, 1.2f, a, b, c);
}
static void run_syrk_tiled(int n, const float *a, const float *, float *c) {
  syrk_tiled<0><<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(n, 1.5f, 1.2f, a, c);
}
static void run_syrk_padded(int n, const float *a, const float *, float *c) {
  syrk_tiled<1><<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(n, 1.5f, 1.2f, a, c);
}

static float time_one(launch_fn f, int n, const float *a, const float *b, float *c, float *least) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  f(n, a, b, c);                                   // warm-up: inputs into the L2
  cudaDeviceSynchronize();
  std::vector<float> ms;
  for (int r = 0; r < 5; r++) {
    cudaEventRecord(start);
    f(n, a, b, c);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  *least = ms[0];
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms[ms.size() / 2];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  if (n < TILE || n % TILE) {
    fprintf(stderr, "tiles: N must be a positive multiple of %d\n", TILE);
    return 2;
  }
  size_t count = (size_t)n * n;
  std::vector<float> host(count);
  for (size_t i = 0; i < count; i++) host[i] = (float)((i * 7) % 13) / 13.0f;
  float *a, *b, *c;
  if (cudaMalloc(&a, count * sizeof(float)) || cudaMalloc(&b, count * sizeof(float)) ||
      cudaMalloc(&c, count * sizeof(float))) {
    fprintf(stderr, "tiles: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(a, host.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, host.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(c, host.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  struct {
    const char *name;
    launch_fn f;
  } kernels[] = {{"gemm_naive_32x32", run_gemm_naive},
                 {"gemm_tiled_32x32", run_gemm_tiled},
                 {"syrk_tiled_32x32", run_syrk_tiled},
                 {"syrk_padded_32x32", run_syrk_padded}};
  for (auto &k : kernels) {
    float least, median = time_one(k.f, n, a, b, c, &least);
    printf("%s %d %.4f %.4f\n", k.name, n, median, least);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "tiles: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
