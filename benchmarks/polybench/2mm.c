/* 2MM (PolyBench/GPU 2mm.cu): tmp = alpha*A*B, then D = tmp*C + beta*D; two kernels.
   Both: j is x, i is y. Work size (CGPredict, Table 4): all dimensions 4096. */
#include "common.h"

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

static void mm2(float alpha, float beta, float (*A)[NK], float (*B)[NJ], float (*C)[NL], float (*D)[NL],
                float (*tmp)[NJ]) {
#pragma cgpredict kernel name(mm2_1) dims(2)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      tmp[i][j] = 0;
      for (int k = 0; k < NK; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma cgpredict kernel name(mm2_2) dims(2)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      D[i][j] *= beta;
      for (int k = 0; k < NJ; k++)
        D[i][j] += tmp[i][k] * C[k][j];
    }
}

int main(void) {
  float (*A)[NK] = pb_alloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = pb_alloc(sizeof(float[NK][NJ]));
  float (*C)[NL] = pb_alloc(sizeof(float[NJ][NL]));
  float (*D)[NL] = pb_alloc(sizeof(float[NI][NL]));
  float (*tmp)[NJ] = pb_alloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (float)i * k / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (float)k * (j + 1) / NJ;
  for (int k = 0; k < NJ; k++)
    for (int j = 0; j < NL; j++) C[k][j] = (float)k * (j + 3) / NL;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) D[i][j] = (float)i * (j + 2) / NK;
  mm2(32412.0f, 2123.0f, A, B, C, D, tmp);
  printf("2mm %.6e\n", pb_sum(&D[0][0], (size_t)NI * NL));
  free(A); free(B); free(C); free(D); free(tmp);
  return 0;
}
