/* syr2k, Lina's smalldse baseline (comododragon/lina, misc/smalldse/baseFiles/vivadoprojs/syr2k):
   C = alpha A B^T + alpha B A^T + beta C, N = M = 128, float, alpha = beta = 1. Our own C, written
   from that source. */
#define N 128
#define M 128
#define ALPHA 1
#define BETA 1

void syr2k(float A[N * M], float B[N * M], float C[N * N]) {
#pragma cgpredict kernel name(syr2k)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i * N + j] *= BETA;
      for (int k = 0; k < M; k++) {
        C[i * N + j] += ALPHA * A[i * M + k] * B[j * M + k];
        C[i * N + j] += ALPHA * B[i * M + k] * A[j * M + k];
      }
    }
}
