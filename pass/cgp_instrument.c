/* cgp_instrument.c: phase 2 of the pass, on the module phase 1 (cgp_mark.c) marked and optimized:
   instruments the marked loop nests.

   For a nest marked `#pragma cgpredict kernel` whose `for` sits at line:col, the loop is the one
   whose !llvm.loop start location is line:col. Its `dims` outermost loops are mapped to thread
   ids; the innermost mapped loop T is the thread loop, and one iteration of T is one pseudo-thread.
   The memory sites of the nest are, in the may_alias reading (the default, CUDA's), the marker
   calls (@cgp_rt_site) inside it: every source-level access; in the noalias reading (clause
   noalias, or every base a `restrict` argument) the loads, stores and atomics -O1 kept.
   The pass then:
     - splits T's header after its phis, so each iteration starts with
         %mode = call i32 @cgp_rt_thread(i64 x, i64 y, i64 z)     ; x = T's induction variable
       and, when the latch only needs induction variables, branches on %mode == SKIP to a block
       that runs just the latch (so the runtime can skip threads it does not sample);
     - copies the thread body, before any hook is in it, into a clean body (cgp_clean.c) that
       threads the runtime does not trace (%mode == PLAIN) run at the speed of the user's code,
       and makes that copy a loop over the next threads the runtime says are plain too
       (clean_thread_loop), so it vectorizes like the user's loop;
     - reports each block's sites of the thread body as cgp_rt_mem_block(i32 first, i32 count,
       i8** addr, i8** base)
       (base = the pointer the address is indexed from, so the runtime can place arrays as
       cudaMalloc would), through one guarded flush per block (insert_mem_hooks);
     - at the top of every thread block: call @cgp_rt_bb(i32 bid);
     - before a load between mapped loops (outside the thread loop):
         call @cgp_rt_hoisted(i32 sid, i8* addr, i8* base)   (charged to each thread of the row);
     - before entering the nest: call @cgp_rt_kernel_begin(i8* descriptor) with a JSON descriptor
       of the kernel (sites, blocks with PTX counts, inner loops, carried scalars, mapping;
       docs/pipeline.md lists the keys), or, when a mapped loop steps by a value known only at run
       time, @cgp_rt_kernel_begin_step(i8* descriptor, i64 sx, i64 sy, i64 sz) with the steps;
     - on every exit from the nest: call @cgp_rt_kernel_end();
     - deletes every marker left (outside marked nests, of noalias nests).
   The hooks' meaning is specified in runtime/cgp_rt.h. */
#include "cgp_pass.h"
#include "cgp_abi.h"
#include "cgp_carried.h"
#include "cgp_overlap.h"
#include "cgp_cfg.h"
#include "cgp_clean.h"
#include "cgp_fold.h"
#include "cgp_mark.h"
#include "cgp_ptrmap.h"

#include <cjson/cJSON.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CGP_MAX_DIMS 3
#define CGP_TRACE_MODE 1           /* runtime/cgp_rt.h: CGP_RT_TRACE */
#define CGP_SKIP_MODE 2            /* runtime/cgp_rt.h: CGP_RT_SKIP */

typedef struct {
  char *buf;
  size_t cap;
} msgbuf;

typedef struct {
  char name[512];
  char *text;
  size_t *start, nlines;
} source_cache;

typedef struct {
  LLVMModuleRef m;
  LLVMContextRef ctx;
  LLVMBuilderRef b;
  LLVMTargetDataRef td;
  LLVMTypeRef i8p, i32, i64, voidt;
  LLVMTypeRef t_begin, t_begin_step, t_thread, t_mem, t_bb, t_bb_inline, t_end, t_flush, t_fast_end;
  LLVMValueRef f_begin, f_begin_step, f_thread, f_flush, f_bb, f_end, f_hoisted, f_fast_end;
  LLVMValueRef f_site;              /* phase 1's marker, NULL if the module was not prepared */
  unsigned md_loop;
  msgbuf err, warn;
  source_cache src;
  int failed;
} pass_ctx;

/* One memory site of a nest: a marker call (may_alias reading) or an access (noalias). */
typedef struct {
  LLVMValueRef inst;
  int kind;                         /* CGP_SITE_* */
  int block;                        /* bid of its thread-body block, -1 if hoisted */
  unsigned order;                   /* position among the sites of its block */
} mem_site;

/* A mapped loop's step known only at run time: phi + value (phi - value when negate). */
typedef struct {
  LLVMValueRef value;
  int negate;
} run_time_step;

/* One marked nest being instrumented. */
typedef struct {
  const cgp_kernel_pragma *k;
  const cgp_cfg *cfg;
  cgp_loop *mapped[CGP_MAX_DIMS];   /* [0] outermost */
  unsigned dims;
  LLVMValueRef iv[CGP_MAX_DIMS];    /* [0] = x (innermost mapped loop) */
  long long step[CGP_MAX_DIMS];      /* 0: known at run time, run_step */
  run_time_step run_step[CGP_MAX_DIMS];
  int may_alias;                    /* the reading: marker calls are the sites */
  mem_site *mem; size_t nmem;       /* sites of the thread body, in block order, then the loads
                                       hoisted out of it (between mapped loops) */
  size_t nthread_mem;
  cJSON *carried;
  cJSON *exits;                     /* early exits from mapped loops */
  LLVMValueRef *slice; size_t nslice;
  int can_skip;
  cJSON *warnings;
} nest;

static void msg_add(msgbuf *mb, const char *fmt, ...) {
  size_t used = strlen(mb->buf);
  if (used + 1 >= mb->cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mb->buf + used, mb->cap - used, fmt, ap);
  va_end(ap);
  used = strlen(mb->buf);
  if (used + 1 < mb->cap) { mb->buf[used] = '\n'; mb->buf[used + 1] = '\0'; }
}

#define NEST_ERROR(pc, n, ...) do { \
    char m_[8192]; snprintf(m_, sizeof m_, __VA_ARGS__); \
    msg_add(&(pc)->err, "%s:%u:%u: error: %s", (n)->k->file, (n)->k->for_line, (n)->k->for_col, m_); \
    (pc)->failed = 1; } while (0)

static void nest_warn(pass_ctx *pc, nest *n, unsigned line, const char *fmt, ...) {
  char m[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  msg_add(&pc->warn, "%s:%u: warning: kernel '%s': %s", n->k->file, line ? line : n->k->for_line,
          n->k->name, m);
  char located[sizeof n->k->file + sizeof m + 32];   /* the report's copy says where too: file:line: text */
  snprintf(located, sizeof located, "%s:%u: %s", n->k->file, line ? line : n->k->for_line, m);
  cJSON_AddItemToArray(n->warnings, cJSON_CreateString(located));
}

/* ---- hooks ---------------------------------------------------------------------------------- */

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
  LLVMValueRef f = LLVMGetNamedFunction(pc->m, "cgp.mem.flush");
  if (f) return f;
  LLVMBasicBlockRef entry, done;
  f = guarded_shell(pc, "cgp.mem.flush", pc->t_flush, 1, &entry, &done);
  LLVMValueRef args[4] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMGetParam(f, 2), LLVMGetParam(f, 3)};
  LLVMBuildCall2(pc->b, pc->t_flush, hook, args, 4, "");
  LLVMBuildBr(pc->b, done);
  return f;
}

/* cgp.bb(i32 bid, i32 loop, i32 header), always inlined, called at the top of thread-body block
   bid with constants: `loop` its descriptor loop (-1: none), `header` 1 if it heads that loop.
   While the runtime traces the thread, cgp_rt_bb(bid); but in an iteration the runtime skips
   (cgp_rt_tracing 2) of that very loop (cgp_rt_pause[CGP_PAUSE_LOOP] == loop), what cgp_rt_bb
   would do, inline (cgp_abi.h): a block other than the header clears HEADER_LAST; the header,
   while more than one header execution is left to skip, counts it and sets HEADER_LAST; the
   header that ends the skipping calls the runtime. The sampled loops of a traced thread skip
   about 15 of every 16 iterations; each cost a call, now a few loads and stores. */
static LLVMValueRef bb_hook(pass_ctx *pc, LLVMValueRef hook) {
  LLVMValueRef f = LLVMGetNamedFunction(pc->m, "cgp.bb");
  LLVMTypeRef params[3] = {pc->i32, pc->i32, pc->i32};
  pc->t_bb_inline = LLVMFunctionType(pc->voidt, params, 3, 0);
  if (f) return f;
  LLVMTypeRef pause_t = LLVMArrayType(pc->i32, 3);
  LLVMValueRef pause = LLVMGetNamedGlobal(pc->m, CGP_HOOK_PAUSE);
  if (!pause) pause = LLVMAddGlobal(pc->m, pause_t, CGP_HOOK_PAUSE);
  LLVMBasicBlockRef entry, done;
  f = guarded_shell(pc, "cgp.bb", pc->t_bb_inline, 0, &entry, &done);
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
  LLVMBuildCondBr(pc->b, LLVMBuildICmp(pc->b, LLVMIntEQ, paused, loop, ""), in_loop, call);
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

static void declare_hooks(pass_ctx *pc) {
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
  pc->f_thread = declare_hook(pc, "cgp_rt_thread", pc->t_thread);
  pc->f_flush = flush_hook(pc, declare_hook(pc, CGP_HOOK_MEM_BLOCK, pc->t_flush));
  pc->f_bb = bb_hook(pc, declare_hook(pc, "cgp_rt_bb", pc->t_bb));
  pc->f_end = declare_hook(pc, "cgp_rt_kernel_end", pc->t_end);
  pc->f_hoisted = declare_hook(pc, "cgp_rt_hoisted", pc->t_mem);
  pc->f_fast_end = declare_hook(pc, "cgp_rt_fast_end", pc->t_fast_end);
}

static LLVMValueRef first_non_phi(LLVMBasicBlockRef bb) {
  LLVMValueRef i = LLVMGetFirstInstruction(bb);
  while (i && LLVMIsAPHINode(i)) i = LLVMGetNextInstruction(i);
  return i;
}

static int is_mem(LLVMValueRef i) {
  LLVMValueRef ptr;
  return cgp_pass_access_kind(i, &ptr) >= 0;
}

static int is_marker(const pass_ctx *pc, LLVMValueRef i) {
  return pc->f_site && LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == pc->f_site;
}

/* A call other than an intrinsic or a marker. */
static int is_real_call(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t len = 0;
  const char *name = (callee && LLVMIsAFunction(callee)) ? LLVMGetValueName2(callee, &len) : "";
  return strncmp(name, "llvm.", 5) != 0 && strcmp(name, CGP_SITE_MARKER) != 0;
}

/* Is i a memory site of the nest in its reading? *kind gets its CGP_SITE_* kind. */
static int site_kind(const pass_ctx *pc, const nest *n, LLVMValueRef i, int *kind) {
  LLVMValueRef ptr;
  if (!n->may_alias) return (*kind = cgp_pass_access_kind(i, &ptr)) >= 0;
  if (!is_marker(pc, i)) return 0;
  *kind = (int)LLVMConstIntGetZExtValue(LLVMGetOperand(i, 2));
  return 1;
}

/* Address and base pointer of a site. */
static void site_pointers(const pass_ctx *pc, LLVMValueRef i, LLVMValueRef *ptr, LLVMValueRef *base) {
  if (is_marker(pc, i)) {
    *ptr = LLVMGetOperand(i, 0);
    *base = LLVMGetOperand(i, 1);
    return;
  }
  cgp_pass_access_kind(i, ptr);
  *base = cgp_pass_underlying_base(*ptr);
}

/* ---- finding the mapped loops --------------------------------------------------------------- */

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
      if ((pc->f_site ? is_marker(pc, i) : is_mem(i)) || is_real_call(i)) return i;
  }
  return NULL;
}

static int choose_mapped_loops(pass_ctx *pc, nest *n, cgp_loop *loops, size_t nl, cgp_loop *l0) {
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
static LLVMValueRef induction_variable(const cgp_cfg *cfg, const cgp_loop *l, long long *step, const cgp_loop *outer,
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

/* ---- can a thread be skipped? ---------------------------------------------------------------- */

static int in_list(LLVMValueRef *v, size_t n, LLVMValueRef x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return 1;
  return 0;
}

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
  if (in_list(buf, n->nslice, v)) return 1;
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
        if (!LLVMIsAPHINode(user) || !in_list(n->slice, n->nslice, i)) return 0;
        for (unsigned k = 0; k < LLVMCountIncoming(user); k++)
          if (LLVMGetIncomingValue(user, k) == i && LLVMGetIncomingBlock(user, k) != latch) return 0;
      }
    }
  }
  return 1;
}

static void decide_skip(nest *n) {
  const cgp_loop *t = n->mapped[n->dims - 1];
  enum { SLICE_CAP = 64 };
  n->slice = calloc(SLICE_CAP, sizeof *n->slice);
  n->nslice = 0;
  n->can_skip = 0;
  if (t->nlatch != 1) return;
  LLVMBasicBlockRef latch = n->cfg->bb[t->latch[0]], header = n->cfg->bb[t->header];
  LLVMValueRef term = LLVMGetBasicBlockTerminator(latch);
  if (LLVMGetInstructionOpcode(term) != LLVMBr) return;
  if (LLVMIsConditional(term) && !slice_add(n, t, LLVMGetCondition(term), n->slice, SLICE_CAP))
    return;
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

/* ---- the descriptor ------------------------------------------------------------------------- */

/* The pointer p is computed from by one GEP or cast, or p itself. */
static LLVMValueRef underlying_base_step(LLVMValueRef p) {
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p)) return LLVMGetOperand(p, 0);
  if (LLVMIsAConstantExpr(p)) {
    LLVMOpcode op = LLVMGetConstOpcode(p);
    if (op == LLVMGetElementPtr || op == LLVMBitCast) return LLVMGetOperand(p, 0);
  }
  return p;
}

/* A scalar's IR type in words, for a variable with no debug type: "double", "64-bit integer". */
static void ir_type_name(LLVMTypeRef t, char *buf, size_t cap) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: snprintf(buf, cap, "half"); break;
  case LLVMFloatTypeKind: snprintf(buf, cap, "float"); break;
  case LLVMDoubleTypeKind: snprintf(buf, cap, "double"); break;
  case LLVMIntegerTypeKind: snprintf(buf, cap, "%u-bit integer", LLVMGetIntTypeWidth(t)); break;
  case LLVMPointerTypeKind: snprintf(buf, cap, "pointer"); break;
  default: snprintf(buf, cap, "other"); break;
  }
}

/* The name of a DIType (a MetadataAsValue), through the qualifiers that have none (const,
   volatile: a DIDerivedType's operand 3 is its base type); "" if none. DIType operands: file,
   scope, name, ... */
static void di_type_name(LLVMValueRef type, char *buf, size_t cap) {
  buf[0] = '\0';
  for (int depth = 0; type && depth < 8 && !buf[0]; depth++) {
    unsigned nops = LLVMGetMDNodeNumOperands(type), slen = 0;
    if (nops < 3) return;
    LLVMValueRef *ops = malloc(nops * sizeof *ops);
    if (!ops) return;
    LLVMGetMDNodeOperands(type, ops);
    const char *name = ops[2] ? LLVMGetMDString(ops[2], &slen) : NULL;
    if (name && slen) snprintf(buf, cap, "%.*s", (int)slen, name);
    type = nops > 3 ? ops[3] : NULL;
    free(ops);
  }
}

/* The variable llvm.dbg.value ties v to, or "" if none, and (type != NULL) its declared type's
   name. A malloc'd array is often tied to several: an inlined allocation helper's local, the
   caller's variable, the kernel's parameter; the name tied most often is the one the program
   uses for the array. */
static void dbg_variable(pass_ctx *pc, LLVMValueRef v, char *buf, size_t cap, char *type, size_t tcap) {
  enum { MAX_NAMES = 16 };
  char names[MAX_NAMES][64], types[MAX_NAMES][64];
  unsigned count[MAX_NAMES], nnames = 0;
  buf[0] = '\0';
  if (type) type[0] = '\0';
  if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v)) return;
  LLVMValueRef fn = LLVMIsAArgument(v) ? LLVMGetParamParent(v)
                                       : LLVMGetBasicBlockParent(LLVMGetInstructionParent(v));
  LLVMValueRef want = LLVMMetadataAsValue(pc->ctx, LLVMValueAsMetadata(v));
  size_t len;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetNumOperands(i) < 3 || LLVMGetOperand(i, 0) != want)
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || strcmp(LLVMGetValueName2(callee, &len), "llvm.dbg.value") != 0) continue;
      LLVMValueRef var = LLVMGetOperand(i, 1);           /* DILocalVariable: scope, name, file, type, ... */
      unsigned nops = LLVMGetMDNodeNumOperands(var), slen = 0, k = 0;
      if (nops < 2) continue;
      LLVMValueRef *ops = malloc(nops * sizeof *ops);
      if (!ops) continue;
      LLVMGetMDNodeOperands(var, ops);
      const char *name = ops[1] ? LLVMGetMDString(ops[1], &slen) : NULL;
      if (name && slen && slen < sizeof names[0]) {
        while (k < nnames && (strlen(names[k]) != slen || strncmp(names[k], name, slen) != 0)) k++;
        if (k == nnames && nnames < MAX_NAMES) {
          snprintf(names[nnames], sizeof names[0], "%.*s", (int)slen, name);
          di_type_name(nops > 3 ? ops[3] : NULL, types[nnames], sizeof types[0]);
          count[nnames++] = 0;
        }
        if (k < nnames) count[k]++;
      }
      free(ops);
    }
  unsigned best = 0;
  for (unsigned k = 1; k < nnames; k++)
    if (count[k] > count[best]) best = k;
  if (nnames) snprintf(buf, cap, "%s", names[best]);
  if (nnames && type) snprintf(type, tcap, "%s", types[best]);
}

/* The source-level name of the array an address indexes: walking from the address down its
   GEPs and casts, a global's or argument's name, or a debug variable's. */
static void source_name(pass_ctx *pc, LLVMValueRef p, char *buf, size_t cap) {
  for (int guard = 0; guard < 64; guard++) {
    size_t len = 0;
    const char *own = LLVMGetValueName2(p, &len);
    if (len && (LLVMIsAGlobalValue(p) || LLVMIsAArgument(p))) { snprintf(buf, cap, "%.*s", (int)len, own); return; }
    dbg_variable(pc, p, buf, cap, NULL, 0);
    if (buf[0]) return;
    LLVMValueRef next = underlying_base_step(p);
    if (next == p) { snprintf(buf, cap, "%.*s", (int)len, own); return; }
    p = next;
  }
}

/* The array name as written at file:line:col: a load's location is the array's identifier, a
   store's the assignment operator, left of which stands the element `name[...]...`. */
/* Line `line` (from 1) of `file` into text; the last file read is kept with its line starts,
   so naming every site of a nest reads its file once. */
static int source_line(pass_ctx *pc, const char *file, unsigned line, char *text, size_t cap) {
  source_cache *sc = &pc->src;
  if (!file[0]) return 0;
  if (strcmp(sc->name, file) != 0) {
    free(sc->text); free(sc->start);
    memset(sc, 0, sizeof *sc);
    snprintf(sc->name, sizeof sc->name, "%s", file);
    FILE *f = fopen(file, "rb");
    if (!f) return 0;
    size_t cap_t = 1 << 16, n = 0, got;
    sc->text = malloc(cap_t);
    while ((got = fread(sc->text + n, 1, cap_t - n - 1, f)) > 0)
      if ((n += got) + 1 == cap_t) sc->text = realloc(sc->text, cap_t *= 2);
    fclose(f);
    sc->text[n] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) lines += sc->text[i] == '\n';
    sc->start = malloc((lines + 1) * sizeof *sc->start);
    sc->start[sc->nlines++] = 0;
    for (size_t i = 0; i < n; i++)
      if (sc->text[i] == '\n') sc->start[sc->nlines++] = i + 1;
  }
  if (!sc->text || line == 0 || line > sc->nlines) return 0;
  const char *l = sc->text + sc->start[line - 1];
  size_t len = strcspn(l, "\n");
  if (len >= cap) len = cap - 1;
  memcpy(text, l, len);
  text[len] = '\0';
  return 1;
}

#define IDCHAR(ch) (isalnum((unsigned char)(ch)) || (ch) == '_')

/* Left of c, past spaces and bracketed groups ([...] or (...)): the new position. */
static size_t skip_groups_left(const char *text, size_t c) {
  while (c > 0 && isspace((unsigned char)text[c - 1])) c--;
  while (c > 0 && (text[c - 1] == ']' || text[c - 1] == ')')) {
    char close = text[c - 1], open = close == ']' ? '[' : '(';
    int depth = 0;
    do {
      c--;
      depth += text[c] == close;
      depth -= text[c] == open;
    } while (c > 0 && depth > 0);
    while (c > 0 && isspace((unsigned char)text[c - 1])) c--;
  }
  return c;
}

/* The identifier at c names a member (`pos[i].x`, `cell->next->v`): the start of the identifier
   its access starts from (`pos`, `cell`), the array a site reads; c itself otherwise. */
static size_t member_base(const char *text, size_t c) {
  for (int guard = 0; guard < 16; guard++) {
    size_t k = c;
    while (k > 0 && isspace((unsigned char)text[k - 1])) k--;
    if (k > 0 && text[k - 1] == '.') k--;
    else if (k > 1 && text[k - 1] == '>' && text[k - 2] == '-') k -= 2;
    else break;
    k = skip_groups_left(text, k);
    if (k == 0 || !IDCHAR(text[k - 1])) break;
    while (k > 0 && IDCHAR(text[k - 1])) k--;
    if (isdigit((unsigned char)text[k])) break;    /* 1.5: a number, not a member */
    c = k;
  }
  return c;
}

/* A store whose location is an identifier is a struct copied whole (`p = pos[i]`: clang puts the
   llvm.memcpy at its source, right of the `=`): the element written stands left of that `=`, and
   the walk starts there (before, the copy's store was named by its source, md/grid's `position`).
   An identifier followed by `(` is a function or a macro (`MAX(0, b0.x - 1)`: code a macro
   expands has the location of its name): not what is accessed, so 0, and the caller names the
   site by its address's variable (debug info) instead. */
static int name_in_source(pass_ctx *pc, const char *file, unsigned line, unsigned col, int store, char *buf,
                          size_t cap) {
  char text[4096];
  int found = 0;
  if (!source_line(pc, file, line, text, sizeof text)) return 0;
  size_t n = strlen(text), c = col ? col - 1 : 0;
  if (c >= n) return 0;
  if (store && IDCHAR(text[c])) {
    size_t k = c;
    while (k > 0 && isspace((unsigned char)text[k - 1])) k--;
    if (k > 1 && text[k - 1] == '=' && !strchr("=!<>+-*/%&|^", text[k - 2])) c = k - 1;
  }
  if (!IDCHAR(text[c])) {                     /* a store: walk left over spaces and groups */
    c = skip_groups_left(text, c);
    while (c > 0 && IDCHAR(text[c - 1])) c--;
  }
  c = member_base(text, c);
  size_t e = c, after;
  while (e < n && IDCHAR(text[e])) e++;
  for (after = e; after < n && isspace((unsigned char)text[after]); after++) {}
  if (after < n && text[after] == '(') return 0;
  if (e > c && !isdigit((unsigned char)text[c]) && e - c < cap) {
    snprintf(buf, cap, "%.*s", (int)(e - c), text + c);
    found = 1;
  }
  return found;
}
#undef IDCHAR

static const char *const kind_names[] = {"load", "store", "atomic"};

/* For each site, the first site of the nest whose address is the same SSA value: after -O1's CSE
   two accesses with one address expression share it, which is what a compiler can prove equal
   (the runtime forwards a load only from a site of the same addr_id). Sorting keeps it n log n. */
typedef struct { uintptr_t ptr; size_t idx; } site_ptr;

static int cmp_site_ptr(const void *a, const void *b) {
  const site_ptr *x = a, *y = b;
  if (x->ptr != y->ptr) return x->ptr < y->ptr ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t *addr_ids(const pass_ctx *pc, const nest *n) {
  site_ptr *v = malloc((n->nmem ? n->nmem : 1) * sizeof *v);
  size_t *id = malloc((n->nmem ? n->nmem : 1) * sizeof *id);
  if (!v || !id) { free(v); free(id); return NULL; }
  for (size_t i = 0; i < n->nmem; i++) {
    LLVMValueRef p, b;
    site_pointers(pc, n->mem[i].inst, &p, &b);
    v[i] = (site_ptr){(uintptr_t)p, i};
  }
  qsort(v, n->nmem, sizeof *v, cmp_site_ptr);
  for (size_t i = 0; i < n->nmem; i++) id[v[i].idx] = i && v[i].ptr == v[i - 1].ptr ? id[v[i - 1].idx] : v[i].idx;
  free(v);
  return id;
}

static cJSON *mem_site_json(pass_ctx *pc, const nest *n, const mem_site *site, size_t id) {
  LLVMValueRef i = site->inst, ptr, base;
  cJSON *s = cJSON_CreateObject();
  site_pointers(pc, i, &ptr, &base);
  unsigned flen = 0;
  const char *file = LLVMGetDebugLocFilename(i, &flen);
  char fbuf[512] = "";
  if (file && flen < sizeof fbuf) { memcpy(fbuf, file, flen); fbuf[flen] = '\0'; }
  char bname[128];
  if (!name_in_source(pc, fbuf, LLVMGetDebugLocLine(i), LLVMGetDebugLocColumn(i), site->kind == CGP_SITE_STORE, bname,
                      sizeof bname))
    source_name(pc, ptr, bname, sizeof bname);
  cJSON_AddStringToObject(s, "file", fbuf);
  cJSON_AddNumberToObject(s, "line", LLVMGetDebugLocLine(i));
  cJSON_AddNumberToObject(s, "column", LLVMGetDebugLocColumn(i));
  cJSON_AddStringToObject(s, "kind", kind_names[site->kind]);
  cJSON_AddNumberToObject(s, "size", (double)(is_marker(pc, i) ? cgp_pass_site_size(pc->td, i)
                                                               : cgp_pass_access_size(pc->td, i)));
  cJSON_AddStringToObject(s, "array", bname);
  cJSON_AddStringToObject(s, "reading", n->may_alias ? "may_alias" : "noalias");
  cJSON_AddNumberToObject(s, "block", site->block);
  cJSON_AddNumberToObject(s, "order", site->order);
  cJSON_AddNumberToObject(s, "addr_id", (double)id);
  if (site->block < 0) cJSON_AddBoolToObject(s, "hoisted", 1);
  /* a local declared outside the nest that phase 1 kept shared (cgp_mark.c): its dependences'
     remedy is a copy per thread, not an atomic */
  if (LLVMIsAAllocaInst(base) || LLVMIsAAllocaInst(cgp_pass_underlying_base(ptr))) cJSON_AddBoolToObject(s, "local", 1);
  return s;
}

/* PTX-equivalent counts of a block: total, on CUDA cores, memory, and by functional unit. */
static cJSON *block_json(LLVMBasicBlockRef bb, int rpo, int loop) {
  unsigned total = 0, core = 0, mem = 0;
  cgp_ptx_units u = {0};
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    int c = 0;
    unsigned k = cgp_pass_ptx_cost(i, &c);
    total += k;
    core += c ? k : 0;
    mem += is_mem(i);
    cgp_pass_ptx_units(i, &u);
  }
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "total", total);
  cJSON_AddNumberToObject(o, "core", core);
  cJSON_AddNumberToObject(o, "mem", mem);
  cJSON_AddNumberToObject(o, "fp32", u.fp32);
  cJSON_AddNumberToObject(o, "fp64", u.fp64);
  cJSON_AddNumberToObject(o, "int", u.integer);
  cJSON_AddNumberToObject(o, "sfu", u.sfu);
  cJSON_AddNumberToObject(o, "rpo", rpo);
  cJSON_AddNumberToObject(o, "loop", loop);
  return o;
}

/* ---- the thread body's structure: reverse postorder and inner loops -------------------------- */

typedef struct {
  size_t n;                 /* thread-body blocks */
  size_t *cfg_of;           /* bid -> cfg index */
  size_t *bid_of;           /* cfg index -> bid, or SIZE_MAX */
  int *rpo, *loop_of;       /* per bid */
  const cgp_loop **inner;   /* loops strictly inside the thread loop, header layout order */
  size_t ninner;
  int acyclic;              /* no cycle but through the back edges of natural loops: every other
                               edge inside the body goes forward in reverse postorder */
} body_shape;

/* Is the edge u -> v a back edge (v heads a loop that contains u)? */
static int back_edge(const cgp_loop *loops, size_t nl, size_t u, size_t v) {
  for (size_t l = 0; l < nl; l++)
    if (loops[l].header == v && loops[l].in[u]) return 1;
  return 0;
}

static int innermost(const body_shape *bs, size_t b, const cgp_loop *except) {
  int best = -1;
  for (size_t l = 0; l < bs->ninner; l++)
    if (bs->inner[l] != except && bs->inner[l]->in[b] &&
        (best < 0 || bs->inner[l]->nblocks < bs->inner[best]->nblocks))
      best = (int)l;
  return best;
}

static void body_shape_build(const nest *n, const cgp_loop *loops, size_t nl, body_shape *bs) {
  const cgp_cfg *cfg = n->cfg;
  const cgp_loop *t = n->mapped[n->dims - 1];
  memset(bs, 0, sizeof *bs);
  bs->cfg_of = calloc(cfg->n + 1, sizeof *bs->cfg_of);
  bs->bid_of = calloc(cfg->n + 1, sizeof *bs->bid_of);
  for (size_t b = 0; b < cfg->n; b++) {
    bs->bid_of[b] = SIZE_MAX;
    if (t->in[b]) { bs->bid_of[b] = bs->n; bs->cfg_of[bs->n++] = b; }
  }
  bs->rpo = calloc(bs->n + 1, sizeof *bs->rpo);
  bs->loop_of = calloc(bs->n + 1, sizeof *bs->loop_of);
  bs->inner = calloc(nl + 1, sizeof *bs->inner);
  for (size_t l = 0; l < nl; l++)
    if (&loops[l] != t && cgp_loop_contains(t, &loops[l])) bs->inner[bs->ninner++] = &loops[l];
  /* iterative depth-first search from the header over forward edges; postorder numbers */
  size_t *stack = calloc(bs->n + 1, sizeof *stack), *next = calloc(bs->n + 1, sizeof *next), top = 0, post = 0;
  unsigned char *seen = calloc(bs->n + 1, 1);
  stack[top++] = bs->bid_of[t->header];
  seen[stack[0]] = 1;
  while (top) {
    size_t v = stack[top - 1], cv = bs->cfg_of[v];
    if (next[v] < cfg->nsucc[cv]) {
      size_t w = cfg->succ[cv][next[v]++];
      if (!t->in[w] || back_edge(loops, nl, cv, w) || seen[bs->bid_of[w]]) continue;
      seen[bs->bid_of[w]] = 1;
      stack[top++] = bs->bid_of[w];
    } else {
      bs->rpo[v] = (int)post++;
      top--;
    }
  }
  for (size_t v = 0; v < bs->n; v++) {
    bs->rpo[v] = seen[v] ? (int)post - 1 - bs->rpo[v] : (int)v;   /* every body block is reached */
    bs->loop_of[v] = innermost(bs, bs->cfg_of[v], NULL);
  }
  bs->acyclic = 1;
  for (size_t v = 0; v < bs->n; v++) {
    size_t cv = bs->cfg_of[v];
    for (size_t i = 0; i < cfg->nsucc[cv]; i++) {
      size_t w = cfg->succ[cv][i];
      if (!t->in[w] || w == t->header || back_edge(loops, nl, cv, w)) continue;
      if (bs->rpo[bs->bid_of[w]] <= bs->rpo[v]) bs->acyclic = 0;   /* a cycle no natural loop makes */
    }
  }
  free(stack); free(next); free(seen);
}

static void body_shape_free(body_shape *bs) {
  free(bs->cfg_of); free(bs->bid_of); free(bs->rpo); free(bs->loop_of); free(bs->inner);
}

static cJSON *loops_json(const body_shape *bs) {
  cJSON *a = cJSON_CreateArray();
  for (size_t l = 0; l < bs->ninner; l++) {
    const cgp_loop *lp = bs->inner[l];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "header", (double)bs->bid_of[lp->header]);
    cJSON_AddNumberToObject(o, "parent", innermost(bs, lp->header, lp));
    cJSON_AddNumberToObject(o, "line", lp->line);
    cJSON_AddNumberToObject(o, "column", lp->col);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON *uint_array(const unsigned *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

/* The innermost loop inside the thread loop (index into loops[]) whose every iteration computes
   the site's address anew (the loop holding its definition), or -1: an address defined outside
   them keeps its value for the whole thread. A value held in a register for that address lasts
   one iteration of that loop: a compiler cannot tell the next iteration's address equals it
   (v[idx[j]] with a repeating idx[j]). */
static int vary_loop(const pass_ctx *pc, const cgp_cfg *cfg, const body_shape *bs, LLVMValueRef inst) {
  LLVMValueRef ptr, base;
  site_pointers(pc, inst, &ptr, &base);
  if (!LLVMIsAInstruction(ptr)) return -1;
  size_t b = cgp_cfg_index(cfg, LLVMGetInstructionParent(ptr));
  if (b >= cfg->n || bs->bid_of[b] == SIZE_MAX) return -1;
  return bs->loop_of[bs->bid_of[b]];
}

/* Does the site's load issue with the next iterations' loads (cgp_overlap.c)? Only a load in a
   loop inside the thread body. */
static int overlaps(const pass_ctx *pc, const cgp_cfg *cfg, const body_shape *bs, const mem_site *site) {
  if (site->kind != CGP_SITE_LOAD || site->block < 0 || bs->loop_of[site->block] < 0) return 0;
  LLVMValueRef ptr, base;
  site_pointers(pc, site->inst, &ptr, &base);
  return cgp_overlap_load(cfg, bs->inner[bs->loop_of[site->block]], ptr, pc->f_site);
}

/* 1 if the body's blocks mark cgp_rt_block_seen instead of calling cgp_rt_bb (cgp_abi.h,
   CGP_HOOK_BLOCK_SEEN): no loop inside the thread loop, no other cycle, so each block runs at most
   once per thread and in reverse postorder, and few enough sites and blocks for the runtime's
   warp-major matrix. */
static int marks_blocks(const nest *n, const body_shape *bs) {
  return bs->ninner == 0 && bs->acyclic && bs->n + n->nmem <= CGP_FLAT_EVENTS;
}

/* The traced thread ran block bid (marks_blocks): cgp_rt_block_seen[bid / 64] |= 1 << bid % 64. */
static void mark_block(pass_ctx *pc, size_t bid) {
  LLVMTypeRef t = LLVMArrayType(pc->i64, CGP_FLAT_EVENTS / 64);
  LLVMValueRef seen = LLVMGetNamedGlobal(pc->m, CGP_HOOK_BLOCK_SEEN);
  if (!seen) seen = LLVMAddGlobal(pc->m, t, CGP_HOOK_BLOCK_SEEN);
  LLVMValueRef idx[2] = {LLVMConstInt(pc->i32, 0, 0), LLVMConstInt(pc->i32, bid / 64, 0)};
  LLVMValueRef word = LLVMConstInBoundsGEP2(t, seen, idx, 2);
  LLVMValueRef old = LLVMBuildLoad2(pc->b, pc->i64, word, "seen");
  LLVMBuildStore(pc->b, LLVMBuildOr(pc->b, old, LLVMConstInt(pc->i64, UINT64_C(1) << bid % 64, 0), ""), word);
}

/* The tile loop of tile(t) (docs/model.md section 8b): the outermost loop inside the thread body
   whose integer induction variable steps by +t; -1 when there is none. */
static int tile_loop(const cgp_cfg *cfg, const body_shape *bs, unsigned tile) {
  for (size_t l = 0; l < bs->ninner && tile; l++) {
    long long step = 0;
    if (induction_variable(cfg, bs->inner[l], &step, NULL, NULL) && step == (long long)tile) return (int)l;
  }
  return -1;
}

/* The locals declared outside nest k that phase 1 found private to each thread (cgp_mark.c,
   privatize): the module's !cgp.privatized entries of k's name, each variable once. */
static cJSON *privatized_json(LLVMModuleRef m, const cgp_kernel_pragma *k) {
  cJSON *a = cJSON_CreateArray();
  unsigned n = LLVMGetNamedMetadataNumOperands(m, CGP_PRIVATIZED_MD);
  LLVMValueRef *ops = n ? malloc(n * sizeof *ops) : NULL;
  if (!ops) return a;
  LLVMGetNamedMetadataOperands(m, CGP_PRIVATIZED_MD, ops);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef pair[2];
    if (LLVMGetMDNodeNumOperands(ops[i]) != 2) continue;
    LLVMGetMDNodeOperands(ops[i], pair);
    unsigned klen = 0, vlen = 0;
    const char *kn = LLVMGetMDString(pair[0], &klen), *var = LLVMGetMDString(pair[1], &vlen);
    if (!kn || !var || klen != strlen(k->name) || strncmp(kn, k->name, klen) != 0) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)vlen, var);
    int seen = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, a) seen |= strcmp(e->valuestring, name) == 0;
    if (!seen) cJSON_AddItemToArray(a, cJSON_CreateString(name));
  }
  free(ops);
  return a;
}

static char *descriptor(pass_ctx *pc, nest *n, const body_shape *bs) {
  const cgp_kernel_pragma *k = n->k;
  const cgp_cfg *cfg = n->cfg;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddNumberToObject(d, "abi", CGP_ABI_VERSION);
  cJSON_AddStringToObject(d, "name", k->name);
  cJSON_AddStringToObject(d, "file", k->file);
  cJSON_AddNumberToObject(d, "line", k->pragma_line);
  cJSON_AddNumberToObject(d, "for_line", k->for_line);
  cJSON_AddNumberToObject(d, "for_column", k->for_col);
  cJSON_AddNumberToObject(d, "dims", n->dims);
  cJSON_AddBoolToObject(d, "dims_given", k->dims != 0);
  cJSON_AddItemToObject(d, "block", uint_array(k->block, 3));
  if (k->fpga_json) cJSON_AddRawToObject(d, "fpga", k->fpga_json);
  cJSON *steps = cJSON_CreateArray();
  for (unsigned i = 0; i < n->dims; i++) cJSON_AddItemToArray(steps, cJSON_CreateNumber((double)n->step[i]));
  cJSON_AddItemToObject(d, "iv_step", steps);
  cJSON_AddBoolToObject(d, "can_skip", n->can_skip);
  cJSON *sh = cJSON_CreateArray();
  for (unsigned i = 0; i < k->nshared; i++) cJSON_AddItemToArray(sh, cJSON_CreateString(k->shared[i]));
  cJSON_AddItemToObject(d, "shared", sh);
  cJSON *pads = cJSON_CreateArray();
  for (unsigned i = 0; i < k->nshared; i++) cJSON_AddItemToArray(pads, cJSON_CreateNumber(k->shared_pad[i]));
  cJSON_AddItemToObject(d, "shared_pad", pads);
  cJSON_AddNumberToObject(d, "tile", k->tile);
  cJSON_AddNumberToObject(d, "tile_loop", tile_loop(cfg, bs, k->tile));
  cJSON_AddStringToObject(d, "reading", n->may_alias ? "may_alias" : "noalias");
  cJSON *mem = cJSON_CreateArray();
  size_t *ids = addr_ids(pc, n);
  for (size_t i = 0; i < n->nmem; i++) {
    cJSON *site = mem_site_json(pc, n, &n->mem[i], ids ? ids[i] : i);
    cJSON_AddNumberToObject(site, "vary_loop", vary_loop(pc, cfg, bs, n->mem[i].inst));
    if (overlaps(pc, cfg, bs, &n->mem[i])) cJSON_AddBoolToObject(site, "overlap", 1);
    cJSON_AddItemToArray(mem, site);
  }
  free(ids);
  cJSON_AddItemToObject(d, "mem", mem);
  cJSON *blocks = cJSON_CreateArray();
  for (size_t b = 0; b < bs->n; b++)
    cJSON_AddItemToArray(blocks, block_json(cfg->bb[bs->cfg_of[b]], bs->rpo[b], bs->loop_of[b]));
  cJSON_AddItemToObject(d, "blocks", blocks);
  cJSON_AddItemToObject(d, "loops", loops_json(bs));
  cJSON_AddBoolToObject(d, "acyclic", bs->acyclic);
  if (marks_blocks(n, bs)) cJSON_AddBoolToObject(d, "block_seen", 1);
  cJSON_AddItemToObject(d, "carried", cJSON_Duplicate(n->carried, 1));
  cJSON_AddItemToObject(d, "exits", cJSON_Duplicate(n->exits, 1));
  cJSON_AddItemToObject(d, "warnings", cJSON_Duplicate(n->warnings, 1));
  cJSON_AddItemToObject(d, "privatized", privatized_json(pc->m, k));
  char *s = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  return s;
}

/* ---- rewriting ------------------------------------------------------------------------------- */

/* Move everything after the phis of `h` into a new block placed after it; `h` ends with an
   unconditional branch to the new block, which is returned. */
static LLVMBasicBlockRef split_after_phis(pass_ctx *pc, LLVMBasicBlockRef h, LLVMValueRef *track,
                                          size_t ntrack) {
  LLVMBasicBlockRef r = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(h), "cgp.thread");
  LLVMMoveBasicBlockAfter(r, h);
  LLVMPositionBuilderAtEnd(pc->b, r);
  LLVMValueRef i = first_non_phi(h);
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
static void insert_mem_hooks(pass_ctx *pc, nest *n) {
  unsigned most = 1;
  for (size_t s = 0; s < n->nthread_mem; s++)
    if (n->mem[s].order + 1 > most) most = n->mem[s].order + 1;
  LLVMTypeRef aty = LLVMArrayType(pc->i8p, most);
  LLVMValueRef addrs = site_buffer(pc, aty, "cgp.addrs"), bases = site_buffer(pc, aty, "cgp.bases");
  LLVMValueRef zero[2] = {LLVMConstInt(pc->i64, 0, 0), LLVMConstInt(pc->i64, 0, 0)};
  size_t first = 0;
  for (size_t s = 0; s < n->nmem; s++) {
    LLVMValueRef i = n->mem[s].inst, ptr, base;
    site_pointers(pc, i, &ptr, &base);
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
    if (is_marker(pc, i)) LLVMInstructionEraseFromParent(i);
  }
}

static LLVMValueRef slice_clone_of(const nest *n, LLVMValueRef *clone, LLVMValueRef v) {
  for (size_t j = 0; j < n->nslice; j++)
    if (n->slice[j] == v) return clone[j];
  return v;
}

/* Clone the latch slice into a block that ends the iteration without running the body. */
static LLVMBasicBlockRef build_skip_block(pass_ctx *pc, nest *n, LLVMBasicBlockRef header,
                                          LLVMBasicBlockRef latch) {
  LLVMBasicBlockRef s = LLVMAppendBasicBlockInContext(pc->ctx, LLVMGetBasicBlockParent(header), "cgp.skip");
  LLVMValueRef *clone = calloc(n->nslice ? n->nslice : 1, sizeof *clone);
  LLVMPositionBuilderAtEnd(pc->b, s);
  for (size_t i = 0; i < n->nslice; i++) {
    clone[i] = LLVMInstructionClone(n->slice[i]);
    for (int o = 0; o < LLVMGetNumOperands(clone[i]); o++)
      for (size_t j = 0; j < i; j++)
        if (LLVMGetOperand(clone[i], (unsigned)o) == n->slice[j]) LLVMSetOperand(clone[i], (unsigned)o, clone[j]);
    cgp_insert_keeping_loc(pc->b, clone[i]);
  }
  LLVMValueRef term = LLVMGetBasicBlockTerminator(latch);
  if (LLVMIsConditional(term))
    LLVMBuildCondBr(pc->b, slice_clone_of(n, clone, LLVMGetCondition(term)), LLVMGetSuccessor(term, 0), LLVMGetSuccessor(term, 1));
  else
    LLVMBuildBr(pc->b, LLVMGetSuccessor(term, 0));
  for (unsigned k = 0; k < LLVMGetNumSuccessors(term); k++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(term, k);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(succ); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
      LLVMValueRef v = cgp_incoming_for(phi, latch);
      if (v && !cgp_incoming_for(phi, s)) {
        LLVMValueRef mv = slice_clone_of(n, clone, v);
        LLVMAddIncoming(phi, &mv, &s, 1);
      }
    }
  }
  free(clone);
  return s;
}

/* The header asks the runtime what this thread does: a traced thread runs the instrumented
   body, one that is not runs the clean copy (NULL if none could be made: then the instrumented
   body, whose hooks are guarded), a skipped one only the latch (when can_skip). */
static LLVMValueRef insert_thread_hook(pass_ctx *pc, nest *n, LLVMBasicBlockRef header, LLVMBasicBlockRef body,
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
  LLVMBasicBlockRef skip = n->can_skip ? build_skip_block(pc, n, header, latch) : NULL;
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
static LLVMBasicBlockRef clean_thread_loop(pass_ctx *pc, nest *n, LLVMBasicBlockRef header,
                                           LLVMBasicBlockRef *copy, size_t ncopy, LLVMBasicBlockRef from,
                                           LLVMValueRef mode) {
  LLVMBasicBlockRef made = NULL, c0 = copy[0];
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
    if (!users) { pc->failed = 1; msg_add(&pc->err, "cgpredict: out of memory\n"); goto out; }
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
out:
  ptrmap_free(&in);
  free(P);
  free(Q);
  return made;
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
  LLVMBuildCall2(pc->b, ty, hook, arg, nargs, "");
  LLVMBuildBr(pc->b, to);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++)
    if (LLVMGetSuccessor(term, s) == to) LLVMSetSuccessor(term, s, e);
  cgp_retarget_phis(pc->b, to, from, e, n->iv, CGP_MAX_DIMS);
}

/* kernel_begin on every edge into the nest, kernel_end on every edge out of it: on edges, not
   in the blocks, because the block before a loop may itself run many times (the latch of the
   loop before it, when clang gave the nest no preheader of its own). */
static void insert_kernel_hooks(pass_ctx *pc, nest *n, const char *desc) {
  const cgp_cfg *cfg = n->cfg;
  const cgp_loop *l0 = n->mapped[0];
  LLVMPositionBuilderBefore(pc->b, first_non_phi(cfg->bb[0]));
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

/* ---- one nest -------------------------------------------------------------------------------- */

static void add_site(nest *n, size_t *cap, LLVMValueRef i, int kind, int block, unsigned order) {
  if (n->nmem == *cap) n->mem = realloc(n->mem, (*cap *= 2) * sizeof *n->mem);
  n->mem[n->nmem++] = (mem_site){i, kind, block, order};
}

/* Loads between mapped loops run in every thread in CUDA: a source-level one (may_alias), or
   one LICM hoisted out of the thread loop (noalias: u1[i] of GEMVER's A[i][j] += u1[i]*v1[j]).
   The runtime charges them to each thread of the row. Stores and calls there run outside any
   thread: a warning says so. */
static void collect_hoisted(pass_ctx *pc, nest *n, size_t *cap) {
  const cgp_cfg *cfg = n->cfg;
  for (unsigned m = 0; m + 1 < n->dims; m++)
    for (size_t b = 0; b < cfg->n; b++) {
      if (!n->mapped[m]->in[b] || n->mapped[m + 1]->in[b]) continue;
      for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
        int kind;
        if (site_kind(pc, n, i, &kind) && kind == CGP_SITE_LOAD) {
          add_site(n, cap, i, kind, -1, 0);
        } else if ((site_kind(pc, n, i, &kind)) || is_real_call(i)) {
          nest_warn(pc, n, LLVMGetDebugLocLine(i), "a store or call between mapped loops runs outside "
                    "any thread and is not traced");
        }
      }
    }
}

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
   which each thread computes from its index, and carries nothing. */
static void collect_carried(pass_ctx *pc, nest *n) {
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
      dbg_variable(pc, phi, var, sizeof var, ctype, sizeof ctype);
      LLVMValueRef from = NULL, entry = NULL;        /* the values from an iteration and from before l */
      for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
        if (l->in[cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, k))]) { if (!from) from = LLVMGetIncomingValue(phi, k); }
        else if (!entry) entry = LLVMGetIncomingValue(phi, k);
      }
      if (!var[0]) {
        origin = "temporary";
        if (entry && LLVMIsALoadInst(entry)) {       /* promoted out of memory (LICM): g += a[i] */
          source_name(pc, LLVMGetOperand(entry, 0), var, sizeof var);
          if (var[0]) origin = "memory";
        }
      }
      if (!ctype[0]) ir_type_name(LLVMTypeOf(phi), ctype, sizeof ctype);
      const char *op = NULL;
      LLVMValueRef update = NULL;
      int reduction = cgp_carried_reduction(cfg, l, phi, &op, &update);
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
      cJSON_AddStringToObject(c, "form", reduction ? "reduction" : "recurrence");
      if (reduction) cJSON_AddStringToObject(c, "op", op);
      cJSON_AddItemToArray(n->carried, c);
      char what[256];
      if (!strcmp(origin, "variable")) snprintf(what, sizeof what, "'%s' (%s)", var, ctype);
      else if (!strcmp(origin, "memory"))
        snprintf(what, sizeof what, "'%s' (%s in memory, kept in a register by the compiler)", var, ctype);
      else snprintf(what, sizeof what, "a value the compiler made (%s, no variable of the source)", ctype);
      if (reduction)
        nest_warn(pc, n, line, "%s is carried from one iteration of the mapped loop at line %u to the next "
                  "(line %u): threads would depend on each other: a reduction (%s), which CUDA computes with "
                  "atomic operations or a tree reduction", what, l->line, line, op);
      else
        nest_warn(pc, n, line, "%s is carried from one iteration of the mapped loop at line %u to the next "
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
static void collect_exits(pass_ctx *pc, nest *n) {
  const cgp_cfg *cfg = n->cfg;
  signed char *ends = malloc(cfg->n + 1);          /* per exit block: ends_the_program, -1 unknown */
  if (!ends) { pc->failed = 1; msg_add(&pc->err, "cgpredict: out of memory"); return; }
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
      nest_warn(pc, n, line, "the mapped loop at line %u is left early at line %u (a break, return or "
                "goto): the iterations after it do not run, while a CUDA grid runs every thread; the "
                "prediction covers the iterations the program ran", l->line, line);
    }
  }
  free(ends);
}

static void collect_body(pass_ctx *pc, nest *n) {
  const cgp_cfg *cfg = n->cfg;
  const cgp_loop *t = n->mapped[n->dims - 1];
  size_t cap = 16;
  int bid = 0;
  n->mem = malloc(cap * sizeof *n->mem);
  n->nmem = 0;
  for (size_t b = 0; b < cfg->n; b++) {
    if (!t->in[b]) continue;
    unsigned order = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      int kind;
      if (site_kind(pc, n, i, &kind)) {
        add_site(n, &cap, i, kind, bid, order++);
      } else if (is_real_call(i)) {
        LLVMValueRef callee = LLVMGetCalledValue(i);
        size_t len = 0;
        const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "(indirect)";
        int c = 0;
        cgp_pass_ptx_cost(i, &c);
        if (!c)
          nest_warn(pc, n, LLVMGetDebugLocLine(i), "call to %s inside the thread body: its memory "
                    "accesses are not traced (cgpredict inlines the functions the marked file defines, "
                    "as nvcc inlines __device__ functions; define it there, or it cannot be inlined: "
                    "variadic, recursive or indirect)", name);
      }
    }
    bid++;
  }
  n->nthread_mem = n->nmem;
  collect_hoisted(pc, n, &cap);
  collect_carried(pc, n);
  collect_exits(pc, n);
}

/* The reading of a nest: noalias when the pragma says so, when the module was not prepared
   (only the compiled accesses exist), or when every site's base is a `noalias` (C `restrict`)
   argument; else may_alias, the CUDA reading of pointer arguments. */
static int reading_may_alias(pass_ctx *pc, const nest *n) {
  if (!pc->f_site || n->k->noalias) return 0;
  const cgp_cfg *cfg = n->cfg;
  unsigned noalias_kind = LLVMGetEnumAttributeKindForName("noalias", 7);
  size_t sites = 0;
  for (size_t b = 0; b < cfg->n; b++) {
    if (!n->mapped[0]->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      if (!is_marker(pc, i)) continue;
      sites++;
      LLVMValueRef base = LLVMGetOperand(i, 1);
      while (LLVMIsABitCastInst(base) || (LLVMIsAConstantExpr(base) && LLVMGetConstOpcode(base) == LLVMBitCast))
        base = LLVMGetOperand(base, 0);
      if (!LLVMIsAArgument(base)) return 1;
      LLVMValueRef fn = LLVMGetParamParent(base);
      unsigned idx = 0;
      while (LLVMGetParam(fn, idx) != base) idx++;
      if (!LLVMGetEnumAttributeAtIndex(fn, idx + 1, noalias_kind)) return 1;
    }
  }
  return sites == 0;
}

/* *made: the header of the loop the clean copy became (clean_thread_loop), or NULL: a copy of
   the marked loop itself for a 1-D nest, not to be taken for another instance of it. */
/* The blocks of the leaf loops of one block, to fold once instrumented (cgp_fold.h). */
static size_t fold_candidates(const nest *n, const body_shape *bs, LLVMBasicBlockRef *fc) {
  size_t nf = 0;
  for (size_t l = 0; l < bs->ninner; l++)
    if (bs->inner[l]->nblocks == 1) fc[nf++] = n->cfg->bb[bs->inner[l]->header];
  return nf;
}

static int instrument_nest(pass_ctx *pc, const cgp_kernel_pragma *k, const cgp_cfg *cfg,
                           cgp_loop *loops, size_t nl, cgp_loop *l0, LLVMBasicBlockRef *made) {
  nest n = {.k = k, .cfg = cfg, .warnings = cJSON_CreateArray(), .carried = cJSON_CreateArray(),
           .exits = cJSON_CreateArray()};
  int rc = -1;
  if (choose_mapped_loops(pc, &n, loops, nl, l0) != 0) goto out;
  for (unsigned d = 0; d < n.dims; d++) {
    const cgp_loop *l = n.mapped[n.dims - 1 - d];
    n.iv[d] = induction_variable(cfg, l, &n.step[d], n.mapped[0], &n.run_step[d]);
    if (!n.iv[d]) {
      NEST_ERROR(pc, &n, "kernel '%s': the mapped loop at line %u:%u has no integer induction "
                 "variable (a thread index must be an integer counter stepped by the same amount every "
                 "iteration, a constant or a value fixed before the nest: is the counter also changed in the "
                 "body, or stepped by a value the nest computes?)",
                 k->name, l->line, l->col);
      goto out;
    }
  }
  n.may_alias = reading_may_alias(pc, &n);
  collect_body(pc, &n);
  decide_skip(&n);
  body_shape bs;
  body_shape_build(&n, loops, nl, &bs);
  if (k->tile && tile_loop(cfg, &bs, k->tile) < 0) {
    NEST_ERROR(pc, &n, "kernel '%s': tile(%u) names no loop: no loop inside the nest steps its counter by %u "
               "(write the tile loop as `for (kk = 0; kk < N; kk += %u)` around the loop over one tile)",
               k->name, k->tile, k->tile, k->tile);
    body_shape_free(&bs);
    goto out;
  }
  char *desc = descriptor(pc, &n, &bs);
  LLVMBasicBlockRef *fc = malloc((bs.ninner + 1) * sizeof *fc);
  size_t nfc = fc ? fold_candidates(&n, &bs, fc) : 0;
  int *bb_loop = malloc((bs.n + 1) * sizeof *bb_loop), *bb_header = malloc((bs.n + 1) * sizeof *bb_header);
  for (size_t b = 0; b < bs.n && bb_loop && bb_header; b++) {   /* as the descriptor says */
    bb_loop[b] = bs.loop_of[b];
    bb_header[b] = bs.loop_of[b] >= 0 && bs.bid_of[bs.inner[bs.loop_of[b]]->header] == b;
  }
  int marks = marks_blocks(&n, &bs);
  body_shape_free(&bs);

  const cgp_loop *t = n.mapped[n.dims - 1];
  LLVMBasicBlockRef header = cfg->bb[t->header], latch = cfg->bb[t->latch[0]];
  LLVMBasicBlockRef *tblocks = malloc(cfg->n * sizeof *tblocks);
  if (!tblocks || !bb_loop || !bb_header) {
    NEST_ERROR(pc, &n, "kernel '%s': out of memory while instrumenting it", k->name);
    cJSON_free(desc);
    free(fc);
    free(tblocks); free(bb_loop); free(bb_header);
    goto out;
  }
  size_t ntb = 0;
  for (size_t b = 0; b < cfg->n; b++)
    if (t->in[b]) tblocks[ntb++] = cfg->bb[b];

  insert_kernel_hooks(pc, &n, desc);              /* uses the CFG as it was */
  LLVMBasicBlockRef body = split_after_phis(pc, header, n.iv, CGP_MAX_DIMS);
  if (latch == header) latch = body;
  LLVMBasicBlockRef *region = malloc(ntb * sizeof *region), *copy = malloc(ntb * sizeof *copy), clean = NULL;
  size_t nreg = 0;
  if (region && copy) {                          /* the body as the user wrote it */
    region[nreg++] = body;
    for (size_t b = 0; b < ntb; b++)
      if (tblocks[b] != header) region[nreg++] = tblocks[b];
    clean = cgp_clone_clean(pc->ctx, pc->b, region, nreg, pc->f_site, copy);
  }
  free(region);
  insert_mem_hooks(pc, &n);
  for (size_t b = 0; b < ntb; b++) {
    LLVMBasicBlockRef bb = tblocks[b] == header ? body : tblocks[b];
    LLVMPositionBuilderBefore(pc->b, first_non_phi(bb));
    /* Without a clean copy the threads the runtime does not trace run this body too, in any
       thread of the program, while cgp_rt_tracing and cgp_rt_pause are the tracing thread's:
       only cgp_rt_bb, which checks the thread, may then act (loop -1 never matches). */
    int loop = clean ? bb_loop[b] : -1;
    if (marks && clean) {                         /* only the traced thread runs this copy */
      mark_block(pc, b);
      continue;
    }
    LLVMValueRef args[3] = {LLVMConstInt(pc->i32, b, 0), LLVMConstInt(pc->i32, (unsigned long long)loop, 1),
                            LLVMConstInt(pc->i32, (unsigned long long)bb_header[b], 0)};
    LLVMBuildCall2(pc->b, pc->t_bb_inline, pc->f_bb, args, 3, "");
  }
  LLVMBasicBlockRef clean_from;
  LLVMValueRef mode = insert_thread_hook(pc, &n, header, body, clean, latch, &clean_from);
  if (clean && n.step[0] == 1) *made = clean_thread_loop(pc, &n, header, copy, nreg, clean_from, mode);
  /* Folding needs the clean copy: without it every thread of the program runs the instrumented
     body, and the flags the fold tests are the tracing thread's. */
  cgp_fold_hooks hooks = {pc->f_bb, pc->f_flush, pc->t_bb_inline, pc->t_flush, n.iv, CGP_MAX_DIMS};
  for (size_t f = 0; f < nfc && clean; f++)
    cgp_fold_loop(pc->m, pc->b, fc[f], &hooks);
  free(fc);
  free(copy);
  free(tblocks); free(bb_loop); free(bb_header);
  cJSON_free(desc);
  rc = 0;
out:
  free(n.mem);
  free(n.slice);
  cJSON_Delete(n.warnings);
  cJSON_Delete(n.carried);
  cJSON_Delete(n.exits);
  return rc;
}

/* ---- module ------------------------------------------------------------------------------------ */

static int loop_matches(const cgp_loop *l, const cgp_kernel_pragma *k) {
  return l->line == k->for_line && l->col == k->for_col &&
         (!l->file[0] || cgp_pass_same_file(l->file, k->file));
}

/* Instrument every loop in fn that matches k (a kernel function inlined twice has two). */
static int instrument_function(pass_ctx *pc, LLVMValueRef fn, const cgp_kernel_pragma *k, size_t *found) {
  LLVMBasicBlockRef done[64];
  size_t ndone = 0;
  for (;;) {
    cgp_cfg cfg;
    cgp_loop *loops = NULL;
    if (cgp_cfg_build(fn, &cfg) != 0) return -1;
    size_t nl = cgp_cfg_loops(&cfg, pc->md_loop, &loops), hit = nl;
    for (size_t i = 0; i < nl && hit == nl; i++) {
      int seen = 0;
      for (size_t d = 0; d < ndone; d++) seen |= done[d] == cfg.bb[loops[i].header];
      if (!seen && loop_matches(&loops[i], k)) hit = i;
    }
    int rc = 0;
    if (hit < nl) {
      if (ndone < sizeof done / sizeof *done) done[ndone++] = cfg.bb[loops[hit].header];
      LLVMBasicBlockRef made = NULL;
      rc = instrument_nest(pc, k, &cfg, loops, nl, &loops[hit], &made);
      if (made && ndone < sizeof done / sizeof *done) done[ndone++] = made;
      (*found)++;
    }
    cgp_cfg_loops_free(loops, nl);
    cgp_cfg_free(&cfg);
    if (rc != 0) return rc;
    if (hit == nl || ndone == sizeof done / sizeof *done) return 0;
  }
}

/* A marked nest inside another marked nest has no meaning as a CUDA kernel (a kernel inside a
   thread's body): refused with both locations, before anything is instrumented. */
static int refuse_nested(pass_ctx *pc, const cgp_kernel_pragma *k, size_t nk) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(pc->m); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMCountBasicBlocks(fn) == 0) continue;
    cgp_cfg cfg;
    cgp_loop *loops = NULL;
    if (cgp_cfg_build(fn, &cfg) != 0) continue;
    size_t nl = cgp_cfg_loops(&cfg, pc->md_loop, &loops);
    int bad = 0;
    for (size_t a = 0; a < nl && !bad; a++)
      for (size_t i = 0; i < nk && !bad; i++) {
        if (!loop_matches(&loops[a], &k[i])) continue;
        for (size_t b = 0; b < nl && !bad; b++)
          for (size_t j = 0; j < nk && !bad; j++)
            if (b != a && j != i && loop_matches(&loops[b], &k[j]) && loops[a].in[loops[b].header]) {
              msg_add(&pc->err, "%s:%u:%u: error: kernel '%s' is inside kernel '%s' (%s:%u:%u): a marked loop "
                      "nest cannot contain another marked nest (keep one of the two pragmas)",
                      k[j].file, k[j].for_line, k[j].for_col, k[j].name, k[i].name, k[i].file, k[i].for_line,
                      k[i].for_col);
              bad = 1;
            }
      }
    cgp_cfg_loops_free(loops, nl);
    cgp_cfg_free(&cfg);
    if (bad) return -1;
  }
  return 0;
}

int cgp_pass_instrument_module(LLVMModuleRef m, const cgp_kernel_pragma *k, size_t nk,
                               char *err, size_t errlen, char *warn, size_t warnlen) {
  char wdummy[1];
  if (!warn || !warnlen) { warn = wdummy; warnlen = sizeof wdummy; }
  err[0] = '\0';
  warn[0] = '\0';
  pass_ctx pc = {.m = m, .ctx = LLVMGetModuleContext(m), .err = {err, errlen}, .warn = {warn, warnlen}};
  pc.b = LLVMCreateBuilderInContext(pc.ctx);
  pc.td = LLVMGetModuleDataLayout(m);
  pc.i32 = LLVMInt32TypeInContext(pc.ctx);
  pc.i64 = LLVMInt64TypeInContext(pc.ctx);
  pc.i8p = LLVMPointerType(LLVMInt8TypeInContext(pc.ctx), 0);
  pc.voidt = LLVMVoidTypeInContext(pc.ctx);
  pc.md_loop = LLVMGetMDKindIDInContext(pc.ctx, "llvm.loop", 9);
  pc.f_site = LLVMGetNamedFunction(m, CGP_SITE_MARKER);
  declare_hooks(&pc);
  if (refuse_nested(&pc, k, nk) != 0) pc.failed = 1;
  for (size_t i = 0; i < nk && !pc.failed; i++) {
    size_t found = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && !pc.failed; fn = LLVMGetNextFunction(fn)) {
      if (LLVMCountBasicBlocks(fn) == 0 || strncmp(LLVMGetValueName2(fn, &(size_t){0}), "cgp_rt_", 7) == 0)
        continue;
      if (instrument_function(&pc, fn, &k[i], &found) != 0) pc.failed = 1;
    }
    if (!found && !pc.failed) {
      msg_add(&pc.err, "%s:%u:%u: error: kernel '%s': the marked loop is not in the compiled code "
              "(removed as dead code, or folded because it runs exactly once?)",
              k[i].file, k[i].for_line, k[i].for_col, k[i].name);
      pc.failed = 1;
    }
  }
  LLVMDisposeBuilder(pc.b);
  free(pc.src.text);
  free(pc.src.start);
  if (pc.failed) return -1;
  if (pc.f_site) {                /* markers outside marked nests, and of noalias nests */
    LLVMUseRef u;
    while ((u = LLVMGetFirstUse(pc.f_site))) LLVMInstructionEraseFromParent(LLVMGetUser(u));
    LLVMDeleteFunction(pc.f_site);
  }
  if (nk && !LLVMGetNamedGlobal(m, CGP_MARKED_PROGRAM)) {
    LLVMValueRef g = LLVMAddGlobal(m, pc.i32, CGP_MARKED_PROGRAM);
    LLVMSetInitializer(g, LLVMConstInt(pc.i32, 1, 0));
    LLVMSetLinkage(g, LLVMWeakAnyLinkage);
  }
  char *vmsg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &vmsg)) {
    snprintf(err, errlen, "internal error: instrumented module does not verify: %.900s", vmsg ? vmsg : "");
    LLVMDisposeMessage(vmsg);
    return -1;
  }
  LLVMDisposeMessage(vmsg);
  return 0;
}

int cgp_pass_instrument_file(const char *bc_in, const char *bc_out,
                             const cgp_kernel_pragma *k, size_t nk,
                             char *err, size_t errlen, char *warn, size_t warnlen) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(bc_in, &buf, &msg)) {
    snprintf(err, errlen, "%s: cannot read bitcode: %s", bc_in, msg ? msg : "");
    LLVMDisposeMessage(msg);
    return -1;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  int rc = -1;
  if (LLVMParseBitcodeInContext2(ctx, buf, &m)) {
    snprintf(err, errlen, "%s: not valid LLVM bitcode", bc_in);
  } else if (cgp_pass_prepare_module(m, k, nk, err, errlen) == 0 &&
             cgp_pass_instrument_module(m, k, nk, err, errlen, warn, warnlen) == 0) {
    rc = LLVMWriteBitcodeToFile(m, bc_out) == 0 ? 0 : -1;
    if (rc) snprintf(err, errlen, "%s: cannot write bitcode", bc_out);
  }
  if (m) LLVMDisposeModule(m);
  LLVMDisposeMemoryBuffer(buf);
  LLVMContextDispose(ctx);
  return rc;
}
