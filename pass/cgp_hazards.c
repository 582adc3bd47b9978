/* cgp_hazards.c: where the mapped loops are not a CUDA grid: scalars carried from one iteration
   to the next (a reduction or a recurrence, cgp_carried.h) and early exits the index does not
   decide. Each is a descriptor entry and a warning. Uses cgp_names.c and cgp_messages.c. */
#include "cgp_phase2.h"
#include "cgp_carried.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {file, line, column} of instruction i's debug location, or of loop l's start where i is NULL
   or has none; *line gets the line. */
static cJSON *location_json(LLVMValueRef i, const cgp_loop *l, unsigned *line) {
  unsigned col = l->col, flen = (unsigned)strlen(l->file);
  const char *file = l->file;
  *line = l->line;
  if (i && LLVMGetDebugLocLine(i)) {
    *line = LLVMGetDebugLocLine(i);
    col = LLVMGetDebugLocColumn(i);
    const char *f = LLVMGetDebugLocFilename(i, &flen);
    if (f) file = f;
    else flen = (unsigned)strlen(file);
  }
  cJSON *o = cJSON_CreateObject();
  char fbuf[512];
  snprintf(fbuf, sizeof fbuf, "%.*s", (int)flen, file);
  cJSON_AddStringToObject(o, "file", fbuf);
  cJSON_AddNumberToObject(o, "line", *line);
  cJSON_AddNumberToObject(o, "column", col);
  return o;
}

/* Scalars carried from one iteration of a mapped loop to the next are an inter-thread
   dependence: a warning and a "carried" entry each, at the line of the update, telling a reduction
   (x = x op e, op associative: CUDA combines the threads' values) from a recurrence (each thread
   needs the previous thread's value). A value with no variable of the source is named by the
   memory it was loaded from (a global the compiler keeps in a register), else called a value the
   compiler made; one stepped by a loop-invariant amount is an induction variable (affine_phi),
   which each thread computes from its index, and carries nothing. A flag every thread that sets
   it sets to the same value, read by no thread (bfs's `stop = true`), is a benign race: an entry
   of form "flag" with its value, and no warning; in CUDA each such thread stores it to one
   global, in any order. */
void cgp_collect_carried(pass_ctx *pc, nest *n) {
  const cgp_cfg *cfg = n->cfg;
  for (unsigned d = 0; d < n->dims; d++) {
    const cgp_loop *l = n->mapped[n->dims - 1 - d];
    size_t insts = cgp_loop_instructions(cfg, l);        /* once per loop, not per phi */
    for (LLVMValueRef phi = LLVMGetFirstInstruction(cfg->bb[l->header]); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
      if (phi == n->iv[d] || cgp_carried_affine(cfg, l, phi) || !cgp_carried_recurrence(cfg, l, insts, phi, n->iv, n->dims)) continue;
      LLVMTypeKind tk = LLVMGetTypeKind(LLVMTypeOf(phi));
      const char *type = tk == LLVMIntegerTypeKind ? "int" : tk == LLVMPointerTypeKind ? "pointer"
                       : (tk == LLVMFloatTypeKind || tk == LLVMDoubleTypeKind || tk == LLVMHalfTypeKind) ? "float"
                       : "other";
      char var[64], ctype[64];
      const char *origin = "variable";
      cgp_dbg_variable(pc, phi, var, sizeof var, ctype, sizeof ctype);
      LLVMValueRef from = NULL, entry = NULL;        /* the values from an iteration and from before l */
      for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
        if (l->in[cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k))]) { if (!from) from = LLVMGetIncomingValue(phi, k); }
        else if (!entry) entry = LLVMGetIncomingValue(phi, k);
      }
      if (!var[0]) {
        origin = "temporary";
        if (entry && LLVMIsALoadInst(entry)) {       /* promoted out of memory (LICM): g += a[i] */
          cgp_source_name(pc, LLVMGetOperand(entry, 0), var, sizeof var);
          if (var[0]) origin = "memory";
        }
      }
      if (!ctype[0]) cgp_ir_type_name(LLVMTypeOf(phi), ctype, sizeof ctype);
      const char *op = NULL;
      LLVMValueRef update = NULL, set = NULL;
      int flag = cgp_carried_flag(cfg, l, phi, &set);
      int reduction = !flag && cgp_carried_reduction(cfg, l, phi, &op, &update);
      /* the location of the update (s += a[i]: the +=; i1++ of merge), not of the header's phi
         or of the join of branches */
      LLVMValueRef at = cgp_carried_update(pc->ctx, cfg, l, phi, from);
      if (!at && reduction) at = update;
      if (!at && from && LLVMIsAInstruction(from)) at = from;
      unsigned line;
      cJSON *c = location_json(at, l, &line);
      cJSON_AddStringToObject(c, "type", type);
      cJSON_AddStringToObject(c, "variable", var);
      cJSON_AddStringToObject(c, "source_type", ctype);
      cJSON_AddStringToObject(c, "origin", origin);
      cJSON_AddStringToObject(c, "form", flag ? "flag" : reduction ? "reduction" : "recurrence");
      if (reduction) cJSON_AddStringToObject(c, "op", op);
      cJSON_AddItemToArray(n->carried, c);
      if (flag) {                                    /* a benign race: no warning (the report names it) */
        char value[64];
        cgp_constant_text(set, ctype, value, sizeof value);
        cJSON_AddStringToObject(c, "value", value);
        continue;
      }
      char what[256];
      if (!strcmp(origin, "variable")) snprintf(what, sizeof what, "'%s' (%s)", var, ctype);
      else if (!strcmp(origin, "memory"))
        snprintf(what, sizeof what, "'%s' (%s in memory, kept in a register by the compiler)", var, ctype);
      else snprintf(what, sizeof what, "a value the compiler made (%s, no variable of the source)", ctype);
      if (reduction)
        cgp_nest_warn(pc, n, at, line, "%s is carried from one iteration of the mapped loop at line %u to the next "
                  "(line %u): threads would depend on each other: a reduction (%s), which CUDA computes with "
                  "atomic operations or a tree reduction", what, l->line, line, op);
      else if (!strcmp(origin, "variable") && cgp_pragma_omp_private(n->k, var, strlen(var)))
        /* private by an OpenMP clause, yet some path reads what an earlier iteration left (Rodinia's
           hotspot: `delta`, set by corner and edge cases only, read for every cell of a border
           chunk): each OpenMP thread's copy, as a CUDA thread's local, starts undefined there */
        cgp_nest_warn(pc, n, at, line, "%s is carried from one iteration of the mapped loop at line %u to the next "
                  "(line %u): OpenMP's private clause makes it each thread's own, but a path of the body reads "
                  "it before writing it, so in the OpenMP build, as in a CUDA port, that read finds an undefined "
                  "value at a thread's first iteration; as written, each thread needs the previous thread's value: "
                  "not parallel (write it on every path before the read)", what, l->line, line);
      else
        cgp_nest_warn(pc, n, at, line, "%s is carried from one iteration of the mapped loop at line %u to the next "
                  "(line %u): threads would depend on each other: a recurrence: each thread needs the previous "
                  "thread's value; not parallel as written", what, l->line, line);
    }
  }
}

typedef int value_test(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v, int depth);

/* Does at least one operand of v pass `test` (one level deeper), and every other come from
   outside loop l? */
static int operands_pass(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v, int depth, value_test *test) {
  int any = 0;
  for (int o = 0; o < LLVMGetNumOperands(v); o++) {
    LLVMValueRef op = LLVMGetOperand(v, (unsigned)o);
    if (test(cfg, l, op, depth + 1)) any = 1;
    else if (LLVMIsAInstruction(op) && l->in[cgp_cfg_index(cfg, LLVMGetInstructionParent(op))]) return 0;
  }
  return any;
}

/* Is v computed from the induction variables of loop l (its index, or another phi stepped by a
   constant) by arithmetic alone, with values from outside l? */
static int from_index(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v, int depth) {
  if (!LLVMIsAInstruction(v) || depth > 8) return 0;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
  if (!l->in[cgp_cfg_index(cfg, bb)]) return 0;
  if (LLVMIsAPHINode(v)) return bb == cfg->bb[l->header] && cgp_carried_affine(cfg, l, v);
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMZExt: case LLVMSExt: case LLVMTrunc:
  case LLVMGetElementPtr: case LLVMBitCast:
    break;
  default:
    return 0;
  }
  return operands_pass(cfg, l, v, depth, from_index);
}

/* Is branch condition c the loop's own test: a comparison of arithmetic on its index with
   anything (the bound, even one reloaded every iteration), or such tests joined by and, or, xor
   or select (`i < n && i < m`), with values from outside l? */
static int index_decides(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef c, int depth) {
  if (!LLVMIsAInstruction(c) || depth > 8) return 0;
  if (LLVMIsAICmpInst(c)) return from_index(cfg, l, LLVMGetOperand(c, 0), 0) || from_index(cfg, l, LLVMGetOperand(c, 1), 0);
  LLVMOpcode op = LLVMGetInstructionOpcode(c);
  if (op != LLVMAnd && op != LLVMOr && op != LLVMXor && op != LLVMSelect) return 0;
  return operands_pass(cfg, l, c, depth, index_decides);
}

/* Does every path from block e end in unreachable (exit(), abort(), a failed assert): no return
   and no way back into loop l? */
static int ends_the_program(const cgp_cfg *cfg, const cgp_loop *l, size_t e) {
  unsigned char *seen = calloc(cfg->n, 1);
  size_t *stack = malloc(cfg->n * sizeof *stack), top = 0;
  int ends = seen && stack;
  if (ends) { stack[top++] = e; seen[e] = 1; }
  while (ends && top) {
    size_t b = stack[--top];
    LLVMOpcode op = LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(cfg->bb[b]));
    if (l->in[b] || op == LLVMRet || op == LLVMResume || op == LLVMIndirectBr) ends = 0;
    for (size_t s = 0; ends && s < cfg->nsucc[b]; s++)
      if (!seen[cfg->succ[b][s]]) { seen[cfg->succ[b][s]] = 1; stack[top++] = cfg->succ[b][s]; }
  }
  free(seen);
  free(stack);
  return ends;
}

/* Exits from a mapped loop that its index does not decide (a break on a value read, a return, a
   goto out: a search): the iterations after it do not run, while a CUDA grid runs every thread.
   An exit is the loop's own when index_decides its branch; an exit whose every path ends the
   program (exit(), abort(), a failed assert) is an error check and does not count. Each other exiting block is a
   warning and an "exits" entry, at its branch. */
void cgp_collect_exits(pass_ctx *pc, nest *n) {
  const cgp_cfg *cfg = n->cfg;
  signed char *ends = malloc(cfg->n + 1);          /* per exit block: ends_the_program, -1 unknown */
  if (!ends) { pc->failed = 1; cgp_msg_add(&pc->err, "cgpredict: out of memory"); return; }
  for (unsigned d = 0; d < n->dims; d++) {
    const cgp_loop *l = n->mapped[d];
    memset(ends, -1, cfg->n + 1);
    for (size_t b = 0; b < cfg->n; b++) {
      if (!l->in[b]) continue;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(cfg->bb[b]);
      int early = 0;
      for (size_t s = 0; s < cfg->nsucc[b] && !early; s++) {
        size_t e = cfg->succ[b][s];
        if (l->in[e]) continue;
        if (ends[e] < 0) ends[e] = (signed char)ends_the_program(cfg, l, e);
        early = !ends[e];
      }
      if (!early) continue;
      if (LLVMGetInstructionOpcode(term) == LLVMBr && LLVMIsConditional(term) &&
          index_decides(cfg, l, LLVMGetCondition(term), 0))
        continue;
      unsigned line;
      cJSON *x = location_json(term, l, &line);
      cJSON_AddNumberToObject(x, "loop_line", l->line);
      cJSON_AddItemToArray(n->exits, x);
      cgp_nest_warn(pc, n, term, line, "the mapped loop at line %u is left early at line %u (a break, return or "
                "goto): the iterations after it do not run, while a CUDA grid runs every thread; the "
                "prediction covers the iterations the program ran", l->line, line);
    }
  }
  free(ends);
}
