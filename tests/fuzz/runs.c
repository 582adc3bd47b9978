#include <stdio.h>
#define N 64
static float X[N][N], A[N][N], B[N][N];
static void down(int i) {
#pragma cgpredict kernel name(down) block(256)
  for (int j = 0; j < N; j++) {
    X[i][j] = X[i][j] - X[i - 1][j] * A[i][j] / B[i - 1][j];
    B[i][j] = B[i][j] - A[i][j] * A[i][j] / B[i - 1][j];
  }
}
static void up(int i) {
#pragma cgpredict kernel name(up) block(256)
  for (int j = 0; j < N; j++)
    X[N - 2 - i][j] = (X[N - 2 - i][j] - X[N - 3 - i][j] * A[N - 3 - i][j]) / B[N - 2 - i][j];
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      X[i][j] = (float)(i * j % 7) + 1.0f;
      A[i][j] = (float)((i + j) % 5) + 1.0f;
      B[i][j] = (float)((i * 3 + j) % 11) + 2.0f;
    }
  for (int i = 1; i < N; i++) down(i);
  for (int i = 0; i < 4; i++) up(i);
  printf("%g\n", X[5][5]);
  return 0;
}
