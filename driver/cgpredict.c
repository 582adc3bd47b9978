/* cgpredict: the command users run.
     cgpredict build -- <cc command line>   compile, instrument the marked loop nests, link the runtime
     cgpredict cc <args>                    the same as `cgpredict build -- cc <args>` (for CC=)
     cgpredict report FILE [--device A,B] [--json]   re-run the model on a saved report
     cgpredict devices [NAME]               the device database; one device with every field and source
   Every flag of the compiler command line is passed through; only the sources that hold a
   `#pragma cgpredict kernel` are compiled differently (driver/cgp_build.c). */
#include "cgp_build.h"
#include "cgp_model.h"
#include "cgp_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
  "usage: cgpredict build -- <compiler> [args...]\n"
  "       cgpredict cc [args...]\n"
  "       cgpredict report FILE [--device NAME[,NAME...]] [--json]\n"
  "       cgpredict devices [NAME]\n"
  "       cgpredict --help | --version\n"
  "\n"
  "Mark a loop nest with `#pragma cgpredict kernel [name(id)] [dims(n)] [block(x[,y[,z]])]`,\n"
  "build with `cgpredict build -- cc ...`, run the program: it writes cgpredict-report.json and\n"
  "prints the predicted GPU time per kernel and device on stderr. Environment of the program:\n"
  "CGPREDICT_REPORT, CGPREDICT_DEVICE, CGPREDICT_QUIET, CGPREDICT_BLOCK, CGPREDICT_SAMPLE.\n";

/* `cgpredict devices`: one line per device file with its key numbers. */
static int list_devices(void) {
  char **names = NULL;
  size_t n = cgp_device_all_names(&names);
  printf("%-18s %4s %7s %11s %9s %9s %9s %8s\n", "device", "SMs", "MHz", "FP32/FP64", "L1 KiB", "L2 KiB",
         "DRAM GB/s", "launch");
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    cgp_device d;
    char err[1024], lanes[32], l1[24];
    if (cgp_device_find(names[i], &d, err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict: %s\n", err);
      rc = 1;
      continue;
    }
    snprintf(lanes, sizeof lanes, "%u/%u", d.fp32_lanes, d.fp64_lanes);
    snprintf(l1, sizeof l1, "%u%s", d.l1_bytes / 1024, d.l1_caches_global ? "" : "*");
    printf("%-18s %4u %7.1f %11s %9s %9.0f %9.1f %8.0f\n", d.name, d.no_sm, d.freq_hz / 1e6, lanes, l1,
           (double)d.l2_bytes / 1024.0, d.dram_bandwidth_bytes_per_s / 1e9, d.launch_overhead_cycles);
  }
  cgp_device_names_free(names, n);
  if (!n) {
    fprintf(stderr, "cgpredict: no devices in %s\n", cgp_devices_dir());
    return 1;
  }
  printf("(* L1 does not cache global loads by default; launch = launch_overhead_cycles; "
         "`cgpredict devices NAME` shows every field and its source)\n");
  return rc;
}

static void print_value(const cJSON *v) {
  if (cJSON_IsNumber(v)) printf("%.10g", v->valuedouble);
  else if (cJSON_IsString(v)) printf("%s", v->valuestring);
  else if (cJSON_IsBool(v)) printf("%s", cJSON_IsTrue(v) ? "true" : "false");
  else {
    char *t = cJSON_PrintUnformatted(v);
    printf("%s", t ? t : "?");
    cJSON_free(t);
  }
}

static void print_field(const char *key, const cJSON *v, const cJSON *sources) {
  printf("  %-28s ", key);
  print_value(v);
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(sources, key);
  if (cJSON_IsString(src)) printf("\n  %-28s   source: %s", "", src->valuestring);
  putchar('\n');
}

/* `cgpredict devices NAME`: every field of the (valid) file, in file order, with its citation. */
static int show_device(const char *name) {
  cgp_device d;
  char err[4096];
  if (cgp_device_find(name, &d, err, sizeof err) != 0) {
    fprintf(stderr, "cgpredict: %s\n", err);
    return 1;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.json", cgp_devices_dir(), name);
  FILE *f = fopen(path, "r");
  if (!f) { fprintf(stderr, "cgpredict: %s: cannot open\n", path); return 1; }
  char *text = NULL;
  size_t cap = 0, len = 0;
  for (int c; (c = fgetc(f)) != EOF;) {
    if (len + 1 >= cap) text = realloc(text, cap = cap ? 2 * cap : 8192);
    text[len++] = (char)c;
  }
  fclose(f);
  if (!text) return 1;
  text[len] = '\0';
  cJSON *root = cJSON_Parse(text);
  free(text);
  if (!root) { fprintf(stderr, "cgpredict: %s: not valid JSON\n", path); return 1; }
  const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
  printf("%s: %s\n  file: %s\n", d.name, d.description, path);
  const cJSON *it;
  cJSON_ArrayForEach(it, root) {
    if (!strcmp(it->string, "sources") || !strcmp(it->string, "name") || !strcmp(it->string, "description") ||
        !strcmp(it->string, "$schema"))
      continue;
    if (cJSON_IsObject(it)) {
      const cJSON *sub;
      cJSON_ArrayForEach(sub, it) {
        char key[128];
        snprintf(key, sizeof key, "%s.%s", it->string, sub->string);
        print_field(key, sub, sources);
      }
    } else {
      print_field(it->string, it, sources);
    }
  }
  printf("  %-28s %u (derived: l2 sector if sectored, else line)\n", "transaction_bytes", cgp_transaction_bytes(&d));
  cJSON_Delete(root);
  return 0;
}

static int cmd_devices(int argc, char **argv) {
  if (argc == 0) return list_devices();
  if (argc == 1 && argv[0][0] != '-') return show_device(argv[0]);
  fprintf(stderr, "cgpredict devices: expected at most one device name\n%s", usage);
  return 2;
}

static int cmd_report(int argc, char **argv) {
  const char *path = NULL, *devlist = NULL;
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) devlist = argv[++i];
    else if (strncmp(argv[i], "--device=", 9) == 0) devlist = argv[i] + 9;
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else { fprintf(stderr, "cgpredict report: unexpected argument '%s'\n%s", argv[i], usage); return 2; }
  }
  if (!path) { fprintf(stderr, "cgpredict report: which report file?\n%s", usage); return 2; }
  char err[4096];
  cJSON *r = NULL;
  if (cgp_report_load(path, &r, err, sizeof err) != 0) { fprintf(stderr, "cgpredict: %s\n", err); return 1; }
  char **names = NULL;
  size_t n = 0;
  int list_oom = 0;
  if (devlist) {
    char *list = strdup(devlist), *save = NULL;
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
      char **bigger = realloc(names, (n + 1) * sizeof *names);
      if (bigger) names = bigger;
      if (!bigger || !(names[n] = strdup(t))) { list_oom = 1; break; }
      n++;
    }
    if (!list) list_oom = 1;
    free(list);
  } else {
    n = cgp_report_devices(r, &names);
  }
  cgp_device *devs = calloc(n ? n : 1, sizeof *devs);
  int rc = 0;
  if (!devs || list_oom) {
    snprintf(err, sizeof err, "out of memory for the device list");
    rc = 1;
  }
  for (size_t i = 0; i < n && !rc; i++)
    if (cgp_device_find(names[i], &devs[i], err, sizeof err) != 0) rc = 1;
  if (!rc && cgp_report_predict(r, devs, n, err, sizeof err) != 0) rc = 1;
  if (rc) {
    fprintf(stderr, "cgpredict: %s\n", err);
  } else if (json) {
    char *text = cJSON_Print(r);
    puts(text);
    cJSON_free(text);
  } else {
    cgp_report_print_summary(stdout, r, path);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  free(devs);
  cJSON_Delete(r);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("cgpredict %s\n", CGP_VERSION);
    return 0;
  }
  if (strcmp(argv[1], "devices") == 0) return cmd_devices(argc - 2, argv + 2);
  if (strcmp(argv[1], "report") == 0) return cmd_report(argc - 2, argv + 2);
  if (strcmp(argv[1], "cc") == 0) {
    char **cmd = calloc((size_t)argc, sizeof *cmd);
    cmd[0] = "cc";
    for (int i = 2; i < argc; i++) cmd[i - 1] = argv[i];
    int rc = cgp_build(argc - 1, cmd);
    free(cmd);
    return rc;
  }
  if (strcmp(argv[1], "build") == 0) {
    int i = 2;
    if (i < argc && strcmp(argv[i], "--") == 0) i++;
    if (i >= argc) { fprintf(stderr, "cgpredict build: no compiler command given\n%s", usage); return 2; }
    return cgp_build(argc - i, argv + i);
  }
  fprintf(stderr, "cgpredict: unknown command '%s'\n%s", argv[1], usage);
  return 2;
}
