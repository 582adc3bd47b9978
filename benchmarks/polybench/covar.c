/* COVAR: our sequential C version of PolyBench/GPU's CUDA/COVAR/covariance.cu: the covariance
   matrix symmat[M][M] of data[N][M] (N observations of M variables).

   Kernels (one launch each, in this order):
     covar_mean    1-D, thread j (x) < M: mean[j] = sum over i of data[i][j], / FLOAT_N.
     covar_reduce  2-D, j (column) = x, i (row) = y: data[i][j] -= mean[j].
     covar_covar   1-D, thread j1 (x) < M: for j2 = j1 .. M-1: symmat[j1][j2] = sum over i of
                   data[i][j1]*data[i][j2] (accumulated in the global element, as the .cu
                   does), mirrored to symmat[j2][j1]. The work per thread shrinks with j1.
   Note: PolyBench/GPU sizes covar_reduce's y grid as N/DIM_THREAD_BLOCK_KERNEL_2_X, which with its
   own 32x8 blocks covers only N/4 rows; with the paper's 32x32 blocks it covers all N rows. We
   reduce all N rows (the computation the benchmark means).
   Sizes: M = N = 1024, the work size of the CGPredict paper's Table 4 (PolyBench/GPU's default
   is 2048). Override with -DM=... -DN=....
   Data: data[i][j] = i*j/M as in PolyBench/GPU; FLOAT_N = 3214212.01. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef M
#define M 1024
#endif
#ifndef N
#define N 1024
#endif

#define FLOAT_N 3214212.01f

static void mean_kernel(float *mean, float (*data)[M]) {
#pragma cgpredict kernel name(covar_mean) dims(1)
  for (int j = 0; j < M; j++) {      /* x */
    mean[j] = 0.0f;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= FLOAT_N;
  }
}

static void reduce_kernel(float *mean, float (*data)[M]) {
#pragma cgpredict kernel name(covar_reduce) dims(2)
  for (int i = 0; i < N; i++)        /* y */
    for (int j = 0; j < M; j++)      /* x */
      data[i][j] -= mean[j];
}

static void covar_kernel(float (*symmat)[M], float (*data)[M]) {
#pragma cgpredict kernel name(covar_covar) dims(1)
  for (int j1 = 0; j1 < M; j1++) {   /* x */
    for (int j2 = j1; j2 < M; j2++) {
      symmat[j1][j2] = 0.0f;
      for (int i = 0; i < N; i++)
        symmat[j1][j2] += data[i][j1] * data[i][j2];
      symmat[j2][j1] = symmat[j1][j2];
    }
  }
}

int main(void) {
  float (*data)[M] = xmalloc(sizeof(float[N][M]));
  float (*symmat)[M] = xmalloc(sizeof(float[M][M]));
  float *mean = xmalloc(sizeof(float) * M);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) data[i][j] = (float)i * j / M;

  mean_kernel(mean, data);
  reduce_kernel(mean, data);
  covar_kernel(symmat, data);

  printf("covar checksum %.6e\n", checksum(&symmat[0][0], (size_t)M * M));
  free(data);
  free(symmat);
  free(mean);
  return 0;
}
