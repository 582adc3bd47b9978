/* GESUMMV: our sequential C version of PolyBench/GPU's CUDA/GESUMMV/gesummv.cu:
   y = alpha*A*x + beta*B*x.

   Kernel (one launch): gesummv, 1-D, thread i (x) = blockIdx.x*blockDim.x + threadIdx.x, i < N:
     tmp[i] += A[i][j]*x[j]; y[i] += B[i][j]*x[j] over j, then y[i] = alpha*tmp[i] + beta*y[i]
     (a warp reads A and B down a column: uncoalesced). As in the .cu, the kernel does not zero
     tmp and y; the host initialises them to 0.
   Size: N = 4096, the work size of the CGPredict paper's Table 4 (also PolyBench/GPU's
   default). Override with -DN=....
   Data: PolyBench/GPU's formulas; alpha = 43532, beta = 12313. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef N
#define N 4096
#endif

static void gesummv_kernel(float alpha, float beta, float (*A)[N], float (*B)[N], float *tmp,
                           float *x, float *y) {
#pragma cgpredict kernel name(gesummv) dims(1)
  for (int i = 0; i < N; i++) {      /* x */
    for (int j = 0; j < N; j++) {
      tmp[i] += A[i][j] * x[j];
      y[i] += B[i][j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

int main(void) {
  float alpha = 43532.0f, beta = 12313.0f;
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float (*B)[N] = xmalloc(sizeof(float[N][N]));
  float *tmp = xmalloc(sizeof(float) * N);
  float *x = xmalloc(sizeof(float) * N);
  float *y = xmalloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    x[i] = (float)i / N;
    tmp[i] = 0.0f;
    y[i] = 0.0f;
    for (int j = 0; j < N; j++) {
      A[i][j] = (float)i * j / N;
      B[i][j] = (float)i * j / N;
    }
  }

  gesummv_kernel(alpha, beta, A, B, tmp, x, y);

  printf("gesummv checksum %.6e\n", checksum(y, N));
  free(A);
  free(B);
  free(tmp);
  free(x);
  free(y);
  return 0;
}
