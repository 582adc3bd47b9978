/* cgp_fpga_device.c: FPGA device files (devices/<name>.json with "kind": "fpga"; schema:
   devices/device.schema.json, $defs/fpga). As for GPUs (cgp_device.c), every number needs its
   citation: top-level and nested fields in "sources" under their dotted key ("resources.dsp"),
   each operator-table entry in its own "source". Errors name the file and the field. */
#include "cgp_fpga.h"
#include "cgp_file.h"
#include "cgp_model.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* As for GPU device files: far above any real one, bounds what a wrong path can cost. */
#define FPGA_FILE_CAP_BYTES ((size_t)1 << 20)

static const char *const op_names[CGP_FOP_COUNT] = {
  "load", "store", "add", "sub", "mul", "div", "shift", "logic", "icmp", "select", "cast",
  "sitofp", "fptosi", "fadd", "fsub", "fmul", "fdiv", "fcmp"};
static const char *const type_names[] = {"int", "float", "mem"};

const char *cgp_fpga_op_name(cgp_fpga_opkind op) {
  return (unsigned)op < CGP_FOP_COUNT ? op_names[op] : NULL;
}

static int fail(char *err, size_t errlen, const char *path, const char *key, const char *why) {
  snprintf(err, errlen, "%s: field \"%s\": %s", path, key, why);
  return -1;
}

static int cited(const cJSON *sources, const char *key) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(sources, key);
  return cJSON_IsString(s) && s->valuestring[0];
}

/* A number in [lo, hi] (whole when integer); key is the dotted name used in errors. */
static int get_number(const cJSON *obj, const char *name, const char *key, int integer, double lo, double hi,
                      int lo_open, double *out, const char *path, char *err, size_t errlen) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  char why[128];
  if (!v) return fail(err, errlen, path, key, "missing");
  snprintf(why, sizeof why, "expected a %snumber %s %g and at most %g", integer ? "whole " : "", lo_open ? "above" : "from",
           lo, hi);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return fail(err, errlen, path, key, why);
  double x = v->valuedouble;
  if ((lo_open ? !(x > lo) : !(x >= lo)) || x > hi || (integer && x != floor(x))) return fail(err, errlen, path, key, why);
  *out = x;
  return 0;
}

/* A cited number: get_number, then its citation in "sources" under key. */
static int get_cited(const cJSON *obj, const char *name, const char *key, int integer, double lo, double hi, int lo_open,
                     double *out, const cJSON *sources, const char *path, char *err, size_t errlen) {
  if (get_number(obj, name, key, integer, lo, hi, lo_open, out, path, err, errlen)) return -1;
  if (!cited(sources, key)) return fail(err, errlen, path, key, "no source cited in \"sources\"");
  return 0;
}

static int get_string(const cJSON *obj, const char *key, char *dst, size_t cap, const char *path, char *err,
                      size_t errlen) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= cap) {
    char why[64];
    snprintf(why, sizeof why, "expected a non-empty string of at most %zu characters", cap - 1);
    return fail(err, errlen, path, key, why);
  }
  strcpy(dst, v->valuestring);
  return 0;
}

/* An object whose members are exactly `names` (n of them); unknown members are typos. */
static const cJSON *get_object(const cJSON *root, const char *key, const char *const *names, size_t n, const char *path,
                               char *err, size_t errlen) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!o) { fail(err, errlen, path, key, "missing"); return NULL; }
  if (!cJSON_IsObject(o)) { fail(err, errlen, path, key, "expected an object"); return NULL; }
  const cJSON *it;
  cJSON_ArrayForEach(it, o) {
    size_t i = 0;
    while (i < n && strcmp(it->string, names[i])) i++;
    if (i == n) {
      char full[128];
      snprintf(full, sizeof full, "%s.%.80s", key, it->string);
      fail(err, errlen, path, full, "unknown field");
      return NULL;
    }
  }
  return o;
}

static int load_numbers(const cJSON *root, const cJSON *sources, cgp_fpga_device *d, const char *path, char *err,
                        size_t errlen) {
  static const char *const res_keys[] = {"dsp", "bram18k", "uram", "lut", "ff"};
  static const char *const loop_keys[] = {"iteration_overhead_cycles", "pipeline_overhead_cycles", "exit_cycles"};
  static const char *const off_keys[] = {"bandwidth_bytes_per_s", "axi_data_bits", "burst_setup_cycles", "max_burst_beats"};
  double x;
  char key[96];
  if (get_cited(root, "clock_mhz", "clock_mhz", 0, 0, 2000, 1, &d->clock_mhz, sources, path, err, errlen) ||
      get_cited(root, "clock_uncertainty_pct", "clock_uncertainty_pct", 0, 0, 99, 0, &d->clock_uncertainty_pct, sources,
                path, err, errlen))
    return -1;
  const cJSON *res = get_object(root, "resources", res_keys, 5, path, err, errlen);
  if (!res) return -1;
  unsigned *res_dst[5] = {&d->dsp, &d->bram18k, &d->uram, &d->lut, &d->ff};
  for (int i = 0; i < 5; i++) {
    snprintf(key, sizeof key, "resources.%s", res_keys[i]);
    if (get_cited(res, res_keys[i], key, 1, 0, 4294967295.0, 0, &x, sources, path, err, errlen)) return -1;
    *res_dst[i] = (unsigned)x;
  }
  const cJSON *loop = get_object(root, "loop", loop_keys, 3, path, err, errlen);
  if (!loop) return -1;
  unsigned *loop_dst[3] = {&d->loop_iteration_overhead, &d->loop_pipeline_overhead, &d->loop_exit_cycles};
  for (int i = 0; i < 3; i++) {
    snprintf(key, sizeof key, "loop.%s", loop_keys[i]);
    if (get_cited(loop, loop_keys[i], key, 1, 0, 64, 0, &x, sources, path, err, errlen)) return -1;
    *loop_dst[i] = (unsigned)x;
  }
  const cJSON *off = get_object(root, "offchip", off_keys, 4, path, err, errlen);
  if (!off) return -1;
  if (get_cited(off, "bandwidth_bytes_per_s", "offchip.bandwidth_bytes_per_s", 0, 0, 1e15, 1,
                &d->offchip_bandwidth_bytes_per_s, sources, path, err, errlen))
    return -1;
  const double lo[3] = {8, 0, 1}, hi[3] = {1024, 100000, 4096};
  unsigned *off_dst[3] = {&d->axi_data_bits, &d->burst_setup_cycles, &d->max_burst_beats};
  for (int i = 0; i < 3; i++) {
    snprintf(key, sizeof key, "offchip.%s", off_keys[i + 1]);
    if (get_cited(off, off_keys[i + 1], key, 1, lo[i], hi[i], 0, &x, sources, path, err, errlen)) return -1;
    *off_dst[i] = (unsigned)x;
  }
  return 0;
}

static int load_bram(const cJSON *root, const cJSON *sources, cgp_fpga_device *d, const char *path, char *err,
                     size_t errlen) {
  static const char *const keys[] = {"ports", "write_ports", "configs"};
  const cJSON *b = get_object(root, "bram", keys, 3, path, err, errlen);
  double x;
  if (!b) return -1;
  if (get_cited(b, "ports", "bram.ports", 1, 1, 2, 0, &x, sources, path, err, errlen)) return -1;
  d->bram_ports = (unsigned)x;
  if (get_cited(b, "write_ports", "bram.write_ports", 1, 1, 2, 0, &x, sources, path, err, errlen)) return -1;
  d->bram_write_ports = (unsigned)x;
  if (d->bram_write_ports > d->bram_ports) return fail(err, errlen, path, "bram.write_ports", "more than bram.ports");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "configs");
  int n = cJSON_GetArraySize(c);
  if (!cJSON_IsArray(c) || n < 1 || n > CGP_FPGA_MAX_BRAM_CONFIGS)
    return fail(err, errlen, path, "bram.configs", "expected an array of 1 to 16 [width, depth] pairs");
  for (int i = 0; i < n; i++) {
    const cJSON *p = cJSON_GetArrayItem(c, i);
    for (int j = 0; j < 2; j++) {
      const cJSON *v = cJSON_GetArrayItem(p, j);
      if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2 || !cJSON_IsNumber(v) || !(v->valuedouble >= 1) ||
          v->valuedouble > 1048576 || v->valuedouble != floor(v->valuedouble))
        return fail(err, errlen, path, "bram.configs", "expected [width, depth] pairs of whole numbers from 1 to 1048576");
      d->bram_configs[i][j] = (unsigned)v->valuedouble;
    }
  }
  d->n_bram_configs = (unsigned)n;
  if (!cited(sources, "bram.configs")) return fail(err, errlen, path, "bram.configs", "no source cited in \"sources\"");
  return 0;
}

static int name_index(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

static int load_operator(const cJSON *o, int i, cgp_fpga_impl *im, const char *path, char *err, size_t errlen) {
  static const char *const keys[] = {"op", "type", "width", "latency", "delay_ns", "dsp", "lut", "ff", "source"};
  char key[64];
  snprintf(key, sizeof key, "operators[%d]", i);
  if (!cJSON_IsObject(o)) return fail(err, errlen, path, key, "expected an object");
  const cJSON *it;
  cJSON_ArrayForEach(it, o) if (name_index(it->string, keys, 9) < 0) {
    snprintf(key, sizeof key, "operators[%d].%.32s", i, it->string);
    return fail(err, errlen, path, key, "unknown field");
  }
  const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "op"));
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "type"));
  snprintf(key, sizeof key, "operators[%d].op", i);
  if (!op || name_index(op, op_names, CGP_FOP_COUNT) < 0) return fail(err, errlen, path, key, "expected an operation name (load, store, add, ..., fcmp)");
  snprintf(key, sizeof key, "operators[%d].type", i);
  if (!type || name_index(type, type_names, 3) < 0) return fail(err, errlen, path, key, "expected \"int\", \"float\" or \"mem\"");
  im->op = (cgp_fpga_opkind)name_index(op, op_names, CGP_FOP_COUNT);
  im->type = (cgp_fpga_type)name_index(type, type_names, 3);
  if ((im->type == CGP_FTYPE_MEM) != (im->op == CGP_FOP_LOAD || im->op == CGP_FOP_STORE))
    return fail(err, errlen, path, key, "\"mem\" is the type of loads and stores, and only theirs");
  const char *num_keys[6] = {"width", "latency", "delay_ns", "dsp", "lut", "ff"};
  const double lo[6] = {1, 0, 0, 0, 0, 0}, hi[6] = {1024, 1024, 1000, 4294967295.0, 4294967295.0, 4294967295.0};
  double v[6];
  for (int k = 0; k < 6; k++) {
    snprintf(key, sizeof key, "operators[%d].%s", i, num_keys[k]);
    if (get_number(o, num_keys[k], key, k != 2, lo[k], hi[k], 0, &v[k], path, err, errlen)) return -1;
  }
  im->width = (unsigned)v[0];
  im->latency = (unsigned)v[1];
  im->delay_ns = v[2];
  im->dsp = (unsigned)v[3];
  im->lut = (unsigned)v[4];
  im->ff = (unsigned)v[5];
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
  snprintf(key, sizeof key, "operators[%d].source", i);
  if (!cJSON_IsString(src) || !src->valuestring[0]) return fail(err, errlen, path, key, "missing (every operator entry cites its numbers)");
  return 0;
}

static int load_operators(const cJSON *root, cgp_fpga_device *d, const char *path, char *err, size_t errlen) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "operators");
  int n = cJSON_GetArraySize(a);
  if (!cJSON_IsArray(a) || n < 1 || n > CGP_FPGA_MAX_IMPLS)
    return fail(err, errlen, path, "operators", "expected an array of 1 to 256 operator entries");
  for (int i = 0; i < n; i++)
    if (load_operator(cJSON_GetArrayItem(a, i), i, &d->impls[i], path, err, errlen)) return -1;
  d->n_impls = (unsigned)n;
  int have_load = 0, have_store = 0;
  for (unsigned i = 0; i < d->n_impls; i++) {
    have_load |= d->impls[i].op == CGP_FOP_LOAD;
    have_store |= d->impls[i].op == CGP_FOP_STORE;
  }
  if (!have_load || !have_store) return fail(err, errlen, path, "operators", "no load or no store entry (every kernel has both)");
  return 0;
}

static int known_key(const char *key) {
  static const char *const keys[] = {"$schema", "name", "kind", "description", "part", "clock_mhz", "clock_uncertainty_pct",
                                     "resources", "bram", "loop", "offchip", "operators", "sources"};
  return name_index(key, keys, (int)(sizeof keys / sizeof *keys)) >= 0;
}

static int load_root(const cJSON *root, cgp_fpga_device *d, const char *path, char *err, size_t errlen) {
  const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
  if (!cJSON_IsObject(sources)) return fail(err, errlen, path, "sources", "missing (every number needs its source)");
  const cJSON *it;
  cJSON_ArrayForEach(it, root) if (!known_key(it->string)) return fail(err, errlen, path, it->string, "unknown field");
  cJSON_ArrayForEach(it, sources) if (!cJSON_IsString(it) || !it->valuestring[0]) {
    char key[96];
    snprintf(key, sizeof key, "sources.%.80s", it->string);
    return fail(err, errlen, path, key, "expected a non-empty citation string");
  }
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "kind"));
  if (!kind || strcmp(kind, "fpga")) return fail(err, errlen, path, "kind", "expected \"fpga\" (this is not an FPGA device file)");
  if (get_string(root, "name", d->name, sizeof d->name, path, err, errlen) ||
      get_string(root, "description", d->description, sizeof d->description, path, err, errlen) ||
      get_string(root, "part", d->part, sizeof d->part, path, err, errlen))
    return -1;
  if (!cited(sources, "part")) return fail(err, errlen, path, "part", "no source cited in \"sources\"");
  if (load_numbers(root, sources, d, path, err, errlen) || load_bram(root, sources, d, path, err, errlen) ||
      load_operators(root, d, path, err, errlen))
    return -1;
  return 0;
}

int cgp_fpga_device_load_file(const char *path, cgp_fpga_device *dev, char *err, size_t errlen) {
  char *text = NULL;
  size_t len = 0;
  if (cgp_read_regular_file(path, FPGA_FILE_CAP_BYTES, &text, &len, err, errlen) != 0) return -1;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  int rc;
  if (!root || !cJSON_IsObject(root)) {
    unsigned line = 1, col = 1;
    for (const char *p = text; end && p < end && *p; p++) {
      if (*p == '\n') { line++; col = 1; } else col++;
    }
    snprintf(err, errlen, "%s:%u:%u: not a valid JSON object", path, line, col);
    rc = -1;
  } else {
    memset(dev, 0, sizeof *dev);
    rc = load_root(root, dev, path, err, errlen);
  }
  cJSON_Delete(root);
  free(text);
  return rc;
}

int cgp_device_name_is_fpga(const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.json", cgp_devices_dir(), name);
  return !strchr(name, '/') && cgp_device_file_is_fpga(path);
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t cgp_fpga_device_all_names(char ***names) {
  *names = NULL;
  DIR *dir = opendir(cgp_devices_dir());
  if (!dir) return 0;
  size_t n = 0;
  char path[4096];
  for (struct dirent *e; (e = readdir(dir));) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    if (len >= 12 && strcmp(e->d_name + len - 12, ".schema.json") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", cgp_devices_dir(), e->d_name);
    if (!cgp_device_file_is_fpga(path)) continue;
    char **bigger = realloc(*names, (n + 1) * sizeof **names);
    if (!bigger) break;
    *names = bigger;
    if (!((*names)[n] = strndup(e->d_name, len - 5))) break;
    n++;
  }
  closedir(dir);
  if (n) qsort(*names, n, sizeof **names, cmp_names);
  return n;
}

int cgp_fpga_device_find(const char *name, cgp_fpga_device *dev, char *err, size_t errlen) {
  char path[4096];
  if (!*name || strchr(name, '/')) {
    snprintf(err, errlen, "'%s' is not a device name", name);
    return -1;
  }
  snprintf(path, sizeof path, "%s/%s.json", cgp_devices_dir(), name);
  if (access(path, F_OK) == 0) {
    if (!cgp_device_file_is_fpga(path)) {
      snprintf(err, errlen, "%s: '%s' is not an FPGA device (no \"kind\": \"fpga\")", path, name);
      return -1;
    }
    return cgp_fpga_device_load_file(path, dev, err, errlen);
  }
  char **names;
  size_t n = cgp_fpga_device_all_names(&names), used;
  used = (size_t)snprintf(err, errlen, "unknown FPGA device '%s' (known:", name);
  for (size_t i = 0; i < n && used < errlen; i++) used += (size_t)snprintf(err + used, errlen - used, " %s", names[i]);
  if (used < errlen) snprintf(err + used, errlen - used, "%s)", n ? "" : " none");
  cgp_device_names_free(names, n);
  return -1;
}

double cgp_fpga_budget_ns(const cgp_fpga_device *d) {
  return 1000.0 / d->clock_mhz * (1.0 - d->clock_uncertainty_pct / 100.0);
}

const cgp_fpga_impl *cgp_fpga_pick_impl(const cgp_fpga_device *d, cgp_fpga_opkind op, cgp_fpga_type type,
                                        unsigned width, double budget_ns) {
  /* the width: the narrowest table width >= the asked one, else the widest */
  unsigned best_w = 0, widest = 0;
  for (unsigned i = 0; i < d->n_impls; i++) {
    const cgp_fpga_impl *m = &d->impls[i];
    if (m->op != op || m->type != type) continue;
    if (m->width > widest) widest = m->width;
    if (m->width >= width && (!best_w || m->width < best_w)) best_w = m->width;
  }
  if (!widest) return NULL;
  if (!best_w) best_w = widest;
  const cgp_fpga_impl *fit = NULL, *fastest = NULL;
  for (unsigned i = 0; i < d->n_impls; i++) {
    const cgp_fpga_impl *m = &d->impls[i];
    if (m->op != op || m->type != type || m->width != best_w) continue;
    if (m->delay_ns <= budget_ns && (!fit || m->latency < fit->latency)) fit = m;
    if (!fastest || m->delay_ns < fastest->delay_ns) fastest = m;
  }
  return fit ? fit : fastest;
}
