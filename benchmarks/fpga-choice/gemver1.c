/* GEMVER1: the first kernel of GEMVER (PolyBench/C 4.x, and PolyBench/GPU's gemver.cu kernel 1),
   the CGPredict paper's GPU-versus-FPGA table (Table 7), N = 2048: A = A + u1 v1^T + u2 v2^T.
   Kernel gemver1: 2-D, j (column) = x, i (row) = y, as benchmarks/polybench/gemver.c. Our own C.
   Size: N = 2048, the table's; override with -DN=.... Data: PolyBench/GPU's formulas (float
   division, as benchmarks/polybench/gemver.c). */
#include <stdio.h>
#include <stdlib.h>
#include "../polybench/bench.h"

#ifndef N
#define N 2048
#endif

static void gemver_kernel1(float (*A)[N], float *v1, float *v2, float *u1, float *u2) {
#pragma cgpredict kernel name(gemver1) dims(2)
  for (int i = 0; i < N; i++)        /* y */
    for (int j = 0; j < N; j++)      /* x */
      A[i][j] += u1[i] * v1[j] + u2[i] * v2[j];
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float *u1 = xmalloc(sizeof(float) * N), *u2 = xmalloc(sizeof(float) * N);
  float *v1 = xmalloc(sizeof(float) * N), *v2 = xmalloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    u1[i] = (float)i;
    u2[i] = ((float)i + 1) / N / 2.0f;
    v1[i] = ((float)i + 1) / N / 4.0f;
    v2[i] = ((float)i + 1) / N / 6.0f;
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N;
  }
  gemver_kernel1(A, v1, v2, u1, u2);
  printf("gemver1 checksum %.6e\n", checksum(&A[0][0], (size_t)N * N));
  free(A);
  free(u1);
  free(u2);
  free(v1);
  free(v2);
  return 0;
}
