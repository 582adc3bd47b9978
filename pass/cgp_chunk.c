/* cgp_chunk.c: the clean loop's threads four at a time, in a function of their own, for the final
   compile to unroll and jam.

   A thread body that holds a loop (GEMM's k loop) runs, in the clean copy, as a serial chain: the
   k loop of thread j, then thread j + 1's. gcc -O2 vectorizes the thread loop around it (its
   outer-loop vectorizer: four threads' k loops at once), clang-14 does not, and the plain build
   the user compares with is gcc's: GEMM at 512 runs 0.27 s built by clang-14 against 0.05 s by
   gcc, and an instrumented run spends nearly all its time there. LLVM's unroll-and-jam does what
   gcc's vectorizer does (four threads' inner loops fused into one, each thread's own order of
   operations kept) where its dependence analysis proves it safe. In clang-14 that analysis gives
   up on an address whose start changes, from one iteration of a loop around it to the next, in no
   way it can follow, and the clean loop's first thread is the runtime's grant: every direction
   '*', no jam (tried in place, with the chunk's addresses rebased on laundered pointers too).
   So the chunk is a function, where the grant's thread is an argument:

     parent, before the clean loop (a loop of chunks):
       chunks: x, left = phis (the grant's first thread and count; after a chunk, CHUNK more on)
               ok = left > CHUNK && freeze(go on to x + 1) && ... && freeze(go on to x + CHUNK)
               br ok, call, clean loop (its entry's phis now start at this x and left)
       call:   cgp.chunk.N(x, the values the body reads from outside it); br chunks
     cgp.chunk.N(x0, ...): for (t = 0; t < CHUNK; t++) body(x0 + t)
                           !llvm.loop unroll_and_jam.count CHUNK

   "go on to x + s" is the thread loop's latch condition, computed from the latch slice
   (cgp_skip.c) with the index at x + s - 1: a chunk runs only threads the loop would run, and the
   thread after them is one it would run too, so the clean loop always runs at least one thread
   and ends, calling cgp_rt_fast_end, as it did. The conditions are frozen: a slice's nsw add
   past the loop's end is poison, never undefined behaviour here.

   Inside the function the arrays are arguments, which alias analysis knows nothing of: a pointer
   argument is marked noalias when every pointer the body receives comes from a different
   allocation (a call returning noalias, malloc's kind, an alloca, or a restrict argument of the
   function the nest is in), and the body neither calls a function, nor loads a pointer, nor makes
   one from an integer (so every access goes through an argument or a global that is none of
   these allocations). Otherwise no chunk is made: without noalias the compile could not jam it,
   and four threads in a row would gain nothing. The final compile (-mllvm
   -enable-unroll-and-jam, driver/cgp_build.c) jams the chunk where its dependence analysis proves
   it safe and leaves four threads in a row where it does not; the program's results are the same
   either way. Only where the header has no phi but the index (another phi's value at x + s is
   not known before the threads before it run). */
#include "cgp_phase2.h"
#include "cgp_clean.h"
#include "cgp_mark.h"
#include "cgp_ptrmap.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_IN = 64 };

/* need[j]: slice entry j is needed for the latch condition. 0 if the condition reads a header phi
   other than the thread index, or is not a slice entry. */
static int mark_needed(const nest *n, LLVMBasicBlockRef header, unsigned char *need) {
  size_t c = n->nslice;
  for (size_t j = 0; j < n->nslice; j++)
    if (n->slice[j] == n->slice_cond) c = j;
  if (c == n->nslice) return 0;
  need[c] = 1;
  for (size_t j = c + 1; j-- > 0;) {
    if (!need[j]) continue;
    for (int o = 0; o < LLVMGetNumOperands(n->slice[j]); o++) {
      LLVMValueRef v = LLVMGetOperand(n->slice[j], (unsigned)o);
      if (LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == header && v != n->iv[0]) return 0;
      for (size_t i = 0; i < j; i++)
        if (n->slice[i] == v) need[i] = 1;
    }
  }
  return 1;
}

/* "The thread loop goes on", computed at the builder with the index at `at`: the needed slice
   entries cloned (cgp_clone_slice), frozen. */
static LLVMValueRef goes_on(pass_ctx *pc, const nest *n, const unsigned char *need, LLVMValueRef *clone,
                            LLVMValueRef at) {
  cgp_clone_slice(pc, n, need, at, clone);
  LLVMValueRef cond = cgp_slice_clone_of(n, clone, n->slice_cond);
  if (!n->slice_cont) cond = LLVMBuildNot(pc->b, cond, "");
  return LLVMBuildFreeze(pc->b, cond, "");
}

/* !llvm.loop !{self, !{"llvm.loop.unroll_and_jam.count", i32 CHUNK}} */
static LLVMValueRef jam_loop_id(pass_ctx *pc) {
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(pc->ctx, NULL, 0);
  static const char hint[] = "llvm.loop.unroll_and_jam.count";
  LLVMMetadataRef count[2] = {LLVMMDStringInContext2(pc->ctx, hint, sizeof hint - 1),
                              LLVMValueAsMetadata(LLVMConstInt(pc->i32, CGP_CHUNK, 0))};
  LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(pc->ctx, count, 2)};
  LLVMMetadataRef id = LLVMMDNodeInContext2(pc->ctx, ops, 2);
  LLVMMetadataReplaceAllUsesWith(tmp, id);
  return LLVMMetadataAsValue(pc->ctx, id);
}

/* ---- what the body reads from outside it, and whether its pointers may be noalias ------------- */

typedef struct {
  LLVMValueRef v[MAX_IN];
  size_t n;
  int plain;                        /* no call but intrinsics, no pointer load, no inttoptr */
} live_ins;

/* The values region[0..nr) uses that it does not define (skip[0..2) aside), in first-use order;
   0 when there are more than MAX_IN. */
static int collect_live_ins(LLVMBasicBlockRef *region, size_t nr, const ptrmap *in, const LLVMValueRef skip[2],
                            live_ins *li) {
  li->n = 0;
  li->plain = 1;
  for (size_t b = 0; b < nr; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(region[b]); i; i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMCall && (!LLVMIsAFunction(LLVMGetCalledValue(i)) || !LLVMGetIntrinsicID(LLVMGetCalledValue(i))))
        li->plain = 0;                             /* (the clean copy holds no llvm.dbg.* call) */
      if (op == LLVMIntToPtr || op == LLVMInvoke || op == LLVMCallBr ||
          (op == LLVMLoad && LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMPointerTypeKind))
        li->plain = 0;
      for (int o = 0; o < LLVMGetNumOperands(i); o++) {
        LLVMValueRef v = LLVMGetOperand(i, (unsigned)o);
        if (!v || v == skip[0] || v == skip[1]) continue;
        if (!(LLVMIsAArgument(v) || (LLVMIsAInstruction(v) && !map_get(in, LLVMGetInstructionParent(v))))) continue;
        size_t k = 0;
        while (k < li->n && li->v[k] != v) k++;
        if (k < li->n) continue;
        if (li->n == MAX_IN) return 0;
        li->v[li->n++] = v;
      }
    }
  return 1;
}


/* 1 if the pointer live-ins may each be noalias: the body is plain and each comes from an
   allocation no other one comes from. */
static int pointers_apart(const live_ins *li) {
  if (!li->plain) return 0;
  LLVMValueRef obj[MAX_IN];
  size_t no = 0;
  for (size_t k = 0; k < li->n; k++) {
    if (LLVMGetTypeKind(LLVMTypeOf(li->v[k])) != LLVMPointerTypeKind) continue;
    LLVMValueRef a = cgp_allocation_of(li->v[k]);
    if (!a) return 0;
    for (size_t j = 0; j < no; j++)
      if (obj[j] == a) return 0;
    obj[no++] = a;
  }
  return 1;
}

/* ---- the chunk function ---------------------------------------------------------------------- */

/* Drops every instruction's debug location and every branch's loop metadata in fn: they name the
   parent's subprogram. */
static void strip_locations(pass_ctx *pc, LLVMValueRef fn) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      LLVMInstructionSetDebugLoc(i, NULL);
      if (LLVMIsATerminatorInst(i)) LLVMSetMetadata(i, pc->md_loop, NULL);
    }
}

/* void cgp.chunk.N(iv type x0, live-ins...): the region (the clean copy's blocks, the entry split
   from its phis) for threads x0 .. x0 + CHUNK - 1; NULL when memory runs out. */
static LLVMValueRef chunk_function(pass_ctx *pc, const clean_loop *cl, LLVMBasicBlockRef *region, size_t nr,
                                   size_t latch, const live_ins *li) {
  LLVMTypeRef it = LLVMTypeOf(cl->iv), params[MAX_IN + 1];
  params[0] = it;
  for (size_t k = 0; k < li->n; k++) params[k + 1] = LLVMTypeOf(li->v[k]);
  char name[64];                                   /* numbered in the module: the same source, the same object */
  unsigned serial = 0;
  do snprintf(name, sizeof name, "cgp.chunk.%u", serial++);
  while (LLVMGetNamedFunction(pc->m, name));
  LLVMValueRef fn = LLVMAddFunction(pc->m, name, LLVMFunctionType(pc->voidt, params, (unsigned)li->n + 1, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8), noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(pc->ctx, noinline, 0));
  for (size_t k = 0; k < li->n; k++)
    if (LLVMGetTypeKind(params[k + 1]) == LLVMPointerTypeKind)
      LLVMAddAttributeAtIndex(fn, (unsigned)k + 2, LLVMCreateEnumAttribute(pc->ctx, noalias, 0));

  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(pc->ctx, fn, "entry");
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(pc->ctx, fn, "cgp.chunk.head");
  LLVMPositionBuilderAtEnd(pc->b, entry);
  LLVMBuildBr(pc->b, head);
  LLVMPositionBuilderAtEnd(pc->b, head);
  LLVMValueRef t = LLVMBuildPhi(pc->b, it, "cgp.chunk.t");
  LLVMValueRef at = LLVMBuildAdd(pc->b, LLVMGetParam(fn, 0), t, "cgp.chunk.x");
  LLVMValueRef old[MAX_IN + 2], new[MAX_IN + 2];
  old[0] = cl->iv; new[0] = at;
  old[1] = cl->left; new[1] = LLVMGetUndef(LLVMTypeOf(cl->left));   /* the latch's count, dead here */
  for (size_t k = 0; k < li->n; k++) {
    old[k + 2] = li->v[k];
    new[k + 2] = LLVMGetParam(fn, (unsigned)k + 1);
  }
  LLVMBasicBlockRef *kcopy = malloc(nr * sizeof *kcopy);
  if (!kcopy || !cgp_clone_open(pc->ctx, pc->b, region, nr, fn, old, new, li->n + 2, kcopy)) {
    free(kcopy);
    LLVMDeleteFunction(fn);
    return NULL;
  }
  LLVMPositionBuilderAtEnd(pc->b, head);
  LLVMBuildBr(pc->b, kcopy[0]);
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(pc->ctx, fn, "cgp.chunk.exit");
  LLVMPositionBuilderAtEnd(pc->b, exit);
  LLVMBuildRetVoid(pc->b);
  /* the latch: the copy of the clean latch, its branch (to the clean entry or out) replaced */
  LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(kcopy[latch]));
  LLVMPositionBuilderAtEnd(pc->b, kcopy[latch]);
  LLVMValueRef t1 = LLVMBuildAdd(pc->b, t, LLVMConstInt(it, 1, 0), "");
  LLVMValueRef br = LLVMBuildCondBr(pc->b, LLVMBuildICmp(pc->b, LLVMIntNE, t1, LLVMConstInt(it, CGP_CHUNK, 0), ""),
                                    head, exit);
  LLVMValueRef tv[2] = {LLVMConstInt(it, 0, 0), t1};
  LLVMBasicBlockRef tb[2] = {entry, kcopy[latch]};
  LLVMAddIncoming(t, tv, tb, 2);
  strip_locations(pc, fn);
  LLVMSetMetadata(br, pc->md_loop, jam_loop_id(pc));
  free(kcopy);
  return fn;
}

void cgp_chunk_clean_loop(pass_ctx *pc, nest *n, const clean_loop *cl, LLVMBasicBlockRef *copy, size_t ncopy) {
  if (!cl->entry || cl->nphi != 1 || !n->slice_cond || ncopy < 2) return;
  LLVMBasicBlockRef header = n->cfg->bb[n->mapped[n->dims - 1]->header], c0 = cl->entry, from = cl->from;
  unsigned char *need = calloc(n->nslice + 1, 1);
  LLVMValueRef *clone = calloc(n->nslice + 1, sizeof *clone);
  LLVMBasicBlockRef *region = malloc(ncopy * sizeof *region);
  live_ins *li = malloc(sizeof *li);
  ptrmap in = {0};
  size_t latch = ncopy;
  for (size_t b = 0; b < ncopy; b++)
    if (copy[b] == cl->latch) latch = b;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(from), iv0 = cgp_incoming_for(cl->iv, from),
               left0 = cgp_incoming_for(cl->left, from);
  unsigned into = LLVMGetNumSuccessors(term);
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++)
    if (LLVMGetSuccessor(term, s) == c0) into = s;
  if (!need || !clone || !region || !li || !ptrmap_init(&in, ncopy) || latch == 0 || latch == ncopy || !iv0 ||
      !left0 || into == LLVMGetNumSuccessors(term) || !mark_needed(n, header, need))
    goto out;
  /* the region: the clean copy's blocks, its entry's instructions moved apart from its phis */
  region[0] = cgp_split_after_phis(pc, c0, NULL, 0);
  LLVMSetValueName2(LLVMBasicBlockAsValue(region[0]), "cgp.clean", 9);
  for (size_t b = 1; b < ncopy; b++) region[b] = copy[b];
  for (size_t b = 0; b < ncopy; b++) map_put(&in, region[b], region[b]);
  const LLVMValueRef skip[2] = {cl->iv, cl->left};
  if (!collect_live_ins(region, ncopy, &in, skip, li)) goto out;
  if (!pointers_apart(li)) goto out;          /* no jam: four threads in a row would gain nothing */
  LLVMValueRef fn = chunk_function(pc, cl, region, ncopy, latch, li);
  if (!fn) {
    pc->failed = 1;
    cgp_msg_add(&pc->err, "cgpredict: out of memory\n");
    goto out;
  }

  /* the loop of chunks, in front of the clean loop */
  LLVMValueRef parent = LLVMGetBasicBlockParent(c0);
  LLVMTypeRef it = LLVMTypeOf(cl->iv), lt = LLVMTypeOf(cl->left);
  LLVMBasicBlockRef chunks = LLVMAppendBasicBlockInContext(pc->ctx, parent, "cgp.chunks");
  LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(pc->ctx, parent, "cgp.chunk.call");
  LLVMPositionBuilderBefore(pc->b, LLVMGetBasicBlockTerminator(c0));    /* a location of the nest */
  LLVMPositionBuilderAtEnd(pc->b, chunks);
  LLVMValueRef civ = LLVMBuildPhi(pc->b, it, "cgp.chunks.x"), cleft = LLVMBuildPhi(pc->b, lt, "cgp.chunks.left");
  LLVMValueRef ok = LLVMBuildICmp(pc->b, LLVMIntUGT, cleft, LLVMConstInt(lt, CGP_CHUNK, 0), "");
  for (unsigned s = 0; s < CGP_CHUNK; s++) {
    LLVMValueRef x = s ? LLVMBuildAdd(pc->b, civ, LLVMConstInt(it, s, 0), "") : civ;
    ok = LLVMBuildAnd(pc->b, ok, goes_on(pc, n, need, clone, x), "");
  }
  LLVMBuildCondBr(pc->b, ok, call, c0);
  LLVMPositionBuilderAtEnd(pc->b, call);
  LLVMValueRef args[MAX_IN + 1];
  args[0] = civ;
  for (size_t k = 0; k < li->n; k++) args[k + 1] = li->v[k];
  LLVMBuildCall2(pc->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)li->n + 1, "");
  LLVMValueRef iv_next = LLVMBuildAdd(pc->b, civ, LLVMConstInt(it, CGP_CHUNK, 0), "");
  LLVMValueRef left_next = LLVMBuildSub(pc->b, cleft, LLVMConstInt(lt, CGP_CHUNK, 0), "");
  LLVMBuildBr(pc->b, chunks);
  LLVMValueRef civ_in[2] = {iv0, iv_next}, cleft_in[2] = {left0, left_next};
  LLVMBasicBlockRef cb[2] = {from, call};
  LLVMAddIncoming(civ, civ_in, cb, 2);
  LLVMAddIncoming(cleft, cleft_in, cb, 2);
  LLVMSetSuccessor(term, into, chunks);
  LLVMValueRef entry_phis[2] = {cl->iv, cl->left}, start[2] = {civ, cleft};
  cgp_retarget_phis(pc->b, c0, from, chunks, entry_phis, 2);   /* rebuilt: entry_phis follow them */
  for (int k = 0; k < 2; k++)                                   /* and they start where the chunks left off */
    for (unsigned e = 0; e < LLVMCountIncoming(entry_phis[k]); e++)
      if (LLVMGetIncomingBlock(entry_phis[k], e) == chunks) LLVMSetOperand(entry_phis[k], e, start[k]);
out:
  ptrmap_free(&in);
  free(need);
  free(clone);
  free(region);
  free(li);
}
