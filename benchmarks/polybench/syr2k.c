/* SYR2K: our sequential C version of PolyBench/GPU's CUDA/SYR2K/syr2k.cu:
   C = alpha*A*B^T + alpha*B*A^T + beta*C, with A, B [NI][NJ] and C[NI][NI].

   Kernel (one launch): syr2k, 2-D over C[NI][NI]. CUDA: j (column) = x, i (row) = y.
   Each thread scales its element by beta and accumulates
   alpha*A[i][k]*B[j][k] + alpha*B[i][k]*A[j][k] over k in one statement, as the .cu does
   (A[j][k], B[j][k]: uncoalesced across the warp; A[i][k], B[i][k]: one address per warp).
   Sizes: NI = NJ = 1024, the work size of the CGPredict paper's Table 4 (also PolyBench/GPU's
   default). Override with -DNI=... -DNJ=....
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

static void syr2k_kernel(float alpha, float beta, float (*A)[NJ], float (*B)[NJ], float (*C)[NI]) {
#pragma cgpredict kernel name(syr2k) dims(2)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NI; j++) {   /* x */
      C[i][j] *= beta;
      for (int k = 0; k < NJ; k++)
        C[i][j] += alpha * A[i][k] * B[j][k] + alpha * B[i][k] * A[j][k];
    }
}

int main(void) {
  float alpha = 32412.0f, beta = 2123.0f;
  float (*A)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*B)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*C)[NI] = xmalloc(sizeof(float[NI][NI]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      A[i][j] = (float)i * j / NI;
      B[i][j] = (float)i * j / NI;
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NI; j++) C[i][j] = (float)i * j / NI;

  syr2k_kernel(alpha, beta, A, B, C);

  printf("syr2k checksum %.6e\n", checksum(&C[0][0], (size_t)NI * NI));
  free(A);
  free(B);
  free(C);
  return 0;
}
