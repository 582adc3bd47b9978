/* JACOBI1D: our sequential C version of PolyBench/GPU's CUDA/JACOBI1D/jacobi1D.cu (1-D
   three-point Jacobi stencil on A and B of N floats).

   Kernels, both 1-D with blocks of DIM_THREAD_BLOCK_X = 256 (grid ceil(N/256)), launched in
   this order once per time step (host loop over t: 2 x TSTEPS launches):
     runJacobiCUDA_kernel1  0 < i < N-1 (the loop starts at 1, thread 0 inactive as under the
                            .cu's guard): B[i] = 0.33333 * (A[i-1] + A[i] + A[i+1]). The
                            constant is a double in the .cu too, so the product is computed in
                            double precision and rounded to float, as there.
     runJacobiCUDA_kernel2  0 < j < N-1: A[j] = B[j].
   Sizes: PolyBench/GPU's (every dataset): TSTEPS = 10000, N = 4096. Override with
   -DTSTEPS=... -DN=....
   Data: PolyBench/GPU's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef TSTEPS
#define TSTEPS 10000
#endif
#ifndef N
#define N 4096
#endif

static void runJacobiCUDA_kernel1(float *A, float *B) {
#pragma cgpredict kernel name(runJacobiCUDA_kernel1) dims(1)
  for (int i = 1; i < N - 1; i++)   /* x */
    B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
}

static void runJacobiCUDA_kernel2(float *A, float *B) {
#pragma cgpredict kernel name(runJacobiCUDA_kernel2) dims(1)
  for (int j = 1; j < N - 1; j++)   /* x */
    A[j] = B[j];
}

int main(void) {
  float *A = xmalloc(sizeof(float) * N);
  float *B = xmalloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    A[i] = ((float)4 * i + 10) / N;
    B[i] = ((float)7 * i + 11) / N;
  }

  for (int t = 0; t < TSTEPS; t++) {   /* host loop: two launches per time step */
    runJacobiCUDA_kernel1(A, B);
    runJacobiCUDA_kernel2(A, B);
  }

  printf("jacobi1d checksum %.6e\n", checksum(A, N) + checksum(B, N));
  free(A);
  free(B);
  return 0;
}
