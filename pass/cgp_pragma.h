/* cgp_pragma.h: finds `#pragma cgpredict kernel [clauses]` (and `_Pragma("cgpredict kernel ...")`)
   in a C translation unit with libclang, and the `for` statement each one marks. */
#ifndef CGP_PRAGMA_H
#define CGP_PRAGMA_H

#include <stddef.h>
#include <string.h>

#define CGP_PRAGMA_MAX_SHARED 8
/* Bytes for a name(...) or shared(...) identifier, its NUL included: a longer one is an error,
   never cut. */
#define CGP_PRAGMA_NAME_MAX 4096
#define CGP_PRAGMA_SHARED_MAX 1024

/* One FPGA directive of the `fpga(...)` clause (docs/model.md 11.10). */
#define CGP_PRAGMA_MAX_KNOBS 8
enum { CGP_KNOB_UNROLL, CGP_KNOB_PIPELINE, CGP_KNOB_PARTITION };
enum { CGP_FPGA_UNSET, CGP_FPGA_LIST, CGP_FPGA_AUTO, CGP_FPGA_BASELINE }; /* how the clause was given */
typedef struct cgp_fpga_knob {
  int kind;             /* CGP_KNOB_* */
  char name[64];        /* the loop's induction variable (unroll, pipeline) or the array (partition) */
  unsigned factor;      /* unroll: the factor; partition: banks (cyclic, block), 0 for complete */
  int part;             /* partition: 1 cyclic, 2 block, 3 complete (cgp_fpga_part's values) */
  unsigned dim;         /* partition: the dimension, 1 = the first (outermost), as HLS's dim= */
  size_t at;            /* byte offset in the pragma's text */
  unsigned line, col;   /* where it is written (the scanner fills them; else the pragma's) */
} cgp_fpga_knob;

typedef struct cgp_kernel_pragma {
  char name[CGP_PRAGMA_NAME_MAX]; /* whole UTF-8 as written, or <file>_<line> */
  char file[4096];            /* the file holding the marked `for` (a header when it is there) */
  unsigned pragma_line, pragma_col;
  unsigned for_line, for_col; /* the `for` keyword: the start of the loop's !llvm.loop location */
  unsigned for_end_line;
  unsigned dims;              /* 0 = not given */
  unsigned block[3];          /* 0 = not given; y and z are 1 when only x is given */
  unsigned nshared;
  char shared[CGP_PRAGMA_MAX_SHARED][CGP_PRAGMA_SHARED_MAX];
  unsigned shared_pad[CGP_PRAGMA_MAX_SHARED];   /* `shared(A pad(n))`: elements after each row */
  unsigned tile;              /* 0 = not given */
  int noalias;                /* `noalias`: the CUDA port passes pointers that do not alias */
  /* The variables an OpenMP directive written with the pragma, before or after it, makes each
     thread's own (`#pragma omp parallel for private(u1, u2)`; private, firstprivate,
     lastprivate), space-separated: the pass takes such a local, declared outside the nest, as
     declared inside (cgp_private.c). */
  char omp_private[CGP_PRAGMA_SHARED_MAX];
  int fpga;                   /* CGP_FPGA_*: no clause, directives, auto (the search), none (the baseline) */
  unsigned n_knobs;
  cgp_fpga_knob knobs[CGP_PRAGMA_MAX_KNOBS];
  /* Not the scanner's: the kernel's FPGA nest as JSON (model/cgp_fpga_kernel.h), which the driver
     computes and the pass copies into the descriptor's "fpga"; NULL: none. Owned by whoever set it. */
  const char *fpga_json;
} cgp_kernel_pragma;

/* 1 if the `len` bytes at name are one of k->omp_private's names. */
static inline int cgp_pragma_omp_private(const cgp_kernel_pragma *k, const char *name, size_t len) {
  for (const char *p = k->omp_private; *p;) {
    size_t n = 0;
    while (p[n] && p[n] != ' ') n++;
    if (n == len && !strncmp(p, name, len)) return 1;
    p += n + (p[n] == ' ');
  }
  return 0;
}

/* Scan one C source and every header it includes, as the preprocessor sees them with the given
   flags. argv/argc: compiler arguments other than the source (-I, -D, -std ...). On success
   returns 0 with *out (malloc'd, caller frees) and *n (possibly 0). On failure returns nonzero
   with `file:line:col: error: ...` lines, all errors found, in err. */
int cgp_pragma_scan(const char *path, const char *const *argv, int argc,
                    cgp_kernel_pragma **out, size_t *n, char *err, size_t errlen);

/* The line of the first `#pragma cgpredict` directive written in the source's own text (a line
   starting, after blanks, with `#`, `pragma` and `cgpredict`), 0 if none or unreadable: where
   cgp_pragma_scan finds no pragma, one written in code the preprocessor leaves out (HPCCG's
   `#ifdef USING_OMP`), for the driver to say so. */
unsigned cgp_pragma_written_line(const char *path);

/* 1 if the compiler flags argv[0..argc) enable OpenMP: -fopenmp or -fopenmp=LIB, not undone by
   a later -fno-openmp. With it, libclang shows no statement inside an OpenMP construct, and
   clang compiles the constructs to calls into LLVM's OpenMP runtime. */
int cgp_openmp_enabled(const char *const *argv, int argc);

/* The words of cgp_pragma_scan's error for a marked loop inside an OpenMP construct of a file
   compiled with -fopenmp: the driver then compiles that file without OpenMP (cgp_build.c). */
#define CGP_PRAGMA_IN_OPENMP "the marked loop is inside an OpenMP construct"

/* Parse a pragma's text, `cgpredict kernel [clauses]` (what follows `#pragma`, or the contents
   of a _Pragma string), into k's clause fields (name, dims, block, shared, tile, noalias, fpga; the
   others are left alone). No libclang: a pure function of the `len` bytes at `text` (no NUL
   needed). Returns 0, or -1 with a message in err and in *at the byte offset of the text the
   message is about (0 for a check of the whole pragma). */
int cgp_pragma_parse(const char *text, size_t len, cgp_kernel_pragma *k, size_t *at, char *err, size_t errlen);

#endif
