/* cgp_clean.c: the uninstrumented copy of a thread body (cgp_clean.h).

   The copy is made before any hook is inserted, so it is the optimized user code: markers
   (which never reach an object file) and debug-value intrinsics (whose metadata would still
   name the original values) are left out, everything else is cloned instruction by
   instruction and its operands remapped to the copies. Edges leaving the region keep their
   targets; each phi there gets, for every incoming edge from the region, the same edge from
   the copy with the copied value. */
#include "cgp_clean.h"
#include "cgp_ptrmap.h"

#include <llvm-c/DebugInfo.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_skipped_call(LLVMValueRef i, LLVMValueRef marker) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  if (marker && callee == marker) return 1;
  if (!LLVMIsAFunction(callee)) return 0;
  size_t len;
  const char *name = LLVMGetValueName2(callee, &len);
  return len > 9 && strncmp(name, "llvm.dbg.", 9) == 0;
}

/* Every use outside the region of a value defined in it is a phi, on an edge from the region. */
static int region_is_closed(const ptrmap *in, LLVMBasicBlockRef *region, size_t n) {
  for (size_t b = 0; b < n; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(region[b]); i; i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMIndirectBr || op == LLVMCallBr || op == LLVMInvoke) return 0;
      for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user)) return 0;
        if (map_get(in, LLVMGetInstructionParent(user))) continue;
        if (!LLVMIsAPHINode(user)) return 0;
        for (unsigned k = 0; k < LLVMCountIncoming(user); k++)
          if (LLVMGetIncomingValue(user, k) == i && !map_get(in, LLVMGetIncomingBlock(user, k))) return 0;
      }
    }
  return 1;
}

static LLVMValueRef mapped(const ptrmap *m, LLVMValueRef v) {
  LLVMValueRef c = map_get(m, v);
  return c ? c : v;
}

static void patch_outside_phis(const ptrmap *m, LLVMBasicBlockRef out) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(out); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi)) {
    unsigned count = LLVMCountIncoming(phi);
    for (unsigned k = 0; k < count; k++) {
      LLVMBasicBlockRef cf = map_get(m, LLVMGetIncomingBlock(phi, k));   /* its copy, if from the region */
      if (!cf) continue;
      LLVMValueRef v = mapped(m, LLVMGetIncomingValue(phi, k));
      LLVMAddIncoming(phi, &v, &cf, 1);
    }
  }
}

LLVMValueRef cgp_incoming_for(LLVMValueRef phi, LLVMBasicBlockRef from) {
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++)
    if (LLVMGetIncomingBlock(phi, k) == from) return LLVMGetIncomingValue(phi, k);
  return NULL;
}

/* The C API cannot set an incoming block, so each affected phi is rebuilt. */
void cgp_retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef succ, LLVMBasicBlockRef old, LLVMBasicBlockRef new,
                       LLVMValueRef *track, size_t ntrack) {
  LLVMValueRef phi = LLVMGetFirstInstruction(succ);
  while (phi && LLVMIsAPHINode(phi)) {
    LLVMValueRef next = LLVMGetNextInstruction(phi);
    if (cgp_incoming_for(phi, old)) {
      LLVMPositionBuilderBefore(b, phi);
      LLVMValueRef np = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
      for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
        LLVMValueRef v = LLVMGetIncomingValue(phi, k);
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, k);
        if (from == old) from = new;
        LLVMAddIncoming(np, &v, &from, 1);
      }
      LLVMReplaceAllUsesWith(phi, np);
      for (size_t t = 0; t < ntrack; t++)
        if (track[t] == phi) track[t] = np;
      LLVMInstructionEraseFromParent(phi);
    }
    phi = next;
  }
}

void cgp_insert_keeping_loc(LLVMBuilderRef b, LLVMValueRef i) {
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(i);
  LLVMInsertIntoBuilder(b, i);
  LLVMInstructionSetDebugLoc(i, loc);
}

/* The copy itself: blocks named `name` appended to the function, each instruction of the region
   cloned (but markers and llvm.dbg.* calls) and its operands remapped through m, which holds the
   region's blocks already and gets every copy. copy[] receives the copies. */
static void clone_into(LLVMContextRef ctx, LLVMBuilderRef bld, ptrmap *m, LLVMBasicBlockRef *region, size_t n,
                       LLVMValueRef marker, LLVMValueRef fn, const char *name, LLVMBasicBlockRef *copy) {
  for (size_t b = 0; b < n; b++) {
    copy[b] = LLVMAppendBasicBlockInContext(ctx, fn, name);
    map_put(m, region[b], copy[b]);
    map_put(m, LLVMBasicBlockAsValue(region[b]), LLVMBasicBlockAsValue(copy[b]));
  }
  for (size_t b = 0; b < n; b++) {                                      /* copy, operands later */
    LLVMPositionBuilderAtEnd(bld, copy[b]);
    for (LLVMValueRef i = LLVMGetFirstInstruction(region[b]); i; i = LLVMGetNextInstruction(i)) {
      if (is_skipped_call(i, marker)) continue;
      LLVMValueRef c;
      if (LLVMIsAPHINode(i)) {
        c = LLVMBuildPhi(bld, LLVMTypeOf(i), "");
      } else {
        c = LLVMInstructionClone(i);
        cgp_insert_keeping_loc(bld, c);
      }
      map_put(m, i, c);
    }
  }
  for (size_t b = 0; b < n; b++)                                       /* remap operands */
    for (LLVMValueRef i = LLVMGetFirstInstruction(region[b]); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef c = is_skipped_call(i, marker) ? NULL : map_get(m, i);
      if (!c) continue;
      if (LLVMIsAPHINode(i)) {
        for (unsigned k = 0; k < LLVMCountIncoming(i); k++) {
          LLVMValueRef v = mapped(m, LLVMGetIncomingValue(i, k));
          LLVMBasicBlockRef from = map_get(m, LLVMGetIncomingBlock(i, k));
          LLVMAddIncoming(c, &v, &from, 1);
        }
        continue;
      }
      for (int o = 0; o < LLVMGetNumOperands(c); o++) {
        LLVMValueRef v = LLVMGetOperand(c, (unsigned)o);
        LLVMValueRef to = v ? map_get(m, v) : NULL;
        if (to) LLVMSetOperand(c, (unsigned)o, to);
      }
    }
}

LLVMBasicBlockRef cgp_clone_clean(LLVMContextRef ctx, LLVMBuilderRef bld, LLVMBasicBlockRef *region, size_t n,
                                  LLVMValueRef marker, LLVMBasicBlockRef *copy_out) {
  if (n == 0) return NULL;
  size_t insts = 0;
  for (size_t b = 0; b < n; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(region[b]); i; i = LLVMGetNextInstruction(i)) insts++;
  ptrmap m = {0};                                /* region -> copy, of blocks and values */
  LLVMBasicBlockRef entry = NULL;
  if (!ptrmap_init(&m, insts + 2 * n)) goto out;
  for (size_t b = 0; b < n; b++) map_put(&m, region[b], region[b]);      /* membership first */
  if (!region_is_closed(&m, region, n)) goto out;
  LLVMBasicBlockRef *copy = malloc(n * sizeof *copy);
  if (!copy) goto out;
  clone_into(ctx, bld, &m, region, n, marker, LLVMGetBasicBlockParent(region[0]), "cgp.clean", copy);
  /* Phis outside the region, in each block an edge from the region reaches (once per block). */
  for (size_t b = 0; b < n; b++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(region[b]);
    for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
      LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
      if (map_get(&m, succ)) continue;
      int seen = 0;
      for (size_t p = 0; p < b && !seen; p++) {
        LLVMValueRef pt = LLVMGetBasicBlockTerminator(region[p]);
        for (unsigned q = 0; pt && q < LLVMGetNumSuccessors(pt) && !seen; q++) seen = LLVMGetSuccessor(pt, q) == succ;
      }
      for (unsigned q = 0; q < s && !seen; q++) seen = LLVMGetSuccessor(term, q) == succ;
      if (!seen) patch_outside_phis(&m, succ);
    }
  }
  entry = copy[0];
  if (copy_out) memcpy(copy_out, copy, n * sizeof *copy);
  free(copy);
out:
  ptrmap_free(&m);
  return entry;
}

int cgp_clone_open(LLVMContextRef ctx, LLVMBuilderRef bld, LLVMBasicBlockRef *region, size_t n, LLVMValueRef fn,
                   const LLVMValueRef *old, const LLVMValueRef *new, size_t nold, LLVMBasicBlockRef *copy) {
  size_t insts = 0;
  for (size_t b = 0; b < n; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(region[b]); i; i = LLVMGetNextInstruction(i)) insts++;
  ptrmap m = {0};
  if (n == 0 || !ptrmap_init(&m, insts + 2 * n + nold)) {
    ptrmap_free(&m);
    return 0;
  }
  for (size_t k = 0; k < nold; k++) map_put(&m, old[k], new[k]);
  clone_into(ctx, bld, &m, region, n, NULL, fn, "cgp.chunk", copy);
  ptrmap_free(&m);
  return 1;
}
