/* DOITGEN: our sequential C version of PolyBench/GPU's CUDA/DOITGEN/doitgen.cu (multiresolution
   analysis kernel: for every r, sum[r][q][p] = sum over s of A[r][q][s] * C4[s][p], then
   A[r][q][p] = sum[r][q][p]).

   Kernels, both 2-D with CUDA's p = x, q = y and blocks of DIM_THREAD_BLOCK_X x
   DIM_THREAD_BLOCK_Y = 32 x 8, launched in this order once per r (host loop over r = 0 .. NR-1:
   NR launches of each):
     doitgen_kernel1  sum[r][q][p] = 0, then accumulated over s in the global element.
     doitgen_kernel2  A[r][q][p] = sum[r][q][p].
   The .cu sizes its grid's y extent by NR (ceil(NR/8) blocks) while its guard is q < NQ: the
   mapped q loop therefore runs to NR with the guard inside, which is exactly the CUDA thread set
   (NR = NQ in every PolyBench/GPU size, where the guard is always true).
   Sizes: the .cu's own #defines: NR = NQ = NP = 128. Override with -DNR=... -DNQ=... -DNP=....
   Data: PolyBench/GPU's formulas; sum starts at 0. */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NR
#define NR 128
#endif
#ifndef NQ
#define NQ 128
#endif
#ifndef NP
#define NP 128
#endif

static void doitgen_kernel1(float (*sum)[NQ][NP], float (*A)[NQ][NP], float (*C4)[NP], int r) {
#pragma cgpredict kernel name(doitgen_kernel1) dims(2)
  for (int q = 0; q < NR; q++)       /* y (grid sized by NR, as in the .cu) */
    for (int p = 0; p < NP; p++)     /* x */
      if (q < NQ) {
        sum[r][q][p] = 0.0f;
        for (int s = 0; s < NP; s++)
          sum[r][q][p] = sum[r][q][p] + A[r][q][s] * C4[s][p];
      }
}

static void doitgen_kernel2(float (*sum)[NQ][NP], float (*A)[NQ][NP], int r) {
#pragma cgpredict kernel name(doitgen_kernel2) dims(2)
  for (int q = 0; q < NR; q++)       /* y */
    for (int p = 0; p < NP; p++)     /* x */
      if (q < NQ)
        A[r][q][p] = sum[r][q][p];
}

int main(void) {
  float (*A)[NQ][NP] = xmalloc(sizeof(float[NR][NQ][NP]));
  float (*sum)[NQ][NP] = xmalloc(sizeof(float[NR][NQ][NP]));
  float (*C4)[NP] = xmalloc(sizeof(float[NP][NP]));
  for (int i = 0; i < NR; i++)
    for (int j = 0; j < NQ; j++)
      for (int k = 0; k < NP; k++) {
        A[i][j][k] = ((float)i * j + k) / NP;
        sum[i][j][k] = 0.0f;
      }
  for (int i = 0; i < NP; i++)
    for (int j = 0; j < NP; j++) C4[i][j] = ((float)i * j) / NP;

  for (int r = 0; r < NR; r++) {   /* host loop: two launches per r */
    doitgen_kernel1(sum, A, C4, r);
    doitgen_kernel2(sum, A, r);
  }

  printf("doitgen checksum %.6e\n", checksum(&sum[0][0][0], (size_t)NR * NQ * NP));
  free(A);
  free(sum);
  free(C4);
  return 0;
}
