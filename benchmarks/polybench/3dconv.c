/* 3DCONV (PolyBench/GPU 3DConvolution.cu): a 3-D stencil. The CUDA host loops over the planes
   i = 1 .. NI-2 and launches one 2-D kernel per plane: k is x, j is y.
   Work size: the paper gives 4096 for a 2-D grid; we read it as 4096 x 4096 = 16.7 M threads in
   all, i.e. NI = NJ = NK = 256 (PolyBench/GPU's own default), 254 launches of 256 x 256. */
#include "common.h"

#ifndef NI
#define NI 256
#endif
#ifndef NJ
#define NJ 256
#endif
#ifndef NK
#define NK 256
#endif

static void conv3d_plane(int i, float (*A)[NJ][NK], float (*B)[NJ][NK]) {
  const float c11 = +2, c21 = +5, c31 = -8, c12 = -3, c22 = +6, c32 = -9, c13 = +4, c23 = +7, c33 = +10;
#pragma cgpredict kernel name(conv3d) dims(2)
  for (int j = 1; j < NJ - 1; j++)
    for (int k = 1; k < NK - 1; k++)
      B[i][j][k] = c11 * A[i - 1][j - 1][k - 1] + c13 * A[i + 1][j - 1][k - 1]
                 + c21 * A[i - 1][j - 1][k - 1] + c23 * A[i + 1][j - 1][k - 1]
                 + c31 * A[i - 1][j - 1][k - 1] + c33 * A[i + 1][j - 1][k - 1]
                 + c12 * A[i + 0][j - 1][k + 0] + c22 * A[i + 0][j + 0][k + 0]
                 + c32 * A[i + 0][j + 1][k + 0] + c11 * A[i - 1][j - 1][k + 1]
                 + c13 * A[i + 1][j - 1][k + 1] + c21 * A[i - 1][j + 0][k + 1]
                 + c23 * A[i + 1][j + 0][k + 1] + c31 * A[i - 1][j + 1][k + 1]
                 + c33 * A[i + 1][j + 1][k + 1];
}

int main(void) {
  float (*A)[NJ][NK] = pb_alloc(sizeof(float[NI][NJ][NK]));
  float (*B)[NJ][NK] = pb_alloc(sizeof(float[NI][NJ][NK]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++) A[i][j][k] = (float)(i % 12 + 2 * (j % 7) + 3 * (k % 13));
  for (int i = 1; i < NI - 1; i++) conv3d_plane(i, A, B);
  printf("3dconv %.6e\n", pb_sum(&B[0][0][0], (size_t)NI * NJ * NK));
  free(A); free(B);
  return 0;
}
