/* cgp_rt_report.c: set-up at the first launch (devices, environment, exit and crash handlers)
   and, at exit, the report: what each kernel's sampled launches measured, run through the model
   for every device (model/cgp_report.h), written whole or not at all. */
#include "cgp_rt_internal.h"
#include "cgp_report.h"
#include "cgp_rt_file.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RT_DEFAULT_REPORT "cgpredict-report.json"

static void fatal_setup(const char *msg) {
  fflush(stdout);
  fprintf(stderr, "cgpredict: %s\n", msg);
  exit(2);
}

static void load_devices(void) {
  const char *env = getenv("CGPREDICT_DEVICE");
  char err[1024];
  if (env && *env) {
    char *list = strdup(env), *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
      if (cgp_rt_g.ndev == RT_MAX_DEVICES) fatal_setup("CGPREDICT_DEVICE: too many devices");
      if (cgp_device_find(name, &cgp_rt_g.dev[cgp_rt_g.ndev], err, sizeof err) != 0) {
        char msg[1200];
        snprintf(msg, sizeof msg, "CGPREDICT_DEVICE: %s", err);
        fatal_setup(msg);
      }
      cgp_rt_g.ndev++;
    }
    free(list);
  } else {
    char **names = NULL;
    size_t n = cgp_device_names(&names);
    for (size_t i = 0; i < n && cgp_rt_g.ndev < RT_MAX_DEVICES; i++) {
      if (cgp_device_find(names[i], &cgp_rt_g.dev[cgp_rt_g.ndev], err, sizeof err) != 0) fatal_setup(err);
      cgp_rt_g.ndev++;
    }
    cgp_device_names_free(names, n);
  }
  if (!cgp_rt_g.ndev) {
    char msg[4200];
    snprintf(msg, sizeof msg, "no device files found in %s (set CGPREDICT_DEVICES_DIR)", cgp_devices_dir());
    fatal_setup(msg);
  }
  cgp_rt_g.line0 = cgp_rt_g.dev[0].l2_line_bytes;
  for (size_t i = 1; i < cgp_rt_g.ndev; i++)
    if (cgp_rt_g.dev[i].l2_line_bytes < cgp_rt_g.line0) cgp_rt_g.line0 = cgp_rt_g.dev[i].l2_line_bytes;
}

/* CGPREDICT_BLOCK="256,32x32": each shape applies to grids of its own dimensionality. */
static void parse_env_block(void) {
  const char *env = getenv("CGPREDICT_BLOCK");
  if (!env || !*env) return;
  char *list = strdup(env), *save = NULL;
  for (char *shape = strtok_r(list, ",", &save); shape; shape = strtok_r(NULL, ",", &save)) {
    unsigned v[3] = {1, 1, 1}, n = 0;
    char *p = shape, *end;
    while (n < 3) {
      unsigned long x = strtoul(p, &end, 10);
      if (end == p || x == 0 || x > 1024) break;
      v[n++] = (unsigned)x;
      if (*end != 'x') { p = end; break; }
      p = end + 1;
    }
    if (!n || *p || v[0] * v[1] * v[2] > 1024) {
      char msg[256];
      snprintf(msg, sizeof msg, "CGPREDICT_BLOCK: '%s' is not a block shape like 256 or 32x8 (at most 1024 threads)", shape);
      fatal_setup(msg);
    }
    memcpy(cgp_rt_g.env_block[n - 1], v, sizeof v);
  }
  free(list);
}

static void parse_env(void) {
  const char *q = getenv("CGPREDICT_QUIET");
  cgp_rt_g.quiet = q && *q && strcmp(q, "0") != 0;
  const char *s = getenv("CGPREDICT_SAMPLE");
  if (!s || !*s || strcmp(s, "run") == 0) cgp_rt_g.sample_mode = 0;
  else if (strcmp(s, "skip") == 0) cgp_rt_g.sample_mode = 1;
  else if (strcmp(s, "full") == 0) cgp_rt_g.sample_mode = 2;
  else fatal_setup("CGPREDICT_SAMPLE: expected run, skip or full");
  const char *r = getenv("CGPREDICT_REPORT");
  snprintf(cgp_rt_g.report_path, sizeof cgp_rt_g.report_path, "%s", r && *r ? r : RT_DEFAULT_REPORT);
  parse_env_block();
}

/* ---- the report ---------------------------------------------------------------------------- */

static cJSON *num_array(const double *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

static cJSON *u64_array(const uint64_t *v, int n) {
  double d[3];
  for (int i = 0; i < n; i++) d[i] = (double)v[i];
  return num_array(d, n);
}

static const char *dominant_class(const rt_sid_stat *s) {
  int best = 0;
  for (int c = 1; c < CGP_NCLASS; c++)
    if (s->insts[c] > s->insts[best]) best = c;
  return s->insts[best] ? cgp_class_name((cgp_class)best) : "not_executed";
}

static cJSON *memory_json(const rt_kernel *k) {
  cJSON *arr = cJSON_CreateArray();
  const cJSON *sites = cJSON_GetObjectItemCaseSensitive(k->desc, "mem");
  size_t i = 0;
  const cJSON *site;
  cJSON_ArrayForEach(site, sites) {
    cJSON *m = cJSON_Duplicate(site, 1);
    const rt_sid_stat *s = &k->sid[0][i];
    uint64_t n = s->insts[0] + s->insts[1] + s->insts[2];
    cJSON_AddStringToObject(m, "class", dominant_class(s));
    cJSON_AddNumberToObject(m, "warp_instructions_traced", (double)n);
    cJSON_AddNumberToObject(m, "transactions_per_warp", n ? (double)s->trans / (double)n : 0);
    cJSON_AddNumberToObject(m, "l2_hit_rate", s->trans ? 1.0 - (double)s->miss / (double)s->trans : 0);
    cJSON *by = cJSON_AddObjectToObject(m, "by_device");
    for (size_t d = 0; d < cgp_rt_g.ndev; d++) {
      const rt_sid_stat *sd = &k->sid[d][i];
      uint64_t nd = sd->insts[0] + sd->insts[1] + sd->insts[2];
      cJSON *o = cJSON_AddObjectToObject(by, cgp_rt_g.dev[d].name);
      cJSON_AddNumberToObject(o, "transactions_per_warp", nd ? (double)sd->trans / (double)nd : 0);
      cJSON_AddNumberToObject(o, "l2_hit_rate", sd->trans ? 1.0 - (double)sd->miss / (double)sd->trans : 0);
    }
    cJSON_AddStringToObject(m, "accumulation_reading", "as compiled: a value the compiler keeps in a register "
                            "across an inner loop is loaded and stored once, not every iteration");
    cJSON_AddItemToArray(arr, m);
    i++;
  }
  return arr;
}

static cJSON *sample_json(const rt_kernel *k, size_t i) {
  const rt_sample *s = &k->samples[i];
  uint64_t next = i + 1 < k->nsamples ? k->samples[i + 1].launch : k->launches;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "launch", (double)s->launch);
  cJSON_AddNumberToObject(o, "weight", (double)(next - s->launch));
  cJSON_AddItemToObject(o, "grid", u64_array(s->grid, 3));
  cJSON_AddNumberToObject(o, "threads", (double)s->threads);
  cJSON_AddNumberToObject(o, "blocks", (double)s->blocks);
  cJSON_AddNumberToObject(o, "total_warps", (double)s->total_warps);
  cJSON_AddNumberToObject(o, "traced_warps", s->traced_warps);
  cJSON *an = cJSON_AddObjectToObject(o, "analysis");
  for (size_t d = 0; d < cgp_rt_g.ndev; d++)
    cJSON_AddItemToObject(an, cgp_rt_g.dev[d].name, cgp_report_stats_to_json(&s->stats[d]));
  return o;
}

static cJSON *kernel_json(const rt_kernel *k) {
  cJSON *o = cJSON_CreateObject();
  unsigned block[3];
  rt_resolve_block(k, block);
  cJSON_AddStringToObject(o, "name", k->name);
  cJSON_AddStringToObject(o, "file", k->file);
  cJSON_AddNumberToObject(o, "line", k->line);
  cJSON_AddNumberToObject(o, "dims", k->dims);
  cJSON_AddNumberToObject(o, "launches", (double)k->launches);
  cJSON_AddNumberToObject(o, "launches_sampled", (double)k->nsamples);
  cJSON_AddItemToObject(o, "grid", u64_array(k->grid_max, 3));
  double b[3] = {block[0], block[1], block[2]};
  cJSON_AddItemToObject(o, "block", num_array(b, 3));
  cJSON_AddBoolToObject(o, "threads_skippable", k->can_skip);
  cJSON_AddItemToObject(o, "memory", memory_json(k));
  cJSON *dv = cJSON_AddObjectToObject(o, "divergence");
  cJSON_AddNumberToObject(dv, "warps_traced", (double)k->warps_folded);
  cJSON_AddNumberToObject(dv, "divergent_warps", (double)k->divergent_warps);
  cJSON_AddNumberToObject(dv, "extra_issue_slots", (double)k->extra_issue);
  cJSON_AddItemToObject(o, "warnings", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(k->desc, "warnings"), 1));
  cJSON *samples = cJSON_AddArrayToObject(o, "samples");
  for (size_t i = 0; i < k->nsamples; i++) cJSON_AddItemToArray(samples, sample_json(k, i));
  return o;
}

static void write_report(void) {
  cJSON *r = cgp_report_new(CGP_VERSION);
  cJSON *kernels = cJSON_GetObjectItemCaseSensitive(r, "kernels");
  cJSON *rt = cJSON_AddObjectToObject(r, "runtime");
  cJSON_AddNumberToObject(rt, "traced_threads", (double)cgp_rt_g.traced_threads);
  cJSON_AddNumberToObject(rt, "traced_accesses", (double)cgp_rt_g.traced_accesses);
  cJSON_AddStringToObject(rt, "sample_mode", cgp_rt_g.sample_mode == 0 ? "run" : cgp_rt_g.sample_mode == 1 ? "skip" : "full");
  for (size_t i = 0; i < cgp_rt_g.nkernels; i++) cJSON_AddItemToArray(kernels, kernel_json(cgp_rt_g.kernels[i]));
  char err[2048], msg[2400];
  int rc = cgp_report_predict(r, cgp_rt_g.dev, cgp_rt_g.ndev, err, sizeof err);
  if (rc != 0) {              /* the program's exit goes on as without cgpredict (cgp_rt_file.h) */
    snprintf(msg, sizeof msg, "%s; no report written: this run's analysis is lost", err);
    rt_tool_failure(msg);
    cJSON_Delete(r);
    return;
  }
  if (cgp_report_write(r, cgp_rt_g.report_path, err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "%s; the report is lost%s", err, cgp_rt_g.quiet ? "" : " (its summary follows)");
    rt_tool_failure(msg);
  }
  fflush(stdout);
  if (!cgp_rt_g.quiet) cgp_report_print_summary(stderr, r, cgp_rt_g.report_path);
  cJSON_Delete(r);
}

static void at_exit(void) {
  const rt_kernel *k = rt_current_kernel();
  if (k) {
    fflush(stdout);
    fprintf(stderr, "cgpredict: the program exited inside kernel '%s' (%s:%u) before the loop nest "
            "finished; no report written\n", k->name, k->file, k->line);
    return;
  }
  write_report();
}

/* Async-signal-safe: only write(2) and fixed buffers. */
static void put(const char *s) {
  ssize_t rc = write(STDERR_FILENO, s, strlen(s));
  (void)rc;
}

static void on_crash(int sig) {
  const rt_kernel *k = rt_current_kernel();
  char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), 0, 0};
  put("cgpredict: the program crashed (signal ");
  put(sig >= 10 ? num : num + 1);
  if (k) {
    put(") inside kernel '");
    put(k->name);
    put("'");
  } else {
    put(")");
  }
  put("; no report written\n");
  signal(sig, SIG_DFL);
  raise(sig);
}

void rt_report_install(void) {
  if (cgp_rt_g.initialised) return;
  cgp_rt_g.initialised = 1;
  parse_env();
  load_devices();
  atexit(at_exit);
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(sigs[i], on_crash);
  }
}
