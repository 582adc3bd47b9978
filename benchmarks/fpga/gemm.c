/* gemm, Lina's smalldse baseline (comododragon/lina, misc/smalldse/baseFiles/vivadoprojs/gemm):
   C = alpha A B + beta C, 128 x 128 floats, alpha 32412, beta 2123. Our own C, written from that
   source. */
#define NI 128
#define NJ 128
#define NK 128
#define ALPHA 32412.0f
#define BETA 2123.0f

void gemm(float A[NI * NK], float B[NK * NJ], float C[NI * NJ]) {
#pragma cgpredict kernel name(gemm)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      C[i * NJ + j] *= BETA;
      for (int k = 0; k < NK; k++)
        C[i * NJ + j] += ALPHA * A[i * NK + k] * B[k * NJ + j];
    }
}
