/* cgp_hls_trips.c: a loop's static trip count for the HLS operations (cgp_hls_ops.c): an
   induction variable from a constant, a constant step, and one exit compared with a constant,
   counted by running the compare. Calls nothing else of the HLS operations. */
#include "cgp_hls_ops.h"
#include "cgp_hls_internal.h"

#include <llvm-c/Core.h>
#include <stdint.h>

#include "cgp_cfg.h"

static LLVMValueRef strip_int_casts(LLVMValueRef v) {
  while (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v) || LLVMIsATruncInst(v)) v = LLVMGetOperand(v, 0);
  return v;
}

static int holds(LLVMIntPredicate p, int64_t a, int64_t c) {
  switch (p) {
  case LLVMIntEQ: return a == c;
  case LLVMIntNE: return a != c;
  case LLVMIntSLT: case LLVMIntULT: return a < c;
  case LLVMIntSLE: case LLVMIntULE: return a <= c;
  case LLVMIntSGT: case LLVMIntUGT: return a > c;
  case LLVMIntSGE: case LLVMIntUGE: return a >= c;
  default: return 0;
  }
}

/* The static trip count of a loop with an induction variable from a constant, a constant step and
   an exit compare with a constant; 0 when not of that form (or above 2^26 iterations). */
uint64_t cgp_hls_trip_count(const cgp_cfg *cfg, const cgp_loop *l) {
  if (l->nlatch != 1) return 0;
  LLVMBasicBlockRef latch = cfg->bb[l->latch[0]], header = cfg->bb[l->header];
  LLVMBasicBlockRef exiting = NULL;
  /* the one block that leaves the loop: the latch (rotated, do-while) or the header (while) */
  for (size_t bi = 0; bi < cfg->n; bi++) {
    if (!l->in[bi]) continue;
    for (size_t s = 0; s < cfg->nsucc[bi]; s++)
      if (!l->in[cfg->succ[bi][s]]) {
        if (exiting && exiting != cfg->bb[bi]) return 0;
        exiting = cfg->bb[bi];
      }
  }
  if (exiting != latch && exiting != header) return 0;
  LLVMValueRef br = LLVMGetBasicBlockTerminator(exiting);
  if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br)) return 0;
  LLVMValueRef cmp = LLVMGetCondition(br);
  if (!LLVMIsAICmpInst(cmp)) return 0;
  size_t s0 = cgp_cfg_index(cfg, LLVMGetSuccessor(br, 0));
  int stay_if_true = s0 < cfg->n && l->in[s0];
  LLVMIntPredicate pred = LLVMGetICmpPredicate(cmp);
  LLVMValueRef a = strip_int_casts(LLVMGetOperand(cmp, 0)), c = LLVMGetOperand(cmp, 1);
  int swapped = 0;
  if (!LLVMIsAConstantInt(c)) {
    LLVMValueRef t = a;
    a = strip_int_casts(c);
    c = t;
    swapped = 1;
  }
  if (!LLVMIsAConstantInt(c)) return 0;
  int64_t bound = LLVMConstIntGetSExtValue(c);
  /* a is the induction phi or its update phi + step */
  LLVMValueRef phi = NULL;
  int on_next = 0;
  if (LLVMIsAPHINode(a) && LLVMGetInstructionParent(a) == header) phi = a;
  else if (LLVMIsAInstruction(a) && (LLVMGetInstructionOpcode(a) == LLVMAdd)) {
    LLVMValueRef p = strip_int_casts(LLVMGetOperand(a, 0));
    if (LLVMIsAPHINode(p) && LLVMGetInstructionParent(p) == header) phi = p, on_next = 1;
  }
  if (!phi || LLVMCountIncoming(phi) != 2) return 0;
  LLVMValueRef start = NULL, next = NULL;
  for (unsigned i = 0; i < 2; i++) {
    size_t from = cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, i));
    if (from < cfg->n && l->in[from]) next = LLVMGetIncomingValue(phi, i);
    else start = LLVMGetIncomingValue(phi, i);
  }
  if (!start || !next || !LLVMIsAConstantInt(start) || !LLVMIsAInstruction(next) ||
      LLVMGetInstructionOpcode(next) != LLVMAdd || strip_int_casts(LLVMGetOperand(next, 0)) != phi ||
      !LLVMIsAConstantInt(LLVMGetOperand(next, 1)))
    return 0;
  if (on_next && strip_int_casts(a) != next && LLVMGetOperand(a, 1) != LLVMGetOperand(next, 1)) return 0;
  int64_t iv = LLVMConstIntGetSExtValue(start), step = LLVMConstIntGetSExtValue(LLVMGetOperand(next, 1));
  if (!step) return 0;
  uint64_t trips = 0;
  for (;;) {
    if (exiting != latch) { /* while: the header tests first */
      int64_t x = on_next ? iv + step : iv;
      int t = swapped ? holds(pred, bound, x) : holds(pred, x, bound);
      if (t != stay_if_true) return trips;
      trips++;
    } else { /* do-while: the latch tests after the body (also a one-block loop: header and latch) */
      trips++;
      int64_t x = on_next ? iv + step : iv;
      int t = swapped ? holds(pred, bound, x) : holds(pred, x, bound);
      if (t != stay_if_true) return trips;
    }
    iv += step;
    if (trips > (1u << 26)) return 0;
  }
}
