/* MM: the matrix multiply of the CGPredict paper's GPU-versus-FPGA table (Table 7), N = 1024:
   C = A B, each thread (i, j) the dot product of row i of A and column j of B, as PolyBench/GPU's
   GEMM without alpha and beta. Our own C. Kernel mm: 2-D, j (column) = x, i (row) = y.
   Size: N = 1024, the table's; override with -DN=.... Data: A[i][j] = i j / N, B[i][j] = (i + j) / N. */
#include <stdio.h>
#include <stdlib.h>
#include "../polybench/bench.h"

#ifndef N
#define N 1024
#endif

static void mm_kernel(float (*A)[N], float (*B)[N], float (*C)[N]) {
#pragma cgpredict kernel name(mm) dims(2)
  for (int i = 0; i < N; i++)        /* y */
    for (int j = 0; j < N; j++) {    /* x */
      float s = 0.0f;
      for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N])), (*B)[N] = xmalloc(sizeof(float[N][N]));
  float (*C)[N] = xmalloc(sizeof(float[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (float)i * j / N, B[i][j] = (float)(i + j) / N;
  mm_kernel(A, B, C);
  printf("mm checksum %.6e\n", checksum(&C[0][0], (size_t)N * N));
  free(A);
  free(B);
  free(C);
  return 0;
}
