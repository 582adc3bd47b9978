/* cgp_mapped.c: finding the mapped loops of a marked nest (its `dims` outermost loops, by
   default the perfect nest, at most 3) and their induction variables, which become the thread
   ids. Uses cgp_sites.c and cgp_messages.c. */
#include "cgp_phase2.h"
#include <stdlib.h>

/* Loops directly inside `outer` (nested in it, not inside another loop nested in it). */
static size_t child_loops(cgp_loop *loops, size_t nl, const cgp_loop *outer, cgp_loop **kids) {
  size_t nk = 0;
  for (size_t c = 0; c < nl; c++) {
    if (&loops[c] == outer || !cgp_loop_contains(outer, &loops[c])) continue;
    int direct = 1;
    for (size_t d = 0; d < nl && direct; d++)
      if (&loops[d] != outer && &loops[d] != &loops[c] && cgp_loop_contains(outer, &loops[d]) &&
          cgp_loop_contains(&loops[d], &loops[c]))
        direct = 0;
    if (direct) kids[nk++] = &loops[c];
  }
  return nk;
}

/* First access or call of `outer` that lies outside `inner` (NULL if none). In a prepared
   module the accesses are the source's (the markers): a load LICM hoisted does not count. */
static LLVMValueRef between_loops(const pass_ctx *pc, const cgp_cfg *cfg, const cgp_loop *outer,
                                  const cgp_loop *inner) {
  for (size_t b = 0; b < cfg->n; b++) {
    if (!outer->in[b] || inner->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i))
      if ((pc->f_site ? cgp_is_marker(pc, i) : cgp_is_mem(i)) || cgp_is_real_call(i)) return i;
  }
  return NULL;
}

int cgp_choose_mapped_loops(pass_ctx *pc, nest *n, cgp_loop *loops, size_t nl, cgp_loop *l0) {
  cgp_loop **kids = calloc(nl ? nl : 1, sizeof *kids);
  unsigned want = n->k->dims ? n->k->dims : CGP_MAX_DIMS;
  n->mapped[0] = l0;
  n->dims = 1;
  while (n->dims < want) {
    cgp_loop *outer = n->mapped[n->dims - 1];
    size_t nk = child_loops(loops, nl, outer, kids);
    LLVMValueRef stray = nk == 1 ? between_loops(pc, n->cfg, outer, kids[0]) : NULL;
    if (!n->k->dims && (nk != 1 || stray)) break;       /* default: the perfect nest, at most 3 */
    if (nk != 1) {
      NEST_ERROR(pc, n, "kernel '%s': dims(%u) maps %u loops, but the loop at line %u contains %zu "
                 "loops directly (a mapped loop must contain exactly one loop)",
                 n->k->name, n->k->dims, n->k->dims, outer->line, nk);
      free(kids);
      return -1;
    }
    n->mapped[n->dims++] = kids[0];
  }
  free(kids);
  return 0;
}

/* The integer induction variable of a loop: a header phi whose value from each latch is
   phi +/- constant (*step), or, where run_time is not NULL, phi +/- a value fixed before the
   loop `outer` (the nest) is entered: *step 0, run_time->value the value, run_time->negate for
   phi - value (a step known only at run time, `i += m + m`). A constant step is preferred. */
LLVMValueRef cgp_induction_variable(const cgp_cfg *cfg, const cgp_loop *l, long long *step, const cgp_loop *outer,
                                       run_time_step *run_time) {
  LLVMBasicBlockRef h = cfg->bb[l->header];
  for (int want_constant = 1; want_constant >= 0; want_constant--) {
    if (!want_constant && !run_time) break;
    for (LLVMValueRef phi = LLVMGetFirstInstruction(h); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
      if (LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMIntegerTypeKind) continue;
      int ok = 1;
      run_time_step rt = {NULL, 0};
      for (unsigned k = 0; k < LLVMCountIncoming(phi) && ok; k++) {
        size_t from = cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k));
        if (!l->in[from]) continue;
        LLVMValueRef v = LLVMGetIncomingValue(phi, k);
        ok = 0;
        if (!LLVMIsAInstruction(v)) break;
        LLVMOpcode op = LLVMGetInstructionOpcode(v);
        if ((op != LLVMAdd && op != LLVMSub) || LLVMGetOperand(v, 0) != phi) break;
        LLVMValueRef c = LLVMGetOperand(v, 1);
        if (want_constant) {
          if (!LLVMIsAConstantInt(c)) break;
          *step = LLVMConstIntGetSExtValue(c) * (op == LLVMSub ? -1 : 1);
          ok = *step != 0;
        } else {                                   /* the same invariant value from every latch */
          if (LLVMIsAConstant(c) || !cgp_loop_invariant(cfg, outer, c) || (rt.value && (rt.value != c ||
              rt.negate != (op == LLVMSub))))
            break;
          rt.value = c;
          rt.negate = op == LLVMSub;
          ok = 1;
        }
      }
      if (ok && !want_constant && !rt.value) ok = 0;
      if (!ok) continue;
      if (!want_constant) { *step = 0; *run_time = rt; }
      return phi;
    }
  }
  return NULL;
}

/* v with integer casts taken off. */
static LLVMValueRef uncast(LLVMValueRef v) {
  while (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v) || LLVMIsATruncInst(v)) v = LLVMGetOperand(v, 0);
  return v;
}

/* The comparison of loop l's one exiting branch, a conditional br (*inside_on_true: the loop goes
   on where it is true), or NULL: several exits, another terminator, no integer comparison. (A
   block of a natural loop reaches its latch, so no branch leaves it on both edges.) */
static LLVMValueRef exit_compare(const cgp_cfg *cfg, const cgp_loop *l, int *inside_on_true) {
  LLVMValueRef exit_br = NULL;
  for (size_t b = 0; b < cfg->n; b++) {               /* its one exiting branch */
    if (!l->in[b]) continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(cfg->bb[b]);
    if (!t) continue;
    for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
      size_t j = cgp_cfg_index(cfg, LLVMGetSuccessor(t, s));
      if (j < cfg->n && l->in[j]) continue;
      if (exit_br || LLVMGetInstructionOpcode(t) != LLVMBr || !LLVMIsConditional(t) || LLVMGetNumSuccessors(t) != 2)
        return NULL;
      exit_br = t;
      *inside_on_true = s == 1;                       /* the loop goes on where the exit is not */
    }
  }
  if (!exit_br) return NULL;
  LLVMValueRef c = LLVMGetCondition(exit_br);
  return LLVMIsAICmpInst(c) ? c : NULL;
}

LLVMValueRef cgp_mapped_bound(const cgp_cfg *cfg, const cgp_loop *l, const cgp_loop *l0) {
  int inside_on_true;
  LLVMValueRef c = exit_compare(cfg, l, &inside_on_true);
  if (!c) return NULL;
  for (unsigned o = 0; o < 2; o++) {
    LLVMValueRef v = LLVMGetOperand(c, o);
    if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind) continue;
    if (LLVMIsAArgument(v)) return v;
    size_t j = LLVMIsAInstruction(v) ? cgp_cfg_index(cfg, LLVMGetInstructionParent(v)) : cfg->n;
    if (j < cfg->n && !l0->in[j]) return v;        /* (a block the pass added is none of the user's) */
  }
  return NULL;
}

long long cgp_mapped_extent(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef iv) {
  int inside_on_true = 0;
  LLVMValueRef c = exit_compare(cfg, l, &inside_on_true);
  if (!c) return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(c);
  LLVMValueRef x = uncast(LLVMGetOperand(c, 0)), k = LLVMGetOperand(c, 1);
  if (LLVMIsAConstantInt(x) && !LLVMIsAConstantInt(k)) {   /* constant first: swap */
    LLVMValueRef t = x;
    x = uncast(k);
    k = t;
    p = p == LLVMIntSLT ? LLVMIntSGT : p == LLVMIntSGT ? LLVMIntSLT : p == LLVMIntSLE ? LLVMIntSGE
      : p == LLVMIntSGE ? LLVMIntSLE : p == LLVMIntULT ? LLVMIntUGT : p == LLVMIntUGT ? LLVMIntULT
      : p == LLVMIntULE ? LLVMIntUGE : p == LLVMIntUGE ? LLVMIntULE : p;
  }
  if (!LLVMIsAConstantInt(k)) return 0;
  /* the index, or the next one (iv + 1): either way the largest index a thread has is the largest
     value the comparison lets the loop go on with */
  int is_next = LLVMIsAInstruction(x) && LLVMGetInstructionOpcode(x) == LLVMAdd && uncast(LLVMGetOperand(x, 0)) == iv &&
                LLVMIsAConstantInt(LLVMGetOperand(x, 1)) && LLVMConstIntGetSExtValue(LLVMGetOperand(x, 1)) == 1;
  if (x != iv && !is_next) return 0;
  if (!inside_on_true) {                              /* the loop goes on while the test fails */
    p = p == LLVMIntEQ ? LLVMIntNE : p == LLVMIntNE ? LLVMIntEQ : p == LLVMIntSLT ? LLVMIntSGE
      : p == LLVMIntSGE ? LLVMIntSLT : p == LLVMIntSLE ? LLVMIntSGT : p == LLVMIntSGT ? LLVMIntSLE
      : p == LLVMIntULT ? LLVMIntUGE : p == LLVMIntUGE ? LLVMIntULT : p == LLVMIntULE ? LLVMIntUGT
      : LLVMIntULE;
  }
  long long bound = LLVMConstIntGetSExtValue(k);
  long long last = p == LLVMIntSLT || p == LLVMIntULT || p == LLVMIntNE ? bound - 1
                 : p == LLVMIntSLE || p == LLVMIntULE ? bound : -1;
  return last >= 0 ? last + 1 : 0;
}
