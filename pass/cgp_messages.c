/* cgp_messages.c: the pass's errors and warnings, one line each, into the caller's buffers; a
   nest's warnings also go into its descriptor ("warnings"). The lowest level of phase 2: it calls
   nothing else of it. */
#include "cgp_phase2.h"
#include "cgp_mark.h"
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cgp_msg_add(msgbuf *mb, const char *fmt, ...) {
  size_t used = strlen(mb->buf);
  if (used + 1 >= mb->cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mb->buf + used, mb->cap - used, fmt, ap);
  va_end(ap);
  used = strlen(mb->buf);
  if (used + 1 < mb->cap) { mb->buf[used] = '\n'; mb->buf[used + 1] = '\0'; }
}

/* The file an instruction's debug location names, as the user spelled the nest's file where it is
   that file (same base name: the compiler may record it relative), else as recorded (a header
   the nest's code was inlined from: LULESH's CBRT in lulesh.h, which was warned of as
   lulesh.cc:49); the nest's file when it has none. */
static void located_file(const nest *n, LLVMValueRef at, char *out, size_t cap) {
  unsigned len = 0;
  const char *f = at && LLVMGetDebugLocLine(at) ? LLVMGetDebugLocFilename(at, &len) : NULL;
  if (!f || !len) { snprintf(out, cap, "%s", n->k->file); return; }
  while (len > 2 && f[0] == '.' && f[1] == '/') { f += 2; len -= 2; }   /* "./cube.h": as included */
  snprintf(out, cap, "%.*s", (int)len, f);
  if (cgp_pass_same_file(out, n->k->file)) snprintf(out, cap, "%s", n->k->file);
}

void cgp_nest_warn(pass_ctx *pc, nest *n, LLVMValueRef at, unsigned line, const char *fmt, ...) {
  char m[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  char file[sizeof n->k->file + 512];
  located_file(n, at, file, sizeof file);
  if (at && LLVMGetDebugLocLine(at)) line = LLVMGetDebugLocLine(at);
  if (!line) line = n->k->for_line;
  char located[sizeof file + sizeof m + 32];   /* the report's copy says where too: file:line: text */
  snprintf(located, sizeof located, "%s:%u: %s", file, line, m);
  const cJSON *w;                    /* once: a function inlined at two calls warns of its line twice */
  cJSON_ArrayForEach(w, n->warnings)
    if (cJSON_IsString(w) && strcmp(w->valuestring, located) == 0) return;
  cgp_msg_add(&pc->warn, "%s:%u: warning: kernel '%s': %s", file, line, n->k->name, m);
  cJSON_AddItemToArray(n->warnings, cJSON_CreateString(located));
}
