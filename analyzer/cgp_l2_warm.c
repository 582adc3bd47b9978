/* cgp_l2_warm.c: what the work the sample did not trace brings into the L2 (docs/model.md
   section 4c), for the cache analysis (cgp_an_cache.c) to reference there: a span's units with the
   tag it was added with (the cache counts their misses as its instruction's), the rest as
   CGP_REF_AGAIN (counted nowhere).

   - Spans: the loop iterations a sampled instruction stood for (cgp_span, given with the last
     element of its window: docs/pipeline.md, "Sampling inside a thread"), carried on each lane's
     stride. They pend until their warp moves on, so that every warp's and site's skipped
     iterations come in together, iteration by iteration, as the warps of a batch run them side
     by side; each span then waits in the bucket of the next iteration at which it reaches a unit
     it did not touch, so the work is the units referenced, not the iterations. A span on one
     element a thread (stride 0) is read every iteration: it is referenced again at the end, as
     recent as the last iteration's lines.
   - Shared lines: the units two windows in a row referenced, though blocks apart (a vector every
     block reads), which the blocks between them went on referencing, and in one sweep those the
     two windows before the last both referenced and it did not (a column its place in the rows
     missed). Where only one column of blocks references a unit (GEMVER's v1[j], read by the
     blocks above and below), the blocks between reference it only once a row, so it is kept only
     when they hold a whole row and the L2 holds a row's new lines (cgp_grid_row infers the row
     from the windows' places); such a unit any two windows of the launch's sweep read is then
     kept after every later window, wherever the windows fall in their rows. */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

#define SPAN_UNITS CGP_REFS_MAX   /* units handed to the caller at once */
#define SPAN_MAX 8192           /* spans pending at most (then flushed) */
#define PEND_WARP_WORDS 16      /* warps with spans pending, a bit each (modulo 1024) */

/* The units of [a + o st, a + o st + len) for the iterations lo <= o < hi. */
typedef struct {
  uint64_t a, last;             /* last: the unit referenced last for it (at first, the one the
                                   instruction itself read, the lowest its lanes moving down) */
  int64_t st;
  uint32_t lo, hi, len;
  uint32_t link;                /* the next span in its bucket (cgp_spans_flush) */
  uint32_t tag;                 /* its units' (cgp_l2_refs) */
} span;

typedef struct {
  uint32_t head, tail;          /* UINT32_MAX: empty */
} bucket;

struct cgp_spans {
  uint64_t ub;                  /* L2 unit bytes */
  unsigned ushift;              /* log2 ub where ub is a power of two, else 64 */
  span *sp;
  size_t n;
  uint64_t pend_warp[PEND_WARP_WORDS];
  bucket *bucket;               /* per iteration, the spans reaching a new unit there */
  uint32_t nbucket;
  uint32_t *order;              /* one iteration's spans, in the order they were added */
  uint8_t *cls;                 /* per span, its schedule (flush_by_schedule) */
  uint64_t by_schedule;         /* flushes made by schedule */
  uint64_t out[SPAN_UNITS];
  uint32_t out_tag[SPAN_UNITS];
  unsigned nout;
};

cgp_spans *cgp_spans_new(unsigned unit_bytes) {
  cgp_spans *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->ub = unit_bytes ? unit_bytes : 1;
  s->ushift = 64;
  for (unsigned b = 0; b < 64; b++)
    if (s->ub == UINT64_C(1) << b) s->ushift = b;
  s->sp = malloc(SPAN_MAX * sizeof *s->sp);
  s->order = malloc(SPAN_MAX * sizeof *s->order);
  s->cls = malloc(SPAN_MAX);
  if (!s->sp || !s->order || !s->cls) {
    cgp_spans_free(s);
    return NULL;
  }
  return s;
}

void cgp_spans_free(cgp_spans *s) {
  if (!s) return;
  free(s->sp);
  free(s->order);
  free(s->cls);
  free(s->bucket);
  free(s);
}

int cgp_spans_pending(const cgp_spans *s, unsigned warp) {
  return s->n && (s->pend_warp[warp / 64 % PEND_WARP_WORDS] >> (warp % 64)) & 1;
}

/* Units go to the caller SPAN_UNITS at a time, each with its tag. */
static void out_flush(cgp_spans *s, cgp_l2_refs ref, void *ctx) {
  if (s->nout) ref(ctx, s->out, s->out_tag, s->nout);
  s->nout = 0;
}

static void out_push(cgp_spans *s, uint64_t unit, uint32_t tag, cgp_l2_refs ref, void *ctx) {
  if (s->nout == SPAN_UNITS) out_flush(s, ref, ctx);
  s->out_tag[s->nout] = tag;
  s->out[s->nout++] = unit;
}

/* The first iteration after o at which span p's bytes reach a unit they did not touch at o
   (u0 .. u1: the units at o, x its first byte); UINT32_MAX if none (stride 0). */
static uint32_t next_change(const span *p, uint32_t o, uint64_t x, uint64_t u0, uint64_t u1, uint64_t ub) {
  if (p->st == 0) return UINT32_MAX;
  uint64_t mag = p->st < 0 ? -(uint64_t)p->st : (uint64_t)p->st;
  if (mag >= ub) return o + 1;
  uint64_t rem = p->st > 0 ? (u1 + 1) * ub - (x + p->len - 1) : x - u0 * ub + 1;   /* bytes to the next unit */
  uint64_t k = (mag & (mag - 1)) == 0 ? (rem + mag - 1) >> __builtin_ctzll(mag)   /* no division */
                                      : (rem + mag - 1) / mag;
  return k < UINT32_MAX - o ? o + (uint32_t)k : UINT32_MAX;
}

/* The units u0 .. u1 of a span but `skip`, each with `tag`. */
static void units_of(cgp_spans *s, uint64_t u0, uint64_t u1, uint64_t skip, uint32_t tag, cgp_l2_refs ref, void *ctx) {
  for (uint64_t u = u0; u <= u1 && u - u0 < 8; u++)   /* at most 8 units a lane, as cgp_lines */
    if (u != skip) out_push(s, u, tag, ref, ctx);
}

/* Span i waits for iteration o, after those already waiting for it. */
static void wait_for(cgp_spans *s, uint32_t o, uint32_t i) {
  s->sp[i].link = UINT32_MAX;
  if (s->bucket[o].head == UINT32_MAX) s->bucket[o].head = i;
  else s->sp[s->bucket[o].tail].link = i;
  s->bucket[o].tail = i;
}

/* Span i at iteration o, where it reaches units it did not touch the iteration before: those,
   once each (the iterations it stays in them are its instruction's own, in the cache analysis:
   a re-read hits or misses as the window's did); then it waits for the next such iteration. */
static uint32_t visit_at(cgp_spans *s, uint32_t i, uint32_t o, cgp_l2_refs ref, void *ctx) {
  span *p = &s->sp[i];
  uint64_t x = p->a + (uint64_t)p->st * o, u0, u1;
  if (s->ushift < 64) {                          /* the divisions below, as shifts */
    u0 = x >> s->ushift;
    u1 = (x + p->len - 1) >> s->ushift;
  } else {
    u0 = x / s->ub;
    u1 = (x + p->len - 1) / s->ub;
  }
  units_of(s, u0, u1, p->last, p->tag, ref, ctx);
  p->last = p->st < 0 ? u0 : u1;
  uint32_t n = next_change(p, o, x, u0, u1, s->ub);
  return n < p->hi ? n : UINT32_MAX;
}

static void visit(cgp_spans *s, uint32_t i, uint32_t o, cgp_l2_refs ref, void *ctx) {
  uint32_t n = visit_at(s, i, o, ref, ctx);
  if (n != UINT32_MAX) wait_for(s, n, i);
}

static int by_index(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Each span's units at its last iteration, referenced again at the end, in the order the spans
   were added: the loop's last iterations touch them all, so they are as recent as its last
   iteration made them (a span on one element, stride 0, reads it every iteration; a row walk
   reads its last unit until the loop ends), not as when the span first reached them. */
static void again_last(cgp_spans *s, cgp_l2_refs ref, void *ctx) {
  for (size_t i = 0; i < s->n; i++) {
    const span *p = &s->sp[i];
    if (p->hi <= p->lo) continue;
    uint64_t x = p->a + (uint64_t)p->st * (p->hi - 1);
    units_of(s, x / s->ub, (x + p->len - 1) / s->ub, UINT64_MAX, CGP_REF_AGAIN, ref, ctx);
  }
}

/* The units left go out; nothing pends. */
static void end_flush(cgp_spans *s, cgp_l2_refs ref, void *ctx) {
  out_flush(s, ref, ctx);
  s->n = 0;
  memset(s->pend_warp, 0, sizeof s->pend_warp);
}

/* ---- the same order, by schedule --------------------------------------------------------------

   The iterations at which a span reaches units it did not touch follow from its stride, its first
   and last iteration and, for a stride below a unit, where its bytes sit in a unit (with a unit
   of a power of two bytes, the same modulo 2^64 as the addresses): spans alike in those are
   visited at the same iterations, each time in the order they were added. So with few such
   schedules (a batch's row walks: every lane's span on one stride, the coalesced vector's on
   another phase) the spans can be visited schedule by schedule, in index order, merging the
   schedules that meet at an iteration, without the per-iteration buckets; the order of the visits,
   hence every unit and tag handed out, is the buckets' (test
   `spans::by_schedule_and_by_bucket_alike`). */

#define SPAN_SCHEDULES 8        /* schedules followed at once; more: the buckets */

typedef struct {
  int64_t st;
  uint32_t lo, hi;
  uint64_t phase;
  uint32_t first, count;        /* its spans in s->order */
  uint32_t next;                /* the next iteration it is visited at; UINT32_MAX: none */
} schedule;

static schedule schedule_of(const cgp_spans *s, const span *p) {
  uint64_t mag = p->st < 0 ? -(uint64_t)p->st : (uint64_t)p->st, phase = 0;
  if (p->st != 0 && mag < s->ub) phase = (p->st > 0 ? p->a + p->len - 1 : p->a) & (s->ub - 1);
  return (schedule){.st = p->st, .lo = p->lo, .hi = p->hi, .phase = phase};
}

/* 0 if the spans have too many schedules (or the unit is not a power of two): nothing done. */
static int flush_by_schedule(cgp_spans *s, cgp_l2_refs ref, void *ctx) {
  if (s->ushift == 64) return 0;
  schedule sc[SPAN_SCHEDULES];
  unsigned k = 0;
  for (size_t i = 0; i < s->n; i++) {
    schedule x = schedule_of(s, &s->sp[i]);
    unsigned c = 0;
    while (c < k && !(sc[c].st == x.st && sc[c].lo == x.lo && sc[c].hi == x.hi && sc[c].phase == x.phase)) c++;
    if (c == k) {
      if (k == SPAN_SCHEDULES) return 0;
      sc[k++] = x;
    }
    s->cls[i] = (uint8_t)c;
    sc[c].count++;
  }
  uint32_t at[SPAN_SCHEDULES], sum = 0;
  for (unsigned c = 0; c < k; c++) {
    sc[c].first = at[c] = sum;
    sum += sc[c].count;
    sc[c].next = sc[c].lo >= 1 ? sc[c].lo : UINT32_MAX;   /* the buckets never visit iteration 0 */
  }
  for (size_t i = 0; i < s->n; i++) s->order[at[s->cls[i]]++] = (uint32_t)i;
  for (;;) {
    uint32_t o = UINT32_MAX;
    for (unsigned c = 0; c < k; c++)
      if (sc[c].next < o) o = sc[c].next;
    if (o == UINT32_MAX) break;
    unsigned due[SPAN_SCHEDULES], nd = 0;
    uint32_t pos[SPAN_SCHEDULES], n[SPAN_SCHEDULES];
    for (unsigned c = 0; c < k; c++)
      if (sc[c].next == o) {
        pos[nd] = 0;
        n[nd] = UINT32_MAX;
        due[nd++] = c;
      }
    if (nd == 1) {                              /* one schedule: its spans in a row */
      for (uint32_t j = 0; j < sc[due[0]].count; j++) n[0] = visit_at(s, s->order[sc[due[0]].first + j], o, ref, ctx);
    } else {
      for (;;) {                                /* several: their spans merged by index */
        unsigned best = nd;
        uint32_t bi = UINT32_MAX;
        for (unsigned d = 0; d < nd; d++)
          if (pos[d] < sc[due[d]].count && s->order[sc[due[d]].first + pos[d]] < bi) {
            bi = s->order[sc[due[d]].first + pos[d]];
            best = d;
          }
        if (best == nd) break;
        pos[best]++;
        n[best] = visit_at(s, bi, o, ref, ctx);
      }
    }
    for (unsigned d = 0; d < nd; d++) sc[due[d]].next = n[d];
  }
  again_last(s, ref, ctx);
  end_flush(s, ref, ctx);
  s->by_schedule++;
  return 1;
}

uint64_t cgp_spans_by_schedule(const cgp_spans *s) { return s->by_schedule; }

void cgp_spans_flush(cgp_spans *s, cgp_l2_refs ref, void *ctx) {
  if (!s->n || flush_by_schedule(s, ref, ctx)) return;
  cgp_spans_flush_reference(s, ref, ctx);
}

/* Iteration by iteration, each span reaching new units there (visit), in the order the
   spans were added (the program's: a load before the store to its address); spans that moved on
   together stay in order, so the sort is needed only where strides differ. */
void cgp_spans_flush_reference(cgp_spans *s, cgp_l2_refs ref, void *ctx) {
  if (!s->n) return;
  uint32_t end = 0;
  for (size_t i = 0; i < s->n; i++)
    if (s->sp[i].hi > end) end = s->sp[i].hi;
  if (end >= s->nbucket) {
    bucket *b = realloc(s->bucket, ((size_t)end + 1) * sizeof *b);
    if (!b) end = 0;                                /* no memory: not referenced */
    else {
      s->bucket = b;
      s->nbucket = end + 1;
    }
  }
  if (end) memset(s->bucket, 0xff, ((size_t)end + 1) * sizeof *s->bucket);   /* every bucket empty */
  for (size_t i = 0; end && i < s->n; i++) wait_for(s, s->sp[i].lo, (uint32_t)i);
  for (uint32_t o = 1; o < end; o++) {
    size_t k = 0;
    int sorted = 1;
    for (uint32_t i = s->bucket[o].head; i != UINT32_MAX; i = s->sp[i].link) {
      sorted &= !k || i > s->order[k - 1];
      s->order[k++] = i;
    }
    if (!sorted) qsort(s->order, k, sizeof *s->order, by_index);
    for (size_t j = 0; j < k; j++) visit(s, s->order[j], o, ref, ctx);
  }
  if (end) again_last(s, ref, ctx);               /* none without memory for the buckets */
  end_flush(s, ref, ctx);
}

void cgp_spans_add(cgp_spans *s, const cgp_warp_mem *m, uint32_t tag, cgp_l2_refs ref, void *ctx) {
  const cgp_span *sp = m->span;
  if (!sp || !m->nact) return;
  uint64_t size = m->size ? m->size : 1, lo = m->addr[0], hi = m->addr[0];
  int one = m->affine && m->nact > 1;               /* the warp's lanes as one span (coalesced) */
  for (unsigned l = 0; l < m->nact && one; l++) {
    one = sp[l].stride == sp[0].stride && sp[l].lo == sp[0].lo && sp[l].hi == sp[0].hi;
    if (m->addr[l] < lo) lo = m->addr[l];
    if (m->addr[l] > hi) hi = m->addr[l];
  }
  one = one && hi - lo + size <= 4 * s->ub;
  for (unsigned l = 0; l < (one ? 1u : m->nact); l++) {
    if (sp[l].hi <= sp[l].lo) continue;
    if (s->n == SPAN_MAX) cgp_spans_flush(s, ref, ctx);
    span *p = &s->sp[s->n++];
    *p = (span){.a = one ? lo : m->addr[l], .st = sp[l].stride, .lo = sp[l].lo, .hi = sp[l].hi,
                .len = (uint32_t)(one ? hi - lo + size : size), .tag = tag};
    p->last = (p->st < 0 ? p->a : p->a + p->len - 1) / s->ub;   /* what the instruction itself read */
  }
  s->pend_warp[m->warp / 64 % PEND_WARP_WORDS] |= UINT64_C(1) << (m->warp % 64);
}

/* ---- the lines the grid shares ----------------------------------------------------------------- */

#define SHARED_CAP (1u << 13)   /* units a window's references are followed for (half of it) */
#define SHARED_CAP0 (1u << 8)   /* a set's first size: it doubles up to SHARED_CAP as units come */

/* The L2 units one window referenced: an open-addressing set; an entry is in it when its gen is
   the set's (a new window costs no clearing). */
typedef struct {
  uint64_t unit;
  uint32_t gen;
  uint32_t col;                 /* the column of blocks (x) that referenced it first */
  uint32_t win;                 /* in cgp_shared's col: the window that read it first */
  uint8_t again;                /* the window before referenced it too (in col: a later window) */
  uint8_t cols;                 /* 1: blocks of one column referenced it; 2: of several */
} seen;

typedef struct {
  seen *e;                      /* cap slots */
  size_t cap;
  uint32_t *order;              /* the slots of its n entries, in the order they came (the order
                                   they are referenced again in: the same in every run, whatever
                                   addresses the program's arrays have) */
  uint32_t gen;
  size_t n;
  uint64_t first, last;         /* its lowest and highest block (cgp_grid_block), UINT64_MAX / 0:
                                   none */
} seen_set;

struct cgp_shared {
  seen_set w[2];                /* w[cur]: this window's; the other: the one before */
  seen_set col;                 /* the units of one column of blocks the sweep's windows read */
  uint32_t nwin;                /* windows begun */
  int cur;
  uint64_t gap;                 /* blocks skipped since this window (cgp_shared_each) */
  uint64_t gap_before;          /* between the window before and this one */
  uint64_t row;                 /* blocks in a row of the grid: 0 while not known (this launch) */
};

/* The sweep runs a row of R blocks after another: block (x, y) is number y R + x of its layer z.
   Two windows' places and the blocks between them give R: last (x0, y0) of one, first (x1, y1 >
   y0) of the next, `gap` blocks between, so (y1 - y0) R + x1 - x0 = gap + 1; 0 when they are on
   one row or layer apart, or the numbers do not fit such a row. */
uint64_t cgp_grid_row(uint64_t last, uint64_t first, uint64_t gap) {
  uint64_t b0[3], b1[3];
  cgp_thread_unkey(3, last, b0);
  cgp_thread_unkey(3, first, b1);
  uint64_t x0 = b0[0], y0 = b0[1], x1 = b1[0], y1 = b1[1];
  if (b0[2] != b1[2] || y1 <= y0) return 0;
  int64_t d = (int64_t)gap + 1 - ((int64_t)x1 - (int64_t)x0);
  uint64_t dy = y1 - y0;
  if (d <= 0 || (uint64_t)d % dy) return 0;
  uint64_t r = (uint64_t)d / dy;
  return r > x0 && r > x1 ? r : 0;
}

cgp_shared *cgp_shared_new(void) {
  cgp_shared *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  seen_set *set[3] = {&h->w[0], &h->w[1], &h->col};
  for (int k = 0; k < 3; k++) {
    set[k]->cap = SHARED_CAP0;
    set[k]->e = calloc(SHARED_CAP0, sizeof(seen));
    set[k]->order = malloc(SHARED_CAP / 2 * sizeof(uint32_t));
    if (!set[k]->e || !set[k]->order) {
      cgp_shared_free(h);
      return NULL;
    }
    set[k]->gen = 1;
    set[k]->first = UINT64_MAX;
  }
  return h;
}

void cgp_shared_free(cgp_shared *h) {
  if (!h) return;
  seen_set *set[3] = {&h->w[0], &h->w[1], &h->col};
  for (int k = 0; k < 3; k++) {
    free(set[k]->e);
    free(set[k]->order);
  }
  free(h);
}

/* unit's entry in set w (*found), or the free slot it would take; NULL when w is half full. */
static seen *seen_find(seen_set *w, uint64_t unit, int *found) {
  size_t mask = w->cap - 1;
  for (size_t i = (size_t)((unit * CGP_FIBONACCI) >> 40) & mask;; i = (i + 1) & mask) {
    seen *x = &w->e[i];
    if (x->gen != w->gen) {
      *found = 0;
      return w->n < w->cap / 2 ? x : NULL;
    }
    if (x->unit == unit) {
      *found = 1;
      return x;
    }
  }
}

/* Set w's slots doubled, its units placed again in the order they came (seen_room). */
__attribute__((noinline)) static void seen_grow(seen_set *w) {
  seen *old = w->e, *e = calloc(2 * w->cap, sizeof *e);
  if (!e) return;
  w->e = e;
  w->cap *= 2;
  for (size_t k = 0; k < w->n; k++) {
    const seen *x = &old[w->order[k]];
    int found;
    seen *y = seen_find(w, x->unit, &found);
    *y = *x;
    w->order[k] = (uint32_t)(y - w->e);
  }
  free(old);
}

/* Room in set w for one unit more: a set at half its slots doubles them, up to SHARED_CAP. A set
   starts at SHARED_CAP0 slots: the sets are many (three for each kernel, device and what-if
   tiling), and a set of SHARED_CAP slots, its units scattered one to a page, zeroed by the system
   where first touched, made most of the page faults and a third of the CPU time of ADI at N = 16
   (2026-11-29). Short of memory a set stays as it is and is full at half its slots (seen_find's
   NULL), as it is at SHARED_CAP. Pointers into the set are stale after this. */
static inline void seen_room(seen_set *w) {
  if (w->n >= w->cap / 2 && w->cap < SHARED_CAP) seen_grow(w);
}

/* v put in set w at its free slot x (seen_find's), in arrival order. */
static seen *seen_add(seen_set *w, seen *x, seen v) {
  v.gen = w->gen;
  *x = v;
  w->order[w->n++] = (uint32_t)(x - w->e);
  return x;
}

void cgp_shared_note_units(cgp_shared *h, const uint64_t *units, unsigned n, uint64_t block) {
  seen_set *cur = &h->w[h->cur];
  if (block < cur->first) cur->first = block;
  if (block > cur->last) cur->last = block;
  uint64_t b[3];
  cgp_thread_unkey(3, block, b);
  uint32_t col = (uint32_t)b[0];
  for (unsigned i = 0; i < n; i++) {
    int found;
    seen_room(cur);
    seen *x = seen_find(cur, units[i], &found);
    if (found) {
      if (x->col != col) x->cols = 2;
      continue;
    }
    if (!x) continue;
    seen_add(cur, x, (seen){.unit = units[i], .col = col, .cols = 1});
    seen_find(&h->w[!h->cur], units[i], &found);
    x->again = (uint8_t)found;
  }
}

void cgp_shared_note(cgp_shared *h, uint64_t unit, uint64_t block) { cgp_shared_note_units(h, &unit, 1, block); }

/* Set w emptied. */
static void seen_clear(seen_set *w) {
  if (++w->gen == 0) {                            /* wrapped: clear for real */
    memset(w->e, 0, w->cap * sizeof *w->e);
    w->gen = 1;
  }
  w->n = 0;
  w->first = UINT64_MAX;
  w->last = 0;
}

void cgp_shared_begin_launch(cgp_shared *h) { seen_clear(&h->col); }

void cgp_shared_next_window(cgp_shared *h) {
  h->cur = !h->cur;
  seen_clear(&h->w[h->cur]);
  h->nwin++;
  h->gap_before = h->gap;
  h->gap = 0;
}

/* Units handed to the L2 as references again, SPAN_UNITS at a time. */
typedef struct {
  uint64_t out[SPAN_UNITS];
  uint32_t again[SPAN_UNITS];                     /* all CGP_REF_AGAIN */
  unsigned n;
  cgp_l2_refs ref;
  void *ctx;
} units_out;
_Static_assert(CGP_REF_AGAIN == 0, "again[] is all CGP_REF_AGAIN");

static void put_unit(units_out *o, uint64_t unit) {
  o->out[o->n++] = unit;
  if (o->n == SPAN_UNITS) {
    o->ref(o->ctx, o->out, o->again, o->n);
    o->n = 0;
  }
}

/* Is unit x kept across the untraced blocks: read again by the blocks between windows, and a unit
   of one column only where such a unit is kept (keep_column)? */
static int kept(const seen *x, int keep_column) { return x->again && (x->cols != 1 || keep_column); }

void cgp_shared_each(cgp_shared *h, uint64_t blocks, double lines_per_block, uint64_t capacity, cgp_l2_refs ref,
                     void *ctx) {
  const seen_set *cur = &h->w[h->cur], *before = &h->w[!h->cur];
  if (cur->n && before->n) {                      /* the row, once two windows in a row give it */
    if (cur->first < before->last) {              /* a new launch's sweep */
      h->row = 0;
      seen_clear(&h->col);
    }
    uint64_t r = cgp_grid_row(before->last, cur->first, h->gap_before);
    if (r) h->row = r;
  }
  h->gap += blocks;
  /* a unit of one column: the blocks skipped reference it only if they hold a whole row, and it
     is then a row's new lines old */
  int keep_column = !h->row || (h->gap >= h->row && (double)h->row * lines_per_block <= (double)capacity);
  int sweep = cur->n && cur->first > before->last;   /* this window and the one before: one sweep */
  units_out o = {.ref = ref, .ctx = ctx};
  for (size_t i = 0; i < cur->n; i++) {
    const seen *x = &cur->e[cur->order[i]];
    if (kept(x, keep_column)) put_unit(&o, x->unit);
    if (x->cols == 1) {                             /* a column's: another window read it too? */
      int found;
      seen_room(&h->col);
      seen *c = seen_find(&h->col, x->unit, &found);
      if (found) c->again |= c->win != h->nwin;
      else if (c) seen_add(&h->col, c, (seen){.unit = x->unit, .col = x->col, .win = h->nwin, .cols = 1});
    }
  }
  /* and the units the two windows before this one both read that this one did not: a column of
     blocks this window's place in its rows missed (rows of 20 blocks, windows of 16); within one
     sweep (another launch's data may move) */
  for (size_t i = 0; sweep && i < before->n; i++) {
    const seen *x = &before->e[before->order[i]];
    int found;
    if (!kept(x, keep_column)) continue;
    seen_find(&h->w[h->cur], x->unit, &found);
    if (!found) put_unit(&o, x->unit);
  }
  /* and every unit of one column two windows of the sweep read, where the blocks skipped hold a
     whole row: rows of 24 blocks, windows of 16, come back to a column only every other or third
     window (GEMVER's v1[j] at N = 768) */
  for (size_t i = 0; sweep && h->row && keep_column && i < h->col.n; i++) {
    const seen *c = &h->col.e[h->col.order[i]];
    if (!c->again) continue;
    uint64_t u = c->unit;
    int in_cur, in_before;
    const seen *x = seen_find(&h->w[h->cur], u, &in_cur), *y = seen_find(&h->w[!h->cur], u, &in_before);
    if (in_cur ? !kept(x, keep_column) : !(in_before && kept(y, keep_column))) put_unit(&o, u);
  }
  if (o.n) ref(ctx, o.out, o.again, o.n);
}
