/* CORR: our sequential C version of PolyBench/GPU's CUDA/CORR/correlation.cu: the correlation
   matrix symmat[M][M] of data[N][M] (N observations of M variables).

   Kernels (one launch each, in this order):
     corr_mean    1-D, thread j (x) < M: mean[j] = sum over i of data[i][j], / FLOAT_N.
     corr_std     1-D, thread j (x) < M: stddev[j] = sqrt(sum (data[i][j]-mean[j])^2 / FLOAT_N),
                  1 if <= EPS.
     corr_reduce  2-D, j (column) = x, i (row) = y: data[i][j] -= mean[j];
                  data[i][j] /= sqrt(FLOAT_N) * stddev[j].
     corr_corr    1-D, thread j1 (x) < M-1: symmat[j1][j1] = 1, then for j2 = j1+1 .. M-1:
                  symmat[j1][j2] = sum over i of data[i][j1]*data[i][j2] (accumulated in the
                  global element, as the .cu does), mirrored to symmat[j2][j1]. The work per
                  thread shrinks with j1 (a triangle).
   After the last kernel the host sets symmat[M-1][M-1] = 1 (the .cu copies that one value to the
   device).
   Sizes: M = N = 1024, the work size of the CGPredict paper's Table 4 (PolyBench/GPU's default
   is 2048). Override with -DM=... -DN=....
   Data: data[i][j] = i*j/M as in PolyBench/GPU; FLOAT_N = 3214212.01, EPS = 0.005.
   Needs libm (sqrtf): link with -lm (cgpredict's driver adds it). */
#include <math.h>
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
#define EPS 0.005f

static void mean_kernel(float *mean, float (*data)[M]) {
#pragma cgpredict kernel name(corr_mean) dims(1)
  for (int j = 0; j < M; j++) {      /* x */
    mean[j] = 0.0f;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= FLOAT_N;
  }
}

static void std_kernel(float *mean, float *stddev, float (*data)[M]) {
#pragma cgpredict kernel name(corr_std) dims(1)
  for (int j = 0; j < M; j++) {      /* x */
    stddev[j] = 0.0f;
    for (int i = 0; i < N; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= FLOAT_N;
    stddev[j] = sqrtf(stddev[j]);
    if (stddev[j] <= EPS)
      stddev[j] = 1.0f;
  }
}

static void reduce_kernel(float *mean, float *stddev, float (*data)[M]) {
#pragma cgpredict kernel name(corr_reduce) dims(2)
  for (int i = 0; i < N; i++)        /* y */
    for (int j = 0; j < M; j++) {    /* x */
      data[i][j] -= mean[j];
      data[i][j] /= sqrtf(FLOAT_N) * stddev[j];
    }
}

static void corr_kernel(float (*symmat)[M], float (*data)[M]) {
#pragma cgpredict kernel name(corr_corr) dims(1)
  for (int j1 = 0; j1 < M - 1; j1++) {   /* x */
    symmat[j1][j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < M; j2++) {
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
  float *stddev = xmalloc(sizeof(float) * M);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) data[i][j] = (float)i * j / M;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) symmat[i][j] = 0.0f;

  mean_kernel(mean, data);
  std_kernel(mean, stddev, data);
  reduce_kernel(mean, stddev, data);
  corr_kernel(symmat, data);
  symmat[M - 1][M - 1] = 1.0f;   /* host side, after the kernels */

  printf("corr checksum %.6e\n", checksum(&symmat[0][0], (size_t)M * M));
  free(data);
  free(symmat);
  free(mean);
  free(stddev);
  return 0;
}
