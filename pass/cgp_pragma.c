/* cgp_pragma.c: the pragma scanner. clang drops pragmas it does not know, so they never reach
   the AST or the IR; we find them in the tokens the preprocessor kept:

   - libclang parses the translation unit with the user's flags (so -I/-D, #if and syntax
     errors count) and a detailed preprocessing record;
   - every file of the TU (the source and each header it includes) whose text mentions
     `cgpredict` is tokenized raw; tokens inside the ranges the preprocessor skipped (#if 0,
     a false #ifdef) are ignored;
   - a directive is `#` `pragma` `cgpredict` at the start of a line, running to the end of the
     line or further after a backslash; `_Pragma("cgpredict ...")` written in code is the same
     pragma, and so is a macro expansion whose definition holds such a _Pragma, or
     `_Pragma(STR(cgpredict ...))` with STR defined as `#x` (stringized_pragma): it marks the
     `for` that follows the expansion;
   - the clauses are parsed by cgp_pragma_parse (cgp_pragma_clause.c), the `for` that follows
     must be a for statement of the AST; its line:column is what the pass matches. */
#include "cgp_pragma.h"

#include <clang-c/Index.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void error_at(scan *s, const char *file, unsigned line, unsigned col, const char *fmt, ...) {
  size_t used = strlen(s->err);
  s->failed = 1;
  if (used + 1 >= s->errlen) return;
  int w = snprintf(s->err + used, s->errlen - used, "%s:%u:%u: error: ", file, line, col);
  if (w < 0) return;
  used += (size_t)w;
  if (used >= s->errlen) return;
  va_list ap;
  va_start(ap, fmt);
  w = vsnprintf(s->err + used, s->errlen - used, fmt, ap);
  va_end(ap);
  if (w >= 0 && used + (size_t)w + 1 < s->errlen) strcat(s->err, "\n");
}

static void file_pos(CXTranslationUnit tu, CXFile file, unsigned offset, unsigned *line, unsigned *col) {
  clang_getSpellingLocation(clang_getLocationForOffset(tu, file, offset), NULL, line, col, NULL);
}

static unsigned tok_offset(CXTranslationUnit tu, CXToken t) {
  unsigned off;
  clang_getSpellingLocation(clang_getTokenLocation(tu, t), NULL, NULL, NULL, &off);
  return off;
}

/* ---- the files of the translation unit ------------------------------------------------------ */

static void add_file(CXFile f, CXSourceLocation *stack, unsigned depth, CXClientData data) {
  scan *s = data;
  (void)stack; (void)depth;
  for (size_t i = 0; i < s->nfiles; i++)
    if (clang_File_isEqual(s->files[i], f)) return;
  if (s->nfiles == s->files_cap) {
    size_t cap = s->files_cap ? 2 * s->files_cap : 16;
    CXFile *bigger = realloc(s->files, cap * sizeof *bigger);
    if (!bigger) return;
    s->files = bigger;
    s->files_cap = cap;
  }
  s->files[s->nfiles++] = f;
}

typedef struct {
  unsigned (*r)[2];
  unsigned n;
} skipped;

static skipped skipped_ranges(CXTranslationUnit tu, CXFile file) {
  skipped sk = {NULL, 0};
  CXSourceRangeList *list = clang_getSkippedRanges(tu, file);
  if (!list) return sk;
  sk.r = calloc(list->count ? list->count : 1, sizeof *sk.r);
  if (sk.r)
    for (unsigned i = 0; i < list->count; i++) {
      clang_getSpellingLocation(clang_getRangeStart(list->ranges[i]), NULL, NULL, NULL, &sk.r[sk.n][0]);
      clang_getSpellingLocation(clang_getRangeEnd(list->ranges[i]), NULL, NULL, NULL, &sk.r[sk.n][1]);
      sk.n++;
    }
  clang_disposeSourceRangeList(list);
  return sk;
}

static int is_skipped(const skipped *sk, unsigned off) {
  for (unsigned i = 0; i < sk->n; i++)
    if (off >= sk->r[i][0] && off < sk->r[i][1]) return 1;
  return 0;
}

/* ---- one file's tokens ---------------------------------------------------------------------- */

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

/* Token i of tok[0..ntok) is spelled `word`. */
static int token_is(CXTranslationUnit tu, const CXToken *tok, unsigned ntok, unsigned i, const char *word) {
  if (i >= ntok) return 0;
  CXString str = clang_getTokenSpelling(tu, tok[i]);
  int same = strcmp(clang_getCString(str), word) == 0;
  clang_disposeString(str);
  return same;
}

/* The same in a file's kept tokens, most tokens turned away by their text before asking clang. */
static int spelled(const file_scan *fs, unsigned i, const char *word) {
  size_t n = strlen(word);
  if (i >= fs->ntok || fs->off[i] + n > fs->len) return 0;
  if (memcmp(fs->text + fs->off[i], word, n) != 0) return 0;
  return token_is(fs->s->tu, fs->tok, fs->ntok, i, word);
}

static unsigned line_of(const file_scan *fs, unsigned i) {
  unsigned line;
  clang_getSpellingLocation(clang_getTokenLocation(fs->s->tu, fs->tok[i]), NULL, &line, NULL, NULL);
  return line;
}

/* Offset just past the directive that starts at `off`: the end of its line, continued after a
   backslash (white space may follow the backslash, as clang allows). */
static size_t directive_end(const char *text, size_t len, size_t off) {
  for (size_t i = off; i < len; i++) {
    if (text[i] != '\n') continue;
    size_t j = i;
    while (j > off && (text[j - 1] == ' ' || text[j - 1] == '\t' || text[j - 1] == '\r')) j--;
    if (j == off || text[j - 1] != '\\') return i;
  }
  return len;
}

static void add_found(file_scan *fs, unsigned offset, unsigned after, char *text, unsigned text_offset) {
  if (!text) { fs->s->failed = 1; snprintf(fs->s->err, fs->s->errlen, "cgpredict: out of memory\n"); return; }
  if (fs->nf == fs->fcap) {
    size_t cap = fs->fcap ? 2 * fs->fcap : 8;
    found *bigger = realloc(fs->f, cap * sizeof *bigger);
    if (!bigger) { free(text); fs->s->failed = 1; return; }
    fs->f = bigger;
    fs->fcap = cap;
  }
  fs->f[fs->nf++] = (found){offset, after, text, text_offset};
}

static char *copy_range(const char *text, size_t from, size_t to) {
  char *c = malloc(to - from + 1);
  if (c) { memcpy(c, text + from, to - from); c[to - from] = '\0'; }
  return c;
}

/* The contents of a C string literal token (with its quotes) after destringizing as _Pragma
   does: \" becomes " and \\ becomes \. NULL if it is not a plain "..." literal. */
static char *destringize(const char *lit) {
  size_t n = strlen(lit);
  if (n < 2 || lit[0] != '"' || lit[n - 1] != '"') return NULL;
  char *out = malloc(n), *o = out;
  if (!out) return NULL;
  for (size_t i = 1; i + 1 < n; i++) {
    if (lit[i] == '\\' && i + 2 < n && (lit[i + 1] == '"' || lit[i + 1] == '\\')) i++;
    *o++ = lit[i];
  }
  *o = '\0';
  return out;
}

static int mentions_cgpredict(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return strncmp(s, "cgpredict", 9) == 0 && (s[9] == '\0' || s[9] == ' ' || s[9] == '\t');
}

/* `_Pragma ( "cgpredict ..." )` at tokens i..i+3 of a token array: the destringized text. */
static char *pragma_operator(CXTranslationUnit tu, const CXToken *tok, unsigned ntok, unsigned i) {
  if (i + 3 >= ntok || clang_getTokenKind(tok[i + 2]) != CXToken_Literal) return NULL;
  if (!token_is(tu, tok, ntok, i, "_Pragma") || !token_is(tu, tok, ntok, i + 1, "(") ||
      !token_is(tu, tok, ntok, i + 3, ")"))
    return NULL;
  CXString lit = clang_getTokenSpelling(tu, tok[i + 2]);
  char *text = destringize(clang_getCString(lit));
  clang_disposeString(lit);
  if (text && !mentions_cgpredict(text)) { free(text); text = NULL; }
  return text;
}

/* #pragma directives and _Pragma operators written in this file's kept tokens. */
static void find_written(file_scan *fs) {
  for (unsigned i = 0; i < fs->ntok; i++) {
    if (is_skipped(&fs->sk, fs->off[i])) continue;
    int line_start = i == 0 || line_of(fs, i - 1) != line_of(fs, i);
    if (line_start && spelled(fs, i, "#")) {
      size_t end = directive_end(fs->text, fs->len, fs->off[i]);
      if (spelled(fs, i + 1, "pragma") && spelled(fs, i + 2, "cgpredict") && fs->off[i + 2] < end)
        add_found(fs, fs->off[i], (unsigned)end, copy_range(fs->text, fs->off[i + 2], end), fs->off[i + 2]);
      /* a directive's tokens (a #define's body among them) are not code: skip them */
      fs->in_directive[i] = 1;
      while (i + 1 < fs->ntok && fs->off[i + 1] < end) fs->in_directive[++i] = 1;
      continue;
    }
    if (spelled(fs, i, "_Pragma")) {
      char *text = pragma_operator(fs->s->tu, fs->tok, fs->ntok, i);
      if (text) add_found(fs, fs->off[i], fs->off[i + 3] + 1, text, ~0u);
    }
  }
}

static int text_mentions(const char *text, size_t len) {
  for (size_t i = 0; i + 9 <= len; i++)
    if (text[i] == 'c' && memcmp(text + i, "cgpredict", 9) == 0) return 1;
  return 0;
}

static size_t file_index(const scan *s, CXFile f) {
  for (size_t i = 0; i < s->nfiles; i++)
    if (clang_File_isEqual(s->files[i], f)) return i;
  return (size_t)-1;
}

/* The spelling of token i (malloc'd; NULL when out of memory). */
static char *token_text(CXTranslationUnit tu, const CXToken *tok, unsigned i) {
  CXString str = clang_getTokenSpelling(tu, tok[i]);
  const char *c = clang_getCString(str);
  size_t n = strlen(c) + 1;
  char *t = malloc(n);
  if (t) memcpy(t, c, n);
  clang_disposeString(str);
  return t;
}

/* A definition `NAME(p) # p`: NAME is remembered as a stringizing macro. */
static void note_stringizer(scan *s, CXCursor def) {
  if (!clang_Cursor_isMacroFunctionLike(def)) return;
  unsigned start, end;                             /* `NAME(p) #p`: a few dozen bytes at most */
  CXSourceRange r = clang_getCursorExtent(def);
  clang_getSpellingLocation(clang_getRangeStart(r), NULL, NULL, NULL, &start);
  clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &end);
  if (end < start || end - start > 96) return;
  CXToken *tok;
  unsigned ntok;
  clang_tokenize(s->tu, clang_getCursorExtent(def), &tok, &ntok);
  char *name = ntok == 6 ? token_text(s->tu, tok, 0) : NULL, *p = ntok == 6 ? token_text(s->tu, tok, 2) : NULL;
  if (name && p && token_is(s->tu, tok, ntok, 1, "(") && token_is(s->tu, tok, ntok, 3, ")") &&
      token_is(s->tu, tok, ntok, 4, "#") && token_is(s->tu, tok, ntok, 5, p)) {
    char **more = realloc(s->str_macros, (s->nstr + 1) * sizeof *more);
    if (more) {
      s->str_macros = more;
      s->str_macros[s->nstr++] = name;
      name = NULL;
    }
  }
  free(name);
  free(p);
  clang_disposeTokens(s->tu, tok, ntok);
}

static int is_stringizer(const scan *s, const char *name) {
  for (size_t i = 0; i < s->nstr; i++)
    if (strcmp(s->str_macros[i], name) == 0) return 1;
  return 0;
}

typedef struct {
  char *buf;
  size_t len, cap;
  int oom;
} strbuf;

static void sb_add(strbuf *b, const char *t) {
  size_t n = strlen(t);
  if (b->oom) return;
  if (b->len + n + 2 > b->cap) {
    size_t cap = 2 * (b->len + n + 2);
    char *p = realloc(b->buf, cap);
    if (!p) { b->oom = 1; return; }
    b->buf = p;
    b->cap = cap;
  }
  if (b->len) b->buf[b->len++] = ' ';
  memcpy(b->buf + b->len, t, n + 1);
  b->len += n;
}

#define MAX_MACRO_PARAMS 32

/* `_Pragma ( STR ( cgpredict ... ) )` at definition token i, STR a stringizing macro: the text
   STR makes of its argument, the outer macro's parameters replaced by the expansion's
   arguments (tokens joined by one space, as # joins them; comments and line breaks were never
   tokens). NULL if it is not that form or does not start with cgpredict. */
static char *stringized_pragma(scan *s, const CXToken *dtok, unsigned dn, unsigned i, CXCursor def,
                               CXCursor expansion) {
  if (!token_is(s->tu, dtok, dn, i, "_Pragma") || !token_is(s->tu, dtok, dn, i + 1, "(") ||
      !token_is(s->tu, dtok, dn, i + 3, "(") || !token_is(s->tu, dtok, dn, i + 4, "cgpredict"))
    return NULL;
  char *m = i + 2 < dn ? token_text(s->tu, dtok, i + 2) : NULL;
  int ok = m && is_stringizer(s, m);
  free(m);
  if (!ok) return NULL;
  unsigned end = i + 4, depth = 1;                 /* the `)` closing STR's argument */
  for (; end < dn; end++) {
    if (token_is(s->tu, dtok, dn, end, "(")) depth++;
    else if (token_is(s->tu, dtok, dn, end, ")") && --depth == 0) break;
  }
  if (end >= dn) return NULL;
  /* the outer macro's parameters, and the expansion's arguments */
  char *params[MAX_MACRO_PARAMS];
  unsigned nparams = 0, arg_lo[MAX_MACRO_PARAMS], arg_hi[MAX_MACRO_PARAMS], nargs = 0;
  CXToken *xtok = NULL;
  unsigned xn = 0;
  if (clang_Cursor_isMacroFunctionLike(def)) {
    for (unsigned j = 2; j < i && !token_is(s->tu, dtok, dn, j, ")") && nparams < MAX_MACRO_PARAMS; j++)
      if (clang_getTokenKind(dtok[j]) == CXToken_Identifier) params[nparams++] = token_text(s->tu, dtok, j);
    clang_tokenize(s->tu, clang_getCursorExtent(expansion), &xtok, &xn);
    unsigned d = 0, lo = 2;
    for (unsigned j = 1; j < xn && nargs < MAX_MACRO_PARAMS; j++) {
      if (token_is(s->tu, xtok, xn, j, "(")) { if (d++ == 0) lo = j + 1; continue; }
      int close = token_is(s->tu, xtok, xn, j, ")");
      if ((close && d == 1) || (d == 1 && token_is(s->tu, xtok, xn, j, ","))) {
        arg_lo[nargs] = lo;
        arg_hi[nargs++] = j;
        lo = j + 1;
      }
      if (close && --d == 0) break;
    }
  }
  strbuf b = {0};
  for (unsigned j = i + 4; j < end && !b.oom; j++) {
    char *t = token_text(s->tu, dtok, j);
    if (!t) { b.oom = 1; break; }
    unsigned p = 0;
    if (clang_getTokenKind(dtok[j]) == CXToken_Identifier)
      while (p < nparams && (!params[p] || strcmp(params[p], t) != 0)) p++;
    else
      p = nparams;
    if (p == nparams) {
      sb_add(&b, t);
    } else if (p >= nargs) {
      b.oom = 1;                                   /* a parameter without its argument */
    } else {
      for (unsigned x = arg_lo[p]; x < arg_hi[p] && !b.oom; x++) {
        char *a = token_text(s->tu, xtok, x);
        if (a) sb_add(&b, a); else b.oom = 1;
        free(a);
      }
    }
    free(t);
  }
  for (unsigned p = 0; p < nparams; p++) free(params[p]);
  if (xtok) clang_disposeTokens(s->tu, xtok, xn);
  if (b.oom) { free(b.buf); return NULL; }
  return b.buf;
}

/* A macro expansion whose definition (in a file that mentions cgpredict) holds
   `_Pragma("cgpredict ...")`: remembered for the file the expansion is in. */
static enum CXChildVisitResult visit_expansion(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  scan *s = data;
  if (clang_getCursorKind(c) == CXCursor_MacroDefinition) {
    note_stringizer(s, c);
    return CXChildVisit_Continue;
  }
  if (clang_getCursorKind(c) != CXCursor_MacroExpansion) return CXChildVisit_Continue;
  CXCursor def = clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(def)) return CXChildVisit_Continue;
  CXFile def_file, file;
  clang_getSpellingLocation(clang_getCursorLocation(def), &def_file, NULL, NULL, NULL);
  size_t di = def_file ? file_index(s, def_file) : (size_t)-1;
  if (di == (size_t)-1 || !s->mentions[di]) return CXChildVisit_Continue;
  unsigned start, end;
  CXSourceRange ext = clang_getCursorExtent(c);
  clang_getSpellingLocation(clang_getRangeStart(ext), &file, NULL, NULL, &start);
  clang_getSpellingLocation(clang_getRangeEnd(ext), NULL, NULL, NULL, &end);
  size_t fi = file ? file_index(s, file) : (size_t)-1;
  if (fi == (size_t)-1) return CXChildVisit_Continue;
  CXToken *tok;
  unsigned ntok;
  clang_tokenize(s->tu, clang_getCursorExtent(def), &tok, &ntok);
  for (unsigned i = 0; i < ntok; i++) {
    char *text = pragma_operator(s->tu, tok, ntok, i);
    if (!text) text = stringized_pragma(s, tok, ntok, i, def, c);
    if (!text) continue;
    if (s->nexp == s->exp_cap) {
      size_t cap = s->exp_cap ? 2 * s->exp_cap : 8;
      struct expansion *bigger = realloc(s->exp, cap * sizeof *bigger);
      if (!bigger) { free(text); s->failed = 1; snprintf(s->err, s->errlen, "cgpredict: out of memory\n"); break; }
      s->exp = bigger;
      s->exp_cap = cap;
    }
    s->exp[s->nexp++] = (struct expansion){fi, start, end, text};
    break;
  }
  clang_disposeTokens(s->tu, tok, ntok);
  return CXChildVisit_Continue;
}

static int by_offset(const void *a, const void *b) {
  unsigned x = ((const found *)a)->offset, y = ((const found *)b)->offset;
  return (x > y) - (x < y);
}

static void default_name(cgp_kernel_pragma *k) {
  const char *base = strrchr(k->file, '/');
  base = base ? base + 1 : k->file;
  size_t len = strlen(base);
  if (len > 2 && strcmp(base + len - 2, ".c") == 0) len -= 2;
  snprintf(k->name, sizeof k->name, "%.*s_%u", (int)len, base, k->pragma_line);
}

/* The first token from i on that the compiler keeps (not in a skipped branch or a directive). */
static unsigned kept_from(const file_scan *fs, unsigned i) {
  while (i < fs->ntok && (is_skipped(&fs->sk, fs->off[i]) || fs->in_directive[i])) i++;
  return i;
}

/* The first kept token from found->after on, past any labels (`outer: for`, as HLS code such as
   MachSuite names every loop), must be the `for` keyword of a for statement. */
static void mark_loop(file_scan *fs, const found *f, cgp_kernel_pragma *k) {
  scan *s = fs->s;
  unsigned i = 0;
  while (i < fs->ntok && fs->off[i] < f->after) i++;
  i = kept_from(fs, i);
  for (unsigned colon; i < fs->ntok && clang_getTokenKind(fs->tok[i]) == CXToken_Identifier &&
                       (colon = kept_from(fs, i + 1)) < fs->ntok && spelled(fs, colon, ":");)
    i = kept_from(fs, colon + 1);
  if (i >= fs->ntok || !spelled(fs, i, "for") || clang_getTokenKind(fs->tok[i]) != CXToken_Keyword) {
    error_at(s, k->file, k->pragma_line, k->pragma_col, "#pragma cgpredict kernel is not followed by a for loop");
    return;
  }
  clang_getSpellingLocation(clang_getTokenLocation(s->tu, fs->tok[i]), NULL, &k->for_line, &k->for_col, NULL);
  CXCursor c = clang_getCursor(s->tu, clang_getTokenLocation(s->tu, fs->tok[i]));
  if (clang_getCursorKind(c) != CXCursor_ForStmt) {
    if (s->openmp) {                             /* libclang shows no statement inside a construct */
      error_at(s, k->file, k->for_line, k->for_col,
               "the marked loop is inside an OpenMP construct (the file is compiled with -fopenmp): "
               "OpenMP outlines it and shares its iterations among threads, which cgpredict cannot "
               "follow as one grid; mark a serial copy of the nest, or compile this file without "
               "-fopenmp (its OpenMP pragmas are then ignored and the loop runs in order; keep -fopenmp when "
               "linking if the program calls omp_* functions)");
      return;
    }
    error_at(s, k->file, k->for_line, k->for_col,
             "the marked 'for' is not a for statement the compiler sees (is the loop itself inside a macro?)");
    return;
  }
  clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(c)), NULL, &k->for_end_line, NULL, NULL);
}

static void finish(file_scan *fs, const found *f) {
  scan *s = fs->s;
  cgp_kernel_pragma *k = calloc(1, sizeof *k);
  if (!k) { s->failed = 1; return; }
  snprintf(k->file, sizeof k->file, "%s", fs->name);
  file_pos(s->tu, fs->file, f->offset, &k->pragma_line, &k->pragma_col);
  size_t at;
  char msg[512];
  if (cgp_pragma_parse(f->text, strlen(f->text), k, &at, msg, sizeof msg) != 0) {
    unsigned line = k->pragma_line, col = k->pragma_col;
    if (at && f->text_offset != ~0u) file_pos(s->tu, fs->file, f->text_offset + (unsigned)at, &line, &col);
    error_at(s, k->file, line, col, "%s", msg);
    free(k);
    return;
  }
  for (unsigned q = 0; q < k->n_knobs; q++) { /* where each FPGA directive is, for the driver's errors */
    k->knobs[q].line = k->pragma_line, k->knobs[q].col = k->pragma_col;
    if (f->text_offset != ~0u)
      file_pos(s->tu, fs->file, f->text_offset + (unsigned)k->knobs[q].at, &k->knobs[q].line, &k->knobs[q].col);
  }
  mark_loop(fs, f, k);
  int ok = !s->failed;
  if (ok && !k->name[0]) default_name(k);
  for (size_t j = 0; ok && j < s->n; j++)
    if (strcmp(s->out[j].file, k->file) == 0 && s->out[j].for_line == k->for_line &&
        s->out[j].for_col == k->for_col) {     /* two pragmas stacked on one loop */
      error_at(s, k->file, k->pragma_line, k->pragma_col,
               "the loop at line %u:%u is already marked by the pragma at line %u: one #pragma cgpredict "
               "kernel per loop nest (put every clause in one)",
               k->for_line, k->for_col, s->out[j].pragma_line);
      ok = 0;
    }
  for (size_t j = 0; ok && j < s->n; j++)
    if (strcmp(s->out[j].name, k->name) == 0) {
      error_at(s, k->file, k->pragma_line, k->pragma_col, "kernel name '%s' is already used at %s%s%u",
               k->name, strcmp(s->out[j].file, k->file) ? s->out[j].file : "", strcmp(s->out[j].file, k->file) ? ":" : "line ",
               s->out[j].pragma_line);
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

static void scan_file(scan *s, size_t index) {
  CXFile file = s->files[index];
  file_scan fs = {.s = s, .file = file};
  int expanded = 0;                         /* most files (system headers) have nothing for us */
  for (size_t e = 0; e < s->nexp; e++) expanded |= s->exp[e].file == index;
  if (!s->mentions[index] && !expanded) return;
  fs.text = clang_getFileContents(s->tu, file, &fs.len);
  if (!fs.text || fs.len == 0) return;
  CXString name = clang_getFileName(file);
  snprintf(fs.name, sizeof fs.name, "%s", clang_getCString(name));
  clang_disposeString(name);
  if (clang_File_isEqual(file, clang_getFile(s->tu, s->main_path)))
    snprintf(fs.name, sizeof fs.name, "%s", s->main_path);
  CXSourceRange all = clang_getRange(clang_getLocationForOffset(s->tu, file, 0),
                                     clang_getLocationForOffset(s->tu, file, (unsigned)fs.len));
  clang_tokenize(s->tu, all, &fs.tok, &fs.ntok);
  fs.off = calloc(fs.ntok ? fs.ntok : 1, sizeof *fs.off);
  fs.in_directive = calloc(fs.ntok ? fs.ntok : 1, 1);
  if (!fs.off || !fs.in_directive) {
    snprintf(s->err, s->errlen, "cgpredict: out of memory\n");
    s->failed = 1;
    free(fs.off);
    free(fs.in_directive);
    clang_disposeTokens(s->tu, fs.tok, fs.ntok);
    return;
  }
  for (unsigned i = 0; i < fs.ntok; i++) fs.off[i] = tok_offset(s->tu, fs.tok[i]);
  fs.sk = skipped_ranges(s->tu, file);
  if (s->mentions[index]) find_written(&fs);
  for (size_t e = 0; e < s->nexp; e++)
    if (s->exp[e].file == index) {
      add_found(&fs, s->exp[e].start, s->exp[e].end, s->exp[e].text, ~0u);
      s->exp[e].text = NULL;                /* now owned by fs.f */
    }
  qsort(fs.f, fs.nf, sizeof *fs.f, by_offset);
  for (size_t i = 0; i < fs.nf; i++) {
    int before = s->failed;
    s->failed = 0;
    finish(&fs, &fs.f[i]);
    s->failed |= before;
    free(fs.f[i].text);
  }
  free(fs.f);
  free(fs.sk.r);
  free(fs.off);
  free(fs.in_directive);
  clang_disposeTokens(s->tu, fs.tok, fs.ntok);
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

/* Whether the source's own text mentions cgpredict (then a failed parse is an error). */
static int source_mentions(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buf[65536 + 9];
  size_t keep = 0, got;
  int found_it = 0;
  while (!found_it && (got = fread(buf + keep, 1, sizeof buf - 1 - keep, f)) > 0) {
    size_t n = keep + got;
    for (size_t i = 0; i + 9 <= n && !found_it; i++) found_it = memcmp(buf + i, "cgpredict", 9) == 0;
    keep = n < 8 ? n : 8;
    memmove(buf, buf + n - keep, keep);
  }
  fclose(f);
  return found_it;
}

int cgp_openmp_enabled(const char *const *argv, int argc) {
  int on = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "-fopenmp") == 0 || strncmp(argv[i], "-fopenmp=", 9) == 0) on = 1;
    else if (strcmp(argv[i], "-fno-openmp") == 0) on = 0;
  }
  return on;
}

int cgp_pragma_scan(const char *path, const char *const *argv, int argc,
                    cgp_kernel_pragma **out, size_t *n, char *err, size_t errlen) {
  *out = NULL;
  *n = 0;
  err[0] = '\0';
  int mention = source_mentions(path);
  if (mention < 0) { snprintf(err, errlen, "%s: cannot read the source\n", path); return -1; }
  const char **args = calloc((size_t)argc + 2, sizeof *args);
  if (!args) { snprintf(err, errlen, "cgpredict: out of memory\n"); return -1; }
  for (int i = 0; i < argc; i++) args[i] = argv[i];
  args[argc] = "-Wno-unknown-pragmas";
  scan s = {.main_path = path, .err = err, .errlen = errlen};
  s.openmp = cgp_openmp_enabled(argv, argc);
  CXIndex idx = clang_createIndex(0, 0);
  int rc = 0;
  if (clang_parseTranslationUnit2(idx, path, args, argc + 1, NULL, 0, CXTranslationUnit_DetailedPreprocessingRecord,
                                  &s.tu) != CXError_Success) {
    /* a source libclang cannot take compiles as before unless it is visibly marked */
    if (mention) { snprintf(err, errlen, "%s: libclang could not parse the file\n", path); rc = -1; }
  } else {
    clang_getInclusions(s.tu, add_file, &s);
    s.mentions = calloc(s.nfiles ? s.nfiles : 1, sizeof *s.mentions);
    if (!s.mentions) { snprintf(err, errlen, "cgpredict: out of memory\n"); s.failed = 1; s.nfiles = 0; }
    for (size_t i = 0; i < s.nfiles; i++) {
      size_t len;
      const char *text = clang_getFileContents(s.tu, s.files[i], &len);
      s.mentions[i] = text && text_mentions(text, len);
    }
    clang_visitChildren(clang_getTranslationUnitCursor(s.tu), visit_expansion, &s);
    for (size_t i = 0; i < s.nfiles; i++) scan_file(&s, i);
    for (size_t e = 0; e < s.nexp; e++) free(s.exp[e].text);
    for (size_t m = 0; m < s.nstr; m++) free(s.str_macros[m]);
    free(s.str_macros);
    if (s.n || s.failed || mention) {
      char pragma_err[8192];               /* syntax errors first, as a compiler would print them */
      snprintf(pragma_err, sizeof pragma_err, "%s", err);
      err[0] = '\0';
      report_diagnostics(&s);
      size_t used = strlen(err);
      if (used + 1 < errlen) snprintf(err + used, errlen - used, "%s", pragma_err);
    }
    clang_disposeTranslationUnit(s.tu);
    rc = s.failed ? -1 : 0;
  }
  clang_disposeIndex(idx);
  free(args);
  free(s.files);
  free(s.mentions);
  free(s.exp);
  *out = s.out;
  *n = s.n;
  if (rc) { free(*out); *out = NULL; *n = 0; }
  return rc;
}
