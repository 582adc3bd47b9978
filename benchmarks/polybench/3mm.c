/* 3MM (PolyBench/GPU 3mm.cu): E = A*B, F = C*D, G = E*F; three kernels, j is x, i is y.
   Work size (CGPredict, Table 4): all dimensions 2048. */
#include "common.h"

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

static void mm3(float (*A)[NK], float (*B)[NJ], float (*C)[NM], float (*D)[NL], float (*E)[NJ],
                float (*F)[NL], float (*G)[NL]) {
#pragma cgpredict kernel name(mm3_1) dims(2)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      E[i][j] = 0;
      for (int k = 0; k < NK; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
#pragma cgpredict kernel name(mm3_2) dims(2)
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NL; j++) {
      F[i][j] = 0;
      for (int k = 0; k < NM; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
#pragma cgpredict kernel name(mm3_3) dims(2)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      G[i][j] = 0;
      for (int k = 0; k < NJ; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
}

int main(void) {
  float (*A)[NK] = pb_alloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = pb_alloc(sizeof(float[NK][NJ]));
  float (*C)[NM] = pb_alloc(sizeof(float[NJ][NM]));
  float (*D)[NL] = pb_alloc(sizeof(float[NM][NL]));
  float (*E)[NJ] = pb_alloc(sizeof(float[NI][NJ]));
  float (*F)[NL] = pb_alloc(sizeof(float[NJ][NL]));
  float (*G)[NL] = pb_alloc(sizeof(float[NI][NL]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NK; j++) A[i][j] = (float)i * j / NI;
  for (int i = 0; i < NK; i++)
    for (int j = 0; j < NJ; j++) B[i][j] = (float)i * (j + 1) / NJ;
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NM; j++) C[i][j] = (float)i * (j + 3) / NL;
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NL; j++) D[i][j] = (float)i * (j + 2) / NK;
  mm3(A, B, C, D, E, F, G);
  printf("3mm %.6e\n", pb_sum(&G[0][0], (size_t)NI * NL));
  free(A); free(B); free(C); free(D); free(E); free(F); free(G);
  return 0;
}
