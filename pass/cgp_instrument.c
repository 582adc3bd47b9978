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
       (cgp_clean_thread_loop), so it vectorizes like the user's loop; where that body holds a
       loop, a loop of chunks in front of it runs four plain threads at a time in a function the
       final compile may unroll and jam (cgp_chunk.c), as gcc's outer-loop vectorizer would;
     - reports each block's sites of the thread body as cgp_rt_mem_block(i32 first, i32 count,
       i8** addr, i8** base)
       (base = the pointer the address is indexed from, so the runtime can place arrays as
       cudaMalloc would), through one guarded flush per block (cgp_insert_mem_hooks);
     - at the top of every thread block: call @cgp_rt_bb(i32 bid);
     - before a load between mapped loops (outside the thread loop):
         call @cgp_rt_hoisted(i32 sid, i8* addr, i8* base)   (charged to each thread of the row);
     - before entering the nest: call @cgp_rt_kernel_begin(i8* descriptor) with a JSON descriptor
       of the kernel (sites, blocks with PTX counts, inner loops, carried scalars, mapping;
       docs/pipeline.md lists the keys), or, when a mapped loop steps by a value known only at run
       time, @cgp_rt_kernel_begin_step(i8* descriptor, i64 sx, i64 sy, i64 sz) with the steps;
     - on every exit from the nest: call @cgp_rt_kernel_end();
     - deletes every marker left (outside marked nests, of noalias nests).
   The hooks' meaning is specified in runtime/cgp_rt.h.

   This file is the driver: cgp_pass_instrument_module finds the marked nests and instrument_nest
   runs the steps on each, in order; each step is a file of its own (cgp_phase2.h
   declares what they share): cgp_mapped.c (the mapped loops), cgp_collect.c and cgp_hazards.c
   (sites, carried scalars, early exits), cgp_skip.c (the latch slice), cgp_shape.c (the body's
   structure), cgp_descriptor.c and cgp_names.c (the descriptor), cgp_hooks.c (the hooks and
   their calls), cgp_thread.c (the thread loop's header, skip path and clean copy), cgp_chunk.c
   (the clean copy's chunks). */
#include "cgp_pass.h"
#include "cgp_phase2.h"
#include "cgp_abi.h"
#include "cgp_clean.h"
#include "cgp_fold.h"
#include "cgp_mark.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one nest -------------------------------------------------------------------------------- */

/* The blocks of the leaf loops of one block, to fold once instrumented (cgp_fold.h). */
static size_t fold_candidates(const nest *n, const body_shape *bs, LLVMBasicBlockRef *fc) {
  size_t nf = 0;
  for (size_t l = 0; l < bs->ninner; l++)
    if (bs->inner[l]->nblocks == 1) fc[nf++] = n->cfg->bb[bs->inner[l]->header];
  return nf;
}

/* 1 if loop metadata `id` asks for vectorization or interleaving (an operand !{"llvm.loop.vectorize.*"
   or !{"llvm.loop.interleave.*"}, as `#pragma omp simd` or `#pragma clang loop vectorize(enable)`
   leave). */
static int asks_vectorizing(LLVMValueRef id) {
  static const char *const hints[] = {"llvm.loop.vectorize.", "llvm.loop.interleave."};
  int asks = 0;
  for (unsigned i = 0; i < LLVMGetMDNodeNumOperands(id) && !asks; i++) {
    LLVMValueRef op = cgp_md_operand(id, i);
    unsigned len = 0;                             /* a hint: its name, then its values */
    const char *name = op && op != id && LLVMIsAMDNode(op) ? cgp_md_string(op, 0, &len) : NULL;
    for (int h = 0; h < 2 && name; h++) asks |= len > strlen(hints[h]) && !strncmp(name, hints[h], strlen(hints[h]));
  }
  return asks;
}

/* A loop of the instrumented body whose !llvm.loop asks for vectorization loses it: a hook call in
   every block keeps the loop scalar, so the request would fail there and clang-14 would warn of it
   ("loop not vectorized: the optimizer was unable to perform the requested transformation"), about
   calls the user never wrote. The clean copy, cloned before, keeps it. The header's terminator is
   the body's since the split (cgp_split_after_phis). */
static void drop_vectorizing(LLVMBasicBlockRef *blocks, size_t n, LLVMBasicBlockRef header, LLVMBasicBlockRef body,
                             unsigned md_loop) {
  for (size_t b = 0; b < n; b++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(blocks[b] == header ? body : blocks[b]);
    LLVMValueRef id = term ? LLVMGetMetadata(term, md_loop) : NULL;
    if (id && asks_vectorizing(id)) LLVMSetMetadata(term, md_loop, NULL);
  }
}

/* *made: the header of the loop the clean copy became (cgp_clean_thread_loop), or NULL: a copy of
   the marked loop itself for a 1-D nest, not to be taken for another instance of it. */
static int instrument_nest(pass_ctx *pc, const cgp_kernel_pragma *k, const cgp_cfg *cfg,
                           cgp_loop *loops, size_t nl, cgp_loop *l0, LLVMBasicBlockRef *made) {
  nest n = {.k = k, .cfg = cfg, .warnings = cJSON_CreateArray(), .carried = cJSON_CreateArray(),
           .exits = cJSON_CreateArray(), .call_args = cJSON_CreateArray()};
  int rc = -1;
  if (cgp_choose_mapped_loops(pc, &n, loops, nl, l0) != 0) goto out;
  for (unsigned d = 0; d < n.dims; d++) {
    const cgp_loop *l = n.mapped[n.dims - 1 - d];
    n.iv[d] = cgp_induction_variable(cfg, l, &n.step[d], n.mapped[0], &n.run_step[d]);
    n.extent[d] = n.iv[d] && n.step[d] == 1 ? cgp_mapped_extent(cfg, l, n.iv[d]) : 0;
    if (!n.iv[d]) {
      NEST_ERROR(pc, &n, "kernel '%s': the mapped loop at line %u:%u has no integer induction "
                 "variable (a thread index must be an integer counter stepped by the same amount every "
                 "iteration, a constant or a value fixed before the nest: is the counter also changed in the "
                 "body, or stepped by a value the nest computes?)",
                 k->name, l->line, l->col);
      goto out;
    }
  }
  n.may_alias = cgp_reading_may_alias(pc, &n);
  cgp_collect_body(pc, &n);
  cgp_decide_skip(&n);
  body_shape bs;
  cgp_body_shape_build(&n, loops, nl, &bs);
  if (k->tile && cgp_tile_loop(cfg, &bs, k->tile) < 0) {
    NEST_ERROR(pc, &n, "kernel '%s': tile(%u) names no loop: no loop inside the nest steps its counter by %u "
               "(write the tile loop as `for (kk = 0; kk < N; kk += %u)` around the loop over one tile)",
               k->name, k->tile, k->tile, k->tile);
    cgp_body_shape_free(&bs);
    goto out;
  }
  char *desc = cgp_descriptor(pc, &n, &bs);
  LLVMBasicBlockRef *fc = malloc((bs.ninner + 1) * sizeof *fc);
  size_t nfc = fc ? fold_candidates(&n, &bs, fc) : 0;
  int *bb_loop = malloc((bs.n + 1) * sizeof *bb_loop), *bb_header = malloc((bs.n + 1) * sizeof *bb_header);
  for (size_t b = 0; b < bs.n && bb_loop && bb_header; b++) {   /* as the descriptor says */
    bb_loop[b] = bs.loop_of[b];
    bb_header[b] = bs.loop_of[b] >= 0 && bs.bid_of[bs.inner[bs.loop_of[b]]->header] == b;
  }
  int marks = cgp_marks_blocks(&n, &bs), has_loop = bs.ninner > 0;
  cgp_body_shape_free(&bs);

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

  cgp_insert_kernel_hooks(pc, &n, desc);              /* uses the CFG as it was */
  LLVMBasicBlockRef body = cgp_split_after_phis(pc, header, n.iv, CGP_MAX_DIMS);
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
  drop_vectorizing(tblocks, ntb, header, body, pc->md_loop);
  cgp_insert_mem_hooks(pc, &n);
  for (size_t b = 0; b < ntb; b++) {
    LLVMBasicBlockRef bb = tblocks[b] == header ? body : tblocks[b];
    LLVMPositionBuilderBefore(pc->b, cgp_first_non_phi(bb));
    /* Without a clean copy the threads the runtime does not trace run this body too, in any
       thread of the program, while cgp_rt_tracing and cgp_rt_pause are the tracing thread's:
       only cgp_rt_bb, which checks the thread, may then act (loop -1 never matches). */
    int loop = clean ? bb_loop[b] : -1;
    if (marks && clean) {                         /* only the traced thread runs this copy */
      cgp_mark_block(pc, b);
      continue;
    }
    LLVMValueRef args[3] = {LLVMConstInt(pc->i32, b, 0), LLVMConstInt(pc->i32, (unsigned long long)loop, 1),
                            LLVMConstInt(pc->i32, (unsigned long long)bb_header[b], 0)};
    LLVMBuildCall2(pc->b, pc->t_bb_inline, pc->f_bb, args, 3, "");
  }
  LLVMBasicBlockRef clean_from;
  LLVMValueRef mode = cgp_insert_thread_hook(pc, &n, header, body, clean, latch, &clean_from);
  clean_loop cl = {0};
  if (clean && n.step[0] == 1) *made = cgp_clean_thread_loop(pc, &n, header, copy, nreg, clean_from, mode, &cl);
  if (has_loop && pc->chunk) cgp_chunk_clean_loop(pc, &n, &cl, copy, nreg);
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
  cJSON_Delete(n.call_args);
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
              cgp_msg_add(&pc->err, "%s:%u:%u: error: kernel '%s' is inside kernel '%s' (%s:%u:%u): a marked loop "
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
  const char *chunk = getenv("CGPREDICT_CHUNK");   /* 0: no chunk functions (cgp_chunk.c), to compare */
  pc.chunk = !(chunk && !strcmp(chunk, "0"));
  if (chunk && strcmp(chunk, "0") && strcmp(chunk, "1")) {
    cgp_msg_add(&pc.err, "cgpredict: CGPREDICT_CHUNK is '%.40s': give 0 (no chunk functions) or 1 (the default)\n", chunk);
    pc.failed = 1;
  }
  pc.f_site = LLVMGetNamedFunction(m, CGP_SITE_MARKER);
  cgp_declare_hooks(&pc);
  if (!pc.failed && refuse_nested(&pc, k, nk) != 0) pc.failed = 1;
  for (size_t i = 0; i < nk && !pc.failed; i++) {
    size_t found = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && !pc.failed; fn = LLVMGetNextFunction(fn)) {
      if (LLVMCountBasicBlocks(fn) == 0 || strncmp(LLVMGetValueName2(fn, &(size_t){0}), "cgp_rt_", 7) == 0)
        continue;
      if (instrument_function(&pc, fn, &k[i], &found) != 0) pc.failed = 1;
    }
    /* a warning, not an error: the program is valid and builds as a plain compiler builds it
       (TSVC's s176 at iterations = 1000 runs its time-step loop 4 * (1000 / 32000) = 0 times, and
       the whole file of 107 marked loops failed to build); it just never launches this kernel */
    if (!found && !pc.failed)
      cgp_msg_add(&pc.warn, "%s:%u:%u: warning: kernel '%s': the marked loop is not in the compiled code, so it is "
              "neither instrumented nor predicted: the compiler removed it as dead code (it never runs here), "
              "or folded it because it runs exactly once (a kernel of one thread: give it a trip count the "
              "compiler cannot see)",
              k[i].file, k[i].for_line, k[i].for_col, k[i].name);
  }
  if (!pc.failed) cgp_sink_site_stores(&pc);
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
