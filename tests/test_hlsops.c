/* HLS operations from LLVM IR (pass/cgp_hls_ops.c, docs/model.md 11.9) on tiny C files compiled
   as `cgpredict fpga` compiles them: clang-14 bitcode, then the pass's -O1 pipeline. */
#include <criterion/criterion.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_hls_ops.h"
#include "cgp_mark.h"

typedef struct {
  LLVMContextRef ctx;
  LLVMModuleRef m;
  cgp_kernel_pragma *k;
  size_t nk;
  char dir[64];
} unit;

/* Compile src (as k.c) with extra clang flags; scan its pragmas. */
static void compile(unit *u, const char *src, const char *extra) {
  snprintf(u->dir, sizeof u->dir, "/tmp/cgp-hlsops.XXXXXX");
  cr_assert_not_null(mkdtemp(u->dir));
  char path[256], cmd[1024];
  snprintf(path, sizeof path, "%s/k.c", u->dir);
  FILE *f = fopen(path, "w");
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd %s && clang-14 -O1 -Xclang -disable-llvm-passes -g -fno-vectorize "
           "-fno-slp-vectorize -fno-unroll-loops -fno-builtin -fno-discard-value-names -Wno-unknown-pragmas %s "
           "-emit-llvm -c k.c -o k.bc", u->dir, extra);
  cr_assert_eq(system(cmd), 0);
  char err[4096];
  cr_assert_eq(cgp_pragma_scan(path, NULL, 0, &u->k, &u->nk, err, sizeof err), 0, "%s", err);
  snprintf(path, sizeof path, "%s/k.bc", u->dir);
  u->ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  cr_assert_eq(LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg), 0);
  cr_assert_eq(LLVMParseBitcodeInContext2(u->ctx, buf, &u->m), 0);
  LLVMDisposeMemoryBuffer(buf);
  cr_assert_eq(cgp_pass_run_o1(u->m, err, sizeof err), 0, "%s", err);
  snprintf(cmd, sizeof cmd, "rm -rf %s", u->dir);
  cr_assert_eq(system(cmd), 0);
}

static void unit_free(unit *u) {
  LLVMDisposeModule(u->m);
  LLVMContextDispose(u->ctx);
  free(u->k);
}

static unsigned count(const cgp_fpga_ddg *g, cgp_fpga_opkind op) {
  unsigned n = 0;
  for (unsigned v = 0; v < g->n_nodes; v++) n += g->nodes[v].op == op;
  return n;
}

static int first(const cgp_fpga_ddg *g, cgp_fpga_opkind op) {
  for (unsigned v = 0; v < g->n_nodes; v++)
    if (g->nodes[v].op == op) return (int)v;
  return -1;
}

/* The edge from -> to of that distance and memory flag exists. */
static int has_edge(const cgp_fpga_ddg *g, int from, int to, unsigned dist, int memory) {
  for (unsigned e = 0; e < g->n_edges; e++)
    if ((int)g->edges[e].from == from && (int)g->edges[e].to == to && g->edges[e].distance == dist &&
        g->edges[e].memory == memory)
      return 1;
  return 0;
}

static int edges_into(const cgp_fpga_ddg *g, int to) {
  int n = 0;
  for (unsigned e = 0; e < g->n_edges; e++) n += (int)g->edges[e].to == to;
  return n;
}

static const char dot[] =
  "void dot(float A[128 * 128], float x[128], float y[128]) {\n"
  "#pragma cgpredict kernel name(dot)\n"
  "  for (int i = 0; i < 128; i++) {\n"
  "    float s = 0;\n"
  "    for (int j = 0; j < 128; j++)\n"
  "      s += A[i * 128 + j] * x[j];\n"
  "    y[i] = s;\n"
  "  }\n"
  "}\n";

Test(hlsops, dot_product_kinds_ssa_edges_and_the_accumulator_recurrence) {
  unit u;
  compile(&u, dot, "-ffp-contract=off");
  cr_assert_eq(u.nk, 1);
  cgp_hls_nest n;
  char err[2048];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  cr_assert_eq(n.n_loops, 2);
  cr_assert_eq(n.loops[0].parent, -1);
  cr_assert_eq(n.loops[1].parent, 0);
  cr_assert_eq(n.loops[0].trips, 128);
  cr_assert_eq(n.loops[1].trips, 128);
  cr_assert_eq(cgp_hls_innermost(&n), 1);
  const cgp_fpga_ddg *g = &n.loops[1].ddg;
  /* two loads, one fmul, one fadd; i * 128 is wiring, i * 128 + j one add; the counter's add and
     compare: two more int nodes; no store in the inner loop (s is a register) */
  cr_assert_eq(count(g, CGP_FOP_LOAD), 2);
  cr_assert_eq(count(g, CGP_FOP_FMUL), 1);
  cr_assert_eq(count(g, CGP_FOP_FADD), 1);
  cr_assert_eq(count(g, CGP_FOP_STORE), 0);
  cr_assert_eq(count(g, CGP_FOP_MUL), 0);
  cr_assert_eq(count(g, CGP_FOP_ICMP), 1);
  int mul = first(g, CGP_FOP_FMUL), add = first(g, CGP_FOP_FADD);
  cr_assert_eq(g->nodes[mul].type, CGP_FTYPE_FLOAT);
  cr_assert_eq(g->nodes[mul].width, 32);
  cr_assert_eq(edges_into(g, mul), 2); /* both loads */
  for (unsigned v = 0; v < g->n_nodes; v++)
    if (g->nodes[v].op == CGP_FOP_LOAD) cr_assert(has_edge(g, (int)v, mul, 0, 0));
  cr_assert(has_edge(g, mul, add, 0, 0));
  cr_assert(has_edge(g, add, add, 1, 0), "s += ... carries the fadd to the next iteration");
  /* the loads name their arrays */
  int la = first(g, CGP_FOP_LOAD);
  cr_assert_str_eq(n.arrays[g->nodes[la].array].name, "A");
  cr_assert_eq(n.arrays[g->nodes[la].array].elems, 0, "a pointer argument has no size in the IR");
  /* the outer loop: the store of y[i] */
  cr_assert_eq(count(&n.loops[0].ddg, CGP_FOP_STORE), 1);
  cgp_hls_nest_free(&n);
  unit_free(&u);
}

Test(hlsops, zcu102_schedule_of_the_dot_product) {
  unit u;
  compile(&u, dot, "-ffp-contract=off");
  cgp_hls_nest n;
  char err[2048];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  cgp_fpga_device d;
  cr_assert_eq(cgp_fpga_device_find("zcu102", &d, err, sizeof err), 0, "%s", err);
  cgp_fpga_sched s;
  cr_assert_eq(cgp_fpga_schedule(&d, &n.loops[1].ddg, NULL, 0, &s, err, sizeof err), 0, "%s", err);
  /* loads in cycle 0 (the index add chained before them, 1.01 + 1.23 ns < 7.3), data at (1, 1.23
     ns); fmul (2 stages past its first at 7.3 ns, 7.01 ns each) from 2, ready at (4, 7.01); fadd
     (3, 6.43 ns) from 5, ready at (8, 6.43): IL 9, Vivado's for atax (docs/model.md 11.5); the sum
     reaches the next fadd at 9: II >= 4 */
  cr_assert_eq(s.il, 9);
  cr_assert_eq(s.ii_recurrence, 4);
  cgp_fpga_sched_free(&s);
  cgp_hls_nest_free(&n);
  unit_free(&u);
}

Test(hlsops, read_modify_write_of_an_invariant_address_is_carried_through_memory) {
  unit u;
  compile(&u,
          "void mvt(float a[64 * 64], float x[64], float y[64]) {\n"
          "  for (int i = 0; i < 64; i++)\n"
          "#pragma cgpredict kernel name(mvt)\n"
          "    for (int j = 0; j < 64; j++)\n"
          "      x[i] = x[i] + a[i * 64 + j] * y[j];\n"
          "}\n",
          "-ffp-contract=off");
  cgp_hls_nest n;
  char err[2048];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  cr_assert_eq(n.n_loops, 1);
  const cgp_fpga_ddg *g = &n.loops[0].ddg;
  cr_assert_eq(count(g, CGP_FOP_LOAD), 3, "x[i] is loaded every iteration (a may alias x)");
  cr_assert_eq(count(g, CGP_FOP_STORE), 1);
  int st = first(g, CGP_FOP_STORE), fadd = first(g, CGP_FOP_FADD), ldx = first(g, CGP_FOP_LOAD);
  cr_assert_str_eq(n.arrays[g->nodes[ldx].array].name, "x");
  cr_assert(has_edge(g, fadd, st, 0, 0));
  cr_assert(has_edge(g, st, ldx, 1, 1), "the store of x[i] reaches the next iteration's load");
  /* not pipelined: the edge does not lengthen the window; pipelined it bounds II */
  cgp_fpga_device d;
  cr_assert_eq(cgp_fpga_device_find("zcu102", &d, err, sizeof err), 0, "%s", err);
  cgp_fpga_sched s;
  cr_assert_eq(cgp_fpga_schedule(&d, &n.loops[0].ddg, NULL, 0, &s, err, sizeof err), 0, "%s", err);
  /* load 0, fmul 2 -> (4, 7.01 ns), fadd 5 -> (8, 6.43), store 9 (6.43 + 1.23 > 7.3): IL 10,
     Vivado's for mvt; the stored x[i] can be loaded at 10 and the load starts at 0: II >= 10 */
  cr_assert_eq(s.il, 10);
  cr_assert_eq(s.ii_recurrence, 10);
  cgp_fpga_sched_free(&s);
  cgp_hls_nest_free(&n);
  unit_free(&u);
}

Test(hlsops, a_data_dependent_address_may_alias_the_next_iteration) {
  unit u;
  compile(&u,
          "int hist[256];\n"
          "void h(const unsigned char *in) {\n"
          "#pragma cgpredict kernel name(hist)\n"
          "  for (int i = 0; i < 1000; i++)\n"
          "    hist[in[i]]++;\n"
          "}\n",
          "");
  cgp_hls_nest n;
  char err[2048];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  const cgp_fpga_ddg *g = &n.loops[0].ddg;
  cr_assert_eq(n.loops[0].trips, 1000);
  int st = first(g, CGP_FOP_STORE);
  int ld_hist = -1;
  for (unsigned v = 0; v < g->n_nodes; v++)
    if (g->nodes[v].op == CGP_FOP_LOAD && !strcmp(n.arrays[g->nodes[v].array].name, "hist")) ld_hist = (int)v;
  cr_assert_geq(ld_hist, 0);
  cr_assert_eq(n.arrays[g->nodes[ld_hist].array].elems, 256, "a global array's size is in its type");
  cr_assert(has_edge(g, st, ld_hist, 1, 1), "hist[in[i]]: HLS cannot tell the next bin apart");
  /* the same loop with an affine address: no carried edge */
  cgp_hls_nest_free(&n);
  unit_free(&u);
  compile(&u,
          "int a[1000];\n"
          "void s(void) {\n"
          "#pragma cgpredict kernel name(s)\n"
          "  for (int i = 0; i < 1000; i++)\n"
          "    a[i]++;\n"
          "}\n",
          "");
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  g = &n.loops[0].ddg;
  for (unsigned e = 0; e < g->n_edges; e++) cr_assert(!g->edges[e].memory, "a[i]: each iteration its own element");
  cgp_hls_nest_free(&n);
  unit_free(&u);
}

Test(hlsops, fmuladd_is_an_fmul_and_an_fadd_and_trip_counts_of_other_shapes) {
  unit u;
  compile(&u,
          "void f(float *a, const float *b, float c) {\n"
          "#pragma cgpredict kernel name(f)\n"
          "  for (int i = 100; i > 0; i -= 3)\n"
          "    a[i] = a[i] * b[i] + c;\n"
          "}\n",
          "-ffp-contract=on");
  cgp_hls_nest n;
  char err[2048];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  const cgp_fpga_ddg *g = &n.loops[0].ddg;
  cr_assert_eq(n.loops[0].trips, 34, "100, 97, ..., 1: 34 iterations");
  cr_assert_eq(count(g, CGP_FOP_FMUL), 1);
  cr_assert_eq(count(g, CGP_FOP_FADD), 1);
  int mul = first(g, CGP_FOP_FMUL), add = first(g, CGP_FOP_FADD), st = first(g, CGP_FOP_STORE);
  cr_assert(has_edge(g, mul, add, 0, 0));
  cr_assert(has_edge(g, add, st, 0, 0));
  cgp_hls_nest_free(&n);
  unit_free(&u);
  compile(&u,
          "void g(float *a, int n) {\n"
          "#pragma cgpredict kernel name(g)\n"
          "  for (int i = 0; i < n; i++)\n"
          "    a[i] = a[i] / 3.0f;\n"
          "}\n",
          "");
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  cr_assert_eq(n.loops[0].trips, 0, "a bound known at run time only");
  cr_assert_eq(count(&n.loops[0].ddg, CGP_FOP_FDIV), 1);
  cgp_hls_nest_free(&n);
  unit_free(&u);
}

Test(hlsops, a_call_is_refused_at_its_line) {
  unit u;
  compile(&u,
          "float ext(float);\n"
          "void f(float *a) {\n"
          "#pragma cgpredict kernel name(f)\n"
          "  for (int i = 0; i < 8; i++)\n"
          "    a[i] = ext(a[i]);\n"
          "}\n",
          "");
  cgp_hls_nest n;
  char err[2048];
  cr_assert_neq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0);
  cr_assert(strstr(err, "k.c:5:") != NULL, "%s", err);
  cr_assert(strstr(err, "'ext'") != NULL, "%s", err);
  unit_free(&u);
}

/* The element each load and store touches, affine in the nest's iteration numbers (docs/model.md
   11.10, pass/cgp_hls_affine.c), by hand: i = n_i, and j starts at i, so j = n_i + n_j.
   A[i][j] (a global [8][16]): 16 i + j = 17 n_i + n_j; B[j][2i + 1] (float (*)[32]): 32 j + 2 i + 1 =
   34 n_i + 32 n_j + 1; idx[j]: n_i + n_j; c[idx[j]]: not affine (an index read from memory).
   Dimensions: A {8, 16} from its type, B {?, 32} (its GEP's row type). The j loop's update is
   marked as an induction, no other add is. */
Test(hlsops, access_elements_are_affine_in_the_iteration_numbers) {
  unit u;
  compile(&u, "float A[8][16];\nvoid f(float (*B)[32], int *idx, float *c) {\n#pragma cgpredict kernel name(f)\n"
              "  for (int i = 0; i < 8; i++)\n    for (int j = i; j < 16; j++)\n"
              "      A[i][j] = B[j][2 * i + 1] + c[idx[j]];\n}\n", "");
  cgp_hls_nest n;
  char err[4096];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  cr_assert_eq(n.n_loops, 2);
  const cgp_hls_loop *l = &n.loops[1];
  int seen = 0;
  for (unsigned v = 0; v < l->ddg.n_nodes; v++) {
    const cgp_fpga_node *nd = &l->ddg.nodes[v];
    const cgp_fpga_access *a = &l->acc[v];
    if (nd->op == CGP_FOP_ADD && nd->induction) seen |= 16;
    if (nd->array < 0) continue;
    const char *name = n.arrays[nd->array].name;
    if (!strcmp(name, "A")) {
      cr_expect(a->affine && a->coef[0] == 17 && a->coef[1] == 1 && a->offset == 0, "A: %lld %lld %lld",
                (long long)a->coef[0], (long long)a->coef[1], (long long)a->offset);
      seen |= 1;
    } else if (!strcmp(name, "B")) {
      cr_expect(a->affine && a->coef[0] == 34 && a->coef[1] == 32 && a->offset == 1, "B: %lld %lld %lld",
                (long long)a->coef[0], (long long)a->coef[1], (long long)a->offset);
      seen |= 2;
    } else if (!strcmp(name, "idx")) {
      cr_expect(a->affine && a->coef[0] == 1 && a->coef[1] == 1 && a->offset == 0);
      seen |= 4;
    } else if (!strcmp(name, "c")) {
      cr_expect(!a->affine, "c[idx[j]] is not affine");
      seen |= 8;
    }
  }
  cr_expect_eq(seen, 31, "every access and the induction update seen: %d", seen);
  unsigned inductions = 0;
  for (unsigned v = 0; v < l->ddg.n_nodes; v++) inductions += l->ddg.nodes[v].induction;
  cr_expect_eq(inductions, 1);
  for (unsigned a = 0; a < n.n_arrays; a++) {
    if (!strcmp(n.arrays[a].name, "A"))
      cr_expect(n.arrays[a].ndims == 2 && n.arrays[a].dims[0] == 8 && n.arrays[a].dims[1] == 16);
    if (!strcmp(n.arrays[a].name, "B"))
      cr_expect(n.arrays[a].ndims == 2 && n.arrays[a].dims[0] == 0 && n.arrays[a].dims[1] == 32);
  }
  cgp_hls_nest_free(&n);
  unit_free(&u);
}

/* A term the nest cannot change (here the row r, an argument) is taken as 0: X[r][j] is element j
   "up to it" (affine 2), so its banks follow j; a load in the nest as an index is still not affine. */
Test(hlsops, an_argument_in_an_index_is_taken_as_zero_and_said) {
  unit u;
  compile(&u, "void f(float (*X)[64], int r, int *idx) {\n#pragma cgpredict kernel name(f)\n"
              "  for (int j = 0; j < 64; j++)\n    X[r][j] = X[r][idx[j]] + 1.0f;\n}\n", "");
  cgp_hls_nest n;
  char err[4096];
  cr_assert_eq(cgp_hls_nest_ops(u.m, &u.k[0], &n, err, sizeof err), 0, "%s", err);
  const cgp_hls_loop *l = &n.loops[0];
  int stores = 0, loads_x = 0;
  for (unsigned v = 0; v < l->ddg.n_nodes; v++) {
    const cgp_fpga_node *nd = &l->ddg.nodes[v];
    if (nd->array < 0 || strcmp(n.arrays[nd->array].name, "X")) continue;
    const cgp_fpga_access *a = &l->acc[v];
    if (nd->op == CGP_FOP_STORE) {
      cr_expect(a->affine == 2 && a->coef[0] == 1 && a->offset == 0, "X[r][j]: %d %lld %lld", a->affine,
                (long long)a->coef[0], (long long)a->offset);
      stores++;
    } else {
      cr_expect_eq(a->affine, 0, "X[r][idx[j]]");
      loads_x++;
    }
  }
  cr_expect_eq(stores, 1);
  cr_expect_eq(loads_x, 1);
  cgp_hls_nest_free(&n);
  unit_free(&u);
}
