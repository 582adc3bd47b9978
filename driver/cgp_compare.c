/* cgp_compare.c: `cgpredict compare REPORT.json SOURCE.c [--fpga NAME] [--json] [-- FLAGS...]`:
   per kernel, the GPU predictions of a run's report beside the FPGA estimate of the same source,
   and the faster accelerator named with the numbers that decide it (docs/model.md 11.12).

   The FPGA side is `cgpredict fpga`'s (the pragma's directives, else the search). A loop whose
   trip count is not static takes the run's where the report has it: the loops the kernel maps to
   threads (dims(n): the outermost n loops of the nest, loop 0 the slowest, y for dims(2), as the
   pragma maps them) get threads_extent; loops not mapped stay unknown, and then so does the FPGA
   time (said, no choice made). The GPU side: every device the report predicts, its time, what
   bounds it, and the shares of the kernel's traced global-load warp instructions per access
   class. The choice: the fastest GPU prediction against the FPGA time. */
#include "cgp_compare.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_fpga_cmd.h"
#include "cgp_report.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[n] = '\0';
  fclose(f);
  return buf;
}

static cJSON *report_kernel(const cJSON *report, const char *name) {
  const cJSON *ks = cJSON_GetObjectItem(report, "kernels"), *k;
  cJSON_ArrayForEach(k, ks) {
    const cJSON *n = cJSON_GetObjectItem(k, "name");
    if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) return (cJSON *)k;
  }
  return NULL;
}

/* Shares (percent) of the kernel's traced global-load warp instructions: constant, coalesced, uncoalesced. */
static void load_classes(const cJSON *k, double pct[3]) {
  double n[3] = {0}, all = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(k, "memory")) {
    const cJSON *kind = cJSON_GetObjectItem(m, "kind"), *cls = cJSON_GetObjectItem(m, "class");
    const cJSON *w = cJSON_GetObjectItem(m, "warp_instructions_traced");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "load") || !cJSON_IsString(cls) || !cJSON_IsNumber(w))
      continue;
    for (int c = 0; c < 3; c++)
      if (!strcmp(cls->valuestring, cgp_stats_class_name(c))) n[c] += w->valuedouble, all += w->valuedouble;
  }
  for (int c = 0; c < 3; c++) pct[c] = all > 0 ? 100.0 * n[c] / all : 0;
}

/* The run's trip counts for the loops the kernel maps to threads. */
static void run_trips(const cJSON *report, const char *name, cgp_fpga_trips *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->kernel, sizeof t->kernel, "%s", name);
  cgp_report_fpga_run_trips(report_kernel(report, name), t->trips);
}

static int compare_kernel(const cgp_fpga_device *d, const cgp_fpga_result *r, const cJSON *report, cJSON *json) {
  const cJSON *k = report_kernel(report, r->kernel);
  char design[512];
  cgp_fpga_design_text(r, design, sizeof design);
  cJSON *o = json ? cJSON_CreateObject() : NULL;
  if (o) cJSON_AddStringToObject(o, "kernel", r->kernel);
  if (!json) printf("kernel %s (%s:%u)\n", r->kernel, r->file, r->line);
  double pct[3] = {0};
  if (k) load_classes(k, pct);
  const cJSON *p, *best = NULL;
  cJSON *gj = o ? cJSON_AddArrayToObject(o, "gpu") : NULL;
  const cJSON *preds = k ? cJSON_GetObjectItem(k, "predictions") : NULL;
  cJSON_ArrayForEach(p, preds) {
    const cJSON *dev = cJSON_GetObjectItem(p, "device"), *ms = cJSON_GetObjectItem(p, "time_ms");
    const cJSON *bound = cJSON_GetObjectItem(p, "bound");
    if (!cJSON_IsString(dev) || !cJSON_IsNumber(ms) || cgp_report_is_fpga(p)) continue;
    const char *b = cJSON_IsString(bound) ? bound->valuestring : "?";
    if (!best || ms->valuedouble < cJSON_GetObjectItem(best, "time_ms")->valuedouble) best = p;
    if (gj) {
      cJSON *g = cJSON_CreateObject();
      cJSON_AddStringToObject(g, "device", dev->valuestring);
      cJSON_AddNumberToObject(g, "time_ms", ms->valuedouble);
      cJSON_AddStringToObject(g, "bound", b);
      cJSON_AddItemToArray(gj, g);
    } else {
      printf("  GPU %s: %.4g ms, bound by %s; global loads (warp instructions): %.0f %% constant, %.0f %% coalesced, "
             "%.0f %% uncoalesced\n", dev->valuestring, ms->valuedouble, b, pct[0], pct[1], pct[2]);
    }
  }
  if (o) {
    cJSON *l = cJSON_AddObjectToObject(o, "gpu_loads_pct");
    cJSON_AddNumberToObject(l, "constant", pct[0]);
    cJSON_AddNumberToObject(l, "coalesced", pct[1]);
    cJSON_AddNumberToObject(l, "uncoalesced", pct[2]);
  }
  if (!k && !json) printf("  GPU: the report has no kernel of this name\n");
  unsigned pl = r->design.pipeline >= 0 ? (unsigned)r->design.pipeline : r->inner;
  const cgp_fpga_ii_bound bd = r->est.bound[pl];
  const char *bname = bd == CGP_II_MEMORY ? "memory ports" : bd == CGP_II_UNITS ? "operators"
                      : bd == CGP_II_RECURRENCE ? "a recurrence" : "nothing";
  char why[768], loop[160];
  if (r->design.pipeline >= 0)
    snprintf(loop, sizeof loop, "loop %s pipelined at II %u (bound by %s), IL %u", r->names[pl], r->est.ii[pl], bname,
             r->est.il[pl]);
  else
    snprintf(loop, sizeof loop, "loop %s not pipelined, IL %u", r->names[pl], r->est.il[pl]);
  snprintf(why, sizeof why, "%s; %s; DSP %llu/%u, BRAM18K %llu/%u", design, loop, (unsigned long long)r->est.dsp, d->dsp,
           (unsigned long long)r->est.bram18k, d->bram18k);
  if (o) {
    cJSON *f = cJSON_AddObjectToObject(o, "fpga");
    cJSON_AddStringToObject(f, "device", d->name);
    if (r->est.known) {
      cJSON_AddNumberToObject(f, "time_ms", r->ms);
      cJSON_AddNumberToObject(f, "cycles", (double)r->est.cycles);
    } else {
      cJSON_AddNullToObject(f, "time_ms");
      cJSON_AddNullToObject(f, "cycles");
    }
    cJSON_AddStringToObject(f, "design", design);
    cJSON_AddStringToObject(f, "why", why);
    cJSON_AddBoolToObject(f, "trips_from_the_run", r->trips_given != 0);
  } else if (r->est.known) {
    printf("  FPGA %s: %.4g ms (%llu cycles at %.0f MHz%s): %s\n", d->name, r->ms, (unsigned long long)r->est.cycles,
           d->clock_mhz, r->trips_given ? "; trip counts of the mapped loops from the run" : "", why);
    printf("    (the nest's compute only: a run with %s in CGPREDICT_DEVICE adds the off-chip copies the trace "
           "measures, docs/model.md 11.14)\n", d->name);
  } else {
    printf("  FPGA %s: unknown: a loop's trip count is neither static nor in the report (loops the kernel maps to "
           "threads only)\n", d->name);
  }
  const char *choice = NULL;
  char reason[1024] = "";
  if (best && r->est.known) {
    double g = cJSON_GetObjectItem(best, "time_ms")->valuedouble;
    const char *gd = cJSON_GetObjectItem(best, "device")->valuestring;
    int gpu = g <= r->ms;
    choice = gpu ? "gpu" : "fpga";
    double ratio = gpu ? r->ms / (g > 0 ? g : 1e-12) : g / (r->ms > 0 ? r->ms : 1e-12);
    snprintf(reason, sizeof reason, "%s: %s %.4g ms against %s %s %.4g ms (%.3gx)", gpu ? "GPU" : "FPGA",
             gpu ? gd : d->name, gpu ? g : r->ms, gpu ? "FPGA" : "GPU", gpu ? d->name : gd, gpu ? r->ms : g, ratio);
  }
  if (o) {
    if (choice) cJSON_AddStringToObject(o, "choice", choice);
    else cJSON_AddNullToObject(o, "choice");
    cJSON_AddStringToObject(o, "reason", reason);
    cJSON_AddItemToArray(json, o);
  } else {
    printf("  choice: %s\n", choice ? reason : "none (a side has no time)");
  }
  return 0;
}

static const char compare_usage[] =
  "usage: cgpredict compare REPORT.json SOURCE.c [--fpga NAME] [--json] [-- COMPILER FLAGS...]\n"
  "  per kernel of SOURCE.c: the GPU predictions of REPORT.json (a run of the instrumented program)\n"
  "  beside the FPGA estimate (cgpredict fpga: the pragma's directives, else the search), and the\n"
  "  faster accelerator. NAME: an FPGA (cgpredict devices), default zc702\n";

int cgp_compare_cmd(int argc, char **argv) {
  const char *report_path = NULL, *file = NULL, *dev_name = "zc702";
  int json = 0, nflags = 0;
  char **flags = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--")) {
      flags = argv + i + 1;
      nflags = argc - i - 1;
      break;
    }
    if (!strcmp(argv[i], "--fpga") && i + 1 < argc) dev_name = argv[++i];
    else if (!strcmp(argv[i], "--json")) json = 1;
    else if (argv[i][0] != '-' && !report_path) report_path = argv[i];
    else if (argv[i][0] != '-' && !file) file = argv[i];
    else {
      fprintf(stderr, "cgpredict compare: unexpected argument '%s'\n%s", argv[i], compare_usage);
      return 2;
    }
  }
  if (!report_path || !file) {
    fprintf(stderr, "cgpredict compare: a report and a source, please\n%s", compare_usage);
    return 2;
  }
  cgp_fpga_device d;
  char err[8192];
  if (cgp_fpga_device_find(dev_name, &d, err, sizeof err)) {
    fprintf(stderr, "cgpredict compare: %s\n", err);
    return 2;
  }
  char *text = slurp(report_path);
  cJSON *report = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!report || !cJSON_IsArray(cJSON_GetObjectItem(report, "kernels"))) {
    fprintf(stderr, "cgpredict compare: %s: %s\n", report_path, report ? "not a cgpredict report (no kernels)" :
                                                                        "cannot read it as JSON");
    cJSON_Delete(report);
    return 1;
  }
  int nk = cJSON_GetArraySize(cJSON_GetObjectItem(report, "kernels"));
  cgp_fpga_trips *given = calloc(nk ? (size_t)nk : 1, sizeof *given);
  int ng = 0;
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItem(report, "kernels")) {
    const cJSON *n = cJSON_GetObjectItem(k, "name");
    if (given && cJSON_IsString(n)) run_trips(report, n->valuestring, &given[ng++]);
  }
  cgp_fpga_result *r = NULL;
  size_t n = 0;
  int rc = given ? cgp_fpga_estimate_file(file, &d, flags, nflags, CGP_FPGA_MODE_PRAGMA, given, (size_t)ng, &r, &n) : 1;
  cJSON *arr = json ? cJSON_CreateArray() : NULL;
  for (size_t i = 0; i < n && !rc; i++) compare_kernel(&d, &r[i], report, arr);
  if (arr && !rc) {
    char *out = cJSON_Print(arr);
    if (out) puts(out);
    free(out);
  }
  cJSON_Delete(arr);
  cJSON_Delete(report);
  free(given);
  free(r);
  return rc;
}
