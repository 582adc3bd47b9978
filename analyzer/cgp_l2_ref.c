/* cgp_l2_ref.c: the L2 contract computed straight from its definition, for tests. Every
   reference is kept in its set's history; at a new reference to line m, walk back to the
   previous reference to m, collecting the distinct lines seen on the way (the temporal conflict
   set): hit iff m was found and fewer than assoc distinct lines were collected. */
#include "cgp_analyzer.h"

#include <stdlib.h>

typedef struct {
  uint64_t *line;
  size_t n, cap;
} history;

struct cgp_l2_ref {
  uint64_t sets;
  unsigned assoc;
  cgp_l2_index index;
  history *set;
  uint64_t *tcs;
};

cgp_l2_ref *cgp_l2_ref_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index) {
  if (!line_bytes || (line_bytes & (line_bytes - 1)) || capacity_bytes < line_bytes || capacity_bytes % line_bytes)
    return NULL;
  uint64_t lines = capacity_bytes / line_bytes;
  if (index == CGP_L2_FULLY_ASSOCIATIVE) assoc = (unsigned)lines;
  if (!assoc || lines % assoc) return NULL;
  uint64_t sets = lines / assoc;
  if (sets & (sets - 1)) return NULL;
  cgp_l2_ref *r = calloc(1, sizeof *r);
  r->sets = sets;
  r->assoc = assoc;
  r->index = index;
  r->set = calloc(sets, sizeof *r->set);
  r->tcs = malloc(assoc * sizeof *r->tcs);
  return r;
}

int cgp_l2_ref_access(cgp_l2_ref *r, uint64_t m) {
  history *h = &r->set[cgp_l2_set_of(m, r->sets, r->index)];
  size_t distinct = 0;
  int found = 0;
  for (size_t i = h->n; i-- > 0 && distinct < r->assoc;) {
    if (h->line[i] == m) { found = 1; break; }
    size_t j = 0;
    while (j < distinct && r->tcs[j] != h->line[i]) j++;
    if (j == distinct) r->tcs[distinct++] = h->line[i];
  }
  if (h->n == h->cap) h->line = realloc(h->line, (h->cap = h->cap ? 2 * h->cap : 64) * sizeof *h->line);
  h->line[h->n++] = m;
  return found && distinct < r->assoc;
}

void cgp_l2_ref_free(cgp_l2_ref *r) {
  if (!r) return;
  for (uint64_t s = 0; s < r->sets; s++) free(r->set[s].line);
  free(r->set);
  free(r->tcs);
  free(r);
}
