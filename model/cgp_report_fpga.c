/* cgp_report_fpga.c: a run's FPGA predictions (docs/model.md 11.14). Each kernel's nest, carried
   from the build (the report kernel's "fpga_nest", cgp_fpga_kernel.h), is estimated on each FPGA
   with the trip counts the run measured for the loops mapped to threads, and the off-chip traffic
   the trace measured (the kernel's "host" bytes and ranges) is added: a design that can hold the
   kernel's data in block RAM copies it in, computes, copies it out; one that cannot streams it,
   overlapping at best. */
#include "cgp_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_fpga_kernel.h"
#include "cgp_json.h"

void cgp_report_fpga_run_trips(const cJSON *kernel, uint64_t *trips) {
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(kernel, "threads_extent");
  int dims = (int)cgp_json_num(kernel, "dims", 0);
  for (int l = 0; l < CGP_FPGA_MAX_LOOPS; l++) {
    const cJSON *e = l < dims && l < 3 ? cJSON_GetArrayItem(ext, dims - 1 - l) : NULL;
    trips[l] = cJSON_IsNumber(e) && e->valuedouble >= 1 && e->valuedouble <= 9007199254740992.0
               ? (uint64_t)e->valuedouble : 0;
  }
}

/* The mapped loops whose trip count is not static take the run's; a bit per loop given. */
static unsigned run_trips(const cJSON *kernel, cgp_fpga_result *r, cgp_fpga_nest *n) {
  uint64_t t[CGP_FPGA_MAX_LOOPS];
  unsigned given = 0;
  cgp_report_fpga_run_trips(kernel, t);
  for (unsigned l = 0; l < n->n_loops; l++)
    if (!n->loops[l].trips && t[l]) n->loops[l].trips = r->trips[l] = t[l], given |= 1u << l;
  return given;
}

static cJSON *unknown(const char *device, const char *note) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "device", device);
  cJSON_AddStringToObject(p, "kind", "fpga");
  cJSON_AddStringToObject(p, "note", note);
  return p;
}

/* The off-chip part: {bytes_read, bytes_written, ranges, cycles, bytes_per_cycle, buffered,
   buffer_bram18k}; *cycles the off-chip cycles, *buffered 1 when the data fits beside the design. */
static cJSON *offchip_json(const cgp_fpga_device *d, const cJSON *host, const cgp_fpga_result *r,
                           uint64_t *cycles, int *buffered) {
  const cgp_fpga_estimate *e = &r->est;
  uint64_t br = (uint64_t)cgp_json_num(host, "bytes_read", 0), bw = (uint64_t)cgp_json_num(host, "bytes_written", 0);
  uint64_t rr = (uint64_t)cgp_json_num(host, "ranges_read", 0), rw = (uint64_t)cgp_json_num(host, "ranges_written", 0);
  *cycles = cgp_fpga_offchip_cycles(d, br, rr) + cgp_fpga_offchip_cycles(d, bw, rw);
  uint64_t buf = cgp_fpga_buffer_bram18k(d, br + bw), banks = 0;
  for (unsigned a = 0; a < r->n_arrays; a++)     /* a partitioned buffer: a BRAM18K per bank at least */
    if (!r->on_chip[a] && (r->design.part[a] == CGP_PART_CYCLIC || r->design.part[a] == CGP_PART_BLOCK))
      banks += r->design.factor[a];
  if (banks > buf) buf = banks;
  *buffered = e->bram18k + buf <= d->bram18k;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "bytes_read", (double)br);
  cJSON_AddNumberToObject(o, "ranges_read", (double)rr);
  cJSON_AddNumberToObject(o, "bytes_written", (double)bw);
  cJSON_AddNumberToObject(o, "ranges_written", (double)rw);
  cJSON_AddNumberToObject(o, "bytes_per_cycle", cgp_fpga_offchip_bytes_per_cycle(d));
  cJSON_AddNumberToObject(o, "cycles", (double)*cycles);
  cJSON_AddNumberToObject(o, "ms", *cycles / (d->clock_mhz * 1e3));
  cJSON_AddNumberToObject(o, "buffer_bram18k", (double)buf);
  cJSON_AddBoolToObject(o, "buffered", *buffered);
  const cJSON *fn = cJSON_GetObjectItemCaseSensitive(host, "footprint_note");
  if (cJSON_IsString(fn)) cJSON_AddStringToObject(o, "note", fn->valuestring);
  return o;
}

static cJSON *predict_one(const cgp_fpga_device *d, const cJSON *kernel) {
  const cJSON *carried = cJSON_GetObjectItemCaseSensitive(kernel, "fpga_nest");
  const cJSON *cnote = cJSON_GetObjectItemCaseSensitive(carried, "note");
  if (!carried)
    return unknown(d->name, "no FPGA estimate: the program was built by a cgpredict without the FPGA side; rebuild it");
  if (cJSON_IsString(cnote)) return unknown(d->name, cnote->valuestring);
  cgp_fpga_result *r = calloc(1, sizeof *r);
  cgp_fpga_store *s = calloc(1, sizeof *s);
  cgp_fpga_nest n;
  char err[1024], note[1200];
  cJSON *p = NULL;
  if (!r || !s) {
    free(r);
    free(s);
    return unknown(d->name, "no FPGA estimate: out of memory");
  }
  if (cgp_fpga_kernel_from_json(carried, r, &n, s, err, sizeof err)) {
    snprintf(note, sizeof note, "no FPGA estimate: the report's %s", err);
    p = unknown(d->name, note);
  } else {
    r->trips_given = run_trips(kernel, r, &n);
    if (cgp_fpga_result_estimate(d, &n, r, err, sizeof err)) {
      snprintf(note, sizeof note, "no FPGA estimate: %s", err);
      p = unknown(d->name, note);
    }
  }
  if (!p && !r->est.known) {
    p = unknown(d->name, "no FPGA time: a loop's trip count is neither static nor measured (only the loops the "
                "kernel maps to threads take the run's)");
    cJSON_AddItemToObject(p, "estimate", cgp_fpga_result_json(d, r));
  }
  if (!p) {
    double launches = cgp_json_num(kernel, "launches", 1);
    uint64_t off;
    int buffered;
    p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "device", d->name);
    cJSON_AddStringToObject(p, "kind", "fpga");
    cJSON *oj = offchip_json(d, cJSON_GetObjectItemCaseSensitive(kernel, "host"), r, &off, &buffered);
    double compute = (double)r->est.cycles * (launches > 0 ? launches : 1);
    double cycles = buffered ? compute + (double)off : (compute > (double)off ? compute : (double)off);
    cJSON_AddNumberToObject(p, "time_ms", cycles / (d->clock_mhz * 1e3));
    cJSON_AddNumberToObject(p, "cycles", cycles);
    cJSON_AddNumberToObject(p, "compute_ms", compute / (d->clock_mhz * 1e3));
    cJSON_AddNumberToObject(p, "launches", launches);
    cJSON_AddStringToObject(p, "bound", buffered ? "compute and copies" : compute >= (double)off ? "compute" : "off-chip memory");
    cJSON_AddItemToObject(p, "offchip", oj);
    char design[512];
    cgp_fpga_design_text(r, design, sizeof design);
    cJSON_AddStringToObject(p, "design", design);
    if (r->trips_given) {
      char t[512];
      size_t w = 0;
      for (unsigned l = 0; l < r->n_loops; l++)
        if (r->trips_given & (1u << l) && w < sizeof t)
          w += (size_t)snprintf(t + w, sizeof t - w, "%s%s %llu", w ? ", " : "", r->names[l],
                                (unsigned long long)r->trips[l]);
      cJSON_AddStringToObject(p, "trips_from_run", t);
    }
    cJSON_AddItemToObject(p, "estimate", cgp_fpga_result_json(d, r));
  }
  cgp_fpga_store_free(s);
  free(s);
  free(r);
  return p;
}

int cgp_report_predict_fpga(cJSON *report, const cgp_fpga_device *devs, size_t n) {
  cJSON *kernel;
  cJSON_ArrayForEach(kernel, cJSON_GetObjectItemCaseSensitive(report, "kernels")) {
    cJSON *preds = cJSON_GetObjectItemCaseSensitive(kernel, "predictions");
    if (!preds) preds = cJSON_AddArrayToObject(kernel, "predictions");
    if (!preds) return -1;
    for (size_t d = 0; d < n; d++) {
      cJSON *p = predict_one(&devs[d], kernel);
      if (!p) return -1;
      cJSON_AddItemToArray(preds, p);
    }
  }
  return 0;
}

size_t cgp_report_fpga_devices(const cJSON *report, char ***names) {
  *names = NULL;
  size_t n = 0;
  const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "kernels"), 0), *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(p, "kind"), *dev = cJSON_GetObjectItemCaseSensitive(p, "device");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "fpga") || !cJSON_IsString(dev)) continue;
    char **bigger = realloc(*names, (n + 1) * sizeof **names), *copy = strdup(dev->valuestring);
    if (!bigger || !copy) {
      free(copy);
      if (bigger) *names = bigger;
      break;
    }
    *names = bigger;
    (*names)[n++] = copy;
  }
  return n;
}

int cgp_report_is_fpga(const cJSON *prediction) {
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(prediction, "kind");
  return cJSON_IsString(kind) && !strcmp(kind->valuestring, "fpga");
}
