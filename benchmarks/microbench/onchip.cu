/* Throughput of one SM's memory pipeline, in warp instructions (and bytes) per SM per cycle, with
   2048 threads on every SM (2 blocks of 1024; "one SM": a single block of 1024 on one SM):
   - L1 loads: ld.global.ca of 4 bytes (a warp instruction = one 128-byte line) and of 16 bytes,
     every block re-reading its own 32 KB or 64 KB (L1 hits after the first pass);
   - shared-memory loads and stores of 4 and 16 bytes, conflict-free (lane l at word l);
   - global stores of 4 bytes, every block re-writing its own 32 KB: stores go through L1 to L2,
     so on every SM this is the L2's write throughput per SM, on one SM the SM's own store path;
   - the naive GEMM's memory mix, as a check of how the above combine (not a parameter): per
     iteration a broadcast load, a coalesced load and a load then store of one line, all L1 hits.
   16-byte accesses cover the region in fewer than UNROLL steps; repeats add `(u >> 2) * 7 * zero`.
   Every address adds `it * zero` (zero is a kernel argument, 0 at run time): the compilers cannot
   prove two iterations' addresses equal, so no load is hoisted out of the loop, no load is served
   from an earlier store and no store is dropped. Each loaded value feeds one FADD. */
#include "mb.cuh"

#define UNROLL 8

__device__ __forceinline__ float ld_ca(const float *p) {
  float v;
  asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ float4 ld_ca4(const float4 *p) {
  float4 v;
  asm volatile("ld.global.ca.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void st_g(float *p, float v) { asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory"); }
__device__ __forceinline__ float ld_s(const float *p) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"((unsigned)__cvta_generic_to_shared(p)));
  return v;
}
__device__ __forceinline__ float4 ld_s4(const float4 *p) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"((unsigned)__cvta_generic_to_shared(p)));
  return v;
}
__device__ __forceinline__ void st_s(float *p, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(p)), "f"(v) : "memory");
}
__device__ __forceinline__ void st_s4(float4 *p, float4 v) {
  asm volatile("st.shared.v4.f32 [%0], {%1,%2,%3,%4};" ::"r"((unsigned)__cvta_generic_to_shared(p)), "f"(v.x),
               "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

enum { L1_LD4, L1_LD16, SM_LD4, SM_LD16, SM_ST4, SM_ST16, G_ST4, NKIND };

/* Each thread issues `iters` x UNROLL accesses of its kind. Block regions: 8192 floats. */
template <int kind>
__global__ void k_onchip(float *g, int iters, int zero, float *sink, unsigned long long *clk) {
  __shared__ __align__(16) float s[8192];
  mb_clock_start(clk);
  int t = threadIdx.x;
  float *mine = g + (size_t)blockIdx.x * 16384;
  for (int k = 0; k < 8; k++) s[t + k * 1024] = 0.f;
  __syncthreads();
  float acc = 0.f;
  float4 a4 = make_float4(0, 0, 0, 0);
  for (int it = 0; it < iters; it++) {
    float *gm = mine + it * zero;
    float *sm = s + it * zero;
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      switch (kind) {
      case L1_LD4: acc += ld_ca(gm + t + u * 1024); break;
      case L1_LD16: {
        float4 v = ld_ca4((const float4 *)gm + t + (u & 3) * 1024 + (u >> 2) * 7 * zero);
        acc += v.x;
        break;
      }
      case SM_LD4: acc += ld_s(sm + t + u * 1024); break;
      case SM_LD16: {
        float4 v = ld_s4((const float4 *)sm + t + (u & 1) * 1024 + (u >> 1) * 7 * zero);
        acc += v.x;
        break;
      }
      case SM_ST4: st_s(sm + t + u * 1024, acc); break;
      case SM_ST16: a4.x = acc; st_s4((float4 *)sm + t + (u & 1) * 1024 + (u >> 1) * 7 * zero, a4); break;
      case G_ST4: st_g(gm + t + u * 1024, acc); break;
      }
    }
    acc += 1.0f;
  }
  if (acc == 1234.5f) *sink = acc + s[t];
  mb_clock_end(clk);
}

/* The naive GEMM's k loop, block 32 x 8: c[i][j] += a[i][k] * b[k][j], k wrapping over 64 so
   that A's 8 x 64 and B's 64 x 32 stay in L1. */
__global__ void k_gemm_mix(float *A, float *B, float *C, int iters, int zero, int with_c_load, unsigned long long *clk) {
  mb_clock_start(clk);
  int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  float *a = A + (size_t)blockIdx.x * 512 + ty * 64, *b = B + (size_t)blockIdx.x * 2048 + tx;
  float *c = C + (size_t)blockIdx.x * 256 + ty * 32 + tx;
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int k = 0; k < 64; k++) {
      float *ck = c + (it * 64 + k) * zero;
      float cv = with_c_load ? ld_ca(ck) : (float)k;
      st_g(ck, cv + 0.5f * ld_ca(a + k + it * zero) * ld_ca(b + k * 32 + it * zero));
    }
  }
  mb_clock_end(clk);
}

int main(void) {
  cudaDeviceProp p = mb_props();
  int sm = p.multiProcessorCount;
  mb_clock clk;
  float *g, *sink;
  MB_CHECK(cudaMalloc(&g, (size_t)sm * 8 * 16384 * sizeof(float)));
  MB_CHECK(cudaMemset(g, 0, (size_t)sm * 8 * 16384 * sizeof(float)));
  MB_CHECK(cudaMalloc(&sink, sizeof(float)));
  cudaEvent_t e0, e1;
  MB_CHECK(cudaEventCreate(&e0));
  MB_CHECK(cudaEventCreate(&e1));
  static const char *key[] = {"l1_load4", "l1_load16", "smem_load4", "smem_load16", "smem_store4", "smem_store16", "global_store4"};
  static const int bytes[] = {4, 16, 4, 16, 4, 16, 4};
  static const char *what[] = {"ld.global.ca 4-byte, L1 hits", "ld.global.ca 16-byte, L1 hits",
                               "ld.shared 4-byte, conflict-free", "ld.shared 16-byte, conflict-free",
                               "st.shared 4-byte, conflict-free", "st.shared 16-byte, conflict-free",
                               "st.global 4-byte, one line per warp instruction"};
  const int iters = 4096;
  for (int one = 0; one < 2; one++)
    for (int kind = 0; kind < NKIND; kind++) {
      if (one && kind != G_ST4 && kind != L1_LD4) continue;
      int grid = one ? 1 : sm * 2;
      double best = 1e30, hz = 0;
      for (int r = 0; r < 3; r++) {
        MB_CHECK(cudaEventRecord(e0));
        switch (kind) {
        case L1_LD4: k_onchip<L1_LD4><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        case L1_LD16: k_onchip<L1_LD16><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        case SM_LD4: k_onchip<SM_LD4><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        case SM_LD16: k_onchip<SM_LD16><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        case SM_ST4: k_onchip<SM_ST4><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        case SM_ST16: k_onchip<SM_ST16><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        case G_ST4: k_onchip<G_ST4><<<grid, 1024>>>(g, iters, 0, sink, clk.d); break;
        }
        MB_CHECK(cudaEventRecord(e1));
        double ms = mb_event_ms(e0, e1);
        MB_CHECK(cudaGetLastError());
        if (ms < best) best = ms, hz = clk.hz();
      }
      double warp_insts = (double)grid * 32 * iters * UNROLL;
      double per_sm_cycle = warp_insts / ((one ? 1 : sm) * best * 1e-3 * hz);
      char k1[96], how[512];
      snprintf(k1, sizeof k1, "%s_warp_insts_per_cycle_per_sm%s", key[kind], one ? "_one_sm" : "");
      snprintf(how, sizeof how,
               "onchip.cu: %s, %d block(s) of 1024 threads, %d x %d per thread; warp instructions over "
               "(%s x CUDA-event time, best of 3, x the SM clock measured in the kernel, %.0f MHz); "
               "x %d bytes x 32 lanes for bytes per cycle",
               what[kind], grid, iters, UNROLL, one ? "1 SM" : "SMs", hz / 1e6, bytes[kind]);
      mb_emit(k1, per_sm_cycle, "warp instructions/cycle/SM", how);
    }
  float *A, *B, *C;
  MB_CHECK(cudaMalloc(&A, (size_t)sm * 8 * 512 * 4));
  MB_CHECK(cudaMalloc(&B, (size_t)sm * 8 * 2048 * 4));
  MB_CHECK(cudaMalloc(&C, (size_t)sm * 8 * 256 * 4));
  MB_CHECK(cudaMemset(A, 0, (size_t)sm * 8 * 512 * 4));
  MB_CHECK(cudaMemset(B, 0, (size_t)sm * 8 * 2048 * 4));
  MB_CHECK(cudaMemset(C, 0, (size_t)sm * 8 * 256 * 4));
  for (int with_c = 0; with_c < 2; with_c++) {
    double best = 1e30, hz = 0;
    const int giters = 256;
    for (int r = 0; r < 3; r++) {
      MB_CHECK(cudaEventRecord(e0));
      k_gemm_mix<<<sm * 8, 256>>>(A, B, C, giters, 0, with_c, clk.d);
      MB_CHECK(cudaEventRecord(e1));
      double ms = mb_event_ms(e0, e1);
      MB_CHECK(cudaGetLastError());
      if (ms < best) best = ms, hz = clk.hz();
    }
    double warp_iters_per_sm = (double)8 * 8 * giters * 64;
    mb_emit(with_c ? "gemm_mix3_cycles_per_warp_iteration_per_sm" : "gemm_mix2_cycles_per_warp_iteration_per_sm",
            best * 1e-3 * hz / warp_iters_per_sm, "cycles",
            with_c ? "onchip.cu k_gemm_mix (a check, not a parameter): 8 blocks of 32x8 per SM, each warp iteration a "
                     "broadcast ld.ca, a coalesced ld.ca, an ld.ca and st.global of one line, all L1-resident; SM "
                     "cycles (CUDA-event time, best of 3, x the clock measured in the kernel) over warp iterations per SM"
                   : "onchip.cu k_gemm_mix (a check, not a parameter): as gemm_mix3 without the load of c (nvcc keeps "
                     "c in a register and stores it each iteration: two loads and a store, as PolyBench/GPU's GEMM)");
  }
  return 0;
}
