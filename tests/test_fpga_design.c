/* Designs over a nest (docs/model.md 11.10): unrolling, pipelining and partitioning applied to
   loop graphs and estimated with the core, on the book's operator assumptions (Kastner, Matai,
   Neuendorffer, "Parallel Programming for FPGAs", KastnerRG/pp4fpgas): read latency 1, write 0,
   integer multiply 2, add 0 (chained), floating-point operators 4, no delays. Every number below
   is worked by hand in the comment above its test. */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_fpga.h"
#include "fpga_book.h"

static int node(cgp_fpga_ddg *g, cgp_fpga_access *acc, cgp_fpga_opkind op, cgp_fpga_type t, int array) {
  int v = cgp_fpga_ddg_add(g, op, t, 32, array, 0);
  cr_assert_geq(v, 0);
  acc[v] = (cgp_fpga_access){0};
  if (array >= 0) acc[v] = (cgp_fpga_access){.affine = 1, .coef = {1}}; /* element i of loop 0 */
  return v;
}

static void edge(cgp_fpga_ddg *g, int from, int to, unsigned distance) {
  cr_assert_eq(cgp_fpga_ddg_edge(g, (unsigned)from, (unsigned)to, distance, 0), 0);
}

/* One loop: i = i + 1 (an induction update), loads of a[i] (and b[i]), `op` on them, and an
   accumulation acc = acc + that (acc_op) carried to the next iteration. */
static void reduction(cgp_fpga_ddg *g, cgp_fpga_access *acc, cgp_fpga_opkind mul, cgp_fpga_opkind add,
                      cgp_fpga_type t) {
  cgp_fpga_ddg_init(g);
  int iv = node(g, acc, CGP_FOP_ADD, CGP_FTYPE_INT, -1);
  g->nodes[iv].induction = 1;
  int la = node(g, acc, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0), lb = node(g, acc, CGP_FOP_LOAD, CGP_FTYPE_MEM, 1);
  int m = node(g, acc, mul, t, -1), s = node(g, acc, add, t, -1);
  edge(g, iv, iv, 1), edge(g, iv, la, 1), edge(g, iv, lb, 1);
  edge(g, la, m, 0), edge(g, lb, m, 0), edge(g, m, s, 0), edge(g, s, s, 1);
}

static cgp_fpga_nest one_loop(const cgp_fpga_ddg *g, const cgp_fpga_access *acc, uint64_t trips) {
  cgp_fpga_nest n;
  memset(&n, 0, sizeof n);
  n.n_loops = 1, n.n_arrays = 2;
  n.loops[0] = (cgp_fpga_nest_loop){.trips = trips, .parent = -1, .ddg = g, .acc = acc};
  for (int a = 0; a < 2; a++) {
    n.arrays[a] = (cgp_fpga_array){.width_bits = 32, .ndims = 1, .dims = {trips}};
    n.on_chip[a] = 1;
  }
  return n;
}

static cgp_fpga_estimate eval(const cgp_fpga_device *d, const cgp_fpga_nest *n, const cgp_fpga_design *ds) {
  cgp_fpga_estimate e;
  char err[256] = "";
  cr_assert_eq(cgp_fpga_design_eval(d, n, ds, &e, err, sizeof err), 0, "%s", err);
  return e;
}

/* Ch. 4, section 4.7 (fig. dft_recurrence_behavior): sum += a[i] * b[i] in floats, 1024 trips,
   pipelined. Reads at 0, the fmul 1-5, the fadd 5-9: IL 10; the fadd's result (ready 9) feeds the
   next iteration's fadd (start 5): II 4, 4 x 1023 + 10 = 4102 cycles. Unrolled by 2 the two fadds
   chain (5-9, 9-13: IL 14) and the second feeds the first of the next window: II 13 - 5 = 8,
   512 iterations: 8 x 511 + 14 = 4102 again: unrolling does not shorten a recurrence. */
Test(fpga_design, fadd_recurrence_limits_ii_to_its_latency_and_unrolling_does_not_help) {
  cgp_fpga_device d = fpga_book();
  cgp_fpga_ddg g;
  cgp_fpga_access acc[8];
  reduction(&g, acc, CGP_FOP_FMUL, CGP_FOP_FADD, CGP_FTYPE_FLOAT);
  cgp_fpga_nest n = one_loop(&g, acc, 1024);
  cgp_fpga_design ds;
  cgp_fpga_design_baseline(&ds);
  ds.pipeline = 0;
  cgp_fpga_estimate e = eval(&d, &n, &ds);
  cr_expect_eq(e.il[0], 10);
  cr_expect_eq(e.ii[0], 4);
  cr_expect_eq(e.bound[0], CGP_II_RECURRENCE);
  cr_expect_eq(e.cycles, 4102);
  ds.unroll[0] = 2;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.window[0], 10, "two copies of the five operations");
  cr_expect_eq(e.il[0], 14);
  cr_expect_eq(e.ii[0], 8);
  cr_expect_eq(e.cycles, 4102);
  cgp_fpga_ddg_free(&g);
}

/* Ch. 2, "FIR Filters": the 11-tap MAC loop acc += c[i] * shift_reg[i] (integer multiply 2
   cycles, chained add). Baseline: IL 4 (reads 0, data 1, multiply 1-3, add 3), 11 x 4 = 44
   (section 2.9's "44 cycles"); pipelined: II 1, 10 + 4 = 14. Fully unrolled without partitioning:
   the 11 reads of each array share its 2 ports, pairs in cycles 0..4 and the last in 5; multiply
   j starts at j / 2 + 1, ready at j / 2 + 3; the adds chain behind them, the last at 8: IL 9, one
   iteration: 9 cycles; 2 BRAM18K (one per array). Both arrays completely partitioned (registers:
   every read in cycle 0): multiplies 1-3, the adds chained in 3: IL 4, 4 cycles, no BRAM and
   2 x 11 x 32 = 704 flip-flops. */
Test(fpga_design, fir_11_taps_baseline_pipelined_unrolled_and_partitioned) {
  cgp_fpga_device d = fpga_book();
  cgp_fpga_ddg g;
  cgp_fpga_access acc[8];
  reduction(&g, acc, CGP_FOP_MUL, CGP_FOP_ADD, CGP_FTYPE_INT);
  cgp_fpga_nest n = one_loop(&g, acc, 11);
  cgp_fpga_design ds;
  cgp_fpga_design_baseline(&ds);
  cgp_fpga_estimate e = eval(&d, &n, &ds);
  cr_expect_eq(e.il[0], 4);
  cr_expect_eq(e.cycles, 44);
  cr_expect_eq(e.bram18k, 2);
  ds.pipeline = 0;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[0], 1);
  cr_expect_eq(e.cycles, 14);
  ds.pipeline = -1, ds.unroll[0] = 11;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.il[0], 9);
  cr_expect_eq(e.cycles, 9);
  cr_expect_eq(e.bram18k, 2);
  ds.part[0] = ds.part[1] = CGP_PART_COMPLETE;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.il[0], 4);
  cr_expect_eq(e.cycles, 4);
  cr_expect_eq(e.bram18k, 0);
  cr_expect_eq(e.ff, 704);
}

/* sum += a[i] * b[i] in integers (no recurrence beyond a chained add), 1024 trips, pipelined and
   unrolled by 4: a[4k .. 4k + 3] and b's are read in one window. Unpartitioned: 4 reads of a bank
   with 2 ports, II 2; cyclic 2: banks 0, 1, 0, 1, II 1; cyclic 4: II 1 too; block 2 (banks of
   512): all four in bank 0, II 2. Cycles at II 1: 256 iterations, 255 + IL; IL: reads 0, data 1,
   multiplies 1-3, adds chained in 3: 4, so 259. Cyclic 2 costs 2 BRAM18Ks per array (2 banks of
   512 words), cyclic 4 four (4 banks of 256). */
Test(fpga_design, cyclic_partition_matching_the_unroll_gives_ii_1) {
  cgp_fpga_device d = fpga_book();
  cgp_fpga_ddg g;
  cgp_fpga_access acc[8];
  reduction(&g, acc, CGP_FOP_MUL, CGP_FOP_ADD, CGP_FTYPE_INT);
  cgp_fpga_nest n = one_loop(&g, acc, 1024);
  cgp_fpga_design ds;
  cgp_fpga_design_baseline(&ds);
  ds.pipeline = 0, ds.unroll[0] = 4;
  cgp_fpga_estimate e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[0], 2);
  cr_expect_eq(e.bound[0], CGP_II_MEMORY);
  ds.part[0] = ds.part[1] = CGP_PART_CYCLIC, ds.factor[0] = ds.factor[1] = 2;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[0], 1);
  cr_expect_eq(e.il[0], 4);
  cr_expect_eq(e.cycles, 259);
  cr_expect_eq(e.bram18k, 4);
  ds.factor[0] = ds.factor[1] = 4;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[0], 1);
  cr_expect_eq(e.bram18k, 8);
  ds.part[0] = ds.part[1] = CGP_PART_BLOCK, ds.factor[0] = ds.factor[1] = 2;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[0], 2);
  cgp_fpga_ddg_free(&g);
}

/* Two loops, i around j (j: the reduction above, 8 trips; i: its own induction update only, 4
   trips). Pipelining i fully unrolls j into i's window; unrolling i while j is not unrolled, or
   pipelining with j's trip count unknown, is refused with a reason. */
Test(fpga_design, pipelining_an_outer_loop_unrolls_the_inner_and_refusals_say_why) {
  cgp_fpga_device d = fpga_book();
  cgp_fpga_ddg gi, gj;
  cgp_fpga_access ai[2], aj[8];
  reduction(&gj, aj, CGP_FOP_MUL, CGP_FOP_ADD, CGP_FTYPE_INT);
  cgp_fpga_ddg_init(&gi);
  int iv = node(&gi, ai, CGP_FOP_ADD, CGP_FTYPE_INT, -1);
  gi.nodes[iv].induction = 1;
  edge(&gi, iv, iv, 1);
  cgp_fpga_nest n = one_loop(&gj, aj, 8);
  n.n_loops = 2;
  n.loops[1] = n.loops[0];
  n.loops[1].parent = 0;
  n.loops[0] = (cgp_fpga_nest_loop){.trips = 4, .parent = -1, .ddg = &gi, .acc = ai};
  cgp_fpga_design ds;
  cgp_fpga_design_baseline(&ds);
  /* baseline: j 8 x 4 = 32; i: 4 x (IL 1 + 32 + exit 1) = 136 */
  cgp_fpga_estimate e = eval(&d, &n, &ds);
  cr_expect_eq(e.cycles, 136);
  ds.pipeline = 0;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.unroll[1], 8);
  cr_expect_eq(e.scheduled[1], 0);
  cr_expect_eq(e.window[0], 1 + 8 * 5);
  /* i's window: 8 reads of each array on 2 ports: II 4; reads in 0..3, the last multiply ready
     at 3 + 1 + 2 = 6, its add chained: IL 7; 3 x 4 + 7 = 19 */
  cr_expect_eq(e.ii[0], 4);
  cr_expect_eq(e.il[0], 7);
  cr_expect_eq(e.cycles, 19);
  char err[256];
  cgp_fpga_design_baseline(&ds);
  ds.unroll[0] = 2;
  cr_expect_neq(cgp_fpga_design_eval(&d, &n, &ds, &e, err, sizeof err), 0);
  cr_expect(strstr(err, "unrolling a loop that holds loops"), "%s", err);
  cgp_fpga_design_baseline(&ds);
  ds.pipeline = 0;
  n.loops[1].trips = 0;
  cr_expect_neq(cgp_fpga_design_eval(&d, &n, &ds, &e, err, sizeof err), 0);
  cr_expect(strstr(err, "static trip count"), "%s", err);
  cgp_fpga_ddg_free(&gi);
  cgp_fpga_ddg_free(&gj);
}

/* A 3 x 3 stencil as MachSuite's stencil2d nests it (docs/model.md 11.10): c (5 trips, its own
   induction update only) holds k1 (3 trips, its induction update) holding k2 (3 trips: the
   update, a read of filter[3 k1 + k2] (array 0, 9 elements), a read of orig[8 k1 + c + k2]
   (array 1, 3 rows of 8), their multiply and temp += that, carried from the previous k2).
   Loops 0, 1, 2 = c, k1, k2; the arrays are pointer arguments (no BRAM). */
static void stencil(cgp_fpga_nest *n, cgp_fpga_ddg *g, cgp_fpga_access (*acc)[8], uint64_t c_trips) {
  for (int l = 0; l < 3; l++) cgp_fpga_ddg_init(&g[l]);
  for (int l = 0; l < 2; l++) {
    int iv = node(&g[l], acc[l], CGP_FOP_ADD, CGP_FTYPE_INT, -1);
    g[l].nodes[iv].induction = 1;
    edge(&g[l], iv, iv, 1);
  }
  reduction(&g[2], acc[2], CGP_FOP_MUL, CGP_FOP_ADD, CGP_FTYPE_INT);
  acc[2][1] = (cgp_fpga_access){.affine = 1, .coef = {0, 3, 1}};
  acc[2][2] = (cgp_fpga_access){.affine = 1, .coef = {1, 8, 1}};
  memset(n, 0, sizeof *n);
  n->n_loops = 3, n->n_arrays = 2;
  n->loops[0] = (cgp_fpga_nest_loop){.trips = c_trips, .parent = -1, .ddg = &g[0], .acc = acc[0]};
  n->loops[1] = (cgp_fpga_nest_loop){.trips = 3, .parent = 0, .ddg = &g[1], .acc = acc[1]};
  n->loops[2] = (cgp_fpga_nest_loop){.trips = 3, .parent = 1, .ddg = &g[2], .acc = acc[2]};
  n->arrays[0] = (cgp_fpga_array){.width_bits = 32, .ndims = 1, .dims = {9}};
  n->arrays[1] = (cgp_fpga_array){.width_bits = 32, .ndims = 1, .dims = {24}};
}

/* Pipelining c unrolls k1 and, inside each of its copies, k2: the window is c's update, then 3
   copies of (k1's update, then 3 copies of k2's 5 operations): 1 + 3 x (1 + 3 x 5) = 49. k2's
   temp chain links its copies within one k1 copy (its first copy has no predecessor); k1's and
   k2's updates are copied as i + c (no carried edge: those loops restart every window).
   Unpartitioned: 9 reads of filter and 9 of orig, each on 2 ports: II 5 (memory). In program
   order the reads of each array take cycles 0, 0, 1, 1, 2, 2, 3, 3, 4 (one slot of each of the
   5 modulo slots holds at most 2); the last (k1 = 2, k2 = 2) is ready at 5, its multiply at 7,
   and its add, chained behind the two before it, in 7: IL 8. 11.5: 5 x (5 - 1) + 8 = 28.
   Both arrays completely partitioned (registers): every read in 0, multiplies ready at 3, each
   k1 copy's three adds chained in 3: II 1, IL 4, 1 x 4 + 4 = 8.
   Baseline: k2 IL 4 (reads 0, multiply 1-3, add 3), 3 x 4 = 12; k1: 3 x (1 + 12 + 1) = 42; c:
   5 x (1 + 42 + 1) = 220. A deeper nest inside a pipelined loop still needs static trips, and a
   window above 4096 operations is refused: k2 of 1000 trips gives 1 + 3 x (1 + 5000). */
Test(fpga_design, pipelining_over_a_two_level_nest_unrolls_both_3x3_stencil) {
  cgp_fpga_device d = fpga_book();
  cgp_fpga_ddg g[3];
  cgp_fpga_access acc[3][8];
  cgp_fpga_nest n;
  stencil(&n, g, acc, 5);
  cgp_fpga_design ds;
  cgp_fpga_design_baseline(&ds);
  cgp_fpga_estimate e = eval(&d, &n, &ds);
  cr_expect_eq(e.il[2], 4);
  cr_expect_eq(e.latency[1], 42);
  cr_expect_eq(e.cycles, 220);
  ds.pipeline = 0;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.window[0], 49);
  cr_expect_eq(e.unroll[1], 3);
  cr_expect_eq(e.unroll[2], 3);
  cr_expect_eq(e.scheduled[1] + e.scheduled[2], 0);
  cr_expect_eq(e.ii[0], 5);
  cr_expect_eq(e.bound[0], CGP_II_MEMORY);
  cr_expect_eq(e.il[0], 8);
  cr_expect_eq(e.cycles, 28);
  ds.part[0] = ds.part[1] = CGP_PART_COMPLETE;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[0], 1);
  cr_expect_eq(e.il[0], 4);
  cr_expect_eq(e.cycles, 8);
  char err[256];
  cgp_fpga_design_baseline(&ds);
  ds.pipeline = 0;
  n.loops[2].trips = 0;
  cr_expect_neq(cgp_fpga_design_eval(&d, &n, &ds, &e, err, sizeof err), 0);
  cr_expect(strstr(err, "loop 2: inside the pipelined loop it is fully unrolled, which needs a static trip count"),
            "%s", err);
  n.loops[2].trips = 1000;
  cr_expect_neq(cgp_fpga_design_eval(&d, &n, &ds, &e, err, sizeof err), 0);
  cr_expect(strstr(err, "passes 4096 operations"), "%s", err);
  for (int l = 0; l < 3; l++) cgp_fpga_ddg_free(&g[l]);
}

/* The search over that stencil (c of 5 trips: no unroll of any loop divides its trips but 1).
   Choices: none (1 design: no loop copied, no partition); c, its window of 49 operations within
   4096 (none, then filter and orig cyclic on their only dimension by the 9 copies of k1 x k2
   rounded down to 8, then 4, 2: 4 designs); k1 (none, cyclic 2 from k2's 3 copies: 2); k2 (1):
   8 designs. The fastest, pipelining c with cyclic 8: filter's elements 0..8 fall in banks
   0..7 (0 and 8 share bank 0: 2 reads), orig's 8 k1 + k2 in bank k2 (3 reads each): II 2;
   orig's reads of k1 = 2 go in cycle 1, ready 2, multiplied by 4, added in 4: IL 5,
   2 x 4 + 5 = 13 (cyclic 4 gives 13 too, with the same operators: the first is kept). The best
   design pipelining one level, k1 with both arrays cyclic 2 (filter's 0, 1, 2 and orig's k2 in
   banks 0, 1, 0: II 1; reads in 0, IL 4: 2 + 4 = 6 a run of k1), takes 5 x (1 + 6 + 1) = 40. */
Test(fpga_design, search_pipelines_a_loop_over_a_two_level_nest_when_faster) {
  cgp_fpga_device d = fpga_book();
  cgp_fpga_ddg g[3];
  cgp_fpga_access acc[3][8];
  cgp_fpga_nest n;
  stencil(&n, g, acc, 5);
  cgp_fpga_design best;
  cgp_fpga_estimate be;
  cgp_fpga_search_count count;
  char err[256] = "";
  cr_assert_eq(cgp_fpga_search(&d, &n, &best, &be, &count, err, sizeof err), 0, "%s", err);
  cr_expect_eq(count.tried, 8);
  cr_expect_eq(count.fitting, 8);
  cr_expect_eq(count.refused, 0);
  cr_expect_eq(best.pipeline, 0);
  cr_expect_eq(best.part[0], CGP_PART_CYCLIC);
  cr_expect_eq(best.factor[0], 8);
  cr_expect_eq(best.part[1], CGP_PART_CYCLIC);
  cr_expect_eq(best.factor[1], 8);
  cr_expect_eq(be.ii[0], 2);
  cr_expect_eq(be.il[0], 5);
  cr_expect_eq(be.cycles, 13);
  cgp_fpga_design ds = best;
  ds.factor[0] = ds.factor[1] = 4;
  cgp_fpga_estimate e = eval(&d, &n, &ds);
  cr_expect_eq(e.cycles, 13);
  cr_expect_eq(e.dsp, be.dsp);
  cgp_fpga_design_baseline(&ds);
  ds.pipeline = 1;
  ds.part[0] = ds.part[1] = CGP_PART_CYCLIC, ds.factor[0] = ds.factor[1] = 2;
  e = eval(&d, &n, &ds);
  cr_expect_eq(e.ii[1], 1);
  cr_expect_eq(e.il[1], 4);
  cr_expect_eq(e.cycles, 40);
  for (int l = 0; l < 3; l++) cgp_fpga_ddg_free(&g[l]);
}
