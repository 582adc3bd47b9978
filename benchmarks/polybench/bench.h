/* bench.h: what every PolyBench program here shares: allocation that reports failure, and the
   checksum each prints so its output can be compared and its work is not dead code. */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>
#include <stdlib.h>

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static double checksum(const float *a, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += a[i];
  return s;
}

#endif
