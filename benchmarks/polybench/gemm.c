/* GEMM: our sequential C version of PolyBench/GPU's CUDA/GEMM/gemm.cu: C = alpha*A*B + beta*C.

   Kernel (one launch): gemm, 2-D over C[NI][NJ]. CUDA: j (column) = x, i (row) = y.
   Each thread scales its element by beta and accumulates into it over k, as the .cu does.
   Sizes: NI = NJ = NK = 1024, the work size of the CGPredict paper's Table 4 (PolyBench/GPU's
   default is 512). Override with -DNI=... -DNJ=... -DNK=....
   Data: PolyBench/GPU's formulas; alpha = 32412, beta = 2123. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 1024
#endif
#ifndef NJ
#define NJ 1024
#endif
#ifndef NK
#define NK 1024
#endif

static void gemm_kernel(float alpha, float beta, float (*A)[NK], float (*B)[NJ], float (*C)[NJ]) {
#pragma cgpredict kernel name(gemm) dims(2)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NJ; j++) {   /* x */
      C[i][j] *= beta;
      for (int k = 0; k < NK; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

int main(void) {
  float alpha = 32412.0f, beta = 2123.0f;
  float (*A)[NK] = xmalloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = xmalloc(sizeof(float[NK][NJ]));
  float (*C)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (float)i * k / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (float)k * j / NI;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = (float)i * j / NI;

  gemm_kernel(alpha, beta, A, B, C);

  printf("gemm checksum %.6e\n", checksum(&C[0][0], (size_t)NI * NJ));
  free(A);
  free(B);
  free(C);
  return 0;
}
