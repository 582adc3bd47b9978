/* CORR (PolyBench/GPU correlation.cu): four kernels.
   mean and std: thread j (x) walks column j of data; reduce: 2-D, j is x, i is y;
   corr: thread j1 (x) computes row j1 of the symmetric matrix for j2 > j1 (work differs by
   thread: a triangle). Work size (CGPredict, Table 4): M = N = 1024. */
#include <math.h>
#include "common.h"

#ifndef M
#define M 1024
#endif
#ifndef N
#define N 1024
#endif

#define FLOAT_N 3214212.01f
#define EPS 0.005f

static void correlation(float (*data)[M], float *mean, float *stddev, float (*symmat)[M]) {
#pragma cgpredict kernel name(corr_mean) dims(1)
  for (int j = 0; j < M; j++) {
    mean[j] = 0.0f;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= FLOAT_N;
  }
#pragma cgpredict kernel name(corr_std) dims(1)
  for (int j = 0; j < M; j++) {
    stddev[j] = 0.0f;
    for (int i = 0; i < N; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= FLOAT_N;
    stddev[j] = sqrtf(stddev[j]);
    if (stddev[j] <= EPS) stddev[j] = 1.0f;
  }
#pragma cgpredict kernel name(corr_reduce) dims(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrtf(FLOAT_N) * stddev[j];
    }
#pragma cgpredict kernel name(corr_corr) dims(1)
  for (int j1 = 0; j1 < M - 1; j1++) {
    symmat[j1][j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < M; j2++) {
      symmat[j1][j2] = 0.0f;
      for (int i = 0; i < N; i++)
        symmat[j1][j2] += data[i][j1] * data[i][j2];
      symmat[j2][j1] = symmat[j1][j2];
    }
  }
  symmat[M - 1][M - 1] = 1.0f;
}

int main(void) {
  float (*data)[M] = pb_alloc(sizeof(float[N][M]));
  float (*symmat)[M] = pb_alloc(sizeof(float[M][M]));
  float *mean = pb_alloc(sizeof(float) * M), *stddev = pb_alloc(sizeof(float) * M);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) data[i][j] = (float)i * j / M + i;
  correlation(data, mean, stddev, symmat);
  printf("corr %.6e\n", pb_sum(&symmat[0][0], (size_t)M * M));
  free(data); free(symmat); free(mean); free(stddev);
  return 0;
}
