/* convolution3d, Lina's smalldse baseline (comododragon/lina,
   misc/smalldse/baseFiles/vivadoprojs/convolution3d): a 15-point stencil over 32^3 floats, the
   terms as that source writes them (some repeat an element). Our own C, written from it. */
#define NI 32
#define NJ 32
#define NK 32
#define AT(i, j, k) A[(i) * (NK * NJ) + (j) * NK + (k)]

void convolution3d(float A[NI * NJ * NK], float B[NI * NJ * NK]) {
  float c11 = 2.0f, c21 = 5.0f, c31 = -8.0f;
  float c12 = -3.0f, c22 = 6.0f, c32 = -9.0f;
  float c13 = 4.0f, c23 = 7.0f, c33 = 10.0f;
#pragma cgpredict kernel name(convolution3d)
  for (int i = 1; i < NI - 1; i++)
    for (int j = 1; j < NJ - 1; j++)
      for (int k = 1; k < NK - 1; k++)
        B[i * (NK * NJ) + j * NK + k] =
            c11 * AT(i - 1, j - 1, k - 1) + c13 * AT(i + 1, j - 1, k - 1) + c21 * AT(i - 1, j - 1, k - 1) +
            c23 * AT(i + 1, j - 1, k - 1) + c31 * AT(i - 1, j - 1, k - 1) + c33 * AT(i + 1, j - 1, k - 1) +
            c12 * AT(i + 0, j - 1, k + 0) + c22 * AT(i + 0, j + 0, k + 0) + c32 * AT(i + 0, j + 1, k + 0) +
            c11 * AT(i - 1, j - 1, k + 1) + c13 * AT(i + 1, j - 1, k + 1) + c21 * AT(i - 1, j + 0, k + 1) +
            c23 * AT(i + 1, j + 0, k + 1) + c31 * AT(i - 1, j + 1, k + 1) + c33 * AT(i + 1, j + 1, k + 1);
}
