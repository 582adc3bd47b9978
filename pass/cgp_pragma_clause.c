/* cgp_pragma_clause.c: the text of one `cgpredict kernel ...` pragma to its clauses. A pure
   function of the text (no libclang): the scanner hands it the directive as written, or the
   contents of a _Pragma string, and the fuzzer hands it anything. Tokens: identifiers (ASCII
   letters, digits, '_', and well-formed UTF-8 beyond ASCII), decimal integers and the
   punctuators ( ) , ; white space, comments and backslash-newline separate them. */
#include "cgp_pragma.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_BLOCK_THREADS 1024

enum { T_END, T_IDENT, T_INT, T_PUNCT, T_BAD, T_BAD_UTF8 };

typedef struct {
  const char *s;
  size_t len, pos;
  int kind;
  size_t at, n;        /* the current token: text[at, at + n) */
} lexer;

/* Length of the well-formed UTF-8 sequence at p (at most `left` bytes), 0 if ill-formed. */
static size_t utf8_len(const unsigned char *p, size_t left) {
  size_t n;
  unsigned min;
  if (p[0] < 0x80) return 1;
  if (p[0] >= 0xC2 && p[0] <= 0xDF) { n = 2; min = 0x80; }
  else if (p[0] >= 0xE0 && p[0] <= 0xEF) { n = 3; min = 0x800; }
  else if (p[0] >= 0xF0 && p[0] <= 0xF4) { n = 4; min = 0x10000; }
  else return 0;
  if (n > left) return 0;
  unsigned cp = p[0] & (0x7F >> n);
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

static int ident_start(unsigned char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80; }
static int ident_char(unsigned char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

static void skip_space(lexer *l) {
  while (l->pos < l->len) {
    char c = l->s[l->pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') l->pos++;
    else if (c == '\\' && l->pos + 1 < l->len && (l->s[l->pos + 1] == '\n' || l->s[l->pos + 1] == '\r')) l->pos += 2;
    else if (c == '/' && l->pos + 1 < l->len && l->s[l->pos + 1] == '*') {
      const char *end = NULL;
      for (size_t i = l->pos + 2; i + 1 < l->len; i++)
        if (l->s[i] == '*' && l->s[i + 1] == '/') { end = l->s + i + 2; break; }
      l->pos = end ? (size_t)(end - l->s) : l->len;
    } else if (c == '/' && l->pos + 1 < l->len && l->s[l->pos + 1] == '/') {
      while (l->pos < l->len && l->s[l->pos] != '\n') l->pos++;
    } else break;
  }
}

static void next(lexer *l) {
  skip_space(l);
  l->at = l->pos;
  l->n = 0;
  if (l->pos >= l->len) { l->kind = T_END; return; }
  const unsigned char *p = (const unsigned char *)l->s;
  if (ident_start(p[l->pos])) {
    size_t i = l->pos;
    l->kind = T_IDENT;
    while (i < l->len && ident_char(p[i])) {
      size_t u = utf8_len(p + i, l->len - i);
      if (!u) { l->kind = T_BAD_UTF8; u = 1; }
      i += u;
    }
    l->n = i - l->pos;
  } else if (p[l->pos] >= '0' && p[l->pos] <= '9') {
    size_t i = l->pos;
    while (i < l->len && ident_char(p[i])) i++;      /* 12abc is one (bad) number, as in C */
    l->kind = T_INT;
    l->n = i - l->pos;
  } else {
    char c = (char)p[l->pos];
    l->kind = (c == '(' || c == ')' || c == ',' || c == ';') ? T_PUNCT : T_BAD;
    l->n = 1;
  }
  l->pos = l->at + l->n;
}

static int is(const lexer *l, const char *text) {
  size_t n = strlen(text);
  return l->kind != T_END && l->n == n && memcmp(l->s + l->at, text, n) == 0;
}

typedef struct {
  char *err;
  size_t errlen, *where;
} fail_ctx;

static int fail(fail_ctx *f, size_t at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->err, f->errlen, fmt, ap);
  va_end(ap);
  *f->where = at;
  return -1;
}

/* The current token's text for a message: at most 60 bytes, never cut inside a UTF-8 character. */
static const char *shown(const lexer *l, char *buf, size_t cap) {
  size_t n = l->n;
  if (l->kind == T_END) return "end of line";
  if (n > 60) {
    n = 60;
    while (n > 0 && ((unsigned char)l->s[l->at + n] & 0xC0) == 0x80) n--;
  }
  snprintf(buf, cap, "%.*s%s", (int)n, l->s + l->at, n < l->n ? "..." : "");
  return buf;
}

/* A positive decimal integer of at most 1024; 0 on failure (message filled). */
static unsigned positive(lexer *l, fail_ctx *f, const char *clause) {
  unsigned long v = 0;
  int ok = l->kind == T_INT;
  for (size_t i = 0; ok && i < l->n; i++) {
    char c = l->s[l->at + i];
    if (c < '0' || c > '9') ok = 0;
    else if ((v = v * 10 + (unsigned long)(c - '0')) > MAX_BLOCK_THREADS) ok = 0;
  }
  if (!ok || v == 0) {
    fail(f, l->at, "%s(...) expects a positive integer (at most %d)", clause, MAX_BLOCK_THREADS);
    return 0;
  }
  return (unsigned)v;
}

static int copy_ident(const lexer *l, fail_ctx *f, char *dst, size_t cap, const char *clause) {
  if (l->kind == T_BAD_UTF8) return fail(f, l->at, "%s(...): not valid UTF-8", clause);
  if (l->kind != T_IDENT) {
    char b[80];
    return fail(f, l->at, "%s(...) expects an identifier, not '%s'", clause, shown(l, b, sizeof b));
  }
  if (l->n >= cap) return fail(f, l->at, "%s(...): the identifier is %zu bytes, more than %zu", clause, l->n, cap - 1);
  memcpy(dst, l->s + l->at, l->n);
  dst[l->n] = '\0';
  return 0;
}

enum { C_NAME, C_DIMS, C_BLOCK, C_SHARED, C_TILE, C_NOALIAS, C_FPGA, C_COUNT };
static const char *const clause_names[C_COUNT] = {"name", "dims", "block", "shared", "tile", "noalias", "fpga"};

/* `fpga(auto)`, `fpga(none)` or directives, separated by blanks or commas:
   unroll(LOOP, FACTOR)  pipeline(LOOP)  partition(ARRAY, cyclic|block, FACTOR[, DIM])
   partition(ARRAY, complete[, DIM]); LOOP is the loop's induction variable. */
static int knob(lexer *l, fail_ctx *f, cgp_kernel_pragma *k) {
  char b[80];
  size_t at = l->at;
  int kind = is(l, "unroll") ? CGP_KNOB_UNROLL : is(l, "pipeline") ? CGP_KNOB_PIPELINE
             : is(l, "partition") ? CGP_KNOB_PARTITION : -1;
  if (l->kind == T_IDENT && (is(l, "auto") || is(l, "none"))) {
    if (k->fpga != CGP_FPGA_UNSET) return fail(f, at, "fpga(%s) stands alone: no other directive with it", shown(l, b, sizeof b));
    k->fpga = is(l, "auto") ? CGP_FPGA_AUTO : CGP_FPGA_BASELINE;
    next(l);
    return 0;
  }
  if (kind < 0 || l->kind != T_IDENT)
    return fail(f, at, "unknown FPGA directive '%s' (expected unroll, pipeline, partition, auto or none)",
                shown(l, b, sizeof b));
  if (k->fpga != CGP_FPGA_UNSET && k->fpga != CGP_FPGA_LIST)
    return fail(f, at, "fpga(auto) and fpga(none) stand alone: no other directive with them");
  if (k->n_knobs == CGP_PRAGMA_MAX_KNOBS) return fail(f, at, "fpga(...) holds at most %d directives", CGP_PRAGMA_MAX_KNOBS);
  k->fpga = CGP_FPGA_LIST;
  cgp_fpga_knob *kn = &k->knobs[k->n_knobs];
  memset(kn, 0, sizeof *kn);
  kn->kind = kind;
  kn->at = at;
  const char *what = kind == CGP_KNOB_UNROLL ? "unroll" : kind == CGP_KNOB_PIPELINE ? "pipeline" : "partition";
  next(l);
  if (!is(l, "(")) return fail(f, at, "expected '(' after '%s'", what);
  next(l);
  if (copy_ident(l, f, kn->name, sizeof kn->name, what)) return -1;
  for (unsigned i = 0; i < k->n_knobs; i++)
    if (k->knobs[i].kind == kind && (kind == CGP_KNOB_PIPELINE || !strcmp(k->knobs[i].name, kn->name)))
      return fail(f, at, kind == CGP_KNOB_PIPELINE ? "one pipeline(...) per kernel" : "%s(%s, ...) given twice", what,
                  kn->name);
  next(l);
  if (kind == CGP_KNOB_UNROLL) {
    if (!is(l, ",")) return fail(f, l->kind == T_END ? at : l->at, "unroll(LOOP, FACTOR): expected ',' and the factor");
    next(l);
    if (!(kn->factor = positive(l, f, "unroll"))) return -1;
    next(l);
  } else if (kind == CGP_KNOB_PARTITION) {
    kn->dim = 1;
    if (!is(l, ",")) return fail(f, l->kind == T_END ? at : l->at, "partition(ARRAY, KIND, ...): expected ',' and cyclic, "
                                 "block or complete");
    next(l);
    kn->part = is(l, "cyclic") ? 1 : is(l, "block") ? 2 : is(l, "complete") ? 3 : 0;
    if (!kn->part || l->kind != T_IDENT)
      return fail(f, l->at, "partition(...): the kind is cyclic, block or complete, not '%s'", shown(l, b, sizeof b));
    next(l);
    if (kn->part != 3) {
      if (!is(l, ",")) return fail(f, l->kind == T_END ? at : l->at, "partition(%s, %s, FACTOR): expected ',' and the "
                                   "factor", kn->name, kn->part == 1 ? "cyclic" : "block");
      next(l);
      if (!(kn->factor = positive(l, f, "partition"))) return -1;
      next(l);
    }
    if (is(l, ",")) {
      next(l);
      size_t dat = l->at;
      if (!(kn->dim = positive(l, f, "partition")) || kn->dim > 4)
        return fail(f, dat, "partition(...): the dimension is 1 to 4");
      next(l);
    }
  }
  if (!is(l, ")")) return fail(f, l->kind == T_END ? at : l->at, "expected ')' to close '%s(...)'", what);
  next(l);
  k->n_knobs++;
  return 0;
}

static int fpga_clause(lexer *l, fail_ctx *f, cgp_kernel_pragma *k, size_t start) {
  next(l);
  if (!is(l, "(")) return fail(f, start, "expected '(' after 'fpga'");
  next(l);
  if (is(l, ")")) return fail(f, l->at, "fpga() is empty: give auto, none or directives");
  while (!is(l, ")")) {
    if (l->kind == T_END) return fail(f, start, "expected ')' to close 'fpga(...)'");
    if (knob(l, f, k)) return -1;
    if (is(l, ",")) next(l);
  }
  next(l);
  return 0;
}

/* One argument of clause `which`, the nargs-th. */
static int argument(lexer *l, fail_ctx *f, cgp_kernel_pragma *k, int which, unsigned nargs) {
  const char *cname = clause_names[which];
  if (which == C_NAME) {
    if (nargs) return fail(f, l->at, "name(...) takes one identifier");
    return copy_ident(l, f, k->name, sizeof k->name, cname);
  }
  if (which == C_SHARED) {
    if (k->nshared == CGP_PRAGMA_MAX_SHARED) return fail(f, l->at, "shared(...) lists at most %d arrays", CGP_PRAGMA_MAX_SHARED);
    if (copy_ident(l, f, k->shared[k->nshared], sizeof k->shared[0], cname)) return -1;
    k->nshared++;
    lexer peek = *l;                         /* `A pad(n)`: n elements after each row of A's tiles */
    next(&peek);
    if (!is(&peek, "pad")) return 0;
    next(&peek);
    if (!is(&peek, "(")) return fail(f, peek.at, "expected '(' after 'pad' in shared(...)");
    next(&peek);
    size_t at = peek.at;
    if (is(&peek, "0")) {
      k->shared_pad[k->nshared - 1] = 0;
    } else {
      unsigned v = positive(&peek, f, "pad");
      if (!v) return -1;
      if (v > 64) return fail(f, at, "pad(...) is at most 64 elements");
      k->shared_pad[k->nshared - 1] = v;
    }
    next(&peek);
    if (!is(&peek, ")")) return fail(f, peek.kind == T_END ? at : peek.at, "expected ')' after pad(n)");
    *l = peek;                               /* the caller steps past the ')' */
    return 0;
  }
  size_t at = l->at;
  unsigned v = positive(l, f, cname);
  if (!v) return -1;
  if (which == C_DIMS) {
    if (nargs || v > 3) return fail(f, at, "dims(...) is 1, 2 or 3");
    k->dims = v;
  } else if (which == C_TILE) {
    if (nargs) return fail(f, at, "tile(...) takes one integer");
    k->tile = v;
  } else {
    if (nargs == 3) return fail(f, at, "block(...) has at most 3 dimensions");
    k->block[nargs] = v;
  }
  return 0;
}

static int clause(lexer *l, fail_ctx *f, cgp_kernel_pragma *k, unsigned *seen, size_t *block_at) {
  char b[80];
  int which = 0;
  while (which < C_COUNT && !is(l, clause_names[which])) which++;
  if (which == C_COUNT || l->kind != T_IDENT)
    return fail(f, l->at, "unknown clause '%s' (expected name, dims, block, shared, tile, noalias or fpga)", shown(l, b, sizeof b));
  size_t start = l->at;
  if (*seen & (1u << which)) return fail(f, start, "clause '%s' given twice", clause_names[which]);
  *seen |= 1u << which;
  if (which == C_BLOCK) *block_at = start;
  if (which == C_FPGA) return fpga_clause(l, f, k, start);
  next(l);
  if (which == C_NOALIAS) {                 /* a flag: `noalias` or `noalias()` */
    k->noalias = 1;
    if (is(l, "(")) {
      next(l);
      if (!is(l, ")")) return fail(f, l->at, "noalias takes no arguments");
      next(l);
    }
    return 0;
  }
  if (!is(l, "(")) return fail(f, start, "expected '(' after '%s'", clause_names[which]);
  next(l);
  for (unsigned nargs = 0;; nargs++) {
    if (l->kind == T_END) return fail(f, start, "expected ',' or ')' in '%s(...)'", clause_names[which]);
    if (argument(l, f, k, which, nargs)) return -1;
    next(l);
    if (is(l, ")")) { next(l); return 0; }
    if (!is(l, ",")) return fail(f, l->kind == T_END ? start : l->at, "expected ',' or ')' in '%s(...)'", clause_names[which]);
    next(l);
  }
}

int cgp_pragma_parse(const char *text, size_t len, cgp_kernel_pragma *k, size_t *at, char *err, size_t errlen) {
  lexer l = {.s = text, .len = len};
  fail_ctx f = {err, errlen, at};
  char b[80];
  *at = 0;
  if (errlen) err[0] = '\0';
  next(&l);
  if (!is(&l, "cgpredict")) return fail(&f, l.at, "expected 'cgpredict', not '%s'", shown(&l, b, sizeof b));
  next(&l);
  if (!is(&l, "kernel")) return fail(&f, l.at, "expected 'kernel' after '#pragma cgpredict'");
  next(&l);
  unsigned seen = 0;
  size_t block_at = 0;
  while (l.kind != T_END) {
    if (clause(&l, &f, k, &seen, &block_at)) return -1;
    if (is(&l, ",")) next(&l);
  }
  if (k->block[0]) {
    for (int d = 1; d < 3; d++) if (!k->block[d]) k->block[d] = 1;
    if (k->block[0] * k->block[1] * k->block[2] > MAX_BLOCK_THREADS)
      return fail(&f, 0, "block(...) has more than %d threads", MAX_BLOCK_THREADS);
    unsigned shaped = k->block[2] > 1 ? 3 : k->block[1] > 1 ? 2 : 1;   /* dimensions beyond 1 given */
    if (k->dims && shaped > k->dims)           /* block(32, 8) with dims(1): 8 would be dropped */
      return fail(&f, block_at,
                  "block(...) shapes %u dimensions but dims(%u) maps %u loop%s: give one block size per "
                  "mapped loop, or map more loops",
                  shaped, k->dims, k->dims, k->dims == 1 ? "" : "s");
  }
  if (k->tile && !k->nshared) return fail(&f, 0, "tile(...) needs shared(...)");
  return 0;
}
