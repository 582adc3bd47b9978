/* SYRK, C = alpha*A*A^T + beta*C, PolyBench-style, marked for cgpredict.
   Thread (i, j) computes C[i][j]; j (threadIdx.x) walks A[j][k] down a column across the warp,
   so that access is uncoalesced, while A[i][k] is the same for the whole warp (constant).
   Build and run:  cgpredict build -- cc -O2 -o syrk examples/syrk.c && ./syrk */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1024
#endif

static void init(float (*A)[N], float (*C)[N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (float)((i * j) % N) / N;
      C[i][j] = (float)((i * (j + 2)) % N) / N;
    }
}

static void syrk(float alpha, float beta, float (*A)[N], float (*C)[N]) {
#pragma cgpredict kernel name(syrk) dims(2) block(32,32)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < N; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
}

int main(void) {
  float (*A)[N] = malloc(sizeof(float[N][N]));
  float (*C)[N] = malloc(sizeof(float[N][N]));
  if (!A || !C) return 1;
  init(A, C);
  syrk(12435.0f, 4546.0f, A, C);
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) sum += C[i][j];
  printf("syrk N=%d checksum %.6e\n", N, sum);
  free(A);
  free(C);
  return 0;
}
