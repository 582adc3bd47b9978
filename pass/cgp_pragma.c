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
     must be a for statement of the AST; its line:column is what the pass matches.

   This file is the scan: the files of the TU, the pragmas written in each, and
   cgp_pragma_scan. Pragmas written by macro expansions are cgp_pragma_macro.c's; a found
   pragma made a kernel (its clauses, its loop, its name) is cgp_pragma_loop.c's; the tokens'
   words and the errors are cgp_pragma_token.c's (cgp_pragma_internal.h). */
#include "cgp_pragma.h"
#include "cgp_pragma_internal.h"

#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- one file's tokens ---------------------------------------------------------------------- */

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

/* #pragma directives and _Pragma operators written in this file's kept tokens. */
static void find_written(file_scan *fs) {
  for (unsigned i = 0; i < fs->ntok; i++) {
    if (cgp_pragma_is_skipped(&fs->sk, fs->off[i])) continue;
    int line_start = i == 0 || line_of(fs, i - 1) != line_of(fs, i);
    if (line_start && cgp_pragma_spelled(fs, i, "#")) {
      size_t end = directive_end(fs->text, fs->len, fs->off[i]);
      if (cgp_pragma_spelled(fs, i + 1, "pragma") && cgp_pragma_spelled(fs, i + 2, "cgpredict") && fs->off[i + 2] < end)
        add_found(fs, fs->off[i], (unsigned)end, copy_range(fs->text, fs->off[i + 2], end), fs->off[i + 2]);
      /* a directive's tokens (a #define's body among them) are not code: skip them */
      fs->in_directive[i] = 1;
      while (i + 1 < fs->ntok && fs->off[i + 1] < end) fs->in_directive[++i] = 1;
      continue;
    }
    if (cgp_pragma_spelled(fs, i, "_Pragma")) {
      char *text = cgp_pragma_operator(fs->s->tu, fs->tok, fs->ntok, i);
      if (text) add_found(fs, fs->off[i], fs->off[i + 3] + 1, text, ~0u);
    }
  }
}

static int text_mentions(const char *text, size_t len) {
  for (size_t i = 0; i + 9 <= len; i++)
    if (text[i] == 'c' && memcmp(text + i, "cgpredict", 9) == 0) return 1;
  return 0;
}

static int by_offset(const void *a, const void *b) {
  unsigned x = ((const found *)a)->offset, y = ((const found *)b)->offset;
  return (x > y) - (x < y);
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
    cgp_pragma_finish(&fs, &fs.f[i]);
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

unsigned cgp_pragma_written_line(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char line[4096];
  unsigned at = 0, found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    at++;
    const char *p = line + strspn(line, " \t");
    if (*p++ != '#') continue;
    p += strspn(p, " \t");
    if (strncmp(p, "pragma", 6) != 0 || !strchr(" \t", p[6])) continue;
    p += 6 + strspn(p + 6, " \t");
    if (strncmp(p, "cgpredict", 9) == 0 && (p[9] == '\0' || strchr(" \t\r\n", p[9]))) found = at;
  }
  fclose(f);
  return found;
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
    clang_visitChildren(clang_getTranslationUnitCursor(s.tu), cgp_pragma_visit_expansion, &s);
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
