/* BICG: our sequential C version of PolyBench/GPU's CUDA/BICG/bicg.cu: s = A^T r, q = A p.

   Kernels (one launch each, in this order), both 1-D:
     bicg1  thread j (x) = blockIdx.x*blockDim.x + threadIdx.x, j < NY: s[j] = 0, then
            s[j] += r[i] * A[i][j] over i (a warp reads A along a row: coalesced).
     bicg2  thread i (x), i < NX: q[i] = 0, then q[i] += A[i][j] * p[j] over j (a warp reads A
            down a column: uncoalesced).
   Each thread accumulates into the global element, as the .cu does.
   Sizes: NX = NY = 4096, the work size of the CGPredict paper's Table 4 (also PolyBench/GPU's
   default). Override with -DNX=... -DNY=....
   Data: p[j] = j*pi, r[i] = i*pi, A[i][j] = i*j/NX as in PolyBench/GPU. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif

#define PB_PI 3.14159265358979323846

static void bicg_kernel1(float (*A)[NY], float *r, float *s) {
#pragma cgpredict kernel name(bicg1) dims(1)
  for (int j = 0; j < NY; j++) {     /* x */
    s[j] = 0.0f;
    for (int i = 0; i < NX; i++)
      s[j] += r[i] * A[i][j];
  }
}

static void bicg_kernel2(float (*A)[NY], float *p, float *q) {
#pragma cgpredict kernel name(bicg2) dims(1)
  for (int i = 0; i < NX; i++) {     /* x */
    q[i] = 0.0f;
    for (int j = 0; j < NY; j++)
      q[i] += A[i][j] * p[j];
  }
}

int main(void) {
  float (*A)[NY] = xmalloc(sizeof(float[NX][NY]));
  float *r = xmalloc(sizeof(float) * NX);
  float *s = xmalloc(sizeof(float) * NY);
  float *p = xmalloc(sizeof(float) * NY);
  float *q = xmalloc(sizeof(float) * NX);
  for (int j = 0; j < NY; j++) p[j] = (float)(j * PB_PI);
  for (int i = 0; i < NX; i++) {
    r[i] = (float)(i * PB_PI);
    for (int j = 0; j < NY; j++) A[i][j] = (float)i * j / NX;
  }

  bicg_kernel1(A, r, s);
  bicg_kernel2(A, p, q);

  printf("bicg checksum %.6e\n", checksum(s, NY) + checksum(q, NX));
  free(A);
  free(r);
  free(s);
  free(p);
  free(q);
  return 0;
}
