/* cgp_l2_list.c: a small fully associative L2 as a recency list (docs/model.md section 4).

   The same LRU as cgp_l2.c's bitmap of positions, for caches of at most CGP_L2_LIST_MAX_LINES
   lines, where it takes fewer instructions a reference: the resident lines are nodes of a
   doubly linked list, most recent first, found by an open-addressing table (line -> node,
   linear probing from the line's Fibonacci hash, at most half full). A hit moves its node to the
   front; a miss takes a free node while there is one, else the least recently used (the tail),
   whose line leaves the table by backward-shift deletion (the entries after it that may move
   back to their home do, so a search still ends at the first empty slot: no tombstones). A
   node keeps the tick of its line's latest reference, for the inherited hits after a mark.
   Memory: 32 bytes a node and, for a table of at least twice the lines, 16 bytes a slot, all
   allocated by cgp_l2_list_new. */
#include "cgp_l2_list.h"

#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t line;
  uint32_t node;                /* 0: an empty slot */
} slot;

typedef struct {
  uint64_t line, last;          /* last: the tick of the line's latest reference */
  uint32_t prev, next;          /* 0: none */
  uint64_t slot;                /* where the table holds line */
} node;

struct cgp_l2_list {
  slot *tab;
  node *n;                      /* n[1..cap] */
  uint64_t mask;                /* slots - 1, slots a power of two */
  unsigned shift;               /* 64 - log2 slots */
  uint32_t cap, used, head, tail;
  uint64_t tick, mark, inherited;
};

static uint64_t home(const cgp_l2_list *c, uint64_t line) { return (line * CGP_FIBONACCI) >> c->shift; }

cgp_l2_list *cgp_l2_list_new(uint32_t lines) {
  if (!lines || lines > CGP_L2_LIST_MAX_LINES) return NULL;
  cgp_l2_list *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  uint64_t slots = 2;
  unsigned bits = 1;
  while (slots < 2 * (uint64_t)lines) { slots *= 2; bits++; }
  c->tab = malloc(slots * sizeof *c->tab);
  c->n = malloc(((size_t)lines + 1) * sizeof *c->n);
  if (!c->tab || !c->n) {
    cgp_l2_list_free(c);
    return NULL;
  }
  c->mask = slots - 1;
  c->shift = 64 - bits;
  c->cap = lines;
  cgp_l2_list_reset(c);
  return c;
}

void cgp_l2_list_reset(cgp_l2_list *c) {
  memset(c->tab, 0, (c->mask + 1) * sizeof *c->tab);
  c->used = c->head = c->tail = 0;
  c->tick = c->mark = 1;
  c->inherited = 0;
}

void cgp_l2_list_free(cgp_l2_list *c) {
  if (!c) return;
  free(c->tab);
  free(c->n);
  free(c);
}

size_t cgp_l2_list_bytes(const cgp_l2_list *c) {
  return sizeof *c + (c->mask + 1) * sizeof *c->tab + ((size_t)c->cap + 1) * sizeof *c->n;
}

static void unlink_node(cgp_l2_list *c, uint32_t k) {
  node *x = &c->n[k];
  if (x->prev) c->n[x->prev].next = x->next; else c->head = x->next;
  if (x->next) c->n[x->next].prev = x->prev; else c->tail = x->prev;
}

static void push_front(cgp_l2_list *c, uint32_t k) {
  node *x = &c->n[k];
  x->prev = 0;
  x->next = c->head;
  if (c->head) c->n[c->head].prev = k; else c->tail = k;
  c->head = k;
}

/* The slot holding line, or the first empty slot from its home. */
static uint64_t probe(const cgp_l2_list *c, uint64_t line) {
  uint64_t i = home(c, line);
  while (c->tab[i].node && c->tab[i].line != line) i = (i + 1) & c->mask;
  return i;
}

/* Empty slot i, moving back each later entry of its run that may sit there (its home is not
   cyclically within (i, j]). */
static void erase(cgp_l2_list *c, uint64_t i) {
  for (uint64_t j = i;;) {
    j = (j + 1) & c->mask;
    if (!c->tab[j].node) break;
    uint64_t h = home(c, c->tab[j].line);
    if (((j - h) & c->mask) >= ((j - i) & c->mask)) {   /* h is not in (i, j]: j's entry may move to i */
      c->tab[i] = c->tab[j];
      c->n[c->tab[i].node].slot = i;
      i = j;
    }
  }
  c->tab[i].node = 0;
}

static inline int access1(cgp_l2_list *c, uint64_t line) {
  uint64_t i = 0;                                  /* the most recent line is found unprobed */
  uint32_t k = c->head && c->n[c->head].line == line ? c->head : c->tab[i = probe(c, line)].node;
  if (k) {
    node *x = &c->n[k];
    c->inherited += x->last < c->mark;
    x->last = c->tick++;
    if (c->head != k) {
      unlink_node(c, k);
      push_front(c, k);
    }
    return 1;
  }
  if (c->used < c->cap) k = ++c->used;
  else {
    k = c->tail;
    unlink_node(c, k);
    erase(c, c->n[k].slot);
    i = probe(c, line);                            /* the deletion may have moved the empty slot */
  }
  c->tab[i].line = line;
  c->tab[i].node = k;
  c->n[k].line = line;
  c->n[k].slot = i;
  c->n[k].last = c->tick++;
  push_front(c, k);
  return 0;
}

int cgp_l2_list_access(cgp_l2_list *c, uint64_t line) { return access1(c, line); }

unsigned cgp_l2_list_access_each(cgp_l2_list *c, const uint64_t *lines, unsigned n, unsigned char *hit) {
  unsigned hits = 0;
  for (unsigned i = 0; i < n; i++) {
    int h = access1(c, lines[i]);
    if (hit) hit[i] = (unsigned char)h;
    hits += (unsigned)h;
  }
  return hits;
}

int cgp_l2_list_holds(const cgp_l2_list *c, uint64_t line) { return c->tab[probe(c, line)].node != 0; }

void cgp_l2_list_mark(cgp_l2_list *c) { c->mark = c->tick; }

uint64_t cgp_l2_list_inherited(const cgp_l2_list *c) { return c->inherited; }
