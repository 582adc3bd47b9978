/* cgp_collect.c: what a nest holds: its reading (may_alias or noalias), the memory sites of the
   thread body block by block, the loads hoisted between mapped loops, and the warnings about calls
   and stores it cannot trace; then its hazards (cgp_hazards.c). Uses cgp_sites.c and
   cgp_messages.c. */
#include "cgp_phase2.h"
#include "cgp_mark.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        if (cgp_site_kind(pc, n, i, &kind) && kind == CGP_SITE_LOAD) {
          add_site(n, cap, i, kind, -1, 0);
        } else if ((cgp_site_kind(pc, n, i, &kind)) || cgp_is_real_call(i)) {
          cgp_nest_warn(pc, n, i, 0, "a store or call between mapped loops runs outside "
                    "any thread and is not traced");
        }
      }
    }
}

/* Is name one of the strings of arr? */
static int has_string(const cJSON *arr, const char *name) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr)
    if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return 1;
  return 0;
}

/* The arrays (named by their base: a global, a local, an argument) an untraced call i receives
   pointers into, into n->call_args once each and, once each and comma-separated, into out ("" if
   none). */
static void call_arrays(nest *n, LLVMValueRef i, char *out, size_t cap) {
  cJSON *here = cJSON_CreateArray();             /* this call's */
  for (unsigned a = 0; here && a + 1 < (unsigned)LLVMGetNumOperands(i); a++) {   /* (the last is the callee) */
    LLVMValueRef v = LLVMGetOperand(i, a);
    if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMPointerTypeKind) continue;
    LLVMValueRef base = cgp_pass_underlying_base(v);
    size_t len = 0;
    const char *nm = base ? LLVMGetValueName2(base, &len) : NULL;
    if (!nm || !len || len > 200) continue;
    char name[208];
    if (LLVMIsAGlobalValue(base)) cgp_global_name(LLVMGetGlobalParent(base), base, name, sizeof name);
    else snprintf(name, sizeof name, "%.*s", (int)len, nm);
    if (!has_string(n->call_args, name)) cJSON_AddItemToArray(n->call_args, cJSON_CreateString(name));
    if (!has_string(here, name)) cJSON_AddItemToArray(here, cJSON_CreateString(name));
  }
  size_t used = 0;
  out[0] = '\0';
  const cJSON *e;
  cJSON_ArrayForEach(e, here) {
    int w = snprintf(out + used, cap - used, "%s%s", used ? ", " : "", e->valuestring);
    if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
  }
  cJSON_Delete(here);
}

/* i calls llvm.memcpy, llvm.memmove, llvm.memset or another llvm.mem* intrinsic: memory no site
   stands for. */
static int memory_intrinsic(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t len = 0;
  const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
  return strncmp(name, "llvm.mem", 8) == 0;
}

/* The allocation site i reads or writes (cgp_allocation_of, or a global variable), NULL if not
   known. */
static LLVMValueRef site_allocation(const pass_ctx *pc, LLVMValueRef i) {
  LLVMValueRef ptr, base;
  cgp_site_pointers(pc, i, &ptr, &base);
  if (LLVMIsAGlobalVariable(base)) return base;
  return cgp_allocation_of(base);
}

unsigned char *cgp_unwritten_sites(const pass_ctx *pc, const nest *n) {
  unsigned char *un = calloc(n->nmem ? n->nmem : 1, 1);
  LLVMValueRef *alloc = malloc((n->nmem ? n->nmem : 1) * sizeof *alloc);
  if (!un || !alloc) { free(un); free(alloc); return NULL; }
  int closed = !n->opaque_memory && cJSON_GetArraySize(n->call_args) == 0;
  for (size_t s = 0; closed && s < n->nmem; s++)
    if (!(alloc[s] = site_allocation(pc, n->mem[s].inst))) closed = 0;
  for (size_t s = 0; closed && s < n->nmem; s++) {
    if (n->mem[s].kind != CGP_SITE_LOAD) continue;
    int written = 0;
    for (size_t w = 0; w < n->nmem && !written; w++)
      written = n->mem[w].kind != CGP_SITE_LOAD && alloc[w] == alloc[s];
    un[s] = (unsigned char)!written;
  }
  free(alloc);
  return un;
}

void cgp_collect_body(pass_ctx *pc, nest *n) {
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
      if (cgp_site_kind(pc, n, i, &kind)) {
        add_site(n, &cap, i, kind, bid, order++);
      } else if (memory_intrinsic(i)) {
        n->opaque_memory = 1;
      } else if (cgp_is_real_call(i)) {
        LLVMValueRef callee = LLVMGetCalledValue(i);
        char name[256] = "(indirect)";
        if (LLVMIsAFunction(callee)) cgp_function_name(callee, name, sizeof name);
        int c = 0;
        cgp_pass_ptx_cost(i, &c);
        if (cgp_pass_call_is_sequence(i))
          cgp_nest_warn(pc, n, i, 0, "call to %s inside the thread body: no memory, but CUDA's "
                        "device %s is a sequence of instructions, counted here as one (its cost is a lower bound)",
                        name, name);
        else if (!c) {
          n->opaque_memory = 1;
          char args[256];
          call_arrays(n, i, args, sizeof args);
          cgp_nest_warn(pc, n, i, 0, "call to %s inside the thread body: its memory "
                    "accesses are not traced (cgpredict inlines the functions the marked file defines, "
                    "as nvcc inlines __device__ functions; define it there, or it cannot be inlined: "
                    "variadic, recursive or indirect)%s%s%s", name, args[0] ? "; it is given " : "", args,
                    args[0] ? ", which it may write: no shared-memory tile is offered for them" : "");
        }
      }
    }
    bid++;
  }
  n->nthread_mem = n->nmem;
  collect_hoisted(pc, n, &cap);
  cgp_collect_carried(pc, n);
  cgp_collect_exits(pc, n);
}

/* The reading of a nest: noalias when the pragma says so, when the module was not prepared
   (only the compiled accesses exist), or when every site's base is a `noalias` (C `restrict`)
   argument; else may_alias, the CUDA reading of pointer arguments. */
int cgp_reading_may_alias(pass_ctx *pc, const nest *n) {
  if (!pc->f_site || n->k->noalias) return 0;
  const cgp_cfg *cfg = n->cfg;
  size_t sites = 0;
  for (size_t b = 0; b < cfg->n; b++) {
    if (!n->mapped[0]->in[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      if (!cgp_is_marker(pc, i)) continue;
      sites++;
      LLVMValueRef base = LLVMGetOperand(i, 1);
      while (LLVMIsABitCastInst(base) || (LLVMIsAConstantExpr(base) && LLVMGetConstOpcode(base) == LLVMBitCast))
        base = LLVMGetOperand(base, 0);
      if (!cgp_is_noalias_argument(base)) return 1;
    }
  }
  return sites == 0;
}
