/* cgp_rt_wbytes.c: a warp as bytes, the trace file's form of it (cgp_rt_warp.h), and back. */
#include "cgp_rt_record.h"
#include "cgp_rt_wwarp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a warp as bytes (the trace file) --------------------------------------------------------- */

#define RUN_BYTES (4 + 4 * (RT_MAXD - 1) + 4 + 4)
#define SEG_BYTES (1 + 4 + 8 + 8)

static uint32_t key_mask(const rt_wwarp *w) {
  uint32_t m = 0;
  for (unsigned l = 0; l < RT_WARP; l++)
    if (w->thread[l]) m |= UINT32_C(1) << l;
  return m;
}

size_t rt_wwarp_size(const rt_wwarp *w) {
  uint32_t m = key_mask(w);
  size_t keys = 0;
  for (; m; m &= m - 1) keys++;
  return 16 + 8 * keys + w->nrun * RUN_BYTES + w->nseg * SEG_BYTES;
}

static unsigned char *put32(unsigned char *o, uint32_t v) {
  for (int i = 0; i < 4; i++) o[i] = (unsigned char)(v >> (8 * i));
  return o + 4;
}

static unsigned char *put64(unsigned char *o, uint64_t v) {
  for (int i = 0; i < 8; i++) o[i] = (unsigned char)(v >> (8 * i));
  return o + 8;
}

uint64_t rt_wwarp_events(const rt_wwarp *w) {
  uint64_t n = 0;
  for (size_t r = 0; r < w->nrun; r++) n += w->run[r].maxcount;
  return n;
}

void rt_wwarp_serialise(const rt_wwarp *w, unsigned char *o) {
  uint32_t m = key_mask(w);
  o = put32(o, w->threads);
  o = put32(o, m);
  for (unsigned l = 0; l < RT_WARP; l++)
    if (m >> l & 1) o = put64(o, w->thread[l]);
  o = put32(o, (uint32_t)w->nrun);
  o = put32(o, (uint32_t)w->nseg);
  for (size_t r = 0; r < w->nrun; r++) {
    o = put32(o, w->run[r].ev);
    for (unsigned j = 0; j < RT_MAXD - 1; j++) o = put32(o, w->run[r].t[j]);
    o = put32(o, w->run[r].nseg);
    uint32_t bits;
    memcpy(&bits, &w->run[r].skipped, 4);
    o = put32(o, bits);
  }
  /* each run's segments in run order: runs are sorted by first key, their segments are not */
  for (size_t r = 0; r < w->nrun; r++) {
    uint32_t lanes = w->run[r].lanes;             /* a linear warp's, in ascending order */
    for (uint32_t k = 0; k < w->run[r].nseg; k++, lanes &= lanes - 1) {
      size_t at = w->run[r].seg0 + k;
      rt_seg sg = w->linear ? (rt_seg){(uint32_t)__builtin_ctz(lanes), 1, w->addr[at], 0} : w->seg[at];
      *o++ = (unsigned char)sg.lane;
      o = put32(o, sg.count);
      o = put64(o, sg.a0);
      o = put64(o, sg.stride);
    }
  }
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
  w->threads = get32(p);
  uint32_t m = get32(p + 4);
  at = 8;
  if (w->threads > RT_WARP) { snprintf(err, errlen, "warp at byte 0: %u threads (at most %d)", w->threads, RT_WARP); goto fail; }
  for (unsigned l = 0; l < RT_WARP; l++)
    if (m >> l & 1) {
      NEED(8, "thread keys");
      w->thread[l] = get64(p + at);
      at += 8;
    }
  NEED(8, "run and segment counts");
  size_t nrun = get32(p + at), nseg = get32(p + at + 4);
  at += 8;
  if (nrun > (len - at) / RUN_BYTES || nseg > (len - at) / SEG_BYTES || nrun > nseg) {
    snprintf(err, errlen, "warp truncated at byte %zu (%zu runs, %zu segments announced)", at, nrun, nseg);
    goto fail;
  }
  NEED(nrun * RUN_BYTES + nseg * SEG_BYTES, "runs and segments");
  w->run = malloc((nrun ? nrun : 1) * sizeof *w->run);
  w->seg = malloc((nseg ? nseg : 1) * sizeof *w->seg);
  if (!w->run || !w->seg) { snprintf(err, errlen, "out of memory"); goto fail; }
  w->nrun = nrun;
  w->nseg = nseg;
  size_t seg0 = 0, segs_at = at + nrun * RUN_BYTES;
  for (size_t r = 0; r < nrun; r++, at += RUN_BYTES) {
    rt_wrun *wr = &w->run[r];
    wr->ev = get32(p + at);
    for (unsigned j = 0; j < RT_MAXD - 1; j++) wr->t[j] = get32(p + at + 4 + 4 * j);
    wr->nseg = get32(p + at + 4 + 4 * (RT_MAXD - 1));
    uint32_t bits = get32(p + at + 8 + 4 * (RT_MAXD - 1));
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
    uint32_t lanes = 0;
    for (uint32_t k = 0; k < wr->nseg; k++) {
      size_t sa = segs_at + (seg0 + k) * SEG_BYTES;
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
  *used = segs_at + nseg * SEG_BYTES;
  return w;
fail:
  rt_wwarp_free(w);
  return NULL;
#undef NEED
}
