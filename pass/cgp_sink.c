/* cgp_sink.c: a block's address stores moved into its flush's traced path (docs/pipeline.md,
   "The hooks' cost when nothing is traced").

   cgp_insert_mem_hooks stores each site's address and base into the nest's buffers before the
   site, and the block's cgp.mem.flush (or, in a folded loop, cgp.mem.flush.unless) hands the
   buffers to the runtime while it traces the thread's iteration. The stores ran whatever the
   runtime did: in every iteration a traced thread skips, and in every iteration of a folded loop,
   two stores per site beside the user's code (GESUMMV: 16 a row element, against its 2 loads).
   Once every nest is instrumented (the fold reads the stores to find the sites' addresses), each
   flush whose 2 x count stores lie in its block, before it and after the block's previous flush,
   becomes a call to cgp.mem.flush.v<count>, which takes the values as arguments and stores them
   only on the path that calls the runtime (count up to SINK_MAX_SITES). The runtime reads the
   same buffers with the same contents when it is called, so what it sees is unchanged; a flush
   whose stores are not all found, or of more sites, keeps them (only slower). */
#include "cgp_phase2.h"
#include "cgp_fold.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sites of a block whose stores move, at most: their 2 x count values then stay live to the
   block's end, which a block of a few sites holds in registers; a longer one (a straight-line body
   of thousands of statements, benchmarks/build_time.sh) keeps its stores where they are. */
#define SINK_MAX_SITES 16

/* Is call c a block's flush: cgp.mem.flush (operands first, count, addrs, bases) or, in a folded
   loop, cgp.mem.flush.unless (skip first)? Sets *skip_at to the operand of skip, or -1. */
static int is_flush(LLVMValueRef c, LLVMValueRef flush, LLVMValueRef unless, int *skip_at) {
  if (LLVMGetInstructionOpcode(c) != LLVMCall) return 0;
  LLVMValueRef f = LLVMGetCalledValue(c);
  *skip_at = f == unless && unless ? 0 : -1;
  return f == flush || (f == unless && unless);
}

/* Any flush, a sunk one included: the stores before it are another block's. */
static int ends_group(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef f = LLVMGetCalledValue(i);
  size_t len = 0;
  const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
  return strncmp(name, CGP_SHELL_FLUSH, strlen(CGP_SHELL_FLUSH)) == 0;
}

/* Flush call c, its stores found in its block: the sunk call in its place, the stores removed.
   0 if it was rewritten. */
static int sink_one(pass_ctx *pc, LLVMValueRef c, int skip_at) {
  unsigned o = skip_at >= 0 ? 1 : 0;
  LLVMValueRef cnt = LLVMGetOperand(c, o + 1), addrs = LLVMGetOperand(c, o + 2), bases = LLVMGetOperand(c, o + 3);
  if (!LLVMIsAConstantInt(cnt)) return -1;
  unsigned n = (unsigned)LLVMConstIntGetZExtValue(cnt);
  if (n == 0 || n > SINK_MAX_SITES) return -1;
  LLVMValueRef *st = calloc(2 * (size_t)n, sizeof *st), *args = malloc((4 + 2 * (size_t)n) * sizeof *args);
  int rc = -1;
  if (!st || !args) goto out;
  for (LLVMValueRef i = LLVMGetPreviousInstruction(c); i && !ends_group(i); i = LLVMGetPreviousInstruction(i)) {
    long s = cgp_buffer_slot(i, addrs), t = cgp_buffer_slot(i, bases);
    if (s >= 0 && (unsigned long)s < n && !st[s]) st[s] = i;          /* the last store to it */
    else if (t >= 0 && (unsigned long)t < n && !st[n + t]) st[n + t] = i;
  }
  for (unsigned k = 0; k < 2 * n; k++)
    if (!st[k]) goto out;
  LLVMTypeRef ty;
  LLVMValueRef f = cgp_sunk_flush_shell(pc, n, &ty);
  if (!f) goto out;
  args[0] = skip_at >= 0 ? LLVMGetOperand(c, 0) : LLVMConstInt(LLVMInt1TypeInContext(pc->ctx), 0, 0);
  args[1] = LLVMGetOperand(c, o);
  args[2] = addrs;
  args[3] = bases;
  for (unsigned k = 0; k < 2 * n; k++) args[4 + k] = LLVMGetOperand(st[k], 0);
  LLVMPositionBuilderBefore(pc->b, c);
  LLVMValueRef nc = LLVMBuildCall2(pc->b, ty, f, args, 4 + 2 * n, "");
  LLVMInstructionSetDebugLoc(nc, LLVMInstructionGetDebugLoc(c));
  LLVMInstructionEraseFromParent(c);
  for (unsigned k = 0; k < 2 * n; k++) LLVMInstructionEraseFromParent(st[k]);
  rc = 0;
out:
  free(st);
  free(args);
  return rc;
}

void cgp_sink_site_stores(pass_ctx *pc) {
  LLVMValueRef flush = pc->f_flush, unless = LLVMGetNamedFunction(pc->m, CGP_SHELL_FLUSH_UNLESS);
  if (!flush) return;
  for (LLVMValueRef fn = LLVMGetFirstFunction(pc->m); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        int skip_at;
        if (is_flush(i, flush, unless, &skip_at)) sink_one(pc, i, skip_at);
      }
}
