/* BICG (PolyBench/GPU bicg.cu): s = A^T r, q = A p; two 1-D kernels.
   Kernel 1: thread j (x) walks column j (coalesced across the warp).
   Kernel 2: thread i (x) walks row i (uncoalesced across the warp).
   Work size (CGPredict, Table 4): NX = NY = 4096. */
#include "common.h"

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif

static void bicg(float (*A)[NY], float *r, float *s, float *p, float *q) {
#pragma cgpredict kernel name(bicg1) dims(1)
  for (int j = 0; j < NY; j++) {
    s[j] = 0;
    for (int i = 0; i < NX; i++)
      s[j] += A[i][j] * r[i];
  }
#pragma cgpredict kernel name(bicg2) dims(1)
  for (int i = 0; i < NX; i++) {
    q[i] = 0;
    for (int j = 0; j < NY; j++)
      q[i] += A[i][j] * p[j];
  }
}

int main(void) {
  float (*A)[NY] = pb_alloc(sizeof(float[NX][NY]));
  float *r = pb_alloc(sizeof(float) * NX), *s = pb_alloc(sizeof(float) * NY);
  float *p = pb_alloc(sizeof(float) * NY), *q = pb_alloc(sizeof(float) * NX);
  for (int i = 0; i < NY; i++) p[i] = (float)i * 3.14159f;
  for (int i = 0; i < NX; i++) {
    r[i] = (float)i * 3.14159f;
    for (int j = 0; j < NY; j++) A[i][j] = (float)i * j / NX;
  }
  bicg(A, r, s, p, q);
  printf("bicg %.6e %.6e\n", pb_sum(s, NY), pb_sum(q, NX));
  free(A); free(r); free(s); free(p); free(q);
  return 0;
}
