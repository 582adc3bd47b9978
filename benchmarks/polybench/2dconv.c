/* 2DCONV (PolyBench/GPU 2DConvolution.cu): a 3x3 stencil, one kernel.
   Thread (i, j): j is x, i is y; CUDA's guard 0 < i < NI-1, 0 < j < NJ-1 is the loop range.
   Work size (CGPredict, Table 4): NI = NJ = 4096. */
#include "common.h"

#ifndef NI
#define NI 4096
#endif
#ifndef NJ
#define NJ 4096
#endif

static void conv2d(float (*A)[NJ], float (*B)[NJ]) {
  const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
  const float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
  const float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
#pragma cgpredict kernel name(conv2d) dims(2)
  for (int i = 1; i < NI - 1; i++)
    for (int j = 1; j < NJ - 1; j++)
      B[i][j] = c11 * A[i - 1][j - 1] + c12 * A[i + 0][j - 1] + c13 * A[i + 1][j - 1]
              + c21 * A[i - 1][j + 0] + c22 * A[i + 0][j + 0] + c23 * A[i + 1][j + 0]
              + c31 * A[i - 1][j + 1] + c32 * A[i + 0][j + 1] + c33 * A[i + 1][j + 1];
}

int main(void) {
  float (*A)[NJ] = pb_alloc(sizeof(float[NI][NJ]));
  float (*B)[NJ] = pb_alloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) A[i][j] = (float)rand() / (float)RAND_MAX;
  conv2d(A, B);
  printf("2dconv %.6e\n", pb_sum(&B[0][0], (size_t)NI * NJ));
  free(A); free(B);
  return 0;
}
