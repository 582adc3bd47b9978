/* GEMVER (PolyBench/GPU gemver.cu): three kernels. Kernel 1: 2-D, j is x, i is y:
   A += u1 v1^T + u2 v2^T. Kernel 2: thread i (x): x = beta A^T y + z (A[j][i], coalesced).
   Kernel 3: thread i (x): w = alpha A x (A[i][j], uncoalesced).
   Work size: not in the paper's table; N = 4096 like the other matrix-vector kernels. */
#include "common.h"

#ifndef N
#define N 4096
#endif

static void gemver(float alpha, float beta, float (*A)[N], float *u1, float *v1, float *u2, float *v2,
                   float *w, float *x, float *y, float *z) {
#pragma cgpredict kernel name(gemver1) dims(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] += u1[i] * v1[j] + u2[i] * v2[j];
#pragma cgpredict kernel name(gemver2) dims(1)
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++)
      x[i] += beta * A[j][i] * y[j];
    x[i] += z[i];
  }
#pragma cgpredict kernel name(gemver3) dims(1)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      w[i] += alpha * A[i][j] * x[j];
}

int main(void) {
  float (*A)[N] = pb_alloc(sizeof(float[N][N]));
  float *u1 = pb_alloc(sizeof(float) * N), *v1 = pb_alloc(sizeof(float) * N), *u2 = pb_alloc(sizeof(float) * N);
  float *v2 = pb_alloc(sizeof(float) * N), *w = pb_alloc(sizeof(float) * N), *x = pb_alloc(sizeof(float) * N);
  float *y = pb_alloc(sizeof(float) * N), *z = pb_alloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    u1[i] = (float)i; u2[i] = (i + 1.0f) / N / 2.0f; v1[i] = (i + 1.0f) / N / 4.0f;
    v2[i] = (i + 1.0f) / N / 6.0f; y[i] = (i + 1.0f) / N / 8.0f; z[i] = (i + 1.0f) / N / 9.0f;
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N;
  }
  gemver(43532.0f, 12313.0f, A, u1, v1, u2, v2, w, x, y, z);
  printf("gemver %.6e\n", pb_sum(w, N));
  free(A); free(u1); free(v1); free(u2); free(v2); free(w); free(x); free(y); free(z);
  return 0;
}
