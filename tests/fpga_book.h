/* fpga_book.h: the FPGA of the book's worked examples (Kastner, Matai, Neuendorffer, "Parallel
   Programming for FPGAs", KastnerRG/pp4fpgas), shared by the FPGA tests: read latency 1, write 0,
   integer multiply 2, add 0 (chained), floating-point operators 4, no delays, 100 MHz, resources
   that never bind, two BRAM ports (one a write) and the 7-series BRAM18K shapes. */
#ifndef CGP_FPGA_BOOK_H
#define CGP_FPGA_BOOK_H

#include <string.h>

#include "cgp_fpga.h"

static inline cgp_fpga_device fpga_book(void) {
  cgp_fpga_device d;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "kastner");
  d.clock_mhz = 100;
  d.dsp = d.bram18k = d.lut = d.ff = 1000000;
  d.bram_ports = 2, d.bram_write_ports = 1;
  d.n_bram_configs = 6;
  unsigned cfg[6][2] = {{1, 16384}, {2, 8192}, {4, 4096}, {9, 2048}, {18, 1024}, {36, 512}};
  memcpy(d.bram_configs, cfg, sizeof cfg);
  d.loop_exit_cycles = 1;
  cgp_fpga_impl t[] = {
    {CGP_FOP_LOAD, CGP_FTYPE_MEM, 32, 1, 0, 0, 0, 0},     {CGP_FOP_STORE, CGP_FTYPE_MEM, 32, 0, 0, 0, 0, 0},
    {CGP_FOP_MUL, CGP_FTYPE_INT, 32, 2, 0, 3, 0, 0},      {CGP_FOP_ADD, CGP_FTYPE_INT, 32, 0, 0, 0, 32, 0},
    {CGP_FOP_FADD, CGP_FTYPE_FLOAT, 32, 4, 0, 2, 0, 0},   {CGP_FOP_FMUL, CGP_FTYPE_FLOAT, 32, 4, 0, 3, 0, 0},
  };
  memcpy(d.impls, t, sizeof t);
  d.n_impls = sizeof t / sizeof *t;
  return d;
}

#endif
