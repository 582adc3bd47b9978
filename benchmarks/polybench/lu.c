/* LU: our sequential C version of PolyBench/GPU's CUDA/LU/lu.cu (in-place LU decomposition of
   A[N][N] without pivoting), launch for launch.

   Kernels, launched in this order once per k (host loop over k = 0 .. N-1: N launches of each):
     lu_kernel1  1-D, blocks of DIM_THREAD_BLOCK_KERNEL_1_X = 256, j = x:
                 A[k][j] = A[k][j] / A[k][k] for k < j < N.
     lu_kernel2  2-D, blocks of DIM_THREAD_BLOCK_KERNEL_2_X x _Y = 32 x 8, j = x, i = y:
                 A[i][j] = A[i][j] - A[i][k] * A[k][j] for k < i, j < N.
   The .cu's grids: ceil((N-k-1)/256) blocks for kernel 1 and ceil((N-k-1)/32) x
   ceil((N-k-1)/8) blocks for kernel 2, indexed from 0, with the guards above. They hold
   N-k-1 threads per dimension (rounded up to whole blocks) starting at index 0, not at k+1, so
   once k passes about N/2 most of the matrix is never updated: the .cu's results are not an LU
   decomposition, and its run is mostly guarded-out threads. We keep its launches exactly: the
   mapped loops run over the CUDA grid's threads (0 .. blocks x block size - 1) with the guards
   inside, so the block sizes are macros here (named as in lu.cuh) that must equal the block
   shapes cgpredict is told to use (the harness passes both). Our output is the .cu's output.
   (k = N-1 gives an empty grid: CUDA rejects that launch; here the nests run no thread.)
   Sizes: PolyBench/GPU's (every dataset): N = 2048. Override with -DN=....
   Data: PolyBench/GPU's A[i][j] = (i*j + 1)/N is a rank-2 matrix: without pivoting the third
   pivot is 0 and everything after it NaN (the .cu's output too). We use ((i*j mod N) + 1)/N plus
   N on the diagonal (diagonally dominant, so every pivot is nonzero); the values do not change
   the memory accesses or the work. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef N
#define N 2048
#endif
#ifndef DIM_THREAD_BLOCK_KERNEL_1_X
#define DIM_THREAD_BLOCK_KERNEL_1_X 256
#endif
#ifndef DIM_THREAD_BLOCK_KERNEL_2_X
#define DIM_THREAD_BLOCK_KERNEL_2_X 32
#endif
#ifndef DIM_THREAD_BLOCK_KERNEL_2_Y
#define DIM_THREAD_BLOCK_KERNEL_2_Y 8
#endif

/* Threads of a grid dimension: ceil(n / block) blocks of `block` threads. */
static int grid_threads(int n, int block) { return (n + block - 1) / block * block; }

static void lu_kernel1(float (*A)[N], int k) {
  int nx = grid_threads(N - (k + 1), DIM_THREAD_BLOCK_KERNEL_1_X);
#pragma cgpredict kernel name(lu_kernel1) dims(1)
  for (int j = 0; j < nx; j++)       /* x */
    if (j > k && j < N)
      A[k][j] = A[k][j] / A[k][k];
}

static void lu_kernel2(float (*A)[N], int k) {
  int nx = grid_threads(N - (k + 1), DIM_THREAD_BLOCK_KERNEL_2_X);
  int ny = grid_threads(N - (k + 1), DIM_THREAD_BLOCK_KERNEL_2_Y);
#pragma cgpredict kernel name(lu_kernel2) dims(2)
  for (int i = 0; i < ny; i++)       /* y */
    for (int j = 0; j < nx; j++)     /* x */
      if (i > k && j > k && i < N && j < N)
        A[i][j] = A[i][j] - A[i][k] * A[k][j];
}

int main(void) {
  float (*A)[N] = xmalloc(sizeof(float[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = ((float)((long)i * j % N) + 1) / N + (i == j ? N : 0);

  for (int k = 0; k < N; k++) {   /* host loop: two launches per k */
    lu_kernel1(A, k);
    lu_kernel2(A, k);
  }

  printf("lu checksum %.6e\n", checksum(&A[0][0], (size_t)N * N));
  free(A);
  return 0;
}
