/* COVAR (PolyBench/GPU covariance.cu): three kernels.
   mean: thread j (x) walks column j; reduce: 2-D, j is x, i is y; covar: thread j1 (x)
   computes row j1 for j2 >= j1 (a triangle). Work size (CGPredict, Table 4): M = N = 1024. */
#include "common.h"

#ifndef M
#define M 1024
#endif
#ifndef N
#define N 1024
#endif

#define FLOAT_N 3214212.01f

static void covariance(float (*data)[M], float *mean, float (*symmat)[M]) {
#pragma cgpredict kernel name(covar_mean) dims(1)
  for (int j = 0; j < M; j++) {
    mean[j] = 0.0f;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= FLOAT_N;
  }
#pragma cgpredict kernel name(covar_reduce) dims(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      data[i][j] -= mean[j];
#pragma cgpredict kernel name(covar_covar) dims(1)
  for (int j1 = 0; j1 < M; j1++)
    for (int j2 = j1; j2 < M; j2++) {
      symmat[j1][j2] = 0.0f;
      for (int i = 0; i < N; i++)
        symmat[j1][j2] += data[i][j1] * data[i][j2];
      symmat[j2][j1] = symmat[j1][j2];
    }
}

int main(void) {
  float (*data)[M] = pb_alloc(sizeof(float[N][M]));
  float (*symmat)[M] = pb_alloc(sizeof(float[M][M]));
  float *mean = pb_alloc(sizeof(float) * M);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) data[i][j] = (float)i * j / M;
  covariance(data, mean, symmat);
  printf("covar %.6e\n", pb_sum(&symmat[0][0], (size_t)M * M));
  free(data); free(symmat); free(mean);
  return 0;
}
