/* GEMM, C = alpha*A*B + beta*C, PolyBench-style, marked for cgpredict.
   Thread (i, j) computes C[i][j]: j (innermost mapped loop) is threadIdx.x, i is threadIdx.y.
   Build and run:  cgpredict build -- cc -O2 -o gemm examples/gemm.c && ./gemm */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1024
#endif

static void init(float (*A)[N], float (*B)[N], float (*C)[N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (float)((i * j) % N) / N;
      B[i][j] = (float)((i * (j + 1)) % N) / N;
      C[i][j] = (float)((i * (j + 2)) % N) / N;
    }
}

static void gemm(float alpha, float beta, float (*A)[N], float (*B)[N], float (*C)[N]) {
#pragma cgpredict kernel name(gemm) dims(2) block(32,32)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < N; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

int main(void) {
  float (*A)[N] = malloc(sizeof(float[N][N]));
  float (*B)[N] = malloc(sizeof(float[N][N]));
  float (*C)[N] = malloc(sizeof(float[N][N]));
  if (!A || !B || !C) return 1;
  init(A, B, C);
  gemm(32412.0f, 2123.0f, A, B, C);
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) sum += C[i][j];
  printf("gemm N=%d checksum %.6e\n", N, sum);
  free(A);
  free(B);
  free(C);
  return 0;
}
