/* cgp_an_cache.c: the caches a warp memory instruction goes through (MODEL.md section 4;
   docs/model.md, "L1" and "Stores").

   What it models:
   - A transaction is one cache unit: a 32-byte sector where the device's cache is sectored, else
     a line. An instruction's transactions are the distinct units its active lanes touch
     (cgp_lines), an access straddling a boundary touching both.
   - Loads go through the L1 of their block's SM when the device caches global loads there
     (flushed when a launch starts, as CUDA's L1 is not coherent across kernels); the units the
     L1 misses go to the L2. Each L1 is LRU over its capacity (fully associative).
   - An L1 lookup of a unit whose fill is still in flight is not a hit: it merges with the miss
     (MSHR) and waits as long. In flight means requested by a memory instruction issued on the
     same SM within the last round of its resident warps (the round-robin issue order of
     MODEL.md section 4: a round of N warps' memory instructions takes less than one L2 round
     trip). It adds no L2 traffic; it is counted as an L1 miss (l1_trans without l1_hit), and
     where the fill it merges with missed the L2, as a wait for DRAM (ld_merged_dram): it
     waits as long as that fill.
   - An instruction is an L1 hit only when all its units hit: a warp's load completes when its
     last access returns, so its units count as l1_hit all together or not at all (docs/model.md
     section 5c); only the units that missed go to the L2.
   - Stores and atomics go to the L2 (L1 write-through without allocation); the L2 allocates on
     write (write-back), so a store miss costs DRAM traffic.
   - Local memory (a thread's own array, CGP_SPACE_LOCAL) is cached in the L1 of every device
     that has one, whether or not it caches global loads there: "On devices of compute
     capability 2.x and higher, all local memory accesses are always cached in L1 and L2"
     (Nsight Visual Studio Edition, "Memory Statistics - Local"). Its loads take the L1 path of
     global loads; its stores also allocate their units in the L1 (the PTX ISA: "Data stored to
     local per-thread memory is cached in L1 and L2 with write-back") [choice: they still go on
     to the L2, as if written through: a write-back L1 would send them later, on eviction, which
     is not modelled; this overcounts the L2 stores of a local array that stays in the L1, never
     undercounts them]. An atomic is one L2 operation per
     lane: same-address atomics serialise there.
   - Each instruction takes LSU wavefronts: one per distinct L1 line (128 bytes) its lanes touch,
     one per lane for an atomic (docs/model.md section 9).
   - The L2 is the device's, passed in the configuration, and keeps its contents from launch to
     launch and kernel to kernel. Hits of the counted batches on lines an earlier launch left there
     (cgp_l2_mark at the launch's start) are counted as inherited (l2_inherited), weighted as their
     instruction's misses are, a span's by 1: what a launch would lose were its caches cold.
   - Blocks the GPU runs but the sample did not trace (skip_blocks) bring as many new lines into
     the L2 per block as the last window's measured blocks did (its L2 misses over its blocks):
     the L2 is aged by that many lines nobody references again (cgp_l2_age), so what an earlier
     window or launch left there survives only as long as it would on the GPU (docs/model.md
     section 4c). The lines that window and the one before both referenced are referenced again
     after them (cgp_shared: data the whole grid shares, a vector every block reads, which those
     blocks went on referencing: without it the new lines evicted them, CORR's mean and stddev at
     N = 512 on the TK1 missing 3.6 % sampled against none in `full`).
   - The loop iterations a sampled instruction stood for (its span: docs/pipeline.md, "Sampling
     inside a thread") go through the L2 after it, on each lane's stride (cgp_spans): what they
     bring in is there for what comes after them, in later windows, blocks and launches, as in a
     full trace (ADI's kernel 2 reads the last column kernel 1's threads reach in iterations the
     sample skipped: +399 % against `full` at N = 512 before, 0 now). They pend until the warp
     moves on (an instruction that carries none) and enter with every warp's and site's,
     iteration by iteration; not before the window's last iteration, where they would evict what
     the window's own later iterations read. Their transactions are the instruction's, 1 + skipped
     times, but through an L1 that caches global loads: there its L1 misses, a unit its lanes
     re-read (one stride back in the unit) as often as it stands for executions, the span's units
     where the L1 misses them (l1_rereads, refer_l1); their L2 misses, where the window's
     elements are `spanned`, are of two kinds. A unit a lane reaches anew (its span references
     it) misses where the L2 does not hold it, counted as a miss of the instruction's class, site
     and batch (span_tag, refer): a window whose L2 differs from the rest of the loop's no longer
     stands for it (GRAMSCHM's kernel 1 at N = 512, one
     thread down a column of which the L2 holds the lower half: +24 % against `full` before). A
     unit a lane re-reads (its address one stride back in the same unit: a row walked in 4-byte
     steps) misses as the window's element did (rereads): whether it survived the iteration
     between is what the window measured with every warp of the batch running, and a span, which
     references a unit once, cannot tell (GESUMMV at N = 1024, whose 2048 rows thrash TK1's L2 at
     every iteration: -70 % counting the spans alone); a loop's iteration 0 re-reads nothing
     (cgp_warp_mem's `first`: its lanes read nothing one stride back). */
#include "cgp_analyzer.h"

#include <stdlib.h>
#include <string.h>

#define FILLS 1024              /* recent L1 fills remembered per SM (direct mapped) */

typedef struct {
  uint64_t unit, stamp;
  int dram;                       /* its L2 reference missed: the fill comes from DRAM */
} fill;

typedef struct {
  const cgp_analysis_cfg *cfg;
  int counting;
  uint64_t round;                 /* memory instructions per SM in one round of its warps */
  uint64_t *clock;                /* per SM: memory instructions issued */
  fill *fills;                    /* per SM: FILLS recent fills */
  cgp_l2 *l2, *own_l2;
  cgp_l2 **l1;                    /* per SM, created when first used */
  int has_l1;                     /* the device has an L1 (local memory goes through it) */
  int use_l1;                     /* and it caches global loads */
  unsigned wf_bytes;              /* LSU wavefront: the device's, or a 128-byte L1 line */
  int wf_shift;                   /* wf_bytes = L2 unit << wf_shift, both powers of two; -1: not */
  int l2_shift;                   /* the L2 unit is 1 << l2_shift bytes; -1: not a power of two */
  int l1_shift;                   /* likewise the L1's */
  cgp_totals t;
  double win_miss, win_blocks;    /* L2 misses and blocks of the window's measured batches */
  double warm_miss, warm_blocks;  /* and of its batches that only warm the caches */
  cgp_site_totals *site;
  cgp_spans *spans;               /* skipped iterations pending (NULL: none yet, or no memory) */
  cgp_shared *shared;             /* the units the last two windows referenced (NULL: no memory) */
  uint64_t unit1[2 * CGP_WARP * 8], unit2[2 * CGP_WARP * 8 * 4];
  unsigned char hit2[2 * CGP_WARP * 8 * 4];        /* unit2's L2 results, for L1 fills */
  unsigned char hit_ref[CGP_REFS_MAX];             /* refer's L2 results */
} cache;

static void *create(const cgp_analysis_cfg *cfg) {
  cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->cfg = cfg;
  c->l2 = cfg->l2;
  if (!c->l2) c->l2 = c->own_l2 = cgp_l2_new_as(cfg->l2_bytes, cfg->l2_unit_bytes, cfg->l2_assoc, cfg->l2_index,
                                                     cfg->l2_general);
  c->has_l1 = cfg->l1_bytes && cfg->l1_unit_bytes && cfg->no_sm;
  c->use_l1 = cfg->l1_caches_global && c->has_l1;
  c->wf_bytes = cfg->wavefront_bytes ? cfg->wavefront_bytes : 128;
  c->l2_shift = cfg->l2_unit_bytes && cgp_is_pow2(cfg->l2_unit_bytes) ? (int)cgp_log2(cfg->l2_unit_bytes) : -1;
  c->l1_shift = cfg->l1_unit_bytes && cgp_is_pow2(cfg->l1_unit_bytes) ? (int)cgp_log2(cfg->l1_unit_bytes) : -1;
  c->wf_shift = cgp_is_pow2(c->wf_bytes) && cgp_is_pow2(cfg->l2_unit_bytes) && c->wf_bytes >= cfg->l2_unit_bytes
                    ? (int)cgp_log2(c->wf_bytes / cfg->l2_unit_bytes) : -1;
  if (c->has_l1) {
    c->l1 = calloc(cfg->no_sm, sizeof *c->l1);
    c->clock = calloc(cfg->no_sm, sizeof *c->clock);
    c->fills = calloc((size_t)cfg->no_sm * FILLS, sizeof *c->fills);
  }
  c->site = calloc(cfg->nsid ? cfg->nsid : 1, sizeof *c->site);
  c->shared = cgp_shared_new();                     /* NULL (no memory): no line kept across windows */
  if (!c->l2 || !c->site || (c->has_l1 && (!c->l1 || !c->clock || !c->fills))) {
    cgp_l2_free(c->own_l2);
    free(c->l1);
    free(c->clock);
    free(c->fills);
    free(c->site);
    free(c);
    return NULL;
  }
  return c;
}

/* L2 unit `unit` referenced, in the Dinero export (cfg->din): a load's (label 0) or a store's (1). */
static void din_line(const cache *c, int store, uint64_t unit) {
  fprintf(c->cfg->din, "%d %llx\n", store, (unsigned long long)(unit * c->cfg->l2_unit_bytes));
}

/* A span's tag (cgp_spans_add): where its misses count. Bit 31: a span's unit (CGP_REF_AGAIN, 0,
   has it clear); 30: the batch counts (else it warms); 29: counted as a store (warp_mem: not a
   load with a class); 28: a store (the Dinero label); 27: a load's unit that goes through its
   SM's L1, its misses counted nowhere (TAG_L1: a span whose instruction counts its skipped
   iterations' misses itself, not `spanned`); 24-26: the class; 16-23: the SM of a load whose
   units go through its L1 too (TAG_NO_SM: none); 0-15: the site (0xffff: none counted). */
#define TAG_SPAN (1u << 31)
#define TAG_COUNTING (1u << 30)
#define TAG_NOT_LOAD (1u << 29)
#define TAG_STORE (1u << 28)
#define TAG_L1 (1u << 27)
#define TAG_SM_SHIFT 16
#define TAG_NO_SM 0xffu
#define TAG_SITES 0xffffu

static uint32_t span_tag(const cache *c, const cgp_warp_mem *m) {
  uint32_t sid = m->sid < c->cfg->nsid && m->sid < TAG_SITES ? m->sid : TAG_SITES;
  int load = m->kind == CGP_LOAD && m->cls < CGP_NCLASS;
  uint32_t sm = load && c->use_l1 && m->space == CGP_SPACE_GLOBAL && m->sm % c->cfg->no_sm < TAG_NO_SM
                    ? m->sm % c->cfg->no_sm : TAG_NO_SM;
  return TAG_SPAN | (c->counting ? TAG_COUNTING : 0) | (load ? (uint32_t)m->cls << 24 : TAG_NOT_LOAD) |
         (m->kind != CGP_LOAD ? TAG_STORE : 0) | sm << TAG_SM_SHIFT | sid;
}

/* The tag of a span whose misses count nowhere (its instruction is not `spanned`: it counts its
   skipped iterations' misses itself): a store's labelled so in the Dinero export, a load's units
   through its SM's L1 where loads go through it, as a counted span's do (TAG_L1), else
   CGP_REF_AGAIN. */
static uint32_t quiet_tag(const cache *c, const cgp_warp_mem *m) {
  if (m->kind != CGP_LOAD) return TAG_STORE;
  uint32_t t = span_tag(c, m), sm = t >> TAG_SM_SHIFT & TAG_NO_SM;
  return sm == TAG_NO_SM ? CGP_REF_AGAIN : TAG_L1 | sm << TAG_SM_SHIFT | TAG_SITES;
}

/* An L2 miss of a span's unit: counted where warp_mem counts its instruction's own. */
static void span_miss(cache *c, uint32_t tag) {
  if (!(tag & TAG_COUNTING)) {
    c->warm_miss += 1;
    return;
  }
  c->win_miss += 1;
  if (tag & TAG_NOT_LOAD) c->t.st_dram += 1;
  else c->t.ld_dram[(tag >> 24) & 7] += 1;
  if ((tag & TAG_SITES) != TAG_SITES) c->site[tag & TAG_SITES].miss += 1;
}

static cgp_l2 *l1_of(cache *c, unsigned sm);

/* The first and last L2 units of L1 unit u (L1 units may be larger or smaller than the L2's). */
static void l2_span(const cache *c, uint64_t u, uint64_t *first, uint64_t *last) {
  unsigned a = c->cfg->l1_unit_bytes, b = c->cfg->l2_unit_bytes;
  *first = u * a / b;
  *last = (u * a + a - 1) / b;
}

/* A span's load units in its SM's L1 as well: the skipped iterations' loads fill it as they did
   on the GPU, so what the window read there before them is evicted as it was (GRAMSCHM's kernel 3
   on the H100: its second loop's window re-read in the L1 the rows its first loop's window left,
   which the first loop's 1984 skipped rows had evicted). Units of the L1's size. A counted span's
   (a `spanned` instruction's) unit the L1 misses is a transaction of the instruction's class and
   site, as many as the L2 units of the L1 unit it fetches (to_l2_units): the units its lanes reach
   anew in the skipped iterations (l1_rereads gives the others); a quiet span's instruction counts
   its own. */
static void refer_l1(cache *c, const uint64_t *units, const uint32_t *tag, unsigned n) {
  unsigned l2u = c->cfg->l2_unit_bytes, l1u = c->cfg->l1_unit_bytes;
  for (unsigned i = 0; i < n; i++) {
    unsigned sm = tag[i] >> TAG_SM_SHIFT & TAG_NO_SM;
    if (!(tag[i] & (TAG_SPAN | TAG_L1)) || sm == TAG_NO_SM) continue;
    cgp_l2 *l1 = l1_of(c, sm);
    if (!l1) continue;
    int counted = (tag[i] & TAG_SPAN) && (tag[i] & TAG_COUNTING);
    uint64_t a = units[i] * l2u;
    for (uint64_t u = a / l1u; u <= (a + l2u - 1) / l1u; u++) {
      if (cgp_l2_access(l1, u) || !counted) continue;
      uint64_t first, last;
      l2_span(c, u, &first, &last);
      double t = (double)(last - first + 1);
      c->t.ld_trans[(tag[i] >> 24) & 7] += t;
      if ((tag[i] & TAG_SITES) != TAG_SITES) c->site[tag[i] & TAG_SITES].trans += t;
    }
  }
}

/* Units referenced in the L2 (cgp_l2_refs): a span's misses counted, the rest nothing; and in the
   Dinero export. */
static void refer(void *ctx, const uint64_t *units, const uint32_t *tag, unsigned n) {
  cache *c = ctx;
  uint32_t spans = 0;
  for (unsigned i = 0; i < n; i++) spans |= tag[i];
  if (c->use_l1 && (spans & (TAG_SPAN | TAG_L1))) refer_l1(c, units, tag, n);
  if (!(spans & TAG_SPAN)) cgp_l2_access_many(c->l2, units, n);
  else {
    uint64_t inh = cgp_l2_inherited(c->l2);
    cgp_l2_access_each(c->l2, units, n, c->hit_ref);
    for (unsigned i = 0; i < n; i++)
      if (!c->hit_ref[i] && (tag[i] & TAG_SPAN)) span_miss(c, tag[i]);
    if (spans & TAG_COUNTING) c->t.l2_inherited += (double)(cgp_l2_inherited(c->l2) - inh);
  }
  if (c->cfg->din)
    for (unsigned i = 0; i < n; i++) din_line(c, (tag[i] & TAG_STORE) != 0, units[i]);
}

static void spans_flush(cache *c) {
  if (c->spans) cgp_spans_flush(c->spans, refer, c);
}

static void flush_l1(void *self) {
  cache *c = self;
  spans_flush(c);
  if (!c->has_l1) return;
  memset(c->fills, 0, (size_t)c->cfg->no_sm * FILLS * sizeof *c->fills);
  for (unsigned s = 0; s < c->cfg->no_sm; s++)
    if (c->l1[s]) cgp_l2_reset(c->l1[s]);
}

/* A launch: its SMs' L1s empty, and the L2 marked, so that its hits on what earlier launches left
   there are told apart (inherited: docs/model.md 5b, "Warming launches"). */
static void begin_launch(void *self) {
  cache *c = self;
  flush_l1(c);
  cgp_l2_mark(c->l2);
  if (c->shared) cgp_shared_begin_launch(c->shared);
}

static void begin_window(void *self) {
  cache *c = self;
  flush_l1(c);
  if (c->shared) cgp_shared_next_window(c->shared);
  c->win_miss = c->win_blocks = c->warm_miss = c->warm_blocks = 0;
}

/* docs/model.md section 4c: the untraced blocks' new lines, at the window's rate, then the lines
   the grid shares (header) */
static void skip_blocks(void *self, double blocks) {
  cache *c = self;
  spans_flush(c);
  /* the measured batches' rate; a window with none (a warming launch's) has only warming ones */
  double miss = c->win_blocks > 0 ? c->win_miss : c->warm_miss, nb = c->win_blocks > 0 ? c->win_blocks : c->warm_blocks;
  if (!(blocks > 0) || !(nb > 0)) return;
  double lines = blocks * miss / nb;
  uint64_t n = lines < 9e18 ? (uint64_t)(lines + 0.5) : UINT64_MAX;
  uint64_t first = cgp_l2_age(c->l2, &n);
  if (c->cfg->din)
    for (uint64_t i = 0; i < n; i++) din_line(c, 0, first + i);
  if (c->shared)
    cgp_shared_each(c->shared, blocks < 9e18 ? (uint64_t)(blocks + 0.5) : UINT64_MAX, miss / nb,
                    cgp_l2_capacity_lines(c->l2), refer, c);
}

/* docs/model.md 5b: a run's untraced last launches, as their footprint's law gives them: each
   range's units referenced in order, counted nowhere (loads, in the Dinero export) */
static void warm(void *self, const uint64_t *lo, const uint64_t *hi, size_t n) {
  cache *c = self;
  uint64_t ub = c->cfg->l2_unit_bytes, *u = c->unit2;
  unsigned nu = 0, cap = sizeof c->unit2 / sizeof *c->unit2;
  spans_flush(c);
  for (size_t i = 0; i < n; i++) {
    if (!(lo[i] < hi[i]) || !ub) continue;
    for (uint64_t x = lo[i] / ub; x <= (hi[i] - 1) / ub; x++) {
      u[nu++] = x;
      if (nu == cap) { cgp_l2_access_many(c->l2, u, nu); nu = 0; }
      if (c->cfg->din) din_line(c, 0, x);
    }
  }
  if (nu) cgp_l2_access_many(c->l2, u, nu);
}

static void begin_batch(void *self, int counting, unsigned nwarps, unsigned nblocks) {
  cache *c = self;
  spans_flush(c);
  c->counting = counting;
  if (counting) c->win_blocks += nblocks;
  else c->warm_blocks += nblocks;
  /* blocks go one per SM first: the busiest SM holds ceil(nwarps / min(nblocks, no_sm)) warps */
  unsigned sms = nblocks < c->cfg->no_sm ? nblocks : c->cfg->no_sm;
  c->round = sms ? (nwarps + sms - 1) / sms : nwarps;
}

/* The fill of `unit` on this SM less than a round ago (its data still on the way), or NULL. */
static const fill *in_flight(const cache *c, unsigned sm, uint64_t unit) {
  const fill *f = &c->fills[(size_t)sm * FILLS + unit % FILLS];
  return f->unit == unit && f->stamp && c->clock[sm] - f->stamp < c->round ? f : NULL;
}

/* Mark the fills of the L1 units in1[0..n1) whose L2 units (l2[0..n2), ascending, with hit[])
   missed: an L1 lookup that merges with one of them waits for DRAM. */
static void mark_dram_fills(cache *c, unsigned sm, const uint64_t *in1, unsigned n1, const uint64_t *l2,
                            const unsigned char *hit, unsigned n2) {
  unsigned k = 0;
  for (unsigned i = 0; i < n1; i++) {
    uint64_t first, last;
    l2_span(c, in1[i], &first, &last);
    while (k < n2 && l2[k] < first) k++;
    int dram = 0;
    for (unsigned j = k; j < n2 && l2[j] <= last; j++) dram |= !hit[j];
    c->fills[(size_t)sm * FILLS + in1[i] % FILLS].dram = dram;
  }
}

static cgp_l2 *l1_of(cache *c, unsigned sm) {
  sm %= c->cfg->no_sm;
  if (!c->l1[sm]) c->l1[sm] = cgp_l2_new_as(c->cfg->l1_bytes, c->cfg->l1_unit_bytes, 0, CGP_L2_FULLY_ASSOCIATIVE,
                                                  c->cfg->l2_general);
  return c->l1[sm];
}

/* Units of `bytes` covering the lanes' accesses: sorted, distinct. */
static unsigned units(const cgp_warp_mem *m, unsigned bytes, uint64_t *out) {
  unsigned elem = m->size ? m->size : 1;
  if (elem > bytes * 7) elem = bytes * 7;          /* <= 8 units per lane, out[]'s room; wider
                                                      elements are cut (docs/model.md) */
  return cgp_lines_known(m->addr, m->nact, elem, bytes, m->affine, out);
}

/* A local store's L1 units are allocated in its SM's L1 (header: write-back for local memory). */
static void local_store_l1(cache *c, const cgp_warp_mem *m) {
  unsigned sm = m->sm % c->cfg->no_sm, n1 = units(m, c->cfg->l1_unit_bytes, c->unit1);
  cgp_l2 *l1 = l1_of(c, sm);
  if (l1) cgp_l2_access_many(l1, c->unit1, n1);
}

/* Units of 2^shift times the size of the ascending distinct units in[0..n): the units units()
   would give at that size when in[] was not cut (no lane wider than 7 units), from n entries
   instead of every lane (a coalesced warp: 4 sectors, not 32 addresses). */
static unsigned coarser(const uint64_t *in, unsigned n, unsigned shift, uint64_t *out) {
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++)
    if (!k || out[k - 1] != in[i] >> shift) out[k++] = in[i] >> shift;
  return k;
}

/* The LSU wavefronts of m: one per distinct 128-byte L1 line (or the device's wavefront size). */
static unsigned wavefronts(cache *c, const cgp_warp_mem *m, int l2_units_whole, unsigned n2) {
  if (m->kind == CGP_ATOMIC) return m->nact;
  if (l2_units_whole && c->wf_shift >= 0) return coarser(c->unit2, n2, (unsigned)c->wf_shift, c->unit1);
  return units(m, c->wf_bytes, c->unit1);
}

/* L2 units of the L1 units in[0..n) (l2_span). */
static unsigned to_l2_units(const cache *c, const uint64_t *in, unsigned n, uint64_t *out) {
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++) {
    uint64_t first, last;
    l2_span(c, in[i], &first, &last);
    for (uint64_t u = first; u <= last && k < sizeof c->unit2 / sizeof *c->unit2; u++)
      if (!k || out[k - 1] != u) out[k++] = u;       /* inputs ascending: outputs ascending */
  }
  return k;
}

/* Where unit u lies in the ascending units[0..n): its index, or n. */
static unsigned unit_index(const uint64_t *units, unsigned n, uint64_t u) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (units[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && units[lo] == u ? lo : n;
}

#define MAX_UNITS (sizeof ((cache *)0)->unit2 / sizeof *((cache *)0)->unit2)

/* Of m's lanes, in units of ub bytes (1 << shift; shift -1: not a power of two), those that re-read
   their unit: their address the iteration before (one stride back) lies in it, so in a skipped
   iteration they read it again, where the others reach a new one (none in a loop's iteration 0,
   `first`: its lanes read nothing one stride back). Returns the share of all of them; share[i]
   gets the share of the lanes in units[i] (the ascending units[0..n), n <= MAX_UNITS), a unit no
   lane starts in (an element straddling two) the lanes' share. */
static double reread_shares(const cgp_warp_mem *m, const uint64_t *units, unsigned n, uint64_t ub, int shift,
                            double *share) {
  unsigned char lanes[MAX_UNITS], same[MAX_UNITS];
  memset(lanes, 0, n);
  memset(same, 0, n);
  unsigned all = 0, next = 0;                    /* next: the unit after the last lane's */
  for (unsigned l = 0; l < m->nact; l++) {
    uint64_t a = m->addr[l], before = a - (uint64_t)m->span[l].stride;
    uint64_t u = shift >= 0 ? a >> shift : a / ub;
    unsigned s = !m->first && (shift >= 0 ? ((a ^ before) >> shift) == 0 : a / ub == before / ub);
    all += s;
    unsigned i = next < n && units[next] == u ? next : unit_index(units, n, u);
    if (i == n) continue;                        /* not among the units (its L1 held it) */
    next = i + 1;
    lanes[i]++;
    same[i] += (unsigned char)s;
  }
  double mean = m->nact ? (double)all / m->nact : 0;
  for (unsigned i = 0; i < n; i++) share[i] = lanes[i] ? (double)same[i] / lanes[i] : mean;
  return mean;
}

/* Of m's lanes, the fraction that re-read their L2 unit (reread_shares). */
static double rereads(const cache *c, const cgp_warp_mem *m) {
  if (!m->span || !m->nact) return 0;
  return reread_shares(m, NULL, 0, c->cfg->l2_unit_bytes, c->l2_shift, NULL);
}

/* The L2 misses spanned instruction m stands for, unit by unit: the ascending units[0..n), hit[i]
   whether units[i] hit. A missed unit counts once for its own execution and, for each of the nl - 1
   other executions, as often as its lanes re-read it one stride back (reread_shares, lane by
   lane); the units its lanes reach anew in those executions are the span's to count (refer).
   Taking the instruction's misses times its lanes' mean re-read share instead overcounts where the
   lanes that miss are the ones that reach a unit anew (ADI's rows of 200 floats, every other one
   32 bytes off the TK1's 64-byte units: half the lanes start a unit where the other half re-read
   theirs; +25 % against `full`). */
static double spanned_misses(const cache *c, const cgp_warp_mem *m, const uint64_t *units, const unsigned char *hit,
                             unsigned n, double nl) {
  unsigned missed = 0;
  for (unsigned i = 0; i < n; i++) missed += !hit[i];
  if (!missed) return 0;
  double share[MAX_UNITS], total = 0;
  reread_shares(m, units, n, c->cfg->l2_unit_bytes, c->l2_shift, share);
  for (unsigned i = 0; i < n; i++)
    if (!hit[i]) total += 1 + (nl - 1) * share[i];
  return total;
}

/* The L2 transactions that L1 units in[0..n) (a spanned load's L1 misses, ascending) make in each
   execution it stands for besides its own: a unit its lanes re-read (reread_shares, in the L1's
   units) misses the L1 again as this one did, whether it survived the iteration between being
   what the window measured; a unit they reach anew is the span's to count, where the L1 misses it
   (refer_l1). Unit by unit as spanned_misses, each as many as its L2 units (to_l2_units). */
static double l1_rereads(const cache *c, const cgp_warp_mem *m, const uint64_t *in, unsigned n) {
  if (!n || !m->nact) return 0;
  double share[MAX_UNITS], total = 0;
  reread_shares(m, in, n, c->cfg->l1_unit_bytes, c->l1_shift, share);
  for (unsigned i = 0; i < n; i++) {
    uint64_t first, last;
    l2_span(c, in[i], &first, &last);
    total += (double)(last - first + 1) * share[i];
  }
  return total;
}

static void warp_mem(void *self, const cgp_warp_mem *m) {
  cache *c = self;
  int adds = m->carries && m->span;
  if (c->spans && !adds && cgp_spans_pending(c->spans, m->warp)) spans_flush(c);   /* the warp moved on */
  const cgp_analysis_cfg *cfg = c->cfg;
  unsigned n2, hits1 = 0, n1 = 0, miss, merged_dram = 0, nmiss = 0, sm = 0;
  int whole = 0;                                    /* unit2 holds every L2 unit of every lane */
  /* a spanned global load through the L1: its skipped executions' L2 transactions are its misses'
     re-reads (l1_again an execution) and the L1 misses of its spans (refer_l1) */
  int l1_spanned = 0;
  double l1_again = 0;
  if (m->space == CGP_SPACE_SHARED) return;         /* shared memory: the bank analysis's */
  if (m->kind == CGP_ATOMIC) {
    n2 = 0;
    for (unsigned l = 0; l < m->nact; l++) c->unit2[n2++] = m->addr[l] / cfg->l2_unit_bytes;
  } else if (m->kind == CGP_LOAD && (c->use_l1 || (m->space == CGP_SPACE_LOCAL && c->has_l1))) {
    n1 = units(m, cfg->l1_unit_bytes, c->unit1);
    sm = m->sm % cfg->no_sm;
    cgp_l2 *l1 = l1_of(c, sm);
    c->clock[sm]++;
    for (unsigned i = 0; i < n1; i++) {
      uint64_t u = c->unit1[i];
      if (l1 && cgp_l2_access(l1, u)) {
        const fill *f = in_flight(c, sm, u);       /* a hit on a fill in flight waits for it */
        hits1 += !f;
        merged_dram += f && f->dram;
        continue;
      }
      c->fills[(size_t)sm * FILLS + u % FILLS] = (fill){u, c->clock[sm], 0};
      c->unit1[nmiss++] = u;
    }
    if (hits1 != n1) hits1 = 0;                     /* one unit missing: the whole load waits */
    n2 = to_l2_units(c, c->unit1, nmiss, c->unit2);
    if (m->spanned && m->span && m->space == CGP_SPACE_GLOBAL && c->use_l1) {
      l1_spanned = 1;
      l1_again = l1_rereads(c, m, c->unit1, nmiss);  /* before wavefronts takes unit1 */
    }
  } else {
    n2 = units(m, cfg->l2_unit_bytes, c->unit2);
    whole = (m->size ? m->size : 1) <= cfg->l2_unit_bytes * 7;
    if (m->space == CGP_SPACE_LOCAL && c->has_l1 && m->kind == CGP_STORE) local_store_l1(c, m);
  }
  uint64_t inh = cgp_l2_inherited(c->l2);
  /* a spanned instruction weighs its misses unit by unit (spanned_misses): it needs each one's */
  int by_unit = m->spanned && m->span && m->space == CGP_SPACE_GLOBAL && m->kind != CGP_ATOMIC;
  if (nmiss) {                                      /* L1 fills: remember which come from DRAM */
    miss = n2 - cgp_l2_access_each(c->l2, c->unit2, n2, c->hit2);
    if (miss) mark_dram_fills(c, sm, c->unit1, nmiss, c->unit2, c->hit2, n2);
  } else if (by_unit)
    miss = n2 - cgp_l2_access_each(c->l2, c->unit2, n2, c->hit2);
  else
    miss = n2 - cgp_l2_access_many(c->l2, c->unit2, n2);
  if (m->space == CGP_SPACE_GLOBAL && c->shared) {
    uint64_t b = cgp_thread_block(c->cfg, m->thread[m->lane[0]], NULL);   /* its warp's block */
    cgp_shared_note_units(c->shared, c->unit2, n2, b);
  }
  unsigned wf = wavefronts(c, m, whole, n2);
  if (cfg->din)
    for (unsigned i = 0; i < n2; i++) din_line(c, m->kind != CGP_LOAD, c->unit2[i]);
  /* the iterations it stands for behave as it did, but for the L2 misses of the units their lanes
     reach anew where spans give them: the spans' own (refer); a lane that re-reads its unit misses
     as this one did. What lanes make counts their executions (nl; cgp_warp_mem_per_lanes), fewer
     than the instruction's where lanes left its loop at different iterations */
  double nl = cgp_warp_mem_lanes(m), nm = nl, wmiss = nl * miss;
  if ((adds || m->spanned) && m->space == CGP_SPACE_GLOBAL && m->kind != CGP_ATOMIC &&
      (c->spans || (c->spans = cgp_spans_new(cfg->l2_unit_bytes)))) {
    if (adds)   /* not spanned: referenced, counted nowhere, a store's labelled so in the Dinero export */
      cgp_spans_add(c->spans, m, m->spanned ? span_tag(c, m) : quiet_tag(c, m), refer, c);
    if (m->spanned) {
      nm = 1 + (nl - 1) * rereads(c, m);
      wmiss = by_unit ? spanned_misses(c, m, c->unit2, c->hit2, n2, nl) : nm * miss;
    }
  }
  if (!c->counting) {
    c->warm_miss += wmiss;
    return;
  }
  c->win_miss += wmiss;
  c->t.l2_inherited += nm * (double)(cgp_l2_inherited(c->l2) - inh);
  double wfs = cgp_warp_mem_per_lanes(m, wf), t1 = cgp_warp_mem_per_lanes(m, n1),
         t2 = l1_spanned && c->spans ? n2 + (nl - 1) * l1_again : cgp_warp_mem_per_lanes(m, n2);
  c->t.lsu_wavefronts += wfs;
  if (m->kind == CGP_LOAD && m->cls < CGP_NCLASS) {
    c->t.ld_wavefronts[m->cls] += wfs;
    c->t.l1_trans[m->cls] += t1;
    c->t.l1_hit[m->cls] += nl * hits1;
    c->t.ld_trans[m->cls] += t2;
    c->t.ld_dram[m->cls] += wmiss;
    c->t.ld_merged_dram[m->cls] += nl * merged_dram;
  } else {
    c->t.st_trans += t2;
    c->t.st_dram += wmiss;
  }
  if (m->sid < cfg->nsid) {
    c->site[m->sid].trans += t2;
    c->site[m->sid].miss += wmiss;
    c->site[m->sid].l1_hit += nl * hits1;
  }
}

static void end_batch(void *self) { spans_flush(self); }

static void results(void *self, cgp_totals *tot, cgp_site_totals *sites) {
  cache *c = self;
  spans_flush(c);
  for (int k = 0; k < CGP_NCLASS; k++) {
    tot->ld_wavefronts[k] += c->t.ld_wavefronts[k];
    tot->l1_trans[k] += c->t.l1_trans[k];
    tot->l1_hit[k] += c->t.l1_hit[k];
    tot->ld_trans[k] += c->t.ld_trans[k];
    tot->ld_dram[k] += c->t.ld_dram[k];
    tot->ld_merged_dram[k] += c->t.ld_merged_dram[k];
  }
  tot->st_trans += c->t.st_trans;
  tot->lsu_wavefronts += c->t.lsu_wavefronts;
  tot->st_dram += c->t.st_dram;
  tot->l2_inherited += c->t.l2_inherited;
  for (size_t s = 0; s < c->cfg->nsid; s++) {
    sites[s].trans += c->site[s].trans;
    sites[s].miss += c->site[s].miss;
    sites[s].l1_hit += c->site[s].l1_hit;
    memset(&c->site[s], 0, sizeof c->site[s]);
  }
  c->t = (cgp_totals){0};
}

static void destroy(void *self) {
  cache *c = self;
  if (c->has_l1)
    for (unsigned s = 0; s < c->cfg->no_sm; s++) cgp_l2_free(c->l1[s]);
  free(c->l1);
  free(c->clock);
  free(c->fills);
  cgp_l2_free(c->own_l2);
  free(c->site);
  cgp_spans_free(c->spans);
  cgp_shared_free(c->shared);
  free(c);
}

const cgp_analysis_ops cgp_an_cache = {.name = "cache", .create = create, .begin_launch = begin_launch,
                                       .begin_window = begin_window, .begin_batch = begin_batch,
                                       .skip_blocks = skip_blocks, .warm = warm, .end_batch = end_batch,
                                       .warp_mem = warp_mem, .results = results, .destroy = destroy};
