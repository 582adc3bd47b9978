/* cgp_fpga_nest.h: the compiler's nest and the pragma's FPGA directives as the model's nest and
   design (docs/model.md 11.10). */
#ifndef CGP_FPGA_NEST_H
#define CGP_FPGA_NEST_H

#include <stddef.h>

#include "cgp_fpga.h"
#include "cgp_hls_ops.h"
#include "cgp_pragma.h"

/* Each loop's name: its induction variable as written at its `for` in file, else "line<N>". */
void cgp_fpga_loop_names(const char *file, const cgp_hls_nest *n, char (*names)[CGP_FPGA_NAME]);
/* The model's view of h (pointing into h: keep h alive). Nonzero with err when h is too large. */
int cgp_fpga_nest_of(const cgp_hls_nest *h, cgp_fpga_nest *n, char *err, size_t errlen);
/* The design k's directives give (the baseline for none). Nonzero with `file:line:col: error:`
   at the directive in err: an unknown loop or array, a dimension the array lacks, a block
   partition of unknown size, an unroll of a loop holding loops not unrolled. */
int cgp_fpga_design_of(const cgp_kernel_pragma *k, const cgp_hls_nest *h, const cgp_fpga_nest *n,
                       char (*names)[CGP_FPGA_NAME], cgp_fpga_design *ds, char *err, size_t errlen);

#endif
