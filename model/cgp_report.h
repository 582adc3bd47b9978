/* cgp_report.h: the report, as JSON (cJSON), shared by the runtime (which writes it at program
   exit) and the driver (`cgpredict report`, which re-runs the model on a saved one).

   Schema "cgpredict-report/1.10" (docs/report.schema.json; 1.2 added runtime.kernels_note, run_id,
   trace.events, kernels' memory_note and partial; 1.3 kernels' launch_sampling_note, left_note,
   host, block_whatif and the memory sites' sector_bytes_per_warp_instruction, predictions'
   offload, the report's host and offload; 1.4 kernels' fpga_nest and FPGA predictions, "kind":
   "fpga", cgp_report_predict_fpga; samples' launch_grids; 1.5 kernels' privatized, step_note,
   runtime.step_note; 1.6 samples' windows and stop, stats' overlap_insts, predictions'
   mem_periods and mlp; 1.7 stats' merged_dram_pw, memory sites'
   local_memory and memory_note; 1.8 benign races; 1.9 samples' after_untraced and stand_in,
   kernels' l2_note; 1.10 dependences' extrapolated; 1.11 a GPU prediction of only device and note,
   where the run kept no warp of the kernel): { version, tool_version, kernels: [ { name, file, line, dims,
   launches, launches_sampled, grid, block, memory: [...], divergence, warnings,
   samples: [ { launch, weight, grid, blocks, total_warps, analysis: { <device>: stats } } ],
   predictions: [ { device, time_ms, cycles, mwp, cwp, n, b, batch, bound, ... } ] } ] }
   A sample is one analysed launch standing for `weight` launches; `stats` are the per-warp
   quantities of cgp_kernel_stats. Predictions are derived from samples and device files only. */
#ifndef CGP_REPORT_H
#define CGP_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "cgp_model.h"

/* The report's schema, docs/report.schema.json: MAJOR.MINOR; MINOR grows with added fields, MAJOR
   when a field goes or changes meaning. A reader takes every MINOR of its MAJOR ("cgpredict-report/1"
   is 1.0). */
#define CGP_REPORT_SCHEMA "cgpredict-report/1.11"
#define CGP_REPORT_SCHEMA_MAJOR "cgpredict-report/1"

/* An empty report: version fields and an empty "kernels" array. */
cJSON *cgp_report_new(const char *tool_version);
/* A sample's measured per-warp quantities as JSON, and back (0 on success; err names the field). */
cJSON *cgp_report_stats_to_json(const cgp_kernel_stats *s);
int cgp_report_stats_from_json(const cJSON *o, cgp_kernel_stats *s, char *err, size_t errlen);
/* Replace every kernel's "predictions" with one entry per device. Fails, naming the device,
   when a device was not analysed when the program ran (its L2 behaviour is not in the report). */
int cgp_report_predict(cJSON *report, const cgp_device *devs, size_t ndev, char *err, size_t errlen);
/* The offload decision (model/cgp_offload.c, docs/model.md section 12): every prediction of a
   kernel with a "host" object gets "offload", and the report a top-level "offload" list, one entry
   per device, for the program (its "host": copies once per program). Called by
   cgp_report_predict. */
int cgp_report_offload(cJSON *report, const cgp_device *devs, size_t ndev);
int cgp_host_data_from_json(const cJSON *host, cgp_host_data *h);
cJSON *cgp_offload_to_json(const cgp_offload *o);
/* The summary's lines of the program's offload decision, one per device. */
void cgp_report_print_offload(FILE *f, const cJSON *report);
/* FPGA predictions (model/cgp_report_fpga.c, docs/model.md 11.14): append to every kernel's
   "predictions" one entry per FPGA, {device, kind: "fpga", time_ms, cycles, compute_ms, bound,
   offchip, design, estimate} from the kernel's "fpga_nest", or {device, kind, note} when it has no
   time. Call after cgp_report_predict, which replaces the list. 0, or -1 out of memory. */
struct cgp_fpga_device;
int cgp_report_predict_fpga(cJSON *report, const struct cgp_fpga_device *devs, size_t n);
/* The trip counts a report kernel's run gives its nest's loops (0: none): the loops it maps to
   threads (dims(n): loops 0 .. n - 1, loop 0 the slowest) take threads_extent's (docs/model.md
   11.12, 11.14). trips has CGP_FPGA_MAX_LOOPS entries. */
void cgp_report_fpga_run_trips(const cJSON *kernel, uint64_t *trips);
/* The FPGAs a saved report predicted (the first kernel's "fpga" predictions), malloc'd. */
size_t cgp_report_fpga_devices(const cJSON *report, char ***names);
/* An FPGA prediction in words, as the summary and the page give it: "FPGA: <design>; compute ..
   ms, off-chip .. ms (.. B, copied in, then out); DSP .., BRAM18K .. + .. for the data", or
   "FPGA: <note>" (no time, or HLS's numbers). */
void cgp_report_fpga_text(const cJSON *prediction, char *buf, size_t cap);
/* 1 if a prediction is an FPGA's ("kind": "fpga"), whose fields are not a GPU's. */
int cgp_report_is_fpga(const cJSON *prediction);
/* 1 if a prediction has a time: a GPU's has none where nothing of its kernel could be analysed
   (then only "device" and "note"), an FPGA's where its note says why. */
int cgp_report_has_time(const cJSON *prediction);
/* Devices a saved report was analysed for (names of the first sample's "analysis"; with no sample,
   the GPUs of the first kernel's predictions), malloc'd. */
size_t cgp_report_devices(const cJSON *report, char ***names);
/* Write atomically (cgp_write_file_atomic: temporary file beside `path`, fsync, rename); nothing
   is left on failure; a symbolic link or special file at `path` is refused, never replaced. */
int cgp_report_write(const cJSON *report, const char *path, char *err, size_t errlen);
/* Parse and check a report held in memory (`name` is used in messages): JSON syntax errors give
   name:line:column, a failed allocation "out of memory", and every kernel must have a name and
   samples whose weight and stats are in range (the message names the kernel and field). */
int cgp_report_parse(const char *text, size_t len, const char *name, cJSON **report, char *err, size_t errlen);
/* Read (a regular file of at most CGP_FILE_CAP_BYTES, cgp_file.h) and check a saved report. */
int cgp_report_load(const char *path, cJSON **report, char *err, size_t errlen);
/* The report as one self-contained HTML page (model/cgp_html.c): summary, devices compared, per
   kernel the predictions, where the cycles go, the memory sites, the annotated source, the
   dependences and suggestions. *out is malloc'd (*len bytes); 0, or -1 with err. report_path
   names the report in the page and locates relative source files. */
int cgp_report_html(const cJSON *report, const char *report_path, char **out, size_t *len, char *err, size_t errlen);
/* That page written to `out` as reports are (cgp_file.h: whole or not at all, never through a link
   or into a special file), never over the report itself (cgp_same_file). 0, or -1 with err. */
int cgp_report_write_html(const cJSON *report, const char *report_path, const char *out, char *err, size_t errlen);
/* The table a person reads at a glance: kernel, device, time, bound, MWP/CWP, access classes. */
void cgp_report_print_summary(FILE *f, const cJSON *report, const char *path);

#endif
