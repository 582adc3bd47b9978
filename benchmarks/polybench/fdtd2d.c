/* FDTD-2D (PolyBench/GPU fdtd2d.cu): three 2-D kernels per time step, j is x, i is y.
   Work size (CGPredict, Table 4): NX = NY = 4096. Time steps: the paper does not say;
   PolyBench/GPU's 500 at this size would take far longer than any plausible measurement. We
   assume TSTEPS = 10 (a macro; the harness states it), launches sampled by cgpredict. */
#include "common.h"

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif
#ifndef TSTEPS
#define TSTEPS 10
#endif

static void step(int t, const float *fict, float (*ex)[NY], float (*ey)[NY], float (*hz)[NY]) {
#pragma cgpredict kernel name(fdtd_ey) dims(2)
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      if (i == 0) ey[0][j] = fict[t];
      else ey[i][j] = ey[i][j] - 0.5f * (hz[i][j] - hz[i - 1][j]);
    }
#pragma cgpredict kernel name(fdtd_ex) dims(2)
  for (int i = 0; i < NX; i++)
    for (int j = 1; j < NY; j++)
      ex[i][j] = ex[i][j] - 0.5f * (hz[i][j] - hz[i][j - 1]);
#pragma cgpredict kernel name(fdtd_hz) dims(2)
  for (int i = 0; i < NX - 1; i++)
    for (int j = 0; j < NY - 1; j++)
      hz[i][j] = hz[i][j] - 0.7f * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
}

int main(void) {
  float *fict = pb_alloc(sizeof(float) * TSTEPS);
  float (*ex)[NY] = pb_alloc(sizeof(float[NX][NY]));
  float (*ey)[NY] = pb_alloc(sizeof(float[NX][NY]));
  float (*hz)[NY] = pb_alloc(sizeof(float[NX][NY]));
  for (int t = 0; t < TSTEPS; t++) fict[t] = (float)t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      ex[i][j] = ((float)i * (j + 1) + 1) / NX;
      ey[i][j] = ((float)(i - 1) * (j + 2) + 2) / NX;
      hz[i][j] = ((float)(i - 9) * (j + 4) + 3) / NX;
    }
  for (int t = 0; t < TSTEPS; t++) step(t, fict, ex, ey, hz);
  printf("fdtd2d %.6e\n", pb_sum(&hz[0][0], (size_t)NX * NY));
  free(fict); free(ex); free(ey); free(hz);
  return 0;
}
