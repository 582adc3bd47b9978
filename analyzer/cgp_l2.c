/* cgp_l2.c: the L2 as LRU, by reuse distance (MODEL.md section 4).

   Semantics: a reference is a line number (byte address / line size); loads and stores are
   treated alike (write-allocate, no write-back traffic modelled). A reference hits iff its
   line was referenced before in its set and fewer than `assoc` distinct lines of that set were
   referenced since: exactly an LRU stack of depth assoc per set. A reference straddling two
   lines is two references; cgp_lines splits them before they get here. Set index
   (cgp_l2_set_of): modulo = line mod sets; xor = (line ^ (line >> log2 sets)) mod sets, so a
   power-of-two column of lines spreads over sets instead of thrashing one.

   Fully associative (the default for real devices, whose set hashing is not published): one
   set of capacity/line lines. Each resident line has an id (0..lines-1); node[id] holds its
   line, its stamp (the ring position of its latest reference), the next id of its hash chain
   and its link, the address of the word naming it (its chain's head or its predecessor's
   next), so it leaves its chain in O(1). Every chain ends at the sentinel node[lines], whose
   line is set to the line sought before each walk. Every reference appends its id to the
   ring; entry p is stale iff bit p of `dead` is set, which a hit does to its id's previous
   entry. So the current entries from the front are the resident lines in recency order, and
   the first one (found by counting trailing zeros) is the least recently used line: the
   victim, exact LRU with no neighbour pointers to touch on a hit. A miss moves the front past
   the victim's entry; when the ring fills, the current entries move to its start (at most
   `lines` of 3 x lines entries survive, so this costs O(1) per reference amortised). Once
   the cache is full, a hit and a miss execute the same stores, with selected operands instead
   of a branch to mispredict: a miss moves the victim's node to the line's chain, a hit moves
   the sentinel from the spare chain back onto it. Chain heads: at least 3 per line, so chains
   are short and a walk usually ends at its first node; the lines of an aligned group of 16
   share one host cache line of heads (sweeps stay in the host's L1), rotated within it by the
   group's hash so that a stride of 16 lines or more still uses every head.
   Set associative, up to 16 ways (and at least 2 sets): per set, the tags and the recency
   order packed as 16 nibbles in a word. An empty way holds a line of another set, which no
   reference to this set can match. The tags are compared without an early exit and the order
   is rotated by a few word operations (no branch to mispredict). More ways, or one set: tags
   most recent first and a fill count, O(assoc).
   All return at once when the line is the most recent reference of the cache: its LRU state
   is already current. cgp_l2_access_many runs the same code line by line, prefetching the
   host cache lines that references a few lines ahead will read when the tables outgrow host
   caches. Memory, allocated by cgp_l2_new only: fully associative 24 bytes of node, 12-24 of
   heads, 12 of ring and 3/8 of stale bits per line (49-61 bytes from 16 lines up); set
   associative 8 bytes per line and 12 per set. */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

#define GROUP 16                /* chain heads of 4 bytes per 64-byte host cache line */
#define CHAINS_PER_LINE 3       /* chains average at most 1/3 id */
#define RING_PER_LINE 3         /* compaction every >= 2 x lines references */
#define PREFETCH_ABOVE (128 << 10)   /* bytes of tables beyond which cgp_l2_access_many prefetches */

typedef struct {
  uint64_t line;
  uint32_t stamp, next;         /* next: in its chain */
  uint32_t *link;               /* the head or next field naming this id */
} node;

struct cgp_l2 {
  uint64_t sets;
  unsigned assoc;
  cgp_l2_index index;
  unsigned set_bits;            /* log2 sets */
  uint64_t mru;                 /* the most recent line, if have_mru */
  int have_mru;
  int prefetch;                 /* the batch prefetches: the tables outgrow host caches */
  /* fully associative */
  uint32_t *head, tmask;        /* chains of ids by slot_of(line); tmask + 1 heads */
  unsigned gshift;              /* 64 - log2 of the number of groups of heads */
  node *node;                   /* node[assoc]: the sentinel */
  uint32_t used;                /* ids given out */
  uint32_t *ring, rsize, front, tail;
  uint32_t spare;               /* a head whose chain is just the sentinel */
  uint64_t *dead;               /* bit p set iff ring[p] is stale, for front <= p < tail;
                                   bit rsize: a spare */
  /* set associative */
  uint64_t *tags, *order;       /* order: per set, if assoc <= 16 */
  unsigned *fill;               /* per set, if assoc > 16 or one set */
};

uint64_t cgp_l2_set_of(uint64_t line, uint64_t sets, cgp_l2_index index) {
  if (index == CGP_L2_FULLY_ASSOCIATIVE || sets <= 1) return 0;
  if (index == CGP_L2_XOR) line ^= line >> cgp_log2(sets);
  return line & (sets - 1);
}

/* The chain head of a line: lines of one aligned group of GROUP share a host cache line of heads,
   picked by the top bits of the group's Fibonacci hash; the bits below rotate the lines in it. */
static uint32_t slot_of(const cgp_l2 *c, uint64_t line) {
  uint64_t g = (line / GROUP) * UINT64_C(0x9e3779b97f4a7c15);
  return (uint32_t)(g >> c->gshift) * GROUP + (uint32_t)((line + (g >> (c->gshift - 4))) & (GROUP - 1));
}

cgp_l2 *cgp_l2_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index) {
  if ((unsigned)index > CGP_L2_XOR || !cgp_is_pow2(line_bytes) || capacity_bytes < line_bytes ||
      capacity_bytes % line_bytes)
    return NULL;
  uint64_t lines = capacity_bytes / line_bytes;
  if (lines > INT32_MAX / 4) return NULL;          /* ids and ring positions fit 32 bits */
  if (index == CGP_L2_FULLY_ASSOCIATIVE) assoc = (unsigned)lines;
  if (!assoc || lines % assoc || !cgp_is_pow2(lines / assoc)) return NULL;
  cgp_l2 *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->sets = lines / assoc;
  c->assoc = assoc;
  c->index = index;
  c->set_bits = cgp_log2(c->sets);
  if (index == CGP_L2_FULLY_ASSOCIATIVE) {
    uint64_t tsize = 2 * GROUP;
    while (tsize < CHAINS_PER_LINE * lines) tsize <<= 1;
    c->tmask = (uint32_t)(tsize - 1);
    c->gshift = 64 - cgp_log2(tsize / GROUP);
    c->head = malloc(tsize * sizeof *c->head);
    c->node = malloc((lines + 1) * sizeof *c->node);
    c->rsize = (uint32_t)(RING_PER_LINE * lines);
    c->ring = malloc(c->rsize * sizeof *c->ring);
    c->dead = malloc((c->rsize / 64 + 1) * sizeof *c->dead);
  } else {
    c->tags = malloc(lines * sizeof *c->tags);
    c->order = malloc(c->sets * sizeof *c->order);
    c->fill = malloc(c->sets * sizeof *c->fill);
  }
  if (index == CGP_L2_FULLY_ASSOCIATIVE ? !(c->head && c->node && c->ring && c->dead) : !(c->tags && c->order && c->fill)) {
    cgp_l2_free(c);
    return NULL;
  }
  c->prefetch = (index == CGP_L2_FULLY_ASSOCIATIVE ? 48 * lines : 8 * lines + 8 * c->sets) > PREFETCH_ABOVE;
  cgp_l2_reset(c);
  return c;
}

void cgp_l2_reset(cgp_l2 *c) {
  c->have_mru = 0;
  if (c->head) {
    for (size_t i = 0; i <= c->tmask; i++) c->head[i] = c->assoc;
    c->spare = c->assoc;
    c->node[c->assoc].next = c->assoc;
    c->used = c->front = c->tail = 0;
    memset(c->dead, 0, (c->rsize / 64 + 1) * sizeof *c->dead);
  } else {
    memset(c->fill, 0, c->sets * sizeof *c->fill);
    for (uint64_t i = 0; i < c->sets; i++) c->order[i] = UINT64_C(0xfedcba9876543210);
    for (uint64_t i = 0; i < c->sets * c->assoc; i++) c->tags[i] = i / c->assoc ^ 1;   /* of another set */
  }
}

void cgp_l2_free(cgp_l2 *c) {
  if (!c) return;
  free(c->head); free(c->node); free(c->ring); free(c->dead); free(c->tags); free(c->order); free(c->fill);
  free(c);
}

/* ---- fully associative -------------------------------------------------------------------- */

static unsigned ctz64(uint64_t w) {            /* w != 0 */
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctzll(w);
#else
  unsigned n = 0;
  while (!(w & 1)) { w >>= 1; n++; }
  return n;
#endif
}

#define BIT(p) (UINT64_C(1) << ((p) % 64))

/* Drop the stale entries: the current ones move to the ring's start, in order. */
static void compact(cgp_l2 *c) {
  uint32_t k = 0, f = c->front, t = c->tail;
  for (uint32_t w = f / 64; w * 64 < t; w++) {
    uint64_t live = ~c->dead[w] & (w == f / 64 ? ~UINT64_C(0) << (f % 64) : ~UINT64_C(0));
    if ((w + 1) * 64 > t) live &= BIT(t) - 1;        /* t % 64 != 0 here */
    for (; live; live &= live - 1) {
      uint32_t id = c->ring[w * 64 + ctz64(live)];
      c->ring[k] = id;
      c->node[id].stamp = k++;
    }
  }
  memset(c->dead, 0, (c->rsize / 64 + 1) * sizeof *c->dead);
  c->front = 0;
  c->tail = k;
}

/* The first current ring position from the front: the least recently used id's entry. */
static uint32_t lru_pos(const cgp_l2 *c) {
  uint32_t f = c->front;
  uint64_t w = ~c->dead[f / 64] >> (f % 64);
  while (!w) { f = (f | 63) + 1; w = ~c->dead[f / 64]; }
  return f + ctz64(w);
}

static void mark_stale(cgp_l2 *c, uint32_t p) { c->dead[p / 64] |= BIT(p); }

static void unchain(node *nd, uint32_t id) {
  *nd[id].link = nd[id].next;
  nd[nd[id].next].link = nd[id].link;
}

static void chain(node *nd, uint32_t id, uint32_t *head) {
  nd[id].next = *head;
  nd[id].link = head;
  nd[*head].link = &nd[id].next;
  *head = id;
}

static uint32_t pick(uint32_t mask, uint32_t a, uint32_t b) { return (a & mask) | (b & ~mask); }

static int access_fully(cgp_l2 *c, uint64_t line) {
  node *nd = c->node;
  uint32_t sentinel = c->assoc, *head = c->head + slot_of(c, line), id, t = c->tail;
  nd[sentinel].line = line;
  nd[sentinel].link = &c->spare;                   /* unchaining a chain's last id changes it */
  for (id = *head; nd[id].line != line; id = nd[id].next) {}
  int hit = id != sentinel;
  if (c->used < c->assoc) {                        /* filling */
    if (hit) mark_stale(c, nd[id].stamp);
    else { id = c->used++; nd[id].line = line; chain(nd, id, head); }
  } else {
    uint32_t f = lru_pos(c), is_hit = 0 - (uint32_t)hit, *to[2] = {head, &c->spare};
    uint32_t moved = pick(is_hit, sentinel, c->ring[f]);   /* a hit moves the sentinel, a miss the victim */
    unchain(nd, moved);
    nd[moved].line = line;
    chain(nd, moved, to[hit]);
    mark_stale(c, pick(is_hit, nd[id].stamp, c->rsize));  /* on a miss, the spare bit */
    c->front = pick(is_hit, c->front, f + 1);
    id = pick(is_hit, id, moved);
  }
  nd[id].stamp = t;
  c->ring[t] = id;
  c->tail = t + 1;
  if (t + 1 == c->rsize) compact(c);
  return hit;
}

/* ---- set associative ---------------------------------------------------------------------- */

#define NIBBLES UINT64_C(0x1111111111111111)

/* Up to 16 ways: the set's recency order is a permutation of 16 ways packed in a word, four
   bits a way, most recent in the low nibble; ways >= assoc stay above, never used, so the LRU
   way is nibble assoc-1. An empty way holds a line of another set (cgp_l2_reset), so it never hits
   and is taken as the LRU way first, as the order starts with the ways from assoc-1 down. */
static int access_small_set(cgp_l2 *c, uint64_t set, uint64_t line) {
  uint64_t *tag = c->tags + set * c->assoc, order = c->order[set];
  unsigned n = c->assoc;
  uint32_t eq = 0;
  if (n == 16)                                        /* the usual case, unrolled */
    for (unsigned w = 0; w < 16; w++) eq |= (uint32_t)(tag[w] == line) << w;
  else
    for (unsigned w = 0; w < n; w++) eq |= (uint32_t)(tag[w] == line) << w;   /* no branch */
  unsigned hit = ctz64(eq | UINT32_C(1) << 16), lru = (unsigned)(order >> (4 * (n - 1))) & 15;
  unsigned w = hit < 16 ? hit : lru;
  uint64_t x = order ^ (w * NIBBLES);                /* w's nibble is the lowest zero nibble */
  uint64_t zeros = (x - NIBBLES) & ~x & (NIBBLES << 3), bit = zeros & (0 - zeros);
  uint64_t below = (bit >> 3) - 1, through = (bit << 1) - 1;   /* nibbles before w's; up to it */
  c->order[set] = (order & ~through) | (order & below) << 4 | w;
  tag[w] = line;                                     /* unchanged on a hit */
  return hit < 16;
}

/* More ways: tags most recent first, moved down on each reference. */
static int access_large_set(cgp_l2 *c, uint64_t set, uint64_t line) {
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

/* cgp_l2_set_of for this cache, with log2 sets kept: the set of a reference and of a prefetch. */
static uint64_t set_index(const cgp_l2 *c, uint64_t line) {
  return (c->index == CGP_L2_XOR ? line ^ line >> c->set_bits : line) & (c->sets - 1);
}

static int access_sets(cgp_l2 *c, uint64_t line) {
  uint64_t set = set_index(c, line);
  return c->assoc <= 16 && c->sets > 1 ? access_small_set(c, set, line) : access_large_set(c, set, line);
}

static inline int access(cgp_l2 *c, uint64_t line) {
  if (c->have_mru && line == c->mru) return 1;
  c->have_mru = 1;
  c->mru = line;
  return c->head ? access_fully(c, line) : access_sets(c, line);
}

int cgp_l2_access(cgp_l2 *c, uint64_t line) { return access(c, line); }

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif
#define AHEAD 8

/* Where the reference to `line` will read first: its chain head, or its set's tags. */
static inline const void *first_read(const cgp_l2 *c, uint64_t line) {
  if (c->head) return c->head + slot_of(c, line);
  return c->tags + set_index(c, line) * c->assoc;
}

/* Then: the node its chain head names now (a guess: the head may change before). */
static inline const void *second_read(const cgp_l2 *c, uint64_t line) {
  if (!c->head) return (const char *)first_read(c, line) + (c->assoc > 8 ? 64 : 0);
  uint32_t id = c->head[slot_of(c, line)];
  return c->node + id;
}

/* A coming victim, the id of the ring entry k past the front (stale or not: a guess). */
static inline uint32_t coming_victim(const cgp_l2 *c, uint32_t k) {
  return c->ring[c->front + k < c->tail ? c->front + k : c->front];
}

unsigned cgp_l2_access_many(cgp_l2 *c, const uint64_t *lines, unsigned n) {
  unsigned hits = 0, i = 0;
  /* The prefetches are issued here: inside inlined helpers, GCC 12 emitted none of them. */
  for (; c->prefetch && i < n && i < AHEAD; i++) PREFETCH(first_read(c, lines[i]));
  for (i = 0; c->prefetch && i + AHEAD < n; i++) {
    PREFETCH(first_read(c, lines[i + AHEAD]));
    PREFETCH(second_read(c, lines[i + AHEAD / 2]));
    if (c->head && c->used == c->assoc) {
      PREFETCH(c->node + coming_victim(c, AHEAD));
      PREFETCH(c->node[coming_victim(c, AHEAD / 2)].link);
    }
    hits += access(c, lines[i]);
  }
  for (; i < n; i++) hits += access(c, lines[i]);
  return hits;
}
