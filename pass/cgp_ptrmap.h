/* cgp_ptrmap.h: an open-addressing map from LLVM objects (any pointer) to pointers, sized once
   for the entries it will hold; used as a set with the key as its own value. Internal to pass/. */
#ifndef CGP_PTRMAP_H
#define CGP_PTRMAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
  void **key, **val;
  size_t mask;
} ptrmap;

/* Room for n entries (the table is kept at most half full); 0 when out of memory. */
static inline int ptrmap_init(ptrmap *m, size_t n) {
  size_t cap = 16;
  while (cap < 2 * n) cap <<= 1;
  m->key = calloc(cap, sizeof *m->key);
  m->val = calloc(cap, sizeof *m->val);
  m->mask = cap - 1;
  return m->key && m->val;
}

static inline void ptrmap_free(ptrmap *m) {
  free(m->key);
  free(m->val);
}

static inline size_t ptrmap_slot(const ptrmap *m, const void *k) {
  uint64_t h = (uint64_t)(uintptr_t)k * UINT64_C(0x9e3779b97f4a7c15);
  size_t i = (size_t)(h >> 20) & m->mask;
  while (m->key[i] && m->key[i] != k) i = (i + 1) & m->mask;
  return i;
}

static inline void *map_get(const ptrmap *m, const void *k) {
  size_t i = ptrmap_slot(m, k);
  return m->key[i] ? m->val[i] : NULL;
}

static inline void map_put(ptrmap *m, void *k, void *v) {
  size_t i = ptrmap_slot(m, k);
  m->key[i] = k;
  m->val[i] = v;
}

#endif
