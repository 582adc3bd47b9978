/* bicg, Lina's smalldse baseline (comododragon/lina, misc/smalldse/baseFiles/vivadoprojs/bicg):
   s = A^T r, q = A p, NX = NY = 256, float. Our own C, written from that source. Vivado's cycle
   count in lina_vivado_baseline.csv, 655872 = 256 x (256 x 10 + 2), is the second nest's alone:
   the marked one. */
#define NX 256
#define NY 256

void bicg(float A[NX * NY], float r[NX], float s[NY], float p[NY], float q[NX]) {
  for (int i = 0; i < NY; i++)
    s[i] = 0;
#pragma cgpredict kernel name(bicg)
  for (int i = 0; i < NX; i++) {
    q[i] = 0;
    for (int j = 0; j < NY; j++) {
      s[j] = s[j] + r[i] * A[i * NY + j];
      q[i] = q[i] + A[i * NY + j] * p[j];
    }
  }
}
