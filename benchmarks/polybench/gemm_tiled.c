/* GEMM tiled: gemm.c written as a user tiles it for shared memory (32x32 tiles, as the CGPredict
   paper's Table 5 and the shared-memory CUDA port in ../shared/reference/h100/smem_kernels.cu):
   each block of 32x32 threads walks k a tile at a time; A's and B's footprints of a tile go to
   shared memory (shared(A, B) tile(32)).
   Sizes: NI = NJ = NK = 1024 (multiples of 32). Override with -DNI=... -DNJ=... -DNK=....
   Data and checksum: as gemm.c (the sum is taken in another order: the last digits differ). */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 1024
#endif
#ifndef NJ
#define NJ 1024
#endif
#ifndef NK
#define NK 1024
#endif
#define TILE 32

static void gemm_kernel(float alpha, float beta, float (*A)[NK], float (*B)[NJ], float (*C)[NJ]) {
#pragma cgpredict kernel name(gemm_tiled) dims(2) block(32,32) shared(A, B) tile(32)
  for (int i = 0; i < NI; i++)       /* y */
    for (int j = 0; j < NJ; j++) {   /* x */
      float s = 0;
      for (int kk = 0; kk < NK; kk += TILE)        /* the tile loop */
        for (int k = kk; k < kk + TILE; k++)
          s += A[i][k] * B[k][j];
      C[i][j] = beta * C[i][j] + alpha * s;
    }
}

int main(void) {
  float alpha = 32412.0f, beta = 2123.0f;
  float (*A)[NK] = xmalloc(sizeof(float[NI][NK]));
  float (*B)[NJ] = xmalloc(sizeof(float[NK][NJ]));
  float (*C)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (float)i * k / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (float)k * j / NI;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = (float)i * j / NI;

  gemm_kernel(alpha, beta, A, B, C);

  printf("gemm_tiled checksum %.6e\n", checksum(&C[0][0], (size_t)NI * NJ));
  free(A);
  free(B);
  free(C);
  return 0;
}
