/* common.h: what every PolyBench program here shares: allocation and the checksum line. */
#ifndef PB_COMMON_H
#define PB_COMMON_H
#include <stdio.h>
#include <stdlib.h>

static inline void *pb_alloc(size_t bytes) {
  void *p = calloc(1, bytes);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static inline double pb_sum(const float *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i];
  return s;
}
#endif
