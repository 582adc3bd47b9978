/* ATAX: our sequential C version of PolyBench/GPU's CUDA/ATAX/atax.cu: y = A^T (A x).

   Kernels (one launch each, in this order), both 1-D:
     atax1  thread i (x) = blockIdx.x*blockDim.x + threadIdx.x, i < NX: tmp[i] = 0, then
            tmp[i] += A[i][j] * x[j] over j (a warp reads A down a column: uncoalesced).
     atax2  thread j (x), j < NY: y[j] = 0, then y[j] += A[i][j] * tmp[i] over i (a warp reads
            A along a row: coalesced).
   Each thread accumulates into the global element, as the .cu does.
   Sizes: NX = NY = 4096, the work size of the CGPredict paper's Table 4 (also PolyBench/GPU's
   default). Override with -DNX=... -DNY=....
   -DREDUNDANT_Y=Y (Y > 1) runs each kernel as the .cu launches it, with 32xY blocks whose Y
   threads of a column (threadIdx.y) repeat the same x: both kernels become 2-D, y the outer
   loop of Y iterations, each repeating the whole computation (benchmarks/h100/score).
   Data: x[i] = i*pi, A[i][j] = i*j/NX as in PolyBench/GPU. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif

#ifndef REDUNDANT_Y
#define REDUNDANT_Y 1
#endif

#define PB_PI 3.14159265358979323846

static void atax_kernel1(float (*A)[NY], float *x, float *tmp) {
#if REDUNDANT_Y > 1
#pragma cgpredict kernel name(atax1) dims(2)
  for (int r = 0; r < REDUNDANT_Y; r++)   /* y: the port's threadIdx.y, repeating x's work */
#else
#pragma cgpredict kernel name(atax1) dims(1)
#endif
  for (int i = 0; i < NX; i++) {     /* x */
    tmp[i] = 0.0f;
    for (int j = 0; j < NY; j++)
      tmp[i] += A[i][j] * x[j];
  }
}

static void atax_kernel2(float (*A)[NY], float *y, float *tmp) {
#if REDUNDANT_Y > 1
#pragma cgpredict kernel name(atax2) dims(2)
  for (int r = 0; r < REDUNDANT_Y; r++)   /* y: the port's threadIdx.y, repeating x's work */
#else
#pragma cgpredict kernel name(atax2) dims(1)
#endif
  for (int j = 0; j < NY; j++) {     /* x */
    y[j] = 0.0f;
    for (int i = 0; i < NX; i++)
      y[j] += A[i][j] * tmp[i];
  }
}

int main(void) {
  float (*A)[NY] = xmalloc(sizeof(float[NX][NY]));
  float *x = xmalloc(sizeof(float) * NY);
  float *y = xmalloc(sizeof(float) * NY);
  float *tmp = xmalloc(sizeof(float) * NX);
  for (int j = 0; j < NY; j++) x[j] = (float)(j * PB_PI);
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) A[i][j] = (float)i * j / NX;

  atax_kernel1(A, x, tmp);
  atax_kernel2(A, y, tmp);

  printf("atax checksum %.6e\n", checksum(y, NY));
  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
