/* 3MM: our sequential C version of PolyBench/GPU's CUDA/3MM/3mm.cu: E = A*B, F = C*D, G = E*F.

   Kernels (one launch each, in this order), all 2-D with CUDA's j (column) = x, i (row) = y:
     mm3_1  E[NI][NJ] = A[NI][NK] * B[NK][NJ]
     mm3_2  F[NJ][NL] = C[NJ][NM] * D[NM][NL]
     mm3_3  G[NI][NL] = E[NI][NJ] * F[NJ][NL]
   Each thread zeroes its element and accumulates into it over k, as the .cu does.
   Sizes: all 2048, the work size of the CGPredict paper's Table 4 (PolyBench/GPU's default is
   512). Override with -DNI=... -DNJ=... -DNK=... -DNL=... -DNM=....
   Data: PolyBench/GPU's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 2048
#endif
#ifndef NJ
#define NJ 2048
#endif
#ifndef NK
#define NK 2048
#endif
#ifndef NL
#define NL 2048
#endif
#ifndef NM
#define NM 2048
#endif

static void mm3_kernel1(float (*A)[NK], float (*B)[NJ], float (*E)[NJ]) {
#pragma cgpredict kernel name(mm3_1) dims(2)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NJ; j++) {   /* x */
      E[i][j] = 0.0f;
      for (int k = 0; k < NK; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
}

static void mm3_kernel2(float (*C)[NM], float (*D)[NL], float (*F)[NL]) {
#pragma cgpredict kernel name(mm3_2) dims(2)
  for (int i = 0; i < NJ; i++)       /* y */
    for (int j = 0; j < NL; j++) {   /* x */
      F[i][j] = 0.0f;
      for (int k = 0; k < NM; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
}

static void mm3_kernel3(float (*E)[NJ], float (*F)[NL], float (*G)[NL]) {
#pragma cgpredict kernel name(mm3_3) dims(2)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NL; j++) {   /* x */
      G[i][j] = 0.0f;
      for (int k = 0; k < NJ; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
}

int main(void) {
  float (*A)[NK] = xmalloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = xmalloc(sizeof(float[NK][NJ]));
  float (*C)[NM] = xmalloc(sizeof(float[NJ][NM]));
  float (*D)[NL] = xmalloc(sizeof(float[NM][NL]));
  float (*E)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*F)[NL] = xmalloc(sizeof(float[NJ][NL]));
  float (*G)[NL] = xmalloc(sizeof(float[NI][NL]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NK; j++) A[i][j] = (float)i * j / NI;
  for (int i = 0; i < NK; i++)
    for (int j = 0; j < NJ; j++) B[i][j] = (float)i * (j + 1) / NJ;
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NM; j++) C[i][j] = (float)i * (j + 3) / NL;
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NL; j++) D[i][j] = (float)i * (j + 2) / NK;

  mm3_kernel1(A, B, E);
  mm3_kernel2(C, D, F);
  mm3_kernel3(E, F, G);

  printf("3mm checksum %.6e\n", checksum(&G[0][0], (size_t)NI * NL));
  free(A);
  free(B);
  free(C);
  free(D);
  free(E);
  free(F);
  free(G);
  return 0;
}
