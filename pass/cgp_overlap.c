/* cgp_overlap.c: which loads of a thread the GPU has in flight together (docs/model.md section
   5e). nvcc unrolls a loop whose trip count it does not know by 4 and ptxas issues the unrolled
   body's loads before their uses, so in a loop that stores nothing, the loads of four iterations
   wait as one. A store in the loop keeps every later load behind it (it may write what the load
   reads), and so does a call that may write memory; a load whose address another load of the
   loop computes (a[idx[j]], p = p->next) waits for that load. */
#include "cgp_overlap.h"

#include <stdlib.h>
#include <string.h>

#include "cgp_pass.h"

/* Does instruction i write memory in the kernel's CUDA stream, or may it? With phase 1's markers
   (marker not NULL: cgp_mark.c), the stream is the markers: one of a store or an atomic writes,
   and a real store is to thread-private memory (a local array, in local memory on the GPU, which
   ptxas knows no global load reads). Without them, the store and atomic instructions. Either way
   a fence, and a call that is not a hook, a debug or lifetime marker or a register-only math
   function. */
static int may_write(LLVMValueRef i, LLVMValueRef marker) {
  if (LLVMIsACallInst(i)) {
    if (marker && LLVMGetCalledValue(i) == marker)
      return LLVMConstIntGetZExtValue(LLVMGetOperand(i, 2)) != 0;
    return !cgp_pass_call_is_register_only(i);
  }
  if (LLVMIsAFenceInst(i)) return 1;
  return !marker && (LLVMIsAStoreInst(i) || LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i));
}

int cgp_overlap_loop_stores(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef marker) {
  for (size_t b = 0; b < cfg->n; b++) {
    if (!l->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i))
      if (may_write(i, marker)) return 1;
  }
  return 0;
}

/* Is a load of loop l among the values v is computed from, inside l? An iterative walk over
   operands (phis included: the address an induction variable steps), bounded by OVERLAP_WALK
   values; a walk cut short answers yes, the cautious answer. */
#define OVERLAP_WALK 512

static int in_loop(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v)) return 0;
  size_t b = cgp_cfg_index(cfg, LLVMGetInstructionParent(v));
  return b < cfg->n && l->in[b];
}

static int computed_from_load(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef v) {
  LLVMValueRef todo[OVERLAP_WALK], seen[OVERLAP_WALK];
  size_t ntodo = 0, nseen = 0;
  todo[ntodo++] = v;
  while (ntodo) {
    LLVMValueRef x = todo[--ntodo];
    if (!in_loop(cfg, l, x)) continue;
    if (LLVMIsALoadInst(x) || LLVMIsACallInst(x)) return 1;
    int dup = 0;
    for (size_t i = 0; i < nseen && !dup; i++) dup = seen[i] == x;
    if (dup) continue;
    if (nseen == OVERLAP_WALK) return 1;
    seen[nseen++] = x;
    int n = LLVMGetNumOperands(x);
    for (int o = 0; o < n; o++) {
      LLVMValueRef op = LLVMGetOperand(x, (unsigned)o);
      if (!in_loop(cfg, l, op)) continue;
      if (ntodo == OVERLAP_WALK) return 1;
      todo[ntodo++] = op;
    }
  }
  return 0;
}

int cgp_overlap_load(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef ptr, LLVMValueRef marker) {
  return l && !cgp_overlap_loop_stores(cfg, l, marker) && !computed_from_load(cfg, l, ptr);
}
