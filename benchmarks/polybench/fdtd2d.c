/* FDTD-2D: our sequential C version of PolyBench/GPU's CUDA/FDTD-2D/fdtd2d.cu (2-D
   finite-difference time domain: fields ex, ey, hz on an NX x NY grid).

   Kernels, all 2-D with CUDA's j (column) = x, i (row) = y, launched in this order once per
   time step (host loop over t: TSTEPS x 3 launches):
     fdtd_step1  i < NX, j < NY: row 0 takes ey[0][j] = fict[t], other rows
                 ey[i][j] -= 0.5*(hz[i][j] - hz[i-1][j]).
     fdtd_step2  i < NX, 0 < j < NY (the j loop starts at 1): ex[i][j] -= 0.5*(hz[i][j] - hz[i][j-1]).
     fdtd_step3  i < NX-1, j < NY-1: hz[i][j] -= 0.7*(ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]).
   Sizes: NX = NY = 4096, the work size of the CGPredict paper's Table 4 (PolyBench/GPU's default
   is 2048). Override with -DNX=... -DNY=....
   Time steps (assumption): the paper does not say. PolyBench/GPU's TMAX = 500 at 4096 x 4096
   would make the measured run take far longer than any plausible measurement (about 500 x 3
   launches over 16.7 M threads), so TSTEPS defaults to 10; override with -DTSTEPS=....
   Data: PolyBench/GPU's formulas; fict[t] = t. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif
#ifndef TSTEPS
#define TSTEPS 10
#endif

static void fdtd_step1_kernel(const float *fict, float (*ey)[NY], float (*hz)[NY], int t) {
#pragma cgpredict kernel name(fdtd_step1) dims(2)
  for (int i = 0; i < NX; i++)       /* y */
    for (int j = 0; j < NY; j++) {   /* x */
      if (i == 0)
        ey[i][j] = fict[t];
      else
        ey[i][j] = ey[i][j] - 0.5f * (hz[i][j] - hz[i - 1][j]);
    }
}

static void fdtd_step2_kernel(float (*ex)[NY], float (*hz)[NY]) {
#pragma cgpredict kernel name(fdtd_step2) dims(2)
  for (int i = 0; i < NX; i++)       /* y */
    for (int j = 1; j < NY; j++)     /* x */
      ex[i][j] = ex[i][j] - 0.5f * (hz[i][j] - hz[i][j - 1]);
}

static void fdtd_step3_kernel(float (*ex)[NY], float (*ey)[NY], float (*hz)[NY]) {
#pragma cgpredict kernel name(fdtd_step3) dims(2)
  for (int i = 0; i < NX - 1; i++)       /* y */
    for (int j = 0; j < NY - 1; j++)     /* x */
      hz[i][j] = hz[i][j] - 0.7f * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
}

int main(void) {
  float *fict = xmalloc(sizeof(float) * TSTEPS);
  float (*ex)[NY] = xmalloc(sizeof(float[NX][NY]));
  float (*ey)[NY] = xmalloc(sizeof(float[NX][NY]));
  float (*hz)[NY] = xmalloc(sizeof(float[NX][NY]));
  for (int t = 0; t < TSTEPS; t++) fict[t] = (float)t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      ex[i][j] = ((float)i * (j + 1) + 1) / NX;
      ey[i][j] = ((float)(i - 1) * (j + 2) + 2) / NX;
      hz[i][j] = ((float)(i - 9) * (j + 4) + 3) / NX;
    }

  for (int t = 0; t < TSTEPS; t++) {   /* host loop: three launches per time step */
    fdtd_step1_kernel(fict, ey, hz, t);
    fdtd_step2_kernel(ex, hz);
    fdtd_step3_kernel(ex, ey, hz);
  }

  printf("fdtd2d checksum %.6e\n", checksum(&hz[0][0], (size_t)NX * NY));
  free(fict);
  free(ex);
  free(ey);
  free(hz);
  return 0;
}
