/* cgp_pragma_loop.c: one pragma found by the scanner (cgp_pragma.c) made a kernel: its clauses
   parsed (cgp_pragma_clause.c), the `for` statement it marks found past any labels, its name
   defaulted and checked unique, one pragma per loop. Calls cgp_pragma_token.c. */
#include "cgp_pragma.h"
#include "cgp_pragma_internal.h"

#include <clang-c/Index.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void default_name(cgp_kernel_pragma *k) {
  const char *base = strrchr(k->file, '/');
  base = base ? base + 1 : k->file;
  size_t len = strlen(base);
  const char *dot = strrchr(base, '.');       /* foo.c, foo.cpp: foo */
  if (dot && dot > base) len = (size_t)(dot - base);
  snprintf(k->name, sizeof k->name, "%.*s_%u", (int)len, base, k->pragma_line);
}

/* The first token from i on that the compiler keeps (not in a skipped branch or a directive, nor a
   comment: libclang's tokens hold the comments, and a comment line between the pragma and its loop,
   as Rodinia's backprop has, was "not followed by a for loop"). */
static unsigned kept_from(const file_scan *fs, unsigned i) {
  while (i < fs->ntok && (cgp_pragma_is_skipped(&fs->sk, fs->off[i]) || fs->in_directive[i] ||
                          clang_getTokenKind(fs->tok[i]) == CXToken_Comment))
    i++;
  return i;
}

/* The line of the last token of the for statement whose `for` is token i, found by the tokens
   the compiler keeps: its header's parentheses, then its body up to the `}` that closes it or, for
   a body without braces, the `;` that ends it (headers' parentheses and blocks inside skipped; an
   `else` after a block goes on). Under -fopenmp libclang ends a for statement whose body is an
   OpenMP directive (`#pragma omp simd` before the inner loop, as Rodinia's cfd writes) at the
   directive, so the body's lines counted as outside the nest. 0 if the tokens run out. */
static unsigned for_end_by_tokens(const file_scan *fs, unsigned i) {
  int paren = 0, brace = 0, header = 1;
  for (i = kept_from(fs, i + 1); i < fs->ntok; i = kept_from(fs, i + 1)) {
    int open_p = cgp_pragma_spelled(fs, i, "("), close_p = cgp_pragma_spelled(fs, i, ")");
    int open_b = cgp_pragma_spelled(fs, i, "{"), close_b = cgp_pragma_spelled(fs, i, "}");
    paren += open_p - close_p;
    brace += open_b - close_b;
    if (header) {                                /* for ( ... ) */
      if (close_p && paren == 0) header = 0;
      continue;
    }
    int end = paren == 0 && brace == 0 && (cgp_pragma_spelled(fs, i, ";") || close_b);
    if (end) {
      unsigned next = kept_from(fs, i + 1);
      if (close_b && next < fs->ntok && cgp_pragma_spelled(fs, next, "else")) continue;
      unsigned line = 0;
      clang_getSpellingLocation(clang_getTokenLocation(fs->s->tu, fs->tok[i]), NULL, &line, NULL, NULL);
      return line;
    }
  }
  return 0;
}

/* Token i names a macro whose expansion begins with a for statement (Parboil's and SPEC's lbm:
   `SWEEP_START(...)` for `for (i = ...; ...; i += N_CELL_ENTRIES) {`): that statement, whose
   extent starts at the macro's name; a null cursor if not. The compiler's debug locations put
   such a loop at the macro's use (its `for` at the name's line and column), as the pass finds it.
   (libclang gives the macro expansion at the name, not the statement: the AST is walked down the
   cursors whose extent holds the name, as expanded in this file.) */
typedef struct {
  CXFile file;
  unsigned off;
  CXCursor found;
} for_at;

static enum CXChildVisitResult find_for(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  for_at *q = data;
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile f = NULL;
  unsigned a, b;
  clang_getExpansionLocation(clang_getRangeStart(r), &f, NULL, NULL, &a);
  clang_getExpansionLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &b);
  if (!f || !clang_File_isEqual(f, q->file) || q->off < a || q->off > b) return CXChildVisit_Continue;
  if (clang_getCursorKind(c) == CXCursor_ForStmt && a == q->off) {
    q->found = c;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static CXCursor macro_for(const file_scan *fs, unsigned i) {
  for_at q = {.found = clang_getNullCursor()};
  clang_getExpansionLocation(clang_getTokenLocation(fs->s->tu, fs->tok[i]), &q.file, NULL, NULL, &q.off);
  if (q.file) clang_visitChildren(clang_getTranslationUnitCursor(fs->s->tu), find_for, &q);
  return q.found;
}

/* The first kept token from found->after on, past any labels (`outer: for`, as HLS code such as
   MachSuite names every loop), must be the `for` keyword of a for statement, or a macro whose
   expansion starts with one (macro_for). */
static void mark_loop(file_scan *fs, const found *f, cgp_kernel_pragma *k) {
  scan *s = fs->s;
  unsigned i = 0;
  while (i < fs->ntok && fs->off[i] < f->after) i++;
  i = kept_from(fs, i);
  for (unsigned colon; i < fs->ntok && clang_getTokenKind(fs->tok[i]) == CXToken_Identifier &&
                       (colon = kept_from(fs, i + 1)) < fs->ntok && cgp_pragma_spelled(fs, colon, ":");)
    i = kept_from(fs, colon + 1);
  int is_for = i < fs->ntok && cgp_pragma_spelled(fs, i, "for") && clang_getTokenKind(fs->tok[i]) == CXToken_Keyword;
  CXCursor c = !is_for && i < fs->ntok && clang_getTokenKind(fs->tok[i]) == CXToken_Identifier ? macro_for(fs, i)
                                                                                               : clang_getNullCursor();
  if (!is_for && clang_Cursor_isNull(c)) {
    cgp_pragma_error_at(s, k->file, k->pragma_line, k->pragma_col,
                        "#pragma cgpredict kernel is not followed by a for loop");
    return;
  }
  clang_getSpellingLocation(clang_getTokenLocation(s->tu, fs->tok[i]), NULL, &k->for_line, &k->for_col, NULL);
  if (is_for) c = clang_getCursor(s->tu, clang_getTokenLocation(s->tu, fs->tok[i]));
  if (clang_getCursorKind(c) != CXCursor_ForStmt) {
    if (s->openmp) {                             /* libclang shows no statement inside a construct */
      cgp_pragma_error_at(s, k->file, k->for_line, k->for_col,
                          CGP_PRAGMA_IN_OPENMP " (the file is compiled with -fopenmp): "
                          "OpenMP outlines it and shares its iterations among threads, which cgpredict cannot "
                          "follow as one grid; mark a serial copy of the nest, or compile this file without "
                          "-fopenmp (its OpenMP pragmas are then ignored and the loop runs in order; keep "
                          "-fopenmp when linking if the program calls omp_* functions)");
      return;
    }
    cgp_pragma_error_at(s, k->file, k->for_line, k->for_col,
                        "the marked 'for' is not a for statement the compiler sees "
                        "(is the loop itself inside a macro?)");
    return;
  }
  /* (where the statement ends, in the file: a closing macro's use, `SWEEP_END`) */
  clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(c)), NULL, &k->for_end_line, NULL, NULL);
  if (s->openmp) {
    unsigned end = for_end_by_tokens(fs, i);
    if (end > k->for_end_line) k->for_end_line = end;
  }
}

/* Appends name to k->omp_private (space-separated) if it fits. */
static void add_private(cgp_kernel_pragma *k, const char *name, size_t len) {
  size_t used = strlen(k->omp_private);
  if (!len || used + len + 2 > sizeof k->omp_private) return;
  memcpy(k->omp_private + used, name, len);
  k->omp_private[used + len] = ' ';
  k->omp_private[used + len + 1] = '\0';
}

/* The first character of the line holding offset at, continued lines taken back to the first. */
static size_t logical_line_start(const char *t, size_t at) {
  while (at > 0 && t[at - 1] != '\n') at--;
  while (at >= 2 && t[at - 2] == '\\') {          /* the line before ends in a backslash */
    at--;
    while (at > 0 && t[at - 1] != '\n') at--;
  }
  return at;
}

/* If the line starting at i (blanks first) is an OpenMP directive (`#pragma omp`), the offset of
   what follows `omp` and its blanks; else 0. */
static size_t after_omp(const char *t, size_t len, size_t i) {
  static const char *const words[] = {"#", "pragma", "omp"};
  while (i < len && (t[i] == ' ' || t[i] == '\t')) i++;
  for (int w = 0; w < 3; w++) {
    size_t n = strlen(words[w]);
    if (i + n > len || strncmp(t + i, words[w], n) != 0) return 0;
    i += n;
    if (w && i < len && (isalnum((unsigned char)t[i]) || t[i] == '_')) return 0;   /* a longer word */
    while (i < len && (t[i] == ' ' || t[i] == '\t')) i++;
  }
  return i;
}

/* The names in the private(...), firstprivate(...) and lastprivate(...) clauses of `#pragma omp`
   lines among the pragma lines around f (those right before it, and those between it and its
   loop), space-separated into k->omp_private; a name that does not fit is left out. */
static void omp_private_names(const file_scan *fs, const found *f, cgp_kernel_pragma *k) {
  const char *t = fs->text;
  size_t lo = f->offset, hi = f->after <= fs->len ? f->after : fs->len;
  if (lo >= fs->len) return;
  for (;;) {                                     /* back over the pragma lines just before f */
    size_t start = logical_line_start(t, lo);
    if (start == 0) break;
    size_t prev = logical_line_start(t, start - 1), c = prev;   /* the line before, whole */
    while (c < start && (t[c] == ' ' || t[c] == '\t')) c++;
    if (c >= start || t[c] != '#') break;
    lo = prev;
  }
  if (hi > lo && t[hi - 1] == '\n') hi--;       /* from the end of the pragma's own line */
  for (;;) {                                     /* on over the pragma lines after it */
    size_t next = hi;
    while (next < fs->len && t[next] != '\n') next++;
    if (next >= fs->len) break;
    size_t c = next + 1;
    while (c < fs->len && (t[c] == ' ' || t[c] == '\t')) c++;
    if (c >= fs->len || t[c] != '#') break;
    hi = c + 1;
  }
  while (hi < fs->len && t[hi] != '\n') hi++;
  for (size_t i = lo; i + 11 < hi; i++) {
    if (t[i] != '#') continue;
    size_t j = after_omp(t, hi, i);
    if (!j) continue;
    size_t end = j;                              /* the directive, over its continued lines */
    while (end < hi && !(t[end] == '\n' && t[end - 1] != '\\')) end++;
    for (size_t p = j; p + 8 <= end; p++) {
      if (strncmp(t + p, "private", 7) != 0) continue;
      size_t w = p;                              /* the clause's word: private, firstprivate, lastprivate */
      if (w >= j + 5 && strncmp(t + w - 5, "first", 5) == 0) w -= 5;
      else if (w >= j + 4 && strncmp(t + w - 4, "last", 4) == 0) w -= 4;
      if (w > j && (isalnum((unsigned char)t[w - 1]) || t[w - 1] == '_')) continue;
      size_t q = p + 7;
      while (q < end && (t[q] == ' ' || t[q] == '\t')) q++;
      if (q >= end || t[q] != '(') continue;
      for (q++; q < end && t[q] != ')';) {       /* the list: identifiers between commas */
        while (q < end && !(isalpha((unsigned char)t[q]) || t[q] == '_') && t[q] != ')') q++;
        size_t b = q;
        while (q < end && (isalnum((unsigned char)t[q]) || t[q] == '_')) q++;
        add_private(k, t + b, q - b);
      }
    }
    i = end;
  }
}

typedef struct {
  cgp_kernel_pragma *k;
  unsigned before;                              /* declarations ending before this offset */
} block_decls;

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, void *data) {
  (void)parent;
  block_decls *b = data;
  if (clang_getCursorKind(c) == CXCursor_DeclStmt) return CXChildVisit_Recurse;
  if (clang_getCursorKind(c) != CXCursor_VarDecl) return CXChildVisit_Continue;
  unsigned end;
  clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(c)), NULL, NULL, NULL, &end);
  if (end < b->before) {
    CXString n = clang_getCursorSpelling(c);
    add_private(b->k, clang_getCString(n), strlen(clang_getCString(n)));
    clang_disposeString(n);
  }
  return CXChildVisit_Continue;
}

/* The locals declared, before the marked loop, in the block a `#pragma omp parallel` directive
   opens around it (NPB FT's `dcomplex y0[NX][FFTBLOCKPAD]` in cffts1's parallel region): each
   OpenMP thread's own, so each CUDA thread's; into k->omp_private. */
static void omp_region_locals(file_scan *fs, const found *f, cgp_kernel_pragma *k) {
  unsigned i = 0, depth = 0;
  while (i < fs->ntok && fs->off[i] < f->offset) i++;
  while (i-- > 0) {                              /* back to the unmatched `{` */
    if (fs->in_directive[i] || cgp_pragma_is_skipped(&fs->sk, fs->off[i])) continue;
    if (cgp_pragma_spelled(fs, i, "}")) depth++;
    else if (cgp_pragma_spelled(fs, i, "{") && depth-- == 0) break;
  }
  if (i == (unsigned)-1 || i >= fs->ntok || i == 0 || !fs->in_directive[i - 1]) return;
  const char *t = fs->text;                     /* the directive just before it, from its first line */
  size_t j = after_omp(t, fs->len, logical_line_start(t, fs->off[i - 1]));
  if (!j || j + 8 > fs->len || strncmp(t + j, "parallel", 8) != 0 || isalnum((unsigned char)t[j + 8]) || t[j + 8] == '_')
    return;
  j += 8;
  while (j < fs->len && (t[j] == ' ' || t[j] == '\t')) j++;
  static const char *const combined[] = {"for", "sections", "loop", "master", "masked"};
  for (int w = 0; w < 5; w++) {                 /* a combined construct: its block is the loop's */
    size_t n = strlen(combined[w]);
    if (j + n <= fs->len && !strncmp(t + j, combined[w], n) && (j + n == fs->len || !isalnum((unsigned char)t[j + n])))
      return;
  }
  CXCursor block = clang_getCursor(fs->s->tu, clang_getLocationForOffset(fs->s->tu, fs->file, fs->off[i]));
  if (clang_getCursorKind(block) != CXCursor_CompoundStmt) return;
  block_decls b = {k, f->offset};
  clang_visitChildren(block, visit_decl, &b);
}

void cgp_pragma_finish(file_scan *fs, const found *f) {
  scan *s = fs->s;
  cgp_kernel_pragma *k = calloc(1, sizeof *k);
  if (!k) { s->failed = 1; return; }
  snprintf(k->file, sizeof k->file, "%s", fs->name);
  cgp_pragma_file_pos(s->tu, fs->file, f->offset, &k->pragma_line, &k->pragma_col);
  size_t at;
  char msg[512];
  if (cgp_pragma_parse(f->text, strlen(f->text), k, &at, msg, sizeof msg) != 0) {
    unsigned line = k->pragma_line, col = k->pragma_col;
    if (at && f->text_offset != ~0u)
      cgp_pragma_file_pos(s->tu, fs->file, f->text_offset + (unsigned)at, &line, &col);
    cgp_pragma_error_at(s, k->file, line, col, "%s", msg);
    free(k);
    return;
  }
  for (unsigned q = 0; q < k->n_knobs; q++) { /* where each FPGA directive is, for the driver's errors */
    k->knobs[q].line = k->pragma_line, k->knobs[q].col = k->pragma_col;
    if (f->text_offset != ~0u)
      cgp_pragma_file_pos(s->tu, fs->file, f->text_offset + (unsigned)k->knobs[q].at, &k->knobs[q].line,
                          &k->knobs[q].col);
  }
  mark_loop(fs, f, k);
  if (f->text_offset != ~0u) {                 /* a written pragma, not a macro's */
    omp_private_names(fs, f, k);
    omp_region_locals(fs, f, k);
  }
  int ok = !s->failed;
  if (ok && !k->name[0]) default_name(k);
  for (size_t j = 0; ok && j < s->n; j++)
    if (strcmp(s->out[j].file, k->file) == 0 && s->out[j].for_line == k->for_line &&
        s->out[j].for_col == k->for_col) {     /* two pragmas stacked on one loop */
      cgp_pragma_error_at(s, k->file, k->pragma_line, k->pragma_col,
                          "the loop at line %u:%u is already marked by the pragma at line %u: one #pragma cgpredict "
                          "kernel per loop nest (put every clause in one)",
                          k->for_line, k->for_col, s->out[j].pragma_line);
      ok = 0;
    }
  for (size_t j = 0; ok && j < s->n; j++)
    if (strcmp(s->out[j].name, k->name) == 0) {
      cgp_pragma_error_at(s, k->file, k->pragma_line, k->pragma_col, "kernel name '%s' is already used at %s%s%u",
                          k->name, strcmp(s->out[j].file, k->file) ? s->out[j].file : "",
                          strcmp(s->out[j].file, k->file) ? ":" : "line ", s->out[j].pragma_line);
      ok = 0;
    }
  if (ok && s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4;
    cgp_kernel_pragma *bigger = realloc(s->out, cap * sizeof *bigger);
    if (!bigger) { snprintf(s->err, s->errlen, "cgpredict: out of memory\n"); s->failed = 1; ok = 0; }
    else { s->out = bigger; s->cap = cap; }
  }
  if (ok) s->out[s->n++] = *k;
  free(k);
}
