/* cgp_shape.c: the thread body's structure: its blocks in reverse postorder, the loops inside the
   thread loop (innermost per block, the tile loop), whether it is acyclic. Uses cgp_mapped.c (a
   tile loop's induction variable) and cgp_sites.c. */
#include "cgp_phase2.h"
#include "cgp_abi.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Is the edge u -> v a back edge (v heads a loop that contains u)? */
static int back_edge(const cgp_loop *loops, size_t nl, size_t u, size_t v) {
  for (size_t l = 0; l < nl; l++)
    if (loops[l].header == v && loops[l].in[u]) return 1;
  return 0;
}

static int innermost(const body_shape *bs, size_t b, const cgp_loop *except) {
  int best = -1;
  for (size_t l = 0; l < bs->ninner; l++)
    if (bs->inner[l] != except && bs->inner[l]->in[b] &&
        (best < 0 || bs->inner[l]->nblocks < bs->inner[best]->nblocks))
      best = (int)l;
  return best;
}

void cgp_body_shape_build(const nest *n, const cgp_loop *loops, size_t nl, body_shape *bs) {
  const cgp_cfg *cfg = n->cfg;
  const cgp_loop *t = n->mapped[n->dims - 1];
  memset(bs, 0, sizeof *bs);
  bs->cfg_of = calloc(cfg->n + 1, sizeof *bs->cfg_of);
  bs->bid_of = calloc(cfg->n + 1, sizeof *bs->bid_of);
  for (size_t b = 0; b < cfg->n; b++) {
    bs->bid_of[b] = SIZE_MAX;
    if (t->in[b]) { bs->bid_of[b] = bs->n; bs->cfg_of[bs->n++] = b; }
  }
  bs->rpo = calloc(bs->n + 1, sizeof *bs->rpo);
  bs->loop_of = calloc(bs->n + 1, sizeof *bs->loop_of);
  bs->inner = calloc(nl + 1, sizeof *bs->inner);
  for (size_t l = 0; l < nl; l++)
    if (&loops[l] != t && cgp_loop_contains(t, &loops[l])) bs->inner[bs->ninner++] = &loops[l];
  /* iterative depth-first search from the header over forward edges; postorder numbers */
  size_t *stack = calloc(bs->n + 1, sizeof *stack), *next = calloc(bs->n + 1, sizeof *next), top = 0, post = 0;
  unsigned char *seen = calloc(bs->n + 1, 1);
  stack[top++] = bs->bid_of[t->header];
  seen[stack[0]] = 1;
  while (top) {
    size_t v = stack[top - 1], cv = bs->cfg_of[v];
    if (next[v] < cfg->nsucc[cv]) {
      size_t w = cfg->succ[cv][next[v]++];
      if (!t->in[w] || back_edge(loops, nl, cv, w) || seen[bs->bid_of[w]]) continue;
      seen[bs->bid_of[w]] = 1;
      stack[top++] = bs->bid_of[w];
    } else {
      bs->rpo[v] = (int)post++;
      top--;
    }
  }
  for (size_t v = 0; v < bs->n; v++) {
    bs->rpo[v] = seen[v] ? (int)post - 1 - bs->rpo[v] : (int)v;   /* every body block is reached */
    bs->loop_of[v] = innermost(bs, bs->cfg_of[v], NULL);
  }
  bs->acyclic = 1;
  for (size_t v = 0; v < bs->n; v++) {
    size_t cv = bs->cfg_of[v];
    for (size_t i = 0; i < cfg->nsucc[cv]; i++) {
      size_t w = cfg->succ[cv][i];
      if (!t->in[w] || w == t->header || back_edge(loops, nl, cv, w)) continue;
      if (bs->rpo[bs->bid_of[w]] <= bs->rpo[v]) bs->acyclic = 0;   /* a cycle no natural loop makes */
    }
  }
  free(stack); free(next); free(seen);
}

void cgp_body_shape_free(body_shape *bs) {
  free(bs->cfg_of); free(bs->bid_of); free(bs->rpo); free(bs->loop_of); free(bs->inner);
}

cJSON *cgp_loops_json(const body_shape *bs) {
  cJSON *a = cJSON_CreateArray();
  for (size_t l = 0; l < bs->ninner; l++) {
    const cgp_loop *lp = bs->inner[l];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "header", (double)bs->bid_of[lp->header]);
    cJSON_AddNumberToObject(o, "parent", innermost(bs, lp->header, lp));
    cJSON_AddNumberToObject(o, "line", lp->line);
    cJSON_AddNumberToObject(o, "column", lp->col);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* The innermost loop inside the thread loop (index into loops[]) whose every iteration computes
   the site's address anew (the loop holding its definition), or -1: an address defined outside
   them keeps its value for the whole thread. A value held in a register for that address lasts
   one iteration of that loop: a compiler cannot tell the next iteration's address equals it
   (v[idx[j]] with a repeating idx[j]). */
int cgp_vary_loop(const pass_ctx *pc, const cgp_cfg *cfg, const body_shape *bs, LLVMValueRef inst) {
  LLVMValueRef ptr, base;
  cgp_site_pointers(pc, inst, &ptr, &base);
  if (!LLVMIsAInstruction(ptr)) return -1;
  size_t b = cgp_cfg_index(cfg, LLVMGetInstructionParent(ptr));
  if (b >= cfg->n || bs->bid_of[b] == SIZE_MAX) return -1;
  return bs->loop_of[bs->bid_of[b]];
}

/* 1 if the body's blocks mark cgp_rt_block_seen instead of calling cgp_rt_bb (cgp_abi.h,
   CGP_HOOK_BLOCK_SEEN): no loop inside the thread loop, no other cycle, so each block runs at most
   once per thread and in reverse postorder, and few enough sites and blocks for the runtime's
   warp-major matrix. */
int cgp_marks_blocks(const nest *n, const body_shape *bs) {
  return bs->ninner == 0 && bs->acyclic && bs->n + n->nmem <= CGP_FLAT_EVENTS;
}

/* The tile loop of tile(t) (docs/model.md section 8b): the outermost loop inside the thread body
   whose integer induction variable steps by +t; -1 when there is none. */
int cgp_tile_loop(const cgp_cfg *cfg, const body_shape *bs, unsigned tile) {
  for (size_t l = 0; l < bs->ninner && tile; l++) {
    long long step = 0;
    if (cgp_induction_variable(cfg, bs->inner[l], &step, NULL, NULL) && step == (long long)tile) return (int)l;
  }
  return -1;
}
