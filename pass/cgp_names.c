/* cgp_names.c: what the source calls things, for the descriptor and the warnings: the array a
   site reads (from the source line at its location, else the debug variable or global its address
   is indexed from), a value's debug variable and type. Calls nothing else of phase 2. */
#include "cgp_phase2.h"
#include <ctype.h>
#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pointer p is computed from by one GEP or cast, or p itself. */
static LLVMValueRef underlying_base_step(LLVMValueRef p) {
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p)) return LLVMGetOperand(p, 0);
  if (LLVMIsAConstantExpr(p)) {
    LLVMOpcode op = LLVMGetConstOpcode(p);
    if (op == LLVMGetElementPtr || op == LLVMBitCast) return LLVMGetOperand(p, 0);
  }
  return p;
}

void cgp_constant_text(LLVMValueRef v, const char *ctype, char *buf, size_t cap) {
  LLVMTypeRef t = LLVMTypeOf(v);
  int named_bool = ctype && (strcmp(ctype, "bool") == 0 || strcmp(ctype, "_Bool") == 0);
  int boolean = LLVMIsAConstantInt(v) && (LLVMGetIntTypeWidth(t) == 1 || (named_bool && LLVMConstIntGetZExtValue(v) <= 1));
  if (boolean) snprintf(buf, cap, "%s", LLVMConstIntGetZExtValue(v) ? "true" : "false");
  else if (LLVMIsAConstantInt(v)) snprintf(buf, cap, "%lld", LLVMConstIntGetSExtValue(v));
  else if (LLVMIsAConstantFP(v)) {
    LLVMBool lossy;
    snprintf(buf, cap, "%g", LLVMConstRealGetDouble(v, &lossy));
  } else snprintf(buf, cap, "a value fixed before the loop");
}

void cgp_function_name(LLVMValueRef fn, char *buf, size_t cap) {
  size_t len = 0;
  const char *ir = LLVMGetValueName2(fn, &len);
  snprintf(buf, cap, "%.*s", (int)len, ir);
  LLVMMetadataRef sp = LLVMGetSubprogram(fn);
  if (!sp) return;
  unsigned slen = 0;                               /* DISubprogram: file, scope, name, linkage name, ... */
  const char *name = cgp_md_string(LLVMMetadataAsValue(LLVMGetTypeContext(LLVMTypeOf(fn)), sp), 2, &slen);
  if (name && (slen != len || strncmp(name, ir, len) != 0)) snprintf(buf, cap, "%.*s (%.*s)", (int)slen, name, (int)len, ir);
}

/* The C++ runtime's demangler (libstdc++, which libLLVM brings): the name as the source writes
   it, malloc'd, or NULL where `mangled` is no mangled name. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The linkage name (else the name) of the function the source wrote loop l in, of *len bytes:
   from its !llvm.loop start location's scope, up its lexical blocks (operand 1, their scope) to
   the DISubprogram (operand 3 its linkage name, 2 its name); so the function a template's copy
   came from, even where it was inlined (`twice<float>` inlined into main). NULL if not found. */
static const char *loop_function(LLVMContextRef ctx, const cgp_loop *l, unsigned *len) {
  if (!l || !l->loop_md) return NULL;
  LLVMMetadataRef scope = NULL;
  for (unsigned i = 1; i < LLVMGetMDNodeNumOperands(l->loop_md) && !scope; i++) {
    LLVMValueRef op = cgp_md_operand(l->loop_md, i);
    if (op && LLVMGetMetadataKind(LLVMValueAsMetadata(op)) == LLVMDILocationMetadataKind)
      scope = LLVMDILocationGetScope(LLVMValueAsMetadata(op));
  }
  for (int hops = 0; scope && hops < 64; hops++) {
    LLVMMetadataKind kind = LLVMGetMetadataKind(scope);
    LLVMValueRef v = LLVMMetadataAsValue(ctx, scope);
    if (kind == LLVMDISubprogramMetadataKind) {
      const char *linkage = cgp_md_string(v, 3, len);
      return linkage ? linkage : cgp_md_string(v, 2, len);
    }
    if (kind != LLVMDILexicalBlockMetadataKind && kind != LLVMDILexicalBlockFileMetadataKind) return NULL;
    LLVMValueRef up = cgp_md_operand(v, 1);
    scope = up ? LLVMValueAsMetadata(up) : NULL;
  }
  return NULL;
}

void cgp_source_function(LLVMContextRef ctx, const cgp_loop *l, LLVMValueRef fn, char *buf, size_t cap) {
  unsigned ulen = 0;
  size_t len = 0;
  const char *name = loop_function(ctx, l, &ulen);
  if (name) len = ulen;
  else name = fn ? LLVMGetValueName2(fn, &len) : "";
  char mangled[1024];
  snprintf(mangled, sizeof mangled, "%.*s", (int)len, name);
  char *plain = len > 2 && mangled[0] == '_' && mangled[1] == 'Z' ? __cxa_demangle(mangled, NULL, NULL, NULL) : NULL;
  snprintf(buf, cap, "%s", plain ? plain : mangled);
  free(plain);
}

/* A scalar's IR type in words, for a variable with no debug type: "double", "64-bit integer". */
void cgp_ir_type_name(LLVMTypeRef t, char *buf, size_t cap) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: snprintf(buf, cap, "half"); break;
  case LLVMFloatTypeKind: snprintf(buf, cap, "float"); break;
  case LLVMDoubleTypeKind: snprintf(buf, cap, "double"); break;
  case LLVMIntegerTypeKind: snprintf(buf, cap, "%u-bit integer", LLVMGetIntTypeWidth(t)); break;
  case LLVMPointerTypeKind: snprintf(buf, cap, "pointer"); break;
  default: snprintf(buf, cap, "other"); break;
  }
}

/* The name of a DIType (a MetadataAsValue), through the qualifiers that have none (const,
   volatile: a DIDerivedType's operand 3 is its base type); "" if none. DIType operands: file,
   scope, name, ... */
static void di_type_name(LLVMValueRef type, char *buf, size_t cap) {
  buf[0] = '\0';
  for (int depth = 0; type && depth < 8 && !buf[0]; depth++) {
    unsigned slen = 0;
    if (LLVMGetMDNodeNumOperands(type) < 3) return;
    const char *name = cgp_md_string(type, 2, &slen);
    if (name) snprintf(buf, cap, "%.*s", (int)slen, name);
    type = cgp_md_operand(type, 3);
  }
}

/* The variable llvm.dbg.value ties v to, or "" if none, and (type != NULL) its declared type's
   name. A malloc'd array is often tied to several: an inlined allocation helper's local, the
   caller's variable, the kernel's parameter; the name tied most often is the one the program
   uses for the array. */
void cgp_dbg_variable(pass_ctx *pc, LLVMValueRef v, char *buf, size_t cap, char *type, size_t tcap) {
  enum { MAX_NAMES = 16 };
  char names[MAX_NAMES][64], types[MAX_NAMES][64];
  unsigned count[MAX_NAMES], nnames = 0;
  buf[0] = '\0';
  if (type) type[0] = '\0';
  if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v)) return;
  LLVMValueRef fn = LLVMIsAArgument(v) ? LLVMGetParamParent(v)
                                       : LLVMGetBasicBlockParent(LLVMGetInstructionParent(v));
  LLVMValueRef want = LLVMMetadataAsValue(pc->ctx, LLVMValueAsMetadata(v));
  size_t len;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMCall || LLVMGetNumOperands(i) < 3 || LLVMGetOperand(i, 0) != want)
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || strcmp(LLVMGetValueName2(callee, &len), "llvm.dbg.value") != 0) continue;
      LLVMValueRef var = LLVMGetOperand(i, 1);           /* DILocalVariable: scope, name, file, type, ... */
      unsigned slen = 0, k = 0;
      const char *name = cgp_md_string(var, 1, &slen);
      if (name && slen < sizeof names[0]) {
        while (k < nnames && (strlen(names[k]) != slen || strncmp(names[k], name, slen) != 0)) k++;
        if (k == nnames && nnames < MAX_NAMES) {
          snprintf(names[nnames], sizeof names[0], "%.*s", (int)slen, name);
          di_type_name(cgp_md_operand(var, 3), types[nnames], sizeof types[0]);
          count[nnames++] = 0;
        }
        if (k < nnames) count[k]++;
      }
    }
  unsigned best = 0;
  for (unsigned k = 1; k < nnames; k++)
    if (count[k] > count[best]) best = k;
  if (nnames) snprintf(buf, cap, "%s", names[best]);
  if (nnames && type) snprintf(type, tcap, "%s", types[best]);
}

void cgp_global_name(LLVMModuleRef m, LLVMValueRef g, char *buf, size_t cap) {
  size_t len = 0;
  const char *own = LLVMGetValueName2(g, &len);
  const char *dot = len ? memchr(own, '.', len) : NULL;
  if (dot && dot > own && LLVMIsAGlobalVariable(g) && (size_t)(dot - own) < 256) {
    char fn[256];
    snprintf(fn, sizeof fn, "%.*s", (int)(dot - own), own);
    if (LLVMGetNamedFunction(m, fn)) {          /* `static float u[N]` in main: clang's main.u */
      snprintf(buf, cap, "%.*s", (int)(len - (size_t)(dot - own) - 1), dot + 1);
      return;
    }
  }
  snprintf(buf, cap, "%.*s", (int)len, own);
}

/* The source-level name of the array an address indexes: walking from the address down its
   GEPs and casts, a global's or argument's name, or a debug variable's. */
void cgp_source_name(pass_ctx *pc, LLVMValueRef p, char *buf, size_t cap) {
  for (int guard = 0; guard < 64; guard++) {
    size_t len = 0;
    const char *own = LLVMGetValueName2(p, &len);
    if (len && LLVMIsAGlobalValue(p)) { cgp_global_name(pc->m, p, buf, cap); return; }
    if (len && LLVMIsAArgument(p)) { snprintf(buf, cap, "%.*s", (int)len, own); return; }
    cgp_dbg_variable(pc, p, buf, cap, NULL, 0);
    if (buf[0]) return;
    LLVMValueRef next = underlying_base_step(p);
    if (next == p && LLVMIsALoadInst(p)) next = LLVMGetOperand(p, 0);   /* a pointer member, `g->v`:
                                                                         its struct's name */
    if (next == p) { snprintf(buf, cap, "%.*s", (int)len, own); return; }
    p = next;
  }
}

/* Line `line` (from 1) of `file` into text; the last file read is kept with its line starts,
   so naming every site of a nest reads its file once. */
static int source_line(pass_ctx *pc, const char *file, unsigned line, char *text, size_t cap) {
  source_cache *sc = &pc->src;
  if (!file[0]) return 0;
  if (strcmp(sc->name, file) != 0) {
    free(sc->text); free(sc->start);
    memset(sc, 0, sizeof *sc);
    snprintf(sc->name, sizeof sc->name, "%s", file);
    FILE *f = fopen(file, "rb");
    if (!f) return 0;
    size_t cap_t = 1 << 16, n = 0, got;
    sc->text = malloc(cap_t);
    while ((got = fread(sc->text + n, 1, cap_t - n - 1, f)) > 0)
      if ((n += got) + 1 == cap_t) sc->text = realloc(sc->text, cap_t *= 2);
    fclose(f);
    sc->text[n] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) lines += sc->text[i] == '\n';
    sc->start = malloc((lines + 1) * sizeof *sc->start);
    sc->start[sc->nlines++] = 0;
    for (size_t i = 0; i < n; i++)
      if (sc->text[i] == '\n') sc->start[sc->nlines++] = i + 1;
  }
  if (!sc->text || line == 0 || line > sc->nlines) return 0;
  const char *l = sc->text + sc->start[line - 1];
  size_t len = strcspn(l, "\n");
  if (len >= cap) len = cap - 1;
  memcpy(text, l, len);
  text[len] = '\0';
  return 1;
}

#define IDCHAR(ch) (isalnum((unsigned char)(ch)) || (ch) == '_')

/* Left of c, past spaces and bracketed groups ([...] or (...)): the new position. */
static size_t skip_groups_left(const char *text, size_t c) {
  while (c > 0 && isspace((unsigned char)text[c - 1])) c--;
  while (c > 0 && (text[c - 1] == ']' || text[c - 1] == ')')) {
    char close = text[c - 1], open = close == ']' ? '[' : '(';
    int depth = 0;
    do {
      c--;
      depth += text[c] == close;
      depth -= text[c] == open;
    } while (c > 0 && depth > 0);
    while (c > 0 && isspace((unsigned char)text[c - 1])) c--;
  }
  return c;
}

/* The identifier at c names a member (`pos[i].x`, `cell->next->v`): the start of the identifier
   its access starts from (`pos`, `cell`), the array a site reads; c itself otherwise. */
static size_t member_base(const char *text, size_t c) {
  for (int guard = 0; guard < 16; guard++) {
    size_t k = c;
    while (k > 0 && isspace((unsigned char)text[k - 1])) k--;
    if (k > 0 && text[k - 1] == '.') k--;
    else if (k > 1 && text[k - 1] == '>' && text[k - 2] == '-') k -= 2;
    else break;
    k = skip_groups_left(text, k);
    if (k == 0 || !IDCHAR(text[k - 1])) break;
    while (k > 0 && IDCHAR(text[k - 1])) k--;
    if (isdigit((unsigned char)text[k])) break;    /* 1.5: a number, not a member */
    c = k;
  }
  return c;
}

/* The identifier text[c, *e) starts an access: where it is not subscripted itself but a member of
   it is (`s->x[i]`, `a.b.c[i]`), the array is that member's path, and *e moves to its end (before,
   a struct of arrays' every site was named by the struct, `s`); so is a member called, a C++
   accessor (`domain.xd(n)`: `domain.xd`, where every accessor of `domain` read as `domain`).
   `pos[i].x`, `cell->next->v` stay. */
static void subscripted_member(const char *text, size_t *e) {
  size_t n = strlen(text), k = *e;
  while (k < n && isspace((unsigned char)text[k])) k++;
  if (k < n && text[k] == '[') return;
  for (int guard = 0; guard < 16; guard++) {
    if (k + 1 < n && text[k] == '-' && text[k + 1] == '>') k += 2;
    else if (k < n && text[k] == '.') k++;
    else return;
    while (k < n && isspace((unsigned char)text[k])) k++;
    size_t b = k;
    while (k < n && IDCHAR(text[k])) k++;
    if (k == b || isdigit((unsigned char)text[b])) return;
    size_t end = k;
    while (k < n && isspace((unsigned char)text[k])) k++;
    if (k < n && (text[k] == '[' || text[k] == '(')) {
      *e = end;
      return;
    }
  }
}

/* A macro's or function's parenthesized arguments starting at text[open] (`MIN(min, src[n - 1])`):
   the one identifier subscripted in them (`src`), when exactly one is; 0 otherwise. */
static int subscripted_argument(const char *text, size_t open, char *buf, size_t cap) {
  size_t n = strlen(text), i = open + 1, found = 0, flen = 0;
  for (int depth = 1; i < n && depth > 0; i++) {
    depth += text[i] == '(';
    depth -= text[i] == ')';
    if (text[i] != '[' || i == 0) continue;
    size_t e = i;
    while (e > 0 && isspace((unsigned char)text[e - 1])) e--;
    size_t b = e;
    while (b > 0 && IDCHAR(text[b - 1])) b--;
    if (b == e || isdigit((unsigned char)text[b])) continue;
    if (flen && (flen != e - b || strncmp(text + found, text + b, flen) != 0)) return 0;   /* two arrays */
    found = b;
    flen = e - b;
  }
  if (!flen || flen >= cap) return 0;
  snprintf(buf, cap, "%.*s", (int)flen, text + found);
  return 1;
}

/* The array name as written at file:line:col: a load's location is the array's identifier, a
   store's the assignment operator, left of which stands the element `name[...]...`. */
/* A store whose location is an identifier is a struct copied whole (`p = pos[i]`: clang puts the
   llvm.memcpy at its source, right of the `=`): the element written stands left of that `=`, and
   the walk starts there (before, the copy's store was named by its source, md/grid's `position`).
   An identifier followed by `(` is a function or a macro (code a macro expands has the location
   of its name): not what is accessed. The one array subscripted in its arguments is
   (`MIN(min, src[n - 1])`: src, where the debug variable of the address named the array src was
   swapped with, dst); with none (`MAX(0, b0.x - 1)`) or several, 0, and the caller names the site
   by its address's variable (debug info) instead. */
int cgp_name_in_source(pass_ctx *pc, const char *file, unsigned line, unsigned col, int store, char *buf,
                          size_t cap) {
  char text[4096];
  int found = 0;
  if (!source_line(pc, file, line, text, sizeof text)) return 0;
  size_t n = strlen(text), c = col ? col - 1 : 0;
  if (c >= n) return 0;
  if (store && IDCHAR(text[c])) {
    size_t k = c;
    while (k > 0 && isspace((unsigned char)text[k - 1])) k--;
    if (k > 1 && text[k - 1] == '=' && !strchr("=!<>+-*/%&|^", text[k - 2])) c = k - 1;
  }
  if (!IDCHAR(text[c])) {                     /* a store: walk left over spaces and groups */
    c = skip_groups_left(text, c);
    while (c > 0 && IDCHAR(text[c - 1])) c--;
  }
  c = member_base(text, c);
  size_t e = c, after;
  while (e < n && IDCHAR(text[e])) e++;
  for (after = e; after < n && isspace((unsigned char)text[after]); after++) {}
  if (after < n && text[after] == '(') return subscripted_argument(text, after, buf, cap);
  subscripted_member(text, &e);
  if (e > c && !isdigit((unsigned char)text[c]) && e - c < cap) {
    snprintf(buf, cap, "%.*s", (int)(e - c), text + c);
    found = 1;
  }
  return found;
}
#undef IDCHAR
