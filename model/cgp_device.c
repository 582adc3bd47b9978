/* cgp_device.c: device files. A device file is a JSON object of numbers and strings, one field
   per parameter, and a "sources" object that cites, for every numeric field, where the number
   comes from (datasheet, whitepaper, microbenchmark paper). A field without a source is an
   error: no device number enters the model uncited. */
#include "cgp_model.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CGP_DEVICES_DIR
#define CGP_DEVICES_DIR "devices"
#endif

typedef enum { F_UINT, F_U64, F_DOUBLE } ftype;

typedef struct {
  const char *key;
  ftype type;
  size_t offset;
} field;

#define U(k) {#k, F_UINT, offsetof(cgp_device, k)}
#define D(k) {#k, F_DOUBLE, offsetof(cgp_device, k)}
static const field fields[] = {
  U(no_sm), U(cores_per_sm), U(schedulers_per_sm), U(issue_per_scheduler), U(warp_size), D(freq_hz),
  U(max_threads_per_sm), U(max_threads_per_block), U(max_blocks_per_sm), U(regs_per_sm), U(smem_per_sm),
  {"l2_bytes", F_U64, offsetof(cgp_device, l2_bytes)}, U(l2_line_bytes), U(l2_assoc),
  D(lat_smem), D(lat_l2), D(lat_dram), D(smem_load_const), D(dd_l2), D(dd_dram), D(inst_cycle),
  D(dram_bandwidth_bytes_per_s), U(smem_banks), U(smem_bank_bytes),
};
#undef U
#undef D

const char *cgp_devices_dir(void) {
  const char *e = getenv("CGPREDICT_DEVICES_DIR");
  return e && *e ? e : CGP_DEVICES_DIR;
}

static char *slurp(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return NULL; }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (!buf) { snprintf(err, errlen, "%s: out of memory", path); return NULL; }
  buf[n] = '\0';
  return buf;
}

/* Line and column of a position in text, for JSON syntax errors. */
static void position(const char *text, const char *at, unsigned *line, unsigned *col) {
  *line = 1; *col = 1;
  for (const char *p = text; p < at && *p; p++) {
    if (*p == '\n') { (*line)++; *col = 1; } else (*col)++;
  }
}

static int load_field(const cJSON *root, const cJSON *sources, const field *f, cgp_device *dev,
                      const char *path, char *err, size_t errlen) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, f->key);
  if (!cJSON_IsNumber(v) || !(v->valuedouble > 0)) {
    snprintf(err, errlen, "%s: field \"%s\": %s", path, f->key, v ? "expected a positive number" : "missing");
    return -1;
  }
  if (f->type != F_DOUBLE && v->valuedouble != (double)(uint64_t)v->valuedouble) {
    snprintf(err, errlen, "%s: field \"%s\": expected a whole number", path, f->key);
    return -1;
  }
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(sources, f->key))) {
    snprintf(err, errlen, "%s: field \"%s\": no source cited in \"sources\"", path, f->key);
    return -1;
  }
  char *dst = (char *)dev + f->offset;
  if (f->type == F_UINT) *(unsigned *)dst = (unsigned)v->valuedouble;
  else if (f->type == F_U64) *(uint64_t *)dst = (uint64_t)v->valuedouble;
  else *(double *)dst = v->valuedouble;
  return 0;
}

static int load_string(const cJSON *root, const char *key, char *dst, size_t cap, const char *path,
                       char *err, size_t errlen) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= cap) {
    snprintf(err, errlen, "%s: field \"%s\": expected a non-empty string", path, key);
    return -1;
  }
  strcpy(dst, v->valuestring);
  return 0;
}

static int check_consistency(const cgp_device *d, const char *path, char *err, size_t errlen) {
  const char *bad = NULL;
  if (strcmp(d->l2_index, "fully_associative") && strcmp(d->l2_index, "modulo") && strcmp(d->l2_index, "xor"))
    bad = "l2_index\": expected \"fully_associative\", \"modulo\" or \"xor";
  else if (d->l2_line_bytes & (d->l2_line_bytes - 1)) bad = "l2_line_bytes\": expected a power of two";
  else if (d->l2_bytes % d->l2_line_bytes) bad = "l2_bytes\": expected a whole number of lines";
  else if (strcmp(d->l2_index, "fully_associative") && (d->l2_bytes / d->l2_line_bytes) % d->l2_assoc)
    bad = "l2_assoc\": the line count l2_bytes / l2_line_bytes is not a multiple of it";
  else if (d->max_threads_per_block > d->max_threads_per_sm) bad = "max_threads_per_block\": more than max_threads_per_sm";
  else if (d->max_threads_per_sm % d->warp_size) bad = "max_threads_per_sm\": expected a multiple of warp_size";
  if (!bad) return 0;
  snprintf(err, errlen, "%s: field \"%s\"", path, bad);
  return -1;
}

int cgp_device_load_file(const char *path, cgp_device *dev, char *err, size_t errlen) {
  char *text = slurp(path, err, errlen);
  if (!text) return -1;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root || !cJSON_IsObject(root)) {
    unsigned line, col;
    position(text, end ? end : text, &line, &col);
    snprintf(err, errlen, "%s:%u:%u: not a valid JSON object", path, line, col);
    cJSON_Delete(root);
    free(text);
    return -1;
  }
  memset(dev, 0, sizeof *dev);
  const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
  int rc = 0;
  if (!cJSON_IsObject(sources)) {
    snprintf(err, errlen, "%s: field \"sources\": missing (every number needs its source)", path);
    rc = -1;
  }
  if (!rc) rc = load_string(root, "name", dev->name, sizeof dev->name, path, err, errlen);
  if (!rc) rc = load_string(root, "description", dev->description, sizeof dev->description, path, err, errlen);
  if (!rc) rc = load_string(root, "l2_index", dev->l2_index, sizeof dev->l2_index, path, err, errlen);
  for (size_t i = 0; !rc && i < sizeof fields / sizeof *fields; i++)
    rc = load_field(root, sources, &fields[i], dev, path, err, errlen);
  if (!rc) rc = check_consistency(dev, path, err, errlen);
  cJSON_Delete(root);
  free(text);
  return rc;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t cgp_device_names(char ***names) {
  *names = NULL;
  DIR *dir = opendir(cgp_devices_dir());
  if (!dir) return 0;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    *names = realloc(*names, (n + 1) * sizeof **names);
    (*names)[n] = strndup(e->d_name, len - 5);
    n++;
  }
  closedir(dir);
  qsort(*names, n, sizeof **names, cmp_names);
  return n;
}

void cgp_device_names_free(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

int cgp_device_find(const char *name, cgp_device *dev, char *err, size_t errlen) {
  char path[4096];
  if (!*name || strchr(name, '/')) {
    snprintf(err, errlen, "'%s' is not a device name", name);
    return -1;
  }
  snprintf(path, sizeof path, "%s/%s.json", cgp_devices_dir(), name);
  FILE *f = fopen(path, "r");
  if (f) {
    fclose(f);
    return cgp_device_load_file(path, dev, err, errlen);
  }
  char **names;
  size_t n = cgp_device_names(&names), used;
  used = (size_t)snprintf(err, errlen, "unknown device '%s' (known:", name);
  for (size_t i = 0; i < n && used < errlen; i++) used += (size_t)snprintf(err + used, errlen - used, " %s", names[i]);
  if (used < errlen) snprintf(err + used, errlen - used, "%s)", n ? "" : " none");
  cgp_device_names_free(names, n);
  return -1;
}
