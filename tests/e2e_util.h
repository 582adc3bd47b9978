/* e2e_util.h: helpers of the end-to-end tests (one temp dir per test, shell commands, report
   look-ups). Included by each tests/test_e2e*.c; static, so each test program has its own. */
#ifndef CGP_E2E_UTIL_H
#define CGP_E2E_UTIL_H

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_dir.h"

static inline void setup(void) { test_dir_make("cgp-e2e"); }

/* Every report the test left in its directory that the tool wrote and reads back (`cgpredict
   report` accepts it: a report a test broke on purpose is not one; regular files only, never a
   FIFO a test left there) is copied to
   <build>/test-reports/, where tests/test_report_schema.py checks each against
   docs/report.schema.json. */
static inline void keep_reports(void) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/test-reports' && for f in '%s'/*.json; do "
           "[ -f \"$f\" ] && [ ! -L \"$f\" ] && grep -qs '\"tool_version\"' \"$f\" && '%s' report \"$f\" >/dev/null 2>&1 && "
           "cp \"$f\" \"$(mktemp -p '%s/test-reports' report.XXXXXXXX)\"; done; true",
           CGP_BINARY_DIR, dir, CGP_DRIVER, CGP_BINARY_DIR);
  if (system(cmd) != 0) fprintf(stderr, "could not keep the reports of %s\n", dir);
}

static inline void teardown(void) {
  keep_reports();
  test_dir_remove();
}


/* The file's text in one of a few static buffers (tests compare two files at a time), or NULL. */
static inline char *read_file(const char *name) {
  static char buf[4][1 << 22];   /* a `full` report of 200 launches: 290 KB; of 2048, 2.3 MB */
  static unsigned next;
  char path[512], *b = buf[next++ % 4];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t n = fread(b, 1, sizeof buf[0] - 1, f);
  b[n] = '\0';
  fclose(f);
  return b;
}

/* Run a shell command in the temp dir; stdout and stderr go to out.txt and err.txt. */
static inline int sh(const char *fmt, ...) {
  char body[4096], cmd[5000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd '%s' && (%s) >out.txt 2>err.txt", dir, body);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static inline cJSON *report(const char *name) {
  char *text = read_file(name);
  cr_assert_not_null(text, "report %s was not written; stderr: %s", name, read_file("err.txt"));
  cJSON *r = cJSON_Parse(text);
  cr_assert_not_null(r);
  return r;
}

/* The element of array `arr` of o whose string field `key` is `value`; the test fails without. */
static inline cJSON *item_where(cJSON *o, const char *arr, const char *key, const char *value) {
  cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, arr))
    if (strcmp(cJSON_GetObjectItem(e, key)->valuestring, value) == 0) return e;
  cr_assert_fail("no %s with %s %s", arr, key, value);
  return NULL;
}

static inline cJSON *kernel_named(cJSON *r, const char *name) { return item_where(r, "kernels", "name", name); }

/* The memory site at a source line with a given kind and array name. */
static inline cJSON *site(cJSON *k, int line, const char *kind, const char *array) {
  cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory"))
    if ((int)cJSON_GetObjectItem(m, "line")->valuedouble == line &&
        strcmp(cJSON_GetObjectItem(m, "kind")->valuestring, kind) == 0 &&
        strcmp(cJSON_GetObjectItem(m, "array")->valuestring, array) == 0)
      return m;
  cr_assert_fail("no %s of %s at line %d", kind, array, line);
  return NULL;
}

static inline double num(cJSON *o, const char *key) {
  cJSON *v = cJSON_GetObjectItem(o, key);
  cr_assert(cJSON_IsNumber(v), "field %s missing", key);
  return v->valuedouble;
}

static inline cJSON *prediction(cJSON *k, const char *dev) { return item_where(k, "predictions", "device", dev); }

/* Removes from o, at any depth, what two runs of one program may differ in: the run's id, and
   what the CPU's clock measured (the untraced threads' time, cpu_ms, and the offload decision's
   speedup and verdict). */
static inline void drop_varying(cJSON *o) {
  static const char *const varying[] = {"run_id", "cpu_ms", "speedup", "verdict"};
  if (!cJSON_IsObject(o) && !cJSON_IsArray(o)) return;
  if (cJSON_IsObject(o))
    for (size_t i = 0; i < sizeof varying / sizeof *varying; i++) cJSON_DeleteItemFromObjectCaseSensitive(o, varying[i]);
  cJSON *c;
  cJSON_ArrayForEach(c, o) drop_varying(c);
}

/* Build `src` as file `name` with compiler `cc` and `flags` plainly and with cgpredict
   (CGP_DRIVER), run both, assert their output is the same; return the report of the run on the
   TK1 (build.txt: the build's stderr, summary.txt: the run's). */
static inline cJSON *build_run_tk1_with(const char *name, const char *src, const char *cc, const char *flags) {
  write_file(name, src);
  cr_assert_eq(sh("%s %s -Wno-unknown-pragmas -o plain %s", cc, flags, name), 0, "%s", read_file("err.txt"));
  cr_assert_eq(sh("./plain"), 0);
  char *plain_out = strdup(read_file("out.txt"));
  cr_assert_eq(sh("%s build -- %s %s -o prog %s 2>build.txt", CGP_DRIVER, cc, flags, name), 0, "build failed: %s",
               read_file("build.txt"));
  cr_assert_eq(sh("CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_REPORT=r.json ./prog 2>summary.txt"), 0, "%s",
               read_file("summary.txt"));
  cr_assert_str_eq(read_file("out.txt"), plain_out);
  free(plain_out);
  return report("r.json");
}

/* C program `src` built with cgpredict and run on the TK1 in `run` mode (r[0]) and in `full` mode
   (r[1]: every thread, iteration and launch traced), each one's report parsed; the caller deletes
   them. */
static inline void build_run_and_full_tk1(const char *src, cJSON *r[2]) {
  write_file("rf.c", src);
  cr_assert_eq(sh("%s build -- cc -O2 -o rf rf.c", CGP_DRIVER), 0, "%s", read_file("err.txt"));
  for (int f = 0; f < 2; f++) {
    cr_assert_eq(sh("CGPREDICT_QUIET=1 CGPREDICT_DEVICE=jetson-tk1 CGPREDICT_SAMPLE=%s CGPREDICT_REPORT=r%d.json ./rf",
                    f ? "full" : "run", f), 0, "%s", read_file("err.txt"));
    r[f] = report(f ? "r1.json" : "r0.json");
  }
}

/* What a plain cc must add to link objects `cgpredict cc -c` made, whose stub is built as the
   runtime is: " -fsanitize=address,undefined" in a CGP_SANITIZE build, else "". */
static inline const char *sanitize_link_flags(void) {
  char cache[512];
  snprintf(cache, sizeof cache, "grep -q '^CGP_SANITIZE:BOOL=ON' '%s/CMakeCache.txt'", CGP_BINARY_DIR);
  return system(cache) == 0 ? " -fsanitize=address,undefined" : "";
}

/* build_run_tk1_with a C program, prog.c, by cc -O2. */
static inline cJSON *build_run_tk1(const char *src) { return build_run_tk1_with("prog.c", src, "cc", "-O2"); }

#endif
