/* DCT1D: the textbook O(N^2) 1-D DCT-II, the CGPredict paper's GPU-versus-FPGA table (Table 7),
   N = 1024: X[k] = sum over n of x[n] cos(pi / N (n + 1/2) k), the cosines precomputed in a
   table c[k][n] before the kernel. Kernel dct1d: 1-D, one thread per output k (x). Our own C.
   Size: N = 1024, the table's; override with -DN=.... Data: x[n] = (n mod 17) / 17. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "../polybench/bench.h"

#ifndef N
#define N 1024
#endif

static void dct1d_kernel(float (*c)[N], float *x, float *X) {
#pragma cgpredict kernel name(dct1d) dims(1)
  for (int k = 0; k < N; k++) {      /* x */
    float s = 0.0f;
    for (int n = 0; n < N; n++) s += x[n] * c[k][n];
    X[k] = s;
  }
}

int main(void) {
  float (*c)[N] = xmalloc(sizeof(float[N][N]));
  float *x = xmalloc(sizeof(float) * N), *X = xmalloc(sizeof(float) * N);
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < N; k++)
    for (int n = 0; n < N; n++) c[k][n] = (float)cos(pi / N * (n + 0.5) * k);
  for (int n = 0; n < N; n++) x[n] = (float)(n % 17) / 17.0f;
  dct1d_kernel(c, x, X);
  printf("dct1d checksum %.6e\n", checksum(X, N));
  free(c);
  free(x);
  free(X);
  return 0;
}
