/* cgp_pragma.c: the pragma scanner. libclang parses the translation unit (so the user's -I/-D
   flags and syntax errors count) and tokenizes the main file raw, which keeps the pragma's
   tokens (clang itself drops unknown pragmas). A directive is `#` `pragma` `cgpredict` at the
   start of a line; it runs to the end of the line, or further after a backslash. */
#include "cgp_pragma.h"

#include <clang-c/Index.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCK_THREADS 1024

typedef struct {
  CXTranslationUnit tu;
  CXToken *tok;
  unsigned ntok;
  const char *path;
  char *err;
  size_t errlen;
  int failed;
} scan;

static void tok_pos(const scan *s, unsigned i, unsigned *line, unsigned *col) {
  clang_getSpellingLocation(clang_getTokenLocation(s->tu, s->tok[i]), NULL, line, col, NULL);
}

static void error_at(scan *s, unsigned line, unsigned col, const char *fmt, ...) {
  size_t used = strlen(s->err);
  if (used + 1 >= s->errlen) return;
  used += (size_t)snprintf(s->err + used, s->errlen - used, "%s:%u:%u: error: ", s->path, line, col);
  va_list ap;
  va_start(ap, fmt);
  if (used < s->errlen) used += (size_t)vsnprintf(s->err + used, s->errlen - used, fmt, ap);
  va_end(ap);
  if (used + 1 < s->errlen) strcat(s->err, "\n");
  s->failed = 1;
}

static void error_tok(scan *s, unsigned i, const char *fmt, const char *arg) {
  unsigned line, col;
  tok_pos(s, i < s->ntok ? i : s->ntok - 1, &line, &col);
  error_at(s, line, col, fmt, arg);
}

/* Token i's spelling in buf. */
static const char *spell(const scan *s, unsigned i, char *buf, size_t cap) {
  CXString str = clang_getTokenSpelling(s->tu, s->tok[i]);
  snprintf(buf, cap, "%s", clang_getCString(str));
  clang_disposeString(str);
  return buf;
}

static int tok_is(const scan *s, unsigned i, const char *text) {
  char b[64];
  return i < s->ntok && strcmp(spell(s, i, b, sizeof b), text) == 0;
}

static unsigned tok_line(const scan *s, unsigned i) {
  unsigned line, col;
  tok_pos(s, i, &line, &col);
  return line;
}

/* ---- clauses -------------------------------------------------------------------------------- */

/* A positive integer token; 0 (with an error) if it is not one. */
static unsigned positive(scan *s, unsigned i, unsigned end, const char *clause) {
  char b[64], *rest;
  if (i >= end || clang_getTokenKind(s->tok[i]) != CXToken_Literal) {
    error_tok(s, i, "%s(...) expects a positive integer", clause);
    return 0;
  }
  unsigned long v = strtoul(spell(s, i, b, sizeof b), &rest, 10);
  if (*rest || v == 0 || v > MAX_BLOCK_THREADS) {
    error_tok(s, i, "%s(...) expects a positive integer (at most 1024)", clause);
    return 0;
  }
  return (unsigned)v;
}

/* Parses `clause(args)` starting at token i; returns the index after ')' or end on error. */
static unsigned parse_clause(scan *s, unsigned i, unsigned end, cgp_kernel_pragma *k, unsigned *seen) {
  static const char *const names[] = {"name", "dims", "block", "shared", "tile"};
  char cname[64], b[64];
  spell(s, i, cname, sizeof cname);
  unsigned which = 0;
  while (which < 5 && strcmp(cname, names[which]) != 0) which++;
  if (which == 5 || clang_getTokenKind(s->tok[i]) != CXToken_Identifier) {
    error_tok(s, i, "unknown clause '%s' (expected name, dims, block, shared or tile)", cname);
    return end;
  }
  if (*seen & (1u << which)) { error_tok(s, i, "clause '%s' given twice", cname); return end; }
  *seen |= 1u << which;
  if (!tok_is(s, i + 1, "(") || i + 1 >= end) { error_tok(s, i, "expected '(' after '%s'", cname); return end; }
  unsigned j = i + 2, nargs = 0;
  for (;;) {
    if (j >= end) { error_tok(s, i, "missing ')' after '%s('", cname); return end; }
    if (which == 0 || which == 3) {                      /* identifiers */
      if (clang_getTokenKind(s->tok[j]) != CXToken_Identifier) { error_tok(s, j, "%s(...) expects an identifier", cname); return end; }
      spell(s, j, b, sizeof b);
      if (which == 0) { if (nargs) { error_tok(s, j, "%s(...) takes one identifier", cname); return end; } snprintf(k->name, sizeof k->name, "%s", b); }
      else if (k->nshared < CGP_PRAGMA_MAX_SHARED) snprintf(k->shared[k->nshared++], sizeof k->shared[0], "%s", b);
      else { error_tok(s, j, "shared(...) lists at most 8 arrays%s", ""); return end; }
    } else {
      unsigned v = positive(s, j, end, cname);
      if (!v) return end;
      if (which == 1) { if (nargs || v > 3) { error_tok(s, j, "dims(...) is 1, 2 or 3%s", ""); return end; } k->dims = v; }
      else if (which == 4) { if (nargs) { error_tok(s, j, "tile(...) takes one integer%s", ""); return end; } k->tile = v; }
      else { if (nargs == 3) { error_tok(s, j, "block(...) has at most 3 dimensions%s", ""); return end; } k->block[nargs] = v; }
    }
    nargs++;
    j++;
    if (tok_is(s, j, ")") && j < end) return j + 1;
    if (!tok_is(s, j, ",") || j >= end) { error_tok(s, j < end ? j : i, "expected ',' or ')' in '%s(...)'", cname); return end; }
    j++;
  }
}

static void parse_clauses(scan *s, unsigned i, unsigned end, cgp_kernel_pragma *k) {
  unsigned seen = 0;
  while (i < end && !s->failed) {
    i = parse_clause(s, i, end, k, &seen);
    if (i < end && tok_is(s, i, ",")) i++;
  }
  if (s->failed) return;
  if (k->block[0]) {
    for (int d = 1; d < 3; d++) if (!k->block[d]) k->block[d] = 1;
    if (k->block[0] * k->block[1] * k->block[2] > MAX_BLOCK_THREADS)
      error_at(s, k->pragma_line, k->pragma_col, "block(...) has more than %d threads", MAX_BLOCK_THREADS);
  }
  if (k->tile && !k->nshared) error_at(s, k->pragma_line, k->pragma_col, "tile(...) needs shared(...)%s", "");
}

/* ---- directives ----------------------------------------------------------------------------- */

/* First token after the directive that starts at token i (its line, and continuation lines). */
static unsigned directive_end(const scan *s, unsigned i, const char *text) {
  unsigned line = tok_line(s, i), j = i;
  for (;;) {
    while (j < s->ntok && tok_line(s, j) == line) j++;
    /* a backslash ending the physical line continues the directive */
    const char *p = text;
    for (unsigned l = 1; l < line && p; l++) { p = strchr(p, '\n'); if (p) p++; }
    const char *eol = p ? strchr(p, '\n') : NULL;
    if (!eol) return j;
    const char *q = eol;
    while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r')) q--;
    if (q == p || q[-1] != '\\') return j;
    line++;
  }
}

static void default_name(cgp_kernel_pragma *k) {
  const char *base = strrchr(k->file, '/');
  base = base ? base + 1 : k->file;
  size_t len = strlen(base);
  if (len > 2 && strcmp(base + len - 2, ".c") == 0) len -= 2;
  snprintf(k->name, sizeof k->name, "%.*s_%u", (int)(len > 40 ? 40 : len), base, k->pragma_line);
}

static void mark_loop(scan *s, unsigned i, cgp_kernel_pragma *k) {
  if (i >= s->ntok || !tok_is(s, i, "for") || clang_getTokenKind(s->tok[i]) != CXToken_Keyword) {
    error_at(s, k->pragma_line, k->pragma_col, "#pragma cgpredict kernel is not followed by a for loop%s", "");
    return;
  }
  tok_pos(s, i, &k->for_line, &k->for_col);
  CXCursor c = clang_getCursor(s->tu, clang_getTokenLocation(s->tu, s->tok[i]));
  if (clang_getCursorKind(c) != CXCursor_ForStmt) {
    error_at(s, k->for_line, k->for_col, "the marked 'for' is not a for statement the compiler sees "
             "(inside a macro or an #if'd-out block?)%s", "");
    return;
  }
  unsigned line, col;
  clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(c)), NULL, &line, &col, NULL);
  k->for_end_line = line;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
  *len = fread(buf, 1, (size_t)(n > 0 ? n : 0), f);
  buf[*len] = '\0';
  fclose(f);
  return buf;
}

static void report_diagnostics(scan *s) {
  unsigned nd = clang_getNumDiagnostics(s->tu);
  for (unsigned d = 0; d < nd; d++) {
    CXDiagnostic diag = clang_getDiagnostic(s->tu, d);
    if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error) {
      CXString text = clang_formatDiagnostic(diag, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn);
      size_t used = strlen(s->err);
      if (used + 2 < s->errlen) snprintf(s->err + used, s->errlen - used, "%s\n", clang_getCString(text));
      clang_disposeString(text);
      s->failed = 1;
    }
    clang_disposeDiagnostic(diag);
  }
}

static void find_pragmas(scan *s, const char *text, cgp_kernel_pragma **out, size_t *n) {
  size_t cap = 0;
  for (unsigned i = 0; i + 2 < s->ntok; i++) {
    if (!tok_is(s, i, "#") || (i > 0 && tok_line(s, i - 1) == tok_line(s, i))) continue;
    if (!tok_is(s, i + 1, "pragma") || !tok_is(s, i + 2, "cgpredict") || tok_line(s, i + 2) != tok_line(s, i)) continue;
    unsigned end = directive_end(s, i, text);
    cgp_kernel_pragma k;
    memset(&k, 0, sizeof k);
    snprintf(k.file, sizeof k.file, "%s", s->path);
    tok_pos(s, i, &k.pragma_line, &k.pragma_col);
    if (i + 3 >= end || !tok_is(s, i + 3, "kernel")) {
      error_tok(s, i + 3 < end ? i + 3 : i + 2, "expected 'kernel' after '#pragma cgpredict'%s", "");
      continue;
    }
    int before = s->failed;
    s->failed = 0;
    parse_clauses(s, i + 4, end, &k);
    if (!s->failed) mark_loop(s, end, &k);
    if (!s->failed) {
      if (!k.name[0]) default_name(&k);
      for (size_t j = 0; j < *n; j++)
        if (strcmp((*out)[j].name, k.name) == 0)
          error_at(s, k.pragma_line, k.pragma_col, "kernel name '%s' is already used at line %u", k.name, (*out)[j].pragma_line);
    }
    if (!s->failed) {
      if (*n == cap) *out = realloc(*out, (cap = cap ? 2 * cap : 4) * sizeof **out);
      (*out)[(*n)++] = k;
    }
    s->failed |= before;
    i = end - 1;
  }
}

int cgp_pragma_scan(const char *path, const char *const *argv, int argc,
                    cgp_kernel_pragma **out, size_t *n, char *err, size_t errlen) {
  *out = NULL;
  *n = 0;
  err[0] = '\0';
  size_t len = 0;
  char *text = slurp(path, &len);
  if (!text) { snprintf(err, errlen, "%s: cannot read the source\n", path); return -1; }
  scan s = {.path = path, .err = err, .errlen = errlen};
  int rc = -1;
  if (!strstr(text, "cgpredict")) { free(text); return 0; }   /* nothing to parse for */
  const char **args = calloc((size_t)argc + 2, sizeof *args);
  for (int i = 0; i < argc; i++) args[i] = argv[i];
  args[argc] = "-Wno-unknown-pragmas";
  CXIndex idx = clang_createIndex(0, 0);
  if (clang_parseTranslationUnit2(idx, path, args, argc + 1, NULL, 0, CXTranslationUnit_None, &s.tu) != CXError_Success) {
    snprintf(err, errlen, "%s: libclang could not parse the file\n", path);
  } else {
    report_diagnostics(&s);
    CXFile file = clang_getFile(s.tu, path);
    CXSourceRange all = clang_getRange(clang_getLocationForOffset(s.tu, file, 0),
                                       clang_getLocationForOffset(s.tu, file, (unsigned)len));
    clang_tokenize(s.tu, all, &s.tok, &s.ntok);
    if (!s.failed) find_pragmas(&s, text, out, n);
    clang_disposeTokens(s.tu, s.tok, s.ntok);
    clang_disposeTranslationUnit(s.tu);
    rc = s.failed ? -1 : 0;
  }
  clang_disposeIndex(idx);
  free(args);
  free(text);
  if (rc) { free(*out); *out = NULL; *n = 0; }
  return rc;
}
