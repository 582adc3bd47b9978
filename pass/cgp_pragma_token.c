/* cgp_pragma_token.c: the pragma scanner's words (cgp_pragma.c): a token's spelling, whether it is
   in a branch the preprocessor skipped, the text of a `_Pragma("cgpredict ...")` operator, and
   an error at a file's line and column. Calls nothing else of the scanner. */
#include "cgp_pragma.h"
#include "cgp_pragma_internal.h"

#include <clang-c/Index.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cgp_pragma_error_at(scan *s, const char *file, unsigned line, unsigned col, const char *fmt, ...) {
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

void cgp_pragma_file_pos(CXTranslationUnit tu, CXFile file, unsigned offset, unsigned *line, unsigned *col) {
  clang_getSpellingLocation(clang_getLocationForOffset(tu, file, offset), NULL, line, col, NULL);
}

int cgp_pragma_is_skipped(const skipped *sk, unsigned off) {
  for (unsigned i = 0; i < sk->n; i++)
    if (off >= sk->r[i][0] && off < sk->r[i][1]) return 1;
  return 0;
}

/* Token i of tok[0..ntok) is spelled `word`. */
int cgp_pragma_token_is(CXTranslationUnit tu, const CXToken *tok, unsigned ntok, unsigned i, const char *word) {
  if (i >= ntok) return 0;
  CXString str = clang_getTokenSpelling(tu, tok[i]);
  int same = strcmp(clang_getCString(str), word) == 0;
  clang_disposeString(str);
  return same;
}

/* The same in a file's kept tokens, most tokens turned away by their text before asking clang. */
int cgp_pragma_spelled(const file_scan *fs, unsigned i, const char *word) {
  size_t n = strlen(word);
  if (i >= fs->ntok || fs->off[i] + n > fs->len) return 0;
  if (memcmp(fs->text + fs->off[i], word, n) != 0) return 0;
  return cgp_pragma_token_is(fs->s->tu, fs->tok, fs->ntok, i, word);
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
char *cgp_pragma_operator(CXTranslationUnit tu, const CXToken *tok, unsigned ntok, unsigned i) {
  if (i + 3 >= ntok || clang_getTokenKind(tok[i + 2]) != CXToken_Literal) return NULL;
  if (!cgp_pragma_token_is(tu, tok, ntok, i, "_Pragma") || !cgp_pragma_token_is(tu, tok, ntok, i + 1, "(") ||
      !cgp_pragma_token_is(tu, tok, ntok, i + 3, ")"))
    return NULL;
  CXString lit = clang_getTokenSpelling(tu, tok[i + 2]);
  char *text = destringize(clang_getCString(lit));
  clang_disposeString(lit);
  if (text && !mentions_cgpredict(text)) { free(text); text = NULL; }
  return text;
}
