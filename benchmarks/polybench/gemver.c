/* GEMVER: our sequential C version of PolyBench/GPU's CUDA/GEMVER/gemver.cu:
   A = A + u1 v1^T + u2 v2^T;  x = x + beta A^T y + z;  w = w + alpha A x.

   Kernels (one launch each, in this order):
     gemver1  2-D: j (column) = x, i (row) = y: A[i][j] += u1[i]*v1[j] + u2[i]*v2[j].
     gemver2  1-D: thread i (x): x[i] += beta*A[j][i]*y[j] over j (a warp reads A along a row:
              coalesced), then x[i] += z[i].
     gemver3  1-D: thread i (x): w[i] += alpha*A[i][j]*x[j] over j (a warp reads A down a
              column: uncoalesced).
   Each thread accumulates into the global element, as the .cu does.
   Size assumption: GEMVER is not in the CGPredict paper's Table 4; N = 4096 is our choice (the
   size of the paper's other matrix-vector kernels, and PolyBench/GPU's default).
   Data: PolyBench/GPU's formulas, except that u2, v1, v2, y, z use float division: the .cu's
   (i+1)/N/2.0 divides integers first and makes them 0 for all i < N-1.
   alpha = 43532, beta = 12313. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef N
#define N 4096
#endif

static void gemver_kernel1(float (*A)[N], float *v1, float *v2, float *u1, float *u2) {
#pragma cgpredict kernel name(gemver1) dims(2)
  for (int i = 0; i < N; i++)        /* y */
    for (int j = 0; j < N; j++)      /* x */
      A[i][j] += u1[i] * v1[j] + u2[i] * v2[j];
}

static void gemver_kernel2(float beta, float (*A)[N], float *x, float *y, float *z) {
#pragma cgpredict kernel name(gemver2) dims(1)
  for (int i = 0; i < N; i++) {      /* x */
    for (int j = 0; j < N; j++)
      x[i] += beta * A[j][i] * y[j];
    x[i] += z[i];
  }
}

static void gemver_kernel3(float alpha, float (*A)[N], float *x, float *w) {
#pragma cgpredict kernel name(gemver3) dims(1)
  for (int i = 0; i < N; i++)        /* x */
    for (int j = 0; j < N; j++)
      w[i] += alpha * A[i][j] * x[j];
}

int main(void) {
  float alpha = 43532.0f, beta = 12313.0f;
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float *u1 = xmalloc(sizeof(float) * N), *u2 = xmalloc(sizeof(float) * N);
  float *v1 = xmalloc(sizeof(float) * N), *v2 = xmalloc(sizeof(float) * N);
  float *w = xmalloc(sizeof(float) * N), *x = xmalloc(sizeof(float) * N);
  float *y = xmalloc(sizeof(float) * N), *z = xmalloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    u1[i] = (float)i;
    u2[i] = ((float)i + 1) / N / 2.0f;
    v1[i] = ((float)i + 1) / N / 4.0f;
    v2[i] = ((float)i + 1) / N / 6.0f;
    y[i] = ((float)i + 1) / N / 8.0f;
    z[i] = ((float)i + 1) / N / 9.0f;
    x[i] = 0.0f;
    w[i] = 0.0f;
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N;
  }

  gemver_kernel1(A, v1, v2, u1, u2);
  gemver_kernel2(beta, A, x, y, z);
  gemver_kernel3(alpha, A, x, w);

  printf("gemver checksum %.6e\n", checksum(w, N));
  free(A);
  free(u1);
  free(u2);
  free(v1);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
