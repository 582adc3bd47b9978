/* cgp_fpga_mem.c: arrays on chip: which partition bank an element falls in and what the
   partitioned array costs in block RAM (docs/model.md 11.6).

   Partitioning is per dimension, as Vivado/Vitis HLS's array_partition: cyclic by F puts element i
   in bank i mod F (each bank ceil(n / F) words), block by F in bank i / ceil(n / F), complete puts
   every element in its own bank (a register). The banks of several dimensions combine row-major.
   A bank is one memory; its block-RAM count is the fewest BRAM18Ks of one of the device's
   [width, depth] shapes that hold its words at the array's width. */
#include "cgp_fpga.h"

#include <math.h>
#include <stdio.h>

int cgp_fpga_array_check(const cgp_fpga_array *a, char *err, size_t errlen) {
  if (a->ndims < 1 || a->ndims > CGP_FPGA_MAX_DIMS) {
    snprintf(err, errlen, "an array has 1 to %d dimensions, not %u", CGP_FPGA_MAX_DIMS, a->ndims);
    return -1;
  }
  if (!a->width_bits) {
    snprintf(err, errlen, "an array's element width is at least 1 bit");
    return -1;
  }
  uint64_t banks = 1;
  for (unsigned k = 0; k < a->ndims; k++) {
    if (!a->dims[k]) {
      snprintf(err, errlen, "dimension %u: size 0", k + 1);
      return -1;
    }
    if ((a->part[k] == CGP_PART_CYCLIC || a->part[k] == CGP_PART_BLOCK) && !a->factor[k]) {
      snprintf(err, errlen, "dimension %u: a cyclic or block partition needs a factor of at least 1", k + 1);
      return -1;
    }
    if ((unsigned)a->part[k] > CGP_PART_COMPLETE) {
      snprintf(err, errlen, "dimension %u: unknown partition kind", k + 1);
      return -1;
    }
    uint64_t b = cgp_fpga_dim_banks(a, k);
    if (b > (1ull << 32) / banks) {
      snprintf(err, errlen, "dimension %u: more than 2^32 banks in all", k + 1);
      return -1;
    }
    banks *= b;
  }
  return 0;
}

/* Banks of dimension k: a factor above the size gives one element per bank (no empty banks). */
uint64_t cgp_fpga_dim_banks(const cgp_fpga_array *a, unsigned k) {
  uint64_t n = a->dims[k];
  switch (a->part[k]) {
  case CGP_PART_CYCLIC: return a->factor[k] < n ? a->factor[k] : n;
  case CGP_PART_BLOCK: {
    uint64_t f = a->factor[k] < n ? a->factor[k] : n, size = (n + f - 1) / f;
    return (n + size - 1) / size; /* block 10 by 4: blocks of 3, banks of 3, 3, 3, 1 */
  }
  case CGP_PART_COMPLETE: return n;
  default: return 1;
  }
}

uint64_t cgp_fpga_banks(const cgp_fpga_array *a) {
  uint64_t b = 1;
  for (unsigned k = 0; k < a->ndims; k++) b *= cgp_fpga_dim_banks(a, k);
  return b;
}

uint64_t cgp_fpga_bank(const cgp_fpga_array *a, const uint64_t *idx) {
  uint64_t bank = 0;
  for (unsigned k = 0; k < a->ndims; k++) {
    uint64_t n = a->dims[k], i = idx[k] < n ? idx[k] : n - 1, nb = cgp_fpga_dim_banks(a, k), b = 0;
    if (a->part[k] == CGP_PART_CYCLIC) b = i % nb;
    else if (a->part[k] == CGP_PART_BLOCK) b = i / ((n + nb - 1) / nb);
    else if (a->part[k] == CGP_PART_COMPLETE) b = i;
    bank = bank * nb + b;
  }
  return bank;
}

uint64_t cgp_fpga_bank_words(const cgp_fpga_array *a) {
  uint64_t w = 1;
  for (unsigned k = 0; k < a->ndims; k++) {
    uint64_t nb = cgp_fpga_dim_banks(a, k);
    w *= (a->dims[k] + nb - 1) / nb;
  }
  return w;
}

int cgp_fpga_is_registers(const cgp_fpga_array *a) {
  for (unsigned k = 0; k < a->ndims; k++)
    if (a->part[k] != CGP_PART_COMPLETE && a->dims[k] > 1) return 0;
  return 1;
}

uint64_t cgp_fpga_bram18k(const cgp_fpga_device *d, const cgp_fpga_array *a) {
  if (cgp_fpga_is_registers(a)) return 0;
  uint64_t words = cgp_fpga_bank_words(a), best = 0;
  for (unsigned i = 0; i < d->n_bram_configs; i++) {
    uint64_t w = d->bram_configs[i][0], depth = d->bram_configs[i][1];
    uint64_t blocks = (a->width_bits + w - 1) / w * ((words + depth - 1) / depth);
    if (!best || blocks < best) best = blocks;
  }
  return best * cgp_fpga_banks(a);
}

uint64_t cgp_fpga_array_ff(const cgp_fpga_array *a) {
  if (!cgp_fpga_is_registers(a)) return 0;
  uint64_t n = a->width_bits;
  for (unsigned k = 0; k < a->ndims; k++) n *= a->dims[k];
  return n;
}

double cgp_fpga_offchip_bytes_per_cycle(const cgp_fpga_device *d) {
  double port = d->axi_data_bits / 8.0, ddr = d->offchip_bandwidth_bytes_per_s / (d->clock_mhz * 1e6);
  return port < ddr ? port : ddr;
}

uint64_t cgp_fpga_offchip_cycles(const cgp_fpga_device *d, uint64_t bytes, uint64_t ranges) {
  if (!bytes) return 0;
  return ranges * d->burst_setup_cycles + (uint64_t)ceil((double)bytes / cgp_fpga_offchip_bytes_per_cycle(d));
}

uint64_t cgp_fpga_buffer_bram18k(const cgp_fpga_device *d, uint64_t bytes) {
  cgp_fpga_array a = {.width_bits = 32, .ndims = 1, .dims = {(bytes + 3) / 4 ? (bytes + 3) / 4 : 1}};
  return bytes ? cgp_fpga_bram18k(d, &a) : 0;
}
