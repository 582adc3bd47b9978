/* cgp_analyzer.h: what one warp memory instruction costs, and how the L2 treats a stream of them.
   The runtime hands in warp memory instructions; this module classifies them (MODEL.md
   section 3), counts their L2 lines, and simulates the L2 by reuse distance (section 4). */
#ifndef CGP_ANALYZER_H
#define CGP_ANALYZER_H

#include <stddef.h>
#include <stdint.h>

typedef enum { CGP_CLASS_CONST = 0, CGP_CLASS_COAL = 1, CGP_CLASS_UNCOAL = 2 } cgp_class;
#define CGP_NCLASS 3

/* "constant", "coalesced" or "uncoalesced". */
const char *cgp_class_name(cgp_class c);

/* Class of one warp memory instruction from its active lanes' byte addresses in lane order
   (n >= 1), each access `elem` bytes: constant if all addresses are equal; coalesced if the
   largest difference between adjacent active lanes is at most one element; else uncoalesced. */
cgp_class cgp_classify(const uint64_t *addr, unsigned n, unsigned elem);

/* Distinct lines (byte address / line_bytes) the accesses touch, sorted ascending, written to
   out (room for 2*n); an access straddling a boundary touches both lines. Returns the count. */
unsigned cgp_lines(const uint64_t *addr, unsigned n, unsigned elem, unsigned line_bytes, uint64_t *out);

/* How a line number picks its set. */
typedef enum { CGP_L2_FULLY_ASSOCIATIVE = 0, CGP_L2_MODULO = 1, CGP_L2_XOR = 2 } cgp_l2_index;

/* Set of a line among `sets` (a power of two): modulo = line mod sets; xor = (line xor
   (line >> log2 sets)) mod sets, folding the next address bits in as partition hashes do. */
uint64_t cgp_l2_set_of(uint64_t line, uint64_t sets, cgp_l2_index index);

/* An LRU L2: a reference hits iff its line was referenced before in its set and fewer than
   `assoc` distinct lines of that set were referenced since (MODEL.md section 4). */
typedef struct cgp_l2 cgp_l2;
/* NULL on inconsistent parameters (line not a power of two, capacity not a whole number of
   lines and sets, sets not a power of two). Fully associative ignores assoc. */
cgp_l2 *cgp_l2_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index);
/* Reference one line (loads and stores alike: write-allocate). 1 on a hit, 0 on a miss. */
int cgp_l2_access(cgp_l2 *l2, uint64_t line);
/* Empty the cache. */
void cgp_l2_reset(cgp_l2 *l2);
void cgp_l2_free(cgp_l2 *l2);

/* The same contract the slow, obviously correct way: the whole per-set history is kept and the
   temporal conflict set counted at each reference. For tests. */
typedef struct cgp_l2_ref cgp_l2_ref;
cgp_l2_ref *cgp_l2_ref_new(uint64_t capacity_bytes, unsigned line_bytes, unsigned assoc, cgp_l2_index index);
int cgp_l2_ref_access(cgp_l2_ref *r, uint64_t line);
void cgp_l2_ref_free(cgp_l2_ref *r);

/* One folded warp memory instruction. */
typedef struct {
  uint32_t sid;          /* static memory instruction id inside the kernel */
  uint8_t cls;           /* cgp_class */
  uint8_t is_store;
  uint16_t nlines;       /* distinct L2 lines, >= 1 */
  const uint64_t *lines; /* ascending */
} cgp_winst;

/* One warp's instructions in program order. */
typedef struct {
  const cgp_winst *inst;
  size_t n;
} cgp_warp_trace;

typedef struct {
  double insts[CGP_NCLASS]; /* warp memory instructions */
  double trans[CGP_NCLASS]; /* L2 transactions (lines) */
  double dram[CGP_NCLASS];  /* L2 misses = DRAM transactions */
} cgp_class_totals;

/* Feed the warps resident together through l2 round robin, one warp instruction at a time
   (warp 0's first, warp 1's first, ..., warp 0's second ...; a finished warp drops out). With
   `count`, adds per-class totals to *tot and per static id (< nsid) transactions to sid_trans
   and misses to sid_miss (either may be NULL); without, the batch only warms the cache. */
void cgp_l2_run_batch(cgp_l2 *l2, const cgp_warp_trace *warps, size_t nwarps, int count,
                      cgp_class_totals *tot, uint64_t *sid_trans, uint64_t *sid_miss, size_t nsid);

/* Bank-conflict degree of a shared-memory warp access (MODEL.md section 8): the largest number
   of distinct words that fall in one of `banks` banks of `bank_bytes`; the same word
   broadcasts. 1 means conflict free. */
unsigned cgp_bank_conflict_degree(const uint64_t *addr, unsigned n, unsigned elem, unsigned banks,
                                  unsigned bank_bytes);

#endif
