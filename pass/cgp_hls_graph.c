/* cgp_hls_graph.c: one loop's dependence graph for the FPGA core (docs/model.md 11.9).

   Each loop of a marked nest gets the graph of its own operations (the instructions of its blocks
   that belong to none of its nested loops), in program order (blocks in layout order):

   - kinds: fadd, fsub, fmul, fdiv, fcmp (float/double); add, sub, mul, div/rem, shift, and/or/xor
     (logic), icmp, select (int, the value's width); load and store (mem, the accessed width) with
     their array; sitofp, fptosi; llvm.fmuladd is an fmul and an fadd (HLS does not fuse them:
     the driver compiles with -ffp-contract=off, this is for IR that has it anyway); llvm.fabs
     and fneg are logic (a sign bit).
   - free (wires, no node): sext, zext, trunc, bitcasts, a multiply or shift by a constant power of
     two (an HLS address is an index, i * 128 is a wiring of i), a phi with one incoming value
     (LCSSA), a header phi (a register), a GEP with one varying term (the array's address is that
     index). A GEP adds one add per varying term past the first. Phis of other blocks are a
     select (a multiplexer). Branches, debug and lifetime intrinsics: nothing.
   - edges: SSA def-use at distance 0; a use of a header phi is a use of its value from the latch,
     one iteration earlier (distance + 1); through memory by the static rule of 11.9.

   cgp_hls_ops.c calls cgp_hls_build_loop for each loop of the nest; this file calls
   cgp_hls_affine.c for each access's element. */
#include "cgp_hls_ops.h"
#include "cgp_hls_internal.h"

#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_cfg.h"
#include "cgp_mark.h"

typedef struct {
  int node;
  unsigned dist;
} producer;

static int in_loop(const builder *b, LLVMValueRef v) {
  if (!v || !LLVMIsAInstruction(v)) return 0;
  size_t i = cgp_cfg_index(b->cfg, LLVMGetInstructionParent(v));
  return i < b->cfg->n && b->l->in[i];
}

static int is_own(const builder *b, LLVMValueRef v) {
  if (!v || !LLVMIsAInstruction(v)) return 0;
  size_t i = cgp_cfg_index(b->cfg, LLVMGetInstructionParent(v));
  return i < b->cfg->n && b->own[i];
}

static inst_rec *find_rec(const builder *b, LLVMValueRef v) {
  for (size_t i = 0; i < b->n_rec; i++)
    if (b->rec[i].inst == v) return &b->rec[i];
  return NULL;
}

static int pow2_const(LLVMValueRef v) {
  if (!LLVMIsAConstantInt(v)) return 0;
  unsigned long long x = LLVMConstIntGetZExtValue(v);
  return x && !(x & (x - 1));
}

static int is_header_phi(const builder *b, LLVMValueRef v) {
  return LLVMIsAPHINode(v) && cgp_cfg_index(b->cfg, LLVMGetInstructionParent(v)) == b->l->header;
}

/* The one incoming value of a phi whose incoming values are all the same, else NULL. */
static LLVMValueRef single_incoming(LLVMValueRef phi) {
  unsigned n = LLVMCountIncoming(phi);
  LLVMValueRef v = n ? LLVMGetIncomingValue(phi, 0) : NULL;
  for (unsigned i = 1; i < n; i++)
    if (LLVMGetIncomingValue(phi, i) != v) return NULL;
  return v;
}

static const char *callee_name(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  size_t len = 0;
  return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
}

/* Operands of an instruction that carry values into it (for GEPs: the varying terms). */
static unsigned value_operands(const builder *b, LLVMValueRef i, LLVMValueRef *ops, unsigned cap) {
  unsigned n = 0, no = (unsigned)LLVMGetNumOperands(i);
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op == LLVMCall) no = no ? no - 1 : 0; /* the callee is the last operand */
  for (unsigned o = 0; o < no && n < cap; o++) {
    LLVMValueRef v = LLVMGetOperand(i, o);
    /* a GEP's terms: its varying base and its non-constant indices (an invariant index is a term:
       it is added every iteration, though nothing in the loop produces it) */
    if (op == LLVMGetElementPtr && (o == 0 ? !in_loop(b, v) : LLVMIsConstant(v))) continue;
    if (op == LLVMStore && o == 1 && !in_loop(b, v)) continue;
    ops[n++] = v;
  }
  return n;
}

/* The node producing v as the loop's graph sees it, with the iterations it is carried over. */
static producer producer_of(const builder *b, LLVMValueRef v, unsigned depth) {
  producer none = {-1, 0};
  if (depth > 64 || !is_own(b, v)) return none;
  inst_rec *r = find_rec(b, v);
  if (r && r->last >= 0) return (producer){r->last, 0};
  if (LLVMIsAPHINode(v)) {
    if (is_header_phi(b, v)) {
      for (unsigned i = 0; i < LLVMCountIncoming(v); i++) {
        size_t from = cgp_cfg_index(b->cfg, LLVMGetIncomingBlock(v, i));
        if (from < b->cfg->n && b->l->in[from]) {
          producer p = producer_of(b, LLVMGetIncomingValue(v, i), depth + 1);
          if (p.node >= 0) p.dist++;
          return p;
        }
      }
      return none;
    }
    LLVMValueRef s = single_incoming(v);
    return s ? producer_of(b, s, depth + 1) : none;
  }
  /* free: a cast, a constant multiply/shift, a GEP with one term: the producer of its varying operand */
  LLVMValueRef ops[8];
  unsigned n = value_operands(b, v, ops, 8);
  for (unsigned i = 0; i < n; i++) {
    if (LLVMIsConstant(ops[i])) continue;
    producer p = producer_of(b, ops[i], depth + 1);
    if (p.node >= 0) return p;
  }
  return none;
}

static int fail_at(builder *b, LLVMValueRef i, const char *fmt, const char *what) {
  unsigned line = LLVMGetDebugLocLine(i), col = LLVMGetDebugLocColumn(i);
  char msg[512];
  snprintf(msg, sizeof msg, fmt, what);
  snprintf(b->err, b->errlen, "%s:%u:%u: error: kernel '%s': %s", b->k->file, line ? line : b->k->for_line,
           line ? col : b->k->for_col, b->k->name, msg);
  return -1;
}

static int array_of(builder *b, LLVMValueRef ptr, unsigned width_bits) {
  LLVMValueRef base = cgp_pass_underlying_base(ptr);
  cgp_hls_nest *n = b->nest;
  for (unsigned i = 0; i < n->n_arrays; i++)
    if (n->arrays[i].base == base) return (int)i;
  cgp_hls_array *bigger = realloc(n->arrays, (n->n_arrays + 1) * sizeof *bigger);
  if (!bigger) return -1;
  n->arrays = bigger;
  cgp_hls_array *a = &n->arrays[n->n_arrays];
  memset(a, 0, sizeof *a);
  a->base = base;
  a->width_bits = width_bits;
  size_t len = 0;
  const char *name = LLVMGetValueName2(base, &len);
  snprintf(a->name, sizeof a->name, "%s", len ? name : "(unnamed)");
  /* a global or local array: its size is in its type */
  LLVMTypeRef t = NULL;
  if (LLVMIsAGlobalVariable(base)) t = LLVMGlobalGetValueType(base);
  else if (LLVMIsAAllocaInst(base)) t = LLVMGetAllocatedType(base);
  if (t && LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
    uint64_t e = 1;
    while (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
      e *= LLVMGetArrayLength(t);
      if (a->ndims < CGP_FPGA_MAX_DIMS) a->dims[a->ndims++] = LLVMGetArrayLength(t);
      t = LLVMGetElementType(t);
    }
    a->elems = e;
  } else { /* a pointer: its inner dimensions from the type its GEP indexes, the outermost unknown */
    uint64_t inner[CGP_FPGA_MAX_DIMS];
    unsigned k = cgp_hls_inner_dims(ptr, inner, CGP_FPGA_MAX_DIMS - 1);
    a->ndims = k + 1;
    for (unsigned i = 0; i < k; i++) a->dims[i + 1] = inner[i];
  }
  return (int)n->n_arrays++;
}

static unsigned bits_of(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: return 16;
  case LLVMFloatTypeKind: return 32;
  case LLVMDoubleTypeKind: return 64;
  case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(t);
  case LLVMPointerTypeKind: return 64;
  default: return 32;
  }
}

static int is_fp(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMHalfTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
}

static int add_node(builder *b, LLVMValueRef i, cgp_fpga_opkind op, cgp_fpga_type type, unsigned width, int array) {
  cgp_fpga_ddg *g = &b->hl->ddg;
  int v = cgp_fpga_ddg_add(g, op, type, width, array, 0);
  if (v < 0) return -1;
  unsigned *lines = realloc(b->hl->line_of, g->n_nodes * sizeof *lines);
  if (!lines) return -1;
  b->hl->line_of = lines;
  lines[v] = LLVMGetDebugLocLine(i);
  cgp_fpga_access *acc = realloc(b->hl->acc, g->n_nodes * sizeof *acc);
  if (!acc) return -1;
  b->hl->acc = acc;
  memset(&acc[v], 0, sizeof acc[v]);
  return v;
}

/* The nodes of one instruction (pass 1). */
static int nodes_of(builder *b, LLVMValueRef i, inst_rec *r) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  LLVMTypeRef t = LLVMTypeOf(i);
  unsigned w = bits_of(t);
  cgp_fpga_type ft = is_fp(t) ? CGP_FTYPE_FLOAT : CGP_FTYPE_INT;
  int k = -1, k2 = -1;
  r->first = r->last = -1;
  r->mem = -1;
  switch (op) {
  case LLVMFAdd: k = CGP_FOP_FADD; break;
  case LLVMFSub: k = CGP_FOP_FSUB; break;
  case LLVMFMul: k = CGP_FOP_FMUL; break;
  case LLVMFDiv: case LLVMFRem: k = CGP_FOP_FDIV; break;
  case LLVMFCmp: k = CGP_FOP_FCMP; ft = CGP_FTYPE_FLOAT; w = bits_of(LLVMTypeOf(LLVMGetOperand(i, 0))); break;
  case LLVMFNeg: k = CGP_FOP_LOGIC; ft = CGP_FTYPE_INT; break;
  case LLVMAdd: k = CGP_FOP_ADD; break;
  case LLVMSub: k = CGP_FOP_SUB; break;
  case LLVMMul:
    if (pow2_const(LLVMGetOperand(i, 0)) || pow2_const(LLVMGetOperand(i, 1))) return 0;
    k = CGP_FOP_MUL;
    break;
  case LLVMShl: case LLVMLShr: case LLVMAShr:
    if (LLVMIsAConstantInt(LLVMGetOperand(i, 1))) return 0;
    k = CGP_FOP_SHIFT;
    break;
  case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem: k = CGP_FOP_DIV; break;
  case LLVMAnd: case LLVMOr: case LLVMXor: k = CGP_FOP_LOGIC; break;
  case LLVMICmp: k = CGP_FOP_ICMP; w = bits_of(LLVMTypeOf(LLVMGetOperand(i, 0))); break;
  case LLVMSelect: k = CGP_FOP_SELECT; ft = CGP_FTYPE_INT; break;
  case LLVMSIToFP: case LLVMUIToFP: k = CGP_FOP_SITOFP; ft = CGP_FTYPE_FLOAT; break;
  case LLVMFPToSI: case LLVMFPToUI: k = CGP_FOP_FPTOSI; ft = CGP_FTYPE_FLOAT; break;
  case LLVMFPExt: case LLVMFPTrunc: k = CGP_FOP_CAST; ft = CGP_FTYPE_INT; break;
  case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMBitCast: case LLVMPtrToInt: case LLVMIntToPtr:
  case LLVMAddrSpaceCast: case LLVMFreeze: case LLVMBr: case LLVMSwitch: case LLVMUnreachable: case LLVMRet:
    return 0;
  case LLVMPHI:
    if (is_header_phi(b, i) || single_incoming(i)) return 0;
    k = CGP_FOP_SELECT;
    ft = CGP_FTYPE_INT;
    break;
  case LLVMGetElementPtr: {
    LLVMValueRef ops[16];
    unsigned terms = value_operands(b, i, ops, 16);
    for (unsigned t2 = 1; t2 < terms; t2++) {
      int v = add_node(b, i, CGP_FOP_ADD, CGP_FTYPE_INT, 32, CGP_FPGA_NO_ARRAY);
      if (v < 0) return -1;
      if (r->first < 0) r->first = v;
      r->last = v;
    }
    return 0;
  }
  case LLVMLoad: case LLVMStore: {
    LLVMValueRef ptr = LLVMGetOperand(i, op == LLVMLoad ? 0 : 1);
    unsigned bits = bits_of(op == LLVMLoad ? t : LLVMTypeOf(LLVMGetOperand(i, 0)));
    int a = array_of(b, ptr, bits);
    if (a < 0) return -1;
    int v = add_node(b, i, op == LLVMLoad ? CGP_FOP_LOAD : CGP_FOP_STORE, CGP_FTYPE_MEM, bits, a);
    if (v < 0) return -1;
    cgp_hls_access(b->cfg, b->nest_loops, b->n_nest, ptr, bits, &b->hl->acc[v]);
    r->first = r->last = v;
    r->mem = a;
    return 0;
  }
  case LLVMCall: {
    const char *name = callee_name(i);
    if (!strncmp(name, "llvm.dbg.", 9) || !strncmp(name, "llvm.lifetime.", 14) || !strcmp(name, "llvm.assume"))
      return 0;
    if (!strncmp(name, "llvm.fmuladd.", 13) || !strncmp(name, "llvm.fma.", 9)) {
      k = CGP_FOP_FMUL;
      k2 = CGP_FOP_FADD;
      break;
    }
    if (!strncmp(name, "llvm.fabs.", 10)) { k = CGP_FOP_LOGIC; ft = CGP_FTYPE_INT; break; }
    return fail_at(b, i, "a call to '%s' has no operation in the FPGA operator table (inline it, or write it "
                         "with + - * /)", *name ? name : "(indirect)");
  }
  default: {
    char what[64];
    snprintf(what, sizeof what, "%s", LLVMIsAInstruction(i) ? "this instruction" : "?");
    return fail_at(b, i, "%s has no operation in the FPGA operator table", what);
  }
  }
  int v = add_node(b, i, (cgp_fpga_opkind)k, ft, w, CGP_FPGA_NO_ARRAY);
  if (v < 0) return -1;
  r->first = r->last = v;
  /* i + constant feeding this loop's header phi i: the induction update */
  if (op == LLVMAdd && LLVMIsAConstantInt(LLVMGetOperand(i, 1)) && is_header_phi(b, LLVMGetOperand(i, 0))) {
    LLVMValueRef phi = LLVMGetOperand(i, 0);
    for (unsigned j = 0; j < LLVMCountIncoming(phi); j++)
      if (LLVMGetIncomingValue(phi, j) == i) b->hl->ddg.nodes[v].induction = 1;
  }
  if (k2 >= 0) {
    if ((r->last = add_node(b, i, (cgp_fpga_opkind)k2, ft, w, CGP_FPGA_NO_ARRAY)) < 0) return -1;
  }
  return 0;
}

static int edge(builder *b, producer p, int to, int memory) {
  if (p.node < 0 || to < 0) return 0;
  if (p.dist == 0 && p.node >= to) return 0; /* a value from later in the window: not a use in program order */
  cgp_fpga_ddg *g = &b->hl->ddg;
  for (unsigned e = 0; e < g->n_edges; e++)
    if (g->edges[e].from == (unsigned)p.node && g->edges[e].to == (unsigned)to && g->edges[e].distance == p.dist)
      return 0;
  return cgp_fpga_ddg_edge(g, (unsigned)p.node, (unsigned)to, p.dist, memory);
}

/* SSA edges of one instruction (pass 2). */
static int value_edges(builder *b, const inst_rec *r) {
  if (r->first < 0) return 0;
  LLVMValueRef i = r->inst;
  LLVMValueRef ops[16];
  unsigned n;
  if (LLVMIsAPHINode(i)) {
    n = 0;
    for (unsigned j = 0; j < LLVMCountIncoming(i) && n < 16; j++) ops[n++] = LLVMGetIncomingValue(i, j);
  } else {
    n = value_operands(b, i, ops, 16);
  }
  int fused = LLVMGetInstructionOpcode(i) == LLVMCall && r->last != r->first; /* fmuladd: op 2 feeds the add */
  int gep = LLVMGetInstructionOpcode(i) == LLVMGetElementPtr;
  for (unsigned j = 0; j < n; j++) {
    int to = r->first;
    if (fused && j == 2) to = r->last;
    if (gep && j >= 2) to = r->first + (int)j - 1; /* term j joins at the (j-1)-th add */
    if (edge(b, producer_of(b, ops[j], 0), to, 0)) return -1;
  }
  for (int v = r->first; v < r->last; v++)
    if (cgp_fpga_ddg_edge(&b->hl->ddg, (unsigned)v, (unsigned)v + 1, 0, 0)) return -1;
  return 0;
}

/* The address as the static rule compares it: the pointer without casts. */
static LLVMValueRef address_key(LLVMValueRef ptr) {
  while (LLVMIsABitCastInst(ptr) || LLVMIsAAddrSpaceCastInst(ptr)) ptr = LLVMGetOperand(ptr, 0);
  return ptr;
}

/* Does the value depend, within the loop's own operations, on a load (a data-dependent address)? */
static int data_dependent(const builder *b, LLVMValueRef v, unsigned depth) {
  if (depth > 32 || !is_own(b, v)) return 0;
  if (LLVMIsALoadInst(v)) return 1;
  if (LLVMIsAPHINode(v)) return 0; /* an induction variable or a recurrence, not an index read from memory */
  int n = LLVMGetNumOperands(v);
  for (int o = 0; o < n; o++)
    if (data_dependent(b, LLVMGetOperand(v, (unsigned)o), depth + 1)) return 1;
  return 0;
}

/* Memory edges by the static rule (docs/model.md 11.9). */
static int memory_edges(builder *b) {
  for (size_t x = 0; x < b->n_rec; x++) {
    inst_rec *r = &b->rec[x];
    if (r->mem < 0) continue;
    int load = LLVMIsALoadInst(r->inst) != NULL;
    LLVMValueRef key = address_key(LLVMGetOperand(r->inst, load ? 0 : 1));
    if (load) { /* the last store before it to the same address */
      for (size_t y = x; y-- > 0;) {
        inst_rec *s = &b->rec[y];
        if (s->mem == r->mem && LLVMIsAStoreInst(s->inst) && address_key(LLVMGetOperand(s->inst, 1)) == key) {
          if (edge(b, (producer){s->first, 0}, r->first, 1)) return -1;
          break;
        }
      }
      continue;
    }
    /* a store: carried to the next iteration when it is the last store to its address */
    int later = 0;
    for (size_t y = x + 1; y < b->n_rec && !later; y++)
      later = b->rec[y].mem == r->mem && LLVMIsAStoreInst(b->rec[y].inst) &&
              address_key(LLVMGetOperand(b->rec[y].inst, 1)) == key;
    if (later) continue;
    int invariant = !in_loop(b, key), dd = !invariant && data_dependent(b, key, 0);
    for (size_t y = 0; y < b->n_rec; y++) {
      inst_rec *s = &b->rec[y];
      if (s->mem != r->mem) continue;
      int sload = LLVMIsALoadInst(s->inst) != NULL;
      LLVMValueRef skey = address_key(LLVMGetOperand(s->inst, sload ? 0 : 1));
      if (invariant && skey == key) { /* the same address every iteration: the first access next iteration */
        if (sload && edge(b, (producer){r->first, 1}, s->first, 1)) return -1;
        break;
      }
      if (dd && sload && edge(b, (producer){r->first, 1}, s->first, 1)) return -1; /* may alias: assume so */
    }
  }
  return 0;
}

int cgp_hls_build_loop(builder *b) {
  for (size_t bi = 0; bi < b->cfg->n; bi++) {
    if (!b->own[bi]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(b->cfg->bb[bi]); i; i = LLVMGetNextInstruction(i)) {
      if (b->n_rec == b->cap_rec) {
        size_t cap = b->cap_rec ? 2 * b->cap_rec : 64;
        inst_rec *bigger = realloc(b->rec, cap * sizeof *bigger);
        if (!bigger) return -1;
        b->rec = bigger;
        b->cap_rec = cap;
      }
      inst_rec *r = &b->rec[b->n_rec++];
      r->inst = i;
      if (nodes_of(b, i, r)) return -1;
    }
  }
  for (size_t x = 0; x < b->n_rec; x++)
    if (value_edges(b, &b->rec[x])) return -1;
  return memory_edges(b);
}
