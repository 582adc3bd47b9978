/* GRAMSCHM: our sequential C version of PolyBench/GPU's CUDA/GRAMSCHM/gramschmidt.cu
   (Gram-Schmidt QR of a[NI][NJ] into q[NI][NJ] and r[NJ][NJ]).

   Kernels, all 1-D, launched in this order once per column k (host loop over k = 0 .. NJ-1:
   NJ launches of each kernel):
     gramschm1  one thread (CUDA launches one block and only tid 0 works): r[k][k] = the norm of
                column k. Written as a mapped loop of exactly one iteration whose trip count is
                a global variable (gramschm_kernel1_threads = 1), so that the compiler cannot fold
                the loop away (cgpredict needs the marked loop in the compiled code).
     gramschm2  thread i (x) < NI: q[i][k] = a[i][k] / r[k][k] (a warp reads and writes down a
                column: uncoalesced).
     gramschm3  thread j (x), active for k < j < NJ (the loop starts at k+1, so threads 0..k are
                inactive as under the .cu's guard): r[k][j] = sum over i of q[i][k]*a[i][j]
                (accumulated in the global element), then a[i][j] -= q[i][k]*r[k][j] for all i.
                The active threads shrink with k.
   Size assumption: the CGPredict paper gives work size 8192 on a 1-D grid. Its work size is the
   per-dimension problem size everywhere else (ATAX's 4096 means NX = NY = 4096 threads and
   array dimensions, CORR's 1024 means M = N = 1024), and GRAMSCHM's kernels 2 and 3 have one
   thread per column, so we read it as NI = NJ = 8192 (PolyBench/GPU's default, 2048 in all its
   datasets, cannot give 8192 threads). That is 3 x 8192 launches and about 8192^3/2 multiply-adds
   in gramschm3: minutes on the TK1, hours sequentially. Override with -DNI=... -DNJ=....
   Data: a[i][j] = ((i*j) mod NI)/NI*100 + 10 (PolyBench/C 4's formula). PolyBench/GPU's
   a[i][j] = i*j/NI makes column 0 zero, r[0][0] = 0 and every later value NaN. q and r start
   with PolyBench/GPU's formulas.
   Needs libm (sqrtf): link with -lm (cgpredict's driver adds it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"

#ifndef NI
#define NI 8192
#endif
#ifndef NJ
#define NJ 8192
#endif

/* Threads of kernel 1: always 1, but not a compile-time constant (see above). */
int gramschm_kernel1_threads = 1;

static void gramschmidt_kernel1(float (*a)[NJ], float (*r)[NJ], int k) {
  int threads = gramschm_kernel1_threads;   /* read once, outside the kernel: not a thread's load */
#pragma cgpredict kernel name(gramschm1) dims(1)
  for (int tid = 0; tid < threads; tid++) {   /* x: the one thread */
    float nrm = 0.0f;
    for (int i = 0; i < NI; i++)
      nrm += a[i][k] * a[i][k];
    r[k][k] = sqrtf(nrm);
  }
}

static void gramschmidt_kernel2(float (*a)[NJ], float (*r)[NJ], float (*q)[NJ], int k) {
#pragma cgpredict kernel name(gramschm2) dims(1)
  for (int i = 0; i < NI; i++)       /* x */
    q[i][k] = a[i][k] / r[k][k];
}

static void gramschmidt_kernel3(float (*a)[NJ], float (*r)[NJ], float (*q)[NJ], int k) {
#pragma cgpredict kernel name(gramschm3) dims(1)
  for (int j = k + 1; j < NJ; j++) {   /* x */
    r[k][j] = 0.0f;
    for (int i = 0; i < NI; i++)
      r[k][j] += q[i][k] * a[i][j];
    for (int i = 0; i < NI; i++)
      a[i][j] -= q[i][k] * r[k][j];
  }
}

int main(void) {
  float (*a)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*q)[NJ] = xmalloc(sizeof(float[NI][NJ]));
  float (*r)[NJ] = xmalloc(sizeof(float[NJ][NJ]));
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      a[i][j] = (float)((long)i * j % NI) / NI * 100.0f + 10.0f;
      q[i][j] = (float)i * (j + 1) / NJ;
    }
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NJ; j++) r[i][j] = (float)i * (j + 2) / NJ;

  for (int k = 0; k < NJ; k++) {   /* host loop: three launches per column */
    gramschmidt_kernel1(a, r, k);
    gramschmidt_kernel2(a, r, q, k);
    gramschmidt_kernel3(a, r, q, k);
  }

  printf("gramschm checksum %.6e\n", checksum(&r[0][0], (size_t)NJ * NJ) + checksum(&q[0][0], (size_t)NI * NJ));
  free(a);
  free(q);
  free(r);
  return 0;
}
