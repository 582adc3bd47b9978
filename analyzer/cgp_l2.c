/* cgp_l2.c: the L2 as LRU, by reuse distance (MODEL.md section 4).

   Semantics: a reference is a line number (byte address / line size); loads and stores are
   treated alike (write-allocate, no write-back traffic modelled). A reference hits iff its
   line was referenced before in its set and fewer than `assoc` distinct lines of that set were
   referenced since: exactly an LRU stack of depth assoc per set. A reference straddling two
   lines is two references; cgp_lines splits them before they get here. Set index
   (cgp_l2_set_of): modulo = line mod sets; xor = (line ^ (line >> log2 sets)) mod sets, so a
   power-of-two column of lines spreads over sets instead of thrashing one.

   Fully associative (the default for real devices, whose set hashing is not published): one set
   of C = capacity/line lines. Up to CGP_L2_LIST_MAX_LINES lines, unless made general
   (cgp_l2_new_as), it is a recency list (cgp_l2_list.c); else, as follows. Every reference
   takes the next position (1, 2, ...); a line's stamp is the position of its latest reference,
   and bit p of `live` is set iff p is the stamp of a resident line. The resident lines are thus
   the set bits in recency order: the first set bit from `front` is the least recently used
   line's (found by counting trailing zeros, past empty words through a second bitmap, `sum`, of
   the words with a bit set), and a line is resident iff its stamp is at or past the front. So a
   miss evicts by clearing that bit and moving the front past it, never touching the victim's
   own entry: it expires. A hit clears its old bit. Once the cache is full, a hit and a miss
   execute the same stores, with selected operands instead of a branch to mispredict. Stamps
   live in groups of GL = 6 consecutive lines, a 32-byte entry (the group number and 6 stamps;
   0: no reference since the last renumbering) of an open-addressing table probed linearly from
   the group's Fibonacci hash, so a sweep reads one entry per 6 lines. When the positions reach
   8 x C, the live ones are renumbered 1, 2, ... in order (each stamp's rank among the live
   bits, from per-word popcounts): O(table) every 7 x C references at least. When three quarters
   of the table is in use, the groups with no resident line are dropped, in place, and the table
   doubles only while more than half of it would still be in use: at most C groups hold a
   resident line.
   Set associative, up to 16 ways (and at least 2 sets): per set, the tags and the recency
   order packed as 16 nibbles in a word. An empty way holds a line of another set, which no
   reference to this set can match. The tags are compared without an early exit and the order
   is rotated by a few word operations (no branch to mispredict). More ways, or one set: tags
   most recent first and a fill count, O(assoc).
   All return at once when the line is the most recent reference of the cache: its LRU state
   is already current. cgp_l2_access_many runs the same code line by line, prefetching the
   host cache lines that references a few lines ahead will read when the tables outgrow host
   caches. Memory (cgp_l2_bytes): fully associative, 1.5 bytes of bitmap and ranks per line and
   the table, at first the power of two of slots of 32 bytes at or above 2 per 6 lines (4 when
   that is at most SMALL_TABLE): 14-23 bytes per line in all for a large cache (6 MiB of 32-byte
   sectors: 4.5 MB; a small one is a recency list instead, cgp_l2_list.c); growing only when
   resident lines are spread out: at most 4 x (C + 1) slots, 128 bytes per line, when each
   resident line is alone in its group. The table is the only allocation after cgp_l2_new; when
   it cannot grow, a reference that would need a new group is not recorded (cgp_l2_degraded).
   Set associative: 8 bytes per line and 12 per set, allocated by cgp_l2_new only. */
#include "cgp_analyzer.h"
#include "cgp_l2_list.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define GL 6                    /* lines per group: a 64-bit key and 6 stamps fill 32 bytes */
#define POSITIONS_PER_LINE 8    /* positions 1..8 x lines between renumberings */
#define MIN_SLOTS 64
#define SMALL_TABLE (256 << 10) /* bytes: a table this small starts a quarter full, else half */
#define PREFETCH_ABOVE (128 << 10)   /* bytes of tables beyond which cgp_l2_access_many prefetches */

typedef struct {
  uint64_t key;                 /* group number + 1; 0: an empty slot */
  uint32_t stamp[GL];           /* a line's latest position, 0 if none since the last renumbering */
} group;

struct cgp_l2 {
  uint64_t sets;
  unsigned assoc;
  cgp_l2_index index;
  unsigned set_bits;            /* log2 sets */
  uint64_t mru;                 /* the most recent line, if have_mru */
  int have_mru;
  int prefetch;                 /* the batch prefetches: the tables outgrow host caches */
  /* fully associative */
  group *tab;                   /* open addressing, linear probing, by Fibonacci hash of the key */
  uint64_t slots, groups;       /* slots: a power of two; groups: keys in it, at most 3/4 of slots */
  unsigned tshift;              /* 64 - log2 slots */
  uint64_t *live;               /* bit p set iff p is the latest position of a resident line */
  uint64_t *sum;                /* bit w set iff word w of live has a bit set (lru_pos skips the
                                   empty words a run of hits leaves behind the front) */
  uint32_t *before;             /* per word of live: its live bits before it (renumbering) */
  uint32_t front, tail, rsize;  /* live bits lie in [front, tail); positions 1..rsize */
  uint32_t resident;
  int degraded;                 /* a reference went unrecorded: out of memory */
  uint32_t mark;                /* positions below it: referenced before cgp_l2_mark */
  uint64_t inherited;           /* hits on a line last referenced before the mark */
  uint64_t fresh;               /* cgp_l2_age's next line, past CGP_L2_FRESH_LINE */
  cgp_l2_list *list;             /* fully associative and small: a recency list (cgp_l2_list.c) */
  /* set associative */
  uint64_t *tags, *order;       /* order: per set, if assoc <= 16 */
  unsigned *fill;               /* per set, if assoc > 16 or one set */
};

uint64_t cgp_l2_set_of(uint64_t line, uint64_t sets, cgp_l2_index index) {
  if (index == CGP_L2_FULLY_ASSOCIATIVE || sets <= 1) return 0;
  if (index == CGP_L2_XOR) line ^= line >> cgp_log2(sets);
  return line & (sets - 1);
}

static group *new_table(uint64_t slots) {
  group *t = aligned_alloc(64, slots * sizeof *t);
  if (t) memset(t, 0, slots * sizeof *t);
  return t;
}

cgp_l2 *cgp_l2_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index) {
  return cgp_l2_new_as(capacity_bytes, line_bytes, assoc, index, 0);
}

cgp_l2 *cgp_l2_new_as(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index, int general) {
  if ((unsigned)index > CGP_L2_XOR || !cgp_is_pow2(line_bytes) || capacity_bytes < line_bytes ||
      capacity_bytes % line_bytes)
    return NULL;
  uint64_t lines = capacity_bytes / line_bytes;
  if (lines > INT32_MAX / 4) return NULL;          /* positions fit 32 bits */
  if (index == CGP_L2_FULLY_ASSOCIATIVE) assoc = (unsigned)lines;
  if (!assoc || lines % assoc || !cgp_is_pow2(lines / assoc)) return NULL;
  cgp_l2 *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->sets = lines / assoc;
  c->assoc = assoc;
  c->index = index;
  c->set_bits = cgp_log2(c->sets);
  if (index == CGP_L2_FULLY_ASSOCIATIVE && lines <= CGP_L2_LIST_MAX_LINES && !general) {
    c->list = cgp_l2_list_new((uint32_t)lines);
    if (!c->list) {
      free(c);
      return NULL;
    }
    return c;
  }
  if (index == CGP_L2_FULLY_ASSOCIATIVE) {
    c->rsize = (uint32_t)(POSITIONS_PER_LINE * lines);
    c->live = malloc((c->rsize / 64 + 1) * sizeof *c->live);
    c->sum = malloc((c->rsize / 64 / 64 + 1) * sizeof *c->sum);
    c->before = malloc((c->rsize / 64 + 1) * sizeof *c->before);
    uint64_t dense = lines / GL + 1;               /* groups of C resident lines side by side */
    uint64_t want = dense * (dense * 4 * sizeof(group) <= SMALL_TABLE ? 4 : 2);
    for (c->slots = MIN_SLOTS; c->slots < want; c->slots *= 2) {}
    c->tab = new_table(c->slots);
  } else {
    c->tags = malloc(lines * sizeof *c->tags);
    c->order = malloc(c->sets * sizeof *c->order);
    c->fill = malloc(c->sets * sizeof *c->fill);
  }
  if (index == CGP_L2_FULLY_ASSOCIATIVE ? !(c->tab && c->live && c->sum && c->before) : !(c->tags && c->order && c->fill)) {
    cgp_l2_free(c);
    return NULL;
  }
  c->prefetch = (index == CGP_L2_FULLY_ASSOCIATIVE ? 16 * lines : 8 * lines + 8 * c->sets) > PREFETCH_ABOVE;
  cgp_l2_reset(c);
  return c;
}

void cgp_l2_reset(cgp_l2 *c) {
  c->have_mru = 0;
  if (c->list) cgp_l2_list_reset(c->list);
  else if (c->tab) {
    memset(c->tab, 0, c->slots * sizeof *c->tab);
    c->groups = 0;
    c->tshift = 64 - cgp_log2(c->slots);
    memset(c->live, 0, (c->rsize / 64 + 1) * sizeof *c->live);
    memset(c->sum, 0, (c->rsize / 64 / 64 + 1) * sizeof *c->sum);
    c->front = c->tail = c->mark = 1;
    c->resident = 0;
    c->degraded = 0;
  } else {
    memset(c->fill, 0, c->sets * sizeof *c->fill);
    for (uint64_t i = 0; i < c->sets; i++) c->order[i] = UINT64_C(0xfedcba9876543210);
    for (uint64_t i = 0; i < c->sets * c->assoc; i++) c->tags[i] = i / c->assoc ^ 1;   /* of another set */
  }
}

uint64_t cgp_l2_capacity_lines(const cgp_l2 *c) { return c->sets * c->assoc; }

uint64_t cgp_l2_age(cgp_l2 *c, uint64_t *n) {
  uint64_t cap = cgp_l2_capacity_lines(c), first = CGP_L2_FRESH_LINE + c->fresh;
  if (*n > cap) *n = cap;
  for (uint64_t i = 0; i < *n; i++) cgp_l2_access(c, CGP_L2_FRESH_LINE + c->fresh++);
  return first;
}

void cgp_l2_free(cgp_l2 *c) {
  if (!c) return;
  cgp_l2_list_free(c->list);
  free(c->tab); free(c->live); free(c->sum); free(c->before); free(c->tags); free(c->order); free(c->fill);
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

static unsigned popcount64(uint64_t w) {
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_popcountll(w);
#else
  unsigned n = 0;
  for (; w; w &= w - 1) n++;
  return n;
#endif
}

#define BIT(p) (UINT64_C(1) << ((p) % 64))

static uint64_t home(const cgp_l2 *c, uint64_t key) { return (key * CGP_FIBONACCI) >> c->tshift; }

static int group_lives(const cgp_l2 *c, const group *g) {
  uint32_t any = 0;
  for (unsigned j = 0; j < GL; j++) any |= g->stamp[j] >= c->front;
  return (int)any;
}

/* The first empty slot from key's home in t (slots a power of two, shift = 64 - log2 slots). */
static uint64_t empty_slot(const group *t, uint64_t slots, unsigned shift, uint64_t key) {
  uint64_t j = (key * CGP_FIBONACCI) >> shift;
  while (t[j].key) j = (j + 1) & (slots - 1);
  return j;
}

static void place(group *t, uint64_t slots, unsigned shift, const group *g) { t[empty_slot(t, slots, shift, g->key)] = *g; }

/* Drop the groups with no resident line, in place: from an empty slot round the table, each
   group is taken out and put back from its home, which it reaches again past any slot emptied
   before it (so linear probing still finds every group). */
static void sweep(cgp_l2 *c) {
  uint64_t start = 0, mask = c->slots - 1;
  while (c->tab[start].key) start++;               /* the table is never full */
  for (uint64_t k = 1; k <= c->slots; k++) {
    group *s = &c->tab[(start + k) & mask];
    if (!s->key) continue;
    group g = *s;
    memset(s, 0, sizeof *s);
    if (group_lives(c, &g)) place(c->tab, c->slots, c->tshift, &g);
    else c->groups--;
  }
}

/* Room for one more group: the groups with no resident line go; the table doubles until at
   most half of it is left in use. 0 when out of memory and the table is nearly full (one empty
   slot must stay, so that a search ends). */
static int make_room(cgp_l2 *c) {
  uint64_t alive = 0;
  for (uint64_t i = 0; i < c->slots; i++) alive += c->tab[i].key && group_lives(c, &c->tab[i]);
  uint64_t slots = c->slots;
  while (slots < 2 * (alive + 1)) slots *= 2;
  group *t = slots > c->slots ? new_table(slots) : NULL;
  if (!t) {
    sweep(c);
    return c->groups + 2 < c->slots;
  }
  unsigned shift = 64 - cgp_log2(slots);
  for (uint64_t i = 0; i < c->slots; i++)
    if (c->tab[i].key && group_lives(c, &c->tab[i])) place(t, slots, shift, &c->tab[i]);
  free(c->tab);
  c->tab = t;
  c->slots = slots;
  c->tshift = shift;
  c->groups = alive;
  return 1;
}

/* The slot of a key not in the table, i its first empty slot from home: taken, after making
   room when three quarters are in use. NULL when there is no room (out of memory). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static group *add(cgp_l2 *c, uint64_t key, uint64_t i) {
  if (4 * (c->groups + 1) > 3 * c->slots) {
    if (!make_room(c)) {
      c->degraded = 1;
      return NULL;
    }
    i = empty_slot(c->tab, c->slots, c->tshift, key);
  }
  c->tab[i].key = key;                             /* stamps are 0 in an empty slot */
  c->groups++;
  return &c->tab[i];
}

static inline group *find(cgp_l2 *c, uint64_t key) {
  group *t = c->tab;
  uint64_t i = home(c, key), mask = c->slots - 1;
  for (; t[i].key != key; i = (i + 1) & mask)
    if (!t[i].key) return add(c, key, i);
  return &t[i];
}

/* Set / clear bit p of live, keeping sum: a word's bit there is cleared, without a branch, when
   its last live bit goes. */
static inline void live_set(cgp_l2 *c, uint32_t p) {
  c->live[p / 64] |= BIT(p);
  c->sum[p / 4096] |= BIT(p / 64);
}

static inline void live_clear(cgp_l2 *c, uint32_t p) {
  uint64_t w = c->live[p / 64] &= ~BIT(p);
  c->sum[p / 4096] &= ~((uint64_t)(w == 0) << (p / 64 % 64));
}

/* Renumber the live positions 1, 2, ... in order, so that positions fit the bitmap again. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static void renumber(cgp_l2 *c) {
  uint32_t words = c->rsize / 64 + 1, n = 0;
  for (uint32_t w = 0; w < words; w++) { c->before[w] = n; n += popcount64(c->live[w]); }
  uint32_t m = c->mark;           /* the live positions below the mark keep their place below it */
  c->mark = m > c->front ? 1 + c->before[m / 64] + popcount64(c->live[m / 64] & (BIT(m) - 1)) : 1;
  for (uint64_t i = 0; i < c->slots; i++) {
    group *g = &c->tab[i];
    if (!g->key) continue;
    for (unsigned j = 0; j < GL; j++) {
      uint32_t s = g->stamp[j];
      g->stamp[j] = s >= c->front ? 1 + c->before[s / 64] + popcount64(c->live[s / 64] & (BIT(s) - 1)) : 0;
    }
  }
  memset(c->live, 0, words * sizeof *c->live);
  memset(c->sum, 0, (words / 64 + 1) * sizeof *c->sum);
  for (uint32_t p = 1; p <= n; p++) live_set(c, p);
  c->front = 1;
  c->tail = n + 1;
}

/* The first live position from the front: the least recently used line's (one exists). Past
   the front's own word, `sum` finds the next word with a live bit. */
static uint32_t lru_pos(const cgp_l2 *c) {
  uint32_t f = c->front;
  uint64_t w = c->live[f / 64] >> (f % 64);
  if (w) return f + ctz64(w);
  uint32_t wi = f / 64 + 1;
  uint64_t s = c->sum[wi / 64] >> (wi % 64);
  while (!s) { wi = (wi | 63) + 1; s = c->sum[wi / 64]; }
  wi += ctz64(s);
  return wi * 64 + ctz64(c->live[wi]);
}

static uint32_t pick(uint32_t mask, uint32_t a, uint32_t b) { return (a & mask) | (b & ~mask); }

static inline int access_fully(cgp_l2 *c, uint64_t line) {
  uint64_t q = line / GL;
  group *g = find(c, q + 1);
  if (!g) return 0;                                /* no room: degraded, not recorded */
  uint32_t *s = &g->stamp[line - q * GL], old = *s, t = c->tail;
  int hit = old >= c->front;
  c->inherited += (uint64_t)(hit & (old < c->mark));
  if (c->resident == c->assoc) {                   /* full: no branch on hit or miss */
    uint32_t f = lru_pos(c), is_hit = 0 - (uint32_t)hit, gone = pick(is_hit, old, f);
    live_clear(c, gone);                             /* a hit's old position, or the victim's */
    c->front = pick(is_hit, c->front, f + 1);
  } else if (hit) live_clear(c, old);
  else c->resident++;
  live_set(c, t);
  *s = t;
  c->tail = t + 1;
  if (t == c->rsize) renumber(c);
  return hit;
}

/* ---- set associative ---------------------------------------------------------------------- */

#define NIBBLES UINT64_C(0x1111111111111111)

/* Bit w set iff tag[w] == line, w < 16. With SSE2 (every x86-64), two tags per compare: 64-bit
   lanes equal iff both 32-bit halves are. */
static inline uint32_t match16(const uint64_t *tag, uint64_t line) {
  uint32_t eq = 0;
#if defined(__SSE2__)
  __m128i want = _mm_set1_epi64x((long long)line);
  for (unsigned w = 0; w < 16; w += 2) {
    __m128i e = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(tag + w)), want);
    e = _mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1)));
    eq |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(e)) << w;
  }
#else
  for (unsigned w = 0; w < 16; w++) eq |= (uint32_t)(tag[w] == line) << w;
#endif
  return eq;
}

/* Up to 16 ways: the set's recency order is a permutation of 16 ways packed in a word, four
   bits a way, most recent in the low nibble; ways >= assoc stay above, never used, so the LRU
   way is nibble assoc-1. An empty way holds a line of another set (cgp_l2_reset), so it never hits
   and is taken as the LRU way first, as the order starts with the ways from assoc-1 down. */
static int access_small_set(cgp_l2 *c, uint64_t set, uint64_t line) {
  uint64_t *tag = c->tags + set * c->assoc, order = c->order[set];
  unsigned n = c->assoc;
  uint32_t eq = 0;
  if (n == 16) eq = match16(tag, line);              /* the usual case */
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

/* The sets keep their recency order packed in a word (access_small_set): up to 16 ways and more
   than one set; else tags most recent first with a fill count (access_large_set). */
static int packed_sets(const cgp_l2 *c) { return c->assoc <= 16 && c->sets > 1; }

/* cgp_l2_set_of for this cache, with log2 sets kept: the set of a reference and of a prefetch. */
static uint64_t set_index(const cgp_l2 *c, uint64_t line) {
  return (c->index == CGP_L2_XOR ? line ^ line >> c->set_bits : line) & (c->sets - 1);
}

static int access_sets(cgp_l2 *c, uint64_t line) {
  uint64_t set = set_index(c, line);
  return packed_sets(c) ? access_small_set(c, set, line) : access_large_set(c, set, line);
}

static inline int access(cgp_l2 *c, uint64_t line) {
  if (c->list) return cgp_l2_list_access(c->list, line);   /* it finds its most recent line first */
  if (c->have_mru && line == c->mru) return 1;
  c->have_mru = 1;
  c->mru = line;
  return c->tab ? access_fully(c, line) : access_sets(c, line);
}

int cgp_l2_access(cgp_l2 *c, uint64_t line) { return access(c, line); }

int cgp_l2_holds(const cgp_l2 *c, uint64_t line) {
  if (c->list) return cgp_l2_list_holds(c->list, line);   /* it keeps no have_mru (access) */
  if (c->have_mru && line == c->mru) return 1;
  if (c->tab) {                                    /* a group's stamp at or past the front */
    uint64_t q = line / GL, key = q + 1, i = home(c, key), mask = c->slots - 1;
    for (; c->tab[i].key != key; i = (i + 1) & mask)
      if (!c->tab[i].key) return 0;
    return c->tab[i].stamp[line - q * GL] >= c->front;
  }
  uint64_t set = set_index(c, line);
  const uint64_t *way = c->tags + set * c->assoc;
  unsigned n = packed_sets(c) ? c->assoc : c->fill[set];   /* an empty way holds another set's line */
  for (unsigned w = 0; w < n; w++)
    if (way[w] == line) return 1;
  return 0;
}

int cgp_l2_degraded(const cgp_l2 *c) { return c->degraded; }

void cgp_l2_mark(cgp_l2 *c) {
  if (c->list) {                  /* the list keeps its own mark; the bitmap's fields are unused */
    cgp_l2_list_mark(c->list);
    return;
  }
  c->have_mru = 0;                /* the next reference is looked up: it may be from before */
  c->mark = c->tail;
}

int cgp_l2_tracks_inherited(const cgp_l2 *c) { return c->tab != NULL || c->list != NULL; }

uint64_t cgp_l2_inherited(const cgp_l2 *c) { return c->list ? cgp_l2_list_inherited(c->list) : c->inherited; }

size_t cgp_l2_bytes(const cgp_l2 *c) {
  if (c->list) return sizeof *c + cgp_l2_list_bytes(c->list);
  if (c->tab) return sizeof *c + c->slots * sizeof *c->tab + (c->rsize / 64 + 1) * (sizeof *c->live + sizeof *c->before) +
                      (c->rsize / 64 / 64 + 1) * sizeof *c->sum;
  return sizeof *c + c->sets * c->assoc * sizeof *c->tags + c->sets * (sizeof *c->order + sizeof *c->fill);
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif
#define AHEAD 8

/* Where the reference to `line` will read first: its group's home slot, or its set's tags. */
static inline const void *first_read(const cgp_l2 *c, uint64_t line) {
  if (c->tab) return c->tab + home(c, line / GL + 1);
  return c->tags + set_index(c, line) * c->assoc;
}

/* The one loop of cgp_l2_access_many and cgp_l2_access_each: hit[i] gets line i's result when
   hit is not NULL. */
static inline unsigned access_run(cgp_l2 *c, const uint64_t *lines, unsigned n, unsigned char *hit) {
  if (c->list) return cgp_l2_list_access_each(c->list, lines, n, hit);
  unsigned hits = 0, i = 0;
  /* The prefetches are issued here: inside inlined helpers, GCC 12 emitted none of them. */
  for (; c->prefetch && i < n && i < AHEAD; i++) PREFETCH(first_read(c, lines[i]));
  for (i = 0; c->prefetch && i + AHEAD < n; i++) {
    PREFETCH(first_read(c, lines[i + AHEAD]));
    int h = access(c, lines[i]);
    if (hit) hit[i] = (unsigned char)h;
    hits += (unsigned)h;
  }
  for (; i < n; i++) {
    int h = access(c, lines[i]);
    if (hit) hit[i] = (unsigned char)h;
    hits += (unsigned)h;
  }
  return hits;
}

unsigned cgp_l2_access_many(cgp_l2 *c, const uint64_t *lines, unsigned n) { return access_run(c, lines, n, NULL); }

unsigned cgp_l2_access_each(cgp_l2 *c, const uint64_t *lines, unsigned n, unsigned char *hit) {
  return access_run(c, lines, n, hit);
}
