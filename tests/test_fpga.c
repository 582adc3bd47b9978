/* The FPGA estimator's core (docs/model.md section 11): Kastner, Matai, Neuendorffer, "Parallel
   Programming for FPGAs" (2018, KastnerRG/pp4fpgas), worked examples exactly, with the book's
   operator assumptions as a test device; partitioning and port cases computed by hand. Chapters
   and sections are the book's (its LaTeX source: the PDF's page numbers were not checked). */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_fpga.h"
#include "fpga_book.h"

/* The book's assumptions (tests/fpga_book.h): a read has latency 1 (address, then data), a write
   0 (at the end of its cycle); a multiply "takes three cycles" (latency 2, usable in its third);
   the add chains (latency 0); floating-point operators take 4 cycles. No delays unless a test sets
   them. Here at a clock of the test's choosing, with no resource given (0), as these tests count
   the resources a design uses rather than bound it. */
static cgp_fpga_device book(double mhz) {
  cgp_fpga_device d = fpga_book();
  d.clock_mhz = mhz;
  d.dsp = d.bram18k = d.lut = d.ff = 0;
  return d;
}

static void set_impl(cgp_fpga_device *d, cgp_fpga_opkind op, unsigned latency, double delay) {
  for (unsigned i = 0; i < d->n_impls; i++)
    if (d->impls[i].op == op) d->impls[i].latency = latency, d->impls[i].delay_ns = delay;
}

static int node(cgp_fpga_ddg *g, cgp_fpga_opkind op, cgp_fpga_type t, int array, unsigned bank) {
  int v = cgp_fpga_ddg_add(g, op, t, 32, array, bank);
  cr_assert_geq(v, 0);
  return v;
}

static void edge(cgp_fpga_ddg *g, int from, int to, unsigned distance, int memory) {
  cr_assert_eq(cgp_fpga_ddg_edge(g, (unsigned)from, (unsigned)to, distance, memory), 0);
}

static cgp_fpga_sched run(const cgp_fpga_device *d, cgp_fpga_ddg *g, const cgp_fpga_limits *lim, int pipelined) {
  cgp_fpga_sched s;
  char err[256] = "";
  cr_assert_eq(cgp_fpga_schedule(d, g, lim, pipelined, &s, err, sizeof err), 0, "%s", err);
  return s;
}

static uint64_t loop_latency(const cgp_fpga_device *d, cgp_fpga_loop l) {
  uint64_t c = 0;
  char err[256] = "";
  cr_assert_eq(cgp_fpga_loop_latency(d, &l, &c, err, sizeof err), 0, "%s", err);
  return c;
}

/* The MAC loop: acc += shift_reg[i] * c[i] (two reads, a multiply, the add on acc). */
static void mac(cgp_fpga_ddg *g) {
  cgp_fpga_ddg_init(g);
  int rc = node(g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), rs = node(g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 1, 0);
  int m = node(g, CGP_FOP_MUL, CGP_FTYPE_INT, -1, 0), a = node(g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
  edge(g, rc, m, 0, 0), edge(g, rs, m, 0, 0), edge(g, m, a, 0, 0), edge(g, a, a, 1, 0);
}

/* Ch. 2 "FIR Filters", section 2.9 "Loop Pipelining", fig. pipeline_mac: the reads in cycles 1-2,
   the multiply in 2-4, the add chained in 4: iteration latency 4; "the VHLS tool reports the
   latency of this MAC for loop as 44 cycles" (11 x 4 + 1 - 1); pipelined, II 1 and latency 14. */
Test(fpga, kastner_fir_mac_loop_is_44_cycles_and_14_pipelined) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  mac(&g);
  cgp_fpga_sched s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.start[0], 0);
  cr_expect_eq(s.start[1], 0, "both reads in the first cycle (different arrays)");
  cr_expect_eq(s.start[2], 1, "the multiply starts with the data");
  cr_expect_eq(s.ready[2], 3);
  cr_expect_eq(s.start[3], 3, "the add chained in the multiply's last cycle");
  cr_expect_eq(s.il, 4);
  cr_expect_eq(s.ii, 0, "not pipelined");
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 11, .unroll = 1, .il = s.il}), 44);
  cgp_fpga_sched_free(&s);
  s = run(&d, &g, NULL, 1);
  cr_expect_eq(s.ii, 1);
  cr_expect_eq(s.il, 4);
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 11, .unroll = 1, .il = s.il, .ii = s.ii, .pipelined = 1}), 14);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* The TDL loop: shift_reg[i] = shift_reg[i - 1], i = 10 .. 1. Section 2.9, fig. pipeline_tdl:
   the read takes cycles 1-2, the write is at the end of cycle 2: iteration latency 2, "the for loop
   latency for this non-pipelined loop is 20 cycles"; pipelined, II 1 on a dual-port RAM; with
   core=RAM_1P "the VHLS tool will fail to pipeline this loop with an II=1": II 2. */
Test(fpga, kastner_fir_tdl_loop_is_20_cycles_ii1_dual_port_ii2_single) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  int r = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), w = node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0);
  edge(&g, r, w, 0, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.il, 2);
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 10, .unroll = 1, .il = s.il}), 20);
  cgp_fpga_sched_free(&s);
  s = run(&d, &g, NULL, 1);
  cr_expect_eq(s.ii, 1);
  cr_expect_eq(s.ii_memory, 1, "one read and one write: the two ports, one of them writing");
  cgp_fpga_sched_free(&s);
  unsigned one[1] = {1};
  cgp_fpga_limits ram1p = {.n_arrays = 1, .ports = one, .write_ports = one};
  s = run(&d, &g, &ram1p, 1);
  cr_expect_eq(s.ii, 2);
  cr_expect_eq(s.bound, CGP_II_MEMORY);
  cr_expect_eq(s.bound_array, 0);
  cr_expect_eq(s.start[1], 1, "the write waits for its data, in the other slot of the one port");
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* Ch. 4 "Discrete Fourier Transform", section 4.7 "DFT optimization", fig.
   dft_recurrence_behavior: "the initiation interval of the loop is limited to 4, since each
   floating point addition takes 4 clock cycles to complete and the result is required before the
   next loop iteration begins". Window: a read, the multiply, the accumulating fadd. */
Test(fpga, kastner_dft_fadd_recurrence_limits_ii_to_4) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  int r = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), m = node(&g, CGP_FOP_FMUL, CGP_FTYPE_FLOAT, -1, 0);
  int a = node(&g, CGP_FOP_FADD, CGP_FTYPE_FLOAT, -1, 0);
  edge(&g, r, m, 0, 0), edge(&g, m, a, 0, 0), edge(&g, a, a, 1, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 1);
  cr_expect_eq(s.ii_recurrence, 4);
  cr_expect_eq(s.ii, 4);
  cr_expect_eq(s.bound, CGP_II_RECURRENCE);
  cr_expect_eq(s.il, 1 + 4 + 4 + 1, "read 1, fmul 4, fadd 4, the cycle the sum is captured in");
  /* 1024 iterations: 4 x 1023 + 10 */
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 1024, .unroll = 1, .il = s.il, .ii = s.ii, .pipelined = 1}),
               4 * 1023 + 10);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* Ch. 2, section 2.5 "Operation Chaining", fig. mac: a 3 ns multiply and a 2 ns add. At 1 ns the
   MAC takes 5 cycles, at 2 ns 3 (the add waits for cycle 3), at 5 ns 1 (chained). */
Test(fpga, kastner_chaining_mac_is_5_3_1_cycles_at_1_2_5_ns) {
  const double mhz[3] = {1000, 500, 200};
  const unsigned want[3] = {5, 3, 1};
  for (int i = 0; i < 3; i++) {
    cgp_fpga_device d = book(mhz[i]);
    set_impl(&d, CGP_FOP_MUL, 0, 3.0);
    set_impl(&d, CGP_FOP_ADD, 0, 2.0);
    cgp_fpga_ddg g;
    cgp_fpga_ddg_init(&g);
    int m = node(&g, CGP_FOP_MUL, CGP_FTYPE_INT, -1, 0), a = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
    edge(&g, m, a, 0, 0);
    cgp_fpga_sched s = run(&d, &g, NULL, 0);
    cr_expect_eq(s.il, want[i], "clock %g ns: %u cycles, want %u", 1000 / mhz[i], s.il, want[i]);
    cgp_fpga_sched_free(&s);
    cgp_fpga_ddg_free(&g);
  }
}

/* Chaining against the budget: a 10 ns clock with 27 % uncertainty leaves 7.3 ns. Three 2.5 ns adds
   in a row: two chain (5 ns), the third (7.5 ns) does not fit and starts the next cycle. With
   12.5 % (8.75 ns) all three chain. */
Test(fpga, chaining_stops_at_the_period_less_the_uncertainty) {
  for (int k = 0; k < 2; k++) {
    cgp_fpga_device d = book(100);
    d.clock_uncertainty_pct = k ? 12.5 : 27;
    set_impl(&d, CGP_FOP_ADD, 0, 2.5);
    cgp_fpga_ddg g;
    cgp_fpga_ddg_init(&g);
    int a = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0), b = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
    int c = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
    edge(&g, a, b, 0, 0), edge(&g, b, c, 0, 0);
    cgp_fpga_sched s = run(&d, &g, NULL, 0);
    cr_expect_eq(s.start[1], 0);
    cr_expect_float_eq(s.start_ns[1], 2.5, 1e-12);
    cr_expect_eq(s.start[2], k ? 0u : 1u);
    cr_expect_float_eq(s.ready_ns[2], k ? 7.5 : 2.5, 1e-12);
    cr_expect_eq(s.il, k ? 1u : 2u);
    cgp_fpga_sched_free(&s);
    cgp_fpga_ddg_free(&g);
  }
}

/* Eight products and their adder tree (0+1, 2+3, 4+5, 6+7, then the pairs, then the sum): node
   order m0..m7, a0..a3, b0, b1, c. */
static void dot8(cgp_fpga_ddg *g) {
  cgp_fpga_ddg_init(g);
  for (int i = 0; i < 8; i++) node(g, CGP_FOP_MUL, CGP_FTYPE_INT, -1, 0);
  for (int i = 0; i < 7; i++) node(g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
  for (int i = 0; i < 4; i++) edge(g, 2 * i, 8 + i, 0, 0), edge(g, 2 * i + 1, 8 + i, 0, 0);
  edge(g, 8, 12, 0, 0), edge(g, 9, 12, 0, 0), edge(g, 10, 13, 0, 0), edge(g, 11, 13, 0, 0);
  edge(g, 12, 14, 0, 0), edge(g, 13, 14, 0, 0);
}

/* Ch. 4, section 4.4 "Pipelining and Parallelism" (fig. dft_behavior1): the unrolled 8-element
   dot product with a 3-cycle multiply and a 1-cycle add: products by the third step, log2 8 = 3
   adder levels, "a latency of 6 cycles for each iteration". Capped at 2 multipliers (hand
   schedule): products start at 0,0,1,1,2,2,3,3, ready 2,2,3,3,4,4,5,5; a0..a3 start 2,3,4,5; b0
   at 4, b1 at 6; the sum at 7, captured in 8: 9 cycles; a pipelined loop needs II ceil(8/2) = 4. */
Test(fpga, kastner_unrolled_dot_product_is_6_cycles_and_9_with_two_multipliers) {
  cgp_fpga_device d = book(100);
  set_impl(&d, CGP_FOP_ADD, 1, 0);
  cgp_fpga_ddg g;
  dot8(&g);
  cgp_fpga_sched s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.il, 6);
  cgp_fpga_sched_free(&s);
  cgp_fpga_limits two = {0};
  two.units[CGP_FOP_MUL] = 2;
  s = run(&d, &g, &two, 0);
  const unsigned start[15] = {0, 0, 1, 1, 2, 2, 3, 3, 2, 3, 4, 5, 4, 6, 7};
  for (int v = 0; v < 15; v++) cr_expect_eq(s.start[v], start[v], "node %d starts at %u, want %u", v, s.start[v], start[v]);
  cr_expect_eq(s.il, 9);
  cr_expect_eq(s.ii_units, 4);
  cgp_fpga_sched_free(&s);
  s = run(&d, &g, &two, 1);
  cr_expect_eq(s.ii, 4);
  cr_expect_eq(s.bound, CGP_II_UNITS);
  cr_expect_eq(s.bound_array, CGP_FOP_MUL);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* Ch. 8 "Prefix Sum and Histogram", section 8.3 "Histogram Optimization and False Dependencies":
   hist[x]++ reads, adds, writes back; "we must alternate between reads and writes" (II 2) unless
   the dependence directive says the distance is 2, then II 1. Store visible the cycle after it
   (cycle 2), the next read at 0: ceil((2 - 0) / distance). */
Test(fpga, kastner_histogram_memory_recurrence_is_ii2_or_ii1_at_distance_2) {
  for (unsigned dist = 1; dist <= 2; dist++) {
    cgp_fpga_device d = book(100);
    cgp_fpga_ddg g;
    cgp_fpga_ddg_init(&g);
    int r = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), a = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
    int w = node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0);
    edge(&g, r, a, 0, 0), edge(&g, a, w, 0, 0), edge(&g, w, r, dist, 1);
    cgp_fpga_sched s = run(&d, &g, NULL, 1);
    cr_expect_eq(s.finish[2], 1, "the write in the read's data cycle");
    cr_expect_eq(s.ii, dist == 1 ? 2u : 1u);
    cgp_fpga_sched_free(&s);
    cgp_fpga_ddg_free(&g);
  }
}

/* The histogram's dependence found from the trace's addresses (hist[] at 0x1000, 4-byte bins):
   window nodes read hist[x], add, write hist[x]. Bins 5, 7, 5 in windows 0, 1, 2: the write of
   window 0 reaches the read of window 2 (distance 2, II 1); bins 5, 5: distance 1, II 2; bins 5,
   7, 9: no dependence, II 1. */
Test(fpga, memory_dependences_from_addresses_set_the_distance) {
  const uint64_t bins[3][3] = {{5, 7, 5}, {5, 5, 5}, {5, 7, 9}};
  const unsigned want_dist[3] = {2, 1, 0}, want_ii[3] = {1, 2, 1};
  for (int k = 0; k < 3; k++) {
    cgp_fpga_device d = book(100);
    cgp_fpga_ddg g;
    cgp_fpga_ddg_init(&g);
    int r = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), a = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
    int w = node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0);
    edge(&g, r, a, 0, 0), edge(&g, a, w, 0, 0);
    uint64_t addr[9];
    for (int win = 0; win < 3; win++)
      addr[win * 3 + 0] = addr[win * 3 + 2] = 0x1000 + 4 * bins[k][win], addr[win * 3 + 1] = 0;
    cr_assert_eq(cgp_fpga_ddg_memory_edges(&g, addr, 3), 0);
    unsigned dist = 0;
    for (unsigned e = 0; e < g.n_edges; e++)
      if (g.edges[e].memory) {
        cr_expect_eq(g.edges[e].from, 2);
        cr_expect_eq(g.edges[e].to, 0);
        dist = g.edges[e].distance;
      }
    cr_expect_eq(dist, want_dist[k], "bins case %d: distance %u, want %u", k, dist, want_dist[k]);
    cgp_fpga_sched s = run(&d, &g, NULL, 1);
    cr_expect_eq(s.ii, want_ii[k], "bins case %d: II %u, want %u", k, s.ii, want_ii[k]);
    cgp_fpga_sched_free(&s);
    cgp_fpga_ddg_free(&g);
  }
}

/* Within a window (a loop unrolled by 2 that writes a[i] and reads it back in the next
   iteration): write a[0], read a[0], read a[1]: the first read waits for the write (visible the
   cycle after it, so it starts in cycle 1), the second does not. A window that writes an address
   before reading it ends a carried dependence: no edge from window 0's write. */
Test(fpga, memory_dependences_within_a_window_and_a_write_ends_them) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0), node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0);
  node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0);
  const uint64_t addr[6] = {0x100, 0x100, 0x104, 0x100, 0x100, 0x108};
  cr_assert_eq(cgp_fpga_ddg_memory_edges(&g, addr, 2), 0);
  cr_assert_eq(g.n_edges, 1, "only the write -> first read, within the window");
  cr_expect_eq(g.edges[0].from, 0);
  cr_expect_eq(g.edges[0].to, 1);
  cr_expect_eq(g.edges[0].distance, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.start[1], 1);
  cr_expect_eq(s.start[2], 0);
  cgp_fpga_sched_free(&s);
  cr_expect_neq(cgp_fpga_ddg_memory_edges(&g, addr, 0), 0, "no window");
  cgp_fpga_ddg_free(&g);
}

/* Operator instances and their cost. The book device: a multiply is 3 DSP, an add 32 LUT.
   The dot product, not pipelined: 8 multiplies start in cycle 0 (8 multipliers, 24 DSP), the 7
   adds are never shared (224 LUT); capped at 2 multipliers: 2 (6 DSP), still 7 adders. The MAC
   pipelined at II 1: one multiplier, one adder. */
Test(fpga, operator_instances_and_their_cost) {
  cgp_fpga_device d = book(100);
  set_impl(&d, CGP_FOP_ADD, 1, 0);
  cgp_fpga_ddg g;
  dot8(&g);
  cgp_fpga_usage u;
  cgp_fpga_sched s = run(&d, &g, NULL, 0);
  cr_assert_eq(cgp_fpga_sched_usage(&d, &g, &s, &u), 0);
  cr_expect_eq(u.units[CGP_FOP_MUL], 8);
  cr_expect_eq(u.units[CGP_FOP_ADD], 7);
  cr_expect_eq(u.dsp, 24);
  cr_expect_eq(u.lut, 224);
  cgp_fpga_sched_free(&s);
  cgp_fpga_limits two = {0};
  two.units[CGP_FOP_MUL] = 2;
  s = run(&d, &g, &two, 0);
  cr_assert_eq(cgp_fpga_sched_usage(&d, &g, &s, &u), 0);
  cr_expect_eq(u.units[CGP_FOP_MUL], 2);
  cr_expect_eq(u.dsp, 6);
  cr_expect_eq(u.units[CGP_FOP_ADD], 7);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
  mac(&g);
  s = run(&d, &g, NULL, 1);
  cr_assert_eq(cgp_fpga_sched_usage(&d, &g, &s, &u), 0);
  cr_expect_eq(u.units[CGP_FOP_MUL], 1);
  cr_expect_eq(u.units[CGP_FOP_ADD], 1);
  cr_expect_eq(u.units[CGP_FOP_LOAD], 0, "memories are not operators");
  cr_expect_eq(u.dsp, 3);
  cr_expect_eq(u.lut, 32);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* ---- Partitioning (hand-computed) ---- */

static cgp_fpga_array vec(uint64_t n, cgp_fpga_part p, unsigned f) {
  cgp_fpga_array a = {.width_bits = 32, .ndims = 1, .dims = {n}, .part = {p}, .factor = {f}};
  char err[128];
  cr_assert_eq(cgp_fpga_array_check(&a, err, sizeof err), 0, "%s", err);
  return a;
}

/* float A[1024]: 1024 x 32 bits. One bank: 512 x 36 shapes need 1 x 2, 1024 x 18 need 2 x 1: 2.
   Cyclic 2: two banks of 512 words, 1 each: 2. Cyclic 4: four of 256: 4. Block 3: banks of 342,
   342, 340 words: 3. Complete: registers, no block RAM, 32768 flip-flops. */
Test(fpga, partition_banks_and_bram18k_cost) {
  cgp_fpga_device d = book(100);
  cgp_fpga_array a = vec(1024, CGP_PART_NONE, 0);
  cr_expect_eq(cgp_fpga_banks(&a), 1);
  cr_expect_eq(cgp_fpga_bram18k(&d, &a), 2);
  a = vec(1024, CGP_PART_CYCLIC, 2);
  cr_expect_eq(cgp_fpga_banks(&a), 2);
  cr_expect_eq(cgp_fpga_bank_words(&a), 512);
  cr_expect_eq(cgp_fpga_bram18k(&d, &a), 2);
  a = vec(1024, CGP_PART_CYCLIC, 4);
  cr_expect_eq(cgp_fpga_bram18k(&d, &a), 4);
  uint64_t i = 1023;
  cr_expect_eq(cgp_fpga_bank(&a, &i), 3);
  a = vec(1024, CGP_PART_BLOCK, 3);
  cr_expect_eq(cgp_fpga_banks(&a), 3);
  cr_expect_eq(cgp_fpga_bank_words(&a), 342);
  i = 341;
  cr_expect_eq(cgp_fpga_bank(&a, &i), 0);
  i = 342;
  cr_expect_eq(cgp_fpga_bank(&a, &i), 1);
  cr_expect_eq(cgp_fpga_bram18k(&d, &a), 3);
  a = vec(1024, CGP_PART_COMPLETE, 0);
  cr_expect(cgp_fpga_is_registers(&a));
  cr_expect_eq(cgp_fpga_bram18k(&d, &a), 0);
  cr_expect_eq(cgp_fpga_array_ff(&a), 32768);
  /* 4096 words: 8 blocks at every shape (36 x 512: 1 x 8; 9 x 2048: 4 x 2; 1 x 16384: 32 x 1 = 32) */
  a = vec(4096, CGP_PART_NONE, 0);
  cr_expect_eq(cgp_fpga_bram18k(&d, &a), 8);
}

/* float B[64][64], cyclic 2 on the rows and block 4 on the columns: 2 x 4 = 8 banks of 32 x 16 =
   512 words (1 block each: 8). B[3][40]: row bank 3 mod 2 = 1, column bank 40 / 16 = 2: 1 x 4 + 2. */
Test(fpga, partition_per_dimension_combines_row_major) {
  cgp_fpga_device d = book(100);
  cgp_fpga_array b = {.width_bits = 32, .ndims = 2, .dims = {64, 64}, .part = {CGP_PART_CYCLIC, CGP_PART_BLOCK},
                      .factor = {2, 4}};
  char err[128];
  cr_assert_eq(cgp_fpga_array_check(&b, err, sizeof err), 0, "%s", err);
  cr_expect_eq(cgp_fpga_banks(&b), 8);
  cr_expect_eq(cgp_fpga_bank_words(&b), 512);
  uint64_t idx[2] = {3, 40};
  cr_expect_eq(cgp_fpga_bank(&b, idx), 6);
  cr_expect_eq(cgp_fpga_bram18k(&d, &b), 8);
  b.part[0] = CGP_PART_COMPLETE, b.part[1] = CGP_PART_NONE;
  cr_expect_eq(cgp_fpga_banks(&b), 64, "complete on the rows: a memory per row");
  cr_expect_eq(cgp_fpga_bram18k(&d, &b), 64, "64 rows of 64 words: a block each");
  cr_expect_not(cgp_fpga_is_registers(&b));
  b.factor[0] = 0, b.part[0] = CGP_PART_CYCLIC;
  cr_expect_neq(cgp_fpga_array_check(&b, err, sizeof err), 0);
  cr_expect(strstr(err, "dimension 1"), "%s", err);
}

/* A[4k .. 4k+3] read in one window (the loop unrolled by 4), k = 5: elements 20..23. Unpartitioned:
   four reads on one bank's two ports, II 2; cyclic 2: banks 0,1,0,1, two reads each, II 1; block 2
   (banks of 512): all four in bank 0, II 2; complete: registers, II 1. */
Test(fpga, partitioning_sets_the_memory_bound) {
  cgp_fpga_device d = book(100);
  const cgp_fpga_part kind[4] = {CGP_PART_NONE, CGP_PART_CYCLIC, CGP_PART_BLOCK, CGP_PART_COMPLETE};
  const unsigned want_mem[4] = {2, 1, 2, 0}, want_ii[4] = {2, 1, 2, 1};
  for (int p = 0; p < 4; p++) {
    cgp_fpga_array a = vec(1024, kind[p], 2);
    cgp_fpga_ddg g;
    cgp_fpga_ddg_init(&g);
    for (uint64_t e = 20; e < 24; e++) node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, (unsigned)cgp_fpga_bank(&a, &e));
    unsigned ports[1] = {cgp_fpga_is_registers(&a) ? CGP_FPGA_UNLIMITED : 0}, wports[1] = {ports[0]};
    cgp_fpga_limits lim = {.n_arrays = 1, .ports = ports, .write_ports = wports};
    cgp_fpga_sched s = run(&d, &g, &lim, 1);
    cr_expect_eq(s.ii_memory, want_mem[p], "partition %d: memory bound %u, want %u", p, s.ii_memory, want_mem[p]);
    cr_expect_eq(s.ii, want_ii[p], "partition %d: II %u, want %u", p, s.ii, want_ii[p]);
    cgp_fpga_sched_free(&s);
    cgp_fpga_ddg_free(&g);
  }
}

/* Two writes to one bank in a window: two accesses fit the two ports, but only one may write: II 2. */
Test(fpga, one_write_per_bank_per_cycle) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0), node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 1);
  cr_expect_eq(s.ii_memory, 2);
  cr_expect_eq(s.ii, 2);
  cr_expect_eq(s.start[1], 1, "the second write in the other slot");
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* Two reads and two writes of one bank (different addresses) in a pipelined window: the bound is
   max(ceil(4 / 2), ceil(2 / 1)) = 2, met by read+write in each of the two slots. Taken greedily,
   both reads would fill slot 0 and leave the second write no slot; the first read keeps slot 0,
   the second goes to cycle 1, the writes to 0 and 1. */
Test(fpga, modulo_schedule_keeps_a_port_for_each_write) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0);
  node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0), node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 0, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 1);
  cr_expect_eq(s.ii_memory, 2);
  cr_expect_eq(s.ii, 2);
  const unsigned start[4] = {0, 1, 0, 1};
  for (int v = 0; v < 4; v++) cr_expect_eq(s.start[v], start[v], "node %d at %u, want %u", v, s.start[v], start[v]);
  cr_expect_eq(s.il, 3, "the second read's data in cycle 2");
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

/* ---- Loops ---- */

/* Nested, not pipelined: inner 128 x 9 = 1152; the outer body is its own 1 cycle + 1152 + the
   inner loop's exit cycle: 1154; 128 x 1154 = 147712. Unrolled by 4 and pipelined at II 1 with
   IL 12: ceil(128 / 4) = 32 iterations, 31 + 12 = 43. Unroll 3 of 10 trips: 4 iterations. */
Test(fpga, loops_compose_and_unrolling_divides_the_trips) {
  cgp_fpga_device d = book(100);
  cgp_fpga_loop inner = {.trips = 128, .unroll = 1, .il = 9};
  cr_expect_eq(loop_latency(&d, inner), 1152);
  cgp_fpga_loop outer = {.trips = 128, .unroll = 1, .il = 1, .children = &inner, .n_children = 1};
  cr_expect_eq(loop_latency(&d, outer), 147712);
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 128, .unroll = 4, .il = 12, .ii = 1, .pipelined = 1}), 43);
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 10, .unroll = 3, .il = 5}), 20);
  d.loop_iteration_overhead = 1, d.loop_pipeline_overhead = 2;
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 10, .unroll = 1, .il = 5}), 60, "10 x (5 + 1)");
  cr_expect_eq(loop_latency(&d, (cgp_fpga_loop){.trips = 10, .unroll = 1, .il = 5, .ii = 2, .pipelined = 1}), 25,
               "2 x 9 + 5 + 2");
  uint64_t c;
  char err[256];
  cgp_fpga_loop bad = {.trips = 10, .unroll = 0, .il = 5};
  cr_expect_neq(cgp_fpga_loop_latency(&d, &bad, &c, err, sizeof err), 0);
  cr_expect(strstr(err, "unroll"), "%s", err);
  cgp_fpga_loop piped_parent = {.trips = 10, .unroll = 1, .il = 5, .ii = 1, .pipelined = 1, .children = &inner,
                                .n_children = 1};
  cr_expect_neq(cgp_fpga_loop_latency(&d, &piped_parent, &c, err, sizeof err), 0);
  cgp_fpga_loop huge = {.trips = UINT64_MAX, .unroll = 1, .il = 1u << 30};
  cr_expect_neq(cgp_fpga_loop_latency(&d, &huge, &c, err, sizeof err), 0);
  cr_expect(strstr(err, "2^63"), "%s", err);
}

/* On the shipped ZC702 (fadd latency 4, fmul 3, load 1; each FP core's stages fill the 8.75 ns
   budget): a result leaves a core at its last stage's delay (docs/model.md 11.2), so no consumer
   chains into that cycle: the read's data at (1, 2.0 ns), the fmul from cycle 2 (2.0 + 8.75 >
   8.75) ready at (5, 8.75), the fadd from 6 ready at (10, 8.75): IL 11; the sum reaches the next
   iteration's fadd a cycle after it is ready: II 4 + 1 = 5, the stage count of Vivado's 7-series
   fadd core at 100 MHz (fadd_32ns_32ns_32_5_full_dsp). One fadd and one fmul. */
Test(fpga, zc702_table_gives_the_fadd_recurrence_5) {
  cgp_fpga_device d;
  char err[512] = "";
  cr_assert_eq(cgp_fpga_device_find("zc702", &d, err, sizeof err), 0, "%s", err);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  int r = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), m = node(&g, CGP_FOP_FMUL, CGP_FTYPE_FLOAT, -1, 0);
  int a = node(&g, CGP_FOP_FADD, CGP_FTYPE_FLOAT, -1, 0);
  edge(&g, r, m, 0, 0), edge(&g, m, a, 0, 0), edge(&g, a, a, 1, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 1);
  cr_expect_eq(s.ii, 5);
  cr_expect_eq(s.start[m], 2);
  cr_expect_eq(s.start[a], 6);
  cr_expect_eq(s.il, 11);
  cr_expect_eq(g.nodes[a].latency, 4);
  /* one fadd (2 DSP, 390 LUT, 205 FF) and one fmul (3, 321, 143): 5 DSP, 711 LUT, 348 FF */
  cgp_fpga_usage u;
  cr_assert_eq(cgp_fpga_sched_usage(&d, &g, &s, &u), 0);
  cr_expect_eq(u.units[CGP_FOP_FADD], 1);
  cr_expect_eq(u.units[CGP_FOP_FMUL], 1);
  cr_expect_eq(u.dsp, 5);
  cr_expect_eq(u.lut, 711);
  cr_expect_eq(u.ff, 348);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}

Test(fpga, missing_operator_is_named) {
  cgp_fpga_device d = book(100);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  node(&g, CGP_FOP_FDIV, CGP_FTYPE_FLOAT, -1, 0);
  cgp_fpga_sched s;
  char err[256] = "";
  cr_expect_neq(cgp_fpga_schedule(&d, &g, NULL, 0, &s, err, sizeof err), 0);
  cr_expect(strstr(err, "kastner") && strstr(err, "fdiv (float)"), "%s", err);
  cgp_fpga_ddg_free(&g);
  cr_expect_neq(cgp_fpga_ddg_edge(&g, 0, 0, 0, 0), 0, "no such node");
}

/* docs/model.md 11.2 and 11.5: on the ZCU102 table at 7.3 ns (load 1 at 1.23 ns, fmul 2 at 7.01,
   fadd 3 at 6.43, store 0 at 1.23, add 0 at 1.01) a registered operation's result leaves its last
   stage at the stage's delay, so what follows chains only if its own delay fits after it.
   atax's window (load, fmul, fadd into the accumulator): the fmul waits a cycle for the read's
   data (1.23 + 7.01 > 7.3), the fadd one for the product (7.01 + 6.43 > 7.3): 0 | 1 | 2-4 | 5-8:
   IL 9, Vivado's. mvt's (the sum stored): the store waits too (6.43 + 1.23 > 7.3): IL 10,
   Vivado's. An integer add after the read's data chains (1.23 + 1.01), after the product not. */
Test(fpga, a_registered_result_leaves_at_its_last_stage_delay_atax_9_mvt_10) {
  cgp_fpga_device d;
  char err[512] = "";
  cr_assert_eq(cgp_fpga_device_find("zcu102", &d, err, sizeof err), 0, "%s", err);
  cgp_fpga_ddg g;
  cgp_fpga_ddg_init(&g);
  int ra = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), rx = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 1, 0);
  int m = node(&g, CGP_FOP_FMUL, CGP_FTYPE_FLOAT, -1, 0), a = node(&g, CGP_FOP_FADD, CGP_FTYPE_FLOAT, -1, 0);
  edge(&g, ra, m, 0, 0), edge(&g, rx, m, 0, 0), edge(&g, m, a, 0, 0), edge(&g, a, a, 1, 0);
  cgp_fpga_sched s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.start[m], 2);
  cr_expect_eq(s.start[a], 5);
  cr_expect_eq(s.il, 9);
  cr_expect_eq(s.ii_recurrence, 4, "the sum reaches the next fadd a cycle after its 3 stages: fadd_..._4_");
  cgp_fpga_sched_free(&s);
  int st = node(&g, CGP_FOP_STORE, CGP_FTYPE_MEM, 2, 0);
  edge(&g, a, st, 0, 0);
  s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.start[st], 9);
  cr_expect_eq(s.il, 10);
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
  /* integer adds: after the read's data in its cycle, after the product the next */
  cgp_fpga_ddg_init(&g);
  int r = node(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 0, 0), i1 = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
  int m2 = node(&g, CGP_FOP_FMUL, CGP_FTYPE_FLOAT, -1, 0), i2 = node(&g, CGP_FOP_ADD, CGP_FTYPE_INT, -1, 0);
  edge(&g, r, i1, 0, 0), edge(&g, r, m2, 0, 0), edge(&g, m2, i2, 0, 0);
  s = run(&d, &g, NULL, 0);
  cr_expect_eq(s.start[i1], 1);
  cr_expect_eq(s.start[m2], 2);
  cr_expect_eq(s.start[i2], 5, "product ready at (4, 7.01 ns): 7.01 + 1.01 > 7.3");
  cgp_fpga_sched_free(&s);
  cgp_fpga_ddg_free(&g);
}
