/* cgp_carried.c: scalars a mapped loop carries from one iteration to the next (cgp_carried.h;
   docs/pipeline.md, "Carried scalars"): induction variables, recurrences, reductions and the
   instruction that updates them. Analysis only: nothing here rewrites the IR. */
#include "cgp_carried.h"

#include <stdlib.h>
#include <string.h>

#include "cgp_ptrmap.h"

/* Is phi stepped by a loop-invariant amount each iteration (an integer or pointer induction
   variable: by a constant, or by a value fixed before the loop, as the start of a row of m
   elements the optimizer keeps in a register, `lo += m`)? Each thread can compute such a value
   from its index: it carries nothing. */
int cgp_carried_affine(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi) {
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
    if (!l->in[cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k))]) continue;
    LLVMValueRef v = LLVMGetIncomingValue(phi, k);
    if (!LLVMIsAInstruction(v) || LLVMGetOperand(v, 0) != phi) return 0;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    if ((op == LLVMAdd || op == LLVMSub) && cgp_loop_invariant(cfg, l, LLVMGetOperand(v, 1))) continue;
    if (op == LLVMGetElementPtr && LLVMGetNumOperands(v) == 2 && cgp_loop_invariant(cfg, l, LLVMGetOperand(v, 1)))
      continue;
    return 0;
  }
  return 1;
}

/* Does the value phi receives from an iteration of loop l depend on phi itself, through
   instructions of l (a recurrence: s += a[i], p = p->next)? A phi that only hands a value on
   (the loop bound reloaded every iteration because a store might change it, as srad's `Nr`; a
   load of the next iteration done early) carries no dependence: each thread computes it itself.
   The walk stops at the thread indices and other induction variables, and outside l. insts: the
   instructions of l (loop_instructions), the most the walk visits. */
int cgp_carried_recurrence(const cgp_cfg *cfg, const cgp_loop *l, size_t insts, LLVMValueRef phi, const LLVMValueRef *iv,
                      unsigned niv) {
  size_t cap = 64, top = 0;
  LLVMValueRef *stack = malloc(cap * sizeof *stack);
  ptrmap seen = {0};
  int found = 0;
  if (!stack || !ptrmap_init(&seen, insts)) { free(stack); ptrmap_free(&seen); return 1; }   /* unsure: warn */
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++)
    if (l->in[cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k))]) stack[top++] = LLVMGetIncomingValue(phi, k);
  while (top && !found) {
    LLVMValueRef v = stack[--top];
    if (v == phi) { found = 1; break; }
    if (!LLVMIsAInstruction(v) || map_get(&seen, v)) continue;
    if (!l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(v))]) continue;
    int index = 0;
    for (unsigned d = 0; d < niv; d++) index |= v == iv[d];
    if (index || (LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == cfg->bb[l->header] && cgp_carried_affine(cfg, l, v)))
      continue;
    map_put(&seen, v, v);                                      /* an instruction of l: room for all */
    for (int o = 0; o < LLVMGetNumOperands(v); o++) {
      if (top == cap) {
        LLVMValueRef *bigger = realloc(stack, (cap *= 2) * sizeof *stack);
        if (!bigger) { found = 1; break; }
        stack = bigger;
      }
      stack[top++] = LLVMGetOperand(v, (unsigned)o);
    }
  }
  free(stack);
  ptrmap_free(&seen);
  return found;
}

/* Does v depend on `target` through instructions of loop l (at most `budget` of them visited)? */
static int reaches(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v, LLVMValueRef target, unsigned budget) {
  LLVMValueRef stack[256], seen[256];
  unsigned top = 0, nseen = 0;
  stack[top++] = v;
  while (top) {
    LLVMValueRef x = stack[--top];
    if (x == target) return 1;
    if (!LLVMIsAInstruction(x) || !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(x))]) continue;
    int again = 0;
    for (unsigned k = 0; k < nseen && !again; k++) again = seen[k] == x;
    if (again) continue;
    if (nseen == 256 || nseen == budget) return 1;                /* unsure: it may */
    seen[nseen++] = x;
    for (int o = 0; o < LLVMGetNumOperands(x); o++) {
      if (top == 256) return 1;
      stack[top++] = LLVMGetOperand(x, (unsigned)o);
    }
  }
  return 0;
}

/* A carried value's chain of updates, for carried_form: the instructions of loop l that compute
   the next value from the phi (through casts, branches' phis, selects), the comparisons of a
   min/max, the one associative operation they all apply, and the first of them. */
enum { CHAIN_MAX = 64 };
typedef struct {
  const cgp_cfg *cfg;
  const cgp_loop *l;
  LLVMValueRef phi;
  LLVMValueRef m[CHAIN_MAX];
  unsigned nm;
  LLVMValueRef cmp[CHAIN_MAX];
  unsigned ncmp;
  const char *op;                   /* "+", "*", "&", "|", "^", "min", "max"; NULL: none yet */
  LLVMValueRef update;              /* the first operation met */
} chain;

static int chain_member(const chain *c, LLVMValueRef v) {
  if (v == c->phi) return 1;
  for (unsigned k = 0; k < c->nm; k++)
    if (c->m[k] == v) return 1;
  return 0;
}

static int chain_op(chain *c, const char *op, LLVMValueRef inst) {
  if (c->op && strcmp(c->op, op) != 0) return 0;            /* s = s * 2 + a[i]: not one operation */
  c->op = op;
  if (!c->update) c->update = inst;
  return 1;
}

static int chain_reaches(const chain *c, LLVMValueRef v) { return reaches(c->cfg, c->l, v, c->phi, 256); }

static int chain_add(chain *c, LLVMValueRef v, int depth);

/* Exactly one of v's first two operands depends on the phi: add it (the other is the term). */
static int chain_one_operand(chain *c, LLVMValueRef v, int depth, int first_only) {
  int r0 = chain_reaches(c, LLVMGetOperand(v, 0)), r1 = chain_reaches(c, LLVMGetOperand(v, 1));
  if (r0 == r1 || (first_only && !r0)) return 0;
  return chain_add(c, LLVMGetOperand(v, r0 ? 0 : 1), depth + 1);
}

/* A select or branch that keeps the larger (smaller) of a and e, where the comparison cmp of a
   and e decides: "max" or "min", NULL if it is no such choice. */
static const char *min_or_max(LLVMValueRef cmp, LLVMValueRef when_true, LLVMValueRef when_false) {
  if (!cmp || !(LLVMIsAICmpInst(cmp) || LLVMIsAFCmpInst(cmp))) return NULL;
  LLVMValueRef a = LLVMGetOperand(cmp, 0), b = LLVMGetOperand(cmp, 1);
  if (!((when_true == a && when_false == b) || (when_true == b && when_false == a))) return NULL;
  int greater_first;                                          /* true means a > b (or >=) */
  if (LLVMIsAICmpInst(cmp)) {
    switch (LLVMGetICmpPredicate(cmp)) {
    case LLVMIntSGT: case LLVMIntSGE: case LLVMIntUGT: case LLVMIntUGE: greater_first = 1; break;
    case LLVMIntSLT: case LLVMIntSLE: case LLVMIntULT: case LLVMIntULE: greater_first = 0; break;
    default: return NULL;
    }
  } else {
    switch (LLVMGetFCmpPredicate(cmp)) {
    case LLVMRealOGT: case LLVMRealOGE: case LLVMRealUGT: case LLVMRealUGE: greater_first = 1; break;
    case LLVMRealOLT: case LLVMRealOLE: case LLVMRealULT: case LLVMRealULE: greater_first = 0; break;
    default: return NULL;
    }
  }
  return (when_true == a) == greater_first ? "max" : "min";
}

/* The min/max a merge phi of two values makes: `if (e > m) m = e;` leaves the branch on e > m and
   a phi of e (from the taken arm) and m. NULL if phi is not one. */
static const char *phi_min_or_max(LLVMValueRef phi, LLVMValueRef *cmp_out) {
  if (LLVMCountIncoming(phi) != 2) return NULL;
  LLVMBasicBlockRef b0 = LLVMGetIncomingBlock(phi, 0), b1 = LLVMGetIncomingBlock(phi, 1);
  /* one arm is the block holding the branch, the other a block that block branched to first */
  for (int side = 0; side < 2; side++) {
    LLVMBasicBlockRef from = side ? b1 : b0, arm = side ? b0 : b1;
    LLVMValueRef br = LLVMGetBasicBlockTerminator(from);
    if (LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br)) continue;
    LLVMBasicBlockRef t = LLVMValueAsBasicBlock(LLVMGetOperand(br, 2)), f = LLVMValueAsBasicBlock(LLVMGetOperand(br, 1));
    LLVMBasicBlockRef here = LLVMGetInstructionParent(phi);
    LLVMValueRef arm_term = LLVMGetBasicBlockTerminator(arm);
    if (LLVMGetInstructionOpcode(arm_term) != LLVMBr || LLVMIsConditional(arm_term) ||
        LLVMValueAsBasicBlock(LLVMGetOperand(arm_term, 0)) != here)
      continue;
    LLVMValueRef v_from = LLVMGetIncomingValue(phi, side ? 1 : 0), v_arm = LLVMGetIncomingValue(phi, side ? 0 : 1);
    LLVMValueRef cond = LLVMGetCondition(br);
    const char *mm = NULL;
    if (t == arm && f == here) mm = min_or_max(cond, v_arm, v_from);
    else if (f == arm && t == here) mm = min_or_max(cond, v_from, v_arm);
    if (mm) { *cmp_out = cond; return mm; }
  }
  return NULL;
}

static int chain_add(chain *c, LLVMValueRef v, int depth) {
  if (chain_member(c, v)) return 1;
  if (!LLVMIsAInstruction(v) || !c->l->in[cgp_cfg_index(c->cfg, LLVMGetInstructionParent(v))]) return 0;
  if (depth > 32 || c->nm == CHAIN_MAX) return 0;
  c->m[c->nm++] = v;                                /* first: a cycle through an inner loop ends here */
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  switch (op) {
  case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPExt: case LLVMFPTrunc:
    return chain_add(c, LLVMGetOperand(v, 0), depth + 1);
  case LLVMAdd: case LLVMFAdd:
    return chain_op(c, "+", v) && chain_one_operand(c, v, depth, 0);
  case LLVMSub: case LLVMFSub:                      /* s -= a[i]: a sum of the negated terms */
    return chain_op(c, "+", v) && chain_one_operand(c, v, depth, 1);
  case LLVMMul: case LLVMFMul:
    return chain_op(c, "*", v) && chain_one_operand(c, v, depth, 0);
  case LLVMAnd: return chain_op(c, "&", v) && chain_one_operand(c, v, depth, 0);
  case LLVMOr: return chain_op(c, "|", v) && chain_one_operand(c, v, depth, 0);
  case LLVMXor: return chain_op(c, "^", v) && chain_one_operand(c, v, depth, 0);
  case LLVMCall: {
    LLVMValueRef callee = LLVMGetCalledValue(v);
    size_t len = 0;
    const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
    if (!strncmp(name, "llvm.fmuladd.", 13) || !strncmp(name, "llvm.fma.", 9)) {
      /* s += a * b contracted (clang's default -ffp-contract=on for float): the sum is the
         addend alone, else (s = s * x + y) it is a recurrence */
      if (chain_reaches(c, LLVMGetOperand(v, 0)) || chain_reaches(c, LLVMGetOperand(v, 1))) return 0;
      return chain_op(c, "+", v) && chain_add(c, LLVMGetOperand(v, 2), depth + 1);
    }
    const char *mm = NULL;
    if (!strncmp(name, "llvm.smax.", 10) || !strncmp(name, "llvm.umax.", 10) || !strncmp(name, "llvm.maxnum.", 12) ||
        !strncmp(name, "llvm.maximum.", 13))
      mm = "max";
    else if (!strncmp(name, "llvm.smin.", 10) || !strncmp(name, "llvm.umin.", 10) ||
             !strncmp(name, "llvm.minnum.", 12) || !strncmp(name, "llvm.minimum.", 13))
      mm = "min";
    return mm && chain_op(c, mm, v) && chain_one_operand(c, v, depth, 0);
  }
  case LLVMSelect: {
    LLVMValueRef cond = LLVMGetOperand(v, 0), t = LLVMGetOperand(v, 1), f = LLVMGetOperand(v, 2);
    const char *mm = min_or_max(cond, t, f);
    if (mm) {                                       /* m = e > m ? e : m */
      if (c->ncmp == CHAIN_MAX || !chain_op(c, mm, v)) return 0;
      c->cmp[c->ncmp++] = cond;
      int rt = chain_reaches(c, t), rf = chain_reaches(c, f);
      return rt != rf && chain_add(c, rt ? t : f, depth + 1);
    }
    /* a conditional update, chosen by what the phi does not decide: both arms update it */
    return !chain_reaches(c, cond) && chain_reaches(c, t) && chain_reaches(c, f) && chain_add(c, t, depth + 1) &&
           chain_add(c, f, depth + 1);
  }
  case LLVMPHI: {
    LLVMValueRef cmp = NULL;
    const char *mm = LLVMGetInstructionParent(v) != c->cfg->bb[c->l->header] ? phi_min_or_max(v, &cmp) : NULL;
    if (mm) {                                       /* if (e > m) m = e; */
      if (c->ncmp == CHAIN_MAX || !chain_op(c, mm, v)) return 0;
      c->cmp[c->ncmp++] = cmp;
      int r0 = chain_reaches(c, LLVMGetIncomingValue(v, 0)), r1 = chain_reaches(c, LLVMGetIncomingValue(v, 1));
      return r0 != r1 && chain_add(c, LLVMGetIncomingValue(v, r0 ? 0 : 1), depth + 1);
    }
    /* the branches' join (a conditional update), or an inner loop's header: every value in
       comes from the phi (the branches' conditions are checked by carried_form: none may read it) */
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++) {
      LLVMValueRef in = LLVMGetIncomingValue(v, k);
      if (!chain_reaches(c, in) || !chain_add(c, in, depth + 1)) return 0;
    }
    return 1;
  }
  default:
    return 0;
  }
}

/* Is the value carried by header phi of loop l a reduction: x = x op e with op associative (+,
   *, min, max, &, |, ^; one op throughout, conditionally or not), whose intermediate values
   the loop uses for nothing else (no comparison, address or store reads them, so no thread needs
   another's value)? Then *op gets the operation and *update the first instruction applying it. */
int cgp_carried_reduction(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi, const char **op,
                             LLVMValueRef *update) {
  chain *c = calloc(1, sizeof *c);
  if (!c) return 0;
  c->cfg = cfg;
  c->l = l;
  c->phi = phi;
  int ok = 1;
  for (unsigned k = 0; k < LLVMCountIncoming(phi) && ok; k++)
    if (l->in[cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k))]) ok = chain_add(c, LLVMGetIncomingValue(phi, k), 0);
  ok = ok && c->op;
  /* every use inside l of the phi or of a value of the chain is the chain's own (or a min/max's
     comparison): a use outside l is the final value */
  for (unsigned k = 0; ok && k <= c->nm; k++) {
    LLVMValueRef v = k < c->nm ? c->m[k] : phi;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u && ok; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!LLVMIsAInstruction(user) || !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(user))]) continue;
      int own = chain_member(c, user);
      for (unsigned j = 0; j < c->ncmp && !own; j++) own = c->cmp[j] == user;
      ok = own;
    }
  }
  if (ok) { *op = c->op; *update = c->update; }
  free(c);
  return ok;
}

/* v is an instruction of l that only chooses among values (a phi, a select, a boolean `or` or
   `and`: select(c, true, x) and select(c, x, false) as instcombine writes them). */
static int chooser(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v) || !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(v))]) return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  int boolean = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 1;
  return op == LLVMPHI || op == LLVMSelect || (boolean && (op == LLVMOr || op == LLVMAnd));
}

int cgp_carried_flag(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi, LLVMValueRef *value) {
  enum { CAP = 64 };
  LLVMValueRef chain[CAP], stack[CAP], set = NULL;
  unsigned nc = 0, top = 0;
  LLVMTypeRef i1 = LLVMTypeOf(phi);
  for (unsigned k = 0; k < LLVMCountIncoming(phi) && top < CAP; k++)
    if (l->in[cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k))]) stack[top++] = LLVMGetIncomingValue(phi, k);
  while (top) {
    LLVMValueRef v = stack[--top], leaf = v;
    if (v == phi) continue;
    if (chooser(cfg, l, v)) {
      unsigned j = 0;
      while (j < nc && chain[j] != v) j++;
      if (j < nc) continue;
      if (nc == CAP) return 0;
      chain[nc++] = v;
      LLVMOpcode op = LLVMGetInstructionOpcode(v);
      if (op == LLVMPHI) {
        for (unsigned k = 0; k < LLVMCountIncoming(v); k++) {
          if (top == CAP) return 0;
          stack[top++] = LLVMGetIncomingValue(v, k);
        }
        continue;
      }
      if (op == LLVMSelect) {                      /* its arms; the condition decides whether to set */
        if (top + 2 > CAP) return 0;
        stack[top++] = LLVMGetOperand(v, 1);
        stack[top++] = LLVMGetOperand(v, 2);
        continue;
      }
      /* c | x sets true where c holds, c & x false: the operand that is the flag goes on */
      int on = 0;
      for (unsigned o = 0; o < 2; o++) {
        LLVMValueRef x = LLVMGetOperand(v, o);
        if (x == phi || (chooser(cfg, l, x) && LLVMGetInstructionOpcode(x) != LLVMSelect) || LLVMIsAPHINode(x)) {
          if (top == CAP) return 0;
          stack[top++] = x;
          on = 1;
        }
      }
      if (!on) return 0;
      leaf = LLVMConstInt(i1, op == LLVMOr, 0);
    }
    if (leaf == v && !cgp_loop_invariant(cfg, l, v)) return 0;
    if (set && set != leaf) return 0;            /* two values: whose comes last matters */
    set = leaf;
  }
  if (!set) return 0;
  /* nothing in l reads the flag but its own choosers */
  for (unsigned k = 0; k <= nc; k++) {
    LLVMValueRef v = k < nc ? chain[k] : phi;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!LLVMIsAInstruction(user) || !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(user))] || user == phi)
        continue;
      unsigned j = 0;
      while (j < nc && chain[j] != user) j++;
      if (j == nc) return 0;
      /* a select reading it as its condition reads it */
      if (LLVMIsASelectInst(user) && LLVMGetOperand(user, 0) == v) return 0;
    }
  }
  *value = set;
  return 1;
}

static int is_dbg_call(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t len = 0;
  return callee && LLVMIsAFunction(callee) && strncmp(LLVMGetValueName2(callee, &len), "llvm.dbg.", 9) == 0;
}

/* Inside loop l, the first llvm.dbg.value call: with want != NULL, the variable (its metadata
   operand) of one that describes value want; else, where one gives variable var a value computed
   in l other than a phi (an assignment), the instruction with the assignment's line. NULL if none. */
static LLVMValueRef dbg_value_variable(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef want, LLVMValueRef var) {
  size_t len;
  for (size_t b = 0; b < cfg->n; b++) {
    if (!l->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetNumOperands(i) < 3) continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || strcmp(LLVMGetValueName2(callee, &len), "llvm.dbg.value") != 0) continue;
      if (want) {
        if (LLVMGetOperand(i, 0) == want) return LLVMGetOperand(i, 1);
        continue;
      }
      if (LLVMGetOperand(i, 1) != var) continue;
      LLVMValueRef md = LLVMGetOperand(i, 0);
      if (LLVMGetMDNodeNumOperands(md) < 1) continue;               /* !{}: no value */
      LLVMValueRef v = LLVMGetOperand(md, 0);                       /* the value the metadata wraps */
      if (!v || !LLVMIsAInstruction(v) || LLVMIsAPHINode(v) || !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(v))])
        continue;
      /* the call's own line is the declaration's: the assignment is the value computed there, or
         (a value computed earlier, CSE'd: `if (e > m) m = e;`) the code next to the call */
      if (LLVMGetInstructionParent(v) == cfg->bb[b] && LLVMGetDebugLocLine(v)) return v;
      for (LLVMValueRef o = LLVMGetPreviousInstruction(i); o; o = LLVMGetPreviousInstruction(o))
        if (LLVMGetDebugLocLine(o) && !is_dbg_call(o)) return o;
      for (LLVMValueRef o = LLVMGetNextInstruction(i); o; o = LLVMGetNextInstruction(o))
        if (LLVMGetDebugLocLine(o) && !is_dbg_call(o)) return o;
      return LLVMGetDebugLocLine(v) ? v : NULL;
    }
  }
  return NULL;
}

/* The instruction that updates a carried value: where the source assigns its variable a new
   value inside l (the llvm.dbg.value of an assignment, not the phis of the header or of a join), else
   the first computation (not a phi, select or cast) on the way from the value the next iteration
   receives back to the phi; NULL if neither has a line. */
LLVMValueRef cgp_carried_update(LLVMContextRef ctx, const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef phi,
                                   LLVMValueRef from) {
  LLVMValueRef var = dbg_value_variable(cfg, l, LLVMMetadataAsValue(ctx, LLVMValueAsMetadata(phi)), NULL);
  if (var) {
    LLVMValueRef at = dbg_value_variable(cfg, l, NULL, var);
    if (at) return at;
  }
  /* no variable, or no assignment of it in l: walk back from the value received */
  LLVMValueRef stack[64];
  unsigned top = 0, steps = 0;
  if (from) stack[top++] = from;
  while (top && steps++ < 256) {
    LLVMValueRef v = stack[--top];
    if (v == phi || !LLVMIsAInstruction(v) || !l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(v))]) continue;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    int pass_through = op == LLVMPHI || op == LLVMSelect || op == LLVMTrunc || op == LLVMZExt || op == LLVMSExt ||
                       op == LLVMFPExt || op == LLVMFPTrunc;
    if (!pass_through && LLVMGetDebugLocLine(v)) return v;
    unsigned first = op == LLVMSelect ? 1 : 0;       /* a select's arms, not its condition */
    if (op == LLVMPHI) {
      for (unsigned k = LLVMCountIncoming(v); k-- > 0 && top < 64;) stack[top++] = LLVMGetIncomingValue(v, k);
    } else {
      for (int o = LLVMGetNumOperands(v); o-- > (int)first && top < 64;) stack[top++] = LLVMGetOperand(v, (unsigned)o);
    }
  }
  return NULL;
}

size_t cgp_loop_instructions(const cgp_cfg *cfg, const cgp_loop *l) {
  size_t insts = 0;
  for (size_t b = 0; b < cfg->n; b++)
    if (l->in[b])
      for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) insts++;
  return insts;
}

