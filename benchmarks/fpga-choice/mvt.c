/* MVT: the CGPredict paper's GPU-versus-FPGA table (Table 7), N = 2048: x1 += A y1, x2 += A^T y2,
   as benchmarks/polybench/mvt.c (PolyBench/GPU's two kernels, one thread per i). The table's MVT
   is the benchmark: both kernels, their times added. Our own C.
   Size: N = 2048, the table's; override with -DN=.... Data: PolyBench/GPU's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include "../polybench/bench.h"

#ifndef N
#define N 2048
#endif

static void mvt_kernel1(float (*A)[N], float *x1, float *y1) {
#pragma cgpredict kernel name(mvt1) dims(1)
  for (int i = 0; i < N; i++)        /* x */
    for (int j = 0; j < N; j++)
      x1[i] += A[i][j] * y1[j];
}

static void mvt_kernel2(float (*A)[N], float *x2, float *y2) {
#pragma cgpredict kernel name(mvt2) dims(1)
  for (int i = 0; i < N; i++)        /* x */
    for (int j = 0; j < N; j++)
      x2[i] += A[j][i] * y2[j];
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float *x1 = xmalloc(sizeof(float) * N), *x2 = xmalloc(sizeof(float) * N);
  float *y1 = xmalloc(sizeof(float) * N), *y2 = xmalloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    x1[i] = (float)i / N;
    x2[i] = ((float)i + 1) / N;
    y1[i] = ((float)i + 3) / N;
    y2[i] = ((float)i + 4) / N;
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N;
  }
  mvt_kernel1(A, x1, y1);
  mvt_kernel2(A, x2, y2);
  printf("mvt checksum %.6e\n", checksum(x1, N) + checksum(x2, N));
  free(A);
  free(x1);
  free(x2);
  free(y1);
  free(y2);
  return 0;
}
