#include <stdio.h>
#define N 64
#define M 3000
static float a[N * M], b[M], c[N];
int main(void) {
  for (int i = 0; i < N * M; i++) a[i] = i % 5;
  for (int j = 0; j < M; j++) b[j] = j % 3;
#pragma cgpredict kernel name(vsum) block(32)
  for (int i = 0; i < N; i++) {
    float s = 0;
    for (int j = 0; j < M - i; j++) s += a[i * M + j] * b[j];
    c[i] = s;
  }
  double t = 0;
  for (int i = 0; i < N; i++) t += c[i];
  printf("%.1f\n", t);
  return 0;
}
