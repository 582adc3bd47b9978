/* 2DCONV: our sequential C version of PolyBench/GPU's CUDA/2DCONV/2DConvolution.cu
   (B = 3x3 stencil of A), written for cgpredict.

   Kernel (one launch):
     conv2d  2-D grid. CUDA: j = blockIdx.x*blockDim.x + threadIdx.x (x, column),
             i = blockIdx.y*blockDim.y + threadIdx.y (y, row); guard 0 < i < NI-1, 0 < j < NJ-1,
             so both mapped loops start at 1 (thread row 0 / column 0 stays inactive as in CUDA).
   Sizes: NI = NJ = 4096, the work size of the CGPredict paper's Table 4 (also PolyBench/GPU's
   default). Override with -DNI=... -DNJ=....
   Data: A[i][j] = rand()/RAND_MAX as in PolyBench/GPU (glibc's rand(), default seed, so the
   output is deterministic); B starts at 0 (its border is never written). */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

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
  for (int i = 1; i < NI - 1; i++)     /* y */
    for (int j = 1; j < NJ - 1; j++)   /* x */
      B[i][j] = c11 * A[i - 1][j - 1] + c21 * A[i - 1][j] + c31 * A[i - 1][j + 1]
              + c12 * A[i][j - 1]     + c22 * A[i][j]     + c32 * A[i][j + 1]
              + c13 * A[i + 1][j - 1] + c23 * A[i + 1][j] + c33 * A[i + 1][j + 1];
}

int main(void) {
  float (*A)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*B)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      A[i][j] = (float)rand() / (float)RAND_MAX;
      B[i][j] = 0.0f;
    }

  conv2d(A, B);

  printf("2dconv checksum %.6e\n", checksum(&B[0][0], (size_t)NI * NJ));
  free(A);
  free(B);
  return 0;
}
