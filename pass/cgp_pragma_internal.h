/* cgp_pragma_internal.h: what the files of the pragma scanner share: a pragma found, the scan of
   the translation unit and of one file, and one declaration per function one file gives another.
   Internal to pass/.

   Calls go one way: cgp_pragma.c (the files of the TU, the pragmas written in them, the scan)
   calls cgp_pragma_macro.c (pragmas written by macro expansions) and cgp_pragma_loop.c (a found
   pragma made a kernel, which calls cgp_pragma_clause.c); all three call cgp_pragma_token.c,
   which calls nothing of the scanner. */
#ifndef CGP_PRAGMA_INTERNAL_H
#define CGP_PRAGMA_INTERNAL_H

#include "cgp_pragma.h"

#include <clang-c/Index.h>
#include <stddef.h>

/* A pragma found in one file, before its loop is looked up. */
typedef struct {
  unsigned offset;          /* where it is reported: the '#', the _Pragma or the macro's name */
  unsigned after;           /* the marked `for` is the first kept token from this offset on */
  char *text;               /* "cgpredict kernel ..." (malloc'd) */
  unsigned text_offset;     /* where the text starts in the file, for clause errors; ~0u: none */
} found;

typedef struct {
  CXTranslationUnit tu;
  const char *main_path;
  char *err;
  size_t errlen;
  int failed;
  cgp_kernel_pragma *out;
  size_t n, cap;
  CXFile *files;
  int *mentions;            /* per file: its text mentions `cgpredict` */
  size_t nfiles, files_cap;
  struct expansion {        /* macro expansions whose definition holds a cgpredict _Pragma */
    size_t file;
    unsigned start, end;
    char *text;
  } *exp;
  size_t nexp, exp_cap;
  char **str_macros;        /* function-like macros defined as `# param` (STR(x) #x) */
  size_t nstr;
  int openmp;               /* the flags enable OpenMP (cgp_openmp_enabled) */
} scan;

typedef struct {
  unsigned (*r)[2];
  unsigned n;
} skipped;

typedef struct {
  scan *s;
  CXFile file;
  char name[4096];
  const char *text;
  size_t len;
  CXToken *tok;
  unsigned ntok;
  unsigned *off;            /* each token's offset */
  unsigned char *in_directive; /* nonzero for the tokens of a preprocessor directive */
  skipped sk;
  found *f;
  size_t nf, fcap;
} file_scan;

/* ---- cgp_pragma_token.c ---------------------------------------------------------------------- */

/* Appends "file:line:col: error: <fmt>" and a newline to s->err; marks the scan failed. */
void cgp_pragma_error_at(scan *s, const char *file, unsigned line, unsigned col, const char *fmt, ...);
/* The line and column of byte offset `offset` of file. */
void cgp_pragma_file_pos(CXTranslationUnit tu, CXFile file, unsigned offset, unsigned *line, unsigned *col);
/* Byte offset off lies in a range the preprocessor skipped. */
int cgp_pragma_is_skipped(const skipped *sk, unsigned off);
/* Token i of tok[0..ntok) is spelled `word`. */
int cgp_pragma_token_is(CXTranslationUnit tu, const CXToken *tok, unsigned ntok, unsigned i, const char *word);
/* Token i of a file's tokens is spelled `word`. */
int cgp_pragma_spelled(const file_scan *fs, unsigned i, const char *word);
/* `_Pragma ( "cgpredict ..." )` at tokens i..i+3: its destringized text (malloc'd), else NULL. */
char *cgp_pragma_operator(CXTranslationUnit tu, const CXToken *tok, unsigned ntok, unsigned i);

/* ---- cgp_pragma_macro.c ---------------------------------------------------------------------- */

/* clang_visitChildren's visitor over the TU (data: the scan): notes stringizing macros and the
   expansions of macros that hold a cgpredict pragma, in s->exp. */
enum CXChildVisitResult cgp_pragma_visit_expansion(CXCursor c, CXCursor parent, CXClientData data);

/* ---- cgp_pragma_loop.c ----------------------------------------------------------------------- */

/* Found pragma f of file fs made a kernel: parsed, its loop found, appended to fs->s->out; or an
   error in fs->s->err. */
void cgp_pragma_finish(file_scan *fs, const found *f);

#endif
