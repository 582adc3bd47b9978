/* mvt, Lina's smalldse baseline (comododragon/lina, misc/smalldse/baseFiles/vivadoprojs/mvt):
   x = x + a y, N = 256, float (the one product that source keeps). Our own C, written from it. */
#define N 256

void mvt(float a[N * N], float x[N], float y[N]) {
#pragma cgpredict kernel name(mvt)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x[i] = x[i] + a[i * N + j] * y[j];
}
