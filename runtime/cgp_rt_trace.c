/* cgp_rt_trace.c: the trace file (cgp_trace.h): written by the run, streamed as windows release
   their warps, so it costs no memory beyond stdio's buffer; read back by `cgpredict report
   --device` to analyse the same warps for another device. */
#include "cgp_rt_internal.h"
#include "cgp_file.h"
#include "cgp_report.h"
#include "cgp_rt_file.h"
#include "cgp_trace.h"

#include <stdio.h>
#include <stdio_ext.h>                       /* __fpurge */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>                            /* crc32: the trace's checksum */

/* ---- writing (the run) -------------------------------------------------------------------------- */

static struct {
  int state;                 /* 0 not yet decided, 1 writing, -1 off, -2 failed, -3 over the cap */
  FILE *f;
  uint64_t bytes, cap_bytes; /* written so far; CGPREDICT_TRACE_MB */
  char path[4200], tmp[4300], err[4600];
  uint64_t records;
  uint64_t events;           /* warp events written: the end marker promises them */
  uLong crc;                 /* of every byte written so far */
  uint32_t kernels;
  unsigned char *buf;
  size_t cap;
} T;

/* The trace stream's buffer: megabytes of trace go out in writes this large (with stdio's 4 KiB,
   JACOBI2D's 10 MB trace took 2,400 write calls). */
#define TRACE_STREAM_BUFFER (1u << 20)

static void put(const void *p, size_t n) {
  if (T.state != 1) return;
  if (T.bytes + n > T.cap_bytes) { T.state = -3; return; }     /* the disk is the user's: a cap */
  if (fwrite(p, 1, n, T.f) != n) T.state = -2;
  T.crc = crc32(T.crc, p, (uInt)n);
  T.bytes += n;
}

static void put8(uint8_t v) { put(&v, 1); }

static void put32(uint32_t v) {
  unsigned char b[4];
  rt_le32(b, v);
  put(b, 4);
}

static void put64(uint64_t v) {
  unsigned char b[8];
  rt_le64(b, v);
  put(b, 8);
}


/* CGPREDICT_TRACE: unset, the report's path + ".trace"; "0", no trace; else the path. */
static int trace_on(void) {
  if (T.state) return T.state == 1;
  const char *env = getenv("CGPREDICT_TRACE");
  if (env && strcmp(env, "0") == 0) { T.state = -1; return 0; }
  if (env && *env) snprintf(T.path, sizeof T.path, "%s", env);
  else snprintf(T.path, sizeof T.path, "%s.trace", cgp_rt_g.report_path);
  T.cap_bytes = cgp_rt_g.trace_cap_bytes;
  if (cgp_same_file(T.path, cgp_rt_g.report_path)) {     /* two outputs, one file: neither overwrites the other */
    snprintf(T.err, sizeof T.err, "CGPREDICT_TRACE names the report's own file (%.1000s): no trace written, the "
             "report kept; give the trace another path", cgp_rt_g.report_path);
    T.state = -2;
    return 0;
  }
  T.f = cgp_file_stream_open(T.path, T.tmp, sizeof T.tmp, T.err, sizeof T.err);
  if (!T.f) { T.state = -2; return 0; }
  setvbuf(T.f, NULL, _IOFBF, TRACE_STREAM_BUFFER);
  T.state = 1;
  T.crc = crc32(0, Z_NULL, 0);
  put(CGP_TRACE_MAGIC, 8);
  put32(CGP_TRACE_VERSION);
  put32(RT_MAXD);
  put64(cgp_rt_g.run_id);
  return T.state == 1;
}

void rt_trace_forget_in_child(void) {
  if (T.f) __fpurge(T.f);                  /* the child's exit must not flush it into the parent's file */
  T.f = NULL;
  T.tmp[0] = '\0';
  T.state = -1;
}

void rt_trace_unlink_on_signal(void) {
  if (T.f && T.tmp[0]) unlink(T.tmp);             /* open: written, over its cap or failing */
}

static int kernel_index(const rt_kernel *k) {
  for (size_t i = 0; i < cgp_rt_g.nkernels; i++)
    if (cgp_rt_g.kernels[i] == k) return (int)i;
  return -1;
}

void rt_trace_launch_begin(rt_kernel *k, uint64_t launch, const unsigned block[3], uint64_t W, uint64_t ext,
                           int full) {
  if (!trace_on()) return;
  int id = kernel_index(k);
  if (id < 0) return;
  if (k->trace_id < 0) {            /* the report lists kernels in cgp_rt_g.kernels order */
    size_t n = strlen(k->desc_ptr);
    put8('K');
    put32((uint32_t)id);
    put32((uint32_t)n);
    put(k->desc_ptr, n);
    T.records++;
    k->trace_id = id;
  }
  put8('L');
  put32((uint32_t)id);
  put64(launch);
  for (int i = 0; i < 3; i++) put32(block[i]);
  put64(W);
  put64(ext);
  put8((uint8_t)(full == 2 ? 2 : full != 0));
  T.records++;
}

void rt_trace_blocks(const rt_kernel *k, const rt_window *w, uint64_t below) {
  if (T.state != 1) return;
  for (uint64_t b = w->freed; b < below && b < w->nblk; b++) {
    if (!w->nw[b]) continue;
    put8('B');
    put64(w->start);
    put64(b);
    put32((uint32_t)w->nw[b]);
    /* the block's warps, each its length and its bytes, gathered and written at once (one
       fwrite and one crc32 a block, not two a warp) */
    size_t need = 0, at = 0;
    for (size_t i = 0; i < w->nw[b]; i++) need += 4 + rt_wwarp_size_bound(w->blk[b][i]);
    if (need > T.cap) {
      unsigned char *p = realloc(T.buf, need);
      if (!p) { T.state = -2; snprintf(T.err, sizeof T.err, "out of memory"); return; }
      T.buf = p;
      T.cap = need;
    }
    for (size_t i = 0; i < w->nw[b]; i++) {
      size_t n = rt_wwarp_serialise(w->blk[b][i], T.buf + at + 4);
      T.events += rt_wwarp_events(w->blk[b][i]);
      rt_le32(T.buf + at, (uint32_t)n);
      at += 4 + n;
    }
    put(T.buf, at);
    T.records++;
  }
  (void)k;
}

void rt_trace_window(const rt_window *w) {
  if (T.state != 1) return;
  put8('W');
  put64(w->start);
  put64(w->size);
  put64(w->region_end);
  put8((uint8_t)(w->budget_hit != 0));
  T.records++;
}

void rt_trace_launch_end(uint64_t G) {
  if (T.state != 1) return;
  put8('E');
  put64(G);
  T.records++;
}

void rt_trace_tail(const rt_kernel *k, const rt_tail *t) {
  if (T.state != 1 || k->trace_id < 0) return;
  put8('T');
  put32((uint32_t)k->trace_id);
  put64(t->len);
  put64(t->streak);
  put64(t->law.ref);
  put32(t->law.n);
  for (uint32_t i = 0; i < t->law.n; i++) {
    put64(t->law.lo[i]);
    put64(t->law.hi[i]);
    put64((uint64_t)t->law.delta[i]);
  }
  T.events += RT_TAIL_EVENTS;                /* the replay's work it promises */
  T.records++;
}

void rt_trace_report(cJSON *rt) {
  if (T.state == 0 || T.state == -1) return;
  if (T.state == -3) {
    cJSON *o = cJSON_AddObjectToObject(rt, "trace");
    cJSON_AddStringToObject(o, "file", T.path);
    cJSON_AddBoolToObject(o, "written", 0);
    char why[256];
    snprintf(why, sizeof why, "the trace would exceed CGPREDICT_TRACE_MB (%llu MiB): not kept; raise it, or run "
             "with CGPREDICT_DEVICE naming the devices wanted", (unsigned long long)(T.cap_bytes >> 20));
    cJSON_AddStringToObject(o, "error", why);
    return;
  }
  if (T.state == 1) {
    put8('Z');
    put64(T.records);
    put64(T.events);
    put32((uint32_t)T.crc);                 /* of every byte before it */
    if (T.state == 1 && fflush(T.f) != 0) T.state = -2;
  }
  cJSON *o = cJSON_AddObjectToObject(rt, "trace");
  cJSON_AddStringToObject(o, "file", T.path);
  cJSON_AddBoolToObject(o, "written", T.state == 1);
  if (T.state == 1) {
    long size = ftell(T.f);
    cJSON_AddNumberToObject(o, "bytes", size >= 0 ? (double)size : 0);
    cJSON_AddNumberToObject(o, "events", (double)T.events);
    cJSON_AddStringToObject(o, "use", "cgpredict report REPORT --device NAME|all predicts any device of the "
                            "database from it, without running the program again");
  } else {
    cJSON_AddStringToObject(o, "error", T.err[0] ? T.err : "the trace file could not be written");
  }
}

void rt_trace_finish(int keep) {
  char err[4600], msg[9400];
  if (T.state == -2 && T.f) {
    cgp_file_stream_abort(T.f, T.tmp);
    snprintf(msg, sizeof msg, "trace file '%s' not written: %s", T.path, T.err[0] ? T.err : "write error");
    rt_tool_failure(msg);
  } else if (T.state == -2) {
    snprintf(msg, sizeof msg, "trace file not written: %s", T.err);
    rt_tool_failure(msg);
  } else if ((T.state == 1 && !keep) || T.state == -3) {
    cgp_file_stream_abort(T.f, T.tmp);           /* over the cap: said in the report, not a failure */
  } else if (T.state == 1 && cgp_file_stream_commit(T.f, T.tmp, T.path, err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "trace %s", err);
    rt_tool_failure(msg);
  }
  T.f = NULL;
  T.state = -1;
  free(T.buf);
  T.buf = NULL;
  T.cap = 0;
}

/* ---- reading ----------------------------------------------------------------------------------- */

#define TR_MAX_W ((uint64_t)1 << 20)         /* blocks in a window: 2 x (blocks per SM x SMs) */

typedef struct {
  rt_window w;
  int closed;
} tr_window;

typedef struct {
  size_t at;                  /* its record's offset, for messages */
  uint32_t kid;
  uint64_t launch, W, ext, G;
  unsigned block[3];
  int full, ended;
  tr_window *win;             /* in the order they were first seen */
  size_t nwin;
  size_t *order;              /* indices of win in the order they closed */
  size_t norder;
  rt_tail *tail;              /* not a launch: a run's untraced tail ('T'), replayed in its place */
} tr_launch;

typedef struct {
  const unsigned char *p;
  size_t len, at;
  const char *name;
  char *err;
  size_t errlen;
  rt_kernel **k;
  size_t *kat;                /* each kernel record's offset, for messages */
  uint64_t *since_tail;       /* each kernel's launches since its last tail record */
  size_t nk;
  tr_launch *l;
  size_t nl;
  uint64_t events;            /* warp events a replay issues per device (at most) */
  uint64_t run_id;            /* the header's: the report of the same run carries it */
  size_t ndev;                /* the devices its kernels keep per-site sums for: 1 to replay (one
                                 device at a time), 0 to check or seal (descriptors only) */
  unsigned char *seal;        /* cgp_trace_seal: the same bytes, writable; the end marker's
                                 promises are written instead of checked */
} tr_reader;

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int bad(tr_reader *r, size_t at, const char *fmt, const char *what) {
  char m[512];
  snprintf(m, sizeof m, fmt, what);
  snprintf(r->err, r->errlen, "%s: byte %zu: %s (not a complete cgpredict trace; run the program again to "
           "write a new one)", r->name, at, m);
  return -1;
}

static int need(tr_reader *r, size_t n, const char *what) {
  if (r->len - r->at < n) return bad(r, r->at, "truncated: %s expected", what);
  return 0;
}

static void launch_free(tr_launch *l) {
  if (l->tail) rt_law_free(&l->tail->law);
  free(l->tail);
  for (size_t i = 0; i < l->nwin; i++) rt_window_release(&l->win[i].w);
  free(l->win);
  free(l->order);
}

static void reader_free(tr_reader *r) {
  for (size_t i = 0; i < r->nk; i++) rt_kernel_free(r->k[i]);
  free(r->k);
  free(r->kat);
  free(r->since_tail);
  r->since_tail = NULL;
  for (size_t i = 0; i < r->nl; i++) launch_free(&r->l[i]);
  free(r->l);
  r->kat = NULL;
  r->k = NULL;
  r->l = NULL;
  r->nk = r->nl = 0;
}

static tr_window *window_at(tr_reader *r, tr_launch *l, uint64_t start) {
  for (size_t i = 0; i < l->nwin; i++)
    if (!l->win[i].closed && l->win[i].w.start == start) return &l->win[i];
  tr_window *p = realloc(l->win, (l->nwin + 1) * sizeof *p);
  if (!p) return NULL;
  l->win = p;
  tr_window *w = &l->win[l->nwin++];
  memset(w, 0, sizeof *w);
  w->w.start = start;
  w->w.size = l->W + l->ext;                /* at most; its 'W' record says */
  (void)r;
  return w;
}

static int read_kernel(tr_reader *r) {
  size_t at = r->at;
  if (need(r, 8, "a kernel record")) return -1;
  uint32_t id = rd32(r->p + r->at), n = rd32(r->p + r->at + 4);
  r->at += 8;
  /* ids are the kernels' places in the report: increasing, with a gap where a kernel was never
     traced (out of memory at its launch) */
  if (id < r->nk || id >= 65536) return bad(r, at, "%s", "kernel records out of order");
  if (need(r, n, "a kernel descriptor")) return -1;
  char *desc = malloc((size_t)n + 1);
  if (!desc) return bad(r, at, "%s", "out of memory");
  memcpy(desc, r->p + r->at, n);
  desc[n] = '\0';
  r->at += n;
  rt_kernel **kk = realloc(r->k, ((size_t)id + 1) * sizeof *kk);
  if (kk) r->k = kk;
  size_t *ka = kk ? realloc(r->kat, ((size_t)id + 1) * sizeof *ka) : NULL;
  if (ka) r->kat = ka;
  uint64_t *st = ka ? realloc(r->since_tail, ((size_t)id + 1) * sizeof *st) : NULL;
  if (st) r->since_tail = st;
  ka = st ? ka : NULL;
  rt_kernel *k = ka ? rt_kernel_new(desc, r->ndev) : NULL;
  free(desc);
  if (ka) {
    r->kat[id] = at;
    for (size_t i = r->nk; i <= id; i++) r->since_tail[i] = 0;
    for (size_t i = r->nk; i < id; i++) r->k[i] = NULL;
    r->nk = id;
  }
  if (!k) return bad(r, at, "%s", "a kernel descriptor this version cannot read");
  r->k[r->nk++] = k;
  if (k->dims < 1 || k->dims > 3) return bad(r, at, "%s", "a kernel descriptor with dims other than 1 to 3");
  return 0;
}

static int read_launch(tr_reader *r) {
  size_t at = r->at;
  if (need(r, 4 + 8 + 12 + 8 + 8 + 1, "a launch record")) return -1;
  tr_launch l = {.at = at};
  const unsigned char *p = r->p + r->at;
  l.kid = rd32(p);
  l.launch = rd64(p + 4);
  for (int i = 0; i < 3; i++) l.block[i] = rd32(p + 12 + 4 * i);
  l.W = rd64(p + 24);
  l.ext = rd64(p + 32);
  l.full = p[40];
  r->at += 41;
  if (r->nl && !r->l[r->nl - 1].ended) return bad(r, at, "%s", "a launch begins inside another");
  if (l.kid >= r->nk || !r->k[l.kid]) return bad(r, at, "%s", "a launch of an unknown kernel");
  uint64_t tpb = 1;
  for (int i = 0; i < 3; i++) {
    if (!l.block[i] || l.block[i] > 1024) return bad(r, at, "%s", "a block dimension out of range");
    tpb *= l.block[i];
  }
  if (tpb > 1024) return bad(r, at, "%s", "more than 1024 threads per block");
  if (!l.W || l.W > TR_MAX_W) return bad(r, at, "%s", "a window size out of range");
  if (l.ext > TR_MAX_W) return bad(r, at, "%s", "a window's warming extension out of range");
  if (l.full > 2) return bad(r, at, "%s", "a sampling flag other than 0, 1 or 2");
  tr_launch *nl = realloc(r->l, (r->nl + 1) * sizeof *nl);
  if (!nl) return bad(r, at, "%s", "out of memory");
  r->l = nl;
  r->l[r->nl++] = l;
  r->since_tail[l.kid]++;
  return 0;
}

/* A run's untraced tail: between launches, of a kernel given before, its law's ranges non-empty,
   its positions within the run. */
static int read_tail(tr_reader *r) {
  size_t at = r->at;
  if (need(r, 4 + 8 + 8 + 8 + 4, "a run's tail")) return -1;
  const unsigned char *p = r->p + r->at;
  uint32_t kid = rd32(p), n = rd32(p + 28);
  uint64_t len = rd64(p + 4), streak = rd64(p + 12), ref = rd64(p + 20);
  r->at += 32;
  if (r->nl && !r->l[r->nl - 1].ended) return bad(r, at, "%s", "a run's tail inside a launch");
  if (kid >= r->nk || !r->k[kid]) return bad(r, at, "%s", "a run's tail of an unknown kernel");
  if (!len || streak > len || !ref || ref > len || !n || n > r->k[kid]->nmem)
    return bad(r, at, "%s", "a run's tail whose positions or sites are out of range");
  /* its law came from the kernel's traced launches since its last tail */
  if (r->since_tail[kid] < RT_LAW_POINTS) return bad(r, at, "%s", "a run's tail with too few launches before it");
  r->since_tail[kid] = 0;
  r->events = r->events > UINT64_MAX - RT_TAIL_EVENTS ? UINT64_MAX : r->events + RT_TAIL_EVENTS;
  if (need(r, (size_t)n * 24, "a run's tail's ranges")) return -1;
  tr_launch *nl = realloc(r->l, (r->nl + 1) * sizeof *nl);
  if (nl) r->l = nl;
  rt_tail *t = nl ? malloc(sizeof *t) : NULL;
  if (!t || rt_law_new(&t->law, n)) {
    free(t);
    return bad(r, at, "%s", "out of memory");
  }
  t->len = len;
  t->streak = streak;
  t->law.ref = ref;
  r->l[r->nl++] = (tr_launch){.at = at, .kid = kid, .ended = 1, .tail = t};   /* freed with the launches */
  for (uint32_t i = 0; i < n; i++, r->at += 24) {
    t->law.lo[i] = rd64(r->p + r->at);
    t->law.hi[i] = rd64(r->p + r->at + 8);
    t->law.delta[i] = (int64_t)rd64(r->p + r->at + 16);
    if (t->law.lo[i] >= t->law.hi[i]) return bad(r, r->at, "%s", "a run's tail with an empty range");
  }
  t->law.n = n;
  return 0;
}

static tr_launch *open_launch(tr_reader *r, size_t at) {
  if (!r->nl || r->l[r->nl - 1].ended || r->l[r->nl - 1].tail) { bad(r, at, "%s", "a record outside any launch"); return NULL; }
  return &r->l[r->nl - 1];
}

static int read_block(tr_reader *r) {
  size_t at = r->at;
  tr_launch *l = open_launch(r, at);
  if (!l) return -1;
  if (need(r, 20, "a block record")) return -1;
  uint64_t start = rd64(r->p + r->at), off = rd64(r->p + r->at + 8);
  uint32_t n = rd32(r->p + r->at + 16);
  r->at += 20;
  if (off >= l->W + l->ext) return bad(r, at, "%s", "a block outside its window");
  if (n == 0 || n > 1024 / RT_WARP) return bad(r, at, "%s", "a block of 0 or more than 32 warps");
  tr_window *w = window_at(r, l, start);
  if (!w) return bad(r, at, "%s", "out of memory");
  if (off < w->w.nblk && w->w.nw[off]) return bad(r, at, "%s", "a block given twice");
  size_t nev = rt_shape_events(r->k[l->kid]->shape);
  for (uint32_t i = 0; i < n; i++) {
    size_t wat = r->at;
    if (need(r, 4, "a warp's length")) return -1;
    uint32_t len = rd32(r->p + r->at);
    r->at += 4;
    if (need(r, len, "a warp")) return -1;
    char e[256];
    size_t used = 0;
    rt_wwarp *ww = rt_wwarp_deserialise(r->p + r->at, len, nev, &used, e, sizeof e);
    if (!ww) return bad(r, wat, "%s", e);
    if (used != len) { rt_wwarp_free(ww); return bad(r, wat, "%s", "a warp shorter than its length"); }
    uint64_t ev = rt_wwarp_events(ww);
    r->events = ev > UINT64_MAX - r->events ? UINT64_MAX : r->events + ev;
    r->at += len;
    size_t before = w->w.nw && off < w->w.nblk ? w->w.nw[off] : 0;
    rt_window_put(&w->w, off, ww);            /* frees the warp if out of memory */
    if (!(off < w->w.nblk && w->w.nw[off] == before + 1)) return bad(r, wat, "%s", "out of memory");
  }
  return 0;
}

static int read_window(tr_reader *r) {
  size_t at = r->at;
  tr_launch *l = open_launch(r, at);
  if (!l) return -1;
  if (need(r, 25, "a window record")) return -1;
  const unsigned char *p = r->p + r->at;
  uint64_t start = rd64(p), size = rd64(p + 8), rend = rd64(p + 16);
  uint8_t hit = p[24];
  r->at += 25;
  if (size < l->W || size - l->W > l->ext || rend < start || start > UINT64_MAX - size || size - l->W > rend - start ||
      hit > 1)
    return bad(r, at, "%s", "a window whose size, region or flag is inconsistent");
  tr_window *w = window_at(r, l, start);
  for (uint64_t b = size; w && b < w->w.nblk; b++)     /* its blocks' offsets were checked against W + ext */
    if (w->w.nw[b]) return bad(r, at, "%s", "a block outside its window");
  size_t *o = w ? realloc(l->order, (l->norder + 1) * sizeof *o) : NULL;
  if (!o) return bad(r, at, "%s", "out of memory");
  l->order = o;
  w = window_at(r, l, start);               /* (window_at may have moved the array) */
  w->w.size = size;                         /* its extension: the blocks before W (rt_window_index) */
  w->w.ext = size - l->W;
  w->w.region_end = rend;
  w->w.budget_hit = hit;
  w->closed = 1;
  l->order[l->norder++] = (size_t)(w - l->win);
  return 0;
}

static int read_end(tr_reader *r) {
  size_t at = r->at;
  tr_launch *l = open_launch(r, at);
  if (!l) return -1;
  if (need(r, 8, "a launch end")) return -1;
  l->G = rd64(r->p + r->at);
  r->at += 8;
  for (size_t i = 0; i < l->nwin; i++)
    if (!l->win[i].closed) return bad(r, at, "%s", "a launch ends with a window still open");
  l->ended = 1;
  return 0;
}

static uint32_t crc_of(const unsigned char *p, size_t n) {
  uLong crc = crc32(0, Z_NULL, 0);
  for (size_t done = 0; done < n;) {                  /* uInt lengths: in pieces */
    size_t k = n - done > ((size_t)1 << 30) ? (size_t)1 << 30 : n - done;
    crc = crc32(crc, p + done, (uInt)k);
    done += k;
  }
  return (uint32_t)crc;
}

/* The end marker: the records before it, the warp events they hold (what a replay issues per
   device, at most: the work it promises) and the CRC-32 (zlib's) of every byte before the CRC. */
static int read_end_marker(tr_reader *r, size_t at, uint64_t records) {
  if (need(r, 20, "the end marker")) return -1;
  if (rd64(r->p + r->at) != records) return bad(r, at, "%s", "the end marker's record count does not match");
  size_t ev_at = r->at + 8, crc_at = r->at + 16;
  if (r->seal) {
    for (int i = 0; i < 8; i++) r->seal[ev_at + i] = (unsigned char)(r->events >> (8 * i));
    uint32_t crc = crc_of(r->seal, crc_at);
    for (int i = 0; i < 4; i++) r->seal[crc_at + i] = (unsigned char)(crc >> (8 * i));
  } else {
    if (rd64(r->p + ev_at) != r->events) {
      char m[160];
      snprintf(m, sizeof m, "the end marker promises %llu warp events, the warps hold %llu",
               (unsigned long long)rd64(r->p + ev_at), (unsigned long long)r->events);
      return bad(r, ev_at, "%s", m);
    }
    if (rd32(r->p + crc_at) != crc_of(r->p, crc_at))
      return bad(r, crc_at, "%s", "checksum mismatch: the file was changed or damaged after it was written");
  }
  r->at += 20;
  if (r->at != r->len) return bad(r, r->at, "%s", "bytes after the end marker");
  if (r->nl && !r->l[r->nl - 1].ended) return bad(r, at, "%s", "the last launch did not end");
  return 0;
}

static int read_trace(tr_reader *r) {
  if (r->len < CGP_TRACE_HEADER_BYTES || memcmp(r->p, CGP_TRACE_MAGIC, 8) != 0) {
    r->at = 0;
    return r->len < 8 || memcmp(r->p, CGP_TRACE_MAGIC, 8) != 0 ? bad(r, 0, "%s", "not a cgpredict trace (no CGPTRACE header)")
                                                             : bad(r, 8, "%s", "truncated header");
  }
  if (rd32(r->p + 8) != CGP_TRACE_VERSION) return bad(r, 8, "%s", "a trace of another version of cgpredict");
  if (rd32(r->p + 12) != RT_MAXD) return bad(r, 12, "%s", "a trace of another build of cgpredict (loop depth)");
  r->run_id = rd64(r->p + 16);
  r->at = CGP_TRACE_HEADER_BYTES;
  uint64_t records = 0;
  for (;;) {
    size_t at = r->at;
    if (need(r, 1, "a record (the end marker is missing)")) return -1;
    uint8_t tag = r->p[r->at++];
    int rc;
    switch (tag) {
    case 'K': rc = read_kernel(r); break;
    case 'L': rc = read_launch(r); break;
    case 'B': rc = read_block(r); break;
    case 'W': rc = read_window(r); break;
    case 'E': rc = read_end(r); break;
    case 'T': rc = read_tail(r); break;
    case 'Z': return read_end_marker(r, at, records);
    default: return bad(r, at, "%s", "an unknown record");
    }
    if (rc) return -1;
    records++;
  }
}

int cgp_trace_check(const unsigned char *data, size_t len, const char *name, uint64_t *events, char *err,
                    size_t errlen) {
  tr_reader r = {.p = data, .len = len, .name = name, .err = err, .errlen = errlen};
  int rc = read_trace(&r);
  if (events) *events = r.events;
  reader_free(&r);
  return rc;
}

int cgp_trace_seal(unsigned char *data, size_t len, char *err, size_t errlen) {
  tr_reader r = {.p = data, .len = len, .name = "trace", .err = err, .errlen = errlen, .seal = data};
  int rc = read_trace(&r);
  reader_free(&r);
  return rc;
}

/* ---- replay ------------------------------------------------------------------------------------- */

static cJSON *sample_of(cJSON *kernel, uint64_t launch) {
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(kernel, "samples")) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(s, "launch");
    if (cJSON_IsNumber(l) && l->valuedouble == (double)launch) return s;
  }
  return NULL;
}

/* One device through every launch, in program order, on a session of its own (the device alone,
   its caches new, no din stream, the what-if tilings on): its L2 is one for the whole program.
   The program's session (cgp_rt_g.session) is not touched. */
static int replay_device(tr_reader *r, cJSON *kernels, const cgp_device *dev, int *partial, char *err, size_t errlen) {
  rt_session ses = {.ndev = 1, .whatif = 1};
  ses.dev[0] = *dev;
  ses.l2[0] = rt_device_l2(dev, ses.general_caches);
  if (!ses.l2[0]) {
    snprintf(err, errlen, "device '%s': its L2 geometry cannot be simulated (or out of memory)", dev->name);
    return -1;
  }
  for (size_t i = 0; i < r->nk; i++) {
    rt_kernel *k = r->k[i];
    if (!k) continue;
    cgp_analysis_set_free(k->an[0]);
    k->an[0] = NULL;
    if (k->site[0]) memset(k->site[0], 0, (k->nmem ? k->nmem : 1) * sizeof **k->site);
  }
  int rc = 0;
  for (size_t li = 0; li < r->nl && !rc; li++) {
    tr_launch *l = &r->l[li];
    rt_kernel *k = r->k[l->kid];
    if (l->tail) {                            /* a run's untraced tail, warming as in the run */
      rt_tail_warm(&ses, k, 0, l->tail);
      continue;
    }
    unsigned tpb = l->block[0] * l->block[1] * l->block[2];
    /* the device's batches cut at the window's end, where the window does not hold the whole grid
       (a grid the window holds is in one batch either way: exact); said per kernel */
    if (2 * rt_batch_blocks(&ses, 0, tpb) > l->W && l->G > l->W) {
      *partial = 1;
      cJSON *kj = kernels ? cJSON_GetArrayItem(kernels, (int)l->kid) : NULL, *e;
      cJSON *list = kj ? cJSON_GetObjectItemCaseSensitive(kj, "replay_partial") : NULL;
      if (kj && !list) list = cJSON_AddArrayToObject(kj, "replay_partial");
      int seen = 0;
      cJSON_ArrayForEach(e, list) seen |= !strcmp(cJSON_GetStringValue(e), dev->name);
      if (list && !seen) cJSON_AddItemToArray(list, cJSON_CreateString(dev->name));
    }
    cgp_analysis_set *an = rt_kernel_analyses(&ses, k, 0);
    if (!an || !k->site[0]) { snprintf(err, errlen, "out of memory replaying the trace"); rc = -1; break; }
    cgp_analysis_begin_launch(an);
    rt_window_launch_begin(k, 0);
    cJSON *s = l->G && kernels ? sample_of(cJSON_GetArrayItem(kernels, (int)l->kid), l->launch) : NULL;
    double threads = s ? cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "threads")) : 0;
    double block_threads = threads > 0 ? threads / (double)l->G : 0;   /* the launch's mean block */
    /* each window's stats added to the launch's sums as it is analysed (rt_launch_stats_add, then _sum, in
       window order: the same bits), none kept: a trace of many windows costs no memory for them */
    cgp_totals sum = {0}, sum_tiled = {0};
    rt_wstat ws[2];                           /* the window before (centred with the next: rt_wstat_centre) */
    for (size_t i = 0; i < l->norder; i++) {
      rt_window *w = &l->win[l->order[i]].w;
      rt_wstat *cur = &ws[i % 2], *prev = &ws[(i + 1) % 2];
      memset(cur, 0, sizeof *cur);
      memset(w->next, 0, sizeof w->next);
      memset(w->counted, 0, sizeof w->counted);
      memset(w->threads_counted, 0, sizeof w->threads_counted);
      rt_window_finish(&ses, k, w, 0, tpb, l->full == 2 ? 2 : !l->full && w->start > 0, NULL, cur);
      if (!i) continue;
      rt_wstat_centre(prev, cur);
      if (s) rt_launch_stats_add(prev, l->G, block_threads, &sum, &sum_tiled, NULL);
    }
    if (s && l->norder) rt_launch_stats_add(&ws[(l->norder - 1) % 2], l->G, block_threads, &sum, &sum_tiled, NULL);
    rt_window_launch_end(&ses, k, 0, l->G);
    cgp_analysis_end_launch(an);
    if (s) {
      cgp_kernel_stats st;
      rt_launch_stats_sum(&sum, tpb, &st);
      rt_tile_stats(k, 0, &st);
      cJSON *an_json = cJSON_GetObjectItemCaseSensitive(s, "analysis");
      cJSON_DeleteItemFromObjectCaseSensitive(an_json, dev->name);
      cJSON_AddItemToObject(an_json, dev->name, cgp_report_stats_to_json(&st));
      cJSON *ti_json = cJSON_GetObjectItemCaseSensitive(s, "analysis_tiled");
      if (ti_json) cJSON_DeleteItemFromObjectCaseSensitive(ti_json, dev->name);
      if (rt_launch_stats_tiled(k, 0, &sum_tiled, tpb, &st)) {
        if (!ti_json) ti_json = cJSON_AddObjectToObject(s, "analysis_tiled");
        cJSON_AddItemToObject(ti_json, dev->name, cgp_report_stats_to_json(&st));
      }
    }
  }
  /* each site's figures for the device, as the run gives them for its devices */
  for (size_t i = 0; i < r->nk && !rc && kernels; i++) {
    if (!r->k[i]) continue;
    cJSON *mem = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(kernels, (int)i), "memory"), *m;
    size_t j = 0;
    cJSON_ArrayForEach(m, mem) {
      if (j >= r->k[i]->nmem) break;
      cJSON *by = cJSON_GetObjectItemCaseSensitive(m, "by_device");
      if (!cJSON_IsObject(by)) by = cJSON_AddObjectToObject(m, "by_device");
      cJSON_DeleteItemFromObjectCaseSensitive(by, dev->name);
      rt_site_stats_json(cJSON_AddObjectToObject(by, dev->name), &r->k[i]->site[0][j]);
      j++;
    }
  }
  for (size_t i = 0; i < r->nk; i++) {
    if (!r->k[i]) continue;
    cgp_analysis_set_free(r->k[i]->an[0]);
    r->k[i]->an[0] = NULL;
  }
  rt_session_free_caches(&ses);
  return rc;
}

static int not_this_reports(tr_reader *r, size_t at, const char *what) {
  snprintf(r->err, r->errlen, "%s: byte %zu: %s: the trace is not this report's (run the program again to write "
           "the report and its trace together)", r->name, at, what);
  return -1;
}

/* A trace is replayed only with the report of its own run: the same run id, the warp events the
   report says the run wrote (so a replay's work is what the report promises), the kernels in the
   report's places with its names, memory sites (the warps' site ids are checked against the
   descriptor's) and dimensions, and each launch with the report's block shape and a launch
   number below the kernel's launches. The report has passed cgp_report_parse. */
static int check_against_report(tr_reader *r, const cJSON *report) {
  char m[600];
  const cJSON *rt = cJSON_GetObjectItemCaseSensitive(report, "runtime");
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rt, "run_id"));
  char mine[24];
  snprintf(mine, sizeof mine, "%016llx", (unsigned long long)r->run_id);
  if (!id) return not_this_reports(r, 16, "the report names no run id (an older cgpredict wrote it)");
  if (strcmp(id, mine) != 0) {
    snprintf(m, sizeof m, "the trace of run %s, the report of run %.40s (a stale trace)", mine, id);
    return not_this_reports(r, 16, m);
  }
  const cJSON *ev = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rt, "trace"), "events");
  if (!cJSON_IsNumber(ev) || ev->valuedouble != (double)r->events) {
    snprintf(m, sizeof m, "its warps hold %llu events, the report's run wrote %.0f", (unsigned long long)r->events,
             cJSON_IsNumber(ev) ? ev->valuedouble : -1.0);
    return not_this_reports(r, r->len - 12, m);
  }
  const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(report, "kernels");
  for (size_t i = 0; i < r->nk; i++) {
    if (!r->k[i]) continue;
    const char *kn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(kernels, (int)i), "name"));
    size_t base = strlen(r->k[i]->name);         /* the report's name may tell it from a namesake
                                                    (rt_kernel_names: " [function]", " #2") */
    if (!kn || strncmp(kn, r->k[i]->name, base) != 0 || (kn[base] && kn[base] != ' ')) {
      snprintf(m, sizeof m, "kernel %zu is '%.200s' in the trace but '%.200s' in the report", i, r->k[i]->name,
               kn ? kn : "(none)");
      return not_this_reports(r, r->kat[i], m);
    }
    const cJSON *rk = cJSON_GetArrayItem(kernels, (int)i);
    int sites = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rk, "memory"));
    double dims = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rk, "dims"));
    if ((size_t)sites != r->k[i]->nmem || dims != (double)r->k[i]->dims) {
      snprintf(m, sizeof m, "kernel '%.200s' has %zu memory sites and %u dimensions in the trace, %d and %.0f in the "
               "report", r->k[i]->name, r->k[i]->nmem, r->k[i]->dims, sites, dims);
      return not_this_reports(r, r->kat[i], m);
    }
  }
  for (size_t li = 0; li < r->nl; li++) {
    const tr_launch *l = &r->l[li];
    if (l->tail) continue;
    const cJSON *k = cJSON_GetArrayItem(kernels, (int)l->kid);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(k, "block");
    double launches = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(k, "launches"));
    int same = cJSON_GetArraySize(b) == 3;
    for (int d = 0; d < 3 && same; d++) same = cJSON_GetNumberValue(cJSON_GetArrayItem(b, d)) == (double)l->block[d];
    if (!same) {
      snprintf(m, sizeof m, "a launch of kernel '%.200s' in %ux%ux%u blocks, the report's are not that shape",
               r->k[l->kid]->name, l->block[0], l->block[1], l->block[2]);
      return not_this_reports(r, l->at, m);
    }
    if (!((double)l->launch < launches)) {
      snprintf(m, sizeof m, "launch %llu of kernel '%.200s', which the report says ran %.0f times",
               (unsigned long long)l->launch, r->k[l->kid]->name, launches);
      return not_this_reports(r, l->at, m);
    }
  }
  return 0;
}

int cgp_trace_replay_mem(const unsigned char *data, size_t len, const char *name, cJSON *report,
                         const cgp_device *devs, size_t ndev, int *partial, char *err, size_t errlen) {
  /* each kernel gets one device's per-site sums, reused by each device's session in turn */
  tr_reader r = {.p = data, .len = len, .name = name, .err = err, .errlen = errlen, .ndev = 1};
  int rc = read_trace(&r);
  cJSON *kernels = report ? cJSON_GetObjectItemCaseSensitive(report, "kernels") : NULL;
  if (!rc && report) rc = check_against_report(&r, report);
  for (size_t d = 0; d < ndev && !rc; d++) {
    int p = 0;
    rc = replay_device(&r, kernels, &devs[d], &p, err, errlen);
    if (partial) partial[d] = p;
  }
  reader_free(&r);
  return rc;
}

int cgp_trace_replay(const char *path, cJSON *report, const cgp_device *devs, size_t ndev, int *partial,
                     char *err, size_t errlen) {
  char *buf;
  size_t len;
  if (cgp_read_regular_file(path, CGP_TRACE_CAP_BYTES, &buf, &len, err, errlen) != 0) return -1;
  int rc = cgp_trace_replay_mem((const unsigned char *)buf, len, path, report, devs, ndev, partial, err, errlen);
  free(buf);
  return rc;
}
