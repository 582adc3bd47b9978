/* cgp_rt_names.c: the name each kernel has in the report (cgp_rt_internal.h, rt_kernel_names).

   A pragma is one kernel in the source but may be compiled into several functions: a template's
   instantiations (`template <class T> void scale(T *a, long n)` for float and double; BabelStream's
   OMPStream<float>::copy and OMPStream<double>::copy), a function inlined into two callers. Each
   is a kernel of its own, with the pragma's name; the report and the summary told them apart by
   nothing but their sites' sizes. A name two kernels share now carries, in brackets, the function
   the source wrote each in (the pass's descriptor "function", from the loop's debug scope, so an
   inlined copy keeps its own; without its return type and parameters: `scale [scale<float>]`);
   where that too is shared (one function inlined at two calls), its place among them (`scale #2`). Names no other kernel has stay as they are. The report takes its names from
   here (cgp_rt_report.c); the trace's replay, which checks the report's names against the trace's
   kernels (cgp_rt_trace.c), takes one that begins with its kernel's name and a blank. */
#include "cgp_rt_internal.h"

#include <stdio.h>
#include <string.h>

/* The function's name without return type or parameters: from `void scale<float>(float*, long)`,
   `scale<float>`; from `OMPStream<double>::copy()`, `OMPStream<double>::copy`. The parameters
   start at the first '(' outside template brackets; the name after the last blank before them
   outside template brackets. */
static void short_function(const char *f, char *out, size_t len) {
  size_t end = strlen(f), start = 0;
  int depth = 0;
  for (size_t i = 0; f[i]; i++) {
    if (f[i] == '<') depth++;
    else if (f[i] == '>' && depth > 0) depth--;
    else if (f[i] == '(' && depth == 0 && i > 0) { end = i; break; }
  }
  depth = 0;
  for (size_t i = 0; i < end; i++) {
    if (f[i] == '<') depth++;
    else if (f[i] == '>' && depth > 0) depth--;
    else if (f[i] == ' ' && depth == 0) start = i + 1;
  }
  snprintf(out, len, "%.*s", (int)(end - start), f + start);
}

static int same(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

void rt_kernel_names(const rt_kernel *const *k, size_t n, char (*out)[RT_NAME_BYTES]) {
  for (size_t i = 0; i < n; i++) {
    size_t alike = 0, fn_alike = 0, place = 0;       /* kernels of its name; of its function too */
    for (size_t j = 0; j < n; j++) {
      if (!same(k[j]->name, k[i]->name)) continue;
      alike++;
      if (same(k[j]->function, k[i]->function)) {
        fn_alike++;
        if (j < i) place++;
      }
    }
    char fn[RT_NAME_BYTES / 2] = "";
    if (alike > 1 && fn_alike < alike && k[i]->function && k[i]->function[0])
      short_function(k[i]->function, fn, sizeof fn);
    int at = snprintf(out[i], RT_NAME_BYTES, "%s", k[i]->name ? k[i]->name : "");
    if (at < 0 || at >= RT_NAME_BYTES) continue;
    if (fn[0]) at += snprintf(out[i] + at, RT_NAME_BYTES - (size_t)at, " [%s]", fn);
    if (fn_alike > 1 && at < RT_NAME_BYTES) snprintf(out[i] + at, RT_NAME_BYTES - (size_t)at, " #%zu", place + 1);
  }
}
