/* MVT (PolyBench/GPU mvt.cu): x1 += A y1, x2 += A^T y2; two 1-D kernels, thread i is x.
   Kernel 1 reads A[i][j] (uncoalesced across the warp), kernel 2 A[j][i] (coalesced).
   Work size (CGPredict, Table 4): N = 4096. */
#include "common.h"

#ifndef N
#define N 4096
#endif

static void mvt(float (*A)[N], float *x1, float *x2, float *y1, float *y2) {
#pragma cgpredict kernel name(mvt1) dims(1)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x1[i] += A[i][j] * y1[j];
#pragma cgpredict kernel name(mvt2) dims(1)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x2[i] += A[j][i] * y2[j];
}

int main(void) {
  float (*A)[N] = pb_alloc(sizeof(float[N][N]));
  float *x1 = pb_alloc(sizeof(float) * N), *x2 = pb_alloc(sizeof(float) * N);
  float *y1 = pb_alloc(sizeof(float) * N), *y2 = pb_alloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    x1[i] = 0; x2[i] = 0;
    y1[i] = (float)(i + 3) / N;
    y2[i] = (float)(i + 4) / N;
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N;
  }
  mvt(A, x1, x2, y1, y2);
  printf("mvt %.6e %.6e\n", pb_sum(x1, N), pb_sum(x2, N));
  free(A); free(x1); free(x2); free(y1); free(y2);
  return 0;
}
