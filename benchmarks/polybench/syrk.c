/* SYRK (PolyBench/GPU syrk.cu): C = alpha*A*A^T + beta*C, one kernel.
   Thread (i, j): j is x, i is y; A[j][k] walks down a column across the warp (uncoalesced).
   Work size (CGPredict, Table 4): N = M = 1024. */
#include "common.h"

#ifndef N
#define N 1024
#endif
#ifndef M
#define M 1024
#endif

static void syrk(float alpha, float beta, float (*A)[M], float (*C)[N]) {
#pragma cgpredict kernel name(syrk) dims(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < M; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
}

int main(void) {
  float (*A)[M] = pb_alloc(sizeof(float[N][M]));
  float (*C)[N] = pb_alloc(sizeof(float[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) A[i][j] = (float)i * j / N;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) C[i][j] = (float)(i * j + 2) / N;
  syrk(12435.0f, 4546.0f, A, C);
  printf("syrk %.6e\n", pb_sum(&C[0][0], (size_t)N * N));
  free(A); free(C);
  return 0;
}
