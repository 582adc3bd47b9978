/* cgp_rt_wbytes.c: a warp as bytes, the trace file's form of it (cgp_rt_wbytes.h), and back.

   A warp: u32 threads (| KEYS_CONSECUTIVE: the mask's lanes' keys are the first's plus the lane's
   distance from it, and only the first is written), u32 key mask, a u64 thread key per lane in
   the mask, u32 runs, u32
   segments, each run (u32 event, u32 segments | RUN_AFFINE | RUN_LANES_DIFFER | RUN_RIGID |
   RUN_STAMPS, f32 skipped),
   then each run's segments in run order, after its loop stamps (u32 t[RT_MAXD - 1], where
   RUN_STAMPS says one is not 0; absent, all are 0: a straight-line body's runs and those that
   start at a leaf loop's iteration 0, nearly all of them; they took 28 bytes a run, JACOBI2D's
   trace 8.6 MB) and an f32, its lanes' weights summed (rt_wrun's
   lane_w), where RUN_LANES_DIFFER says they differ: 21 bytes each (u8 lane, u32 count, u64 a0,
   u64 stride), or, for a run marked RUN_AFFINE (every segment one element, its lanes' addresses a0 + (lane -
   first lane) d: a stencil's or a coalesced warp instruction), 20 bytes for all of them (u32
   lanes, u64 a0, i64 d): a straight-line warp's events take 20 bytes instead of 21 a lane; or,
   for a run marked RUN_RIGID (two segments or more, every one of count c and stride s, its lanes'
   first addresses a0 + (lane - first lane) d: a loop's coalesced or constant load, every lane
   stepping alike), 32 bytes for all of them (u32 lanes, u32 c, u64 a0, i64 d, i64 s): DOITGEN's
   warps, four such runs of 64 iterations each, took 21 bytes a lane (a 12 MB trace). */
#include "cgp_rt_wbytes.h"
#include "cgp_rt_wwarp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a warp as bytes (the trace file) --------------------------------------------------------- */

#define RUN_BYTES (4 + 4 + 4)
#define STAMP_BYTES (4 * (RT_MAXD - 1))
#define SEG_BYTES (1 + 4 + 8 + 8)
#define AFFINE_BYTES (4 + 8 + 8)
#define RIGID_BYTES (4 + 4 + 8 + 8 + 8)
#define RUN_AFFINE (UINT32_C(1) << 31)
#define RUN_LANES_DIFFER (UINT32_C(1) << 30)
#define RUN_RIGID (UINT32_C(1) << 29)
#define RUN_STAMPS (UINT32_C(1) << 28)
#define RUN_FLAGS (RUN_AFFINE | RUN_LANES_DIFFER | RUN_RIGID | RUN_STAMPS)
#define KEYS_CONSECUTIVE (UINT32_C(1) << 31)   /* in the thread count: one key, the first lane's */

static uint32_t lanes_of(const rt_seg *s, uint32_t n) {
  uint32_t lanes = 0;
  for (uint32_t k = 0; k < n; k++) lanes |= UINT32_C(1) << s[k].lane;
  return lanes;
}

static uint32_t key_mask(const rt_wwarp *w) {
  uint32_t m = 0;
  for (unsigned l = 0; l < RT_WARP; l++)
    if (w->thread[l]) m |= UINT32_C(1) << l;
  return m;
}

/* Run r's segments into s[0 .. nseg) (a linear warp's: each lane's address, one element). */
static void segs_of(const rt_wwarp *w, size_t r, rt_seg *s) {
  const rt_wrun *R = &w->run[r];
  if (!w->linear) {
    memcpy(s, &w->seg[R->seg0], R->nseg * sizeof *s);
    return;
  }
  uint32_t lanes = R->lanes;                     /* a linear warp's, in ascending order */
  for (uint32_t k = 0; k < R->nseg; k++, lanes &= lanes - 1)
    s[k] = (rt_seg){(uint32_t)__builtin_ctz(lanes), 1, w->addr[R->seg0 + k], 0};
}

/* 1 if the n >= 2 segments s[] have one count and one stride and their first addresses are
   s[0].a0 + (lane - s[0].lane) d: *d. */
static int rigid(const rt_seg *s, uint32_t n, int64_t *d) {
  *d = 0;
  if (n < 2) return 0;
  int64_t diff = (int64_t)(s[1].a0 - s[0].a0), dl = (int64_t)s[1].lane - (int64_t)s[0].lane;
  if (dl <= 0 || diff % dl) return 0;
  *d = diff / dl;
  for (uint32_t k = 1; k < n; k++)
    if (s[k].count != s[0].count || s[k].stride != s[0].stride ||
        s[k].a0 != s[0].a0 + (uint64_t)*d * (uint64_t)(s[k].lane - s[0].lane))
      return 0;
  return 1;
}

/* affine() for run R of a linear warp, read from its addresses in place (every segment of such a
   run is one element, its lanes R->lanes ascending): no segments built (JACOBI2D's trace: half
   the time of writing a warp went to building and testing them). */
static int linear_affine(const rt_wwarp *w, const rt_wrun *R, int64_t *d) {
  const uint64_t *a = &w->addr[R->seg0];
  uint32_t lanes = R->lanes;
  unsigned first = (unsigned)__builtin_ctz(lanes);
  *d = 0;
  if (R->nseg < 2) return 1;
  lanes &= lanes - 1;
  int64_t diff = (int64_t)(a[1] - a[0]), dl = (int64_t)__builtin_ctz(lanes) - (int64_t)first;
  if (diff % dl) return 0;
  *d = diff / dl;
  if (R->nseg == 32 || R->lanes >> first == (UINT32_C(1) << R->nseg) - 1) {   /* lanes in a row */
    for (uint32_t k = 2; k < R->nseg; k++)
      if (a[k] != a[0] + (uint64_t)*d * k) return 0;
    return 1;
  }
  lanes &= lanes - 1;
  for (uint32_t k = 2; k < R->nseg; k++, lanes &= lanes - 1)
    if (a[k] != a[0] + (uint64_t)*d * (uint64_t)(__builtin_ctz(lanes) - first)) return 0;
  return 1;
}

/* Every key, every run in full and in its affine form: more than the warp can take. */
size_t rt_wwarp_size_bound(const rt_wwarp *w) {
  return 16 + 8 * RT_WARP + w->nrun * (RUN_BYTES + STAMP_BYTES + 4 + RIGID_BYTES) + w->nseg * SEG_BYTES;
}

uint64_t rt_wwarp_events(const rt_wwarp *w) {
  uint64_t n = 0;
  for (size_t r = 0; r < w->nrun; r++) n += w->run[r].maxcount;
  return n;
}

/* 1 if the keys of the lanes in mask m are the first's plus the lane's distance from it: a warp of
   consecutive threads of a row, whose keys then take 8 bytes, not 8 a lane (LU's kernel 2 at
   N = 2048: most traced warps are threads the guard leaves idle, and their keys were half of a
   294 MB trace). */
static int keys_consecutive(const rt_wwarp *w, uint32_t m) {
  if (!m) return 0;
  unsigned first = (unsigned)__builtin_ctz(m);
  for (uint32_t r = m; r; r &= r - 1) {
    unsigned l = (unsigned)__builtin_ctz(r);
    if (w->thread[l] != w->thread[first] + (l - first)) return 0;
  }
  return 1;
}

size_t rt_wwarp_serialise(const rt_wwarp *w, unsigned char *out) {
  unsigned char *o = out;
  uint32_t m = key_mask(w);
  int seq = keys_consecutive(w, m);
  o = rt_le32(o, w->threads | (seq ? KEYS_CONSECUTIVE : 0));
  o = rt_le32(o, m);
  if (seq)
    o = rt_le64(o, w->thread[__builtin_ctz(m)]);
  else
    for (unsigned l = 0; l < RT_WARP; l++)
      if (m >> l & 1) o = rt_le64(o, w->thread[l]);
  o = rt_le32(o, (uint32_t)w->nrun);
  o = rt_le32(o, (uint32_t)w->nseg);
  /* the runs, then each run's segments in run order (runs are sorted by first key, their
     segments are not): both written in one pass, o at the run, g at its segments */
  unsigned char *g = o + w->nrun * RUN_BYTES;
  for (size_t r = 0; r < w->nrun; r++) {
    const rt_wrun *R = &w->run[r];
    rt_seg s[RT_WARP];
    int64_t d;
    uint32_t n = R->nseg;
    int aff, rig = 0;
    if (w->linear) {
      aff = linear_affine(w, R, &d);
    } else {
      segs_of(w, r, s);                          /* a run has a segment per lane at most */
      rig = rigid(s, n, &d);
      /* affine: one element a lane on one stride, a rigid run of count 1 and stride 0 (or a lone
         such segment), in its own shorter form */
      aff = s[0].count == 1 && s[0].stride == 0 && (n == 1 || rig);
      if (aff) rig = 0;
    }
    uint32_t stamps = 0;
    for (unsigned j = 0; j < RT_MAXD - 1; j++) stamps |= R->t[j];
    o = rt_le32(o, R->ev);
    o = rt_le32(o, n | (aff ? RUN_AFFINE : 0) | (rig ? RUN_RIGID : 0) | (R->lane_w > 0 ? RUN_LANES_DIFFER : 0) |
                       (stamps ? RUN_STAMPS : 0));
    uint32_t bits;
    memcpy(&bits, &R->skipped, 4);
    o = rt_le32(o, bits);
    if (stamps)
      for (unsigned j = 0; j < RT_MAXD - 1; j++) g = rt_le32(g, R->t[j]);
    if (R->lane_w > 0) {
      memcpy(&bits, &R->lane_w, 4);
      g = rt_le32(g, bits);
    }
    if (aff) {
      g = rt_le32(g, w->linear ? R->lanes : lanes_of(s, n));
      g = rt_le64(g, w->linear ? w->addr[R->seg0] : s[0].a0);
      g = rt_le64(g, (uint64_t)d);
      continue;
    }
    if (rig) {
      g = rt_le32(g, lanes_of(s, n));
      g = rt_le32(g, s[0].count);
      g = rt_le64(g, s[0].a0);
      g = rt_le64(g, (uint64_t)d);
      g = rt_le64(g, s[0].stride);
      continue;
    }
    if (w->linear) segs_of(w, r, s);
    for (uint32_t k = 0; k < n; k++) {
      *g++ = (unsigned char)s[k].lane;
      g = rt_le32(g, s[k].count);
      g = rt_le64(g, s[k].a0);
      g = rt_le64(g, s[k].stride);
    }
  }
  return (size_t)(g - out);
}

/* Run wr's segments (from its seg0) from a compact form: lane l of mask runs c elements from
   a0 + (l - first lane) d, stride apart (affine: c 1, stride 0). */
static void lay_lanes(rt_wwarp *w, rt_wrun *wr, uint32_t mask, uint32_t c, uint64_t a0, uint64_t d, uint64_t stride) {
  unsigned first = (unsigned)__builtin_ctz(mask);
  uint32_t lanes = mask;
  for (uint32_t k = 0; k < wr->nseg; k++, lanes &= lanes - 1) {
    unsigned l = (unsigned)__builtin_ctz(lanes);
    w->seg[wr->seg0 + k] = (rt_seg){l, c, a0 + d * (uint64_t)(l - first), stride};
  }
  wr->lanes = mask;
  wr->maxcount = wr->mincount = c;
}

static uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

rt_wwarp *rt_wwarp_deserialise(const unsigned char *p, size_t len, size_t nev, size_t *used, char *err,
                               size_t errlen) {
  size_t at = 0;
#define NEED(n, what)                                                                              \
  do {                                                                                             \
    if (len - at < (size_t)(n)) {                                                                  \
      snprintf(err, errlen, "warp truncated at byte %zu (%s)", at, what);                         \
      goto fail;                                                                                   \
    }                                                                                              \
  } while (0)
  rt_wwarp *w = calloc(1, sizeof *w);
  if (!w) { snprintf(err, errlen, "out of memory"); return NULL; }
  NEED(8, "header");
  w->threads = get32(p) & ~KEYS_CONSECUTIVE;
  int seq = (get32(p) & KEYS_CONSECUTIVE) != 0;
  uint32_t m = get32(p + 4);
  at = 8;
  if (w->threads > RT_WARP) { snprintf(err, errlen, "warp at byte 0: %u threads (at most %d)", w->threads, RT_WARP); goto fail; }
  if (seq) {
    NEED(8, "thread keys");
    uint64_t k0 = get64(p + at);
    at += 8;
    if (!m || !k0 || k0 > UINT64_MAX - RT_WARP) {
      snprintf(err, errlen, "warp at byte 0: consecutive keys from %llu over lanes 0x%x", (unsigned long long)k0, m);
      goto fail;
    }
    unsigned first = (unsigned)__builtin_ctz(m);
    for (unsigned l = first; l < RT_WARP; l++)
      if (m >> l & 1) w->thread[l] = k0 + (l - first);
  } else {
    for (unsigned l = 0; l < RT_WARP; l++)
      if (m >> l & 1) {
        NEED(8, "thread keys");
        w->thread[l] = get64(p + at);
        at += 8;
      }
  }
  NEED(8, "run and segment counts");
  size_t nrun = get32(p + at), nseg = get32(p + at + 4);
  at += 8;
  if (nrun > (len - at) / RUN_BYTES || nseg > nrun * RT_WARP || nrun > nseg) {
    snprintf(err, errlen, "warp truncated at byte %zu (%zu runs, %zu segments announced)", at, nrun, nseg);
    goto fail;
  }
  NEED(nrun * RUN_BYTES, "runs");
  w->run = malloc((nrun ? nrun : 1) * sizeof *w->run);
  w->seg = malloc((nseg ? nseg : 1) * sizeof *w->seg);
  if (!w->run || !w->seg) { snprintf(err, errlen, "out of memory"); goto fail; }
  w->nrun = nrun;
  w->nseg = nseg;
  size_t seg0 = 0, sa = at + nrun * RUN_BYTES;   /* sa: the next segment's bytes */
  for (size_t r = 0; r < nrun; r++, at += RUN_BYTES) {
    rt_wrun *wr = &w->run[r];
    wr->ev = get32(p + at);
    uint32_t ns = get32(p + at + 4);
    int aff = (ns & RUN_AFFINE) != 0, differ = (ns & RUN_LANES_DIFFER) != 0, rig = (ns & RUN_RIGID) != 0;
    wr->nseg = ns & ~RUN_FLAGS;
    uint32_t bits = get32(p + at + 8);
    memset(wr->t, 0, sizeof wr->t);
    if (ns & RUN_STAMPS) {                       /* its loop stamps, before its segments */
      if (len - sa < STAMP_BYTES) { snprintf(err, errlen, "warp truncated at byte %zu (a run's loop stamps)", sa); goto fail; }
      for (unsigned j = 0; j < RT_MAXD - 1; j++) wr->t[j] = get32(p + sa + 4 * j);
      sa += STAMP_BYTES;
    }
    memcpy(&wr->skipped, &bits, 4);
    wr->seg0 = (uint32_t)seg0;
    wr->maxcount = 0;
    if (wr->ev >= nev) { snprintf(err, errlen, "warp byte %zu: event %u out of range (%zu events)", at, wr->ev, nev); goto fail; }
    if (!(wr->skipped >= 0 && wr->skipped <= (float)RT_ITER_PERIOD)) {   /* NaN fails too; a window
                                                                               stands for a period at most */
      snprintf(err, errlen, "warp byte %zu: a run standing for %g skipped iterations per element (0 to %d)", at,
               (double)wr->skipped, RT_ITER_PERIOD);
      goto fail;
    }
    if (wr->nseg == 0 || wr->nseg > RT_WARP || wr->nseg > nseg - seg0) {
      snprintf(err, errlen, "warp byte %zu: a run of %u segments (1 to %d, %zu left)", at, wr->nseg, RT_WARP, nseg - seg0);
      goto fail;
    }
    wr->lane_w = 0;
    if (differ) {                                /* its lanes' weights, each at most the run's */
      if (len - sa < 4) { snprintf(err, errlen, "warp truncated at byte %zu (a run's lane weights)", sa); goto fail; }
      bits = get32(p + sa);
      memcpy(&wr->lane_w, &bits, 4);
      sa += 4;
      if (!(wr->lane_w >= 1 && wr->lane_w <= (float)wr->nseg * (1 + wr->skipped) * 1.0001f)) {
        snprintf(err, errlen, "warp byte %zu: a run's %u lanes weighing %g, against %g a lane at most", sa - 4,
                 wr->nseg, (double)wr->lane_w, (double)(1 + wr->skipped));
        goto fail;
      }
    }
    if (aff && rig) { snprintf(err, errlen, "warp byte %zu: a run both affine and rigid", at); goto fail; }
    if (aff) {                                   /* one element a lane, a0 + (lane - first) d */
      if (len - sa < AFFINE_BYTES) { snprintf(err, errlen, "warp truncated at byte %zu (an affine run)", sa); goto fail; }
      uint32_t mask = get32(p + sa);
      uint64_t a0 = get64(p + sa + 4), d = get64(p + sa + 12);
      if ((uint32_t)__builtin_popcount(mask) != wr->nseg) {
        snprintf(err, errlen, "warp byte %zu: an affine run of %u segments with %d lanes", sa, wr->nseg,
                 __builtin_popcount(mask));
        goto fail;
      }
      lay_lanes(w, wr, mask, 1, a0, d, 0);
      sa += AFFINE_BYTES;
      seg0 += wr->nseg;
      continue;
    }
    if (rig) {                                   /* count c a lane, from a0 + (lane - first) d, stride s */
      if (len - sa < RIGID_BYTES) { snprintf(err, errlen, "warp truncated at byte %zu (a rigid run)", sa); goto fail; }
      uint32_t mask = get32(p + sa), c = get32(p + sa + 4);
      uint64_t a0 = get64(p + sa + 8), d = get64(p + sa + 16), stride = get64(p + sa + 24);
      if ((uint32_t)__builtin_popcount(mask) != wr->nseg || wr->nseg < 2 || c == 0) {
        snprintf(err, errlen, "warp byte %zu: a rigid run of %u segments with %d lanes, count %u (two lanes or more, "
                 "as many as its segments, count >= 1)", sa, wr->nseg, __builtin_popcount(mask), c);
        goto fail;
      }
      lay_lanes(w, wr, mask, c, a0, d, stride);
      sa += RIGID_BYTES;
      seg0 += wr->nseg;
      continue;
    }
    if ((len - sa) / SEG_BYTES < wr->nseg) {
      snprintf(err, errlen, "warp truncated at byte %zu (a run's %u segments)", sa, wr->nseg);
      goto fail;
    }
    uint32_t lanes = 0;
    for (uint32_t k = 0; k < wr->nseg; k++, sa += SEG_BYTES) {
      rt_seg *sg = &w->seg[seg0 + k];
      sg->lane = p[sa];
      sg->count = get32(p + sa + 1);
      sg->a0 = get64(p + sa + 5);
      sg->stride = get64(p + sa + 13);
      if (sg->lane >= RT_WARP || (lanes >> sg->lane) != 0 || sg->count == 0) {
        snprintf(err, errlen, "warp byte %zu: segment with lane %u, count %u (lanes below %d, ascending in a run, "
                 "count >= 1)", sa, sg->lane, sg->count, RT_WARP);
        goto fail;
      }
      lanes |= UINT32_C(1) << sg->lane;
      if (sg->count > wr->maxcount) wr->maxcount = sg->count;
      if (k == 0 || sg->count < wr->mincount) wr->mincount = sg->count;
    }
    wr->lanes = lanes;
    seg0 += wr->nseg;
  }
  if (seg0 != nseg) { snprintf(err, errlen, "warp byte %zu: runs hold %zu of %zu segments", at, seg0, nseg); goto fail; }
  *used = sa;
  return w;
fail:
  rt_wwarp_free(w);
  return NULL;
#undef NEED
}
