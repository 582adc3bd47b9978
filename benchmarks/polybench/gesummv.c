/* GESUMMV (PolyBench/GPU gesummv.cu): y = alpha*A*x + beta*B*x; one 1-D kernel, thread i is x;
   A[i][j] and B[i][j] are read along a column across the warp (uncoalesced).
   Work size (CGPredict, Table 4): N = 4096. */
#include "common.h"

#ifndef N
#define N 4096
#endif

static void gesummv(float alpha, float beta, float (*A)[N], float (*B)[N], float *x, float *y, float *tmp) {
#pragma cgpredict kernel name(gesummv) dims(1)
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      tmp[i] += A[i][j] * x[j];
      y[i] += B[i][j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

int main(void) {
  float (*A)[N] = pb_alloc(sizeof(float[N][N]));
  float (*B)[N] = pb_alloc(sizeof(float[N][N]));
  float *x = pb_alloc(sizeof(float) * N), *y = pb_alloc(sizeof(float) * N), *tmp = pb_alloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    x[i] = (float)i / N;
    for (int j = 0; j < N; j++) {
      A[i][j] = (float)i * j / N;
      B[i][j] = (float)(i * j + 1) / N;
    }
  }
  gesummv(43532.0f, 12313.0f, A, B, x, y, tmp);
  printf("gesummv %.6e\n", pb_sum(y, N));
  free(A); free(B); free(x); free(y); free(tmp);
  return 0;
}
