/* cgp_analyzer.h: what the warps of a kernel do to the memory system.

   Two layers. The building blocks (classification, line counting, an LRU cache by reuse
   distance, bank-conflict degree) are plain functions. Above them, the analyses: the runtime
   forms threads, warps, blocks and batches and emits one stream of events (launch begins, warp
   memory instruction, block execution of a warp, end of batch, launch ends) through
   cgp_analysis_ops, a small table of callbacks, as DynamoRIO's drcachesim feeds its tools. Each
   analysis is one file (cgp_an_*.c), knows nothing of the others, and adds its part to a
   cgp_totals, which the runtime turns into the model's per-warp cgp_kernel_stats. A new
   analysis is a new file and one line in cgp_analyses[] (one set per device), or in
   cgp_kernel_analyses[] when no device changes what it finds (the dependence check: one set per
   kernel, read through its own accessor). No function prints or exits. */
#ifndef CGP_ANALYZER_H
#define CGP_ANALYZER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Classification and transactions (MODEL.md section 3) ------------------------------- */

typedef enum { CGP_CLASS_CONST = 0, CGP_CLASS_COAL = 1, CGP_CLASS_UNCOAL = 2 } cgp_class;
#define CGP_NCLASS 3

/* Name of a class: "constant", "coalesced" or "uncoalesced" ("unknown" out of range). */
const char *cgp_class_name(cgp_class c);

/* Class of one warp memory instruction from its active lanes' byte addresses in lane order
   (n >= 1), each access `elem` bytes: constant if all addresses are equal; coalesced if the
   largest absolute difference between adjacent active lanes is at most one element; else
   uncoalesced. */
cgp_class cgp_classify(const uint64_t *addr, unsigned n, unsigned elem);

/* 1 if v is a power of two (line, unit and set counts the caches take). */
static inline int cgp_is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* 2^64 / golden ratio: the multiplier of the analyses' Fibonacci hashing (a key times it, its
   top bits the slot). */
#define CGP_FIBONACCI UINT64_C(0x9e3779b97f4a7c15)

/* The least s with 2^s >= v (log2 v for a power of two; 0 for v <= 1). */
static inline unsigned cgp_log2(uint64_t v) { return v <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(v - 1); }

/* Distinct lines (byte address / line_bytes) the n accesses of `elem` <= line_bytes bytes touch,
   written sorted ascending to out (room for 2*n); an access straddling a boundary touches both
   lines. Returns how many were written. */
unsigned cgp_lines(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, uint64_t *out);
/* 1 if the n >= 2 addresses are on one stride: addr[l] = addr[0] + l * (addr[1] - addr[0])
   (mod 2^64); 0 otherwise (n < 2 too). Most warps' are: their class is then read off the stride
   and, when the stride is at most an element, their lines are a range. */
int cgp_affine(const uint64_t *addr, unsigned n);
/* cgp_classify and cgp_lines with cgp_affine(addr, n) already known (affine 0 when not known:
   the lanes are then taken one by one, which is right for any addresses). */
cgp_class cgp_classify_known(const uint64_t *addr, unsigned n, unsigned elem, int affine);
unsigned cgp_lines_known(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, int affine,
                         uint64_t *out);

/* cgp_classify_known for the active lanes `lane` (ascending lane numbers; NULL: lanes 0..n-1):
   an inactive lane between two active ones would have filled the gap, so neighbours k lanes
   apart are coalesced when at most k elements apart (a divergent warp's a[tid] stays coalesced). */
cgp_class cgp_classify_lanes(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem, int affine);
/* 1 if the n active lanes' addresses follow their threads' x (`thread`: cgp_thread_key per lane
   number, `dims` of them): between neighbouring active lanes of one row of the block (same y and
   z), the bytes per step of x are one value for at least three quarters of the pairs, as an
   index computed from the thread index gives whatever the block shape (a warp over two rows of a
   16-wide block too), a few lanes aside (an edge thread reading a padded copy); 0 otherwise (an
   index the data or the branches chose: a gather, a binary search's probes, a random pick). 1
   also where fewer than two such pairs say anything. */
int cgp_on_thread_stride(const uint64_t *addr, const uint8_t *lane, const uint64_t *thread, unsigned n, int dims);

/* ---- L2 as LRU by reuse distance (MODEL.md section 4) ------------------------------------ */

/* How a line number picks its set. */
typedef enum { CGP_L2_FULLY_ASSOCIATIVE = 0, CGP_L2_MODULO = 1, CGP_L2_XOR = 2 } cgp_l2_index;

/* Set of a line among `sets` (a power of two): fully associative (or sets <= 1) = 0; modulo =
   line mod sets; xor = (line ^ (line >> log2 sets)) mod sets, folding the next address bits in
   as partition hashes do, so power-of-two strides spread over sets. */
uint64_t cgp_l2_set_of(uint64_t line, uint64_t sets, cgp_l2_index index);

/* An LRU L2: a reference hits iff its line was referenced before in its set and fewer than
   `assoc` distinct lines of that set were referenced since. */
typedef struct cgp_l2 cgp_l2;

/* A new, empty L2 of capacity_bytes with line_bytes lines and `assoc` ways (fully associative
   ignores assoc and uses capacity/line). NULL on inconsistent parameters (line not a power of
   two, capacity not a multiple of line*assoc, set count not a power of two, unknown index,
   more than INT32_MAX/4 lines) or when out of memory. */
cgp_l2 *cgp_l2_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index);

/* cgp_l2_new with its representation chosen: general = 0 (cgp_l2_new's) makes a fully associative
   cache of at most 64 Ki lines a recency list (cgp_l2_list.c), which takes fewer instructions a
   reference; general = 1 keeps the bitmap of positions whatever the size (CGPREDICT_FAST=0, and the
   tests of both). Every answer is the same either way. */
cgp_l2 *cgp_l2_new_as(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index, int general);

/* Reference one line (loads and stores alike: write-allocate) and update the LRU state.
   Returns 1 on a hit, 0 on a miss. */
int cgp_l2_access(cgp_l2 *l2, uint64_t line);

/* 1 if a reference to `line` now would hit; the cache is not changed (no reference is made). */
int cgp_l2_holds(const cgp_l2 *l2, uint64_t line);

/* Reference lines[0..n) in order, with the same effect as n cgp_l2_access calls; returns the
   number of hits (lines may be NULL when n is 0). Faster on a large cache: the host cache
   lines that the next references will read are prefetched. */
unsigned cgp_l2_access_many(cgp_l2 *l2, const uint64_t *lines, unsigned n);
/* The same, with each line's result in hit[0..n) (1: a hit). */
unsigned cgp_l2_access_each(cgp_l2 *l2, const uint64_t *lines, unsigned n, unsigned char *hit);

/* 1 if, out of memory, the cache could not record a reference since it was created or reset
   (the reference counted as a miss, and later ones may differ from exact LRU). Only a fully
   associative cache grows after cgp_l2_new, and only when its references are sparse. */
int cgp_l2_degraded(const cgp_l2 *l2);

/* Bytes the cache holds now. */
size_t cgp_l2_bytes(const cgp_l2 *l2);

/* Inherited hits (docs/model.md 5b, "Warming launches"): after cgp_l2_mark, a hit on a line whose
   latest reference came before the mark is an inherited one; cgp_l2_inherited counts them since
   the cache was created (a count that only grows: callers take differences). Only a fully
   associative cache tracks them (cgp_l2_tracks_inherited); a set associative one counts none. */
void cgp_l2_mark(cgp_l2 *l2);
int cgp_l2_tracks_inherited(const cgp_l2 *l2);
uint64_t cgp_l2_inherited(const cgp_l2 *l2);

/* Empty the cache: every following first reference to a line misses. */
void cgp_l2_reset(cgp_l2 *l2);

/* Lines the cache holds when full (sets x ways). */
uint64_t cgp_l2_capacity_lines(const cgp_l2 *l2);

/* The first line number cgp_l2_age references: above any line a GPU address of up to 2^55 bytes
   in units of 32 bytes or more gives. */
#define CGP_L2_FRESH_LINE (UINT64_C(1) << 50)

/* Age the cache by n lines nobody referenced before: the same effect as n cgp_l2_access calls
   of lines CGP_L2_FRESH_LINE + k for a k that grows with every call, so they never hit (they
   stand for the data of work that was not traced). At most the capacity's worth is referenced:
   more would change nothing further; *n is lowered to what was. Returns the first line
   referenced (the others follow it), for a caller that lists references (the Dinero export). */
uint64_t cgp_l2_age(cgp_l2 *l2, uint64_t *n);

/* Release the cache; NULL is allowed. */
void cgp_l2_free(cgp_l2 *l2);

/* The same contract computed the slow, obviously correct way: the whole per-set reference
   history is kept and the temporal conflict set counted at each reference. For tests. */
typedef struct cgp_l2_ref cgp_l2_ref;

/* Same parameters and same NULL cases as cgp_l2_new. */
cgp_l2_ref *cgp_l2_ref_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index);

/* Reference one line: 1 on a hit, 0 on a miss, -1 if the history could not grow. */
int cgp_l2_ref_access(cgp_l2_ref *r, uint64_t line);
/* Would a reference to `line` hit now (its history walked, nothing recorded)? */
int cgp_l2_ref_holds(cgp_l2_ref *r, uint64_t line);

/* Release the reference model; NULL is allowed. */
void cgp_l2_ref_free(cgp_l2_ref *r);

/* ---- Shared memory (MODEL.md section 8) --------------------------------------------------- */

/* Most distinct bank words one warp access may touch (32 lanes, up to 8 words each). */
#define CGP_BANK_MAX_WORDS 256

/* Bank-conflict degree of a shared-memory warp access: `banks` banks of `bank_bytes`-byte words
   (bank = word mod banks); lanes touching the same word broadcast; the degree is the largest
   number of distinct words mapped to one bank (1 = conflict free). Returns 0 if banks or
   bank_bytes is 0 or the access touches more than CGP_BANK_MAX_WORDS words. */
unsigned cgp_bank_conflict_degree(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                  unsigned bank_bytes);
/* The same where whether the addresses are on one stride is known (cgp_affine's answer: 1 or 0;
   -1: not known, computed here). */
unsigned cgp_bank_conflict_degree_known(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                        unsigned bank_bytes, int affine);
/* The same contract computed the slow, obviously correct way (every pair of words). For tests. */
unsigned cgp_bank_conflict_degree_ref(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                      unsigned bank_bytes);

/* Passes (LSU wavefronts) a shared-memory warp access takes: cgp_bank_conflict_degree, except
   that an access of more than 8 bytes a lane is served a half-warp at a time (lane < 16, then the
   others), the passes of the two halves adding up. `lane` holds the n lanes' numbers. */
unsigned cgp_bank_wavefronts(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem, unsigned banks,
                             unsigned bank_bytes);
/* The same with cgp_affine's answer for the n addresses known (-1: not known). The lanes ascend. */
unsigned cgp_bank_wavefronts_known(const uint64_t *addr, const uint8_t *lane, unsigned n, unsigned elem,
                                   unsigned banks, unsigned bank_bytes, int affine);

/* ---- The event stream and the analyses ----------------------------------------------------- */

/* What a memory site does. */
typedef enum { CGP_LOAD = 0, CGP_STORE = 1, CGP_ATOMIC = 2 } cgp_mem_kind;

#define CGP_WARP 32

/* The loop iterations a lane's sampled access stands for (docs/pipeline.md, "Sampling inside a
   thread"), carried on its stride: the addresses addr + o * stride, o = lo .. hi - 1 (hi == lo:
   none). The caches take them in (cgp_an_cache.c) so that what the untraced iterations bring into
   the L2 is there for what comes after them, as in a full trace. */
typedef struct {
  int64_t stride;           /* bytes the lane's address moves an iteration */
  uint32_t lo, hi;          /* iterations after this one, lo >= 1 */
} cgp_span;

/* One warp memory instruction: one static site executed by the lanes that reach it at the same
   point of the warp's execution (same iteration of every enclosing loop; docs/pipeline.md,
   "Reconvergent warps"). Lanes are in lane order. */
typedef struct {
  uint32_t sid;             /* static memory site of the kernel */
  uint8_t kind;             /* cgp_mem_kind */
  uint8_t cls;              /* cgp_class of the addresses, computed once by the runtime */
  uint8_t affine;           /* 1: the addresses are on one stride (cgp_affine), computed once by
                               the runtime; 0: not, or not known (cgp_lines_known) */
  uint8_t nact;             /* lanes taking part, >= 1 */
  uint8_t on_stride;        /* an uncoalesced load: 1 if its addresses are on a stride of the
                               lanes' thread coordinates (cgp_on_thread_stride), 0 if the data chose
                               them; 1 for every other instruction */
  uint8_t warp_threads;     /* threads the warp has (lanes that ran at all) */
  unsigned size;            /* bytes per lane */
  const uint64_t *addr;     /* nact byte addresses, as the GPU sees them (cudaMalloc alignment) */
  const uint8_t *lane;      /* their lane numbers */
  const uint64_t *thread;   /* per lane 0..31: the thread's packed coordinate (cgp_thread_key) */
  unsigned warp;            /* warp within the batch, 0-based, round-robin order */
  unsigned sm;              /* SM its block runs on within the batch */
  double skipped;           /* executions of this instruction in loop iterations the runtime did
                               not trace, which this one stands for (docs/pipeline.md, "Sampling
                               inside a thread"): the analyses count it 1 + skipped times; 0 when
                               every iteration was traced */
  double lanes_short;       /* how many fewer executions its lanes stand for, on average, than
                               the instruction's 1 + skipped: 0 but where they left a sampled loop
                               at different iterations (a lane's trip count its thread's), so that
                               fewer lanes run the iterations the instruction stands for last. Its
                               transactions, misses and lanes count 1 + skipped - lanes_short times
                               (cgp_warp_mem_lanes, cgp_warp_mem_per_lanes) */
  const cgp_span *span;     /* per active lane, its stride and the iterations it stands for
                               (skipped > 0: the last element of a window; lo == hi before it where
                               spanned), or NULL: none, or not on a stride */
  uint8_t spanned;          /* 1: the skipped iterations it stands for are given by spans (its
                               window's last element's): the cache counts the L2 misses of the units
                               their lanes reach anew there, and of the units they re-read as this
                               one's; 0: its own, 1 + skipped times */
  uint8_t carries;          /* 1: span holds iterations to reference (a window's last element) */
  uint8_t first;            /* 1: its lanes' iteration 0 of their loop's entry, the first element of
                               a window that spreads its skipped iterations over all its elements:
                               they read nothing one stride back, so none of them re-reads a unit
                               (cgp_an_cache.c's rereads, spanned_misses, l1_rereads) */
  uint8_t overlap;          /* a load of a loop with no store whose address no load of the loop
                               computes (the pass's `overlap`, docs/model.md section 5e) */
  uint8_t space;            /* CGP_SPACE_GLOBAL; CGP_SPACE_SHARED for the tiler's shared-memory
                               instructions, whose addr are byte offsets in the block's shared
                               memory (cgp_tile.c): only the bank analysis counts those;
                               CGP_SPACE_LOCAL for a thread's own array in local memory, which
                               every device with an L1 caches there (cgp_an_cache.c) */
} cgp_warp_mem;

enum { CGP_SPACE_GLOBAL = 0, CGP_SPACE_SHARED = 1, CGP_SPACE_LOCAL = 2 };

/* Instruction m's executions as its lanes ran them: 1 + skipped - lanes_short. */
static inline double cgp_warp_mem_lanes(const cgp_warp_mem *m) { return 1 + m->skipped - m->lanes_short; }
/* A quantity of `per` a warp instruction that its lanes make (transactions, wavefronts), counted
   over its lanes' executions, and at least min(per, 1) an execution of the instruction: a warp
   with one lane left still makes a transaction. */
static inline double cgp_warp_mem_per_lanes(const cgp_warp_mem *m, double per) {
  double n = 1 + m->skipped;
  if (!(m->lanes_short > 0)) return n * per;
  double v = cgp_warp_mem_lanes(m) * per, least = n * (per < 1 ? per : 1);
  return v > least ? v : least;
}
/* One execution of a thread-body block by a warp: `nact` of its `warp_threads` lanes. */
typedef struct {
  uint32_t bid;
  uint8_t nact, warp_threads;
  unsigned warp, sm;
  double skipped;           /* as in cgp_warp_mem */
} cgp_block_exec;

/* Static facts an analysis may need about the kernel and the device it models. */
typedef struct cgp_analysis_cfg_s {
  size_t nsid, nbid;
  const uint8_t *sid_kind;          /* cgp_mem_kind per site */
  const uint8_t *sid_shared;        /* 1 for sites of arrays kept in shared memory (pragma shared()) */
  const double *bid_total, *bid_core, *bid_fp32, *bid_fp64, *bid_int, *bid_sfu; /* PTX per block */
  /* device geometry; a size of 0 means "absent" */
  unsigned no_sm;
  uint64_t l1_bytes;
  unsigned l1_unit_bytes;           /* L1 transaction unit: sector if sectored, else line */
  int l1_caches_global;
  unsigned wavefront_bytes;         /* L1 line: one LSU wavefront per distinct one (128 if 0) */
  uint64_t l2_bytes;
  unsigned l2_line_bytes, l2_unit_bytes, l2_assoc;
  cgp_l2_index l2_index;
  int l2_general;                   /* the caches this analysis makes: cgp_l2_new_as(..., l2_general) */
  struct cgp_l2 *l2;                /* the device's L2, owned by the caller and kept from kernel to
                                       kernel (what one leaves there is there for the next); NULL:
                                       the cache analysis makes its own */
  unsigned smem_banks, smem_bank_bytes;
  int dims;                         /* thread coordinates packing, cgp_thread_key */
  /* Tiling (docs/model.md section 8b): tile(n) of the pragma (0: none), the bid of the tile loop's
     header, the threads of a block per dimension, and per site its footprint (0, 1, ...: sites of
     one footprint share their address expression) or -1 for a site the tiler leaves alone.
     Padding: per site, the elements added to each row of its footprint in shared memory
     (shared(A pad(n)); NULL: none). */
  unsigned tile;
  int tile_header;
  unsigned block[3];
  const int32_t *sid_footprint;     /* CGP_TILE_REGISTER: a site the tiled code holds in a register
                                       (not issued) */
  int tile_virtual;                 /* the tile loop is the loop over one tile itself, cut every
                                       `tile` iterations (the what-if tiling of an untiled kernel) */
  const uint8_t *bid_in_tile_loop;  /* virtual: 1 for the blocks of that loop (a block outside it
                                       ends the loop's entry) */
  /* If not NULL, a second set of analyses with this configuration is fed the same events: the
     what-if (cgp_analysis_whatif_results). Its l2 must be NULL (the device's stays the real one's). */
  const struct cgp_analysis_cfg_s *whatif;
  const uint8_t *sid_pad;
  unsigned smem_vector_bytes;       /* widest shared load formed from consecutive reads; 0: none */
  /* The dependence check (cgp_kernel_analyses): the element addresses it follows per launch, the
     lane accesses it checks per launch (then: partial), and the launch's thread order
     (cgp_thread_order_mask), read when a launch begins. */
  size_t deps_max_addresses;
  uint64_t deps_max_checked;
  uint64_t thread_order;
  /* If not NULL, every L2 access is written here in Dinero IV's din format ("0 <hex byte
     address>" for a read, "1 ..." for a write, one per transaction unit, in the order the L2
     sees them), so a classic simulator can check the miss counts (docs/model.md section 4). */
  FILE *din;
} cgp_analysis_cfg;

/* Sums over the warps an analysis saw with counting on (see begin_batch); the runtime scales and
   divides them by `warps` to get cgp_kernel_stats (model/cgp_model.h), field for field. */
typedef struct {
  double warps, blocks;
  double ld_insts[CGP_NCLASS], ld_trans[CGP_NCLASS], ld_dram[CGP_NCLASS];
  double l1_trans[CGP_NCLASS], l1_hit[CGP_NCLASS];
  double st_insts, st_trans, st_dram;
  double total_insts, core_insts, fp32_insts, fp64_insts, int_insts, sfu_insts;
  double masked_slots, divergent_warps;
  double mem_lanes;                 /* lane executions of memory instructions (a lane a guard idles
                                       makes none): what the runtime's launch schedule compares */
  double lsu_wavefronts;
  double ld_wavefronts[CGP_NCLASS];  /* of those, global loads' by class */
  double smem_insts[CGP_NCLASS], smem_conflict[CGP_NCLASS];   /* conflict: sum of degrees */
  double sync_insts;                /* __syncthreads a tiled kernel's warps meet (cgp_tile.c) */
  double tile_load_insts;           /* its global loads into shared memory (in ld_insts too) */
  double ld_overlap[CGP_NCLASS];    /* of ld_insts, the sites marked overlap (docs/model.md 5e) */
  double ld_merged_dram[CGP_NCLASS]; /* L1 lookups merged with a fill in flight that missed the L2
                                       (they wait for DRAM; docs/model.md 5c) */
  double l2_inherited;              /* L2 hits on lines earlier launches left (cgp_l2_mark): DRAM
                                       transactions a cold start would add (docs/model.md 5b) */
} cgp_totals;

/* Per static site, what the analyses measured (device dependent: transactions and misses).
   Counts, weighted as cgp_warp_mem's `skipped` says, hence not always whole. */
typedef struct {
  double insts[CGP_NCLASS];         /* warp instructions by class */
  double trans, miss, l1_hit;       /* transactions reaching the L2, their misses; L1 hits */
  double lanes;                     /* lane accesses */
  double sectors;                   /* CGP_SECTOR_BYTES sectors its warp instructions touch (device
                                       independent: the bytes a warp moves, against lanes x size) */
  double uncoal_on_stride;          /* uncoalesced load instructions on a stride of the thread index
                                       (cgp_warp_mem's on_stride) */
  double bank_degree_sum;           /* shared sites: sum of conflict degrees */
  double smem_insts;                /* shared-memory warp instructions (tiled sites) */
} cgp_site_totals;

/* The finest unit a GPU moves global data in: a 32-byte sector (NVIDIA's L1/L2 since Fermi's L2). */
#define CGP_SECTOR_BYTES 32

/* Packs thread coordinates so that the packed values are ordered as the sequential loop nest
   visits the threads (z, then y, then x): 1-D: x; 2-D: y << 32 | x; 3-D: 21 bits each. Inline:
   the runtime packs every traced thread's. */
static inline uint64_t cgp_thread_key(int dims, uint64_t x, uint64_t y, uint64_t z) {
  if (dims <= 1) return x;
  if (dims == 2) return y << 32 | (x & 0xffffffffu);
  return (z & 0x1fffff) << 42 | (y & 0x1fffff) << 21 | (x & 0x1fffff);
}
void cgp_thread_unkey(int dims, uint64_t key, uint64_t xyz[3]);
/* A block's place, packed as cgp_thread_key packs a 3-D thread's (x, y, z: 21 bits each). */
static inline uint64_t cgp_grid_block(uint64_t bx, uint64_t by, uint64_t bz) { return cgp_thread_key(3, bx, by, bz); }
/* The thread of `key`'s offset in its block (off, may be NULL) and its block (cgp_grid_block),
   for the block shape of cfg (cfg->dims, cfg->block). */
uint64_t cgp_thread_block(const cgp_analysis_cfg *cfg, uint64_t key, uint64_t off[3]);
/* The mask that, XORed into a key, orders keys as the sequential nest visits the threads when
   the loop of dimension d counts down (descending[d]): it reverses that coordinate's field (a
   descending loop runs thread x + 1 before x). Bit 63 stays clear: a masked key is never
   UINT64_MAX. */
uint64_t cgp_thread_order_mask(int dims, const int descending[3]);

/* An analysis. Every callback may be NULL. `counting` in begin_batch says whether the batch is
   measured (1) or only warms state such as caches (0); analyses that sum must then not add. */
typedef struct {
  const char *name;
  void *(*create)(const cgp_analysis_cfg *cfg);
  void (*begin_launch)(void *self);             /* a kernel launch starts (L1s are flushed) */
  void (*begin_window)(void *self);             /* sampled blocks far from the previous ones */
  void (*begin_batch)(void *self, int counting, unsigned nwarps, unsigned nblocks);
  void (*warp_mem)(void *self, const cgp_warp_mem *m);
  void (*block_exec)(void *self, const cgp_block_exec *b);
  void (*end_warp)(void *self, unsigned warp);  /* the warp has no more events in this batch */
  void (*end_batch)(void *self);
  void (*end_launch)(void *self);
  /* `blocks` blocks the GPU runs at this point were not traced (between sampled windows, or after
     a launch's last one): state such as caches moves on as if they had run like the blocks of
     the window just measured. */
  void (*skip_blocks)(void *self, double blocks);
  /* Byte ranges [lo[i], hi[i]) the GPU referenced while nothing was traced (a run's untraced
     last launches, carried by their footprint's law: docs/model.md 5b), in that order: into the
     caches as the most recent references, counted nowhere. */
  void (*warm)(void *self, const uint64_t *lo, const uint64_t *hi, size_t n);
  /* Add what was measured since the last call to *tot and sites[0..nsid), then start over. */
  void (*results)(void *self, cgp_totals *tot, cgp_site_totals *sites);
  void (*destroy)(void *self);
} cgp_analysis_ops;

/* The analyses of the product, NULL-terminated: classes, cache, insts, divergence, bank. */
extern const cgp_analysis_ops *const cgp_analyses[];
/* The analyses of a kernel that no device changes, NULL-terminated: the dependence check
   (cgp_an_deps.c), fed one device's stream. */
extern const cgp_analysis_ops *const cgp_kernel_analyses[];

/* ---- Tiling: the stream a shared-memory CUDA port issues (docs/model.md section 8b) ---------- */

#define CGP_TILE_REGISTER (-2)

/* The tiler rewrites a tiled kernel's accesses to the arrays of shared(...) inside the tile loop:
   each becomes a shared-memory instruction (addresses: offsets in the block's shared memory, the
   footprint laid out row-major), and each tile iteration of a warp issues its share of the
   footprint's global loads and shared stores, and two barriers. It learns each footprint's
   geometry (the address step per thread coordinate and per iteration of the loop inside the
   tile) from the stream itself. Events go on to `emit`. */
typedef struct cgp_tile cgp_tile;
typedef void (*cgp_tile_emit)(void *ctx, const cgp_warp_mem *m);
/* NULL when cfg has no tile (tile 0, tile_header < 0 or no sid_footprint) or out of memory. */
cgp_tile *cgp_tile_new(const cgp_analysis_cfg *cfg);
void cgp_tile_free(cgp_tile *t);
void cgp_tile_begin_launch(cgp_tile *t);
int cgp_tile_begin_batch(cgp_tile *t, int counting, unsigned nwarps);
/* A memory instruction of a site with a footprint. */
void cgp_tile_mem(cgp_tile *t, const cgp_warp_mem *m, cgp_tile_emit emit, void *ctx);
/* The warp ran the tile loop's header (a tile iteration begins) or ended: its last tile iteration's
   loads go out. */
void cgp_tile_header(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx);
/* Virtual: the warp ran a block outside the loop: the loop's entry ended (its last tile goes out;
   a partial one sets CGP_TILE_PARTIAL). */
void cgp_tile_left(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx);
void cgp_tile_end_warp(cgp_tile *t, unsigned warp, cgp_tile_emit emit, void *ctx);
/* Barriers and tile loads since the last call, and the conflict degree of shared instructions
   issued before a footprint's geometry was known (the site's mean, from sites[]: call it after
   the analyses' results). */
void cgp_tile_results(cgp_tile *t, cgp_totals *tot, cgp_site_totals *sites);
/* Shared memory per block the footprints take (bytes), 0 while no geometry is known; flags, of
   the launch so far: CGP_TILE_UNLEARNED a footprint's geometry was never learned (this launch),
   CGP_TILE_OVERLAP a footprint overlaps itself (counted whole), CGP_TILE_PARTIAL a virtual tile
   loop ended inside a tile (its trip count is not a multiple of the tile). OVERLAP and PARTIAL,
   once set, stay set for the tiler's life; cgp_tile_partial says whether PARTIAL is, cheaply. */
#define CGP_TILE_UNLEARNED 1u
#define CGP_TILE_OVERLAP 2u
#define CGP_TILE_PARTIAL 4u
uint64_t cgp_tile_smem_bytes(const cgp_tile *t);
unsigned cgp_tile_flags(const cgp_tile *t);
int cgp_tile_partial(const cgp_tile *t);

/* Analyses of one device: each created once, fed the same events. */
typedef struct cgp_analysis_set cgp_analysis_set;
cgp_analysis_set *cgp_analysis_set_new(const cgp_analysis_cfg *cfg, const cgp_analysis_ops *const *ops);
void cgp_analysis_set_free(cgp_analysis_set *s);
void cgp_analysis_begin_launch(cgp_analysis_set *s);
void cgp_analysis_begin_window(cgp_analysis_set *s);
void cgp_analysis_begin_batch(cgp_analysis_set *s, int counting, unsigned nwarps, unsigned nblocks);
void cgp_analysis_warp_mem(cgp_analysis_set *s, const cgp_warp_mem *m);
void cgp_analysis_block_exec(cgp_analysis_set *s, const cgp_block_exec *b);
void cgp_analysis_end_warp(cgp_analysis_set *s, unsigned warp);
void cgp_analysis_end_batch(cgp_analysis_set *s);
void cgp_analysis_end_launch(cgp_analysis_set *s);
void cgp_analysis_skip_blocks(cgp_analysis_set *s, double blocks);
void cgp_analysis_warm(cgp_analysis_set *s, const uint64_t *lo, const uint64_t *hi, size_t n);
void cgp_analysis_results(cgp_analysis_set *s, cgp_totals *tot, cgp_site_totals *sites);
/* The set's tiler (cgp_tile_new of its cfg), or NULL. */
const cgp_tile *cgp_analysis_tiler(const cgp_analysis_set *s);
/* The what-if set (cfg->whatif), or NULL; and its results, as cgp_analysis_results (its per-site
   figures are its own, not returned). */
const cgp_analysis_set *cgp_analysis_whatif(const cgp_analysis_set *s);
void cgp_analysis_whatif_results(cgp_analysis_set *s, cgp_totals *tot);

/* ---- Dependences through memory (device independent) ---------------------------------------- */

typedef enum { CGP_DEP_RAW = 0, CGP_DEP_WAR = 1, CGP_DEP_WAW = 2 } cgp_dep_kind;

/* One kind of conflict between two sites, with an example: `first` is the access of the
   thread that comes first in the sequential loop nest. */
typedef struct {
  cgp_dep_kind kind;
  uint32_t first_sid, second_sid;
  uint64_t first_thread, second_thread;     /* cgp_thread_key values */
  uint64_t addr;
  uint64_t count;                           /* conflicting access pairs seen (lower bound) */
  int reduction;                            /* every thread reads, modifies and writes it (a raw
                                               or war: on an element so updated, part of it) */
  int scratch;                              /* its threads each write the element, read their own
                                               value back and write it again: one scratch place all
                                               threads use for their own values (a raw or war: on
                                               such an element) */
  int extrapolated;                         /* not seen: the sites' address laws put it between
                                               threads the check was not fed (cgp_laws_beyond;
                                               count 0) */
} cgp_dep;

/* Exact detection of inter-thread conflicts within one launch, in bounded memory: per element
   address (the access's first byte) the earliest two distinct reader threads and writer threads.
   Past `max_addresses` distinct addresses, new addresses are not tracked (partial). */
typedef struct cgp_deps cgp_deps;
cgp_deps *cgp_deps_new(size_t max_addresses);
void cgp_deps_free(cgp_deps *d);
void cgp_deps_reset(cgp_deps *d);                      /* a new launch */
/* The launch's thread order (cgp_thread_order_mask; 0 after a reset: keys ascending): which of
   two threads the sequential program runs first, so which access of a conflict is first and the
   kind (raw, war, waw) as the program has it. */
void cgp_deps_order(cgp_deps *d, uint64_t mask);
void cgp_deps_access(cgp_deps *d, uint64_t addr, uint64_t thread, uint32_t sid, int is_store);
/* Conflicts found so far, one per (kind, first site, second site); valid until the next call. */
const cgp_dep *cgp_deps_found(const cgp_deps *d, size_t *n);
int cgp_deps_partial(const cgp_deps *d);
uint64_t cgp_deps_addresses(const cgp_deps *d);
/* The dependence check of a set of cgp_kernel_analyses (what it found this launch: partial also
   when it reached deps_max_checked), or NULL if the set has none. */
const cgp_deps *cgp_analysis_deps(const cgp_analysis_set *s);
/* cgp_an_deps's state behind an analysis `self` of it (for cgp_analysis_deps). */
const cgp_deps *cgp_an_deps_state(const void *self);

/* Each site's address law over the threads the check was fed, and the conflicts those laws put
   between threads of the whole grid (cgp_deps_law.c): addr = base + sum_d stride[d] coord[d], one
   address a thread. cgp_laws_see takes every access the check takes. cgp_laws_beyond solves a
   store's law against a load every thread makes at one address, and against a site of the same
   strides (a[i] = a[i + 1000]), over the grid from the smallest coordinates seen to hi (1 + the
   largest the launch ran, per coordinate); at most cap, each `extrapolated`, none between two
   sites `found` (the check's) already pairs; kinds in the nest's order (`order`:
   cgp_thread_order_mask). */
typedef struct cgp_laws cgp_laws;
cgp_laws *cgp_laws_new(void);
void cgp_laws_free(cgp_laws *s);
void cgp_laws_reset(cgp_laws *s, int dims);           /* a new launch, of `dims` coordinates */
/* whole: every thread of the access's warp took part (nact == warp_threads) */
void cgp_laws_see(cgp_laws *s, uint32_t sid, uint64_t thread, uint64_t addr, int is_store, int whole);
size_t cgp_laws_beyond(const cgp_laws *s, const uint64_t hi[3], uint64_t order, const cgp_dep *found, size_t nfound,
                       cgp_dep *out, size_t cap);
/* The deps analysis's: cgp_laws_beyond of its laws, order and found conflicts (0 without laws). */
size_t cgp_deps_beyond(const cgp_deps *d, const uint64_t hi[3], cgp_dep *out, size_t cap);

/* ---- What untraced work brings into the L2 (cgp_l2_warm.c; docs/model.md section 4c) --------- */

/* Where the units go: n L2 units (at most CGP_REFS_MAX a call), referenced in order, each with the
   tag its span was added with (cgp_spans_add; the caller's, opaque here) or CGP_REF_AGAIN: a unit
   referenced again only to keep it recent (a span on one element, at the end; the shared lines). */
typedef void (*cgp_l2_refs)(void *ctx, const uint64_t *units, const uint32_t *tag, unsigned n);
#define CGP_REFS_MAX 512
#define CGP_REF_AGAIN 0u

/* The iterations sampled instructions stood for (cgp_warp_mem's span), pending until their warps
   move on, then referenced iteration by iteration across all of them, a unit where a span reaches
   it; unit_bytes: the L2's unit. NULL when out of memory. */
typedef struct cgp_spans cgp_spans;
cgp_spans *cgp_spans_new(unsigned unit_bytes);
void cgp_spans_free(cgp_spans *s);
/* m's spans pend (none if m->span is NULL), their units to be referenced with `tag`; when too
   many pend, those before go to ref first. */
void cgp_spans_add(cgp_spans *s, const cgp_warp_mem *m, uint32_t tag, cgp_l2_refs ref, void *ctx);
/* 1 if warp `warp` of the batch has spans pending. */
int cgp_spans_pending(const cgp_spans *s, unsigned warp);
/* Every pending span's units to ref, in iteration order; none pend after. Follows the spans
   schedule by schedule where they have few (a stride, first and last iteration and place in a
   unit each), else iteration by iteration as cgp_spans_flush_reference does; both hand out the
   same units in the same order. */
void cgp_spans_flush(cgp_spans *s, cgp_l2_refs ref, void *ctx);
/* The same, iteration by iteration through per-iteration buckets: the reference. */
void cgp_spans_flush_reference(cgp_spans *s, cgp_l2_refs ref, void *ctx);
/* How many of s's flushes went schedule by schedule. */
uint64_t cgp_spans_by_schedule(const cgp_spans *s);

/* The L2 units two windows in a row referenced: lines the grid shares. NULL when out of memory. */
typedef struct cgp_shared cgp_shared;
cgp_shared *cgp_shared_new(void);
void cgp_shared_free(cgp_shared *h);
/* The window's block `block` (cgp_grid_block) referenced `unit` (the first 4096 distinct units a
   window are followed). */
void cgp_shared_note(cgp_shared *h, uint64_t unit, uint64_t block);
/* cgp_shared_note of units[0..n) in order, the same block: a warp instruction's. */
void cgp_shared_note_units(cgp_shared *h, const uint64_t *units, unsigned n, uint64_t block);
/* A launch begins: its sweep's columns are its own. */
void cgp_shared_begin_launch(cgp_shared *h);
/* A new window begins: the one that ended is the one before. */
void cgp_shared_next_window(cgp_shared *h);
/* `blocks` blocks after this window were not traced, each bringing lines_per_block new units
   into an L2 of `capacity` units: the units this window referenced that the window before
   referenced too, to ref (CGP_REF_AGAIN), but those of one column of blocks unless the blocks
   skipped since the window hold a whole row of the grid and the L2 a row's new units, where the
   row is known; and, within one sweep, the units the two windows before read and this one did
   not, and those of one column any two of the launch's windows read (docs/model.md section 4c). */
void cgp_shared_each(cgp_shared *h, uint64_t blocks, double lines_per_block, uint64_t capacity, cgp_l2_refs ref,
                     void *ctx);
/* The blocks in a row of a grid swept row by row, from two windows: the last block of one, the
   first of the next, and the blocks between them; 0 when that does not tell (one row, another
   layer, or no row fits). */
uint64_t cgp_grid_row(uint64_t last, uint64_t first, uint64_t gap);

/* ---- Footprints: the bytes a kernel reads and writes (cgp_footprint.c; docs/model.md 12) ------- */

/* A warp instruction's byte range [lo, hi), carried along the leaf-loop iterations it stands for:
   `skipped` executions per iteration of a traced window of `window` iterations, the address
   moving `delta` bytes an iteration (0: unknown or still). */
void cgp_footprint_event(uint64_t lo, uint64_t hi, int64_t delta, double skipped, unsigned window,
                         uint64_t *out_lo, uint64_t *out_hi);

/* One site's range over a launch's traced batches, each noted with the block number its batch
   ends at; cgp_extent_final carries the range from the first batch to the last on to `blocks`,
   the grid's end (0: no batch noted). A 2-D grid's range grows a row of blocks at a time (a
   staircase in the block number), so when two batches ending at the end of a row of blocks
   (`row_end`; every batch of a 1-D grid) were noted, the slope is theirs. */
typedef struct {
  uint64_t first_end, first_lo, first_hi;       /* the batch ending first */
  uint64_t last_end, last_lo, last_hi;          /* the batch ending last */
  uint64_t batches;
} cgp_extent_track;
typedef struct {
  uint64_t lo, hi;                              /* over every batch noted */
  cgp_extent_track all, rows;                   /* every batch; those ending a row of blocks */
} cgp_extent;
void cgp_extent_reset(cgp_extent *e);
void cgp_extent_note(cgp_extent *e, uint64_t end_block, uint64_t lo, uint64_t hi, int row_end);
int cgp_extent_final(const cgp_extent *e, uint64_t blocks, uint64_t *lo, uint64_t *hi);

/* A set of byte ranges, each byte once: sorted, disjoint [lo, hi). Past CGP_RANGES_MAX ranges
   the two closest are joined (more bytes, never fewer). add and merge return -1 when out of
   memory (the set is unchanged). */
#define CGP_RANGES_MAX 4096
typedef struct { uint64_t lo, hi; } cgp_range;
typedef struct {
  cgp_range *r;
  size_t n, cap;
} cgp_ranges;
void cgp_ranges_init(cgp_ranges *r);
void cgp_ranges_free(cgp_ranges *r);
int cgp_ranges_add(cgp_ranges *r, uint64_t lo, uint64_t hi);
int cgp_ranges_merge(cgp_ranges *dst, const cgp_ranges *src);
uint64_t cgp_ranges_bytes(const cgp_ranges *r);
/* Add the parts of [lo, hi) that no range of `not` covers. */
int cgp_ranges_add_outside(cgp_ranges *r, uint64_t lo, uint64_t hi, const cgp_ranges *not);

#endif
