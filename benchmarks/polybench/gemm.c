/* GEMM (PolyBench/GPU gemm.cu): C = alpha*A*B + beta*C, one kernel.
   Thread (i, j): j = blockIdx.x*blockDim.x + threadIdx.x (x), i = ... .y (y).
   Work size (CGPredict, Table 4): NI = NJ = NK = 1024. */
#include "common.h"

#ifndef NI
#define NI 1024
#endif
#ifndef NJ
#define NJ 1024
#endif
#ifndef NK
#define NK 1024
#endif

static void gemm(float alpha, float beta, float (*A)[NK], float (*B)[NJ], float (*C)[NJ]) {
#pragma cgpredict kernel name(gemm) dims(2)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < NK; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

int main(void) {
  float (*A)[NK] = pb_alloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = pb_alloc(sizeof(float[NK][NJ]));
  float (*C)[NJ] = pb_alloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (float)i * k / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (float)k * j / NI;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = (float)i * j / NI;
  gemm(32412.0f, 2123.0f, A, B, C);
  printf("gemm %.6e\n", pb_sum(&C[0][0], (size_t)NI * NJ));
  free(A); free(B); free(C);
  return 0;
}
