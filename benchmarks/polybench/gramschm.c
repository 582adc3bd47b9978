/* GRAMSCHM (PolyBench/GPU gramschmidt.cu): three kernels per column k, launched N times each.
   Kernel 1 is one thread (the norm of column k): a mapped loop of `one_thread` iterations, a
   variable so that the compiler keeps the loop. Kernel 2: thread i (x) scales a[i][k].
   Kernel 3: thread j (x), active for j > k, projects column j: the work shrinks with k.
   Work size: the paper gives 8192 for a 1-D grid; we read it as M = N = 8192 (8192 threads in
   kernels 2 and 3). At that size only the analysed launches can run (CGPREDICT_SAMPLE=skip). */
#include <math.h>
#include "common.h"

#ifndef M
#define M 8192
#endif
#ifndef N
#define N 8192
#endif

int one_thread = 1;

static void column(int k, float (*a)[N], float (*r)[N], float (*q)[N]) {
#pragma cgpredict kernel name(gramschm1) dims(1)
  for (int t = 0; t < one_thread; t++) {
    float nrm = 0.0f;
    for (int i = 0; i < M; i++)
      nrm += a[i][k] * a[i][k];
    r[k][k] = sqrtf(nrm);
  }
#pragma cgpredict kernel name(gramschm2) dims(1)
  for (int i = 0; i < M; i++)
    q[i][k] = a[i][k] / r[k][k];
#pragma cgpredict kernel name(gramschm3) dims(1)
  for (int j = k + 1; j < N; j++) {
    r[k][j] = 0.0f;
    for (int i = 0; i < M; i++)
      r[k][j] += q[i][k] * a[i][j];
    for (int i = 0; i < M; i++)
      a[i][j] -= q[i][k] * r[k][j];
  }
}

int main(void) {
  float (*a)[N] = pb_alloc(sizeof(float[M][N]));
  float (*r)[N] = pb_alloc(sizeof(float[N][N]));
  float (*q)[N] = pb_alloc(sizeof(float[M][N]));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) a[i][j] = (float)((i * j) % M) / M * 100.0f + 10.0f;
  for (int k = 0; k < N; k++) column(k, a, r, q);
  printf("gramschm %.6e\n", pb_sum(&r[0][0], (size_t)N * N));
  free(a); free(r); free(q);
  return 0;
}
