/* cgp_offload.c: is offloading worth it? The kernel's predicted time, the copies a CUDA port makes
   over the device's host link, against the time the CPU took for the nest (docs/model.md
   section 12).

   offload_ms = time_ms + host_sync_ms + copy(in) + copy(out)
   copy(bytes, copies) = copies x latency + bytes / bandwidth      (0 on a board whose GPU shares
                                                                     the host's DRAM)
   speedup = cpu_ms / offload_ms: worth offloading when above 1.

   The bandwidth is that of cudaMemcpy from memory malloc gave (pageable), as a port of the C
   program copies its arrays, where the device file has it; else the link's (pinned) bandwidth,
   and the prediction lists "pageable host copies" as not modelled. The pinned figure is given
   beside it: what cudaMallocHost would buy. */
#include <math.h>
#include <string.h>

#include "cgp_json.h"
#include "cgp_report.h"

double cgp_copy_ms(double bytes, double copies, double bandwidth, double latency_s) {
  if (!(bytes > 0)) return 0;
  double s = copies * latency_s + (bandwidth > 0 ? bytes / bandwidth : 0);
  return s * 1e3;
}

void cgp_offload_estimate(const cgp_device *d, const cgp_host_data *h, double gpu_ms, cgp_offload *o) {
  memset(o, 0, sizeof *o);
  o->gpu_ms = gpu_ms;
  o->cpu_ms = h->cpu_ms;
  o->shared_dram = !strcmp(d->host_link_kind, "shared_memory");
  if (!o->shared_dram) {
    double bw = d->host_link_bandwidth_bytes_per_s, lat = d->host_link_latency_s;
    double to = d->host_link_pageable_to_bytes_per_s > 0 ? d->host_link_pageable_to_bytes_per_s : bw;
    double from = d->host_link_pageable_from_bytes_per_s > 0 ? d->host_link_pageable_from_bytes_per_s : bw;
    o->in_ms = cgp_copy_ms(h->bytes_in, h->copies_in, to, lat);
    o->out_ms = cgp_copy_ms(h->bytes_out, h->copies_out, from, lat);
    o->pinned_ms = cgp_copy_ms(h->bytes_in, h->copies_in, bw, lat) + cgp_copy_ms(h->bytes_out, h->copies_out, bw, lat);
    o->link_unknown = !(bw > 0);
    o->pageable_unknown = !(d->host_link_pageable_to_bytes_per_s > 0 && d->host_link_pageable_from_bytes_per_s > 0);
  }
  o->transfer_ms = o->in_ms + o->out_ms;
  o->offload_ms = gpu_ms + o->transfer_ms;
  o->speedup = h->cpu_ms > 0 && o->offload_ms > 0 ? h->cpu_ms / o->offload_ms : 0;
}

const char *cgp_offload_verdict(const cgp_offload *o) {
  if (!(o->cpu_ms > 0)) return "unknown";
  return o->speedup > 1 ? "offload" : "stay on the CPU";
}

/* ---- the report's side ----------------------------------------------------------------------- */

int cgp_host_data_from_json(const cJSON *host, cgp_host_data *h) {
  memset(h, 0, sizeof *h);
  if (!cJSON_IsObject(host)) return -1;
  h->bytes_in = cgp_json_num(host, "bytes_read", 0);
  h->bytes_out = cgp_json_num(host, "bytes_written", 0);
  h->copies_in = cgp_json_num(host, "ranges_read", 0);
  h->copies_out = cgp_json_num(host, "ranges_written", 0);
  h->cpu_ms = cgp_json_num(host, "cpu_ms", 0);
  return 0;
}

cJSON *cgp_offload_to_json(const cgp_offload *o) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "gpu_ms", o->gpu_ms);
  cJSON_AddNumberToObject(j, "transfer_ms", o->transfer_ms);
  cJSON_AddNumberToObject(j, "to_device_ms", o->in_ms);
  cJSON_AddNumberToObject(j, "from_device_ms", o->out_ms);
  cJSON_AddNumberToObject(j, "transfer_pinned_ms", o->pinned_ms);
  cJSON_AddNumberToObject(j, "offload_ms", o->offload_ms);
  if (o->cpu_ms > 0) {
    cJSON_AddNumberToObject(j, "cpu_ms", o->cpu_ms);
    cJSON_AddNumberToObject(j, "speedup", o->speedup);
  }
  cJSON_AddStringToObject(j, "verdict", cgp_offload_verdict(o));
  cJSON_AddStringToObject(j, "transfers", o->shared_dram ? "none: the GPU shares the host's DRAM"
                                          : o->link_unknown ? "not modelled: the device file gives no host link bandwidth"
                                          : o->pageable_unknown ? "at the link's pinned bandwidth (no pageable copy measured for this device)"
                                                                : "cudaMemcpy from pageable (malloc'd) memory");
  return j;
}

int cgp_report_offload(cJSON *report, const cgp_device *devs, size_t ndev) {
  cgp_host_data prog;
  int have_prog = cgp_host_data_from_json(cJSON_GetObjectItemCaseSensitive(report, "host"), &prog) == 0;
  cJSON_DeleteItemFromObjectCaseSensitive(report, "offload");
  cJSON *list = cJSON_AddArrayToObject(report, "offload");
  if (!list) return -1;
  for (size_t d = 0; d < ndev; d++) {
    double gpu = 0, cpu = 0;
    int cpu_known = 1, any = 0, gpu_known = 1;
    cJSON *k, *p;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(report, "kernels")) {
      cgp_host_data h;
      int have = cgp_host_data_from_json(cJSON_GetObjectItemCaseSensitive(k, "host"), &h) == 0;
      cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
        const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device"));
        if (!dev || strcmp(dev, devs[d].name)) continue;
        if (!cgp_report_has_time(p)) {              /* the program's GPU time is not known either */
          gpu_known = 0;
          continue;
        }
        double g = cgp_json_num(p, "time_ms", 0) + cgp_json_num(p, "host_sync_ms", 0);
        gpu += g;
        any = 1;
        if (!have) { cpu_known = 0; continue; }
        if (!(h.cpu_ms > 0)) cpu_known = 0;
        cpu += h.cpu_ms;
        cgp_offload o;
        cgp_offload_estimate(&devs[d], &h, g, &o);
        cJSON_DeleteItemFromObjectCaseSensitive(p, "offload");
        cJSON_AddItemToObject(p, "offload", cgp_offload_to_json(&o));
      }
    }
    if (!any || !have_prog || !gpu_known) continue;
    prog.cpu_ms = cpu_known ? cpu : 0;
    cgp_offload o;
    cgp_offload_estimate(&devs[d], &prog, gpu, &o);
    cJSON *j = cgp_offload_to_json(&o);
    cJSON_AddStringToObject(j, "device", devs[d].name);
    cJSON_AddItemToArray(list, j);
  }
  return 0;
}

/* One line per device of the report's "offload": the answer, then the numbers behind it. */
void cgp_report_print_offload(FILE *f, const cJSON *report) {
  const cJSON *o;
  const cJSON *host = cJSON_GetObjectItemCaseSensitive(report, "host");
  double mb = (cgp_json_num(host, "bytes_read", 0) + cgp_json_num(host, "bytes_written", 0)) / 1e6;
  cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(report, "offload")) {
    const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "device"));
    const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "verdict"));
    char gpu[32], tr[32], cpu[32], pin[32];
    cgp_report_format_ms(gpu, sizeof gpu, cgp_json_num(o, "gpu_ms", 0));
    cgp_report_format_ms(tr, sizeof tr, cgp_json_num(o, "transfer_ms", 0));
    cgp_report_format_ms(cpu, sizeof cpu, cgp_json_num(o, "cpu_ms", 0));
    cgp_report_format_ms(pin, sizeof pin, cgp_json_num(o, "transfer_pinned_ms", 0));
    if (!dev || !verdict) continue;
    if (!strcmp(verdict, "unknown")) {
      char off[32];
      cgp_report_format_ms(off, sizeof off, cgp_json_num(o, "offload_ms", 0));
      fprintf(f, "  offload, %s: kernels %s ms + copies %s ms: worth it if the CPU takes more than %s ms (its time "
              "was not measured: see the kernels' host.cpu_note)\n", dev, gpu, tr, off);
      continue;
    }
    fprintf(f, "  offload, %s: %s (%.2fx): kernels %s ms + copies %s ms against the CPU's %s ms", dev,
            !strcmp(verdict, "offload") ? "worth it" : "stay on the CPU", cgp_json_num(o, "speedup", 0), gpu, tr, cpu);
    double pinned = cgp_json_num(o, "gpu_ms", 0) + cgp_json_num(o, "transfer_pinned_ms", 0);
    if (cgp_json_num(o, "transfer_ms", 0) > 0)
      fprintf(f, "; %.1f MB copied, %s", mb, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "transfers")));
    else
      fprintf(f, "; %s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "transfers")));
    if (cgp_json_num(o, "transfer_pinned_ms", 0) < 0.99 * cgp_json_num(o, "transfer_ms", 0) && pinned > 0)
      fprintf(f, "; from pinned host memory (cudaMallocHost) copies %s ms, %.2fx", pin,
              cgp_json_num(o, "cpu_ms", 0) / pinned);
    fprintf(f, "\n");
  }
}
