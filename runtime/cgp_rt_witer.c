/* cgp_rt_witer.c: issuing a warp's events in program order, lanes at one point together
   (cgp_rt_witer.h, over a warp laid out as cgp_rt_wwarp.h says). */
#include "cgp_rt_witer.h"
#include "cgp_rt_wwarp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- issuing a warp's events in order ---------------------------------------------------------- */

/* The lane numbers of a warp whose every lane takes part, in order (copied whole into an event). */
static const uint8_t every_lane[RT_WARP] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                            16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

typedef struct {
  uint32_t run, i;
} cursor;

/* What take needs of a run started, in one place, not read again from its segments at each
   element (a warp's 32 segments of 24 bytes each, cold by the time its next element comes: a
   batch's warps take turns; DOITGEN at STANDARD, take 7.8 % of the run, a third of it these
   reads). */
typedef struct {
  uint64_t a0, d, stride;    /* rigid: segment k's address at element i is a0 + k d + i stride */
  uint8_t moving;            /* 1 if none of its lanes has stride 0 */
  uint8_t still;             /* 1 if every lane has stride 0 (element_skipped) */
  uint8_t rigid;             /* 1 if its lanes' first addresses are on one stride and their strides
                                are one, so that every element's addresses are on one stride */
} run_info;

struct rt_witer {
  const rt_shape *s;
  const rt_wwarp *w;
  cursor *heap;              /* the runs under way, n of them from q0; runs start in first-key
                                order (next_run) */
  size_t n, q0, next_run;
  size_t cap;                /* of heap and hold */
  int reference;             /* heap[] is a binary heap (rt_witer_new_reference), else sorted */
  cursor *hold;
  run_info *info;            /* per run started (take) */
};

/* Program order of two (run, element) points: positions level by level, iterations between. */
int rt_wrun_cmp_points(const rt_shape *s, const rt_wrun *x, uint32_t ai, const rt_wrun *y, uint32_t bi) {
  cursor a = {0, ai}, b = {0, bi};
  unsigned mx = s->depth[x->ev], my = s->depth[y->ev], m = mx < my ? mx : my;
  for (unsigned j = 0;; j++) {
    uint32_t px = s->pos[x->ev][j], py = s->pos[y->ev][j];
    if (px != py) return px < py ? -1 : 1;
    if (j == m) break;
    uint32_t tx = x->t[j] + (j + 1 == mx ? a.i : 0), ty = y->t[j] + (j + 1 == my ? b.i : 0);
    if (tx != ty) return tx < ty ? -1 : 1;
  }
  return mx == my ? 0 : mx < my ? -1 : 1;
}

static int cmp_key(const rt_witer *it, cursor a, cursor b) {
  return rt_wrun_cmp_points(it->s, &it->w->run[a.run], a.i, &it->w->run[b.run], b.i);
}

/* The order the runs under way leave in: program order, then run (one cursor a run at a time),
   so both queues below pop the same sequence, even where two runs' lanes meet at one point. */
static int before(const rt_witer *it, cursor a, cursor b) {
  int c = cmp_key(it, a, b);
  return c < 0 || (c == 0 && a.run < b.run);
}

/* The reference queue: a binary heap. */
static void sift_down(rt_witer *it, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < it->n && before(it, it->heap[l], it->heap[m])) m = l;
    if (r < it->n && before(it, it->heap[r], it->heap[m])) m = r;
    if (m == i) return;
    cursor c = it->heap[i]; it->heap[i] = it->heap[m]; it->heap[m] = c;
    i = m;
  }
}

static void heap_push(rt_witer *it, cursor c) {
  size_t i = it->n++;
  it->heap[i] = c;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!before(it, it->heap[i], it->heap[p])) break;
    cursor t = it->heap[i]; it->heap[i] = it->heap[p]; it->heap[p] = t;
    i = p;
  }
}

/* The fast queue: sorted, from heap[q0]. A loop's next element goes after every run of the
   iteration under way, so a push is mostly one comparison with the last and a pop none (the
   heap compared about five times an event: GEMM full, 8 % of the CPU); a run that starts
   mid-queue is placed by binary search. At most one cursor a run: n <= nrun, heap's size. */
static void sorted_push(rt_witer *it, cursor c) {
  if (it->q0 + it->n == it->w->nrun) {
    memmove(it->heap, it->heap + it->q0, it->n * sizeof *it->heap);
    it->q0 = 0;
  }
  cursor *q = it->heap + it->q0;
  size_t at = it->n;                            /* after the last, or before the first element
                                                   c goes before (found in [lo, at - 1]) */
  if (at && before(it, c, q[at - 1])) {
    size_t lo = 0, hi = at - 1;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (before(it, c, q[mid])) hi = mid; else lo = mid + 1;
    }
    at = lo;
    memmove(q + at + 1, q + at, (it->n - at) * sizeof *q);
  }
  q[at] = c;
  it->n++;
}

static void push(rt_witer *it, cursor c) {
  if (it->reference) heap_push(it, c);
  else sorted_push(it, c);
}

static cursor front(const rt_witer *it) { return it->heap[it->q0]; }

static cursor pop(rt_witer *it) {
  cursor c = it->heap[it->q0];
  if (it->reference) {
    it->heap[0] = it->heap[--it->n];
    sift_down(it, 0);
  } else {
    it->q0++;
    it->n--;
  }
  return c;
}

/* Up to PREFETCH_MAX bytes from p, a host cache line at a time. */
#define PREFETCH_MAX 4096
static void prefetch_bytes(const void *p, size_t n) {
  const char *c = p;
  if (n > PREFETCH_MAX) n = PREFETCH_MAX;
  for (size_t b = 0; b < n; b += 64) __builtin_prefetch(c + b);
}

/* The queue's room: at least need (every run of the warp once), and at most about four times
   it, so that an iterator reused after a large warp does not keep that warp's room (the
   iterators of every batch index would otherwise keep the largest warp each ever walked). */
static int queue_room(rt_witer *it, size_t need) {
  if (need <= it->cap && it->cap <= 4 * need + 256) return 1;
  if (!need) {
    free(it->heap);
    free(it->hold);
    free(it->info);
    it->heap = it->hold = NULL;
    it->info = NULL;
    it->cap = 0;
    return 1;
  }
  cursor *heap = realloc(it->heap, need * sizeof *heap);
  if (!heap) return need <= it->cap;            /* a failed shrink keeps the larger room */
  it->heap = heap;
  cursor *hold = realloc(it->hold, need * sizeof *hold);
  if (!hold) {                                  /* cap: the smaller of the two */
    if (need < it->cap) it->cap = need;
    return need <= it->cap;
  }
  it->hold = hold;
  run_info *info = realloc(it->info, need * sizeof *info);
  if (!info) {
    if (need < it->cap) it->cap = need;
    return need <= it->cap;
  }
  it->info = info;
  it->cap = need;
  return 1;
}

int rt_witer_reset(rt_witer *it, const rt_wwarp *w) {
  it->w = w;
  it->n = it->q0 = it->next_run = 0;
  /* A batch's iterators are set together, then walked round robin: warps built long before
     (their window waited for a band of blocks), so their first runs and lanes are fetched now. */
  prefetch_bytes(w->run, w->nrun * sizeof *w->run);
  if (w->linear) {
    prefetch_bytes(w->addr, w->nseg * sizeof *w->addr);
    return queue_room(it, 0);                   /* next_linear needs no queue */
  }
  prefetch_bytes(w->seg, w->nseg * sizeof *w->seg);
  return queue_room(it, w->nrun);
}

rt_witer *rt_witer_new(const rt_shape *s, const rt_wwarp *w) {
  rt_witer *it = calloc(1, sizeof *it);
  if (!it) return NULL;
  it->s = s;
  if (w && !rt_witer_reset(it, w)) { rt_witer_free(it); return NULL; }
  return it;
}

rt_witer *rt_witer_new_reference(const rt_shape *s, const rt_wwarp *w) {
  rt_witer *it = rt_witer_new(s, w);
  if (it) it->reference = 1;
  return it;
}

void rt_witer_free(rt_witer *it) {
  if (!it) return;
  free(it->heap);
  free(it->hold);
  free(it->info);
  free(it);
}

/* The iterations skipped after the window of element i of run r, which its element stands for:
   `skipped` times the window's iterations that carry them (rt_iter_spread); 0 outside a loop. */
static double skipped_after(const rt_shape *s, const rt_wrun *r, uint32_t i) {
  unsigned m = s->depth[r->ev];
  return m ? rt_iter_spread(r->t[m - 1], r->t[m - 1] + i) * (double)r->skipped : 0;
}

/* The iterations skipped after the window element i of run r ends, as offsets from its own
   (cgp_span's lo, hi): the window is [t0, t0 + W) (cgp_rt_lanes.h's schedule: the first
   RT_ITER_FIRST iterations, then RT_ITER_WINDOW of every RT_ITER_PERIOD), its elements stand for
   s = skipped iterations each, S = s W in all (s (W - 1) for a run of the first window from its
   iteration 1, rt_iter_spread), and those come after its last element: they are
   given there (1 .. S), in their order, after the window's own, none before it ends (they would
   evict what the window's later iterations read, as the GPU's did not yet), and only by a run that
   holds half the window or more: its stride held that long (a run from the window's second
   iteration: the first one's load was not yet held in a register). 0 for other elements. */
static int span_of(const rt_shape *s, const rt_wrun *r, uint32_t i, uint32_t *lo, uint32_t *hi) {
  unsigned m = s->depth[r->ev];
  if (m == 0 || !(r->skipped > 0)) return 0;
  uint32_t t = r->t[m - 1] + i, u = t % RT_ITER_PERIOD, W = rt_iter_window(t);
  if (u + 1 != W || 2 * (i + 1) < W) return 0;   /* not the window's last, or its run holds less
                                                       than half the window: no stride to carry on */
  *lo = 1;
  double after = skipped_after(s, r, i);
  if (r->lane_w > 0) after *= (r->lane_w / r->nseg - 1) / r->skipped;   /* lanes of different counts:
                                                                          each the mean, as many in all */
  *hi = 1 + (uint32_t)(after + 0.5);
  return *hi > *lo;
}

/* 1 if the skipped iterations element i of run r stands for are given by spans: every lane of the
   run reaches the last element of i's window, which carries them (span_of); and moves, which
   take checks as it copies the lanes (a lane on one element, stride 0, reads it every iteration:
   the window's hits and misses are those of the iterations it stands for). */
static int spanned(const rt_shape *s, const rt_wrun *r, uint32_t i) {
  unsigned m = s->depth[r->ev];
  if (m == 0 || !(r->skipped > 0)) return 0;
  uint32_t t = r->t[m - 1] + i, u = t % RT_ITER_PERIOD, W = rt_iter_window(t), lo, hi;
  if (u >= W) return 0;
  uint32_t last = i + (W - 1 - u);
  return last < r->mincount && span_of(s, r, last, &lo, &hi);
}

/* The executions element i of run r stands for in skipped iterations. A run on one element a lane
   (every lane's stride 0: a value reloaded every iteration, `tmp[i] +=` through memory) from
   iteration 0 of its entry's first window: its first element, the load that finds the element
   cold, stands for itself, and its others for the window's skipped iterations, as a run from
   iteration 1 does (weigh_window spread them over all its elements, as a moving run's phase
   needs; a still run's re-reads are what the skipped iterations repeat) [rule; found at N = 200,
   GESUMMV on the H100: the first load's L1 miss counted 1 + 136 / 64 times, +2.6 % against
   `full`]. The sum over the run is the same. */
static float element_skipped(const rt_shape *s, const rt_wrun *r, int still, uint32_t i) {
  unsigned m = s->depth[r->ev];
  if (!(r->skipped > 0) || m == 0 || r->t[m - 1] != 0 || r->ev >= s->nmem || r->lane_w > 0 || r->mincount < 2 ||
      r->maxcount != r->mincount || i >= r->mincount || !still)
    return r->skipped;
  return i == 0 ? 0 : r->skipped * (float)r->mincount / (float)(r->mincount - 1);
}

/* 1 if element i of run r is iteration 0 of its leaf loop's entry: its lanes read nothing one
   stride back. */
static int entry_first(const rt_shape *s, const rt_wrun *r, uint32_t i) {
  unsigned m = s->depth[r->ev];
  return m > 0 && r->t[m - 1] + i == 0;
}

/* Lanes of run element c: 0 if one of them is already in ev (then c waits for the next event). */
static int take(const rt_witer *it, cursor c, rt_wevent *ev, uint32_t *present) {
  const rt_wrun *r = &it->w->run[c.run];
  const rt_seg *sg = &it->w->seg[r->seg0];
  uint32_t mask = 0;
  if (c.i < r->mincount) {
    mask = r->lanes;                            /* every lane of the run: the common case */
  } else {
    for (uint32_t k = 0; k < r->nseg; k++)
      if (sg[k].count > c.i) mask |= UINT32_C(1) << sg[k].lane;
  }
  if (mask & *present) return 0;
  *present |= mask;
  double n = __builtin_popcount(mask);          /* its lanes' weights: a share of the sum where they
                                                    differ and not all of them take part */
  const run_info *ri = &it->info[c.run];
  float sk = element_skipped(it->s, r, ri->still, c.i);
  ev->lanes_w += r->lane_w > 0 ? (c.i < r->mincount ? r->lane_w : r->lane_w / r->nseg * n) : n * (1.0 + sk);
  if (sk > ev->skipped) ev->skipped = sk;
  if (r->skipped > 0) {
    float after = (float)skipped_after(it->s, r, c.i);
    if (after > ev->skipped_after) ev->skipped_after = after;
  }
  uint32_t lo = 0, hi = 0;
  if (span_of(it->s, r, c.i, &lo, &hi)) ev->has_span = 1;
  if (ev->spanned) ev->spanned = spanned(it->s, r, c.i);
  if (ev->first) ev->first = entry_first(it->s, r, c.i);
  uint64_t still = 1;                           /* no lane's stride is 0 while it stays 1 */
  if (ev->nact == 0 && c.i < r->mincount) {     /* first contribution, lanes in order: append */
    if (r->nseg == RT_WARP) {                   /* every lane: lane k is segment k */
      memcpy(ev->lane, every_lane, sizeof every_lane);
    } else {
      for (uint32_t k = 0; k < r->nseg; k++) ev->lane[k] = (uint8_t)sg[k].lane;
    }
    uint32_t nseg = r->nseg;                    /* in locals: the stores below may alias r */
    uint64_t i = c.i;
    if (ri->rigid && !it->reference) {          /* segment k's address: the first's plus k steps,
                                                   every stride one: no segment read (the
                                                   reference reads each, rt_witer_new_reference) */
      uint64_t stride = ri->stride, a = ri->a0 + i * stride, d = ri->d;
      cgp_span sp = {(int64_t)stride, lo, hi};
      for (uint32_t k = 0; k < nseg; k++, a += d) ev->addr[k] = a;
      for (uint32_t k = 0; k < nseg; k++) ev->span[k] = sp;
    } else {
      for (uint32_t k = 0; k < nseg; k++) {
        uint64_t stride = sg[k].stride;
        ev->addr[k] = sg[k].a0 + i * stride;
        ev->span[k] = (cgp_span){(int64_t)stride, lo, hi};
      }
    }
    ev->nact = nseg;
    ev->spanned &= ri->moving;
    ev->affine = ri->rigid ? 1 : -1;     /* the event's only run so far */
    return 1;
  }
  ev->affine = -1;                              /* lanes of several runs */
  for (uint32_t k = 0; k < r->nseg; k++) {
    if (sg[k].count <= c.i) continue;
    still &= sg[k].stride != 0;
    unsigned j = ev->nact++;                    /* insertion by lane: lanes in lane order */
    while (j > 0 && ev->lane[j - 1] > sg[k].lane) {
      ev->lane[j] = ev->lane[j - 1];
      ev->addr[j] = ev->addr[j - 1];
      ev->span[j] = ev->span[j - 1];
      j--;
    }
    ev->lane[j] = (uint8_t)sg[k].lane;
    ev->addr[j] = sg[k].a0 + (uint64_t)c.i * sg[k].stride;
    ev->span[j] = (cgp_span){(int64_t)sg[k].stride, lo, hi};
  }
  ev->spanned &= (int)still;
  return 1;
}

/* Start the runs whose first element comes no later than every run under way: runs are sorted by
   first key (rt_wwarp_build), so the queue holds only the runs of the current loop iterations. */
static void start_runs(rt_witer *it) {
  while (it->next_run < it->w->nrun &&
         (!it->n || cmp_key(it, (cursor){(uint32_t)it->next_run, 0}, front(it)) <= 0)) {
    const rt_wrun *r = &it->w->run[it->next_run];
    const rt_seg *sg = &it->w->seg[r->seg0];
    uint8_t moving = 1, still = 1, rigid = r->nseg >= 2;   /* take's, for elements every lane reaches */
    for (uint32_t k = 0; k < r->nseg; k++) {
      moving &= sg[k].stride != 0;
      still &= sg[k].stride == 0;
      if (k >= 2) rigid &= sg[k].a0 - sg[k - 1].a0 == sg[1].a0 - sg[0].a0;
      if (k >= 1) rigid &= sg[k].stride == sg[0].stride;
    }
    it->info[it->next_run] = (run_info){sg[0].a0, r->nseg >= 2 ? sg[1].a0 - sg[0].a0 : 0, sg[0].stride, moving,
                                        still, rigid};
    push(it, (cursor){(uint32_t)it->next_run++, 0});
    if (it->next_run < it->w->nrun) {           /* the next run's lanes: read soon, likely cold
                                                    (2DCONV 4096 full: 10 % less CPU) */
      const rt_wrun *nr = &it->w->run[it->next_run];
      prefetch_bytes(&it->w->seg[nr->seg0], nr->nseg * sizeof *it->w->seg);
    }
  }
}

/* Event e as rt_wevent names it: a site, or a block. */
static void event_of(const rt_witer *it, uint32_t e, rt_wevent *ev) {
  ev->is_mem = e < it->s->nmem;
  ev->id = ev->is_mem ? e : (uint32_t)(e - it->s->nmem);
}

/* A linear warp's next event: run next_run, all its lanes (in lane order: a group's segments are). */
static int next_linear(rt_witer *it, rt_wevent *ev) {
  const rt_wwarp *w = it->w;
  if (it->next_run >= w->nrun) return 0;
  const rt_wrun *r = &w->run[it->next_run++];
  const uint64_t *a = &w->addr[r->seg0];
  if (it->next_run < w->nrun) {                 /* likely cold: the next run's addresses (they
                                                    follow this run's; at most RT_WARP of them), and
                                                    the run after it */
    prefetch_bytes(&a[r->nseg], RT_WARP * sizeof *a);
    __builtin_prefetch(&w->run[it->next_run + 1]);
  }
  event_of(it, r->ev, ev);
  ev->skipped = r->skipped;
  ev->lanes_w = r->lane_w > 0 ? r->lane_w : r->nseg * (1.0 + r->skipped);
  ev->skipped_after = 0;
  ev->has_span = ev->spanned = ev->first = 0;   /* no loop: no iterations skipped */
  ev->affine = -1;
  ev->nact = r->nseg;
  if (r->lanes == UINT32_MAX) {                 /* every lane: two block copies */
    memcpy(ev->lane, every_lane, sizeof every_lane);
    memcpy(ev->addr, a, RT_WARP * sizeof *a);
    return 1;
  }
  uint32_t k = 0;
  for (uint32_t m = r->lanes; m; m &= m - 1, k++) {
    ev->lane[k] = (uint8_t)__builtin_ctz(m);
    ev->addr[k] = a[k];
  }
  return 1;
}

int rt_witer_next(rt_witer *it, rt_wevent *ev) {
  if (it->w->linear) return next_linear(it, ev);
  start_runs(it);
  if (!it->n) return 0;
  size_t nhold = 0;
  uint32_t present = 0;
  cursor first = pop(it);
  const rt_wrun *r = &it->w->run[first.run];
  event_of(it, r->ev, ev);
  ev->nact = 0;
  ev->skipped = ev->skipped_after = 0;
  ev->lanes_w = 0;
  ev->has_span = 0;
  ev->spanned = 1;                              /* until a run's element is not */
  ev->first = 1;                                /* likewise */
  take(it, first, ev, &present);
  if (first.i + 1 < r->maxcount) it->hold[nhold++] = (cursor){first.run, first.i + 1};
  start_runs(it);                            /* runs starting at this very point join it */
  while (it->n && cmp_key(it, front(it), first) == 0) {
    cursor c = pop(it);
    if (take(it, c, ev, &present)) {
      if (c.i + 1 < it->w->run[c.run].maxcount) it->hold[nhold++] = (cursor){c.run, c.i + 1};
    } else {
      it->hold[nhold++] = c;
    }
  }
  for (size_t i = 0; i < nhold; i++) push(it, it->hold[i]);
  return 1;
}

