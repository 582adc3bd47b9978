/* cgp_hls_ops.c: from LLVM IR to the FPGA core's dependence graphs (docs/model.md 11.9).

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
     one iteration earlier (distance + 1); through memory by the static rule of 11.9. */
#include "cgp_hls_ops.h"

#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_cfg.h"
#include "cgp_mark.h"

/* ---- one loop's graph ------------------------------------------------------------------------ */

typedef struct {
  LLVMValueRef inst;
  int first, last; /* its nodes (first..last, chained), -1: none */
  int mem;         /* load/store: the array's index */
} inst_rec;

typedef struct {
  const cgp_cfg *cfg;
  const cgp_loop *l;
  const unsigned char *own;    /* own[b]: block b is the loop's own (in no nested loop) */
  cgp_hls_nest *nest;
  cgp_hls_loop *hl;
  inst_rec *rec;
  size_t n_rec, cap_rec;
  const cgp_kernel_pragma *k;
  char *err;
  size_t errlen;
  const cgp_loop *const *nest_loops; /* the nest's loops, in its order (for affine addresses) */
  unsigned n_nest;
} builder;

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

static int build_loop(builder *b) {
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

/* ---- trip counts ------------------------------------------------------------------------------ */

static LLVMValueRef strip_int_casts(LLVMValueRef v) {
  while (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v) || LLVMIsATruncInst(v)) v = LLVMGetOperand(v, 0);
  return v;
}

static int holds(LLVMIntPredicate p, int64_t a, int64_t c) {
  switch (p) {
  case LLVMIntEQ: return a == c;
  case LLVMIntNE: return a != c;
  case LLVMIntSLT: case LLVMIntULT: return a < c;
  case LLVMIntSLE: case LLVMIntULE: return a <= c;
  case LLVMIntSGT: case LLVMIntUGT: return a > c;
  case LLVMIntSGE: case LLVMIntUGE: return a >= c;
  default: return 0;
  }
}

/* The static trip count of a loop with an induction variable from a constant, a constant step and
   an exit compare with a constant; 0 when not of that form (or above 2^26 iterations). */
static uint64_t trip_count(const cgp_cfg *cfg, const cgp_loop *l) {
  if (l->nlatch != 1) return 0;
  LLVMBasicBlockRef latch = cfg->bb[l->latch[0]], header = cfg->bb[l->header];
  LLVMBasicBlockRef exiting = NULL;
  /* the one block that leaves the loop: the latch (rotated, do-while) or the header (while) */
  for (size_t bi = 0; bi < cfg->n; bi++) {
    if (!l->in[bi]) continue;
    for (size_t s = 0; s < cfg->nsucc[bi]; s++)
      if (!l->in[cfg->succ[bi][s]]) {
        if (exiting && exiting != cfg->bb[bi]) return 0;
        exiting = cfg->bb[bi];
      }
  }
  if (exiting != latch && exiting != header) return 0;
  LLVMValueRef br = LLVMGetBasicBlockTerminator(exiting);
  if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br)) return 0;
  LLVMValueRef cmp = LLVMGetCondition(br);
  if (!LLVMIsAICmpInst(cmp)) return 0;
  size_t s0 = cgp_cfg_index(cfg, LLVMGetSuccessor(br, 0));
  int stay_if_true = s0 < cfg->n && l->in[s0];
  LLVMIntPredicate pred = LLVMGetICmpPredicate(cmp);
  LLVMValueRef a = strip_int_casts(LLVMGetOperand(cmp, 0)), c = LLVMGetOperand(cmp, 1);
  int swapped = 0;
  if (!LLVMIsAConstantInt(c)) {
    LLVMValueRef t = a;
    a = strip_int_casts(c);
    c = t;
    swapped = 1;
  }
  if (!LLVMIsAConstantInt(c)) return 0;
  int64_t bound = LLVMConstIntGetSExtValue(c);
  /* a is the induction phi or its update phi + step */
  LLVMValueRef phi = NULL;
  int on_next = 0;
  if (LLVMIsAPHINode(a) && LLVMGetInstructionParent(a) == header) phi = a;
  else if (LLVMIsAInstruction(a) && (LLVMGetInstructionOpcode(a) == LLVMAdd)) {
    LLVMValueRef p = strip_int_casts(LLVMGetOperand(a, 0));
    if (LLVMIsAPHINode(p) && LLVMGetInstructionParent(p) == header) phi = p, on_next = 1;
  }
  if (!phi || LLVMCountIncoming(phi) != 2) return 0;
  LLVMValueRef start = NULL, next = NULL;
  for (unsigned i = 0; i < 2; i++) {
    size_t from = cgp_cfg_index(cfg, LLVMGetIncomingBlock(phi, i));
    if (from < cfg->n && l->in[from]) next = LLVMGetIncomingValue(phi, i);
    else start = LLVMGetIncomingValue(phi, i);
  }
  if (!start || !next || !LLVMIsAConstantInt(start) || !LLVMIsAInstruction(next) ||
      LLVMGetInstructionOpcode(next) != LLVMAdd || strip_int_casts(LLVMGetOperand(next, 0)) != phi ||
      !LLVMIsAConstantInt(LLVMGetOperand(next, 1)))
    return 0;
  if (on_next && strip_int_casts(a) != next && LLVMGetOperand(a, 1) != LLVMGetOperand(next, 1)) return 0;
  int64_t iv = LLVMConstIntGetSExtValue(start), step = LLVMConstIntGetSExtValue(LLVMGetOperand(next, 1));
  if (!step) return 0;
  uint64_t trips = 0;
  for (;;) {
    if (exiting != latch) { /* while: the header tests first */
      int64_t x = on_next ? iv + step : iv;
      int t = swapped ? holds(pred, bound, x) : holds(pred, x, bound);
      if (t != stay_if_true) return trips;
      trips++;
    } else { /* do-while: the latch tests after the body (also a one-block loop: header and latch) */
      trips++;
      int64_t x = on_next ? iv + step : iv;
      int t = swapped ? holds(pred, bound, x) : holds(pred, x, bound);
      if (t != stay_if_true) return trips;
    }
    iv += step;
    if (trips > (1u << 26)) return 0;
  }
}

/* ---- the nest --------------------------------------------------------------------------------- */

static int loop_matches(const cgp_loop *l, const cgp_kernel_pragma *k) {
  return l->line == k->for_line && l->col == k->for_col && (!l->file[0] || cgp_pass_same_file(l->file, k->file));
}

static int nest_of(LLVMValueRef fn, const cgp_cfg *cfg, const cgp_loop *loops, size_t nl, size_t top,
                   const cgp_kernel_pragma *k, cgp_hls_nest *out, char *err, size_t errlen) {
  size_t *idx = malloc(nl * sizeof *idx);
  unsigned char *own = malloc(cfg->n ? cfg->n : 1);
  if (!idx || !own) goto oom;
  unsigned n = 0;
  for (size_t i = 0; i < nl; i++)
    if (cgp_loop_contains(&loops[top], &loops[i])) idx[n++] = i;
  out->loops = calloc(n, sizeof *out->loops);
  if (!out->loops) goto oom;
  out->n_loops = n;
  const cgp_loop *view[CGP_FPGA_MAX_LOOPS];
  for (unsigned i = 0; i < n && i < CGP_FPGA_MAX_LOOPS; i++) view[i] = &loops[idx[i]];
  for (unsigned i = 0; i < n; i++) {
    const cgp_loop *l = &loops[idx[i]];
    cgp_hls_loop *hl = &out->loops[i];
    cgp_fpga_ddg_init(&hl->ddg);
    hl->line = l->line;
    hl->col = l->col;
    hl->trips = trip_count(cfg, l);
    hl->parent = -1;
    size_t best = 0;
    for (unsigned j = 0; j < n; j++) {
      const cgp_loop *p = &loops[idx[j]];
      if (j == i || !cgp_loop_contains(p, l)) continue;
      hl->depth++;
      if (hl->parent < 0 || p->nblocks < best) hl->parent = (int)j, best = p->nblocks;
    }
    for (size_t bi = 0; bi < cfg->n; bi++) {
      own[bi] = l->in[bi];
      for (unsigned j = 0; j < n && own[bi]; j++)
        if (j != i && cgp_loop_contains(l, &loops[idx[j]]) && loops[idx[j]].in[bi]) own[bi] = 0;
    }
    builder b = {.cfg = cfg, .l = l, .own = own, .nest = out, .hl = hl, .k = k, .err = err, .errlen = errlen,
                 .nest_loops = view, .n_nest = n < CGP_FPGA_MAX_LOOPS ? n : CGP_FPGA_MAX_LOOPS};
    int rc = build_loop(&b);
    free(b.rec);
    if (rc) {
      if (!err[0]) snprintf(err, errlen, "%s:%u:%u: error: out of memory reading the loop's operations", k->file,
                            l->line, l->col);
      free(idx);
      free(own);
      return -1;
    }
  }
  (void)fn;
  free(idx);
  free(own);
  return 0;
oom:
  free(idx);
  free(own);
  snprintf(err, errlen, "%s:%u:%u: error: out of memory", k->file, k->for_line, k->for_col);
  return -1;
}

int cgp_hls_nest_ops(LLVMModuleRef m, const cgp_kernel_pragma *k, cgp_hls_nest *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (errlen) err[0] = '\0';
  unsigned md = LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), "llvm.loop", 9);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn)) continue;
    cgp_cfg cfg;
    if (cgp_cfg_build(fn, &cfg)) continue;
    cgp_loop *loops = NULL;
    size_t nl = cgp_cfg_loops(&cfg, md, &loops);
    int rc = 1;
    for (size_t i = 0; i < nl && rc == 1; i++)
      if (loop_matches(&loops[i], k)) rc = nest_of(fn, &cfg, loops, nl, i, k, out, err, errlen);
    cgp_cfg_loops_free(loops, nl);
    cgp_cfg_free(&cfg);
    if (rc == 0) return 0;
    if (rc < 0) {
      cgp_hls_nest_free(out);
      return -1;
    }
  }
  snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': its loop is not in the optimised code (is it dead, or "
           "in a function never compiled?)", k->file, k->for_line, k->for_col, k->name);
  return -1;
}

void cgp_hls_nest_free(cgp_hls_nest *n) {
  for (unsigned i = 0; i < n->n_loops; i++) {
    cgp_fpga_ddg_free(&n->loops[i].ddg);
    free(n->loops[i].line_of);
    free(n->loops[i].acc);
  }
  free(n->loops);
  free(n->arrays);
  memset(n, 0, sizeof *n);
}

unsigned cgp_hls_innermost(const cgp_hls_nest *n) {
  for (unsigned i = 0; i < n->n_loops; i++) {
    int has_child = 0;
    for (unsigned j = 0; j < n->n_loops; j++)
      if (n->loops[j].parent == (int)i) has_child = 1;
    if (!has_child) return i;
  }
  return 0;
}
