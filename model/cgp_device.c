/* cgp_device.c: device files. A device file is a JSON object of numbers and strings, one field
   per parameter, and a "sources" object that cites, for every numeric field, where the number
   comes from (datasheet, whitepaper, microbenchmark paper). A field without a source is an
   error: no device number enters the model uncited. */
#include "cgp_model.h"
#include "cgp_file.h"
#include "cgp_fpga.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CGP_DEVICES_DIR
#define CGP_DEVICES_DIR "devices"
#endif

/* Field kinds. Counts are JSON numbers with no fractional part that fit their C type
   (F_UINT: 0 .. 2^32 - 1; F_U64: 0 .. 2^53, the integers a JSON number holds exactly). */
typedef enum { F_UINT, F_U64, F_DOUBLE, F_BOOL } ftype;

/* Constraints beyond the type: positive (> 0) or non-negative; a power of two; optional (may be
   absent, left 0). Every field present needs a string in "sources" under its key. */
enum { POS = 1, NONNEG = 2, POW2 = 4, OPT = 8 };

/* Plausibility bounds (issue 31 item 11): a value outside them is no GPU's but a typo or a hostile
   file, whose predictions printed 300-digit times or inf. Each is orders of magnitude beyond any
   GPU made (the largest have 144 SMs, 2048 threads per SM, clocks of 2.6 GHz, 8 TB/s of DRAM
   bandwidth, latencies of a few hundred cycles), so no real device is refused. A nonzero value of
   a field where 0 means "not modelled" must be within them too. devices/device.schema.json says
   the same. */
#define COUNT_MAX 1048576.0          /* SMs, lanes, threads, blocks, warps, ways, sets, line bytes */
#define WORDS_MAX 4294967295.0       /* registers and byte sizes: the unsigned 32-bit counts */
#define HZ_MIN 1e6                   /* clocks: 1 MHz to 100 GHz */
#define HZ_MAX 1e11
#define CYCLES_MIN 1e-3              /* latencies, delays and cycles per instruction */
#define CYCLES_MAX 1e7
#define BPS_MIN 1e6                  /* bandwidths: 1 MB/s to 10 PB/s */
#define BPS_MAX 1e16
#define LAUNCH_CYCLES_MAX 1e10       /* a launch's fixed cost: seconds at any clock above */
#define SECONDS_MAX 1.0              /* host costs per launch or transfer */

typedef struct {
  const char *key;
  ftype type;
  size_t offset;
  unsigned flags;
  double lo, hi;             /* bounds of a nonzero value */
} field;

#define U(k, f) {#k, F_UINT, offsetof(cgp_device, k), f, 1, COUNT_MAX}
#define W(k, f) {#k, F_UINT, offsetof(cgp_device, k), f, 1, WORDS_MAX}
#define D(k, f, lo, hi) {#k, F_DOUBLE, offsetof(cgp_device, k), f, lo, hi}
#define CYC(k) D(k, POS, CYCLES_MIN, CYCLES_MAX)
static const field fields[] = {
  U(no_sm, POS), U(cores_per_sm, POS), U(schedulers_per_sm, POS), U(issue_per_scheduler, POS), U(warp_size, POS),
  D(freq_hz, POS, HZ_MIN, HZ_MAX), D(dram_freq_hz, POS | OPT, HZ_MIN, HZ_MAX),
  U(max_threads_per_sm, POS), U(max_threads_per_block, POS), U(max_blocks_per_sm, POS), U(max_warps_per_sm, POS),
  W(regs_per_sm, POS), U(max_regs_per_thread, POS), W(smem_per_sm, POS), W(smem_per_block, POS),
  W(l1_smem_unified_bytes, POS | OPT),
  U(fp32_lanes, POS), U(fp64_lanes, POS), U(int_lanes, POS), U(sfu_lanes, POS),
  W(l1_bytes, POS), U(l1_line_bytes, POS | POW2), U(l1_sector_bytes, POS | POW2), U(l1_assoc, POS),
  U(l1_sets, POS | POW2 | OPT), {"l1_caches_global", F_BOOL, offsetof(cgp_device, l1_caches_global), 0, 0, 0},
  CYC(lat_l1),
  {"l2_bytes", F_U64, offsetof(cgp_device, l2_bytes), POS, 1, 9007199254740992.0}, U(l2_line_bytes, POS | POW2),
  U(l2_sector_bytes, POS | POW2), U(l2_assoc, POS), U(l2_sets, POS | POW2 | OPT),
  CYC(lat_smem), CYC(lat_l2), CYC(lat_dram), CYC(smem_load_const), CYC(dd_l2), CYC(dd_dram),
  CYC(inst_cycle), D(dram_bandwidth_bytes_per_s, POS, BPS_MIN, BPS_MAX), U(smem_banks, POS),
  U(smem_bank_bytes, POS | POW2),
  D(launch_overhead_cycles, NONNEG, CYCLES_MIN, LAUNCH_CYCLES_MAX),
  {"l2_keep_bytes", F_U64, offsetof(cgp_device, l2_keep_bytes), NONNEG | OPT, 1, 9007199254740992.0},
  D(l2_read_bandwidth_bytes_per_s, NONNEG | OPT, BPS_MIN, BPS_MAX),
  D(l2_write_bandwidth_bytes_per_s, NONNEG | OPT, BPS_MIN, BPS_MAX),
  D(host_sync_launch_s, NONNEG | OPT, 1e-9, SECONDS_MAX), U(smem_load_vector_bytes, POS | POW2 | OPT),
  {"load_overlap", F_UINT, offsetof(cgp_device, load_overlap), POS | OPT, 1, 64},
};
#undef U
#undef W
#undef D
#undef CYC

static void bounds_text(const field *f, char *out, size_t n) {
  snprintf(out, n, "expected %s%g to %g%s", f->flags & NONNEG ? "0 or " : "", f->lo, f->hi,
           f->type == F_DOUBLE ? "" : " (a whole number)");
}

const char *cgp_devices_dir(void) {
  const char *e = getenv("CGPREDICT_DEVICES_DIR");
  return e && *e ? e : CGP_DEVICES_DIR;
}

/* A device file is a few KB of JSON: 1 MiB is far above any real one and bounds what a wrong path
   (a log, /dev/zero) can cost. */
#define DEVICE_FILE_CAP_BYTES ((size_t)1 << 20)

/* The file's text, or NULL with err naming it: a regular file of at most DEVICE_FILE_CAP_BYTES
   only (cgp_file.h: a FIFO, device or directory is refused at once, never read or waited on). */
static char *slurp(const char *path, char *err, size_t errlen) {
  char *buf = NULL;
  size_t len = 0;
  if (cgp_read_regular_file(path, DEVICE_FILE_CAP_BYTES, &buf, &len, err, errlen) != 0) return NULL;
  /* JSON text has no NUL, and a string's \u0000 would end it early in silence (cJSON's strings
     are C strings): both refused, so what the loader reads is all the file says */
  const char *esc = strstr(buf, "\\u0000");
  if (strlen(buf) != len || esc) {
    snprintf(err, errlen, "%s: byte %zu: %s", path, esc ? (size_t)(esc - buf) : strlen(buf),
             esc ? "a \\u0000 (NUL) in a string" : "a NUL byte (a device file is JSON text)");
    free(buf);
    return NULL;
  }
  return buf;
}

/* Line and column of a position in text, for JSON syntax errors. */
static void position(const char *text, const char *at, unsigned *line, unsigned *col) {
  *line = 1; *col = 1;
  for (const char *p = text; p < at && *p; p++) {
    if (*p == '\n') { (*line)++; *col = 1; } else (*col)++;
  }
}

static int fail(char *err, size_t errlen, const char *path, const char *key, const char *why) {
  snprintf(err, errlen, "%s: field \"%s\": %s", path, key, why);
  return -1;
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static int has_source(const cJSON *sources, const char *key) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(sources, key);
  return cJSON_IsString(s) && s->valuestring[0];
}

static int load_field(const cJSON *root, const cJSON *sources, const field *f, cgp_device *dev,
                      const char *path, char *err, size_t errlen) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, f->key);
  char *dst = (char *)dev + f->offset;
  if (!v) return f->flags & OPT ? 0 : fail(err, errlen, path, f->key, "missing");
  if (f->type == F_BOOL) {
    if (!cJSON_IsBool(v)) return fail(err, errlen, path, f->key, "expected true or false");
    *(int *)dst = cJSON_IsTrue(v);
  } else {
    const char *want = f->flags & POS ? "expected a positive number" : "expected a non-negative number";
    if (!cJSON_IsNumber(v)) return fail(err, errlen, path, f->key, want);
    double x = v->valuedouble;
    if (!isfinite(x) || (f->flags & POS ? !(x > 0) : !(x >= 0))) return fail(err, errlen, path, f->key, want);
    if (f->type != F_DOUBLE && x != floor(x)) return fail(err, errlen, path, f->key, "expected a whole number");
    if (f->type == F_UINT && x > 4294967295.0)
      return fail(err, errlen, path, f->key, "does not fit an unsigned 32-bit count (at most 4294967295)");
    if (f->type == F_U64 && x > 9007199254740992.0)
      return fail(err, errlen, path, f->key, "too large (at most 2^53)");
    if (x != 0 && (x < f->lo || x > f->hi)) {
      char why[160];
      bounds_text(f, why, sizeof why);
      snprintf(why + strlen(why), sizeof why - strlen(why), "; %g is no GPU's", x);
      return fail(err, errlen, path, f->key, why);
    }
    if (f->flags & POW2 && !is_pow2((uint64_t)x)) return fail(err, errlen, path, f->key, "expected a power of two");
    if (f->type == F_UINT) *(unsigned *)dst = (unsigned)x;
    else if (f->type == F_U64) *(uint64_t *)dst = (uint64_t)x;
    else *(double *)dst = x;
  }
  if (!has_source(sources, f->key)) return fail(err, errlen, path, f->key, "no source cited in \"sources\"");
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

/* A device's name is a file's name (<name>.json), an element of the comma-separated
   CGPREDICT_DEVICE, a key of the report and a column of a terminal table: letters, digits and
   . _ + - only, beginning with a letter or digit, at most 63 characters. */
static int valid_name(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))) return 0;
  size_t n = 0;
  for (; *s; s++, n++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
          *s == '_' || *s == '+' || *s == '-'))
      return 0;
  return n <= 63;
}

/* A control character (a terminal escape, a newline, \u007f) in a string the tool prints. */
static int has_control(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return 1;
  return 0;
}

/* Every string of the file the tool prints (name, description, indices, citations, host link
   kind) free of control characters; the first one that is not, named. */
static int check_strings(const cJSON *root, const char *path, char *err, size_t errlen) {
  const cJSON *it;
  cJSON_ArrayForEach(it, root) {
    if (cJSON_IsString(it) && has_control(it->valuestring))
      return fail(err, errlen, path, it->string, "a control character (a terminal escape, a line break) in the string");
    if (!cJSON_IsObject(it)) continue;
    const cJSON *s;
    cJSON_ArrayForEach(s, it) if (cJSON_IsString(s) && has_control(s->valuestring)) {
      char key[96];
      snprintf(key, sizeof key, "%.40s.%.40s", it->string, s->string);
      return fail(err, errlen, path, key, "a control character (a terminal escape, a line break) in the string");
    }
  }
  return 0;
}

static int is_index(const char *s) {
  return !strcmp(s, "fully_associative") || !strcmp(s, "modulo") || !strcmp(s, "xor");
}

/* One cache's geometry, as the analyzer builds it (analyzer/cgp_l2.c): a power-of-two line, a
   sector dividing it, a capacity of whole line x assoc groups; set-indexed: a power-of-two set
   count given in <c>_sets with sets x assoc x line = capacity; at most 2^29 lines. */
static int check_cache(const char *c, uint64_t bytes, unsigned line, unsigned sector, unsigned assoc,
                       unsigned sets, const char *index, const char *path, char *err, size_t errlen) {
  char key[32], why[160];
  if (line % sector) {
    snprintf(key, sizeof key, "%s_sector_bytes", c);
    snprintf(why, sizeof why, "%u does not divide the line (%u bytes)", sector, line);
    return fail(err, errlen, path, key, why);
  }
  if (bytes % ((uint64_t)line * assoc)) {
    snprintf(key, sizeof key, "%s_bytes", c);
    snprintf(why, sizeof why, "%llu is not a multiple of line x assoc = %llu", (unsigned long long)bytes,
             (unsigned long long)line * assoc);
    return fail(err, errlen, path, key, why);
  }
  if (bytes / line > (uint64_t)INT32_MAX / 4) {
    snprintf(key, sizeof key, "%s_bytes", c);
    return fail(err, errlen, path, key, "more lines than the analyzer can hold (2^29)");
  }
  snprintf(key, sizeof key, "%s_sets", c);
  if (strcmp(index, "fully_associative") != 0) {
    if (!sets) return fail(err, errlen, path, key, "missing (required when the cache is set-indexed)");
    if ((uint64_t)sets * assoc * line != bytes) {
      snprintf(why, sizeof why, "%u sets x %u ways x %u bytes is not the capacity %llu", sets, assoc, line,
               (unsigned long long)bytes);
      return fail(err, errlen, path, key, why);
    }
  } else if (sets) {
    return fail(err, errlen, path, key, "given for a fully associative cache (one set)");
  }
  return 0;
}

static int check_consistency(const cgp_device *d, const char *path, char *err, size_t errlen) {
  if (!is_index(d->l2_index)) return fail(err, errlen, path, "l2_index", "expected \"fully_associative\", \"modulo\" or \"xor\"");
  if (!is_index(d->l1_index)) return fail(err, errlen, path, "l1_index", "expected \"fully_associative\", \"modulo\" or \"xor\"");
  if (d->warp_size != 32) return fail(err, errlen, path, "warp_size", "expected 32 (the analyzer forms 32-thread warps)");
  if (d->max_threads_per_block > d->max_threads_per_sm)
    return fail(err, errlen, path, "max_threads_per_block", "more than max_threads_per_sm");
  if (d->max_threads_per_sm % d->warp_size) return fail(err, errlen, path, "max_threads_per_sm", "expected a multiple of warp_size");
  if ((uint64_t)d->max_warps_per_sm * d->warp_size < d->max_threads_per_sm)
    return fail(err, errlen, path, "max_warps_per_sm", "fewer warps than max_threads_per_sm / warp_size");
  if (d->smem_per_block > d->smem_per_sm) return fail(err, errlen, path, "smem_per_block", "more than smem_per_sm");
  if (d->l1_smem_unified_bytes && d->l1_smem_unified_bytes < d->smem_per_sm)
    return fail(err, errlen, path, "l1_smem_unified_bytes", "smaller than smem_per_sm");
  for (unsigned i = 0; i < d->n_smem_carveouts; i++)
    if (d->smem_carveout_bytes[i] > d->smem_per_sm)
      return fail(err, errlen, path, "smem_carveout_bytes", "a carve-out larger than smem_per_sm");
  if (check_cache("l1", d->l1_bytes, d->l1_line_bytes, d->l1_sector_bytes, d->l1_assoc, d->l1_sets, d->l1_index, path,
                  err, errlen) ||
      check_cache("l2", d->l2_bytes, d->l2_line_bytes, d->l2_sector_bytes, d->l2_assoc, d->l2_sets, d->l2_index, path,
                  err, errlen))
    return -1;
  if (d->smem_load_vector_bytes && (d->smem_load_vector_bytes < 4 || d->smem_load_vector_bytes > 16))
    return fail(err, errlen, path, "smem_load_vector_bytes", "not 4, 8 or 16");
  if (d->l2_keep_bytes > d->l2_bytes) return fail(err, errlen, path, "l2_keep_bytes", "more than l2_bytes");
  if (d->l2_keep_bytes && d->l2_keep_bytes < cgp_transaction_bytes(d))
    return fail(err, errlen, path, "l2_keep_bytes", "less than one L2 transaction (l2_sector_bytes)");
  if (d->l2_keep_bytes && strcmp(d->l2_index, "fully_associative") != 0)
    return fail(err, errlen, path, "l2_keep_bytes", "only with l2_index \"fully_associative\" (a set-indexed L2's capacity is its sets x ways)");
  return 0;
}

/* Optional "smem_carveout_bytes": the shared-memory sizes a unified L1 / shared pool allows,
   an array of at most 16 non-negative whole numbers; only with l1_smem_unified_bytes. */
static int load_carveouts(const cJSON *root, const cJSON *sources, cgp_device *dev, const char *path, char *err,
                          size_t errlen) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "smem_carveout_bytes");
  if (!a) return dev->l1_smem_unified_bytes ? fail(err, errlen, path, "smem_carveout_bytes", "missing (required with l1_smem_unified_bytes)") : 0;
  if (!dev->l1_smem_unified_bytes) return fail(err, errlen, path, "smem_carveout_bytes", "given without l1_smem_unified_bytes");
  int n = cJSON_GetArraySize(a);
  if (!cJSON_IsArray(a) || n < 1 || n > 16)
    return fail(err, errlen, path, "smem_carveout_bytes", "expected an array of 1 to 16 byte counts");
  for (int i = 0; i < n; i++) {
    const cJSON *v = cJSON_GetArrayItem(a, i);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble > 4294967295.0)
      return fail(err, errlen, path, "smem_carveout_bytes", "expected whole non-negative byte counts below 2^32");
    dev->smem_carveout_bytes[i] = (unsigned)v->valuedouble;
  }
  dev->n_smem_carveouts = (unsigned)n;
  if (!has_source(sources, "smem_carveout_bytes")) return fail(err, errlen, path, "smem_carveout_bytes", "no source cited in \"sources\"");
  return 0;
}

/* "host_link": {"kind": "pcie" | "nvlink" | "shared_memory", "bandwidth_bytes_per_s" >= 0,
   "latency_s" >= 0, optional "pageable_to_device_bytes_per_s", "pageable_from_device_bytes_per_s"
   (cudaMemcpy from and to memory malloc gave, which the driver stages through a pinned buffer);
   sources under "host_link.<field>" for each field present. */
static int load_host_link(const cJSON *root, const cJSON *sources, cgp_device *dev, const char *path, char *err,
                          size_t errlen) {
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "host_link");
  if (!h) return fail(err, errlen, path, "host_link", "missing");
  if (!cJSON_IsObject(h)) return fail(err, errlen, path, "host_link", "expected an object");
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(h, "kind");
  if (!k) return fail(err, errlen, path, "host_link.kind", "missing");
  if (!cJSON_IsString(k) || (strcmp(k->valuestring, "pcie") && strcmp(k->valuestring, "nvlink") &&
                             strcmp(k->valuestring, "shared_memory")))
    return fail(err, errlen, path, "host_link.kind", "expected \"pcie\", \"nvlink\" or \"shared_memory\"");
  snprintf(dev->host_link_kind, sizeof dev->host_link_kind, "%s", k->valuestring);
  enum { NKEYS = 4, NREQUIRED = 2 };
  const char *keys[NKEYS] = {"bandwidth_bytes_per_s", "latency_s", "pageable_to_device_bytes_per_s",
                             "pageable_from_device_bytes_per_s"};
  double *dst[NKEYS] = {&dev->host_link_bandwidth_bytes_per_s, &dev->host_link_latency_s,
                        &dev->host_link_pageable_to_bytes_per_s, &dev->host_link_pageable_from_bytes_per_s};
  char full[64];
  if (!has_source(sources, "host_link.kind")) return fail(err, errlen, path, "host_link.kind", "no source cited in \"sources\"");
  for (int i = 0; i < NKEYS; i++) {
    snprintf(full, sizeof full, "host_link.%s", keys[i]);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, keys[i]);
    *dst[i] = 0;
    if (!v && i >= NREQUIRED) continue;
    if (!v) return fail(err, errlen, path, full, "missing");
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
      return fail(err, errlen, path, full, "expected a non-negative number");
    double x = v->valuedouble, lo = i == 1 ? 1e-9 : BPS_MIN, hi = i == 1 ? SECONDS_MAX : BPS_MAX;
    if (x != 0 && (x < lo || x > hi)) {
      char why[160];
      snprintf(why, sizeof why, "expected 0 or %g to %g; %g is no GPU's", lo, hi, x);
      return fail(err, errlen, path, full, why);
    }
    *dst[i] = x;
    if (!has_source(sources, full)) return fail(err, errlen, path, full, "no source cited in \"sources\"");
  }
  cJSON *it;
  cJSON_ArrayForEach(it, h) {
    int known = !strcmp(it->string, "kind");
    for (int i = 0; i < NKEYS; i++) known |= !strcmp(it->string, keys[i]);
    if (known) continue;
    snprintf(full, sizeof full, "host_link.%.40s", it->string);
    return fail(err, errlen, path, full, "unknown field");
  }
  return 0;
}

/* Top-level keys the schema knows; anything else is a typo to refuse. */
static int known_key(const char *key) {
  static const char *const other[] = {"name", "description", "l2_index", "l1_index", "host_link",
                                      "smem_carveout_bytes", "sources", "$schema", "kind"};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    if (!strcmp(key, fields[i].key)) return 1;
  for (size_t i = 0; i < sizeof other / sizeof *other; i++)
    if (!strcmp(key, other[i])) return 1;
  return 0;
}

unsigned cgp_transaction_bytes(const cgp_device *d) {
  return d->l2_sector_bytes && d->l2_sector_bytes < d->l2_line_bytes ? d->l2_sector_bytes : d->l2_line_bytes;
}

uint64_t cgp_l2_capacity_bytes(const cgp_device *d) {
  uint64_t unit = cgp_transaction_bytes(d), bytes = d->l2_keep_bytes ? d->l2_keep_bytes : d->l2_bytes;
  return bytes / unit * unit;
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
  /* "kind": absent or "gpu" here; FPGA files are model/cgp_fpga_device.c's */
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
  if (!rc && kind && !(cJSON_IsString(kind) && !strcmp(kind->valuestring, "gpu")))
    rc = fail(err, errlen, path, "kind", cJSON_IsString(kind) && !strcmp(kind->valuestring, "fpga")
              ? "\"fpga\": an FPGA device, which GPU predictions do not take"
              : "expected \"gpu\" (or absent) for a GPU, \"fpga\" for an FPGA");
  if (!rc) rc = load_string(root, "name", dev->name, sizeof dev->name, path, err, errlen);
  if (!rc && !valid_name(dev->name))
    rc = fail(err, errlen, path, "name", "expected 1 to 63 letters, digits, '.', '_', '+' or '-', beginning with a letter "
              "or digit (it is a file's name, an element of CGPREDICT_DEVICE's list and a column of the summary: no "
              "comma, '/', space or control character)");
  if (!rc) rc = check_strings(root, path, err, errlen);
  if (!rc) rc = load_string(root, "description", dev->description, sizeof dev->description, path, err, errlen);
  const cJSON *it;
  cJSON_ArrayForEach(it, root) if (!rc && !known_key(it->string)) rc = fail(err, errlen, path, it->string, "unknown field");
  if (!rc) cJSON_ArrayForEach(it, sources) if (!rc && !(cJSON_IsString(it) && it->valuestring[0])) {
    char key[96];
    snprintf(key, sizeof key, "sources.%.80s", it->string);
    rc = fail(err, errlen, path, key, "expected a non-empty citation string");
  }
  if (!rc) rc = load_string(root, "l2_index", dev->l2_index, sizeof dev->l2_index, path, err, errlen);
  if (!rc) rc = load_string(root, "l1_index", dev->l1_index, sizeof dev->l1_index, path, err, errlen);
  if (!rc && (!has_source(sources, "l2_index") || !has_source(sources, "l1_index")))
    rc = fail(err, errlen, path, has_source(sources, "l2_index") ? "l1_index" : "l2_index", "no source cited in \"sources\"");
  for (size_t i = 0; !rc && i < sizeof fields / sizeof *fields; i++)
    rc = load_field(root, sources, &fields[i], dev, path, err, errlen);
  if (!rc) rc = load_carveouts(root, sources, dev, path, err, errlen);
  if (!rc) rc = load_host_link(root, sources, dev, path, err, errlen);
  if (!rc) rc = check_consistency(dev, path, err, errlen);
  cJSON_Delete(root);
  free(text);
  return rc;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A listed name the folder holds a GPU file for: <dir>/<name>.json, not the schema, not an FPGA
   (the names cgp_device_all_names gives). */
static int is_gpu_name(const char *name) {
  char path[4096];
  size_t len = strlen(name);
  if (strchr(name, '/') || (len >= 7 && strcmp(name + len - 7, ".schema") == 0)) return 0;
  snprintf(path, sizeof path, "%s/%s.json", cgp_devices_dir(), name);
  return access(path, F_OK) == 0 && !cgp_device_file_is_fpga(path);
}

/* The default set: <dir>/default-devices.txt (one name a line, '#' comments) when present,
   else every device file. Names that have no file are skipped. Only the listed names' files are
   read (the folder's every file, parsed to tell an FPGA from a GPU, was a tenth of what a small
   instrumented program spends outside its kernels: 2026-11-29). */
size_t cgp_device_names(char ***names) {
  char path[4096], *text = NULL, err[512];
  size_t len = 0, n = 0;
  snprintf(path, sizeof path, "%s/default-devices.txt", cgp_devices_dir());
  /* a regular file only, as device files: a FIFO there is never waited on */
  if (access(path, F_OK) != 0 || cgp_read_regular_file(path, DEVICE_FILE_CAP_BYTES, &text, &len, err, sizeof err) != 0)
    return cgp_device_all_names(names);
  *names = NULL;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *p = line, *e;
    while (*p == ' ' || *p == '\t') p++;
    for (e = p; *e && *e != '\r' && *e != '#' && *e != ' ' && *e != '\t'; e++) {}
    *e = '\0';
    if (!*p || !is_gpu_name(p)) continue;
    *names = realloc(*names, (n + 1) * sizeof **names);
    (*names)[n++] = strdup(p);
  }
  free(text);
  return n;
}

size_t cgp_device_all_names(char ***names) {
  *names = NULL;
  DIR *dir = opendir(cgp_devices_dir());
  if (!dir) return 0;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    if (len >= 12 && strcmp(e->d_name + len - 12, ".schema.json") == 0) continue; /* the schema, not a device */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", cgp_devices_dir(), e->d_name);
    if (cgp_device_file_is_fpga(path)) continue;                               /* an FPGA, not a GPU */
    *names = realloc(*names, (n + 1) * sizeof **names);
    (*names)[n] = strndup(e->d_name, len - 5);
    n++;
  }
  closedir(dir);
  qsort(*names, n, sizeof **names, cmp_names);
  return n;
}

/* Here, not in cgp_fpga_device.c: the GPU list skips FPGA files, and the FPGA loader calls this
   file's folder and list helpers, never the other way round. */
int cgp_device_file_is_fpga(const char *path) {
  char *text = NULL, err[256];
  size_t len = 0;
  if (cgp_read_regular_file(path, DEVICE_FILE_CAP_BYTES, &text, &len, err, sizeof err) != 0) return 0;
  cJSON *root = cJSON_Parse(text);
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "kind"));
  int fpga = kind && !strcmp(kind, "fpga");
  cJSON_Delete(root);
  free(text);
  return fpga;
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
  if (access(path, F_OK) == 0) {          /* never opened to look: a FIFO would block */
    if (cgp_device_load_file(path, dev, err, errlen) != 0) return -1;
    if (strcmp(dev->name, name) != 0) {   /* found by its file's name: two files cannot claim one name */
      char why[300];
      snprintf(why, sizeof why, "\"%s\" is not the file's name '%s' (a device is looked up by its file)", dev->name, name);
      return fail(err, errlen, path, "name", why);
    }
    return 0;
  }
  char **names;
  size_t n = cgp_device_all_names(&names), used;
  used = (size_t)snprintf(err, errlen, "unknown device '%s' (known:", name);
  for (size_t i = 0; i < n && used < errlen; i++) used += (size_t)snprintf(err + used, errlen - used, " %s", names[i]);
  if (used < errlen) snprintf(err + used, errlen - used, "%s)", n ? "" : " none");
  cgp_device_names_free(names, n);
  return -1;
}
