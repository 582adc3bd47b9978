/* SYR2K (PolyBench/GPU syr2k.cu): C = alpha*A*B^T + alpha*B*A^T + beta*C, one kernel.
   Thread (i, j): j is x, i is y; A[j][k] and B[j][k] are uncoalesced.
   Work size (CGPredict, Table 4): N = M = 1024. */
#include "common.h"

#ifndef N
#define N 1024
#endif
#ifndef M
#define M 1024
#endif

static void syr2k(float alpha, float beta, float (*A)[M], float (*B)[M], float (*C)[N]) {
#pragma cgpredict kernel name(syr2k) dims(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < M; k++)
        C[i][j] += alpha * A[i][k] * B[j][k] + alpha * B[i][k] * A[j][k];
    }
}

int main(void) {
  float (*A)[M] = pb_alloc(sizeof(float[N][M]));
  float (*B)[M] = pb_alloc(sizeof(float[N][M]));
  float (*C)[N] = pb_alloc(sizeof(float[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      A[i][j] = (float)i * j / N;
      B[i][j] = (float)i * j / M;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) C[i][j] = (float)(i * j + 2) / N;
  syr2k(12435.0f, 4546.0f, A, B, C);
  printf("syr2k %.6e\n", pb_sum(&C[0][0], (size_t)N * N));
  free(A); free(B); free(C);
  return 0;
}
