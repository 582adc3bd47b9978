/* SYRK tiled: syrk.c written as a user tiles it for shared memory (32x32 tiles, as the CGPredict
   paper's Table 5 and the shared-memory CUDA port in ../shared/reference/h100/smem_kernels.cu):
   A is read through two index expressions, A[i][k] and A[j][k]: two footprints, both rows of A;
   the second is read down a column of its tile (lane j reads row j of it): bank conflicts.
   Sizes: NI = NJ = 1024 (multiples of 32). Override with -DNI=... -DNJ=....
   Data and checksum: as syrk.c (the sum is taken in another order: the last digits differ). */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 1024
#endif
#ifndef NJ
#define NJ 1024
#endif
#define TILE 32

static void syrk_kernel(float alpha, float beta, float (*A)[NJ], float (*C)[NI]) {
#pragma cgpredict kernel name(syrk_tiled) dims(2) block(32,32) shared(A) tile(32)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NI; j++) {   /* x */
      float s = 0;
      for (int kk = 0; kk < NJ; kk += TILE)        /* the tile loop */
        for (int k = kk; k < kk + TILE; k++)
          s += A[i][k] * A[j][k];
      C[i][j] = beta * C[i][j] + alpha * s;
    }
}

int main(void) {
  float alpha = 32412.0f, beta = 2123.0f;
  float (*A)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*C)[NI] = xmalloc(sizeof(float[NI][NI]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) A[i][j] = (float)i * j / NI;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NI; j++) C[i][j] = (float)i * j / NI;

  syrk_kernel(alpha, beta, A, C);

  printf("syrk_tiled checksum %.6e\n", checksum(&C[0][0], (size_t)NI * NI));
  free(A);
  free(C);
  return 0;
}
