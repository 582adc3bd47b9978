/* cgp_thread.c: rewriting the thread loop: its header split after the phis asks cgp_rt_thread
   what each thread does and branches to the instrumented body, the clean copy or the skip block
   (cgp_skip.c); the clean copy becomes a loop of its own over the next plain threads. Uses
   cgp_skip.c, cgp_sites.c and cgp_messages.c. */
#include "cgp_phase2.h"
#include "cgp_clean.h"
#include "cgp_ptrmap.h"
#include <stdlib.h>

#define CGP_TRACE_MODE 1           /* runtime/cgp_rt.h: CGP_RT_TRACE */
#define CGP_SKIP_MODE 2            /* runtime/cgp_rt.h: CGP_RT_SKIP */

/* Move everything after the phis of `h` into a new block placed after it; `h` ends with an
   unconditional branch to the new block, which is returned. */
LLVMBasicBlockRef cgp_split_after_phis(pass_ctx *pc, LLVMBasicBlockRef h, LLVMValueRef *track,
                                          size_t ntrack) {
  LLVMBasicBlockRef r = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(h), "cgp.thread");
  LLVMMoveBasicBlockAfter(r, h);
  LLVMPositionBuilderAtEnd(pc->b, r);
  LLVMValueRef i = cgp_first_non_phi(h);
  while (i) {
    LLVMValueRef next = LLVMGetNextInstruction(i);
    LLVMInstructionRemoveFromParent(i);
    cgp_insert_keeping_loc(pc->b, i);
    i = next;
  }
  LLVMValueRef term = LLVMGetBasicBlockTerminator(r);
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++)
    cgp_retarget_phis(pc->b, LLVMGetSuccessor(term, s), h, r, track, ntrack);
  LLVMPositionBuilderAtEnd(pc->b, h);
  LLVMBuildBr(pc->b, r);
  return r;
}

/* The header asks the runtime what this thread does: a traced thread runs the instrumented
   body, one that is not runs the clean copy (NULL if none could be made: then the instrumented
   body, whose hooks are guarded), a skipped one only the latch (when can_skip). */
LLVMValueRef cgp_insert_thread_hook(pass_ctx *pc, nest *n, LLVMBasicBlockRef header, LLVMBasicBlockRef body,
                                       LLVMBasicBlockRef clean, LLVMBasicBlockRef latch, LLVMBasicBlockRef *clean_from) {
  LLVMValueRef br = LLVMGetBasicBlockTerminator(header);
  LLVMPositionBuilderBefore(pc->b, br);
  LLVMValueRef args[3];
  for (unsigned d = 0; d < 3; d++)
    args[d] = d < n->dims ? LLVMBuildIntCast2(pc->b, n->iv[d], pc->i64, 1, "")
                          : LLVMConstInt(pc->i64, 0, 0);
  LLVMValueRef mode = LLVMBuildCall2(pc->b, pc->t_thread, pc->f_thread, args, 3, "cgp.mode");
  *clean_from = header;
  if (!n->can_skip && !clean) return mode;
  LLVMBasicBlockRef untraced = clean ? clean : body, run = header;   /* run: where traced is told apart */
  /* the skip block reads the latch's branch, which is br when the header is the latch: first */
  LLVMBasicBlockRef skip = n->can_skip ? cgp_build_skip_block(pc, n, header, latch) : NULL;
  LLVMInstructionEraseFromParent(br);
  if (skip) {
    run = *clean_from = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(header), "cgp.run");
    LLVMPositionBuilderAtEnd(pc->b, header);
    LLVMValueRef is_skip = LLVMBuildICmp(pc->b, LLVMIntEQ, mode, LLVMConstInt(pc->i32, CGP_SKIP_MODE, 0), "");
    LLVMBuildCondBr(pc->b, is_skip, skip, run);
  }
  LLVMPositionBuilderAtEnd(pc->b, run);
  LLVMBuildCondBr(pc->b, LLVMBuildICmp(pc->b, LLVMIntEQ, mode, LLVMConstInt(pc->i32, CGP_TRACE_MODE, 0), ""),
                  body, untraced);
  return mode;
}

/* The copy's only way out is its latch, a conditional branch to the header or out of the loop:
   that block, NULL otherwise. */
static LLVMBasicBlockRef copy_latch(LLVMBasicBlockRef header, LLVMBasicBlockRef *copy, size_t ncopy,
                                    const ptrmap *in) {
  LLVMBasicBlockRef latch = NULL;
  for (size_t b = 0; b < ncopy; b++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(copy[b]);
    if (!term) return NULL;
    for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
      if (map_get(in, LLVMGetSuccessor(term, s))) continue;
      if (latch && latch != copy[b]) return NULL;
      latch = copy[b];
    }
  }
  if (!latch) return NULL;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(latch);
  if (LLVMGetInstructionOpcode(term) != LLVMBr || !LLVMIsConditional(term)) return NULL;
  LLVMBasicBlockRef s0 = LLVMGetSuccessor(term, 0), s1 = LLVMGetSuccessor(term, 1);
  if ((s0 == header) == (s1 == header) || map_get(in, s0 == header ? s1 : s0)) return NULL;
  return latch;
}

/* The clean copy as a loop of its own. cgp_rt_thread's PLAIN answer also says how many of the
   next threads (x + 1, x + 2, ...) are plain too (mode >> 2, cgp_abi.h): the copy's latch goes
   on to its own entry while the loop continues and that count lasts, with no call, so the
   compiler can vectorize it as it would the user's loop; when it stops, cgp_rt_fast_end gets the
   last thread it ran, then the latch's own branch goes on (to the header: the next thread asks
   the runtime) or out. Only for a thread loop stepping by 1 whose copy leaves by its latch
   alone; otherwise the copy stays one thread per call. In the copy, the header's phis become
   phis of the copy's entry (from the header's side: their value; from the latch: the next). */
LLVMBasicBlockRef cgp_clean_thread_loop(pass_ctx *pc, nest *n, LLVMBasicBlockRef header,
                                           LLVMBasicBlockRef *copy, size_t ncopy, LLVMBasicBlockRef from,
                                           LLVMValueRef mode, clean_loop *cl) {
  LLVMBasicBlockRef made = NULL, c0 = copy[0];
  if (cl) *cl = (clean_loop){0};
  size_t nphi = 0;
  for (LLVMValueRef p = LLVMGetFirstInstruction(header); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) nphi++;
  LLVMValueRef *P = malloc((nphi + 1) * sizeof *P), *Q = malloc((nphi + 1) * sizeof *Q);
  ptrmap in = {0};                                 /* the copy's blocks, as a set */
  if (!P || !Q || !ptrmap_init(&in, ncopy)) goto out;
  for (size_t b = 0; b < ncopy; b++) map_put(&in, copy[b], copy[b]);
  LLVMBasicBlockRef lc = copy_latch(header, copy, ncopy, &in);
  if (!lc || LLVMIsAPHINode(LLVMGetFirstInstruction(c0))) goto out;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(lc), cond = LLVMGetCondition(term);
  LLVMBasicBlockRef s0 = LLVMGetSuccessor(term, 0), s1 = LLVMGetSuccessor(term, 1);
  LLVMBasicBlockRef exit = s0 == header ? s1 : s0;
  size_t k = 0, iv = nphi;
  for (LLVMValueRef p = LLVMGetFirstInstruction(header); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
    if (!cgp_incoming_for(p, lc)) goto out;
    if (p == n->iv[0]) iv = k;
    P[k++] = p;
  }
  if (iv == nphi) goto out;

  /* the grant, in the header (it dominates the copy) */
  LLVMPositionBuilderBefore(pc->b, LLVMGetBasicBlockTerminator(header));
  LLVMValueRef grant = LLVMBuildAdd(pc->b, LLVMBuildZExt(pc->b, LLVMBuildLShr(pc->b, mode, LLVMConstInt(pc->i32, 2, 0), ""), pc->i64, ""),
                                    LLVMConstInt(pc->i64, 1, 0), "cgp.plain");
  LLVMPositionBuilder(pc->b, c0, LLVMGetFirstInstruction(c0));
  for (k = 0; k < nphi; k++) Q[k] = LLVMBuildPhi(pc->b, LLVMTypeOf(P[k]), "cgp.fast");
  LLVMValueRef left = LLVMBuildPhi(pc->b, pc->i64, "cgp.left");
  for (k = 0; k < nphi; k++) {                     /* in the copy, Q replaces P */
    size_t nu = 0, ui = 0;                          /* users first: a replaced use leaves the list */
    for (LLVMUseRef u = LLVMGetFirstUse(P[k]); u; u = LLVMGetNextUse(u)) nu++;
    LLVMValueRef *users = malloc((nu ? nu : 1) * sizeof *users);
    if (!users) { pc->failed = 1; cgp_msg_add(&pc->err, "cgpredict: out of memory\n"); goto out; }
    for (LLVMUseRef u = LLVMGetFirstUse(P[k]); u; u = LLVMGetNextUse(u)) users[ui++] = LLVMGetUser(u);
    for (ui = 0; ui < nu; ui++) {
      LLVMValueRef user = users[ui];
      if (!LLVMIsAInstruction(user) || !map_get(&in, LLVMGetInstructionParent(user))) continue;
      for (int o = 0; o < LLVMGetNumOperands(user); o++)
        if (LLVMGetOperand(user, (unsigned)o) == P[k]) LLVMSetOperand(user, (unsigned)o, Q[k]);
    }
    free(users);
  }
  /* values leaving by the latch: a header phi there is, from the copy, its Q */
  LLVMBasicBlockRef succ[2] = {header, exit};
  for (int s = 0; s < 2; s++)
    for (LLVMValueRef p = LLVMGetFirstInstruction(succ[s]); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p))
      for (unsigned i = 0; i < LLVMCountIncoming(p); i++)
        if (LLVMGetIncomingBlock(p, i) == lc)
          for (k = 0; k < nphi; k++)
            if (LLVMGetIncomingValue(p, i) == P[k]) LLVMSetOperand(p, i, Q[k]);
  LLVMPositionBuilderBefore(pc->b, term);
  LLVMValueRef next_left = LLVMBuildSub(pc->b, left, LLVMConstInt(pc->i64, 1, 0), "");
  LLVMValueRef cont = s0 == header ? cond : LLVMBuildNot(pc->b, cond, "");
  LLVMValueRef go = LLVMBuildAnd(pc->b, cont, LLVMBuildICmp(pc->b, LLVMIntNE, next_left, LLVMConstInt(pc->i64, 0, 0), ""), "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(header), "cgp.fast.end");
  LLVMBuildCondBr(pc->b, go, c0, done);
  LLVMInstructionEraseFromParent(term);
  for (k = 0; k < nphi; k++) {                     /* the latch's value is already mapped */
    LLVMValueRef in_v[2] = {P[k], cgp_incoming_for(P[k], lc)};
    LLVMBasicBlockRef in_b[2] = {from, lc};
    LLVMAddIncoming(Q[k], in_v, in_b, 2);
  }
  LLVMValueRef lin[2] = {grant, next_left};
  LLVMBasicBlockRef lbb[2] = {from, lc};
  LLVMAddIncoming(left, lin, lbb, 2);
  LLVMPositionBuilderAtEnd(pc->b, done);
  LLVMValueRef x = LLVMBuildIntCast2(pc->b, Q[iv], pc->i64, 1, "");
  LLVMBuildCall2(pc->b, pc->t_fast_end, pc->f_fast_end, &x, 1, "");
  LLVMBuildCondBr(pc->b, cond, s0, s1);
  cgp_retarget_phis(pc->b, header, lc, done, n->iv, CGP_MAX_DIMS);
  cgp_retarget_phis(pc->b, exit, lc, done, n->iv, CGP_MAX_DIMS);
  made = c0;
  if (cl) *cl = (clean_loop){.entry = c0, .latch = lc, .from = from, .iv = Q[iv], .left = left, .nphi = nphi};
out:
  ptrmap_free(&in);
  free(P);
  free(Q);
  return made;
}
