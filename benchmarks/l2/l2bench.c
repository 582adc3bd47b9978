/* l2bench: line accesses per second of the L2 simulator (analyzer/cgp_l2.c), fully associative
   and 16-way, on three synthetic streams over a working set twice the capacity, each with its
   miss count checked against the brute-force reference (cgp_l2_ref) on a prefix. Three rates
   per stream: one cgp_l2_access per line, and cgp_l2_access_many over chunks of 4 and of 32
   consecutive lines (as the analyzer passes the L2 units of one warp instruction); the batched
   runs must count the same misses as the per-line one over the whole stream. Streams:
     mixed    GPU-like sweeps (steps of 1 or 32 lines) mixed with random reuse (the target);
     columns  column sweeps of a matrix whose rows are 1024 lines apart, each column read with
              its right neighbour (a power-of-two stride, hard on a hash that keeps
              neighbouring lines together);
     random   uniform over the working set.

     l2bench [log2 accesses (default 26)] [log2 checked prefix (default 20)]

   A benchmark, not a test: it prints numbers; it exits 1 only if miss counts differ. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cgp_analyzer.h"

static uint64_t next(uint64_t *s) {             /* xorshift64* */
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

enum { MIXED, COLUMNS, RANDOM, NSTREAM };
static const char *const stream_name[NSTREAM] = {"mixed", "columns", "random"};

static uint64_t *stream(int kind, size_t n, uint64_t lines) {
  uint64_t *t = malloc(n * sizeof *t), s = 42, pos = 0, pitch = 1024, rows = 2 * lines / pitch + 1;
  if (!t) return NULL;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next(&s);
    if (kind == RANDOM) t[i] = r % (2 * lines);
    else if (kind == COLUMNS) t[i] = (i / 2 % rows) * pitch + (i / 2 / rows + i % 2) % pitch;
    else if (r % 4 == 0) t[i] = r % (2 * lines);                  /* random reuse */
    else { t[i] = pos; pos = (pos + 1 + (r % 3 == 0) * 31) % (2 * lines); }  /* sweeps, some strided */
  }
  return t;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);   /* CPU time: the rate per core, whatever else runs */
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 26, lgc = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
  size_t n = (size_t)1 << lg, nc = (size_t)1 << lgc;
  struct { const char *name; uint64_t bytes; unsigned line, assoc; cgp_l2_index idx; } geo[] = {
      {"fully associative 128 KiB / 64 B (TK1)", 131072, 64, 0, CGP_L2_FULLY_ASSOCIATIVE},
      {"fully associative 6 MiB / 32 B (V100)", 6u << 20, 32, 0, CGP_L2_FULLY_ASSOCIATIVE},
      {"16-way xor 1 MiB / 64 B", 1u << 20, 64, 16, CGP_L2_XOR}};
  int bad = 0;
  for (size_t g = 0; g < sizeof geo / sizeof *geo; g++)
    for (int k = 0; k < NSTREAM; k++) {
      uint64_t *t = stream(k, n, geo[g].bytes / geo[g].line);
      cgp_l2 *l2 = cgp_l2_new(geo[g].bytes, geo[g].line, geo[g].assoc, geo[g].idx);
      if (!t || !l2) return 2;
      uint64_t miss = 0, bmiss[2];
      double t0 = now();
      for (size_t i = 0; i < n; i++) miss += !cgp_l2_access(l2, t[i]);
      double dt = now() - t0, bdt[2];
      for (int b = 0; b < 2; b++) {
        unsigned chunk = b ? 32 : 4;
        cgp_l2_reset(l2);
        bmiss[b] = n;
        double b0 = now();
        for (size_t i = 0; i < n; i += chunk) bmiss[b] -= cgp_l2_access_many(l2, t + i, n - i < chunk ? (unsigned)(n - i) : chunk);
        bdt[b] = now() - b0;
        bad |= bmiss[b] != miss;
      }
      cgp_l2_reset(l2);
      cgp_l2_ref *ref = cgp_l2_ref_new(geo[g].bytes, geo[g].line, geo[g].assoc, geo[g].idx);
      uint64_t m1 = 0, m2 = 0;
      for (size_t i = 0; i < nc && ref; i++) {
        m1 += !cgp_l2_access(l2, t[i]);
        m2 += cgp_l2_ref_access(ref, t[i]) == 0;
      }
      printf("%-39s %-7s %6.1f M/s, batched by 4 %6.1f, by 32 %6.1f%s (%zu accesses, %.1f%% miss); first %zu: %llu misses, reference %llu: %s\n",
             geo[g].name, stream_name[k], n / dt / 1e6, n / bdt[0] / 1e6, n / bdt[1] / 1e6,
             bmiss[0] == miss && bmiss[1] == miss ? "" : " BATCHED MISSES DIFFER", n, 100.0 * miss / n, nc,
             (unsigned long long)m1, (unsigned long long)m2, m1 == m2 ? "identical" : "DIFFERENT");
      bad |= m1 != m2;
      cgp_l2_ref_free(ref);
      cgp_l2_free(l2);
      free(t);
    }
  return bad;
}
