/* MVT: our sequential C version of PolyBench/GPU's CUDA/MVT/mvt.cu: x1 += A y1, x2 += A^T y2.

   Kernels (one launch each, in this order), both 1-D with thread i (x) =
   blockIdx.x*blockDim.x + threadIdx.x, i < N:
     mvt1  x1[i] += A[i][j] * y1[j] over j (a warp reads A down a column: uncoalesced).
     mvt2  x2[i] += A[j][i] * y2[j] over j (a warp reads A along a row: coalesced).
   Each thread accumulates into the global element (no zeroing: x1, x2 are initialised), as the
   .cu does.
   Size: N = 4096, the work size of the CGPredict paper's Table 4 (also PolyBench/GPU's
   default). Override with -DN=....
   -DREDUNDANT_Y=Y (Y > 1) runs each kernel as the .cu launches it, with 32xY blocks whose Y
   threads of a column (threadIdx.y) repeat the same i: both kernels become 2-D, y the outer loop
   of Y iterations, each repeating the accumulation (so the sums grow Y times, where the .cu's
   racing threads leave one of them; benchmarks/h100/score).
   Data: PolyBench/GPU's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef N
#define N 4096
#endif
#ifndef REDUNDANT_Y
#define REDUNDANT_Y 1
#endif

static void mvt_kernel1(float (*A)[N], float *x1, float *y1) {
#if REDUNDANT_Y > 1
#pragma cgpredict kernel name(mvt1) dims(2)
  for (int r = 0; r < REDUNDANT_Y; r++)   /* y: the port's threadIdx.y, repeating i's work */
#else
#pragma cgpredict kernel name(mvt1) dims(1)
#endif
  for (int i = 0; i < N; i++)        /* x */
    for (int j = 0; j < N; j++)
      x1[i] += A[i][j] * y1[j];
}

static void mvt_kernel2(float (*A)[N], float *x2, float *y2) {
#if REDUNDANT_Y > 1
#pragma cgpredict kernel name(mvt2) dims(2)
  for (int r = 0; r < REDUNDANT_Y; r++)   /* y: the port's threadIdx.y, repeating i's work */
#else
#pragma cgpredict kernel name(mvt2) dims(1)
#endif
  for (int i = 0; i < N; i++)        /* x */
    for (int j = 0; j < N; j++)
      x2[i] += A[j][i] * y2[j];
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float *x1 = xmalloc(sizeof(float) * N);
  float *x2 = xmalloc(sizeof(float) * N);
  float *y1 = xmalloc(sizeof(float) * N);
  float *y2 = xmalloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    x1[i] = (float)i / N;
    x2[i] = ((float)i + 1) / N;
    y1[i] = ((float)i + 3) / N;
    y2[i] = ((float)i + 4) / N;
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N;
  }

  mvt_kernel1(A, x1, y1);
  mvt_kernel2(A, x2, y2);

  printf("mvt checksum %.6e\n", checksum(x1, N) + checksum(x2, N));
  free(A);
  free(x1);
  free(x2);
  free(y1);
  free(y2);
  return 0;
}
