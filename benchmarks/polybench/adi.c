/* ADI: our sequential C version of PolyBench/GPU's CUDA/ADI/adi.cu (alternating direction
   implicit solver: a forward and a backward sweep along the rows, then along the columns, of
   X and B with coefficients A, all N x N).

   Kernels, all 1-D with blocks of DIM_THREAD_BLOCK_X = 256 (the .cu's grid is ceil(N/256)
   blocks for every kernel), launched in this order once per time step (host loop over t):
     adi_kernel1  thread i1 (x) < N: for i2 = 1 .. N-1, X[i1][i2] and B[i1][i2] from column i2-1
                  (each thread walks its own row: a warp touches 32 rows, uncoalesced).
     adi_kernel2  thread i1 (x) < N: X[i1][N-1] /= B[i1][N-1].
     adi_kernel3  thread i1 (x) < N: backward substitution along row i1.
     adi_kernel4  thread i2 (x) < N, one launch per row i1 = 1 .. N-1 (host loop): X[i1][i2] and
                  B[i1][i2] from row i1-1 (coalesced).
     adi_kernel5  thread i2 (x) < N: X[N-1][i2] /= B[N-1][i2].
     adi_kernel6  thread i2 (x) < N, one launch per i1 = 0 .. N-3 (host loop): backward
                  substitution, row N-2-i1 from row N-3-i1.
   Launches per time step: 3 + (N-1) + 1 + (N-2).
   Sizes: PolyBench/GPU's (every dataset): TSTEPS = 1, N = 1024. Override with -DTSTEPS=... -DN=....
   Data: PolyBench/GPU's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef TSTEPS
#define TSTEPS 1
#endif
#ifndef N
#define N 1024
#endif

static void adi_kernel1(float (*A)[N], float (*B)[N], float (*X)[N]) {
#pragma cgpredict kernel name(adi_kernel1) dims(1)
  for (int i1 = 0; i1 < N; i1++)     /* x */
    for (int i2 = 1; i2 < N; i2++) {
      X[i1][i2] = X[i1][i2] - X[i1][i2 - 1] * A[i1][i2] / B[i1][i2 - 1];
      B[i1][i2] = B[i1][i2] - A[i1][i2] * A[i1][i2] / B[i1][i2 - 1];
    }
}

static void adi_kernel2(float (*B)[N], float (*X)[N]) {
#pragma cgpredict kernel name(adi_kernel2) dims(1)
  for (int i1 = 0; i1 < N; i1++)     /* x */
    X[i1][N - 1] = X[i1][N - 1] / B[i1][N - 1];
}

static void adi_kernel3(float (*A)[N], float (*B)[N], float (*X)[N]) {
#pragma cgpredict kernel name(adi_kernel3) dims(1)
  for (int i1 = 0; i1 < N; i1++)     /* x */
    for (int i2 = 0; i2 < N - 2; i2++)
      X[i1][N - i2 - 2] = (X[i1][N - 2 - i2] - X[i1][N - 2 - i2 - 1] * A[i1][N - i2 - 3]) / B[i1][N - 3 - i2];
}

static void adi_kernel4(float (*A)[N], float (*B)[N], float (*X)[N], int i1) {
#pragma cgpredict kernel name(adi_kernel4) dims(1)
  for (int i2 = 0; i2 < N; i2++) {   /* x */
    X[i1][i2] = X[i1][i2] - X[i1 - 1][i2] * A[i1][i2] / B[i1 - 1][i2];
    B[i1][i2] = B[i1][i2] - A[i1][i2] * A[i1][i2] / B[i1 - 1][i2];
  }
}

static void adi_kernel5(float (*B)[N], float (*X)[N]) {
#pragma cgpredict kernel name(adi_kernel5) dims(1)
  for (int i2 = 0; i2 < N; i2++)     /* x */
    X[N - 1][i2] = X[N - 1][i2] / B[N - 1][i2];
}

static void adi_kernel6(float (*A)[N], float (*B)[N], float (*X)[N], int i1) {
#pragma cgpredict kernel name(adi_kernel6) dims(1)
  for (int i2 = 0; i2 < N; i2++)     /* x */
    X[N - 2 - i1][i2] = (X[N - 2 - i1][i2] - X[N - i1 - 3][i2] * A[N - 3 - i1][i2]) / B[N - 2 - i1][i2];
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  float (*B)[N] = xmalloc(sizeof(float[N][N]));
  float (*X)[N] = xmalloc(sizeof(float[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      X[i][j] = ((float)i * (j + 1) + 1) / N;
      A[i][j] = ((float)(i - 1) * (j + 4) + 2) / N;
      B[i][j] = ((float)(i + 3) * (j + 7) + 3) / N;
    }

  for (int t = 0; t < TSTEPS; t++) {   /* host loop: the .cu's launch sequence */
    adi_kernel1(A, B, X);
    adi_kernel2(B, X);
    adi_kernel3(A, B, X);
    for (int i1 = 1; i1 < N; i1++) adi_kernel4(A, B, X, i1);
    adi_kernel5(B, X);
    for (int i1 = 0; i1 < N - 2; i1++) adi_kernel6(A, B, X, i1);
  }

  printf("adi checksum %.6e\n", checksum(&X[0][0], (size_t)N * N) + checksum(&B[0][0], (size_t)N * N));
  free(A);
  free(B);
  free(X);
  return 0;
}
