/* cgp_fpga.h: the FPGA estimator's core (docs/model.md section 11). An FPGA device file
   (devices/<name>.json with "kind": "fpga"), the data-dependence graph of one iteration window of
   the innermost loop that is not fully unrolled, its resource-constrained list schedule with
   operator chaining, the initiation interval's bounds, loop latencies composed over a nest, and
   array partitioning with its block-RAM cost. Reads numbers, never traces; nothing here prints or
   exits: a function that can fail returns nonzero and fills err. */
#ifndef CGP_FPGA_H
#define CGP_FPGA_H

#include <stddef.h>
#include <stdint.h>

/* ---- Operations ---- */

/* What an operation is, as the operator table names it (the JSON "op" strings, same order). */
typedef enum {
  CGP_FOP_LOAD, CGP_FOP_STORE, CGP_FOP_ADD, CGP_FOP_SUB, CGP_FOP_MUL, CGP_FOP_DIV, CGP_FOP_SHIFT,
  CGP_FOP_LOGIC, CGP_FOP_ICMP, CGP_FOP_SELECT, CGP_FOP_CAST, CGP_FOP_SITOFP, CGP_FOP_FPTOSI,
  CGP_FOP_FADD, CGP_FOP_FSUB, CGP_FOP_FMUL, CGP_FOP_FDIV, CGP_FOP_FCMP, CGP_FOP_COUNT
} cgp_fpga_opkind;

/* Operand type of an operator-table entry. */
typedef enum { CGP_FTYPE_INT, CGP_FTYPE_FLOAT, CGP_FTYPE_MEM } cgp_fpga_type;

/* The JSON name of an operation kind ("fadd"), or NULL for an invalid one. */
const char *cgp_fpga_op_name(cgp_fpga_opkind op);

/* One implementation of an operation. latency: cycles from the cycle the operation starts to the
   cycle its result can be used (0 = combinational, usable in the same cycle after delay_ns);
   delay_ns: the combinational delay it adds in the cycle it starts. */
typedef struct cgp_fpga_impl {
  cgp_fpga_opkind op;
  cgp_fpga_type type;
  unsigned width, latency;
  double delay_ns;
  unsigned dsp, lut, ff;
} cgp_fpga_impl;

/* ---- Devices ---- */

#define CGP_FPGA_MAX_IMPLS 256
#define CGP_FPGA_MAX_BRAM_CONFIGS 16

/* An FPGA, every number from its device file (each cited there; schema: devices/device.schema.json,
   $defs/fpga). */
typedef struct cgp_fpga_device {
  char name[64], description[160], part[48];
  double clock_mhz, clock_uncertainty_pct;
  unsigned dsp, bram18k, uram, lut, ff;          /* capacities */
  unsigned bram_ports, bram_write_ports;         /* accesses per bank per cycle; writes among them */
  unsigned bram_configs[CGP_FPGA_MAX_BRAM_CONFIGS][2]; /* [width bits, depth words] of one BRAM18K */
  unsigned n_bram_configs;
  unsigned loop_iteration_overhead, loop_pipeline_overhead, loop_exit_cycles;
  double offchip_bandwidth_bytes_per_s;
  unsigned axi_data_bits, burst_setup_cycles, max_burst_beats;
  cgp_fpga_impl impls[CGP_FPGA_MAX_IMPLS];
  unsigned n_impls;
} cgp_fpga_device;

/* Load and check an FPGA device file; nonzero with err naming the file and the field on failure. */
int cgp_fpga_device_load_file(const char *path, cgp_fpga_device *dev, char *err, size_t errlen);
/* Find <devices dir>/<name>.json (cgp_devices_dir()) and load it as an FPGA. A GPU file or an
   unknown name fails with a message saying so (the latter listing the FPGA devices). */
int cgp_fpga_device_find(const char *name, cgp_fpga_device *dev, char *err, size_t errlen);
/* Every FPGA device file of that folder, sorted by name; free with cgp_device_names_free. */
size_t cgp_fpga_device_all_names(char ***names);
/* 1 if the regular file at path is a JSON object whose "kind" is "fpga", else 0 (unreadable,
   not JSON, no kind, another kind: 0, so that the GPU loader reports what is wrong with it). */
int cgp_device_file_is_fpga(const char *path);
/* 1 if `name` (no '/') names an FPGA device file of the devices folder (cgp_devices_dir()). */
int cgp_device_name_is_fpga(const char *name);

/* The clock budget chaining may fill: period x (1 - uncertainty), ns (docs/model.md 11.2). */
double cgp_fpga_budget_ns(const cgp_fpga_device *d);
/* The implementation the scheduler uses for (op, type, width): among the entries with that op and
   type, the narrowest width >= the asked one (else the widest), and of those the lowest latency
   whose delay fits budget_ns (else the one with the smallest delay). NULL when the table has no
   entry for op and type. */
const cgp_fpga_impl *cgp_fpga_pick_impl(const cgp_fpga_device *d, cgp_fpga_opkind op, cgp_fpga_type type,
                                        unsigned width, double budget_ns);

/* ---- The data-dependence graph of one iteration window (model/cgp_fpga_ddg.c) ---- */

#define CGP_FPGA_NO_ARRAY (-1)

typedef struct cgp_fpga_node {
  cgp_fpga_opkind op;
  cgp_fpga_type type;
  unsigned width;
  int array;        /* loads and stores: the array's index in the kernel's array list; else CGP_FPGA_NO_ARRAY */
  unsigned bank;    /* loads and stores: the partition bank the address falls in (cgp_fpga_bank) */
  unsigned latency; /* filled by cgp_fpga_schedule from the device's table */
  double delay_ns;
  int induction;    /* an induction variable's update (i + constant): unrolled copies are i + c, in
                       parallel, not a chain (cgp_fpga_design_eval); set by whoever builds the graph */
} cgp_fpga_node;

typedef struct cgp_fpga_edge {
  unsigned from, to;
  unsigned distance; /* 0: within the window; d > 0: from window w to window w + d (loop-carried) */
  int memory;        /* 1: through memory (a store, then a load or store of the same address) */
} cgp_fpga_edge;

typedef struct cgp_fpga_ddg {
  cgp_fpga_node *nodes;
  cgp_fpga_edge *edges;
  unsigned n_nodes, n_edges, cap_nodes, cap_edges;
} cgp_fpga_ddg;

void cgp_fpga_ddg_init(cgp_fpga_ddg *g);
void cgp_fpga_ddg_free(cgp_fpga_ddg *g);
/* Append a node; returns its index, or -1 when out of memory. array/bank only for loads and stores. */
int cgp_fpga_ddg_add(cgp_fpga_ddg *g, cgp_fpga_opkind op, cgp_fpga_type type, unsigned width, int array,
                     unsigned bank);
/* A true dependence from -> to (to uses from's result, or reads what from stored), distance windows
   later; -1 when out of memory or a node does not exist. Edges within a window must go forward
   (from < to): nodes are added in program order. */
int cgp_fpga_ddg_edge(cgp_fpga_ddg *g, unsigned from, unsigned to, unsigned distance, int memory);

/* The true dependences through memory, from the addresses the window's memory operations touch
   in `windows` consecutive windows of the trace: addr[w * n_nodes + v] is node v's address in
   window w (ignored for other nodes; distinct arrays never share an address). Within window 0, a
   load depends on the last store before it to its address (distance 0). Across windows, the last
   store of window 0 to an address reaches the first later access to it: a load d windows later
   gets an edge of distance d, a store ends the search. Dynamic, as Lin-Analyzer and Lina: two
   iterations that happen to touch different addresses are independent here even where HLS, not
   knowing the addresses, would assume the worst. 0, or -1 when out of memory or windows is 0. */
int cgp_fpga_ddg_memory_edges(cgp_fpga_ddg *g, const uint64_t *addr, unsigned windows);

/* ---- Arrays and partitioning (model/cgp_fpga_mem.c) ---- */

#define CGP_FPGA_MAX_DIMS 4
typedef enum { CGP_PART_NONE, CGP_PART_CYCLIC, CGP_PART_BLOCK, CGP_PART_COMPLETE } cgp_fpga_part;

/* An on-chip array: element width, dimensions (row-major, dims[0] outermost) and, per dimension,
   how it is partitioned (factor: banks for cyclic and block; ignored for none and complete). */
typedef struct cgp_fpga_array {
  unsigned width_bits, ndims;
  uint64_t dims[CGP_FPGA_MAX_DIMS];
  cgp_fpga_part part[CGP_FPGA_MAX_DIMS];
  unsigned factor[CGP_FPGA_MAX_DIMS];
} cgp_fpga_array;

/* Check an array description (1 to 4 dimensions of at least 1, a width, factors of at least 1 for
   cyclic and block, at most 2^32 banks); nonzero with err naming the dimension on failure. */
int cgp_fpga_array_check(const cgp_fpga_array *a, char *err, size_t errlen);
/* Banks of dimension k, and of the whole array (their product). */
uint64_t cgp_fpga_dim_banks(const cgp_fpga_array *a, unsigned k);
uint64_t cgp_fpga_banks(const cgp_fpga_array *a);
/* The bank an element falls in: per dimension, cyclic i mod F, block i / ceil(n / F), complete i,
   none 0; combined row-major over the dimensions (mixed radix). idx has ndims entries. */
uint64_t cgp_fpga_bank(const cgp_fpga_array *a, const uint64_t *idx);
/* Words one bank holds: the product over dimensions of ceil(n / banks). */
uint64_t cgp_fpga_bank_words(const cgp_fpga_array *a);
/* 1 when every dimension is completely partitioned: the array is registers, no block RAM, and
   every element can be read and written every cycle. */
int cgp_fpga_is_registers(const cgp_fpga_array *a);
/* BRAM18K blocks the array takes: 0 for registers; else banks x the fewest blocks of one bank,
   min over the device's [width, depth] shapes of ceil(width_bits / w) x ceil(words / depth). */
uint64_t cgp_fpga_bram18k(const cgp_fpga_device *d, const cgp_fpga_array *a);
/* Flip-flops of an array held in registers (elements x width_bits); 0 otherwise. */
uint64_t cgp_fpga_array_ff(const cgp_fpga_array *a);

/* ---- Off-chip memory (model/cgp_fpga_mem.c, docs/model.md 11.14) ---- */

/* Bytes one AXI master moves a cycle at the kernel's clock: its data width, unless the board's
   memory bandwidth over the clock is lower. */
double cgp_fpga_offchip_bytes_per_cycle(const cgp_fpga_device *d);
/* Cycles to move `bytes` in `ranges` contiguous pieces between off-chip memory and the design:
   each piece waits the m_axi latency (burst_setup_cycles) once, its bursts then stream back to
   back (HLS keeps several bursts outstanding); ranges x setup + ceil(bytes / bytes per cycle).
   0 bytes: 0. */
uint64_t cgp_fpga_offchip_cycles(const cgp_fpga_device *d, uint64_t bytes, uint64_t ranges);
/* BRAM18Ks that hold `bytes` as one unpartitioned array of 32-bit words (cgp_fpga_bram18k). */
uint64_t cgp_fpga_buffer_bram18k(const cgp_fpga_device *d, uint64_t bytes);

/* ---- Scheduling (model/cgp_fpga_sched.c) ---- */

#define CGP_FPGA_UNLIMITED 0xffffffffu

/* What the scheduler may use beyond the device's table. ports / write_ports per bank of each array
   the graph names (n_arrays of them; 0 = the device's bram_ports / bram_write_ports;
   CGP_FPGA_UNLIMITED for arrays in registers); units[op]: at most that many operators of kind op
   (each fully pipelined: one new operation per operator per cycle), 0 = no cap. */
typedef struct cgp_fpga_limits {
  unsigned n_arrays;
  const unsigned *ports, *write_ports;
  unsigned units[CGP_FOP_COUNT];
} cgp_fpga_limits;

/* What bounds the initiation interval. */
typedef enum { CGP_II_NONE, CGP_II_MEMORY, CGP_II_UNITS, CGP_II_RECURRENCE } cgp_fpga_ii_bound;

/* One window's schedule. Per node: the cycle and offset (ns) it starts, the cycle and offset its
   result is ready, the last cycle it occupies. il: cycles from the window's first cycle to its
   last occupied one, inclusive. The II bounds are computed for every loop; ii is the interval
   the pipelined schedule achieved (0 when not pipelined). */
typedef struct cgp_fpga_sched {
  unsigned n;
  unsigned *start, *ready, *finish;
  double *start_ns, *ready_ns;
  unsigned il, ii, ii_memory, ii_units, ii_recurrence;
  cgp_fpga_ii_bound bound;
  int bound_array;       /* CGP_II_MEMORY: the array whose bank binds; CGP_II_UNITS: the op kind */
  uint64_t bound_bank;
} cgp_fpga_sched;

/* Schedule g on device d (latency and delay of each node from d's table at d's clock budget,
   written into the nodes), list-scheduled in node order under the port and unit limits, chaining
   combinational operations within the budget (docs/model.md 11.2-11.4). pipelined: the II is
   max(memory bound, unit bound, recurrence bound, 1), raised until the modulo schedule (ports
   and units taken modulo II) places every operation and keeps every loop-carried dependence.
   lim may be NULL. On failure s
   holds nothing to free. */
int cgp_fpga_schedule(const cgp_fpga_device *d, cgp_fpga_ddg *g, const cgp_fpga_limits *lim, int pipelined,
                      cgp_fpga_sched *s, char *err, size_t errlen);
void cgp_fpga_sched_free(cgp_fpga_sched *s);

/* ---- What a schedule instantiates (model/cgp_fpga_res.c) ---- */

/* Operator instances per kind and their DSP / LUT / FF (memories are cgp_fpga_bram18k's). */
typedef struct cgp_fpga_usage {
  unsigned units[CGP_FOP_COUNT];
  uint64_t dsp, lut, ff;
} cgp_fpga_usage;

/* The operators schedule s of g needs on d: per kind, as many instances as operations start in one
   cycle (one slot modulo II when pipelined), except the cheap integer kinds (add, sub, shift, logic,
   icmp, select, cast), one instance per operation; each costs its implementation's DSP / LUT / FF
   at d's clock budget. Nonzero when s is not g's schedule, an operation has no implementation,
   or out of memory. */
int cgp_fpga_sched_usage(const cgp_fpga_device *d, const cgp_fpga_ddg *g, const cgp_fpga_sched *s,
                         cgp_fpga_usage *u);

/* ---- Loops (model/cgp_fpga_loop.c) ---- */

/* A loop of the nest: its trip count, unroll factor, whether it is pipelined (then ii > 0), the
   iteration latency of its own operations (il) and the loops nested in it, run one after another
   within each of its iterations. A pipelined loop has no children (HLS unrolls them into it). */
typedef struct cgp_fpga_loop {
  uint64_t trips;
  unsigned unroll, il, ii;
  int pipelined;
  const struct cgp_fpga_loop *children;
  unsigned n_children;
} cgp_fpga_loop;

/* Latency in cycles of a loop (docs/model.md 11.5), n = ceil(trips / unroll):
   pipelined  II x (n - 1) + IL + c_pipe;  not pipelined  n x (body + c_iter), where
   body = IL + sum over children of (child latency + exit_cycles). Nonzero with err for an unroll
   of 0, a pipelined loop with II 0 or with children, or a result above 2^63. */
int cgp_fpga_loop_latency(const cgp_fpga_device *d, const cgp_fpga_loop *l, uint64_t *cycles, char *err,
                          size_t errlen);

/* ---- Designs: unrolling, pipelining, partitioning over a nest (model/cgp_fpga_design.c) ---- */

#define CGP_FPGA_MAX_LOOPS 8
#define CGP_FPGA_MAX_ARRAYS 16
#define CGP_FPGA_NAME 64 /* a loop's or array's name as the drivers keep it */
#define CGP_FPGA_MAX_WINDOW 4096 /* operations in one scheduled window; a larger design is refused */

/* Where a load or store falls: element (row-major over the array's dimensions) =
   offset + sum over nest loops L of coef[L] x (iteration number of L, from 0). affine 1: exactly;
   2: up to a term fixed for the whole nest (an argument), taken as 0; 0: unknown (an index read
   from memory in the nest): the access is put in bank 0. */
typedef struct cgp_fpga_access {
  int affine;
  int64_t offset, coef[CGP_FPGA_MAX_LOOPS];
} cgp_fpga_access;

/* One loop of a nest: trips (0 unknown), its parent (-1 for loop 0, the outermost), the graph of
   its own operations (those in none of its nested loops) and per node its access (loads, stores). */
typedef struct cgp_fpga_nest_loop {
  uint64_t trips;
  int parent;
  const cgp_fpga_ddg *ddg;
  const cgp_fpga_access *acc;
  int skip; /* another version of an earlier loop (or inside one): only one of them runs; not estimated */
} cgp_fpga_nest_loop;

/* A nest: its loops (a parent before its children) and its arrays: shape (dims; the partition
   fields are ignored) and whether it is a memory of the design (on_chip: costs BRAM) or an
   interface of the top function (a pointer argument: ports, no BRAM). */
typedef struct cgp_fpga_nest {
  unsigned n_loops, n_arrays;
  cgp_fpga_nest_loop loops[CGP_FPGA_MAX_LOOPS];
  cgp_fpga_array arrays[CGP_FPGA_MAX_ARRAYS];
  int on_chip[CGP_FPGA_MAX_ARRAYS];
} cgp_fpga_nest;

/* The directives of one design. unroll[L]: 1 = not unrolled; pipeline: the pipelined loop or -1;
   per array the partition of one dimension (part_dim, 0 = the first, outermost, as HLS's dim=1). */
typedef struct cgp_fpga_design {
  unsigned unroll[CGP_FPGA_MAX_LOOPS];
  int pipeline;
  cgp_fpga_part part[CGP_FPGA_MAX_ARRAYS];
  unsigned factor[CGP_FPGA_MAX_ARRAYS], part_dim[CGP_FPGA_MAX_ARRAYS];
} cgp_fpga_design;

/* The baseline: nothing unrolled, pipelined or partitioned. */
void cgp_fpga_design_baseline(cgp_fpga_design *ds);

/* What a design gives. Per loop: the unroll it got (loops in a pipelined one: their trips), its
   window's IL and (pipelined) II with the bound that set the II, and whether it is scheduled
   (0 for loops inside the pipelined one: they are in its window). cycles: the nest's latency
   (known 0 when a trip count is unknown). Resources: the operators of every scheduled window
   (no sharing between loops), the on-chip arrays' BRAM18K and register flip-flops; fits: all
   within the device. */
typedef struct cgp_fpga_estimate {
  uint64_t cycles;
  int known;
  unsigned unroll[CGP_FPGA_MAX_LOOPS], il[CGP_FPGA_MAX_LOOPS], ii[CGP_FPGA_MAX_LOOPS];
  unsigned ii_bound[CGP_FPGA_MAX_LOOPS]; /* the best II that loop's window allows (11.4), pipelined or not */
  cgp_fpga_ii_bound bound[CGP_FPGA_MAX_LOOPS];
  int scheduled[CGP_FPGA_MAX_LOOPS];
  unsigned window[CGP_FPGA_MAX_LOOPS];   /* operations in the loop's window */
  uint64_t latency[CGP_FPGA_MAX_LOOPS];  /* cycles of one run of the loop (scheduled loops, when known) */
  uint64_t dsp, lut, ff, bram18k;
  int fits;
} cgp_fpga_estimate;

/* Estimate design ds of nest n on d (docs/model.md 11.10). The loops inside a pipelined loop, at
   any depth, are fully unrolled into its window (they must have known trips); a loop may be
   unrolled only when it is innermost or pipelined. Nonzero with err for a design out of those
   rules, a window above CGP_FPGA_MAX_WINDOW operations, or a schedule that fails. */
int cgp_fpga_design_eval(const cgp_fpga_device *d, const cgp_fpga_nest *n, const cgp_fpga_design *ds,
                         cgp_fpga_estimate *e, char *err, size_t errlen);

/* ---- The design search (model/cgp_fpga_dse.c) ---- */

#define CGP_FPGA_SEARCH_MAX_UNROLL 64

typedef struct cgp_fpga_search_count {
  unsigned tried, fitting, refused; /* designs estimated; of them within the device; refused by the model */
} cgp_fpga_search_count;

/* The fastest design of n that fits d among the bounded set of docs/model.md 11.11 (the baseline
   among them), with its estimate and how many were tried. Nonzero with err when no design fits
   or a trip count is not static. */
int cgp_fpga_search(const cgp_fpga_device *d, const cgp_fpga_nest *n, cgp_fpga_design *best, cgp_fpga_estimate *be,
                    cgp_fpga_search_count *count, char *err, size_t errlen);

#endif
