/* cgp_analyzer.h: what one warp memory instruction costs, and how the L2 treats a stream of them.
   The runtime hands in warp memory instructions; this module classifies them (MODEL.md
   section 3), counts their L2 lines, simulates the L2 by reuse distance (section 4) and
   measures shared-memory bank conflicts (section 8). No function prints or exits. */
#ifndef CGP_ANALYZER_H
#define CGP_ANALYZER_H

#include <stddef.h>
#include <stdint.h>

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

/* Distinct lines (byte address / line_bytes) the n accesses of `elem` <= line_bytes bytes touch,
   written sorted ascending to out (room for 2*n); an access straddling a boundary touches both
   lines. Returns how many were written. */
unsigned cgp_lines(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, uint64_t *out);

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

/* Reference one line (loads and stores alike: write-allocate) and update the LRU state.
   Returns 1 on a hit, 0 on a miss. */
int cgp_l2_access(cgp_l2 *l2, uint64_t line);

/* Empty the cache: every following first reference to a line misses. */
void cgp_l2_reset(cgp_l2 *l2);

/* Release the cache; NULL is allowed. */
void cgp_l2_free(cgp_l2 *l2);

/* The same contract computed the slow, obviously correct way: the whole per-set reference
   history is kept and the temporal conflict set counted at each reference. For tests. */
typedef struct cgp_l2_ref cgp_l2_ref;

/* Same parameters and same NULL cases as cgp_l2_new. */
cgp_l2_ref *cgp_l2_ref_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index);

/* Reference one line: 1 on a hit, 0 on a miss, -1 if the history could not grow. */
int cgp_l2_ref_access(cgp_l2_ref *r, uint64_t line);

/* Release the reference model; NULL is allowed. */
void cgp_l2_ref_free(cgp_l2_ref *r);

/* ---- Batches of resident warps ------------------------------------------------------------ */

/* One warp memory instruction after folding: its static id, class and how many distinct L2
   lines it touches (8 bytes: a warp of a triangular kernel holds millions of them). */
typedef struct {
  uint32_t sid;          /* static memory instruction id inside the kernel */
  uint8_t cls;           /* cgp_class */
  uint8_t is_store;
  uint16_t nlines;       /* number of distinct lines, >= 1 */
} cgp_winst;

/* One warp's instructions in program order, and their lines: those of inst[0] first, each
   instruction's ascending, as cgp_lines writes them. */
typedef struct {
  const cgp_winst *inst;
  size_t n;
  const uint64_t *lines;
} cgp_warp_trace;

typedef struct {
  double insts[CGP_NCLASS]; /* warp memory instructions */
  double trans[CGP_NCLASS]; /* L2 transactions (lines) */
  double dram[CGP_NCLASS];  /* L2 misses = DRAM transactions */
} cgp_class_totals;

/* Feed the warps resident together through l2 round robin, one warp instruction at a time
   (warp 0's first, warp 1's first, ..., warp 0's second ...; a finished warp drops out), each
   instruction's lines in the order given. With `count` nonzero, adds per-class totals to *tot
   (if not NULL) and, per static id < nsid, transactions to sid_trans[sid] and misses to
   sid_miss[sid] (either may be NULL); with count 0 the batch only warms the cache. */
void cgp_l2_run_batch(cgp_l2 *l2, const cgp_warp_trace *warps, size_t nwarps, int count,
                      cgp_class_totals *tot, uint64_t *sid_trans, uint64_t *sid_miss, size_t nsid);

/* ---- Shared memory (MODEL.md section 8) --------------------------------------------------- */

/* Most distinct bank words one warp access may touch (32 lanes, up to 8 words each). */
#define CGP_BANK_MAX_WORDS 256

/* Bank-conflict degree of a shared-memory warp access: `banks` banks of `bank_bytes`-byte words
   (bank = word mod banks); lanes touching the same word broadcast; the degree is the largest
   number of distinct words mapped to one bank (1 = conflict free). Returns 0 if banks or
   bank_bytes is 0 or the access touches more than CGP_BANK_MAX_WORDS words. */
unsigned cgp_bank_conflict_degree(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                  unsigned bank_bytes);

#endif
