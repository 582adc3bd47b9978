/* gesummv, Lina's smalldse baseline (comododragon/lina,
   misc/smalldse/baseFiles/vivadoprojs/gesummv): y = alpha A x + beta B x, N = 128, float,
   alpha = beta = 1. Our own C, written from that source. */
#define N 128
#define ALPHA 1
#define BETA 1

void gesummv(float A[N * N], float B[N * N], float x[N], float y[N], float tmp[N]) {
#pragma cgpredict kernel name(gesummv)
  for (int i = 0; i < N; i++) {
    tmp[i] = 0;
    y[i] = 0;
    for (int j = 0; j < N; j++) {
      tmp[i] = A[i * N + j] * x[j] + tmp[i];
      y[i] = B[i * N + j] * x[j] + y[i];
    }
    y[i] = ALPHA * tmp[i] + BETA * y[i];
  }
}
