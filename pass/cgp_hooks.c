/* cgp_hooks.c: the runtime's hooks (runtime/cgp_rt.h, pass/cgp_abi.h): declared once per module
   with the inlined, guarded cgp.mem.flush and cgp.bb, and the calls the pass inserts: sites'
   addresses per block, block_seen marks, kernel_begin and kernel_end on the nest's edges. Uses
   cgp_sites.c. */
#include "cgp_phase2.h"
#include "cgp_abi.h"
#include "cgp_clean.h"
#include "cgp_fold.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static LLVMValueRef declare_hook(pass_ctx *pc, const char *name, LLVMTypeRef ty) {
  LLVMValueRef f = LLVMGetNamedFunction(pc->m, name);
  return f ? f : LLVMAddFunction(pc->m, name, ty);
}

/* A new internal, always-inlined function `name` of type `ty` whose body runs only while the
   runtime traces a thread (`cgp_rt_tracing` != 0), and with `traced_iteration` only while the
   thread is in an iteration it traces (== 1; 2: an iteration the runtime skips, whose blocks
   still tell it where the thread is): returns it with the builder at the start of that body;
   *entry is the function's first block, *done the block that returns. */
static LLVMValueRef guarded_shell(pass_ctx *pc, const char *name, LLVMTypeRef ty, int traced_iteration,
                                  LLVMBasicBlockRef *entry, LLVMBasicBlockRef *done) {
  LLVMValueRef flag = LLVMGetNamedGlobal(pc->m, "cgp_rt_tracing");
  if (!flag) flag = LLVMAddGlobal(pc->m, pc->i32, "cgp_rt_tracing");
  LLVMValueRef f = LLVMAddFunction(pc->m, name, ty);
  LLVMSetLinkage(f, LLVMInternalLinkage);
  unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(pc->ctx, kind, 0));
  *entry = LLVMAppendBasicBlockInContext(pc->ctx, f, "entry");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(pc->ctx, f, "trace");
  *done = LLVMAppendBasicBlockInContext(pc->ctx, f, "done");
  LLVMPositionBuilderAtEnd(pc->b, *done);
  LLVMBuildRetVoid(pc->b);
  LLVMPositionBuilderAtEnd(pc->b, *entry);
  LLVMValueRef on = LLVMBuildLoad2(pc->b, pc->i32, flag, "on");
  LLVMValueRef go = traced_iteration ? LLVMBuildICmp(pc->b, LLVMIntEQ, on, LLVMConstInt(pc->i32, 1, 0), "")
                                     : LLVMBuildICmp(pc->b, LLVMIntNE, on, LLVMConstInt(pc->i32, 0, 0), "");
  LLVMBuildCondBr(pc->b, go, body, *done);
  LLVMPositionBuilderAtEnd(pc->b, body);
  return f;
}

/* cgp.mem.flush(i32 first, i32 count, i8** addr, i8** base), always inlined: while the runtime
   traces the thread's iteration, cgp_rt_mem_block(first, count, addr, base), which issues
   sites first .. first + count - 1 at addr[k], indexed from base[k]. A block's sites store their
   addresses into a buffer and the block calls this once: one branch per block instead of one per
   access, so the final -O2 compile sees as many blocks as the user's code has (a branch per
   access made its register allocation quadratic in the number of accesses of a block), and one
   call per block (2DCONV's nine loads and a store: one call, not ten). */
static LLVMValueRef flush_hook(pass_ctx *pc, LLVMValueRef hook) {
  LLVMValueRef f = LLVMGetNamedFunction(pc->m, CGP_SHELL_FLUSH);
  if (f) return f;
  LLVMBasicBlockRef entry, done;
  f = guarded_shell(pc, CGP_SHELL_FLUSH, pc->t_flush, 1, &entry, &done);
  LLVMValueRef args[4] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMGetParam(f, 2), LLVMGetParam(f, 3)};
  LLVMBuildCall2(pc->b, pc->t_flush, hook, args, 4, "");
  LLVMBuildBr(pc->b, done);
  return f;
}

LLVMValueRef cgp_sunk_flush_shell(pass_ctx *pc, unsigned n, LLVMTypeRef *ty) {
  char name[48];
  snprintf(name, sizeof name, CGP_SHELL_FLUSH ".v%u", n);
  LLVMTypeRef i8pp = LLVMPointerType(pc->i8p, 0);
  LLVMTypeRef *params = malloc((4 + 2 * (size_t)n) * sizeof *params);
  if (!params) return NULL;
  params[0] = LLVMInt1TypeInContext(pc->ctx);
  params[1] = pc->i32;
  params[2] = params[3] = i8pp;
  for (unsigned k = 0; k < 2 * n; k++) params[4 + k] = pc->i8p;
  *ty = LLVMFunctionType(pc->voidt, params, 4 + 2 * n, 0);
  free(params);
  LLVMValueRef f = LLVMGetNamedFunction(pc->m, name), hook = LLVMGetNamedFunction(pc->m, CGP_HOOK_MEM_BLOCK);
  if (f || !hook) return f;
  LLVMBasicBlockRef entry, done;
  f = guarded_shell(pc, name, *ty, 1, &entry, &done);
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(pc->ctx, f, "store");
  LLVMBuildCondBr(pc->b, LLVMGetParam(f, 0), done, store);
  LLVMPositionBuilderAtEnd(pc->b, store);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef idx = LLVMConstInt(pc->i64, k, 0);
    LLVMBuildStore(pc->b, LLVMGetParam(f, 4 + k), LLVMBuildInBoundsGEP2(pc->b, pc->i8p, LLVMGetParam(f, 2), &idx, 1, ""));
    LLVMBuildStore(pc->b, LLVMGetParam(f, 4 + n + k),
                   LLVMBuildInBoundsGEP2(pc->b, pc->i8p, LLVMGetParam(f, 3), &idx, 1, ""));
  }
  LLVMValueRef args[4] = {LLVMGetParam(f, 1), LLVMConstInt(pc->i32, n, 0), LLVMGetParam(f, 2), LLVMGetParam(f, 3)};
  LLVMBuildCall2(pc->b, pc->t_flush, hook, args, 4, "");
  LLVMBuildBr(pc->b, done);
  return f;
}

/* cgp.bb(i32 bid, i32 loop, i32 header), always inlined, called at the top of thread-body block
   bid with constants: `loop` its descriptor loop (-1: none), `header` 1 if it heads that loop.
   While the runtime traces the thread, cgp_rt_bb(bid); but in an iteration the runtime skips
   (cgp_rt_tracing 2) of that very loop (cgp_rt_pause[CGP_PAUSE_LOOP] == loop >= 0), what cgp_rt_bb
   would do, inline (cgp_abi.h): a block other than the header clears HEADER_LAST; the header,
   while more than one header execution is left to skip, counts it and sets HEADER_LAST; the
   header that ends the skipping calls the runtime. The sampled loops of a traced thread skip
   about 15 of every 16 iterations; each cost a call, now a few loads and stores. */
static LLVMValueRef bb_hook(pass_ctx *pc, LLVMValueRef hook) {
  LLVMValueRef f = LLVMGetNamedFunction(pc->m, CGP_SHELL_BB);
  LLVMTypeRef params[3] = {pc->i32, pc->i32, pc->i32};
  pc->t_bb_inline = LLVMFunctionType(pc->voidt, params, 3, 0);
  if (f) return f;
  LLVMTypeRef pause_t = LLVMArrayType(pc->i32, 3);
  LLVMValueRef pause = LLVMGetNamedGlobal(pc->m, CGP_HOOK_PAUSE);
  if (!pause) pause = LLVMAddGlobal(pc->m, pause_t, CGP_HOOK_PAUSE);
  LLVMBasicBlockRef entry, done;
  f = guarded_shell(pc, CGP_SHELL_BB, pc->t_bb_inline, 0, &entry, &done);
  LLVMBasicBlockRef skipping = LLVMAppendBasicBlockInContext(pc->ctx, f, "skipping");
  LLVMBasicBlockRef in_loop = LLVMAppendBasicBlockInContext(pc->ctx, f, "in_loop");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(pc->ctx, f, "body");
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(pc->ctx, f, "head");
  LLVMBasicBlockRef count = LLVMAppendBasicBlockInContext(pc->ctx, f, "count");
  LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(pc->ctx, f, "call");
  LLVMValueRef bid = LLVMGetParam(f, 0), loop = LLVMGetParam(f, 1), header = LLVMGetParam(f, 2);
  LLVMValueRef zero = LLVMConstInt(pc->i32, 0, 0), one = LLVMConstInt(pc->i32, 1, 0);
  LLVMValueRef idx[3][2];
  LLVMValueRef slot[3];
  for (unsigned i = 0; i < 3; i++) {
    idx[i][0] = zero;
    idx[i][1] = LLVMConstInt(pc->i32, i, 0);
    slot[i] = LLVMConstInBoundsGEP2(pause_t, pause, idx[i], 2);
  }
  LLVMValueRef on = LLVMBuildLoad2(pc->b, pc->i32, LLVMGetNamedGlobal(pc->m, CGP_HOOK_TRACING), "on");
  LLVMBuildCondBr(pc->b, LLVMBuildICmp(pc->b, LLVMIntEQ, on, LLVMConstInt(pc->i32, 2, 0), ""), skipping, call);
  LLVMPositionBuilderAtEnd(pc->b, skipping);
  LLVMValueRef paused = LLVMBuildLoad2(pc->b, pc->i32, slot[CGP_PAUSE_LOOP], "paused");
  /* a block outside every loop (loop -1) is no skipped loop's, whatever the word holds: -1 there is
     "no loop", which the runtime's weak stub keeps for ever (runtime/cgp_rt_stub.c) */
  LLVMValueRef same = LLVMBuildAnd(pc->b, LLVMBuildICmp(pc->b, LLVMIntEQ, paused, loop, ""),
                                   LLVMBuildICmp(pc->b, LLVMIntSGE, loop, zero, ""), "");
  LLVMBuildCondBr(pc->b, same, in_loop, call);
  LLVMPositionBuilderAtEnd(pc->b, in_loop);
  LLVMBuildCondBr(pc->b, LLVMBuildICmp(pc->b, LLVMIntNE, header, zero, ""), head, body);
  LLVMPositionBuilderAtEnd(pc->b, body);
  LLVMBuildStore(pc->b, zero, slot[CGP_PAUSE_HEADER_LAST]);
  LLVMBuildBr(pc->b, done);
  LLVMPositionBuilderAtEnd(pc->b, head);
  LLVMValueRef left = LLVMBuildLoad2(pc->b, pc->i32, slot[CGP_PAUSE_LEFT], "left");
  LLVMBuildCondBr(pc->b, LLVMBuildICmp(pc->b, LLVMIntSGT, left, one, ""), count, call);
  LLVMPositionBuilderAtEnd(pc->b, count);
  LLVMBuildStore(pc->b, LLVMBuildSub(pc->b, left, one, ""), slot[CGP_PAUSE_LEFT]);
  LLVMBuildStore(pc->b, one, slot[CGP_PAUSE_HEADER_LAST]);
  LLVMBuildBr(pc->b, done);
  LLVMPositionBuilderAtEnd(pc->b, call);
  LLVMBuildCall2(pc->b, pc->t_bb, hook, &bid, 1, "");
  LLVMBuildBr(pc->b, done);
  return f;
}

void cgp_declare_hooks(pass_ctx *pc) {
  LLVMTypeRef p_thread[3] = {pc->i64, pc->i64, pc->i64};
  LLVMTypeRef p_mem[3] = {pc->i32, pc->i8p, pc->i8p};
  pc->t_begin = LLVMFunctionType(pc->voidt, &pc->i8p, 1, 0);
  LLVMTypeRef p_begin_step[4] = {pc->i8p, pc->i64, pc->i64, pc->i64};
  pc->t_begin_step = LLVMFunctionType(pc->voidt, p_begin_step, 4, 0);
  pc->t_thread = LLVMFunctionType(pc->i32, p_thread, 3, 0);
  pc->t_mem = LLVMFunctionType(pc->voidt, p_mem, 3, 0);
  LLVMTypeRef i8pp = LLVMPointerType(pc->i8p, 0);
  LLVMTypeRef p_flush[4] = {pc->i32, pc->i32, i8pp, i8pp};
  pc->t_flush = LLVMFunctionType(pc->voidt, p_flush, 4, 0);   /* cgp.mem.flush's and the hook's */
  pc->t_bb = LLVMFunctionType(pc->voidt, &pc->i32, 1, 0);
  pc->t_end = LLVMFunctionType(pc->voidt, NULL, 0, 0);
  pc->t_fast_end = LLVMFunctionType(pc->voidt, &pc->i64, 1, 0);
  pc->f_begin = declare_hook(pc, CGP_HOOK_KERNEL_BEGIN, pc->t_begin);
  pc->f_begin_step = declare_hook(pc, CGP_HOOK_KERNEL_BEGIN_STEP, pc->t_begin_step);
  pc->t_class = LLVMFunctionType(pc->voidt, &pc->i64, 1, 0);
  pc->f_class = declare_hook(pc, CGP_HOOK_KERNEL_CLASS, pc->t_class);
  pc->f_thread = declare_hook(pc, "cgp_rt_thread", pc->t_thread);
  pc->f_flush = flush_hook(pc, declare_hook(pc, CGP_HOOK_MEM_BLOCK, pc->t_flush));
  pc->f_bb = bb_hook(pc, declare_hook(pc, "cgp_rt_bb", pc->t_bb));
  pc->f_end = declare_hook(pc, "cgp_rt_kernel_end", pc->t_end);
  pc->f_hoisted = declare_hook(pc, "cgp_rt_hoisted", pc->t_mem);
  pc->f_fast_end = declare_hook(pc, "cgp_rt_fast_end", pc->t_fast_end);
}

static LLVMValueRef cast_i8p(pass_ctx *pc, LLVMValueRef p) {
  return LLVMBuildPointerCast(pc->b, p, pc->i8p, "");
}

static LLVMValueRef site_buffer(pass_ctx *pc, LLVMTypeRef ty, const char *name) {
  LLVMValueRef g = LLVMAddGlobal(pc->m, ty, name);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetInitializer(g, LLVMConstNull(ty));
  return g;
}

/* Thread sites: before each, its address and base go to slot `order` of the nest's buffers;
   before the last site of a block, cgp.mem.flush reports the block's sites. Hoisted sites call
   cgp_rt_hoisted directly. A marker is replaced by its hook. */
void cgp_insert_mem_hooks(pass_ctx *pc, nest *n) {
  unsigned most = 1;
  for (size_t s = 0; s < n->nthread_mem; s++)
    if (n->mem[s].order + 1 > most) most = n->mem[s].order + 1;
  LLVMTypeRef aty = LLVMArrayType(pc->i8p, most);
  LLVMValueRef addrs = site_buffer(pc, aty, "cgp.addrs"), bases = site_buffer(pc, aty, "cgp.bases");
  LLVMValueRef zero[2] = {LLVMConstInt(pc->i64, 0, 0), LLVMConstInt(pc->i64, 0, 0)};
  size_t first = 0;
  for (size_t s = 0; s < n->nmem; s++) {
    LLVMValueRef i = n->mem[s].inst, ptr, base;
    cgp_site_pointers(pc, i, &ptr, &base);
    LLVMPositionBuilderBefore(pc->b, i);
    if (s < n->nthread_mem) {
      LLVMValueRef slot[2] = {zero[0], LLVMConstInt(pc->i64, n->mem[s].order, 0)};
      LLVMBuildStore(pc->b, cast_i8p(pc, ptr), LLVMConstInBoundsGEP2(aty, addrs, slot, 2));
      LLVMBuildStore(pc->b, cast_i8p(pc, base), LLVMConstInBoundsGEP2(aty, bases, slot, 2));
      if (n->mem[s].order == 0) first = s;
      if (s + 1 == n->nthread_mem || n->mem[s + 1].block != n->mem[s].block) {
        LLVMValueRef args[4] = {LLVMConstInt(pc->i32, first, 0), LLVMConstInt(pc->i32, s + 1 - first, 0),
                                LLVMConstInBoundsGEP2(aty, addrs, zero, 2), LLVMConstInBoundsGEP2(aty, bases, zero, 2)};
        LLVMBuildCall2(pc->b, pc->t_flush, pc->f_flush, args, 4, "");
      }
    } else {
      LLVMValueRef args[3] = {LLVMConstInt(pc->i32, s, 0), cast_i8p(pc, ptr), cast_i8p(pc, base)};
      LLVMBuildCall2(pc->b, pc->t_mem, pc->f_hoisted, args, 3, "");
    }
    if (cgp_is_marker(pc, i)) LLVMInstructionEraseFromParent(i);
  }
}

/* The traced thread ran block bid (cgp_marks_blocks): cgp_rt_block_seen[bid / 64] |= 1 << bid % 64. */
void cgp_mark_block(pass_ctx *pc, size_t bid) {
  LLVMTypeRef t = LLVMArrayType(pc->i64, CGP_FLAT_EVENTS / 64);
  LLVMValueRef seen = LLVMGetNamedGlobal(pc->m, CGP_HOOK_BLOCK_SEEN);
  if (!seen) seen = LLVMAddGlobal(pc->m, t, CGP_HOOK_BLOCK_SEEN);
  LLVMValueRef idx[2] = {LLVMConstInt(pc->i32, 0, 0), LLVMConstInt(pc->i32, bid / 64, 0)};
  LLVMValueRef word = LLVMConstInBoundsGEP2(t, seen, idx, 2);
  LLVMValueRef old = LLVMBuildLoad2(pc->b, pc->i64, word, "seen");
  LLVMBuildStore(pc->b, LLVMBuildOr(pc->b, old, LLVMConstInt(pc->i64, UINT64_C(1) << bid % 64, 0), ""), word);
}

/* The values the nest hands out on the edge from -> e -> to (a reduction's `sum`, read after
   the loop) pass through phis of e, so that a phi outside the nest takes nothing straight from
   it: the thread body then stays closed (every use outside it a phi on an edge from it), and
   the clean copy (cgp_clean.c), whose exits reach e too, can be made. Without them, a kernel
   that hands out a value ran its untraced threads through the instrumented body (XSBench's
   `verification`: 3.5 times the plain run). */
static void pass_through_edge_phis(pass_ctx *pc, LLVMBasicBlockRef e, LLVMBasicBlockRef from, LLVMBasicBlockRef to) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
  unsigned edges = 0;                            /* a switch may branch to e on several cases */
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) edges += LLVMGetSuccessor(term, s) == e;
  for (LLVMValueRef phi = LLVMGetFirstInstruction(to); phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi))
    for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
      LLVMValueRef v = LLVMGetIncomingValue(phi, k);
      if (LLVMGetIncomingBlock(phi, k) != e || !LLVMIsAInstruction(v)) continue;
      LLVMPositionBuilderBefore(pc->b, LLVMGetFirstInstruction(e));
      LLVMValueRef through = LLVMBuildPhi(pc->b, LLVMTypeOf(v), "cgp.out");
      for (unsigned c = 0; c < edges; c++) LLVMAddIncoming(through, &v, &from, 1);
      LLVMSetOperand(phi, k, through);
    }
}

/* Where mapped loops' bounds are values the nest is entered with (cgp_mapped_bound), a call
   cgp_rt_kernel_class(key) at the builder, the key mixing them (FNV-1a's step over each as i64):
   NPB MG's resid, entered at five grid sizes in turn, gets five keys. */
static void class_key(pass_ctx *pc, nest *n) {
  LLVMValueRef key = NULL;
  for (unsigned d = 0; d < n->dims; d++) {
    LLVMValueRef v = cgp_mapped_bound(n->cfg, n->mapped[d], n->mapped[0]);
    if (!v) continue;
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
    if (w < 64) v = LLVMBuildZExt(pc->b, v, pc->i64, "cgp.bound");
    else if (w > 64) v = LLVMBuildTrunc(pc->b, v, pc->i64, "cgp.bound");
    key = LLVMBuildMul(pc->b, LLVMBuildXor(pc->b, key ? key : LLVMConstInt(pc->i64, UINT64_C(0xcbf29ce484222325), 0),
                                           v, ""), LLVMConstInt(pc->i64, UINT64_C(0x100000001b3), 0), "cgp.key");
  }
  if (key) LLVMBuildCall2(pc->b, pc->t_class, pc->f_class, &key, 1, "");
}

/* A new block on the edge from -> to, holding a call to `hook`; phis of `to` are retargeted.
   With steps (the nest's run-time steps, kernel_begin_step): the call's arguments after arg[0] are
   the three steps, computed in that block. */
static void hook_on_edge(pass_ctx *pc, nest *n, LLVMBasicBlockRef from, LLVMBasicBlockRef to,
                         LLVMTypeRef ty, LLVMValueRef hook, LLVMValueRef *arg, unsigned nargs) {
  LLVMBasicBlockRef e = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(from), "cgp.edge");
  LLVMMoveBasicBlockAfter(e, from);
  LLVMPositionBuilderAtEnd(pc->b, e);
  LLVMValueRef args[4];
  if (hook == pc->f_begin_step) {               /* the steps of x, y, z, as i64 */
    args[0] = arg[0];
    for (unsigned d = 0; d < CGP_MAX_DIMS; d++) {
      if (d >= n->dims || n->step[d]) {
        args[1 + d] = LLVMConstInt(pc->i64, d < n->dims ? (unsigned long long)n->step[d] : 1, 1);
        continue;
      }
      LLVMValueRef v = n->run_step[d].value;
      if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) < 64) v = LLVMBuildSExt(pc->b, v, pc->i64, "cgp.step");
      else if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64) v = LLVMBuildTrunc(pc->b, v, pc->i64, "cgp.step");
      if (n->run_step[d].negate) v = LLVMBuildSub(pc->b, LLVMConstInt(pc->i64, 0, 0), v, "cgp.step");
      args[1 + d] = v;
    }
    arg = args;
    nargs = 4;
  }
  if (hook == pc->f_begin || hook == pc->f_begin_step) class_key(pc, n);
  LLVMBuildCall2(pc->b, ty, hook, arg, nargs, "");
  LLVMBuildBr(pc->b, to);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++)
    if (LLVMGetSuccessor(term, s) == to) LLVMSetSuccessor(term, s, e);
  cgp_retarget_phis(pc->b, to, from, e, n->iv, CGP_MAX_DIMS);
  if (hook == pc->f_end) pass_through_edge_phis(pc, e, from, to);
}

/* kernel_begin on every edge into the nest, kernel_end on every edge out of it: on edges, not
   in the blocks, because the block before a loop may itself run many times (the latch of the
   loop before it, when clang gave the nest no preheader of its own). */
void cgp_insert_kernel_hooks(pass_ctx *pc, nest *n, const char *desc) {
  const cgp_cfg *cfg = n->cfg;
  const cgp_loop *l0 = n->mapped[0];
  LLVMPositionBuilderBefore(pc->b, cgp_first_non_phi(cfg->bb[0]));
  LLVMValueRef str = LLVMBuildGlobalStringPtr(pc->b, desc, "cgp.kernel");
  int run_time = 0;                               /* a step known at run time: kernel_begin_step */
  for (unsigned d = 0; d < n->dims; d++) run_time |= !n->step[d];
  for (size_t p = 0; p < cfg->npred[l0->header]; p++) {
    size_t pb = cfg->pred[l0->header][p];
    if (!l0->in[pb])
      hook_on_edge(pc, n, cfg->bb[pb], cfg->bb[l0->header], run_time ? pc->t_begin_step : pc->t_begin,
                   run_time ? pc->f_begin_step : pc->f_begin, &str, 1);
  }
  for (size_t b = 0; b < cfg->n; b++) {
    if (!l0->in[b]) continue;
    for (size_t s = 0; s < cfg->nsucc[b]; s++) {
      size_t e = cfg->succ[b][s];
      if (l0->in[e] || (s > 0 && cfg->succ[b][s - 1] == e)) continue;
      /* a path that ends in exit() or abort() never leaves the nest: the runtime sees the
         program end inside the kernel */
      if (LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(cfg->bb[e])) == LLVMUnreachable) continue;
      hook_on_edge(pc, n, cfg->bb[b], cfg->bb[e], pc->t_end, pc->f_end, NULL, 0);
    }
  }
}
