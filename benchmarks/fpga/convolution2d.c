/* convolution2d, Lina's smalldse baseline (comododragon/lina,
   misc/smalldse/baseFiles/vivadoprojs/convolution2d): a 3 x 3 stencil over 128 x 128 floats. Our
   own C, written from that source. */
#define NI 128
#define NJ 128

void convolution2d(float A[NI * NJ], float B[NI * NJ]) {
  float c11 = 0.2f, c21 = 0.5f, c31 = -0.8f;
  float c12 = -0.3f, c22 = 0.6f, c32 = -0.9f;
  float c13 = 0.4f, c23 = 0.7f, c33 = 0.10f;
#pragma cgpredict kernel name(convolution2d)
  for (int i = 1; i < NI - 1; i++)
    for (int j = 1; j < NJ - 1; j++)
      B[i * NJ + j] = c11 * A[(i - 1) * NJ + (j - 1)] + c12 * A[(i + 0) * NJ + (j - 1)] +
                      c13 * A[(i + 1) * NJ + (j - 1)] + c21 * A[(i - 1) * NJ + (j + 0)] +
                      c22 * A[(i + 0) * NJ + (j + 0)] + c23 * A[(i + 1) * NJ + (j + 0)] +
                      c31 * A[(i - 1) * NJ + (j + 1)] + c32 * A[(i + 0) * NJ + (j + 1)] +
                      c33 * A[(i + 1) * NJ + (j + 1)];
}
