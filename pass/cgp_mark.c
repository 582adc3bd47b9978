/* cgp_mark.c: phase 1 of the pass, on the module clang produced without optimizing it.

   A CUDA kernel receives its arrays as pointer arguments that may alias, so nvcc issues a load
   or store for nearly every access written in the source (an accumulator is stored every
   iteration, a value is reloaded after any store). The CPU optimizer, which sees global arrays
   or malloc'd memory, keeps such values in registers. To trace the CUDA stream, every
   source-level access to memory that is not thread-private is marked before any optimization:

       call void @cgp_rt_site(i8* addr, i8* base, i32 kind)     ; kind 0 load, 1 store, 2 atomic

   with the access's debug location and its size in bytes as !cgp.size metadata (the access itself
   may be optimized away). The marker only touches memory the module cannot see
   (inaccessiblememonly) and captures nothing, so the optimizer still keeps user values in
   registers, but it can neither delete, merge nor hoist the markers. Accesses whose underlying
   object is an alloca (a local scalar or array: a register or local memory on the GPU) are not
   marked, nor reads of a global scalar (in CUDA a kernel argument), except an access in a nest
   to a local array or struct declared outside it (shared_locals). A struct copied whole
   (llvm.memcpy) is a load and a store (copy_accesses). Then the -O1 pipeline runs as clang -O1
   would run it, without vectorization, interleaving or unrolling, so that loop shapes and
   !llvm.loop locations match what the second phase (cgp_instrument.c) expects. */
#include "cgp_pass.h"
#include "cgp_abi.h"
#include "cgp_mark.h"
#include "cgp_cfg.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_fn_attr(LLVMContextRef ctx, LLVMValueRef f, unsigned idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(f, idx, LLVMCreateEnumAttribute(ctx, kind, 0));
}

LLVMValueRef cgp_pass_site_marker(LLVMModuleRef m) {
  LLVMValueRef f = LLVMGetNamedFunction(m, CGP_SITE_MARKER);
  if (f) return f;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(ctx), 0);
  LLVMTypeRef params[3] = {i8p, i8p, LLVMInt32TypeInContext(ctx)};
  f = LLVMAddFunction(m, CGP_SITE_MARKER, LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 3, 0));
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "inaccessiblememonly");
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "nounwind");
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "willreturn");
  add_fn_attr(ctx, f, LLVMAttributeFunctionIndex, "nomerge");    /* two arms' sites stay two, with their lines */
  /* The pointers are only reported, never used. `nonnull` (without noundef, so a null pointer
     only makes the unused argument poison, and nothing is inferred from it) keeps InstCombine
     from asking isKnownNonZero of every marker argument in order to add it: each answer walks
     the pointer's users with dominance queries that renumber the block, which made the -O1
     pipeline quadratic in the number of accesses of a block (4000 statements: 60 s instead of 3). */
  for (unsigned p = 1; p <= 2; p++) {
    add_fn_attr(ctx, f, p, "nocapture");
    add_fn_attr(ctx, f, p, "readnone");
    add_fn_attr(ctx, f, p, "nonnull");
  }
  return f;
}

/* The pointer p is indexed from: down GEPs and casts, instructions or constant expressions. */
LLVMValueRef cgp_pass_underlying_base(LLVMValueRef p) {
  for (int guard = 0; guard < 64; guard++) {
    LLVMValueRef next = p;
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p)) {
      next = LLVMGetOperand(p, 0);
    } else if (LLVMIsAConstantExpr(p)) {
      LLVMOpcode op = LLVMGetConstOpcode(p);
      if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast) next = LLVMGetOperand(p, 0);
    }
    if (next == p) break;
    p = next;
  }
  return p;
}

/* kind of a memory access (CGP_SITE_LOAD ...), or -1; *ptr gets its address */
int cgp_pass_access_kind(LLVMValueRef i, LLVMValueRef *ptr) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMLoad: *ptr = LLVMGetOperand(i, 0); return CGP_SITE_LOAD;
  case LLVMStore: *ptr = LLVMGetOperand(i, 1); return CGP_SITE_STORE;
  case LLVMAtomicRMW: case LLVMAtomicCmpXchg: *ptr = LLVMGetOperand(i, 0); return CGP_SITE_ATOMIC;
  default: return -1;
  }
}

unsigned long long cgp_pass_access_size(LLVMTargetDataRef td, LLVMValueRef i) {
  LLVMTypeRef ty;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore: ty = LLVMTypeOf(LLVMGetOperand(i, 0)); break;
  case LLVMAtomicCmpXchg: ty = LLVMTypeOf(LLVMGetOperand(i, 2)); break;
  default: ty = LLVMTypeOf(i); break;
  }
  return LLVMStoreSizeOfType(td, ty);
}

unsigned long long cgp_pass_site_size(LLVMTargetDataRef td, LLVMValueRef marker) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(marker));
  LLVMValueRef md = LLVMGetMetadata(marker, LLVMGetMDKindIDInContext(ctx, CGP_SITE_SIZE_MD, strlen(CGP_SITE_SIZE_MD)));
  if (md && LLVMGetMDNodeNumOperands(md) == 1) {
    LLVMValueRef v;
    LLVMGetMDNodeOperands(md, &v);
    if (v && LLVMIsAConstantInt(v)) return LLVMConstIntGetZExtValue(v);
  }
  LLVMValueRef p = LLVMGetOperand(marker, 0);          /* no size: the address's pointee type */
  while (LLVMIsABitCastInst(p) || (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMBitCast))
    p = LLVMGetOperand(p, 0);
  return LLVMStoreSizeOfType(td, LLVMGetElementType(LLVMTypeOf(p)));
}

/* A read of a global scalar (`float *a` holding a malloc'd array, `int n`): in CUDA the value
   is a kernel argument, not a global memory access. */
static int kernel_argument(LLVMValueRef ptr) {
  if (!LLVMIsAGlobalVariable(ptr)) return 0;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMGlobalGetValueType(ptr));
  return k != LLVMArrayTypeKind && k != LLVMStructTypeKind && k != LLVMVectorTypeKind;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int cgp_pass_same_file(const char *a, const char *b) { return strcmp(base_name(a), base_name(b)) == 0; }

/* Instruction i lies in a marked nest: its debug location is in the lines of a marked `for` of
   its file (cgp_pass_same_file). */
static int in_nest(LLVMValueRef i, const cgp_kernel_pragma *k, size_t nk) {
  unsigned len = 0, line = LLVMGetDebugLocLine(i);
  const char *spelled = LLVMGetDebugLocFilename(i, &len);
  if (!spelled || !line) return 0;
  char file[4096];
  snprintf(file, sizeof file, "%.*s", (int)len, spelled);
  for (size_t n = 0; n < nk; n++)
    if (line >= k[n].for_line && line <= k[n].for_end_line && cgp_pass_same_file(file, k[n].file))
      return 1;
  return 0;
}

/* The local arrays and structs of fn that marked nests share: each alloca of an aggregate whose
   llvm.dbg.declare (at the variable's declaration) is outside every marked nest. Such an array
   is the host function's, one for all iterations (viterbi's DP table, declared before the loop
   over time steps): on a GPU it is global memory every thread reads and writes, so the nest's
   accesses to it are marked and traced and their dependences found. Declared inside a nest, a
   local is each iteration's, each thread's own (registers or local memory): not marked. A local
   without a declaration record (no -g) stays unmarked. Up to `cap` are found. */
static size_t shared_locals(LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *out,
                            size_t cap) {
  size_t n = 0, len = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && n < cap; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetNumOperands(i) < 3) continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || strcmp(LLVMGetValueName2(callee, &len), "llvm.dbg.declare") != 0 ||
          in_nest(i, k, nk))
        continue;
      LLVMValueRef wrapped = LLVMGetOperand(i, 0), a = NULL;
      if (LLVMGetMDNodeNumOperands(wrapped) == 1) LLVMGetMDNodeOperands(wrapped, &a);
      if (!a || !LLVMIsAAllocaInst(a)) continue;
      LLVMTypeKind t = LLVMGetTypeKind(LLVMGetAllocatedType(a));
      if (t == LLVMArrayTypeKind || t == LLVMStructTypeKind || t == LLVMVectorTypeKind) out[n++] = a;
    }
  return n;
}

/* A copy the compiler made a call (a struct assigned whole, `q = pos[k]`, `a[i + 1] = a[i]`:
   clang emits llvm.memcpy; `s = (vec3){0}`: llvm.memset), with a constant length: its source
   (kind load) and destination (kind store) as accesses of that many bytes, as nvcc's loads and
   stores of the struct's fields move them; *n accesses, *len bytes. 0 for any other call or a
   length known only at run time (a real memcpy of a buffer: a loop of accesses on a GPU, left
   untraced). */
static int copy_accesses(LLVMValueRef i, LLVMValueRef ptr[2], int kind[2], unsigned *n, unsigned long long *len) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t nlen = 0;
  const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &nlen) : "";
  int set = strncmp(name, "llvm.memset.", 12) == 0;
  if (!set && strncmp(name, "llvm.memcpy.", 12) != 0 && strncmp(name, "llvm.memmove.", 13) != 0) return 0;
  LLVMValueRef l = LLVMGetOperand(i, 2);
  if (!LLVMIsAConstantInt(l) || (*len = LLVMConstIntGetZExtValue(l)) == 0 || *len > UINT32_MAX) return 0;
  *n = 0;
  if (!set) { ptr[*n] = LLVMGetOperand(i, 1); kind[(*n)++] = CGP_SITE_LOAD; }    /* read, then written */
  ptr[*n] = LLVMGetOperand(i, 0); kind[(*n)++] = CGP_SITE_STORE;
  return 1;
}

/* The memory instruction i's accesses: a load, store or atomic (one), or a memcpy/memmove's read
   and write (two); *bytes their size. 0 when i accesses no memory. */
static int inst_accesses(LLVMTargetDataRef td, LLVMValueRef i, LLVMValueRef ptrs[2], int kinds[2], unsigned *n,
                         unsigned long long *bytes) {
  *n = 1;
  *bytes = 0;
  kinds[0] = cgp_pass_access_kind(i, &ptrs[0]);
  if (kinds[0] >= 0) {
    *bytes = cgp_pass_access_size(td, i);
    return 1;
  }
  return copy_accesses(i, ptrs, kinds, n, bytes);
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
        if (!LLVMIsAAllocaInst(cgp_pass_underlying_base(ptr)) && !kernel_argument(ptr)) return 1;
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

/* Drop from shared[] (shared_locals) the allocas each of whose nests has them private
   (private_in), and name them in the module's !cgp.privatized: !{kernel name, variable}. */
static size_t privatize(LLVMModuleRef m, LLVMValueRef fn, const cgp_kernel_pragma *k, size_t nk, LLVMValueRef *shared,
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
        if (!inst_accesses(td, i, ptrs, kinds, &n, &bytes)) continue;
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
      for (size_t i = 0; i < na && !touches; i++) touches = in_nest(acc[i].inst, &k[n], 1);
      if (!touches) continue;
      if (!d) { ok = 0; break; }
      for (size_t i = 0; i < na && ok; i++)
        if (in_nest(acc[i].inst, &k[n], 1) && !chain[0]->in[acc[i].bb] && !acc[i].write) ok = 0;
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

static void mark_function(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef marker,
                          unsigned md_dbg, const cgp_kernel_pragma *k, size_t nk) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  enum { MAX_SHARED = 256 };
  LLVMValueRef shared[MAX_SHARED];
  size_t nshared = nk ? shared_locals(fn, k, nk, shared, MAX_SHARED) : 0;
  nshared = privatize(m, fn, k, nk, shared, nshared);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  unsigned md_size = LLVMGetMDKindIDInContext(ctx, CGP_SITE_SIZE_MD, strlen(CGP_SITE_SIZE_MD));
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(ctx), 0), i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef ty = LLVMGlobalGetValueType(marker);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef ptrs[2];
      int kinds[2];
      unsigned n;
      unsigned long long bytes;
      if (!inst_accesses(td, i, ptrs, kinds, &n, &bytes)) continue;
      for (unsigned a = 0; a < n; a++) {
        LLVMValueRef ptr = ptrs[a], base = cgp_pass_underlying_base(ptr);
        if (kinds[a] == CGP_SITE_LOAD && kernel_argument(ptr)) continue;
        if (LLVMIsAAllocaInst(base)) {
          size_t j = 0;
          while (j < nshared && shared[j] != base) j++;
          if (j == nshared || !in_nest(i, k, nk)) continue;
        }
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef args[3] = {LLVMBuildPointerCast(b, ptr, i8p, ""), LLVMBuildPointerCast(b, base, i8p, ""),
                                LLVMConstInt(i32, (unsigned long long)kinds[a], 0)};
        LLVMValueRef call = LLVMBuildCall2(b, ty, marker, args, 3, "");
        LLVMValueRef loc = LLVMGetMetadata(i, md_dbg);
        if (loc) LLVMSetMetadata(call, md_dbg, loc);
        LLVMValueRef size = LLVMConstInt(i32, bytes, 0);
        LLVMSetMetadata(call, md_size, LLVMMDNodeInContext(ctx, &size, 1));
      }
    }
}

/* The -O1 pipeline of clang -O1 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops. */
int cgp_pass_run_o1(LLVMModuleRef m, char *err, size_t errlen) {
  static int inited;
  if (!inited) {
    LLVMInitializeNativeTarget();
    inited = 1;
  }
  const char *triple = LLVMGetTarget(m);
  char *deftriple = NULL;
  if (!triple || !triple[0]) triple = deftriple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target = NULL;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg) == 0)
    tm = LLVMCreateTargetMachine(target, triple, "", "", LLVMCodeGenLevelLess, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
  LLVMDisposeMessage(msg);
  LLVMDisposeMessage(deftriple);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(opts, 0);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, 0);
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, 0);
  LLVMPassBuilderOptionsSetLoopInterleaving(opts, 0);
  LLVMErrorRef e = LLVMRunPasses(m, "default<O1>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (tm) LLVMDisposeTargetMachine(tm);
  if (e) {
    char *s = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "internal error: the -O1 pipeline failed: %s", s);
    LLVMDisposeErrorMessage(s);
    return -1;
  }
  return 0;
}


/* The calls a marked nest makes to functions with a body, and the calls those functions make in
   turn, get `alwaysinline` as call-site attributes, so the -O1 pipeline's inliner inlines them
   and their marked accesses become the nest's sites, as nvcc inlines a kernel's __device__
   functions. Before this a call made the accesses behind it invisible (Rodinia's kmeans: the
   distance loop of find_nearest_point, the kernel's work, untraced). The functions themselves
   keep their attributes: a call outside the nests is inlined or not as clang -O1 decides, and a
   user's `noinline` holds there (a call-site `alwaysinline` outranks it at that call only). The
   calls inside a callee's own body are marked too, so its copy outside the nests has its callees
   inlined. A function that cannot be inlined (variadic, recursive past its first call) stays a
   call, which phase 2 warns about. */
static void inline_callees(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  unsigned never = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAttributeRef always_attr = LLVMCreateEnumAttribute(ctx, always, 0);
  size_t n = 0, cap = 0;
  LLVMValueRef *todo = NULL;                     /* callees whose calls are marked in turn, each once */
  for (int pass = 0; pass < 2; pass++)           /* pass 0: calls in the nests; 1: in the callees */
    for (size_t f = 0; pass == 0 ? f == 0 : f < n; f++) {
      LLVMValueRef first = pass == 0 ? LLVMGetFirstFunction(m) : todo[f];
      for (LLVMValueRef fn = first; fn; fn = pass == 0 ? LLVMGetNextFunction(fn) : NULL)
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
          for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (LLVMGetInstructionOpcode(i) != LLVMCall || (pass == 0 && !in_nest(i, k, nk))) continue;
            LLVMValueRef callee = LLVMGetCalledValue(i);
            size_t len = 0;
            if (!LLVMIsAFunction(callee) || LLVMCountBasicBlocks(callee) == 0 ||
                strncmp(LLVMGetValueName2(callee, &len), "cgp_", 4) == 0 ||
                LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
              continue;
            LLVMRemoveCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, never);
            LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex, always_attr);
            size_t j = 0;
            while (j < n && todo[j] != callee) j++;
            if (j < n) continue;
            if (n == cap) {
              LLVMValueRef *bigger = realloc(todo, (cap = cap ? 2 * cap : 8) * sizeof *todo);
              if (!bigger) { free(todo); return; }     /* its calls stay calls: phase 2 warns */
              todo = bigger;
            }
            todo[n++] = callee;
          }
    }
  free(todo);
}

int cgp_pass_prepare_module(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk, char *err, size_t errlen) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMValueRef marker = cgp_pass_site_marker(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  unsigned md_dbg = LLVMGetMDKindIDInContext(ctx, "dbg", 3);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    size_t len = 0;
    if (LLVMCountBasicBlocks(fn) == 0 || strncmp(LLVMGetValueName2(fn, &len), CGP_HOOK_PREFIX, strlen(CGP_HOOK_PREFIX)) == 0) continue;
    mark_function(m, b, fn, marker, md_dbg, k, nk);
  }
  LLVMDisposeBuilder(b);
  inline_callees(m, k, nk);
  return cgp_pass_run_o1(m, err, errlen);
}
