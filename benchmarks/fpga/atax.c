/* atax, the baseline of Lina's small design-space exploration (comododragon/lina,
   misc/smalldse/baseFiles/vivadoprojs/atax): tmp = A x, NX = NY = 128, float. Our own C, written
   from that source; the marked loop is the nest Vivado HLS's cycle count covers. */
#define NX 128
#define NY 128

void atax(float A[NX * NY], float x[NY], float tmp[NX]) {
#pragma cgpredict kernel name(atax)
  for (int i = 0; i < NX; i++) {
    float sum = 0;
    for (int j = 0; j < NY; j++)
      sum += A[i * NY + j] * x[j];
    tmp[i] = sum;
  }
}
