/* 2MM: our sequential C version of PolyBench/GPU's CUDA/2MM/2mm.cu:
   tmp = alpha*A*B, then D = tmp*C + beta*D.

   Kernels (one launch each, in this order):
     mm2_1  2-D grid over tmp[NI][NJ]. CUDA: j (column) = x, i (row) = y.
     mm2_2  2-D grid over D[NI][NL].   CUDA: j (column) = x, i (row) = y.
   Each thread runs the k loop of its element, accumulating into the global element as the .cu does.
   Sizes: NI = NJ = NK = NL = 4096, the work size of the CGPredict paper's Table 4 (PolyBench/GPU's
   default is 2048). Override with -DNI=... etc.
   Data: PolyBench/GPU's formulas; alpha = 32412, beta = 2123. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 4096
#endif
#ifndef NJ
#define NJ 4096
#endif
#ifndef NK
#define NK 4096
#endif
#ifndef NL
#define NL 4096
#endif

static void mm2_kernel1(float alpha, float (*tmp)[NJ], float (*A)[NK], float (*B)[NJ]) {
#pragma cgpredict kernel name(mm2_1) dims(2)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NJ; j++) {   /* x */
      tmp[i][j] = 0.0f;
      for (int k = 0; k < NK; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
}

static void mm2_kernel2(float beta, float (*tmp)[NJ], float (*C)[NL], float (*D)[NL]) {
#pragma cgpredict kernel name(mm2_2) dims(2)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NL; j++) {   /* x */
      D[i][j] *= beta;
      for (int k = 0; k < NJ; k++)
        D[i][j] += tmp[i][k] * C[k][j];
    }
}

int main(void) {
  float alpha = 32412.0f, beta = 2123.0f;
  float (*A)[NK] = xmalloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = xmalloc(sizeof(float[NK][NJ]));
  float (*C)[NL] = xmalloc(sizeof(float[NJ][NL]));
  float (*D)[NL] = xmalloc(sizeof(float[NI][NL]));
  float (*tmp)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (float)i * k / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (float)k * (j + 1) / NJ;
  for (int k = 0; k < NJ; k++)
    for (int j = 0; j < NL; j++) C[k][j] = (float)k * (j + 3) / NL;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) D[i][j] = (float)i * (j + 2) / NK;

  mm2_kernel1(alpha, tmp, A, B);
  mm2_kernel2(beta, tmp, C, D);

  printf("2mm checksum %.6e\n", checksum(&D[0][0], (size_t)NI * NL));
  free(A);
  free(B);
  free(C);
  free(D);
  free(tmp);
  return 0;
}
