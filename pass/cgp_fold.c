/* cgp_fold.c: folded loops (cgp_fold.h). The loop keeps its instrumented block; its hooks get a
   first argument that skips them, set once at the loop's entry, so while it is folded an
   iteration costs the user's code, a counter and the stores of its sites' addresses. Exactness
   rests on the addresses: the runtime computes site s's address in iteration t as
   a0 + t (a1 - a0), which is what the block computes when the address is affine in the counter
   modulo 2^64, as the operations accepted here keep it (no extension or truncation between the
   counter and the address: those are not affine modulo 2^64 when the narrow value wraps). */
#include "cgp_fold.h"

#include "cgp_abi.h"
#include "cgp_clean.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>

enum { INVARIANT, AFFINE, OTHER };
#define FOLD_DEPTH 32              /* operations between the counter and an address, at most */
#define FOLD_OPS 16                /* operands of one of them, at most */
#define FOLD_MEMO 128              /* values recomputed before the loop, remembered for sharing */

static int is_i64(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 64;
}

/* How v moves from one iteration of the loop block h to the next, iv its counter (NULL: none):
   INVARIANT (defined outside h, or from such values by the operations below), AFFINE (by the
   same amount each iteration, modulo 2^64), OTHER. */
static int shape(LLVMValueRef v, LLVMBasicBlockRef h, LLVMValueRef iv, int depth) {
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != h) return INVARIANT;
  if (v == iv) return AFFINE;
  if (depth == 0 || LLVMIsAPHINode(v)) return OTHER;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op != LLVMGetElementPtr && op != LLVMAdd && op != LLVMSub && op != LLVMMul && op != LLVMShl && op != LLVMBitCast)
    return OTHER;
  int nops = LLVMGetNumOperands(v), varying = 0;
  if (nops > FOLD_OPS) return OTHER;
  for (int o = 0; o < nops; o++) {
    LLVMValueRef x = LLVMGetOperand(v, (unsigned)o);
    int k = shape(x, h, iv, depth - 1);
    if (k == OTHER) return OTHER;
    if (k == INVARIANT) continue;
    varying++;
    int pointer = (op == LLVMGetElementPtr && o == 0) || op == LLVMBitCast;
    if (pointer ? LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMPointerTypeKind : !is_i64(x)) return OTHER;
    if (op == LLVMShl && o == 1) return OTHER;                  /* a varying shift amount */
  }
  if (!varying) return INVARIANT;
  if (op == LLVMMul && varying > 1) return OTHER;
  if ((op == LLVMGetElementPtr || op == LLVMBitCast) && LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMPointerTypeKind)
    return OTHER;                                               /* vectors of pointers */
  return AFFINE;
}

typedef struct {
  LLVMValueRef from[FOLD_MEMO], to[FOLD_MEMO];
  size_t n;
} memo;

/* v, whose shape() is not OTHER, as it is in the iteration where iv is ivval, computed at the
   builder's position (before the loop) from values available there: a copy of each operation of
   h it needs, without inbounds or no-wrap flags (the second iteration's address may lie past the
   array when there is none). */
static LLVMValueRef at_iteration(LLVMBuilderRef b, LLVMValueRef v, LLVMBasicBlockRef h, LLVMValueRef iv,
                                 LLVMValueRef ivval, memo *mm) {
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != h) return v;
  if (v == iv) return ivval;
  for (size_t i = 0; i < mm->n; i++)
    if (mm->from[i] == v) return mm->to[i];
  LLVMValueRef ops[FOLD_OPS];
  int nops = LLVMGetNumOperands(v);             /* at most FOLD_OPS: shape() said so */
  for (int o = 0; o < nops; o++) ops[o] = at_iteration(b, LLVMGetOperand(v, (unsigned)o), h, iv, ivval, mm);
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  LLVMValueRef c = op == LLVMGetElementPtr ? LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(v), ops[0], ops + 1, (unsigned)nops - 1, "")
                   : op == LLVMBitCast     ? LLVMBuildBitCast(b, ops[0], LLVMTypeOf(v), "")
                                           : LLVMBuildBinOp(b, op, ops[0], ops[1], "");
  if (mm->n < FOLD_MEMO) {
    mm->from[mm->n] = v;
    mm->to[mm->n++] = c;
  }
  return c;
}

/* The loop's one way in: the block other than h whose branch leads to h; NULL if several,
   or if h is reached otherwise than by a branch. */
static LLVMBasicBlockRef preheader(LLVMBasicBlockRef h) {
  LLVMBasicBlockRef p = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(h)); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInstruction(user) || LLVMGetInstructionOpcode(user) != LLVMBr) return NULL;
    LLVMBasicBlockRef from = LLVMGetInstructionParent(user);
    if (from == h) continue;
    if (p && p != from) return NULL;
    p = from;
  }
  return p;
}

/* The loop's counter: a 64-bit phi of h that starts at *start (from p) and is stepped by a
   constant (*op: add or sub, *step) each iteration; NULL if none. */
static LLVMValueRef counter(LLVMBasicBlockRef h, LLVMBasicBlockRef p, LLVMValueRef *start, LLVMOpcode *op,
                            LLVMValueRef *step) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(h); phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
    if (!is_i64(phi) || LLVMCountIncoming(phi) != 2) continue;
    LLVMValueRef next = cgp_incoming_for(phi, h);
    *start = cgp_incoming_for(phi, p);
    if (!next || !*start || !LLVMIsAInstruction(next)) continue;
    *op = LLVMGetInstructionOpcode(next);
    if ((*op == LLVMAdd || *op == LLVMSub) && LLVMGetOperand(next, 0) == phi &&
        LLVMIsAConstantInt(*step = LLVMGetOperand(next, 1)))
      return phi;
  }
  return NULL;
}

/* Only intrinsics and the hooks are called in h: nothing else the runtime would have to see
   between two iterations, and no way out of the loop but its branch. */
static int calls_only_hooks(LLVMBasicBlockRef h, const cgp_fold_hooks *k) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(h); i; i = LLVMGetNextInstruction(i)) {
    if (LLVMGetInstructionOpcode(i) != LLVMCall) continue;
    LLVMValueRef f = LLVMGetCalledValue(i);
    size_t len = 0;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
    if (f != k->bb_shell && f != k->flush_shell && strncmp(name, "llvm.", 5) != 0) return 0;
  }
  return 1;
}

static LLVMValueRef i32_global(LLVMModuleRef m, const char *name) {
  LLVMValueRef g = LLVMGetNamedGlobal(m, name);
  return g ? g : LLVMAddGlobal(m, LLVMInt32TypeInContext(LLVMGetModuleContext(m)), name);
}

/* An always-inlined function "name"(i1 skip, args of ty) that calls f(args) unless skip. */
static LLVMValueRef unless_shell(LLVMModuleRef m, const char *name, LLVMValueRef f, LLVMTypeRef ty, LLVMTypeRef *wty) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned n = LLVMCountParamTypes(ty);
  LLVMTypeRef params[8];
  if (n + 1 > sizeof params / sizeof *params) return NULL;
  params[0] = LLVMInt1TypeInContext(ctx);
  LLVMGetParamTypes(ty, params + 1);
  *wty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, n + 1, 0);
  LLVMValueRef w = LLVMGetNamedFunction(m, name);
  if (w) return w;
  w = LLVMAddFunction(m, name, *wty);
  LLVMSetLinkage(w, LLVMInternalLinkage);
  unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(w, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, w, "entry");
  LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(ctx, w, "call");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx, w, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildCondBr(b, LLVMGetParam(w, 0), done, call);
  LLVMPositionBuilderAtEnd(b, call);
  LLVMValueRef args[8];
  for (unsigned i = 0; i < n; i++) args[i] = LLVMGetParam(w, i + 1);
  LLVMBuildCall2(b, ty, f, args, n, "");
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return w;
}

/* Every call of h to f becomes a call to its unless-shell with `skip` first. */
static void skip_calls(LLVMModuleRef m, LLVMBuilderRef b, LLVMBasicBlockRef h, LLVMValueRef f, LLVMTypeRef ty,
                       const char *name, LLVMValueRef skip) {
  LLVMTypeRef wty;
  LLVMValueRef w = unless_shell(m, name, f, ty, &wty);
  for (LLVMValueRef i = LLVMGetFirstInstruction(h), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetCalledValue(i) != f) continue;
    unsigned n = LLVMGetNumArgOperands(i);
    LLVMValueRef args[8];
    args[0] = skip;
    for (unsigned a = 0; a < n && a < 7; a++) args[a + 1] = LLVMGetOperand(i, a);
    LLVMPositionBuilderBefore(b, i);
    LLVMValueRef c = LLVMBuildCall2(b, wty, w, args, n + 1, "");
    LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(i));
    LLVMInstructionEraseFromParent(i);
  }
}

/* A new internal [count x i8*] buffer holding vals[], stored at the builder's position. */
static LLVMValueRef store_buffer(LLVMModuleRef m, LLVMBuilderRef b, const char *name, LLVMValueRef *vals, unsigned count) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(ctx), 0), i64 = LLVMInt64TypeInContext(ctx);
  if (!count) return LLVMConstNull(LLVMPointerType(i8p, 0));
  LLVMTypeRef aty = LLVMArrayType(i8p, count);
  LLVMValueRef g = LLVMAddGlobal(m, aty, name);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetInitializer(g, LLVMConstNull(aty));
  for (unsigned s = 0; s < count; s++) {
    LLVMValueRef idx[2] = {LLVMConstInt(i64, 0, 0), LLVMConstInt(i64, s, 0)};
    LLVMBuildStore(b, LLVMBuildPointerCast(b, vals[s], i8p, ""), LLVMConstInBoundsGEP2(aty, g, idx, 2));
  }
  LLVMValueRef zero[2] = {LLVMConstInt(i64, 0, 0), LLVMConstInt(i64, 0, 0)};
  return LLVMConstInBoundsGEP2(aty, g, zero, 2);
}

long cgp_buffer_slot(LLVMValueRef st, LLVMValueRef at) {
  if (LLVMGetInstructionOpcode(st) != LLVMStore || !LLVMIsAConstantExpr(at) ||
      LLVMGetConstOpcode(at) != LLVMGetElementPtr)
    return -1;
  LLVMValueRef p = LLVMGetOperand(st, 1);
  if (!LLVMIsAConstantExpr(p) || LLVMGetConstOpcode(p) != LLVMGetElementPtr || LLVMGetNumOperands(p) != 3 ||
      LLVMGetOperand(p, 0) != LLVMGetOperand(at, 0) || !LLVMIsAConstantInt(LLVMGetOperand(p, 2)))
    return -1;
  return (long)LLVMConstIntGetZExtValue(LLVMGetOperand(p, 2));
}

/* The value stored in h into slot `slot` of the buffer whose slot 0 `at` points to, NULL if none. */
static LLVMValueRef stored_in_slot(LLVMBasicBlockRef h, LLVMValueRef at, unsigned slot) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(h); i; i = LLVMGetNextInstruction(i))
    if (cgp_buffer_slot(i, at) == (long)slot) return LLVMGetOperand(i, 0);
  return NULL;
}

/* The first call of h to f, NULL if none. */
static LLVMValueRef call_to(LLVMBasicBlockRef h, LLVMValueRef f) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(h); i; i = LLVMGetNextInstruction(i))
    if (LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == f) return i;
  return NULL;
}

/* What h's hooks report, read from their calls: its bid (cgp.bb's first argument), its sites
   first .. first + *count - 1 and each one's address and base as cgp.mem.flush reads them (what
   the block stores into the buffers the flush names: values the pass's later rewriting keeps up
   to date, being used there). 0 if h has no block hook, more than max sites, or a site's
   stores are missing. */
static int block_hooks(LLVMBasicBlockRef h, const cgp_fold_hooks *k, unsigned max, unsigned *bid, unsigned *first,
                       unsigned *count, LLVMValueRef *ptr, LLVMValueRef *base) {
  LLVMValueRef bb = call_to(h, k->bb_shell), flush = call_to(h, k->flush_shell);
  if (!bb || !LLVMIsAConstantInt(LLVMGetOperand(bb, 0))) return 0;
  *bid = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(bb, 0));
  *first = *count = 0;
  if (!flush) return 1;                         /* a block without sites */
  if (!LLVMIsAConstantInt(LLVMGetOperand(flush, 0)) || !LLVMIsAConstantInt(LLVMGetOperand(flush, 1))) return 0;
  *first = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(flush, 0));
  *count = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(flush, 1));
  if (*count > max) return 0;
  for (unsigned s = 0; s < *count; s++)
    if (!(ptr[s] = stored_in_slot(h, LLVMGetOperand(flush, 2), s)) ||
        !(base[s] = stored_in_slot(h, LLVMGetOperand(flush, 3), s)))
      return 0;
  return 1;
}

int cgp_fold_loop(LLVMModuleRef m, LLVMBuilderRef b, LLVMBasicBlockRef h, const cgp_fold_hooks *hooks) {
  enum { MAX_SITES = 64 };                      /* the runtime's RT_FOLD_SITES */
  LLVMValueRef ptr[MAX_SITES], base[MAX_SITES];
  unsigned bid, first, count;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(h);
  if (!term || LLVMGetInstructionOpcode(term) != LLVMBr || !LLVMIsConditional(term) ||
      !block_hooks(h, hooks, MAX_SITES, &bid, &first, &count, ptr, base))
    return 0;
  LLVMBasicBlockRef s0 = LLVMGetSuccessor(term, 0), s1 = LLVMGetSuccessor(term, 1);
  LLVMBasicBlockRef exit = s0 == h ? s1 : s0, p = preheader(h);
  if ((s0 != h && s1 != h) || exit == h || !p || !calls_only_hooks(h, hooks)) return 0;
  LLVMValueRef start = NULL, step = NULL;
  LLVMOpcode op = LLVMAdd;
  LLVMValueRef iv = counter(h, p, &start, &op, &step);
  for (unsigned s = 0; s < count; s++)
    if (shape(ptr[s], h, iv, FOLD_DEPTH) == OTHER || shape(base[s], h, iv, FOLD_DEPTH) != INVARIANT) return 0;

  /* before the loop: whether it is folded, and each site's first two addresses */
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(p));
  LLVMValueRef on = LLVMBuildLoad2(b, i32, i32_global(m, CGP_HOOK_TRACING), "");
  LLVMValueRef fold = LLVMBuildLoad2(b, i32, i32_global(m, CGP_HOOK_FOLD), "");
  LLVMValueRef folded = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, on, LLVMConstInt(i32, 1, 0), ""),
                                     LLVMBuildICmp(b, LLVMIntNE, fold, LLVMConstInt(i32, 0, 0), ""), "cgp.folded");
  LLVMValueRef second = iv ? LLVMBuildBinOp(b, op, start, step, "") : NULL;
  LLVMValueRef a0[MAX_SITES], a1[MAX_SITES];
  memo m0 = {.n = 0}, m1 = {.n = 0};
  for (unsigned s = 0; s < count; s++) {
    a0[s] = at_iteration(b, ptr[s], h, iv, start, &m0);
    a1[s] = at_iteration(b, ptr[s], h, iv, second, &m1);
  }

  /* in the loop: the iteration count; the hooks skipped while folded */
  LLVMPositionBuilder(b, h, LLVMGetFirstInstruction(h));
  LLVMValueRef c = LLVMBuildPhi(b, i64, "cgp.iter");
  LLVMValueRef it = LLVMGetFirstInstruction(h);
  while (it && LLVMIsAPHINode(it)) it = LLVMGetNextInstruction(it);
  LLVMPositionBuilderBefore(b, it);
  LLVMValueRef c1 = LLVMBuildAdd(b, c, LLVMConstInt(i64, 1, 0), "cgp.iters");
  LLVMValueRef in_v[2] = {LLVMConstInt(i64, 0, 0), c1};
  LLVMBasicBlockRef in_b[2] = {p, h};
  LLVMAddIncoming(c, in_v, in_b, 2);
  skip_calls(m, b, h, hooks->bb_shell, hooks->bb_ty, CGP_SHELL_BB_UNLESS, folded);
  skip_calls(m, b, h, hooks->flush_shell, hooks->flush_ty, CGP_SHELL_FLUSH_UNLESS, folded);

  /* on the exit edge: the runtime issues the iterations */
  LLVMBasicBlockRef x = LLVMAppendBasicBlockInContext(ctx, LLVMGetBasicBlockParent(h), "cgp.fold");
  LLVMMoveBasicBlockAfter(x, h);
  LLVMPositionBuilderAtEnd(b, x);
  LLVMTypeRef i8pp = LLVMPointerType(LLVMPointerType(LLVMInt8TypeInContext(ctx), 0), 0);
  LLVMTypeRef lp[7] = {i32, i64, i32, i32, i8pp, i8pp, i8pp};
  LLVMTypeRef lty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), lp, 7, 0);
  LLVMValueRef lf = LLVMGetNamedFunction(m, CGP_HOOK_LOOP);
  if (!lf) lf = LLVMAddFunction(m, CGP_HOOK_LOOP, lty);
  LLVMTypeRef wty;
  LLVMValueRef w = unless_shell(m, CGP_SHELL_LOOP_UNLESS, lf, lty, &wty);
  LLVMValueRef args[8] = {LLVMBuildXor(b, folded, LLVMConstInt(i1, 1, 0), ""), LLVMConstInt(i32, bid, 0), c1,
                          LLVMConstInt(i32, first, 0), LLVMConstInt(i32, count, 0),
                          store_buffer(m, b, "cgp.fold.a0", a0, count), store_buffer(m, b, "cgp.fold.a1", a1, count),
                          store_buffer(m, b, "cgp.fold.base", base, count)};
  LLVMBuildCall2(b, wty, w, args, 8, "");
  LLVMBuildBr(b, exit);
  for (unsigned s = 0; s < 2; s++)
    if (LLVMGetSuccessor(term, s) == exit) LLVMSetSuccessor(term, s, x);
  cgp_retarget_phis(b, exit, h, x, hooks->track, hooks->ntrack);
  return 1;
}
