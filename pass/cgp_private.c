/* cgp_private.c: which locals declared outside a marked nest phase 1 marks (cgp_mark.c). An
   aggregate declared outside every marked nest is shared by the nest's threads
   (cgp_shared_locals), unless each thread writes it before reading it within one iteration of the
   innermost mapped loop: then it is private and stays unmarked (cgp_privatize). Calls
   cgp_access.c and cgp_cfg.c. */
#include "cgp_pass.h"
#include "cgp_mark.h"
#include "cgp_mark_internal.h"
#include "cgp_cfg.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

/* The alloca call i to `intrinsic` (a name's start) is about, its operand `op` (`wrapped`: as
   metadata, llvm.dbg.declare's), or NULL. */
static LLVMValueRef intrinsic_alloca(LLVMValueRef i, const char *intrinsic, unsigned op, int wrapped) {
  size_t len = 0;
  if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetNumOperands(i) < 3) return NULL;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  if (!LLVMIsAFunction(callee) || strncmp(LLVMGetValueName2(callee, &len), intrinsic, strlen(intrinsic)) != 0)
    return NULL;
  LLVMValueRef a = LLVMGetOperand(i, op), md = a;
  if (wrapped) {
    a = NULL;
    if (LLVMGetMDNodeNumOperands(md) == 1) LLVMGetMDNodeOperands(md, &a);
  } else {
    a = cgp_pass_underlying_base(a);
  }
  return a && LLVMIsAAllocaInst(a) ? a : NULL;
}

/* The local an llvm.dbg.declare declares (the variable's declaration), and the one an
   llvm.lifetime.start begins (a temporary without a declaration), or NULL. */
static LLVMValueRef declared_alloca(LLVMValueRef i) { return intrinsic_alloca(i, "llvm.dbg.declare", 0, 1); }
static LLVMValueRef lifetime_alloca(LLVMValueRef i) { return intrinsic_alloca(i, "llvm.lifetime.start", 1, 0); }

/* The local arrays and structs of fn that marked nests share: each alloca of an aggregate whose
   llvm.dbg.declare (at the variable's declaration) is outside every marked nest. Such an array
   is the host function's, one for all iterations (viterbi's DP table, declared before the loop
   over time steps): on a GPU it is global memory every thread reads and writes, so the nest's
   accesses to it are marked and traced and their dependences found. Declared inside a nest, a
   local is each iteration's, each thread's own (registers or local memory): not marked. A local
   without a declaration record (no -g) stays unmarked. Up to `cap` are found. */
size_t cgp_shared_locals(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *out,
                         size_t cap) {
  size_t n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && n < cap; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef a = declared_alloca(i);
      if (!a || cgp_in_nest(i, k, nk)) continue;
      LLVMTypeKind t = LLVMGetTypeKind(LLVMGetAllocatedType(a));
      if (t == LLVMArrayTypeKind || t == LLVMStructTypeKind || t == LLVMVectorTypeKind) out[n++] = a;
    }
  return n;
}

/* ---- privatisation (docs/pipeline.md "Scratch locals declared outside the nest") ---------------- */

/* A use of the alloca's address that lets it escape: anything but a load from it, a store to it,
   address arithmetic (GEP, bitcast), a copy or set of constant length, or a debug or lifetime
   intrinsic. */
static int escapes(LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInstruction(user)) return 1;
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMLoad: break;
    case LLVMStore: if (LLVMGetOperand(user, 0) == v) return 1; break;
    case LLVMGetElementPtr: case LLVMBitCast: if (escapes(user)) return 1; break;
    case LLVMCall: {
      LLVMValueRef callee = LLVMGetCalledValue(user);
      size_t len = 0;
      const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
      if (strncmp(name, "llvm.dbg.", 9) == 0 || strncmp(name, "llvm.lifetime.", 14) == 0) break;
      if ((strncmp(name, "llvm.memcpy.", 12) == 0 || strncmp(name, "llvm.memmove.", 13) == 0 ||
           strncmp(name, "llvm.memset.", 12) == 0) && LLVMIsAConstantInt(LLVMGetOperand(user, 2)) &&
          LLVMGetOperand(user, 2) != v)
        break;
      return 1;
    }
    default: return 1;
    }
  }
  return 0;
}

/* The constant byte offset of pointer p from alloca a (GEPs with constant indices, casts); 0 if
   it is not constant. */
static int const_offset(LLVMTargetDataRef td, LLVMValueRef p, LLVMValueRef a, long long *off) {
  *off = 0;
  for (int guard = 0; guard < 64 && p != a; guard++) {
    if (LLVMIsABitCastInst(p) || (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMBitCast)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    if (!LLVMIsAGetElementPtrInst(p)) return 0;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    unsigned n = (unsigned)LLVMGetNumOperands(p);
    for (unsigned i = 1; i < n; i++) {
      LLVMValueRef ix = LLVMGetOperand(p, i);
      if (!LLVMIsAConstantInt(ix)) return 0;
      long long c = LLVMConstIntGetSExtValue(ix);
      if (i == 1) {
        *off += c * (long long)LLVMABISizeOfType(td, t);
      } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        *off += (long long)LLVMOffsetOfElement(td, t, (unsigned)c);
        t = LLVMStructGetTypeAtIndex(t, (unsigned)c);
      } else if (LLVMGetTypeKind(t) == LLVMArrayTypeKind || LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
        t = LLVMGetElementType(t);
        *off += c * (long long)LLVMABISizeOfType(td, t);
      } else {
        return 0;
      }
    }
    p = LLVMGetOperand(p, 0);
  }
  return p == a;
}

typedef struct priv_acc {
  LLVMValueRef inst;
  size_t bb;
  int write;
  int known;                /* constant offset */
  long long lo, hi;         /* bytes [lo, hi) of the alloca */
} priv_acc;

/* d dominates i: an earlier instruction of the same block, or a block dominating i's. */
static int inst_dominates(const cgp_cfg *cfg, const priv_acc *d, const priv_acc *i) {
  if (d->bb != i->bb) return cgp_cfg_dominates(cfg, d->bb, i->bb);
  for (LLVMValueRef x = LLVMGetNextInstruction(d->inst); x; x = LLVMGetNextInstruction(x))
    if (x == i->inst) return 1;
  return 0;
}

/* The latch increment of a counter field: `store (load F) +/- c, F`; its range in *lo, *hi. */
static int counter_increment(LLVMTargetDataRef td, const priv_acc *s, LLVMValueRef a) {
  LLVMValueRef v = LLVMGetOperand(s->inst, 0);
  if (!LLVMIsAInstruction(v)) return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op != LLVMAdd && op != LLVMSub) return 0;
  LLVMValueRef l = LLVMGetOperand(v, 0), c = LLVMGetOperand(v, 1);
  if (!LLVMIsAConstantInt(c) || !LLVMIsALoadInst(l)) return 0;
  long long off;
  return const_offset(td, LLVMGetOperand(l, 0), a, &off) && off == s->lo;
}

/* Loop l has, outside its inner loop c, an access to memory that is not a local's (a global's, an
   argument's: a site), or a call other than a debug or lifetime intrinsic: the default mapping
   stops at l (docs/pipeline.md, Mapping loops to threads). */
static int touches_memory_outside(const cgp_cfg *cfg, const cgp_loop *l, const cgp_loop *c) {
  for (size_t b = 0; b < cfg->n; b++) {
    if (!l->in[b] || c->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef ptr;
      if (cgp_pass_access_kind(i, &ptr) >= 0) {
        if (!LLVMIsAAllocaInst(cgp_pass_underlying_base(ptr)) && !cgp_kernel_argument(ptr)) return 1;
      } else if (LLVMGetInstructionOpcode(i) == LLVMCall) {
        LLVMValueRef callee = LLVMGetCalledValue(i);
        size_t len = 0;
        const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
        if (strncmp(name, "llvm.dbg.", 9) != 0 && strncmp(name, "llvm.lifetime.", 14) != 0) return 1;
      }
    }
  }
  return 0;
}

/* The mapped loops of nest k in the unoptimized function, outermost first: the marked loop, then
   its only inner loop dims - 1 times (dims given), or, as the default mapping does, while there is
   exactly one and nothing else in the loop touches memory that is not a local's (at most 3; a
   deeper innermost loop than phase 2 maps only asks more of a scratch variable). 0 if the marked loop is not found or dims cannot be followed. */
static size_t mapped_chain(const cgp_cfg *cfg, const cgp_loop *loops, size_t nl, const cgp_kernel_pragma *k,
                           const cgp_loop *chain[3]) {
  size_t d = 0;
  for (size_t l = 0; l < nl && !d; l++)
    if (loops[l].line == k->for_line && loops[l].col == k->for_col &&
        (!loops[l].file[0] || cgp_pass_same_file(loops[l].file, k->file)))
      chain[d++] = &loops[l];
  if (!d) return 0;
  unsigned want = k->dims ? k->dims : 3;
  while (d < want && d < 3) {
    const cgp_loop *only = NULL;
    size_t children = 0;
    for (size_t c = 0; c < nl; c++) {
      if (&loops[c] == chain[d - 1] || !cgp_loop_contains(chain[d - 1], &loops[c])) continue;
      int immediate = 1;
      for (size_t x = 0; x < nl && immediate; x++)
        if (x != c && &loops[x] != chain[d - 1] && cgp_loop_contains(chain[d - 1], &loops[x]) &&
            cgp_loop_contains(&loops[x], &loops[c]))
          immediate = 0;
      if (immediate) { only = &loops[c]; children++; }
    }
    if (children != 1) {
      if (k->dims) return 0;
      break;
    }
    if (!k->dims && touches_memory_outside(cfg, chain[d - 1], only)) break;
    chain[d++] = only;
  }
  return d;
}

/* Alloca a (declared outside the nest) is each thread's own in nest `chain`: within one iteration
   of the innermost mapped loop it is written before it is read. Precisely, a does not escape, is
   not read after the nest, and each access in the nest is either
   - a mapped loop's counter (`b0.x` of `for (b0.x = 0; ...; b0.x++)`): a field whose stores are
     the loop's increment in its latch and its start before the loop; it can be read anywhere;
   - or inside the innermost mapped loop, a store, or a read each of whose bytes a store of that
     loop dominating it wrote in the same iteration. */
static int private_in(LLVMTargetDataRef td, const cgp_cfg *cfg, const cgp_loop *const *chain, size_t d,
                      LLVMValueRef a, const priv_acc *acc, size_t na) {
  const cgp_loop *inner = chain[d - 1];
  long long clo[3], chi[3];
  for (size_t k = 0; k < d; k++) {
    clo[k] = chi[k] = -1;
    for (size_t i = 0; i < na; i++)
      for (size_t l = 0; l < chain[k]->nlatch; l++)
        if (acc[i].write && acc[i].known && acc[i].bb == chain[k]->latch[l] && LLVMIsAStoreInst(acc[i].inst) &&
            counter_increment(td, &acc[i], a)) {
          clo[k] = acc[i].lo;
          chi[k] = acc[i].hi;
        }
  }
  for (size_t i = 0; i < na; i++) {
    const priv_acc *x = &acc[i];
    if (!chain[0]->in[x->bb]) {                  /* outside the nest: no read of its last value */
      if (!x->write) return 0;
      continue;
    }
    int counter = -1;
    for (size_t k = 0; k < d && x->known; k++)
      if (clo[k] >= 0 && x->lo >= clo[k] && x->hi <= chi[k]) counter = (int)k;
    if (counter >= 0) {
      if (!x->write) continue;
      const cgp_loop *l = chain[counter];
      int latch = 0;
      for (size_t j = 0; j < l->nlatch; j++) latch |= l->latch[j] == x->bb;
      if (latch && counter_increment(td, x, a)) continue;
      if (!l->in[x->bb] && (counter == 0 || chain[counter - 1]->in[x->bb]) &&
          cgp_cfg_dominates(cfg, x->bb, l->header))
        continue;
      return 0;
    }
    if (!inner->in[x->bb]) return 0;
    if (x->write) continue;
    if (!x->known) return 0;
    for (long long byte = x->lo; byte < x->hi; byte++) {
      int covered = 0;
      for (size_t j = 0; j < na && !covered; j++)
        covered = acc[j].write && acc[j].known && acc[j].lo <= byte && byte < acc[j].hi && inner->in[acc[j].bb] &&
                  inst_dominates(cfg, &acc[j], x);
      if (!covered) return 0;
    }
  }
  return 1;
}

/* Drop from shared[] (cgp_shared_locals) the allocas each of whose nests has them private
   (private_in), and name them in the module's !cgp.privatized: !{kernel name, variable}. */
size_t cgp_privatize(LLVMModuleRef m, LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *shared,
                     size_t nshared) {
  cgp_cfg cfg;
  if (!nshared || cgp_cfg_build(fn, &cfg) != 0) return nshared;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  cgp_loop *loops = NULL;
  size_t nl = cgp_cfg_loops(&cfg, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9), &loops);
  size_t kept = 0;
  for (size_t s = 0; s < nshared; s++) {
    LLVMValueRef a = shared[s];
    size_t na = 0, cap = 64;
    priv_acc *acc = malloc(cap * sizeof *acc);
    int ok = acc && !escapes(a);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); ok && bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); ok && i; i = LLVMGetNextInstruction(i)) {
        LLVMValueRef ptrs[2];
        int kinds[2];
        unsigned n;
        unsigned long long bytes;
        if (!cgp_inst_accesses(td, i, ptrs, kinds, &n, &bytes)) continue;
        for (unsigned j = 0; j < n; j++) {
          if (cgp_pass_underlying_base(ptrs[j]) != a) continue;
          if (kinds[j] == CGP_SITE_ATOMIC) { ok = 0; break; }
          if (na == cap) {
            priv_acc *bigger = realloc(acc, (cap *= 2) * sizeof *acc);
            if (!bigger) { ok = 0; break; }
            acc = bigger;
          }
          priv_acc *x = &acc[na++];
          x->inst = i;
          x->bb = cgp_cfg_index(&cfg, bb);
          x->write = kinds[j] == CGP_SITE_STORE;
          x->known = const_offset(td, ptrs[j], a, &x->lo);
          x->hi = x->lo + (long long)bytes;
        }
      }
    /* every nest that touches a must have it private; a read a nest's lines hold but its loop
       does not (a loop not found) keeps it shared (a store there: the start of the first counter) */
    const cgp_kernel_pragma *named[64];
    size_t nnamed = 0;
    for (size_t n = 0; ok && n < nk; n++) {
      const cgp_loop *chain[3];
      size_t d = mapped_chain(&cfg, loops, nl, &k[n], chain);
      int touches = 0;
      for (size_t i = 0; i < na && !touches; i++) touches = cgp_in_nest(acc[i].inst, &k[n], 1);
      if (!touches) continue;
      if (!d) { ok = 0; break; }
      for (size_t i = 0; i < na && ok; i++)
        if (cgp_in_nest(acc[i].inst, &k[n], 1) && !chain[0]->in[acc[i].bb] && !acc[i].write) ok = 0;
      ok = ok && private_in(td, &cfg, chain, d, a, acc, na);
      if (ok && nnamed < 64) named[nnamed++] = &k[n];
    }
    if (ok && nnamed) {
      size_t len = 0;
      const char *var = LLVMGetValueName2(a, &len);
      for (size_t n = 0; n < nnamed; n++) {
        LLVMValueRef ops[2] = {LLVMMDStringInContext(ctx, named[n]->name, (unsigned)strlen(named[n]->name)),
                               LLVMMDStringInContext(ctx, var, (unsigned)len)};
        LLVMAddNamedMetadataOperand(m, CGP_PRIVATIZED_MD, LLVMMDNodeInContext(ctx, ops, 2));
      }
    } else {
      shared[kept++] = a;
    }
    free(acc);
  }
  cgp_cfg_loops_free(loops, nl);
  cgp_cfg_free(&cfg);
  return kept;
}

/* The source name of local a, from its llvm.dbg.declare's variable (the IR name may differ: FT's
   region-local y0 shadows a parameter y0, and clang names its alloca y03); *len 0 if none. */
static const char *declared_name(LLVMValueRef a, unsigned *len) {
  *len = 0;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(a));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (declared_alloca(i) == a) return cgp_md_string(LLVMGetOperand(i, 1), 1, len);   /* DILocalVariable: scope, name */
  return NULL;
}

size_t cgp_omp_private(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *shared, size_t nshared) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  size_t kept = 0;
  for (size_t s = 0; s < nshared; s++) {
    unsigned dlen = 0;
    const char *var = declared_name(shared[s], &dlen);      /* the variable's name in the source */
    size_t len = var ? dlen : 0;
    int made = 0;
    for (size_t n = 0; n < nk && len; n++) {
      if (!cgp_pragma_omp_private(&k[n], var, len)) continue;
      LLVMValueRef ops[2] = {LLVMMDStringInContext(ctx, k[n].name, (unsigned)strlen(k[n].name)),
                             LLVMMDStringInContext(ctx, var, (unsigned)len)};
      LLVMAddNamedMetadataOperand(m, CGP_PRIVATIZED_MD, LLVMMDNodeInContext(ctx, ops, 2));
      made = 1;
    }
    if (!made) shared[kept++] = shared[s];
  }
  return kept;
}

/* ---- a thread's own locals (cgp_sites.c drops what a callee reaches of them) ------------------- */

void cgp_thread_locals_tag(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, int whole) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef a = NULL;
      if (whole) a = LLVMIsAAllocaInst(i) ? i : NULL;
      else if (cgp_in_nest(i, k, nk) && !(a = declared_alloca(i)))
        a = lifetime_alloca(i);
      if (a) cgp_pass_tag_alloca(a, CGP_THREAD_LOCAL_MD);
    }
}

int cgp_thread_local_tagged(LLVMValueRef a) { return cgp_pass_alloca_tagged(a, CGP_THREAD_LOCAL_MD); }
