/* stencil2d, MachSuite (breagen/MachSuite, stencil/stencil2d/stencil.c): a 3 x 3 filter over a
   128 x 64 grid of int32, as its source writes it (r, c, then k1 and k2 of 3 trips each). Our own
   copy, marked on its outer loop, for `cgpredict fpga --search` (docs/model.md 11.11). */
#include <stdint.h>

#define TYPE int32_t
#define col_size 64
#define row_size 128
#define f_size 9

void stencil(TYPE orig[row_size * col_size], TYPE sol[row_size * col_size], TYPE filter[f_size]) {
  int r, c, k1, k2;
  TYPE temp, mul;
#pragma cgpredict kernel name(stencil2d)
  for (r = 0; r < row_size - 2; r++) {
    for (c = 0; c < col_size - 2; c++) {
      temp = (TYPE)0;
      for (k1 = 0; k1 < 3; k1++) {
        for (k2 = 0; k2 < 3; k2++) {
          mul = filter[k1 * 3 + k2] * orig[(r + k1) * col_size + c + k2];
          temp += mul;
        }
      }
      sol[(r * col_size) + c] = temp;
    }
  }
}
