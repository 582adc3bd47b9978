/* cgp_phase2.h: what the files of phase 2 (cgp_instrument.c and the step files it
   calls) share: the pass's context, one marked nest, the thread body's shape, and one declaration
   per function one file gives another. Internal to pass/.

   Calls go one way: the driver (cgp_instrument.c) calls the steps; cgp_collect.c calls
   cgp_hazards.c; cgp_descriptor.c and cgp_hazards.c call cgp_names.c; cgp_descriptor.c calls
   cgp_shape.c, which calls cgp_mapped.c; cgp_thread.c calls cgp_skip.c; cgp_chunk.c calls
   cgp_thread.c (the split after phis) and cgp_clean.c (the copy); and any of them may call
   the two lowest files, cgp_sites.c and cgp_messages.c, which call nothing of phase 2. */
#ifndef CGP_PHASE2_H
#define CGP_PHASE2_H

#include "cgp_pass.h"
#include "cgp_cfg.h"

#include <cjson/cJSON.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stddef.h>
#include <stdio.h>              /* NEST_ERROR */

#define CGP_MAX_DIMS 3

typedef struct {
  char *buf;
  size_t cap;
} msgbuf;

typedef struct {
  char name[512];
  char *text;
  size_t *start, nlines;
} source_cache;

typedef struct {
  LLVMModuleRef m;
  LLVMContextRef ctx;
  LLVMBuilderRef b;
  LLVMTargetDataRef td;
  LLVMTypeRef i8p, i32, i64, voidt;
  LLVMTypeRef t_begin, t_begin_step, t_thread, t_mem, t_bb, t_bb_inline, t_end, t_flush, t_fast_end;
  LLVMValueRef f_begin, f_begin_step, f_thread, f_flush, f_bb, f_end, f_hoisted, f_fast_end;
  LLVMTypeRef t_class;
  LLVMValueRef f_class;
  LLVMValueRef f_site;              /* phase 1's marker, NULL if the module was not prepared */
  unsigned md_loop;
  int chunk;                        /* make chunk loops (cgp_chunk.c); CGPREDICT_CHUNK=0 turns it off */
  msgbuf err, warn;
  source_cache src;
  int failed;
} pass_ctx;

/* One memory site of a nest: a marker call (may_alias reading) or an access (noalias). */
typedef struct {
  LLVMValueRef inst;
  int kind;                         /* CGP_SITE_* */
  int block;                        /* bid of its thread-body block, -1 if hoisted */
  unsigned order;                   /* position among the sites of its block */
} mem_site;

/* A mapped loop's step known only at run time: phi + value (phi - value when negate). */
typedef struct {
  LLVMValueRef value;
  int negate;
} run_time_step;

/* One marked nest being instrumented. */
typedef struct {
  const cgp_kernel_pragma *k;
  const cgp_cfg *cfg;
  cgp_loop *mapped[CGP_MAX_DIMS];   /* [0] outermost */
  unsigned dims;
  LLVMValueRef iv[CGP_MAX_DIMS];    /* [0] = x (innermost mapped loop) */
  long long step[CGP_MAX_DIMS];      /* 0: known at run time, run_step */
  long long extent[CGP_MAX_DIMS];    /* 1 + the largest index of the mapped loop, known before the
                                       sweep (a constant bound); 0: not (cgp_mapped_extent) */
  run_time_step run_step[CGP_MAX_DIMS];
  int may_alias;                    /* the reading: marker calls are the sites */
  mem_site *mem; size_t nmem;       /* sites of the thread body, in block order, then the loads
                                       hoisted out of it (between mapped loops) */
  size_t nthread_mem;
  cJSON *carried;
  cJSON *exits;                     /* early exits from mapped loops */
  LLVMValueRef *slice; size_t nslice;
  int can_skip;
  LLVMValueRef slice_cond;          /* the latch's condition, when the slice holds it whole; NULL if not */
  int slice_cont;                   /* slice_cond true: the thread loop goes on (else it ends) */
  cJSON *warnings;
  cJSON *call_args;                 /* the arrays untraced calls of the body receive (by name, once):
                                       they may write them (cgp_collect.c) */
  int opaque_memory;                /* a call or memory intrinsic of the thread body may access
                                       memory no site stands for (cgp_collect.c): no load of it is
                                       proven unwritten */
} nest;

#define NEST_ERROR(pc, n, ...) do { \
    char m_[8192]; snprintf(m_, sizeof m_, __VA_ARGS__); \
    cgp_msg_add(&(pc)->err, "%s:%u:%u: error: %s", (n)->k->file, (n)->k->for_line, (n)->k->for_col, m_); \
    (pc)->failed = 1; } while (0)

/* The thread body's structure: reverse postorder and inner loops (cgp_shape.c). */
typedef struct {
  size_t n;                 /* thread-body blocks */
  size_t *cfg_of;           /* bid -> cfg index */
  size_t *bid_of;           /* cfg index -> bid, or SIZE_MAX */
  int *rpo, *loop_of;       /* per bid */
  const cgp_loop **inner;   /* loops strictly inside the thread loop, header layout order */
  size_t ninner;
  int acyclic;              /* no cycle but through the back edges of natural loops: every other
                               edge inside the body goes forward in reverse postorder */
} body_shape;

/* ---- cgp_messages.c: errors and warnings ------------------------------------------------------ */

/* Append one line, formatted, to mb (silently cut where mb is full). */
void cgp_msg_add(msgbuf *mb, const char *fmt, ...);
/* A warning about nest n at instruction `at`'s file and line where it has a debug location (the
   file a function inlined into the nest came from included), else at `line` of the nest's file
   (0: its for line), to pc->warn and to n->warnings. */
void cgp_nest_warn(pass_ctx *pc, nest *n, LLVMValueRef at, unsigned line, const char *fmt, ...);

/* ---- cgp_sites.c: which instructions are accesses, markers, calls; a site's pointers ---------- */

/* The first instruction of bb that is not a phi. */
LLVMValueRef cgp_first_non_phi(LLVMBasicBlockRef bb);
/* Is i a load, store or atomic? */
int cgp_is_mem(LLVMValueRef i);
/* Is i a call to phase 1's marker (@cgp_rt_site)? */
int cgp_is_marker(const pass_ctx *pc, LLVMValueRef i);
/* Is i a call other than an intrinsic or a marker? */
int cgp_is_real_call(LLVMValueRef i);
/* Is i a memory site of nest n in its reading? *kind gets its CGP_SITE_* kind. */
int cgp_site_kind(const pass_ctx *pc, const nest *n, LLVMValueRef i, int *kind);
/* Address and base pointer of a site. */
void cgp_site_pointers(const pass_ctx *pc, LLVMValueRef i, LLVMValueRef *ptr, LLVMValueRef *base);
/* Is v an argument its function marks noalias (C `restrict`)? */
int cgp_is_noalias_argument(LLVMValueRef v);
/* The allocation v points into: its underlying base (cgp_pass_underlying_base) where that is a
   call whose result is noalias (malloc's kind), an alloca, or a noalias (restrict) argument of the
   function; NULL if it is anything else (two such allocations never overlap). */
LLVMValueRef cgp_allocation_of(LLVMValueRef v);
/* Site i is an access to a thread's own array in CUDA local memory (its base alloca carries
   phase 1's !cgp.local_memory; cgp_local.c). */
int cgp_site_local_memory(const pass_ctx *pc, LLVMValueRef i);
/* Site i's address is indexed by a value the thread loads from memory at an address that is not
   fixed (an index array: x[col[j]]; an offset read per iteration): where such an access is
   uncoalesced it is a gather (a scatter for a store), which no loop interchange or transposition
   of the accessed array makes coalesced. A loaded row pointer (rows[i][j]) or a scalar read at one
   address for the whole thread (a struct's field) does not count. */
int cgp_site_index_loaded(const pass_ctx *pc, LLVMValueRef i);

/* ---- cgp_mapped.c: the mapped loops and their induction variables ----------------------------- */

/* Fill n->mapped and n->dims from the marked loop l0 down; -1 (and an error) if dims(n) cannot. */
int cgp_choose_mapped_loops(pass_ctx *pc, nest *n, cgp_loop *loops, size_t nl, cgp_loop *l0);
/* Loop l's integer induction variable and its step (constant, or known at run time), or NULL. */
LLVMValueRef cgp_induction_variable(const cgp_cfg *cfg, const cgp_loop *l, long long *step, const cgp_loop *outer,
                                    run_time_step *run_time);
/* 1 + the largest index a thread of mapped loop l has (iv its induction variable, stepped by 1),
   when the loop's only exit compares the index, or the next one, with a constant (`i < 31`,
   `i.next != 31`): the grid's size before the sweep reaches it; 0 if not. */
long long cgp_mapped_extent(const cgp_cfg *cfg, const cgp_loop *l, LLVMValueRef iv);
/* The value mapped loop l's one exiting comparison tests its index against, when the nest (its
   outermost mapped loop l0) is entered with it: a function argument or an instruction outside
   l0, of integer type; NULL otherwise (a constant, a value the nest computes, several exits). */
LLVMValueRef cgp_mapped_bound(const cgp_cfg *cfg, const cgp_loop *l, const cgp_loop *l0);

/* ---- cgp_skip.c: the latch slice that lets the runtime skip a thread -------------------------- */

/* Set n->slice and n->can_skip: can a skipped thread run only the thread loop's latch? */
void cgp_decide_skip(nest *n);
/* The slice cloned at the builder, in order (operands first): the entries j with need[j] (need
   NULL: all), an operand that is an earlier entry replaced by its clone and the thread index
   n->iv[0] by `at` (NULL: kept); clone[j] gets entry j's clone. */
void cgp_clone_slice(pass_ctx *pc, const nest *n, const unsigned char *need, LLVMValueRef at, LLVMValueRef *clone);
/* v's clone among cgp_clone_slice's (v itself where it is no slice entry). */
LLVMValueRef cgp_slice_clone_of(const nest *n, LLVMValueRef *clone, LLVMValueRef v);
/* A block that ends the iteration with a clone of the latch slice, without running the body. */
LLVMBasicBlockRef cgp_build_skip_block(pass_ctx *pc, nest *n, LLVMBasicBlockRef header, LLVMBasicBlockRef latch);

/* ---- cgp_names.c: what the source calls a value or the array a site reads ---------------------- */

/* The function the source wrote loop l in, as the source names it: a C++ one demangled
   (`OMPStream<double>::copy()`, `void twice<float>(float*, long)`), a C one as it is; from the
   loop's debug scope, else fn's name (the function it was compiled into). */
void cgp_source_function(LLVMContextRef ctx, const cgp_loop *l, LLVMValueRef fn, char *buf, size_t cap);
/* A scalar's IR type in words ("double", "64-bit integer"), for a variable with no debug type. */
void cgp_ir_type_name(LLVMTypeRef t, char *buf, size_t cap);
/* The variable llvm.dbg.value ties v to ("" if none) and, where type is not NULL, its type's name. */
void cgp_dbg_variable(pass_ctx *pc, LLVMValueRef v, char *buf, size_t cap, char *type, size_t tcap);
/* The source-level name of the array the address p indexes. */
void cgp_source_name(pass_ctx *pc, LLVMValueRef p, char *buf, size_t cap);
/* A global's name as the source writes it: a function's static `u` is `u`, not clang's `main.u`. */
void cgp_global_name(LLVMModuleRef m, LLVMValueRef g, char *buf, size_t cap);
/* Constant v as the source writes it ("true" for a boolean, or an int whose C type ctype is
   bool or _Bool; "1"; "0.5"); anything else is "a value fixed before the loop". */
void cgp_constant_text(LLVMValueRef v, const char *ctype, char *buf, size_t cap);
/* A function's name as the source spells it (its debug info's: compute_flux_contribution), with
   the symbol after it where they differ (a C++ mangled name), else its symbol. */
void cgp_function_name(LLVMValueRef fn, char *buf, size_t cap);
/* The array name as written at file:line:col of a site; 0 when the source does not say. */
int cgp_name_in_source(pass_ctx *pc, const char *file, unsigned line, unsigned col, int store, char *buf,
                       size_t cap);

/* ---- cgp_shape.c: the thread body's blocks in reverse postorder, its inner loops -------------- */

/* The thread body's structure; free it with cgp_body_shape_free. */
void cgp_body_shape_build(const nest *n, const cgp_loop *loops, size_t nl, body_shape *bs);
void cgp_body_shape_free(body_shape *bs);
/* The descriptor's "loops": each inner loop's header bid, parent loop, line and column. */
cJSON *cgp_loops_json(const body_shape *bs);
/* The innermost inner loop whose every iteration computes the site's address anew, or -1. */
int cgp_vary_loop(const pass_ctx *pc, const cgp_cfg *cfg, const body_shape *bs, LLVMValueRef inst);
/* 1 if the body's blocks mark cgp_rt_block_seen instead of calling cgp_rt_bb. */
int cgp_marks_blocks(const nest *n, const body_shape *bs);
/* The tile loop of tile(t): index into bs->inner, or -1. */
int cgp_tile_loop(const cgp_cfg *cfg, const body_shape *bs, unsigned tile);

/* ---- cgp_descriptor.c: the kernel's JSON descriptor ------------------------------------------- */

/* The descriptor cgp_rt_kernel_begin receives, malloc'd (cJSON_free). */
char *cgp_descriptor(pass_ctx *pc, nest *n, const body_shape *bs);

/* ---- cgp_hazards.c: what makes threads depend on each other or not all run -------------------- */

/* Scalars carried between iterations of a mapped loop: n->carried entries and warnings. */
void cgp_collect_carried(pass_ctx *pc, nest *n);
/* Early exits from a mapped loop its index does not decide: n->exits entries and warnings. */
void cgp_collect_exits(pass_ctx *pc, nest *n);

/* ---- cgp_collect.c: the nest's sites and reading ---------------------------------------------- */

/* n->mem and n->nthread_mem: the thread body's sites, then the hoisted loads; warnings, carried
   scalars and early exits. */
void cgp_collect_body(pass_ctx *pc, nest *n);
/* 1 for the may_alias reading of nest n, 0 for noalias. */
int cgp_reading_may_alias(pass_ctx *pc, const nest *n);
/* Per site of n (n->nmem, calloc'd; NULL when out of memory): 1 for a load no store or atomic of
   the nest can write, proven: every site's base is an allocation of its own (cgp_allocation_of, or
   a global variable), the body calls nothing that may access memory no site stands for, and no
   store or atomic site's allocation is the load's. The descriptor's "unwritten". */
unsigned char *cgp_unwritten_sites(const pass_ctx *pc, const nest *n);

/* ---- cgp_hooks.c: the hook functions, and the calls to them ----------------------------------- */

/* Declare the runtime's hooks and define the inlined cgp.mem.flush and cgp.bb in pc->m. */
void cgp_declare_hooks(pass_ctx *pc);
/* Report each site's address and base: a flush per thread-body block, cgp_rt_hoisted per hoisted load. */
void cgp_insert_mem_hooks(pass_ctx *pc, nest *n);
/* At the builder: cgp_rt_block_seen's bit for block bid. */
void cgp_mark_block(pass_ctx *pc, size_t bid);
/* kernel_begin (or kernel_begin_step) on every edge into the nest, kernel_end on every edge out. */
void cgp_insert_kernel_hooks(pass_ctx *pc, nest *n, const char *desc);
/* cgp.mem.flush.v<n>(i1 skip, i32 first, i8** addrs, i8** bases, i8* a0 .. a<n-1>, i8* b0 .. b<n-1>),
   always inlined, defined once (*ty its type; NULL without memory): while the runtime traces the
   thread's iteration and unless skip, the a's and b's into the buffers, then
   cgp_rt_mem_block(first, n, addrs, bases), as cgp.mem.flush after the block's stores. */
LLVMValueRef cgp_sunk_flush_shell(pass_ctx *pc, unsigned n, LLVMTypeRef *ty);

/* ---- cgp_sink.c: the sites' address stores moved into the flushes' traced paths --------------- */

/* Once every nest is instrumented: each flush whose stores lie in its block takes their values
   and stores them only when it calls the runtime. */
void cgp_sink_site_stores(pass_ctx *pc);

/* ---- cgp_thread.c: the thread loop's header, its skip path and clean copy --------------------- */

/* Move everything after h's phis into a new block, which is returned. */
LLVMBasicBlockRef cgp_split_after_phis(pass_ctx *pc, LLVMBasicBlockRef h, LLVMValueRef *track, size_t ntrack);
/* cgp_rt_thread in the header, and the branch on its answer; returns the call. */
LLVMValueRef cgp_insert_thread_hook(pass_ctx *pc, nest *n, LLVMBasicBlockRef header, LLVMBasicBlockRef body,
                                    LLVMBasicBlockRef clean, LLVMBasicBlockRef latch, LLVMBasicBlockRef *clean_from);
/* The clean copy made a loop of its own (cgp_clean_thread_loop): its entry, whose phis are the
   thread index, the count of plain threads left (this one included) and the header's other phis,
   and its latch. */
typedef struct {
  LLVMBasicBlockRef entry, latch, from;   /* from: the block that enters it */
  LLVMValueRef iv, left;
  size_t nphi;                      /* the header's phis the copy carries, the index included */
} clean_loop;

/* The clean copy as a loop of its own over the next plain threads: its entry, or NULL. *cl (if
   not NULL) gets its parts, entry NULL when none was made. */
LLVMBasicBlockRef cgp_clean_thread_loop(pass_ctx *pc, nest *n, LLVMBasicBlockRef header,
                                        LLVMBasicBlockRef *copy, size_t ncopy, LLVMBasicBlockRef from,
                                        LLVMValueRef mode, clean_loop *cl);

/* ---- cgp_chunk.c: the clean loop's threads four at a time, for the final compile to jam ------- */

/* Where the clean loop's body holds a loop (and the header no phi but the index, and the latch's
   condition is sliced), a loop of chunks runs before it: CGP_CHUNK threads at a time while the next
   CGP_CHUNK + 1 threads are plain and the thread loop would run them all, each chunk a loop the
   final compile is asked to unroll and jam. copy[0..ncopy) are the clean copy's blocks. */
#define CGP_CHUNK 4
void cgp_chunk_clean_loop(pass_ctx *pc, nest *n, const clean_loop *cl, LLVMBasicBlockRef *copy, size_t ncopy);

#endif
