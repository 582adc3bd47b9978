/* cgp_pragma_macro.c: pragmas a macro expansion writes. A macro whose definition holds
   `_Pragma("cgpredict ...")`, or `_Pragma(STR(cgpredict ...))` with STR defined as `#x`
   (stringized_pragma), marks the `for` that follows each of its expansions:
   cgp_pragma_visit_expansion remembers those expansions for the scanner (cgp_pragma.c). Calls
   cgp_pragma_token.c. */
#include "cgp_pragma.h"
#include "cgp_pragma_internal.h"

#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  if (name && p && cgp_pragma_token_is(s->tu, tok, ntok, 1, "(") && cgp_pragma_token_is(s->tu, tok, ntok, 3, ")") &&
      cgp_pragma_token_is(s->tu, tok, ntok, 4, "#") && cgp_pragma_token_is(s->tu, tok, ntok, 5, p)) {
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
  if (!cgp_pragma_token_is(s->tu, dtok, dn, i, "_Pragma") || !cgp_pragma_token_is(s->tu, dtok, dn, i + 1, "(") ||
      !cgp_pragma_token_is(s->tu, dtok, dn, i + 3, "(") || !cgp_pragma_token_is(s->tu, dtok, dn, i + 4, "cgpredict"))
    return NULL;
  char *m = i + 2 < dn ? token_text(s->tu, dtok, i + 2) : NULL;
  int ok = m && is_stringizer(s, m);
  free(m);
  if (!ok) return NULL;
  unsigned end = i + 4, depth = 1;                 /* the `)` closing STR's argument */
  for (; end < dn; end++) {
    if (cgp_pragma_token_is(s->tu, dtok, dn, end, "(")) depth++;
    else if (cgp_pragma_token_is(s->tu, dtok, dn, end, ")") && --depth == 0) break;
  }
  if (end >= dn) return NULL;
  /* the outer macro's parameters, and the expansion's arguments */
  char *params[MAX_MACRO_PARAMS];
  unsigned nparams = 0, arg_lo[MAX_MACRO_PARAMS], arg_hi[MAX_MACRO_PARAMS], nargs = 0;
  CXToken *xtok = NULL;
  unsigned xn = 0;
  if (clang_Cursor_isMacroFunctionLike(def)) {
    for (unsigned j = 2; j < i && !cgp_pragma_token_is(s->tu, dtok, dn, j, ")") && nparams < MAX_MACRO_PARAMS; j++)
      if (clang_getTokenKind(dtok[j]) == CXToken_Identifier) params[nparams++] = token_text(s->tu, dtok, j);
    clang_tokenize(s->tu, clang_getCursorExtent(expansion), &xtok, &xn);
    unsigned d = 0, lo = 2;
    for (unsigned j = 1; j < xn && nargs < MAX_MACRO_PARAMS; j++) {
      if (cgp_pragma_token_is(s->tu, xtok, xn, j, "(")) { if (d++ == 0) lo = j + 1; continue; }
      int close = cgp_pragma_token_is(s->tu, xtok, xn, j, ")");
      if ((close && d == 1) || (d == 1 && cgp_pragma_token_is(s->tu, xtok, xn, j, ","))) {
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
enum CXChildVisitResult cgp_pragma_visit_expansion(CXCursor c, CXCursor parent, CXClientData data) {
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
    char *text = cgp_pragma_operator(s->tu, tok, ntok, i);
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
