/* cgp_l2.c: the L2 as LRU, by reuse distance (MODEL.md section 4).

   Semantics: a reference is a line number (byte address / line size); loads and stores are
   treated alike (write-allocate, no write-back traffic modelled). A reference hits iff its
   line was referenced before in its set and fewer than `assoc` distinct lines of that set were
   referenced since: exactly an LRU stack of depth assoc per set, which is what is kept here.
   A reference straddling two lines is two references; cgp_lines splits them before they get
   here. Set index (cgp_l2_set_of): modulo = line mod sets; xor = (line ^ (line >> log2 sets))
   mod sets, so a power-of-two column of lines spreads over sets instead of thrashing one.

   Fully associative (the default for real devices, whose set hashing is not published): one
   set of capacity/line lines, kept as a doubly linked recency list over a fixed slot array
   with an open-addressing hash from line to slot, O(1) per reference and no allocation.
   Set associative: per set, the assoc most recent lines in recency order, O(assoc). */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY (-1)

struct cgp_l2 {
  uint64_t sets;
  unsigned assoc;
  cgp_l2_index index;
  uint64_t *tags;        /* set associative: tags[set * assoc + way], most recent first */
  unsigned *fill;
  uint64_t *slot_line;   /* fully associative */
  int32_t *prev, *next, head, tail;
  uint32_t used;
  int32_t *hash;
  uint64_t hmask;
};

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static unsigned log2u64(uint64_t v) {
  unsigned s = 0;
  while ((UINT64_C(1) << s) < v) s++;
  return s;
}

uint64_t cgp_l2_set_of(uint64_t line, uint64_t sets, cgp_l2_index index) {
  if (index == CGP_L2_FULLY_ASSOCIATIVE || sets <= 1) return 0;
  if (index == CGP_L2_XOR) line ^= line >> log2u64(sets);
  return line & (sets - 1);
}

static uint64_t mix(uint64_t x) {             /* splitmix64 finaliser: spreads strided lines */
  x ^= x >> 30; x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 27; x *= UINT64_C(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

cgp_l2 *cgp_l2_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index) {
  if ((unsigned)index > CGP_L2_XOR || !is_pow2(line_bytes) || capacity_bytes < line_bytes ||
      capacity_bytes % line_bytes)
    return NULL;
  uint64_t lines = capacity_bytes / line_bytes;
  if (lines > INT32_MAX / 4) return NULL;          /* slots are int32_t; the hash has 2x room */
  if (index == CGP_L2_FULLY_ASSOCIATIVE) assoc = (unsigned)lines;
  if (!assoc || lines % assoc || !is_pow2(lines / assoc)) return NULL;
  cgp_l2 *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->sets = lines / assoc;
  c->assoc = assoc;
  c->index = index;
  if (index == CGP_L2_FULLY_ASSOCIATIVE) {
    uint64_t hsize = 1;
    while (hsize < 2 * lines) hsize <<= 1;
    c->hmask = hsize - 1;
    c->slot_line = malloc(lines * sizeof *c->slot_line);
    c->prev = malloc(lines * sizeof *c->prev);
    c->next = malloc(lines * sizeof *c->next);
    c->hash = malloc(hsize * sizeof *c->hash);
  } else {
    c->tags = malloc(lines * sizeof *c->tags);
    c->fill = malloc(c->sets * sizeof *c->fill);
  }
  if (index == CGP_L2_FULLY_ASSOCIATIVE ? !(c->slot_line && c->prev && c->next && c->hash) : !(c->tags && c->fill)) {
    cgp_l2_free(c);
    return NULL;
  }
  cgp_l2_reset(c);
  return c;
}

void cgp_l2_reset(cgp_l2 *c) {
  if (c->hash) {
    for (uint64_t i = 0; i <= c->hmask; i++) c->hash[i] = EMPTY;
    c->head = c->tail = EMPTY;
    c->used = 0;
  } else {
    memset(c->fill, 0, c->sets * sizeof *c->fill);
  }
}

void cgp_l2_free(cgp_l2 *c) {
  if (!c) return;
  free(c->tags); free(c->fill); free(c->slot_line); free(c->prev); free(c->next); free(c->hash);
  free(c);
}

/* ---- fully associative -------------------------------------------------------------------- */

static uint64_t hash_find(const cgp_l2 *c, uint64_t line) {
  uint64_t h = mix(line) & c->hmask;
  while (c->hash[h] != EMPTY && c->slot_line[c->hash[h]] != line) h = (h + 1) & c->hmask;
  return h;
}

/* Linear-probing deletion by backward shift: no tombstones, probes stay short. */
static void hash_remove(cgp_l2 *c, uint64_t h) {
  uint64_t i = h, j = h;
  for (;;) {
    j = (j + 1) & c->hmask;
    if (c->hash[j] == EMPTY) break;
    uint64_t k = mix(c->slot_line[c->hash[j]]) & c->hmask;
    int k_in_i_j = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (k_in_i_j) continue;
    c->hash[i] = c->hash[j];
    i = j;
  }
  c->hash[i] = EMPTY;
}

static void unlink_slot(cgp_l2 *c, int32_t s) {
  if (c->prev[s] != EMPTY) c->next[c->prev[s]] = c->next[s]; else c->head = c->next[s];
  if (c->next[s] != EMPTY) c->prev[c->next[s]] = c->prev[s]; else c->tail = c->prev[s];
}

static void push_front(cgp_l2 *c, int32_t s) {
  c->prev[s] = EMPTY;
  c->next[s] = c->head;
  if (c->head != EMPTY) c->prev[c->head] = s; else c->tail = s;
  c->head = s;
}

static int access_fully(cgp_l2 *c, uint64_t line) {
  uint64_t h = hash_find(c, line);
  int32_t s = c->hash[h];
  if (s != EMPTY) {
    if (s != c->head) { unlink_slot(c, s); push_front(c, s); }
    return 1;
  }
  if (c->used < c->assoc) {
    s = (int32_t)c->used++;
  } else {
    s = c->tail;                                   /* evict the least recently used */
    hash_remove(c, hash_find(c, c->slot_line[s]));
    unlink_slot(c, s);
    h = hash_find(c, line);
  }
  c->slot_line[s] = line;
  c->hash[h] = s;
  push_front(c, s);
  return 0;
}

/* ---- set associative ---------------------------------------------------------------------- */

static int access_sets(cgp_l2 *c, uint64_t line) {
  uint64_t set = cgp_l2_set_of(line, c->sets, c->index);
  uint64_t *way = c->tags + set * c->assoc;
  unsigned n = c->fill[set], i = 0;
  while (i < n && way[i] != line) i++;
  int hit = i < n;
  if (!hit) {
    if (n < c->assoc) c->fill[set] = ++n;
    i = n - 1;                                     /* the last way is dropped */
  }
  memmove(way + 1, way, i * sizeof *way);
  way[0] = line;
  return hit;
}

int cgp_l2_access(cgp_l2 *c, uint64_t line) {
  return c->hash ? access_fully(c, line) : access_sets(c, line);
}
