/* cgp_cfg.c: CFG, dominance and natural loops over the LLVM C API.
   Dominance is decided by reachability (remove d, can the entry still reach b?): O(blocks) per
   query, obviously correct, and the pass asks only a handful of queries per marked loop nest. */
#include "cgp_cfg.h"

#include <llvm-c/DebugInfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t sz) { return calloc(n ? n : 1, sz); }

static size_t slot_of(const cgp_cfg *cfg, LLVMBasicBlockRef b) {
  size_t h = ((size_t)(uintptr_t)b >> 4) * 0x9E3779B97F4A7C15ull;
  return (h >> 7) & (cfg->nslot - 1);
}

size_t cgp_cfg_index(const cgp_cfg *cfg, LLVMBasicBlockRef b) {
  for (size_t s = slot_of(cfg, b);; s = (s + 1) & (cfg->nslot - 1)) {
    if (!cfg->slot[s]) return cfg->n;
    if (cfg->bb[cfg->slot[s] - 1] == b) return cfg->slot[s] - 1;
  }
}

static void index_blocks(cgp_cfg *cfg) {
  for (cfg->nslot = 16; cfg->nslot < 2 * cfg->n; cfg->nslot *= 2) {}
  cfg->slot = xcalloc(cfg->nslot, sizeof *cfg->slot);
  for (size_t i = 0; i < cfg->n; i++) {
    size_t s = slot_of(cfg, cfg->bb[i]);
    while (cfg->slot[s]) s = (s + 1) & (cfg->nslot - 1);
    cfg->slot[s] = i + 1;
  }
}

int cgp_cfg_build(LLVMValueRef fn, cgp_cfg *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->n = LLVMCountBasicBlocks(fn);
  cfg->bb = xcalloc(cfg->n, sizeof *cfg->bb);
  cfg->succ = xcalloc(cfg->n, sizeof *cfg->succ);
  cfg->nsucc = xcalloc(cfg->n, sizeof *cfg->nsucc);
  cfg->pred = xcalloc(cfg->n, sizeof *cfg->pred);
  cfg->npred = xcalloc(cfg->n, sizeof *cfg->npred);
  if (!cfg->bb || !cfg->succ || !cfg->nsucc || !cfg->pred || !cfg->npred) return -1;
  LLVMGetBasicBlocks(fn, cfg->bb);
  index_blocks(cfg);
  for (size_t i = 0; i < cfg->n; i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(cfg->bb[i]);
    unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
    cfg->succ[i] = xcalloc(ns, sizeof **cfg->succ);
    for (unsigned s = 0; s < ns; s++) {
      size_t j = cgp_cfg_index(cfg, LLVMGetSuccessor(term, s));
      cfg->succ[i][cfg->nsucc[i]++] = j;
      cfg->npred[j]++;
    }
  }
  for (size_t i = 0; i < cfg->n; i++) {
    cfg->pred[i] = xcalloc(cfg->npred[i], sizeof **cfg->pred);
    cfg->npred[i] = 0;
  }
  for (size_t i = 0; i < cfg->n; i++)
    for (size_t s = 0; s < cfg->nsucc[i]; s++) {
      size_t j = cfg->succ[i][s];
      cfg->pred[j][cfg->npred[j]++] = i;
    }
  return 0;
}

void cgp_cfg_free(cgp_cfg *cfg) {
  for (size_t i = 0; i < cfg->n; i++) {
    free(cfg->succ[i]);
    free(cfg->pred[i]);
  }
  free(cfg->slot);
  free(cfg->bb); free(cfg->succ); free(cfg->nsucc); free(cfg->pred); free(cfg->npred);
  memset(cfg, 0, sizeof *cfg);
}

int cgp_cfg_dominates(const cgp_cfg *cfg, size_t d, size_t b) {
  if (d == b || d == 0) return 1;
  unsigned char *seen = xcalloc(cfg->n, 1);
  size_t *stack = xcalloc(cfg->n, sizeof *stack), top = 0;
  int reached = 0;
  seen[0] = 1; seen[d] = 1;
  stack[top++] = 0;
  while (top && !reached) {
    size_t v = stack[--top];
    if (v == b) reached = 1;
    for (size_t s = 0; s < cfg->nsucc[v]; s++) {
      size_t w = cfg->succ[v][s];
      if (!seen[w]) { seen[w] = 1; stack[top++] = w; }
    }
  }
  free(seen); free(stack);
  return !reached;
}

/* Blocks of the natural loop with this header and latches: everything that reaches a latch
   backwards without passing through the header. */
static void loop_body(const cgp_cfg *cfg, cgp_loop *l) {
  size_t *stack = xcalloc(cfg->n, sizeof *stack), top = 0;
  l->in[l->header] = 1;
  for (size_t k = 0; k < l->nlatch; k++)
    if (!l->in[l->latch[k]]) { l->in[l->latch[k]] = 1; stack[top++] = l->latch[k]; }
  while (top) {
    size_t v = stack[--top];
    for (size_t p = 0; p < cfg->npred[v]; p++) {
      size_t w = cfg->pred[v][p];
      if (!l->in[w]) { l->in[w] = 1; stack[top++] = w; }
    }
  }
  l->nblocks = 0;
  for (size_t i = 0; i < cfg->n; i++) l->nblocks += l->in[i] != 0;
  free(stack);
}

/* Without !llvm.loop (SimplifyCFG sometimes drops it when it merges a latch), the latch
   branch's own location, which clang also sets to the `for` keyword. */
static void branch_location(cgp_loop *l, LLVMValueRef term) {
  unsigned len = 0;
  const char *name = LLVMGetDebugLocFilename(term, &len);
  l->line = LLVMGetDebugLocLine(term);
  l->col = LLVMGetDebugLocColumn(term);
  if (len >= sizeof l->file) len = sizeof l->file - 1;
  memcpy(l->file, name ? name : "", name ? len : 0);
  l->file[name ? len : 0] = '\0';
}

LLVMValueRef cgp_md_operand(LLVMValueRef node, unsigned i) {
  unsigned n = node ? LLVMGetMDNodeNumOperands(node) : 0;
  if (i >= n) return NULL;
  LLVMValueRef *ops = malloc(n * sizeof *ops);
  if (!ops) return NULL;
  LLVMGetMDNodeOperands(node, ops);
  LLVMValueRef v = ops[i];
  free(ops);
  return v;
}

const char *cgp_md_string(LLVMValueRef node, unsigned i, unsigned *len) {
  LLVMValueRef v = cgp_md_operand(node, i);
  *len = 0;
  const char *s = v ? LLVMGetMDString(v, len) : NULL;
  return s && *len ? s : NULL;
}

static void loop_location(cgp_loop *l, LLVMValueRef term, unsigned md_kind) {
  LLVMValueRef md = LLVMGetMetadata(term, md_kind);
  if (!md && !l->loop_md && !l->line && LLVMHasMetadata(term)) branch_location(l, term);
  if (!md || l->loop_md) return;
  l->loop_md = md;
  for (unsigned i = 1; i < LLVMGetMDNodeNumOperands(md); i++) {
    LLVMValueRef op = cgp_md_operand(md, i);
    if (!op) continue;
    LLVMMetadataRef m = LLVMValueAsMetadata(op);
    if (LLVMGetMetadataKind(m) != LLVMDILocationMetadataKind) continue;
    l->line = LLVMDILocationGetLine(m);
    l->col = LLVMDILocationGetColumn(m);
    LLVMMetadataRef scope = LLVMDILocationGetScope(m);
    LLVMMetadataRef file = scope ? LLVMDIScopeGetFile(scope) : NULL;
    unsigned len = 0;
    const char *name = file ? LLVMDIFileGetFilename(file, &len) : NULL;
    if (name) {
      if (len >= sizeof l->file) len = sizeof l->file - 1;
      memcpy(l->file, name, len);
      l->file[len] = '\0';
    }
    break;                                   /* the first location is the loop's start */
  }
}

size_t cgp_cfg_loops(const cgp_cfg *cfg, unsigned md_kind, cgp_loop **loops) {
  cgp_loop *ls = xcalloc(cfg->n, sizeof *ls);
  size_t nl = 0;
  for (size_t h = 0; h < cfg->n; h++) {
    cgp_loop l = {0};
    l.header = h;
    for (size_t p = 0; p < cfg->npred[h]; p++) {
      size_t b = cfg->pred[h][p];
      if (!cgp_cfg_dominates(cfg, h, b)) continue;      /* not a back edge */
      l.latch = realloc(l.latch, (l.nlatch + 1) * sizeof *l.latch);
      l.latch[l.nlatch++] = b;
      loop_location(&l, LLVMGetBasicBlockTerminator(cfg->bb[b]), md_kind);
    }
    if (!l.nlatch) continue;
    l.in = xcalloc(cfg->n + 1, 1);     /* in[cfg->n] = 0: a block cgp_cfg_index does not know */
    loop_body(cfg, &l);
    ls[nl++] = l;
  }
  *loops = ls;
  return nl;
}

void cgp_cfg_loops_free(cgp_loop *loops, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(loops[i].latch);
    free(loops[i].in);
  }
  free(loops);
}

int cgp_loop_contains(const cgp_loop *outer, const cgp_loop *inner) {
  return outer->in[inner->header] != 0 && outer->nblocks >= inner->nblocks;
}

int cgp_loop_invariant(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v) {
  if (LLVMIsAInstruction(v)) return !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(v))];
  return LLVMIsAConstant(v) || LLVMIsAArgument(v) || LLVMIsAGlobalValue(v);
}
