/* cgp_skip.c: can a thread be skipped? The latch slice: the instructions the thread loop's latch
   needs, recomputable from the header's phis and loop invariants alone (cgp_decide_skip), and the
   block that runs just that slice for a thread the runtime skips (cgp_build_skip_block). */
#include "cgp_phase2.h"
#include "cgp_clean.h"
#include <stdlib.h>

static int pure_op(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
  case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMICmp: case LLVMSelect:
  case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMGetElementPtr: case LLVMBitCast:
    return 1;
  default:
    return 0;
  }
}

/* Adds v's in-loop definition (and what it needs) to the slice; 0 if v cannot be recomputed
   from the header phis and loop invariants alone. */
static int slice_add(nest *n, const cgp_loop *t, LLVMValueRef v, LLVMValueRef *buf, size_t cap) {
  if (!LLVMIsAInstruction(v)) return 1;
  size_t blk = cgp_cfg_index(n->cfg, LLVMGetInstructionParent(v));
  if (!t->in[blk]) return 1;                                   /* loop invariant */
  if (LLVMIsAPHINode(v)) return blk == t->header;              /* available at the top */
  if (cgp_pass_value_in(buf, n->nslice, v)) return 1;
  if (!pure_op(v) || n->nslice == cap) return 0;
  for (int o = 0; o < LLVMGetNumOperands(v); o++)
    if (!slice_add(n, t, LLVMGetOperand(v, (unsigned)o), buf, cap)) return 0;
  buf[n->nslice++] = v;                                        /* operands first: def before use */
  return 1;
}

/* The skip block makes the latch's successors reachable without running the body: a value
   the body defines may then be used outside the thread loop only by a phi of a latch successor,
   on the edge from the latch, and only if the skip block recomputes it (it is in the slice).
   A goto out of the nest that carries the inner index (`out: print(i, j)`) breaks this. */
static int body_values_stay_inside(nest *n, const cgp_loop *t, LLVMBasicBlockRef latch) {
  for (size_t b = 0; b < n->cfg->n; b++) {
    if (!t->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(n->cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      if (b == t->header && LLVMIsAPHINode(i)) continue;          /* available on the skip path */
      for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user)) return 0;
        LLVMBasicBlockRef ub = LLVMGetInstructionParent(user);
        if (t->in[cgp_cfg_index(n->cfg, ub)]) continue;
        if (!LLVMIsAPHINode(user) || !cgp_pass_value_in(n->slice, n->nslice, i)) return 0;
        for (unsigned k = 0; k < LLVMCountIncoming(user); k++)
          if (LLVMGetIncomingValue(user, k) == i && LLVMGetIncomingBlock(user, k) != latch) return 0;
      }
    }
  }
  return 1;
}

void cgp_decide_skip(nest *n) {
  const cgp_loop *t = n->mapped[n->dims - 1];
  enum { SLICE_CAP = 64 };
  n->slice = calloc(SLICE_CAP, sizeof *n->slice);
  n->nslice = 0;
  n->can_skip = 0;
  n->slice_cond = NULL;
  if (t->nlatch != 1) return;
  LLVMBasicBlockRef latch = n->cfg->bb[t->latch[0]], header = n->cfg->bb[t->header];
  LLVMValueRef term = LLVMGetBasicBlockTerminator(latch);
  if (LLVMGetInstructionOpcode(term) != LLVMBr) return;
  if (LLVMIsConditional(term) && !slice_add(n, t, LLVMGetCondition(term), n->slice, SLICE_CAP))
    return;
  if (LLVMIsConditional(term) && cgp_pass_value_in(n->slice, n->nslice, LLVMGetCondition(term))) {
    n->slice_cond = LLVMGetCondition(term);
    n->slice_cont = LLVMGetSuccessor(term, 0) == header;
  }
  for (LLVMValueRef phi = LLVMGetFirstInstruction(header); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi))
    if (!slice_add(n, t, cgp_incoming_for(phi, latch), n->slice, SLICE_CAP)) return;
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
    LLVMBasicBlockRef e = LLVMGetSuccessor(term, s);
    if (e == header) continue;
    for (LLVMValueRef phi = LLVMGetFirstInstruction(e); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi))
      if (!slice_add(n, t, cgp_incoming_for(phi, latch), n->slice, SLICE_CAP)) return;
  }
  n->can_skip = body_values_stay_inside(n, t, latch);
}

LLVMValueRef cgp_slice_clone_of(const nest *n, LLVMValueRef *clone, LLVMValueRef v) {
  for (size_t j = 0; j < n->nslice; j++)
    if (n->slice[j] == v) return clone[j];
  return v;
}

void cgp_clone_slice(pass_ctx *pc, const nest *n, const unsigned char *need, LLVMValueRef at, LLVMValueRef *clone) {
  for (size_t i = 0; i < n->nslice; i++) {
    if (need && !need[i]) continue;
    clone[i] = LLVMInstructionClone(n->slice[i]);
    for (int o = 0; o < LLVMGetNumOperands(clone[i]); o++) {
      LLVMValueRef v = LLVMGetOperand(clone[i], (unsigned)o);
      if (at && v == n->iv[0]) LLVMSetOperand(clone[i], (unsigned)o, at);
      for (size_t j = 0; j < i; j++)
        if ((!need || need[j]) && v == n->slice[j]) LLVMSetOperand(clone[i], (unsigned)o, clone[j]);
    }
    cgp_insert_keeping_loc(pc->b, clone[i]);
  }
}

/* Clone the latch slice into a block that ends the iteration without running the body. */
LLVMBasicBlockRef cgp_build_skip_block(pass_ctx *pc, nest *n, LLVMBasicBlockRef header,
                                          LLVMBasicBlockRef latch) {
  LLVMBasicBlockRef s = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(header), "cgp.skip");
  LLVMValueRef *clone = calloc(n->nslice ? n->nslice : 1, sizeof *clone);
  LLVMPositionBuilderAtEnd(pc->b, s);
  cgp_clone_slice(pc, n, NULL, NULL, clone);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(latch);
  if (LLVMIsConditional(term))
    LLVMBuildCondBr(pc->b, cgp_slice_clone_of(n, clone, LLVMGetCondition(term)), LLVMGetSuccessor(term, 0), LLVMGetSuccessor(term, 1));
  else
    LLVMBuildBr(pc->b, LLVMGetSuccessor(term, 0));
  for (unsigned k = 0; k < LLVMGetNumSuccessors(term); k++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(term, k);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(succ); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
      LLVMValueRef v = cgp_incoming_for(phi, latch);
      if (v && !cgp_incoming_for(phi, s)) {
        LLVMValueRef mv = cgp_slice_clone_of(n, clone, v);
        LLVMAddIncoming(phi, &mv, &s, 1);
      }
    }
  }
  free(clone);
  return s;
}
