/* ATAX (PolyBench/GPU atax.cu): y = A^T (A x); two 1-D kernels.
   Kernel 1: thread i (x) walks row i of A: the warp reads A along a column, uncoalesced.
   Kernel 2: thread j (x) walks column j: the warp reads A along a row, coalesced.
   Work size (CGPredict, Table 4): NX = NY = 4096. */
#include "common.h"

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif

static void atax(float (*A)[NY], float *x, float *y, float *tmp) {
#pragma cgpredict kernel name(atax1) dims(1)
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      tmp[i] += A[i][j] * x[j];
#pragma cgpredict kernel name(atax2) dims(1)
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++)
      y[j] += A[i][j] * tmp[i];
}

int main(void) {
  float (*A)[NY] = pb_alloc(sizeof(float[NX][NY]));
  float *x = pb_alloc(sizeof(float) * NY), *y = pb_alloc(sizeof(float) * NY), *tmp = pb_alloc(sizeof(float) * NX);
  for (int i = 0; i < NX; i++) {
    x[i % NY] = (float)i * 3.14159f;
    for (int j = 0; j < NY; j++) A[i][j] = (float)i * (j + 1) / NX;
  }
  atax(A, x, y, tmp);
  printf("atax %.6e\n", pb_sum(y, NY));
  free(A); free(x); free(y); free(tmp);
  return 0;
}
