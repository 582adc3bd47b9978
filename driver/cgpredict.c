/* cgpredict: the command users run.
     cgpredict build -- <cc command line>   compile, instrument the marked loop nests, link the runtime
     cgpredict cc <args>                    the same as `cgpredict build -- cc <args>` (for CC=)
     cgpredict report FILE [--device A,B] [--json]   re-run the model on a saved report
     cgpredict devices                      the device database
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
  "       cgpredict devices\n"
  "       cgpredict --help | --version\n"
  "\n"
  "Mark a loop nest with `#pragma cgpredict kernel [name(id)] [dims(n)] [block(x[,y[,z]])]`,\n"
  "build with `cgpredict build -- cc ...`, run the program: it writes cgpredict-report.json and\n"
  "prints the predicted GPU time per kernel and device on stderr. Environment of the program:\n"
  "CGPREDICT_REPORT, CGPREDICT_DEVICE, CGPREDICT_QUIET, CGPREDICT_BLOCK, CGPREDICT_SAMPLE.\n";

static int cmd_devices(void) {
  char **names = NULL;
  size_t n = cgp_device_names(&names);
  printf("%-16s %4s %6s %9s %8s  %s\n", "device", "SMs", "cores", "MHz", "L2 KiB", "description");
  for (size_t i = 0; i < n; i++) {
    cgp_device d;
    char err[1024];
    if (cgp_device_find(names[i], &d, err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict: %s\n", err);
      cgp_device_names_free(names, n);
      return 1;
    }
    printf("%-16s %4u %6u %9.0f %8.0f  %s\n", d.name, d.no_sm, d.cores_per_sm, d.freq_hz / 1e6,
           (double)d.l2_bytes / 1024.0, d.description);
  }
  cgp_device_names_free(names, n);
  if (!n) fprintf(stderr, "cgpredict: no devices in %s\n", cgp_devices_dir());
  return n ? 0 : 1;
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
  if (strcmp(argv[1], "devices") == 0) return cmd_devices();
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
