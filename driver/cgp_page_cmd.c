/* cgp_page_cmd.c: `cgpredict page OUT.html REPORT.json [REPORT.json ...]`: the HTML page of one
   report, or of several programs' reports as one page (a benchmark suite). The reports are read and
   checked as `cgpredict report` reads them, and joined into one report for the page: every
   kernel, named "PROGRAM: kernel" when there are several (PROGRAM: the report's file name without
   .json), its source file found from its own report's folder; each program's offload decision
   one row per device, named "PROGRAM on DEVICE". The page is written as reports are (whole or not
   at all, never over one of the reports). */
#include "cgp_page_cmd.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_file.h"
#include "cgp_report.h"

/* "dir/name.json" -> "name" in out. */
static void program_name(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
  snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), base);
}

/* A kernel's relative source path made relative to the report's folder, where it is found there. */
static void locate_source(cJSON *k, const char *report_path) {
  cJSON *f = cJSON_GetObjectItemCaseSensitive(k, "file");
  const char *file = cJSON_GetStringValue(f), *slash = strrchr(report_path, '/');
  if (!file || file[0] == '/' || !slash || access(file, R_OK) == 0) return;
  char path[4200];
  snprintf(path, sizeof path, "%.*s/%s", (int)(slash - report_path), report_path, file);
  if (access(path, R_OK) == 0) cJSON_SetValuestring(f, path);
}

/* Report r's kernels and offload rows moved into the joined report j. */
static int join(cJSON *j, cJSON *r, const char *path, int several) {
  char prog[256];
  program_name(path, prog, sizeof prog);
  cJSON *kernels = cJSON_GetObjectItemCaseSensitive(j, "kernels"), *offload = cJSON_GetObjectItemCaseSensitive(j, "offload");
  cJSON *k;
  while ((k = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(r, "kernels"), 0))) {
    if (several) {
      char name[600];
      snprintf(name, sizeof name, "%s: %.300s", prog, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name")));
      if (!cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(k, "name"), name)) { cJSON_Delete(k); return -1; }
    }
    locate_source(k, path);
    cJSON_AddItemToArray(kernels, k);
  }
  cJSON *o;
  while ((o = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(r, "offload"), 0))) {
    if (several) {
      char name[600];
      snprintf(name, sizeof name, "%s on %.200s", prog, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "device")));
      if (!cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(o, "device"), name)) { cJSON_Delete(o); return -1; }
    }
    cJSON_AddItemToArray(offload, o);
  }
  if (!several) {                               /* one program: its copies, as the page says them */
    cJSON *h = cJSON_DetachItemFromObjectCaseSensitive(r, "host");
    if (h) cJSON_AddItemToObject(j, "host", h);
  }
  return 0;
}

int cgp_page_cmd(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: cgpredict page OUT.html REPORT.json [REPORT.json ...]\n");
    return 2;
  }
  const char *out = argv[0];
  for (int i = 1; i < argc; i++)
    if (cgp_same_file(out, argv[i])) {
      fprintf(stderr, "cgpredict page: %s names the report %s: give the page another path\n", out, argv[i]);
      return 2;
    }
  char err[8600];
  cJSON *j = NULL;
  int several = argc > 2;
  for (int i = 1; i < argc; i++) {
    cJSON *r = NULL;
    if (cgp_report_load(argv[i], &r, err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict: %s\n", err);
      cJSON_Delete(j);
      return 1;
    }
    if (!j) {                                   /* the first report's version fields head the page */
      const char *tv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "tool_version"));
      j = cgp_report_new(tv ? tv : "unknown");
      if (j) cJSON_AddArrayToObject(j, "offload");
    }
    if (!j || join(j, r, argv[i], several) != 0) {
      fprintf(stderr, "cgpredict page: out of memory joining %s\n", argv[i]);
      cJSON_Delete(r);
      cJSON_Delete(j);
      return 1;
    }
    cJSON_Delete(r);
  }
  char label[4200];
  if (several) snprintf(label, sizeof label, "%d reports", argc - 1);
  else snprintf(label, sizeof label, "%s", argv[1]);
  char *page = NULL;
  size_t len = 0;
  int rc = cgp_report_html(j, label, &page, &len, err, sizeof err) != 0 ||
           cgp_write_file_atomic(out, page, len, err, sizeof err) != 0;
  free(page);
  cJSON_Delete(j);
  if (rc) {
    fprintf(stderr, "cgpredict page: %s\n", err);
    return 1;
  }
  return 0;
}
