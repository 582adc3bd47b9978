/* cgp_messages.c: the pass's errors and warnings, one line each, into the caller's buffers; a
   nest's warnings also go into its descriptor ("warnings"). The lowest level of phase 2: it calls
   nothing else of it. */
#include "cgp_phase2.h"
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

void cgp_nest_warn(pass_ctx *pc, nest *n, unsigned line, const char *fmt, ...) {
  char m[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  char located[sizeof n->k->file + sizeof m + 32];   /* the report's copy says where too: file:line: text */
  snprintf(located, sizeof located, "%s:%u: %s", n->k->file, line ? line : n->k->for_line, m);
  const cJSON *w;                    /* once: a function inlined at two calls warns of its line twice */
  cJSON_ArrayForEach(w, n->warnings)
    if (cJSON_IsString(w) && strcmp(w->valuestring, located) == 0) return;
  cgp_msg_add(&pc->warn, "%s:%u: warning: kernel '%s': %s", n->k->file, line ? line : n->k->for_line,
          n->k->name, m);
  cJSON_AddItemToArray(n->warnings, cJSON_CreateString(located));
}
