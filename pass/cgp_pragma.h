/* cgp_pragma.h: finds `#pragma cgpredict kernel [clauses]` in a C source with libclang and the
   `for` statement each one marks. */
#ifndef CGP_PRAGMA_H
#define CGP_PRAGMA_H

#include <stddef.h>

#define CGP_PRAGMA_MAX_SHARED 8

typedef struct cgp_kernel_pragma {
  char name[64];
  char file[4096];            /* path as given */
  unsigned pragma_line, pragma_col;
  unsigned for_line, for_col; /* the `for` keyword: the start of the loop's !llvm.loop location */
  unsigned for_end_line;
  unsigned dims;              /* 0 = not given */
  unsigned block[3];          /* 0 = not given; y and z are 1 when only x is given */
  unsigned nshared;
  char shared[CGP_PRAGMA_MAX_SHARED][64];
  unsigned tile;              /* 0 = not given */
  int noalias;                /* clause noalias: the arrays do not alias (0 = not given) */
} cgp_kernel_pragma;

/* Scan one C source. argv/argc: compiler arguments other than the source (-I, -D, -std ...).
   On success returns 0 with *out (malloc'd, caller frees) and *n (possibly 0). On failure
   returns nonzero with `file:line:col: error: ...` lines, all errors found, in err. */
int cgp_pragma_scan(const char *path, const char *const *argv, int argc,
                    cgp_kernel_pragma **out, size_t *n, char *err, size_t errlen);

#endif
