/* cgp_an_deps.c: inter-thread dependences through memory within one launch.

   Invariant: for every element address seen (the first byte of an access), the table holds the
   two earliest distinct threads (in the sequential nest's order, cgp_thread_key) that read it and
   the two earliest that wrote it, each with its site. Two are enough: a new access by thread T
   conflicts with an earlier one iff some other thread accessed the element, and of two distinct
   threads at least one is not T. Kinds follow the sequential program: the earlier thread's access
   first (write then read: raw; read then write: war; write then write: waw), a descending
   loop's threads taken in the order it runs them (cgp_deps_order). Detection is exact
   for the accesses fed in, whatever their order (the runtime feeds warps round robin).

   Bounded memory: an open-addressing table of the power of two of slots at or above 2 x
   max_addresses, allocated at once and zeroed by the system page by page as entries first touch them
   (it used to grow by doubling, each step zeroing and rehashing a table twice the last: at ADI's
   N = 1024 that was half the check's page faults, and the rehash besides); short of address space,
   the largest half that maps, following half as many addresses. Once max_addresses are
   in it, new addresses are not tracked (cgp_deps_partial), tracked ones still are, and a bit per
   64-byte chunk turns away the rest without probing. A reset (each launch) costs the 128 KiB of
   those bits, not the table: entries carry its generation.

   The analysis (cgp_an_deps, in cgp_kernel_analyses): the check behind the analyzer interface,
   fed warp memory instructions. Each active lane's global access is checked, but a constant load
   only by its first two lanes (lanes reading one address: its two earliest readers are all the
   check keeps of readers), atomics not at all (they are the remedy, not a race), nor local or
   shared memory (each thread's own; the block's). Past cfg->deps_max_checked lane accesses in a
   launch it checks no more and says partial. */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

/* 64 bytes, and the table aligned to 64: a probe reads one host cache line (72 bytes, with gen
   after addr, straddled two in every other entry: CORR 512 full, the table 13 % of the CPU). */
typedef struct {
  uint64_t addr;                 /* valid only when gen is the table's: a reset is O(1) */
  uint64_t rd[2], wr[2];         /* thread keys, NONE if absent; [0] < [1] */
  uint32_t rd_sid[2], wr_sid[2];
  uint32_t gen;
  uint8_t red;                   /* two threads wrote it, one having read it before it ever wrote
                                    it: updated by several, a reduction */
  uint8_t scratch;               /* two threads wrote it, one having written it, read it back and
                                    written it again: scratch several use */
} entry;
_Static_assert(sizeof(entry) == 64, "an entry is a host cache line");

/* The system asked to back [p, p + n) with huge pages where it can (Linux's MADV_HUGEPAGE; a
   no-op where transparent huge pages are off). By the system call itself on x86-64 Linux: madvise
   would be one more import, which moves the program's own code by 16 bytes (the PLT), and a loop
   at another alignment runs at another speed (FDTD-2D's hot loop 30 % slower after two imports,
   2026-11-27). Elsewhere nothing is asked. */
static void ask_huge_pages(void *p, size_t n) {
#if defined(__x86_64__) && defined(__linux__)
  long ret, nr = 28 /* SYS_madvise */, advice = 14 /* MADV_HUGEPAGE */;
  __asm__ volatile("syscall" : "=a"(ret) : "0"(nr), "D"(p), "S"(n), "d"(advice) : "rcx", "r11", "memory");
  (void)ret;                     /* refused (no transparent huge pages): small pages, as before */
#else
  (void)p;
  (void)n;
#endif
}

/* n zeroed entries (*raw: what to free). calloc, not aligned_alloc and memset: the C library maps
   a block this large afresh (as a rule: above its mmap threshold), zeroed by the system page by
   page as entries first touch it, and calloc does not clear it again. A table of 2 MiB or more
   starts on a 2 MiB boundary and asks for huge pages: its entries are spread over it by hash, so
   with 4 KiB pages every lookup missed the TLB and the first touch of each of its 2048 pages
   faulted (ADI at N = 1024: the check was 15 % of the run's samples, 2000 of its 7200 page
   faults; with huge pages 5100 faults and the run 10 % shorter, 2026-11-29). A table under 2 MiB
   starts on a line. */
#define HUGE_PAGE ((size_t)2 << 20)
/* The table's first size, in entries: 2 MiB, one huge page (one page fault; in steps of 4 KiB
   pages from 256 KiB, JACOBI2D's run took 430 faults more, some 10 us each on this machine's
   virtual CPU). A launch that enters more than half of it has it made at its full size at once
   (grow: twice the addresses it follows, 2^17 entries, 8 MiB, for 2^16). Made at its full size
   from the start, it was 8 MiB for every kernel however few addresses it held, its huge pages
   zeroed on first touch, its lookups spread over 8 MiB by hash: DOITGEN's kernels hold 4096
   addresses a launch. */
#define FIRST_CAP ((size_t)1 << 15)
static entry *new_table(size_t n, void **raw) {
  size_t bytes = n * sizeof(entry), align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
  *raw = calloc(bytes + align, 1);
  if (!*raw) return NULL;
  entry *t = (entry *)(((uintptr_t)*raw + align - 1) & ~(uintptr_t)(align - 1));
  if (align == HUGE_PAGE) ask_huge_pages(t, bytes / HUGE_PAGE * HUGE_PAGE);
  return t;
}

struct cgp_deps {
  entry *tab;
  void *raw;                     /* tab's allocation */
  size_t cap, used, max;
  size_t full_cap;               /* the most cap grows to: at least twice max (lookup, grow) */
  uint32_t gen;
  int partial;
  cgp_dep *found;
  size_t nfound, capfound;
  uint64_t *chunks;              /* CHUNK_BITS bits: a chunk has an entry (never a false no) */
  uint64_t order;                /* XORed into thread keys: the table holds the sequential order */
  cgp_laws *laws;                /* the sites' address laws (NULL: none): the analysis's, which
                                    resets them with the launch's dimensions */
};

static uint64_t hash(uint64_t x) {
  x ^= x >> 33; x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33; x *= UINT64_C(0xc4ceb9fe1a85ec53);
  return x ^ (x >> 33);
}

/* Once the table is full, most new addresses are not in it; a bit per 64-byte chunk (hashed)
   says whether any address of the chunk was ever entered, so those are turned away without a
   probe sequence through the table (a sweep of a large array past the bound). */
#define CHUNK_BITS (UINT64_C(1) << 20)

/* An address's first slot: the elements of one 64-byte chunk (its 4-byte words) take consecutive
   slots after the chunk's hashed place, so a thread walking an array probes the table in order,
   as the host's prefetcher follows, not a random line per element. A slot taken is passed by
   PROBE slots, not 1: two chunks hashed to one place would otherwise probe through each other's
   16 words (ADI at N = 1024: 7.2 probes a lookup with 1, 0.6 with 17). PROBE is odd: with a power
   of two of slots the probe sequence visits them all. */
#define PROBE 17
/* Both from h = hash(addr >> 6), the address's chunk's: computed once an access, and once for the
   lanes of a warp instruction in one chunk (check_warp_mem). */
static size_t slot_of(uint64_t h, uint64_t addr, size_t cap) { return (size_t)(h * 16 + (addr >> 2 & 15)) & (cap - 1); }
static uint64_t chunk_bit_of(uint64_t h) { return h & (CHUNK_BITS - 1); }

cgp_deps *cgp_deps_new(size_t max_addresses) {
  cgp_deps *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->max = max_addresses ? max_addresses : 1;
  if (d->max > SIZE_MAX / 4 / sizeof(entry)) d->max = SIZE_MAX / 4 / sizeof(entry);
  for (d->full_cap = 64; d->full_cap < 2 * d->max; d->full_cap *= 2) {}   /* at most half full */
  d->cap = d->full_cap < FIRST_CAP ? d->full_cap : FIRST_CAP;
  /* short of address space (ulimit -v): a smaller table, which follows fewer addresses and says
     partial once they are in it */
  while (!(d->tab = new_table(d->cap, &d->raw)) && d->cap > 64) d->cap /= 2;
  if (d->cap < FIRST_CAP && d->cap < d->full_cap) d->full_cap = d->cap;
  if (d->max > d->full_cap / 2) d->max = d->full_cap / 2;
  d->chunks = calloc(CHUNK_BITS / 64, sizeof *d->chunks);
  if (!d->tab || !d->chunks) { cgp_deps_free(d); return NULL; }
  d->gen = 1;
  return d;
}

void cgp_deps_free(cgp_deps *d) {
  if (!d) return;
  free(d->raw);
  free(d->found);
  free(d->chunks);
  cgp_laws_free(d->laws);
  free(d);
}

void cgp_deps_reset(cgp_deps *d) {
  if (++d->gen == 0) {           /* wrapped: clear for real once in 2^32 resets */
    memset(d->tab, 0, d->cap * sizeof *d->tab);
    d->gen = 1;
  }
  if (d->used) memset(d->chunks, 0, CHUNK_BITS / 8);
  d->used = 0;
  d->partial = 0;
  d->nfound = 0;
  d->order = 0;
}

/* Whether the table is full and addr's chunk (h) never entered: an address turned away. */
static int turned_away(const cgp_deps *d, uint64_t h) {
  uint64_t bit = chunk_bit_of(h);
  return d->used >= d->max && !(d->chunks[bit / 64] >> (bit % 64) & 1);
}

/* The table at its full size, every entry of this launch entered again (its place follows the
   size): 0, or -1 where the memory is not there (the table stays, and grows no more: it follows
   half its slots, then says partial). At once, not doubling: each size on the way would be huge
   pages zeroed whole (ADI at N = 1024, 2^16 addresses: 2 + 4 + 8 MiB). */
static int grow(cgp_deps *d) {
  size_t cap = d->full_cap;
  void *raw;
  entry *t = new_table(cap, &raw);
  if (!t) {
    d->full_cap = d->cap;
    if (d->max > d->cap / 2) d->max = d->cap / 2;
    return -1;
  }
  for (size_t k = 0; k < d->cap; k++) {
    const entry *e = &d->tab[k];
    if (e->gen != d->gen) continue;
    size_t i = slot_of(hash(e->addr >> 6), e->addr, cap);
    while (t[i].gen == d->gen) i = (i + PROBE) & (cap - 1);
    t[i] = *e;
  }
  free(d->raw);
  d->raw = raw;
  d->tab = t;
  d->cap = cap;
  return 0;
}

static entry *lookup(cgp_deps *d, uint64_t addr, uint64_t h) {
  if (turned_away(d, h)) { d->partial = 1; return NULL; }
  size_t i = slot_of(h, addr, d->cap);
  while (d->tab[i].gen == d->gen && d->tab[i].addr != addr) i = (i + PROBE) & (d->cap - 1);
  if (d->tab[i].gen == d->gen) return &d->tab[i];
  if (d->used >= d->max) { d->partial = 1; return NULL; }
  if (2 * (d->used + 1) > d->cap && d->cap < d->full_cap && grow(d) == 0) {   /* at most half full */
    i = slot_of(h, addr, d->cap);
    while (d->tab[i].gen == d->gen) i = (i + PROBE) & (d->cap - 1);
  }
  uint64_t bit = chunk_bit_of(h);
  d->chunks[bit / 64] |= UINT64_C(1) << (bit % 64);
  entry *e = &d->tab[i];
  e->addr = addr;
  e->gen = d->gen;
  e->rd[0] = e->rd[1] = e->wr[0] = e->wr[1] = NONE;
  e->red = 0;
  e->scratch = 0;
  d->used++;
  return e;
}

/* The dependence of this kind between these sites found so far, or NULL. */
static cgp_dep *found_dep(cgp_deps *d, cgp_dep_kind kind, uint32_t s1, uint32_t s2) {
  for (size_t i = 0; i < d->nfound; i++)
    if (d->found[i].kind == kind && d->found[i].first_sid == s1 && d->found[i].second_sid == s2) return &d->found[i];
  return NULL;
}

static void note(cgp_deps *d, cgp_dep_kind kind, uint64_t t1, uint32_t s1, uint64_t t2, uint32_t s2,
                 uint64_t addr, int reduction, int scratch) {
  cgp_dep *f = found_dep(d, kind, s1, s2);
  if (f) {
    f->count++;
    f->reduction |= reduction;
    f->scratch |= scratch;
    return;
  }
  if (d->nfound == d->capfound) {
    size_t n = d->capfound ? 2 * d->capfound : 8;
    cgp_dep *p = realloc(d->found, n * sizeof *p);
    if (!p) return;
    d->found = p;
    d->capfound = n;
  }
  d->found[d->nfound++] = (cgp_dep){kind, s1, s2, t1 ^ d->order, t2 ^ d->order, addr, 1, reduction, scratch, 0};
}

/* The dependence of this kind between these sites, if found already, is part of a reduction (its
   read noted before the writes that showed the update). */
static void mark_reduction(cgp_deps *d, cgp_dep_kind kind, uint32_t s1, uint32_t s2) {
  cgp_dep *f = found_dep(d, kind, s1, s2);
  if (f) f->reduction = 1;
}

/* Another thread than t among the two recorded, or NONE. */
static int other(const uint64_t th[2], uint64_t t) {
  if (th[0] != NONE && th[0] != t) return 0;
  if (th[1] != NONE && th[1] != t) return 1;
  return -1;
}

static void keep(uint64_t th[2], uint32_t sid[2], uint64_t t, uint32_t s) {
  if (th[0] == t || th[1] == t) return;
  if (th[0] == NONE || t < th[0]) {
    th[1] = th[0]; sid[1] = sid[0];
    th[0] = t; sid[0] = s;
  } else if (th[1] == NONE || t < th[1]) {
    th[1] = t; sid[1] = s;
  }
}

/* The slot addr's probe starts at, fetched ahead, unless the address will be turned away (a full
   table: most of a large array's addresses, whose slots it would fetch for nothing). */
static void prefetch_h(const cgp_deps *d, uint64_t addr, uint64_t h) {
  if (!turned_away(d, h)) __builtin_prefetch(&d->tab[slot_of(h, addr, d->cap)]);
}

void cgp_deps_order(cgp_deps *d, uint64_t mask) { d->order = mask; }

static void access_h(cgp_deps *d, uint64_t addr, uint64_t h, uint64_t t, uint32_t sid, int is_store) {
  t ^= d->order;                                 /* from here on, < is "runs first" */
  entry *e = lookup(d, addr, h);
  if (!e) return;
  int w = other(e->wr, t);
  if (is_store) {
    int r = other(e->rd, t);
    /* an update of what others left (a sum, a bin), not a thread's own scratch: it read the
       element before it ever wrote it (Parboil's sad: every thread writes a global row `line`,
       then reads it back, then writes it again: a shared scratch array, not a reduction) */
    int own_read = e->rd[0] == t || e->rd[1] == t, wrote = e->wr[0] == t || e->wr[1] == t;
    if (w >= 0) {
      int red = own_read && !wrote, scratch = own_read && wrote;
      e->red |= (uint8_t)red;
      e->scratch |= (uint8_t)scratch;
      if (red) {                 /* t's read of the other's value, noted before: that update's */
        uint32_t rs = e->rd[0] == t ? e->rd_sid[0] : e->rd_sid[1];
        if (e->wr[w] < t) mark_reduction(d, CGP_DEP_RAW, e->wr_sid[w], rs);
        else mark_reduction(d, CGP_DEP_WAR, rs, e->wr_sid[w]);
      }
      if (e->wr[w] < t) note(d, CGP_DEP_WAW, e->wr[w], e->wr_sid[w], t, sid, addr, red, scratch);
      else note(d, CGP_DEP_WAW, t, sid, e->wr[w], e->wr_sid[w], addr, red, scratch);
    }
    /* on an element several threads update (a reduction) or reuse (a scratch): part of that, not
       a recurrence (a scan's element, updated by its own thread and read by the next, is neither) */
    if (r >= 0) {
      if (e->rd[r] < t) note(d, CGP_DEP_WAR, e->rd[r], e->rd_sid[r], t, sid, addr, e->red, e->scratch);
      else note(d, CGP_DEP_RAW, t, sid, e->rd[r], e->rd_sid[r], addr, e->red, e->scratch);
    }
    keep(e->wr, e->wr_sid, t, sid);
  } else {
    if (w >= 0) {
      if (e->wr[w] < t) note(d, CGP_DEP_RAW, e->wr[w], e->wr_sid[w], t, sid, addr, e->red, e->scratch);
      else note(d, CGP_DEP_WAR, t, sid, e->wr[w], e->wr_sid[w], addr, e->red, e->scratch);
    }
    keep(e->rd, e->rd_sid, t, sid);
  }
}

void cgp_deps_access(cgp_deps *d, uint64_t addr, uint64_t t, uint32_t sid, int is_store) {
  access_h(d, addr, hash(addr >> 6), t, sid, is_store);
}

const cgp_dep *cgp_deps_found(const cgp_deps *d, size_t *n) {
  *n = d->nfound;
  return d->found;
}

int cgp_deps_partial(const cgp_deps *d) { return d->partial; }

size_t cgp_deps_beyond(const cgp_deps *d, const uint64_t hi[3], cgp_dep *out, size_t cap) {
  return d->laws ? cgp_laws_beyond(d->laws, hi, d->order, d->found, d->nfound, out, cap) : 0;
}
uint64_t cgp_deps_addresses(const cgp_deps *d) { return d->used; }

/* ---- the analysis ------------------------------------------------------------------------------ */

typedef struct {
  const cgp_analysis_cfg *cfg;
  cgp_deps *d;
  uint64_t checked;              /* lane accesses checked this launch */
} check;

static void *check_create(const cgp_analysis_cfg *cfg) {
  check *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->cfg = cfg;
  if (!(c->d = cgp_deps_new(cfg->deps_max_addresses)) || !(c->d->laws = cgp_laws_new())) {
    cgp_deps_free(c->d);
    free(c);
    return NULL;
  }
  return c;
}

static void check_begin_launch(void *self) {
  check *c = self;
  cgp_deps_reset(c->d);
  cgp_deps_order(c->d, c->cfg->thread_order);
  cgp_laws_reset(c->d->laws, c->cfg->dims);
  c->checked = 0;
}

static void check_warp_mem(void *self, const cgp_warp_mem *m) {
  check *c = self;
  if (m->kind == CGP_ATOMIC || m->space != CGP_SPACE_GLOBAL || c->checked >= c->cfg->deps_max_checked) return;
  unsigned n = m->cls == CGP_CLASS_CONST && m->kind == CGP_LOAD && m->nact > 2 ? 2 : m->nact;
  enum { MAXL = 64 };
  uint64_t h[MAXL];                              /* each lane's chunk hash: lanes of one chunk share it */
  for (unsigned l = 0; l < n && l < MAXL; l++) {
    h[l] = l && m->addr[l] >> 6 == m->addr[l - 1] >> 6 ? h[l - 1] : hash(m->addr[l] >> 6);
    prefetch_h(c->d, m->addr[l], h[l]);
  }
  for (unsigned l = 0; l < n; l++)
    access_h(c->d, m->addr[l], l < MAXL ? h[l] : hash(m->addr[l] >> 6), m->thread[m->lane[l]], m->sid,
             m->kind == CGP_STORE);
  /* the laws: lanes on one stride (cgp_affine) fit a law if their first and last do, their
     threads being consecutive (a warp over two rows of the block is not on one stride) */
  int whole = m->nact == m->warp_threads;
  for (unsigned l = 0; l < n; l = m->affine && l == 0 && n > 2 ? n - 1 : l + 1)
    cgp_laws_see(c->d->laws, m->sid, m->thread[m->lane[l]], m->addr[l], m->kind == CGP_STORE, whole);
  c->checked += n;
  if (c->checked >= c->cfg->deps_max_checked) c->d->partial = 1;
}

static void check_destroy(void *self) {
  check *c = self;
  cgp_deps_free(c->d);
  free(c);
}

const cgp_deps *cgp_an_deps_state(const void *self) { return ((const check *)self)->d; }

const cgp_analysis_ops cgp_an_deps = {.name = "deps", .create = check_create, .begin_launch = check_begin_launch,
                                      .warp_mem = check_warp_mem, .destroy = check_destroy};
