/* cgpredict: the command users run.
     cgpredict build -- <cc command line>   compile, instrument the marked loop nests, link the runtime
     cgpredict cc <args>                    the same as `cgpredict build -- cc <args>` (for CC=)
     cgpredict report FILE [--device A,B|all] [--json]   re-run the model on a saved report; a device
                                            the run did not analyse is replayed from FILE.trace;
                                            --hls CSYNTH.xml adds a real HLS result (Vivado/Vitis)
     cgpredict devices [NAME]               the device database; one device with every field and source
     cgpredict fpga FILE.c [--device NAME] [--baseline|--search] [--json] [-- FLAGS]   FPGA estimate
                                            from the compiler alone
     cgpredict compare REPORT.json FILE.c [--fpga NAME] [--json]   GPU (the run) or FPGA, per kernel
   Every flag of the compiler command line is passed through; only the sources that hold a
   `#pragma cgpredict kernel` are compiled differently (driver/cgp_build.c). */
#include "cgp_build.h"
#include "cgp_compare.h"
#include "cgp_fpga_cmd.h"
#include "cgp_page_cmd.h"
#include "cgp_blocks_cmd.h"
#include "cgp_fpga.h"
#include "cgp_hls.h"
#include "cgp_model.h"
#include "cgp_report.h"
#include "cgp_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
  "usage: cgpredict build -- <compiler> [args...]\n"
  "       cgpredict build -- <build command> [args...]   (make, a script: its cc, gcc, clang,\n"
  "                                                       c++, g++, clang++ go through cgpredict)\n"
  "       cgpredict cc [args...]      cgpredict c++ [args...]   (C and C++ sources alike; as one\n"
  "                             word, cgpredict-cc and cgpredict-c++ beside cgpredict; any\n"
  "                             compiler in place of cc: gcc, clang-14, /usr/bin/cc, as CMake's\n"
  "                             -DCMAKE_C_COMPILER_LAUNCHER=cgpredict runs it)\n"
  "       cgpredict report FILE [--device NAME[,NAME...]|all] [--json] [--trace TRACE] [--html OUT.html]\n"
  "                             [--hls CSYNTH.xml]   (a Vivado/Vitis HLS report: the FPGA's real numbers)\n"
  "       cgpredict devices [NAME]\n"
  "       cgpredict fpga FILE.c [--device NAME] [--baseline | --search] [--json] [-- FLAGS...]\n"
  "                             (the FPGA estimate of the marked nests from the compiler alone: the\n"
  "                             pragma's fpga(...) design, else the search's; --baseline: HLS's baseline)\n"
  "       cgpredict compare REPORT.json FILE.c [--fpga NAME] [--json] [-- FLAGS...]\n"
  "                             (per kernel: the run's GPU predictions against the FPGA estimate)\n"
  "       cgpredict page OUT.html REPORT.json [REPORT.json...]   (one HTML page for one report or\n"
  "                             several programs': a suite)\n"
  "       cgpredict blocks -- PROGRAM [ARGS...]   (each kernel's best block shape among the usual ones:\n"
  "                             one run of the program per candidate; the report gets the suggestion)\n"
  "       cgpredict --help | --version\n"
  "\n"
  "Mark a loop nest with `#pragma cgpredict kernel [name(id)] [dims(n)] [block(x[,y[,z]])]`,\n"
  "build with `cgpredict build -- cc ...`, run the program: it writes cgpredict-report.json and\n"
  "prints the predicted GPU time per kernel and device on stderr. Environment of the program:\n"
  "CGPREDICT_REPORT, CGPREDICT_DEVICE, CGPREDICT_QUIET, CGPREDICT_BLOCK, CGPREDICT_SAMPLE,\n"
  "CGPREDICT_TRACE (the trace beside the report: `cgpredict report FILE --device all` predicts\n"
  "every device of the database from it without running the program again; 0: none).\n";

/* The FPGA devices (kind fpga) after the GPUs: part, clock and capacities. */
static int list_fpga_devices(void) {
  char **names = NULL;
  size_t n = cgp_fpga_device_all_names(&names);
  int rc = 0;
  if (n)
    printf("\n%-18s %-22s %7s %6s %8s %6s %9s %9s %9s\n", "FPGA device", "part", "MHz", "DSP", "BRAM18K", "URAM", "LUT", "FF",
           "DDR GB/s");
  for (size_t i = 0; i < n; i++) {
    cgp_fpga_device d;
    char err[1024];
    if (cgp_fpga_device_find(names[i], &d, err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict: %s\n", err);
      rc = 1;
      continue;
    }
    printf("%-18s %-22s %7.1f %6u %8u %6u %9u %9u %9.2f\n", d.name, d.part, d.clock_mhz, d.dsp, d.bram18k, d.uram, d.lut,
           d.ff, d.offchip_bandwidth_bytes_per_s / 1e9);
  }
  cgp_device_names_free(names, n);
  return rc;
}

/* `cgpredict devices`: one line per device file with its key numbers. */
static int list_devices(void) {
  char **names = NULL;
  size_t n = cgp_device_all_names(&names);
  printf("%-18s %4s %7s %11s %9s %9s %9s %9s %8s\n", "device", "SMs", "MHz", "FP32/FP64", "L1 KiB", "L2 KiB",
         "kept KiB", "DRAM GB/s", "launch");
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
    printf("%-18s %4u %7.1f %11s %9s %9.0f %9.0f %9.1f %8.0f\n", d.name, d.no_sm, d.freq_hz / 1e6, lanes, l1,
           (double)d.l2_bytes / 1024.0, (double)cgp_l2_capacity_bytes(&d) / 1024.0, d.dram_bandwidth_bytes_per_s / 1e9,
           d.launch_overhead_cycles);
  }
  cgp_device_names_free(names, n);
  if (!n) {
    fprintf(stderr, "cgpredict: no devices in %s\n", cgp_devices_dir());
    return 1;
  }
  printf("(* L1 does not cache global loads by default; kept: the L2 one kernel's data can use (l2_keep_bytes); launch = launch_overhead_cycles; "
         "`cgpredict devices NAME` shows every field and its source)\n");
  return list_fpga_devices() || rc;
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
  cgp_fpga_device fd;
  char err[4096], path[4096];
  snprintf(path, sizeof path, "%s/%s.json", cgp_devices_dir(), name);
  int fpga = cgp_device_name_is_fpga(name);
  if (fpga ? cgp_fpga_device_find(name, &fd, err, sizeof err) != 0 : cgp_device_find(name, &d, err, sizeof err) != 0) {
    fprintf(stderr, "cgpredict: %s\n", err);
    return 1;
  }
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
  printf("%s: %s\n  file: %s\n", fpga ? fd.name : d.name, fpga ? fd.description : d.description, path);
  const cJSON *it;
  cJSON_ArrayForEach(it, root) {
    if (!strcmp(it->string, "sources") || !strcmp(it->string, "name") || !strcmp(it->string, "description") ||
        !strcmp(it->string, "$schema"))
      continue;
    if (cJSON_IsArray(it) && cJSON_IsObject(cJSON_GetArrayItem(it, 0))) {   /* the FPGA operator table */
      const cJSON *sub;
      int i = 0;
      cJSON_ArrayForEach(sub, it) {
        char key[64];
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(sub, "source");
        cJSON *copy = cJSON_Duplicate(sub, 1);
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "source");
        snprintf(key, sizeof key, "%s[%d]", it->string, i++);
        printf("  %-28s ", key);
        print_value(copy);
        if (cJSON_IsString(src)) printf("\n  %-28s   source: %s", "", src->valuestring);
        putchar('\n');
        cJSON_Delete(copy);
      }
    } else if (cJSON_IsObject(it)) {
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
  if (fpga) {
    double budget = cgp_fpga_budget_ns(&fd);
    printf("  %-28s %.4g (derived: the period less the uncertainty, what chaining may fill)\n", "clock_budget_ns", budget);
    printf("  the scheduler's choice at that budget (the lowest latency whose delay fits):\n");
    for (unsigned i = 0; i < fd.n_impls; i++) {
      const cgp_fpga_impl *m = &fd.impls[i], *pick = cgp_fpga_pick_impl(&fd, m->op, m->type, m->width, budget);
      int first = 1;
      for (unsigned j = 0; j < i; j++)
        first &= !(fd.impls[j].op == m->op && fd.impls[j].type == m->type && fd.impls[j].width == m->width);
      if (first && pick)
        printf("    %-8s %3u bits: latency %u, delay %.3g ns, %u DSP, %u LUT, %u FF\n", cgp_fpga_op_name(m->op), m->width,
               pick->latency, pick->delay_ns, pick->dsp, pick->lut, pick->ff);
    }
  } else {
    printf("  %-28s %u (derived: l2 sector if sectored, else line)\n", "transaction_bytes", cgp_transaction_bytes(&d));
  }
  cJSON_Delete(root);
  return 0;
}

static int cmd_devices(int argc, char **argv) {
  if (argc == 0) return list_devices();
  if (argc == 1 && argv[0][0] != '-') return show_device(argv[0]);
  fprintf(stderr, "cgpredict devices: expected at most one device name\n%s", usage);
  return 2;
}

/* Is device `name` in the report's samples' "analysis" (analysed when the program ran)? */
static int analysed(const cJSON *r, const char *name) {
  char **have = NULL;
  size_t n = cgp_report_devices(r, &have);
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    found |= strcmp(have[i], name) == 0;
    free(have[i]);
  }
  free(have);
  return found;
}

/* Does the report have any sample at all (else nothing needs replaying)? */
static int has_samples(const cJSON *r) {
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(r, "kernels"))
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(k, "samples")) > 0) return 1;
  return 0;
}

/* Mark the predictions of replayed devices: "replayed", and "partial_batches" for the kernels the
   replay found so (cgp_trace_replay's per-kernel "replay_partial": the windows were sized for
   smaller devices and did not hold the kernel's grid). */
static void mark_replayed(cJSON *r, const cgp_device *devs, const int *replayed, size_t n) {
  cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(r, "kernels")) {
    cJSON *p, *e;
    const cJSON *cut = cJSON_GetObjectItemCaseSensitive(k, "replay_partial");
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(k, "predictions")) {
      const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "device"));
      if (!cgp_report_has_time(p)) continue;       /* nothing analysed: nothing replayed either */
      for (size_t i = 0; i < n; i++)
        if (replayed[i] && dev && strcmp(dev, devs[i].name) == 0) {
          int part = 0;
          cJSON_ArrayForEach(e, cut) part |= !strcmp(cJSON_GetStringValue(e), dev);
          cJSON_AddBoolToObject(p, "replayed", 1);
          cJSON_AddBoolToObject(p, "partial_batches", part);
          if (part) {
            char note[400];
            snprintf(note, sizeof note, "the trace's windows were sized for the devices of the run, whose batches are "
                     "smaller than this device's, and did not hold the kernel's grid: its batches were cut at the "
                     "window's end (a run with CGPREDICT_DEVICE naming %.60s sizes the windows for it)", dev);
            cJSON_AddStringToObject(p, "replay_note", note);
          }
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(k, "replay_partial");
  }
}

static void print_count(FILE *out, cgp_hls_count c) {
  if (!c.known) fputs("?", out);
  else if (c.min == c.max) fprintf(out, "%llu", (unsigned long long)c.min);
  else fprintf(out, "%llu ~ %llu", (unsigned long long)c.min, (unsigned long long)c.max);
}

/* `report --hls`: what Vivado/Vitis HLS reported for the kernel, said to come from HLS (issue 28:
   real numbers where the user has them, beside the FPGA model's own estimate when the report
   has one, docs/model.md 11.7). */
static void print_hls(FILE *out, const cgp_hls_report *h, const char *hls_path, const cJSON *r, const char *path) {
  int matched = 0;
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(r, "kernels")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name"));
    matched |= name && h->top[0] && !strcmp(name, h->top);
  }
  fprintf(out, "\nFPGA, from HLS (Vivado/Vitis HLS's own synthesis report, not cgpredict's estimate): %s\n", hls_path);
  fprintf(out, "  top function %s", h->top[0] ? h->top : "(not named)");
  if (matched) fprintf(out, ": kernel '%s' of %s\n", h->top, path);
  else fprintf(out, ": no kernel of %s is named '%s'\n", path, h->top);
  fprintf(out, "  part %s, HLS %s\n", h->part[0] ? h->part : "?", h->version[0] ? h->version : "?");
  int met = !(h->estimated_clock_ns > h->target_clock_ns);
  double period = met ? h->target_clock_ns : h->estimated_clock_ns;
  fprintf(out, "  clock: target %.3g ns (uncertainty %.3g ns), estimated %.3g ns%s\n", h->target_clock_ns,
          h->clock_uncertainty_ns, h->estimated_clock_ns, met ? "" : " (timing not met)");
  fputs("  latency (cycles): worst ", out);
  print_count(out, h->latency_worst);
  fputs(", best ", out);
  print_count(out, h->latency_best);
  fputs(", average ", out);
  print_count(out, h->latency_average);
  if (h->latency_worst.known && period > 0)
    fprintf(out, "; worst = %.6g ms at the %s clock\n", (double)h->latency_worst.max * period * 1e-6,
            met ? "target" : "estimated");
  else
    fputs(h->latency_worst.known ? "\n" : " (HLS could not bound it: a trip count depends on the data)\n", out);
  fputs("  interval (cycles): min ", out);
  print_count(out, h->interval_min);
  fputs(", max ", out);
  print_count(out, h->interval_max);
  fputc('\n', out);
  if (h->n_loops) fprintf(out, "  %-28s %12s %14s %12s %6s %6s\n", "loop", "trips", "latency", "iteration", "II", "depth");
  for (unsigned i = 0; i < h->n_loops; i++) {
    const cgp_hls_loop *l = &h->loops[i];
    char name[64], cell[5][48];
    snprintf(name, sizeof name, "%*s%.40s", (int)(2 * (l->depth < 8 ? l->depth : 8)), "", l->name);
    const cgp_hls_count *c[5] = {&l->trips, &l->latency, &l->iteration_latency, &l->pipeline_ii, &l->pipeline_depth};
    for (int j = 0; j < 5; j++) {
      if (!c[j]->known) snprintf(cell[j], sizeof cell[j], j >= 3 ? "-" : "?");
      else if (c[j]->min == c[j]->max) snprintf(cell[j], sizeof cell[j], "%llu", (unsigned long long)c[j]->min);
      else snprintf(cell[j], sizeof cell[j], "%llu~%llu", (unsigned long long)c[j]->min, (unsigned long long)c[j]->max);
    }
    fprintf(out, "  %-28s %12s %14s %12s %6s %6s\n", name, cell[0], cell[1], cell[2], cell[3], cell[4]);
  }
  fputs("  resources (used / available):", out);
  for (unsigned i = 0; i < CGP_HLS_NRES; i++) {
    if (!h->used[i].known && !h->available[i].known) continue;
    fprintf(out, " %s ", cgp_hls_resource_name(i));
    print_count(out, h->used[i]);
    fputc('/', out);
    print_count(out, h->available[i]);
  }
  fputc('\n', out);
}

/* `report --hls`: the HLS report's latency in place of cgpredict's estimate for the kernel HLS's
   top function names (docs/model.md 11.7): the prediction of the FPGA whose part is the report's,
   else a new entry "hls <part>"; said in its note. Nothing when no kernel has that name or HLS gave
   no worst-case latency. */
static void apply_hls(cJSON *r, const cgp_hls_report *h, const char *hls_path, const cgp_fpga_device *fdevs,
                      size_t nfpga) {
  cJSON *k, *found = NULL;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(r, "kernels"))
    if (h->top[0] && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name")), h->top)) found = k;
  int met = !(h->estimated_clock_ns > h->target_clock_ns);
  double period = met ? h->target_clock_ns : h->estimated_clock_ns;
  cJSON *preds = cJSON_GetObjectItemCaseSensitive(found, "predictions");
  if (!preds || !h->latency_worst.known || !(period > 0)) return;
  char dev[96];
  snprintf(dev, sizeof dev, "hls %.60s", h->part[0] ? h->part : "?");
  for (size_t i = 0; i < nfpga; i++)
    if (h->part[0] && !strcmp(fdevs[i].part, h->part)) snprintf(dev, sizeof dev, "%s", fdevs[i].name);
  double launches = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(found, "launches"));
  if (!(launches >= 1)) launches = 1;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "device", dev);
  cJSON_AddStringToObject(p, "kind", "fpga");
  cJSON_AddNumberToObject(p, "time_ms", (double)h->latency_worst.max * period * 1e-6 * launches);
  cJSON_AddNumberToObject(p, "cycles", (double)h->latency_worst.max * launches);
  cJSON_AddNumberToObject(p, "launches", launches);
  cJSON_AddStringToObject(p, "from_hls", hls_path);
  char note[1400];
  snprintf(note, sizeof note, "from HLS, in place of cgpredict's estimate: %.1000s reports a worst-case latency of %llu "
           "cycles at the %s clock of %.3g ns (part %s), per launch; no off-chip copies added", hls_path,
           (unsigned long long)h->latency_worst.max, met ? "target" : "estimated", period, h->part[0] ? h->part : "?");
  cJSON_AddStringToObject(p, "note", note);
  int at = 0, replaced = 0;
  cJSON *q;
  cJSON_ArrayForEach(q, preds) {
    if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(q, "device")), dev)) {
      cJSON_ReplaceItemInArray(preds, at, p);
      replaced = 1;
      break;
    }
    at++;
  }
  if (!replaced) cJSON_AddItemToArray(preds, p);
}

static int cmd_report(int argc, char **argv) {
  const char *path = NULL, *devlist = NULL, *trace = NULL, *html = NULL, *hls = NULL;
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) devlist = argv[++i];
    else if (strncmp(argv[i], "--device=", 9) == 0) devlist = argv[i] + 9;
    else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) trace = argv[++i];
    else if (strncmp(argv[i], "--trace=", 8) == 0) trace = argv[i] + 8;
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--html") == 0 && i + 1 < argc) html = argv[++i];
    else if (strncmp(argv[i], "--html=", 7) == 0) html = argv[i] + 7;
    else if (strcmp(argv[i], "--hls") == 0 && i + 1 < argc) hls = argv[++i];
    else if (strncmp(argv[i], "--hls=", 6) == 0) hls = argv[i] + 6;
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else { fprintf(stderr, "cgpredict report: unexpected argument '%s'\n%s", argv[i], usage); return 2; }
  }
  if (!path) { fprintf(stderr, "cgpredict report: which report file?\n%s", usage); return 2; }
  char err[8600];
  cgp_hls_report hr = {0};
  if (hls && cgp_hls_read(hls, &hr, err, sizeof err) != 0) {
    fprintf(stderr, "cgpredict: --hls %s\n", err);
    cgp_hls_free(&hr);
    return 1;
  }
  cJSON *r = NULL;
  if (cgp_report_load(path, &r, err, sizeof err) != 0) {
    fprintf(stderr, "cgpredict: %s\n", err);
    cgp_hls_free(&hr);
    return 1;
  }
  char **names = NULL;
  size_t n = 0;
  int list_oom = 0;
  if (devlist && strcmp(devlist, "all") == 0) {
    n = cgp_device_all_names(&names);
  } else if (devlist) {
    char *list = strdup(devlist), *save = NULL;
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
      for (size_t j = 0; j < n; j++)
        if (strcmp(names[j], t) == 0) {
          fprintf(stderr, "cgpredict report: --device: '%s' named twice\n", t);
          free(list);
          cgp_device_names_free(names, n);
          cJSON_Delete(r);
          cgp_hls_free(&hr);
          return 2;
        }
      char **bigger = realloc(names, (n + 1) * sizeof *names);
      if (bigger) names = bigger;
      if (!bigger || !(names[n] = strdup(t))) { list_oom = 1; break; }
      n++;
    }
    if (!list) list_oom = 1;
    free(list);
  } else {
    n = cgp_report_devices(r, &names);
    char **fn = NULL;
    size_t nf = cgp_report_fpga_devices(r, &fn);
    char **bigger = nf ? realloc(names, (n + nf) * sizeof *names) : names;
    if (nf && !bigger) list_oom = 1;
    for (size_t i = 0; i < nf; i++)
      if (bigger) (names = bigger)[n++] = fn[i];
      else free(fn[i]);
    free(fn);
  }
  /* the FPGAs among them, predicted from the kernels' carried nests (docs/model.md 11.14) */
  cgp_fpga_device *fdevs = calloc(n ? n : 1, sizeof *fdevs);
  size_t nfpga = 0;
  if (!fdevs) list_oom = 1;
  for (size_t i = 0; i < n && fdevs;) {
    if (!cgp_device_name_is_fpga(names[i])) { i++; continue; }
    if (cgp_fpga_device_find(names[i], &fdevs[nfpga], err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict: --device: %s\n", err);
      cgp_device_names_free(names, n);
      free(fdevs);
      cJSON_Delete(r);
      cgp_hls_free(&hr);
      return 1;
    }
    nfpga++;
    free(names[i]);
    memmove(names + i, names + i + 1, (n - i - 1) * sizeof *names);
    n--;
  }
  cgp_device *devs = calloc(n ? n : 1, sizeof *devs), *todo = calloc(n ? n : 1, sizeof *todo);
  int *replayed = calloc(n ? n : 1, sizeof *replayed), *partial = calloc(n ? n : 1, sizeof *partial);
  int rc = 0;
  if (!devs || !todo || !replayed || !partial || list_oom) {
    snprintf(err, sizeof err, "out of memory for the device list");
    rc = 1;
  }
  for (size_t i = 0; i < n && !rc; i++)
    if (cgp_device_find(names[i], &devs[i], err, sizeof err) != 0) rc = 1;
  /* devices the run did not analyse: replayed from the trace beside the report */
  size_t ntodo = 0;
  for (size_t i = 0; i < n && !rc; i++)
    if (has_samples(r) && !analysed(r, devs[i].name)) {
      todo[ntodo++] = devs[i];
      replayed[i] = 1;
    }
  /* the trace: --trace, else FILE.trace, else where the run wrote it (CGPREDICT_TRACE) */
  char tpath[4200];
  snprintf(tpath, sizeof tpath, "%s.trace", path);
  const char *ran = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "runtime"), "trace"), "file"));
  if (trace) snprintf(tpath, sizeof tpath, "%s", trace);
  else if (ran && access(tpath, F_OK) != 0 && access(ran, F_OK) == 0) snprintf(tpath, sizeof tpath, "%s", ran);
  int *tpartial = calloc(ntodo ? ntodo : 1, sizeof *tpartial);
  if (!rc && ntodo) {
    char terr[4096];
    if (!tpartial) {
      snprintf(err, sizeof err, "out of memory");
      rc = 1;
    } else if (cgp_trace_replay(tpath, r, todo, ntodo, tpartial, terr, sizeof terr) != 0) {
      snprintf(err, sizeof err, "device '%s' was not analysed when the program ran, and its trace cannot be "
               "replayed: %s (run the program again: it writes the trace beside its report; or give "
               "--trace PATH)", todo[0].name, terr);
      rc = 1;
    } else {
      for (size_t i = 0, j = 0; i < n; i++)
        if (replayed[i]) partial[i] = tpartial[j++];
    }
  }
  free(tpartial);
  if (!rc && cgp_report_predict(r, devs, n, err, sizeof err) != 0) rc = 1;
  if (!rc && cgp_report_predict_fpga(r, fdevs, nfpga) != 0) rc = 1, snprintf(err, sizeof err, "out of memory");
  if (!rc && hls) apply_hls(r, &hr, hls, fdevs, nfpga);
  free(fdevs);
  if (!rc) mark_replayed(r, devs, replayed, n);
  if (rc) {
    fprintf(stderr, "cgpredict: %s\n", err);
  } else {
    if (ntodo) {
      fprintf(stderr, "cgpredict: %zu device(s) replayed from the trace %s", ntodo, tpath);
      int any = 0;
      for (size_t i = 0; i < n; i++)
        if (replayed[i] && partial[i]) {
          fprintf(stderr, "%s%s", any ? ", " : "; from partial batches (windows sized for the run's devices): ", devs[i].name);
          any = 1;
        }
      fputc('\n', stderr);
    }
    if (json) {
      char *text = cJSON_Print(r);
      puts(text);
      cJSON_free(text);
    } else {
      cgp_report_print_summary(stdout, r, path);
      if (hls) print_hls(stdout, &hr, hls, r, path);
    }
    if (html && cgp_report_write_html(r, path, html, err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict: --html %s\n", err);
      rc = 1;
    } else if (html) {
      fprintf(stderr, "cgpredict: %s written (one self-contained page: open it in any browser, offline)\n", html);
    }
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  free(devs);
  free(todo);
  free(replayed);
  free(partial);
  cJSON_Delete(r);
  cgp_hls_free(&hr);
  return rc;
}

int main(int argc, char **argv) {
  if (getenv("CGPREDICT_WRAP_DIR") && cgp_is_wrapped_name(argv[0])) return cgp_wrapped_compiler(argc, argv);
  /* run as cgpredict-cc or cgpredict-c++ (the build's links): `cgpredict cc ...`, `cgpredict c++ ...`
     in one word, for a build that takes its compiler as one path (CoMD's `which $CC`) */
  const char *driver = cgp_one_word_driver(argv[0]);
  if (driver) {
    argv[0] = (char *)driver;
    return cgp_build(argc, argv);
  }
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
  if (strcmp(argv[1], "fpga") == 0) return cgp_fpga_cmd(argc - 2, argv + 2);
  if (strcmp(argv[1], "page") == 0) return cgp_page_cmd(argc - 2, argv + 2);
  if (strcmp(argv[1], "blocks") == 0) return cgp_blocks_cmd(argc - 2, argv + 2);
  if (strcmp(argv[1], "compare") == 0) return cgp_compare_cmd(argc - 2, argv + 2);
  /* `cgpredict cc ...`, and any compiler named first as a launcher names it, ccache's way: CMake's
     CMAKE_C_COMPILER_LAUNCHER=cgpredict runs `cgpredict /usr/bin/cc ...`, and `cgpredict gcc-12`,
     `cgpredict clang++` are `cgpredict build -- gcc-12` and `cgpredict build -- clang++` */
  if (cgp_is_c_compiler(argv[1])) return cgp_build(argc - 1, argv + 1);
  if (strcmp(argv[1], "build") == 0) {
    int i = 2;
    if (i < argc && strcmp(argv[i], "--") == 0) i++;
    if (i >= argc) { fprintf(stderr, "cgpredict build: no compiler command given\n%s", usage); return 2; }
    return cgp_is_c_compiler(argv[i]) ? cgp_build(argc - i, argv + i) : cgp_build_tool(argv + i);
  }
  fprintf(stderr, "cgpredict: unknown command '%s'\n%s", argv[1], usage);
  return 2;
}
