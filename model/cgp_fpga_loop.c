/* cgp_fpga_loop.c: loop latencies composed over a nest (docs/model.md 11.5). With
   n = ceil(trips / unroll) iterations of the (unrolled) body:
     pipelined      II x (n - 1) + IL + c_pipe        (one new iteration every II cycles)
     not pipelined  n x (body + c_iter),  body = IL + sum over nested loops of (latency + exit)
   where IL is the iteration latency of the loop's own operations (its window's schedule) and
   exit the cycle a nested loop costs its parent per entry (its exit check). */
#include "cgp_fpga.h"

#include <stdio.h>

#define CYCLES_MAX ((uint64_t)1 << 63)

/* a * b + c, or -1 when the result would pass CYCLES_MAX */
static int mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *out) {
  if (b && a > (CYCLES_MAX - c) / b) return -1;
  *out = a * b + c;
  return 0;
}

static int latency(const cgp_fpga_device *d, const cgp_fpga_loop *l, unsigned depth, uint64_t *cycles, char *err,
                   size_t errlen) {
  if (depth > 64) {
    snprintf(err, errlen, "loop nest deeper than 64");
    return -1;
  }
  if (!l->unroll) {
    snprintf(err, errlen, "loop at depth %u: unroll factor 0 (1 = not unrolled)", depth);
    return -1;
  }
  uint64_t n = l->trips / l->unroll + (l->trips % l->unroll != 0);
  if (l->pipelined) {
    if (!l->ii || l->n_children) {
      snprintf(err, errlen, "loop at depth %u: a pipelined loop needs an II of at least 1 and no nested loops (HLS "
               "unrolls them into it)", depth);
      return -1;
    }
    if (!n) return *cycles = 0, 0;
    if (mul_add(l->ii, n - 1, (uint64_t)l->il + d->loop_pipeline_overhead, cycles)) goto overflow;
    return 0;
  }
  uint64_t body = l->il;
  for (unsigned i = 0; i < l->n_children; i++) {
    uint64_t c;
    if (latency(d, &l->children[i], depth + 1, &c, err, errlen)) return -1;
    if (c > CYCLES_MAX - body - d->loop_exit_cycles) goto overflow;
    body += c + d->loop_exit_cycles;
  }
  if (body > CYCLES_MAX - d->loop_iteration_overhead || mul_add(n, body + d->loop_iteration_overhead, 0, cycles))
    goto overflow;
  return 0;
overflow:
  snprintf(err, errlen, "loop at depth %u: latency above 2^63 cycles", depth);
  return -1;
}

int cgp_fpga_loop_latency(const cgp_fpga_device *d, const cgp_fpga_loop *l, uint64_t *cycles, char *err,
                          size_t errlen) {
  return latency(d, l, 0, cycles, err, errlen);
}
