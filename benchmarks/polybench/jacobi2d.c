/* JACOBI2D: our sequential C version of PolyBench/GPU's CUDA/JACOBI2D/jacobi2D.cu (2-D
   five-point Jacobi stencil on A and B, N x N).

   Kernels, both 2-D with CUDA's j (column) = x, i (row) = y and blocks of DIM_THREAD_BLOCK_X x
   DIM_THREAD_BLOCK_Y = 32 x 8, launched in this order once per time step (host loop over t:
   2 x TSTEPS launches); both guards are 1 <= i, j < N-1, so both mapped loops start at 1:
     runJacobiCUDA_kernel1  B[i][j] = 0.2f * (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]).
     runJacobiCUDA_kernel2  A[i][j] = B[i][j].
   Sizes: PolyBench/GPU's (every dataset, and the .cu's own #defines): TSTEPS = 20, N = 1000.
   Override with -DTSTEPS=... -DN=....
   Data: PolyBench/GPU's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef TSTEPS
#define TSTEPS 20
#endif
#ifndef N
#define N 1000
#endif

static void runJacobiCUDA_kernel1(float (*A)[N], float (*B)[N]) {
#pragma cgpredict kernel name(runJacobiCUDA_kernel1) dims(2)
  for (int i = 1; i < N - 1; i++)     /* y */
    for (int j = 1; j < N - 1; j++)   /* x */
      B[i][j] = 0.2f * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
}

static void runJacobiCUDA_kernel2(float (*A)[N], float (*B)[N]) {
#pragma cgpredict kernel name(runJacobiCUDA_kernel2) dims(2)
  for (int i = 1; i < N - 1; i++)     /* y */
    for (int j = 1; j < N - 1; j++)   /* x */
      A[i][j] = B[i][j];
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float (*B)[N] = xmalloc(sizeof(float[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = ((float)i * (j + 2) + 10) / N;
      B[i][j] = ((float)(i - 4) * (j - 1) + 11) / N;
    }

  for (int t = 0; t < TSTEPS; t++) {   /* host loop: two launches per time step */
    runJacobiCUDA_kernel1(A, B);
    runJacobiCUDA_kernel2(A, B);
  }

  printf("jacobi2d checksum %.6e\n", checksum(&A[0][0], (size_t)N * N) + checksum(&B[0][0], (size_t)N * N));
  free(A);
  free(B);
  return 0;
}
