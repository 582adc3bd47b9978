/* What every microbenchmark of benchmarks/microbench shares: error checks, the GPU's facts,
   event timing, the clock a kernel ran at, and one output line per measured value.

   Output: each measured value is one line of JSON on stdout,
     {"key": "...", "value": V, "unit": "...", "how": "..."}
   which the driver script (benchmarks/microbench/run) gathers into one file. Anything else a
   program prints goes to stderr. */
#ifndef MB_CUH
#define MB_CUH

#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <chrono>
#include <vector>
#include <algorithm>

#define MB_CHECK(call)                                                                      \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

/* One measured value. `how` says what was run, in words a device file can cite. */
static void mb_emit(const char *key, double value, const char *unit, const char *how) {
  printf("{\"key\": \"%s\", \"value\": %.10g, \"unit\": \"%s\", \"how\": \"", key, value, unit);
  for (const char *c = how; *c; c++) {
    if (*c == '"' || *c == '\\') putchar('\\');
    putchar(*c);
  }
  printf("\"}\n");
  fflush(stdout);
}

static cudaDeviceProp mb_props(void) {
  cudaDeviceProp p;
  int dev = 0;
  MB_CHECK(cudaGetDevice(&dev));
  MB_CHECK(cudaGetDeviceProperties(&p, dev));
  return p;
}

/* The nanosecond timer every SM reads the same way: %globaltimer. */
__device__ __forceinline__ uint64_t mb_globaltimer(void) {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* A kernel's thread 0 of block 0 writes its SM clock and the global timer at its start and end
   into clk[0..3]; the ratio of the two spans is the SM clock during that kernel. */
struct mb_clock {
  unsigned long long *d;
  mb_clock() { MB_CHECK(cudaMalloc(&d, 4 * sizeof(unsigned long long))); }
  ~mb_clock() { cudaFree(d); }
  double hz(void) const {
    unsigned long long h[4];
    MB_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    double cycles = (double)(h[2] - h[0]), ns = (double)(h[3] - h[1]);
    return ns > 0 ? cycles / ns * 1e9 : 0.0;
  }
};

__device__ __forceinline__ void mb_clock_start(unsigned long long *clk) {
  if (clk && blockIdx.x == 0 && threadIdx.x == 0) {
    clk[0] = clock64();
    clk[1] = mb_globaltimer();
  }
}

__device__ __forceinline__ void mb_clock_end(unsigned long long *clk) {
  if (clk && blockIdx.x == 0 && threadIdx.x == 0) {
    clk[2] = clock64();
    clk[3] = mb_globaltimer();
  }
}

/* Elapsed milliseconds between two events already recorded. */
static float mb_event_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  MB_CHECK(cudaEventSynchronize(b));
  MB_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

static double mb_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

static double mb_min(const std::vector<double> &v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

static double mb_now_s(void) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#endif
