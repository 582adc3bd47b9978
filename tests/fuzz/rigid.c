#include <stdio.h>
#define N 64
#define M 40
static float a[M][N], b[M], c[N];
int main(void) {
  for (int j = 0; j < M; j++)
    for (int i = 0; i < N; i++) a[j][i] = (i + j) % 5;
  for (int j = 0; j < M; j++) b[j] = j % 3;
#pragma cgpredict kernel name(colsum) block(32)
  for (int i = 0; i < N; i++) {
    float s = 0;
    for (int j = 0; j < M; j++) s += a[j][i] * b[j];
    c[i] = s;
  }
  double t = 0;
  for (int i = 0; i < N; i++) t += c[i];
  printf("%.1f\n", t);
  return 0;
}
