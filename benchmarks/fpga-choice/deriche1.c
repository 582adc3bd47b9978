/* DERICHE1: the first kernel of DERICHE (PolyBench/C 4.x, medley/deriche: the causal horizontal
   pass), the CGPredict paper's GPU-versus-FPGA table (Table 7), W = H = 1024:
     y1[i][j] = a1 imgIn[i][j] + a2 xm1 + b1 ym1 + b2 ym2, along each row i.
   Kernel deriche1: 1-D, one thread per row i (x); the row is a recurrence. The coefficients are
   PolyBench's for alpha = 0.25, computed before the kernel. Our own C.
   Size: 1024 x 1024, the table's; override with -DW=... -DH=.... Data: PolyBench's
   imgIn[i][j] = ((313 i + 991 j) mod 65536) / 65535. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "../polybench/bench.h"

#ifndef W
#define W 1024
#endif
#ifndef H
#define H 1024
#endif

static void deriche_kernel1(float a1, float a2, float b1, float b2, float (*imgIn)[H], float (*y1)[H]) {
#pragma cgpredict kernel name(deriche1) dims(1)
  for (int i = 0; i < W; i++) {      /* x */
    float ym1 = 0.0f, ym2 = 0.0f, xm1 = 0.0f;
    for (int j = 0; j < H; j++) {
      y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
}

int main(void) {
  float (*imgIn)[H] = xmalloc(sizeof(float[W][H])), (*y1)[H] = xmalloc(sizeof(float[W][H]));
  for (int i = 0; i < W; i++)
    for (int j = 0; j < H; j++) imgIn[i][j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;
  float alpha = 0.25f, k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha)) /
                            (1.0f + 2.0f * alpha * expf(-alpha) - expf(2.0f * alpha));
  float a1 = k, a2 = k * expf(-alpha) * (alpha - 1.0f), b1 = powf(2.0f, -alpha), b2 = -expf(-2.0f * alpha);
  deriche_kernel1(a1, a2, b1, b2, imgIn, y1);
  printf("deriche1 checksum %.6e\n", checksum(&y1[0][0], (size_t)W * H));
  free(imgIn);
  free(y1);
  return 0;
}
