/* syrk, Lina's smalldse baseline (comododragon/lina, misc/smalldse/baseFiles/vivadoprojs/syrk):
   C = alpha A A^T + beta C, N = M = 128, float, alpha 123, beta 14512. Our own C, written from
   that source. */
#define N 128
#define M 128
#define ALPHA 123
#define BETA 14512

void syrk(float A[N * M], float C[N * N]) {
#pragma cgpredict kernel name(syrk)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i * M + j] *= BETA;
      for (int k = 0; k < M; k++)
        C[i * N + j] += ALPHA * A[i * M + k] * A[j * M + k];
    }
}
