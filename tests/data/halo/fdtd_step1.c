/* FDTD-2D's first step (PolyBench/GPU) alone, over 512 x 512 in 32 x 8 blocks, launched 4 times:
   each block reads the row of hz above it, which the block above read too (a stencil's halo).
   Used by tests/test_e2e_launches.c and tests/test_e2e_trace.c (docs/model.md 4c). */
#include <stdio.h>
#include <stdlib.h>
#define N 512
static void step1(float (*ey)[N], float (*hz)[N]) {
#pragma cgpredict kernel name(step1) dims(2) block(32,8)
  for (int i = 1; i < N; i++)
    for (int j = 0; j < N; j++)
      ey[i][j] = ey[i][j] - 0.5f * (hz[i][j] - hz[i - 1][j]);
}
int main(void) {
  float (*ey)[N] = calloc(N, sizeof *ey), (*hz)[N] = calloc(N, sizeof *hz);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) hz[i][j] = (float)((i * 7 + j) % 13);
  for (int t = 0; t < 4; t++) step1(ey, hz);
  printf("%g\n", ey[N / 2][N / 2]);
  free(ey);
  free(hz);
  return 0;
}
