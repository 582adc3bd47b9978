/* 3DCONV: our sequential C version of PolyBench/GPU's CUDA/3DCONV/3DConvolution.cu
   (B = 3-D stencil of A; the stencil's terms, including its repeated ones, are those of the .cu,
   since they fix the memory accesses).

   Kernel: conv3d, a 2-D kernel over one plane i of the NI x NJ x NK volume. CUDA:
     k = blockIdx.x*blockDim.x + threadIdx.x (x, innermost index),
     j = blockIdx.y*blockDim.y + threadIdx.y (y); guard 0 < j < NJ-1, 0 < k < NK-1, so both
     mapped loops start at 1.
   Launch structure: the host loops over the planes i = 1 .. NI-2 and launches conv3d once per
   plane: NI-2 launches (254 at the default size).
   Size assumption: the CGPredict paper gives work size 4096 on a 2-D grid. We read it as
   4096 x 4096 = 16.7 M threads in total = 256^3, i.e. NI = NJ = NK = 256, which is also
   PolyBench/GPU's default (254 launches of a 256 x 256 grid). Override with -DNI=... etc.
   Data: A[i][j][k] = i%12 + 2*(j%7) + 3*(k%13) as in PolyBench/GPU; B starts at 0. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 256
#endif
#ifndef NJ
#define NJ 256
#endif
#ifndef NK
#define NK 256
#endif

/* One launch: plane i. */
static void conv3d(int i, float (*A)[NJ][NK], float (*B)[NJ][NK]) {
  const float c11 = +2, c21 = +5, c31 = -8;
  const float c12 = -3, c22 = +6, c32 = -9;
  const float c13 = +4, c23 = +7, c33 = +10;
#pragma cgpredict kernel name(conv3d) dims(2)
  for (int j = 1; j < NJ - 1; j++)     /* y */
    for (int k = 1; k < NK - 1; k++)   /* x */
      B[i][j][k] = c11 * A[i - 1][j - 1][k - 1] + c13 * A[i + 1][j - 1][k - 1]
                 + c21 * A[i - 1][j - 1][k - 1] + c23 * A[i + 1][j - 1][k - 1]
                 + c31 * A[i - 1][j - 1][k - 1] + c33 * A[i + 1][j - 1][k - 1]
                 + c12 * A[i][j - 1][k]         + c22 * A[i][j][k]
                 + c32 * A[i][j + 1][k]         + c11 * A[i - 1][j - 1][k + 1]
                 + c13 * A[i + 1][j - 1][k + 1] + c21 * A[i - 1][j][k + 1]
                 + c23 * A[i + 1][j][k + 1]     + c31 * A[i - 1][j + 1][k + 1]
                 + c33 * A[i + 1][j + 1][k + 1];
}

int main(void) {
  float (*A)[NJ][NK] = xmalloc(sizeof(float[NI][NJ][NK]));
  float (*B)[NJ][NK] = xmalloc(sizeof(float[NI][NJ][NK]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++) {
        A[i][j][k] = (float)(i % 12 + 2 * (j % 7) + 3 * (k % 13));
        B[i][j][k] = 0.0f;
      }

  for (int i = 1; i < NI - 1; i++)   /* host loop: one launch per plane */
    conv3d(i, A, B);

  printf("3dconv checksum %.6e\n", checksum(&B[0][0][0], (size_t)NI * NJ * NK));
  free(A);
  free(B);
  return 0;
}
