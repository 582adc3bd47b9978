/* cgp_l2_ref.c: the L2 contract computed straight from its definition, for tests (like
   drcachesim's brute-force reuse-distance cross-check). Every reference is kept in its set's
   history; at a new reference to line m, walk back to the previous reference to m, collecting
   the distinct lines seen on the way (the temporal conflict set, TCS): hit iff m was found and
   fewer than assoc distinct lines were collected. No LRU state is kept, so agreement with
   cgp_l2.c is evidence that the fast structure implements the definition.

   The TCS is a generation-stamped open-addressing set (a stale stamp means empty), so each
   reference costs its walk length instead of walk length times TCS size: fully associative
   tests with thousands of lines stay fast. */
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
  uint64_t *tcs_line;  /* TCS slots; slot i is occupied iff tcs_gen[i] == gen */
  uint32_t *tcs_gen;
  uint32_t gen;
  uint64_t tcs_mask;
};

cgp_l2_ref *cgp_l2_ref_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index) {
  if ((unsigned)index > CGP_L2_XOR || !cgp_is_pow2(line_bytes) || capacity_bytes < line_bytes ||
      capacity_bytes % line_bytes)
    return NULL;
  uint64_t lines = capacity_bytes / line_bytes;
  if (lines > INT32_MAX / 4) return NULL;
  if (index == CGP_L2_FULLY_ASSOCIATIVE) assoc = (unsigned)lines;
  if (!assoc || lines % assoc || !cgp_is_pow2(lines / assoc)) return NULL;
  cgp_l2_ref *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->sets = lines / assoc;
  r->assoc = assoc;
  r->index = index;
  uint64_t tsize = 1;
  while (tsize < 2 * (uint64_t)assoc) tsize <<= 1;
  r->tcs_mask = tsize - 1;
  r->set = calloc(r->sets, sizeof *r->set);
  r->tcs_line = malloc(tsize * sizeof *r->tcs_line);
  r->tcs_gen = calloc(tsize, sizeof *r->tcs_gen);
  if (!r->set || !r->tcs_line || !r->tcs_gen) {
    cgp_l2_ref_free(r);
    return NULL;
  }
  return r;
}

/* Add m to the current TCS; 1 if it was not there yet. */
static int tcs_add(cgp_l2_ref *r, uint64_t m) {
  uint64_t h = (m * CGP_FIBONACCI) >> 17 & r->tcs_mask;
  while (r->tcs_gen[h] == r->gen) {
    if (r->tcs_line[h] == m) return 0;
    h = (h + 1) & r->tcs_mask;
  }
  r->tcs_gen[h] = r->gen;
  r->tcs_line[h] = m;
  return 1;
}

static int history_push(history *h, uint64_t m) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    uint64_t *p = realloc(h->line, cap * sizeof *p);
    if (!p) return 0;
    h->line = p;
    h->cap = cap;
  }
  h->line[h->n++] = m;
  return 1;
}

/* Would a reference to m hit: walk m's set history back to m's previous reference, collecting
   the distinct lines met (the TCS); a hit iff m is found with fewer than assoc of them. */
static int walk(cgp_l2_ref *r, const history *h, uint64_t m) {
  uint64_t distinct = 0;
  if (++r->gen == 0) {                 /* stamps wrapped: clear so no stale slot looks current */
    for (uint64_t i = 0; i <= r->tcs_mask; i++) r->tcs_gen[i] = 0;
    r->gen = 1;
  }
  for (size_t i = h->n; i-- > 0 && distinct < r->assoc;) {
    if (h->line[i] == m) return 1;
    distinct += tcs_add(r, h->line[i]);
  }
  return 0;
}

int cgp_l2_ref_access(cgp_l2_ref *r, uint64_t m) {
  history *h = &r->set[cgp_l2_set_of(m, r->sets, r->index)];
  int hit = walk(r, h, m);
  if (!history_push(h, m)) return -1;
  return hit;
}

int cgp_l2_ref_holds(cgp_l2_ref *r, uint64_t m) { return walk(r, &r->set[cgp_l2_set_of(m, r->sets, r->index)], m); }

void cgp_l2_ref_free(cgp_l2_ref *r) {
  if (!r) return;
  if (r->set)
    for (uint64_t s = 0; s < r->sets; s++) free(r->set[s].line);
  free(r->set);
  free(r->tcs_line);
  free(r->tcs_gen);
  free(r);
}
