/* cgp_fpga_cmd.c: `cgpredict fpga FILE.c [--device NAME] [--json] [-- FLAGS...]`: the FPGA
   estimate of every marked nest of one source from the compiler alone, no run, no GPU
   (docs/model.md 11.9). The source is compiled as `cgpredict build` compiles a marked source
   (clang-14 bitcode, then the pass's -O1 pipeline; no markers, no instrumentation) with
   -ffp-contract=off (HLS does not fuse a multiply and an add); each loop of each nest is scheduled
   by the FPGA core as HLS's baseline builds it (not pipelined, not unrolled, arrays not
   partitioned), and the nest's latency composed (11.5). */
#include "cgp_fpga_cmd.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgp_fpga.h"
#include "cgp_fpga_nest.h"
#include "cgp_hls_ops.h"
#include "cgp_mark.h"
#include "cgp_pragma.h"

static int run_clang(char **argv) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) { perror("cgpredict fpga: fork"); return 1; }
  if (pid == 0) {
    execvp(argv[0], argv);
    fprintf(stderr, "cgpredict fpga: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *bound_name(cgp_fpga_ii_bound b) {
  switch (b) {
  case CGP_II_MEMORY: return "memory ports";
  case CGP_II_UNITS: return "operators";
  case CGP_II_RECURRENCE: return "recurrence";
  default: return "none";
  }
}

static const char *part_name(cgp_fpga_part p) {
  return p == CGP_PART_CYCLIC ? "cyclic" : p == CGP_PART_BLOCK ? "block" : p == CGP_PART_COMPLETE ? "complete" : "none";
}

void cgp_fpga_design_text(const cgp_fpga_result *r, char *buf, size_t cap) {
  size_t w = 0;
  const cgp_fpga_design *ds = &r->design;
#define PUT(...) (w += (size_t)snprintf(buf + w, w < cap ? cap - w : 0, __VA_ARGS__), w = w < cap ? w : cap)
  buf[0] = '\0';
  if (ds->pipeline >= 0) PUT("pipeline %s", r->names[ds->pipeline]);
  for (unsigned l = 0; l < r->n_loops; l++)
    if (ds->unroll[l] > 1) PUT("%sunroll %s x%u", w ? ", " : "", r->names[l], ds->unroll[l]);
  for (unsigned a = 0; a < r->n_arrays; a++)
    if (ds->part[a] != CGP_PART_NONE) {
      PUT("%spartition %s %s", w ? ", " : "", r->arrays[a], part_name(ds->part[a]));
      if (ds->part[a] != CGP_PART_COMPLETE) PUT(" %u", ds->factor[a]);
      if (r->ndims[a] > 1) PUT(" (dim %u)", ds->part_dim[a] + 1);
    }
  if (!w) PUT("baseline (not pipelined, not unrolled, no partitioning)");
#undef PUT
}

/* One kernel: its design (baseline, directives or search) estimated. 0, or 1 with a message. */
static int one_kernel(const cgp_fpga_device *d, const cgp_kernel_pragma *k, cgp_hls_nest *h, int mode,
                      const cgp_fpga_trips *given, size_t n_given, cgp_fpga_result *r) {
  char err[2048];
  memset(r, 0, sizeof *r);
  for (size_t g = 0; g < n_given; g++)
    if (!strcmp(given[g].kernel, k->name))
      for (unsigned l = 0; l < h->n_loops && l < CGP_FPGA_MAX_LOOPS; l++)
        if (!h->loops[l].trips && given[g].trips[l]) h->loops[l].trips = given[g].trips[l], r->trips_given |= 1u << l;
  snprintf(r->kernel, sizeof r->kernel, "%.255s", k->name);
  snprintf(r->file, sizeof r->file, "%.1023s", k->file);
  r->line = k->for_line;
  cgp_fpga_nest n;
  if (cgp_fpga_nest_of(h, &n, err, sizeof err)) {
    fprintf(stderr, "%s:%u:%u: error: kernel '%s': %s\n", k->file, k->for_line, k->for_col, k->name, err);
    return 1;
  }
  r->n_loops = n.n_loops;
  r->n_arrays = n.n_arrays;
  cgp_fpga_loop_names(k->file, h, r->names);
  for (unsigned l = 0; l < n.n_loops; l++) r->trips[l] = n.loops[l].trips, r->depth[l] = h->loops[l].depth,
                                           r->loop_line[l] = h->loops[l].line, r->ops[l] = h->loops[l].ddg.n_nodes,
                                           r->skip[l] = n.loops[l].skip;
  for (unsigned a = 0; a < n.n_arrays; a++) {
    snprintf(r->arrays[a], sizeof r->arrays[a], "%s", h->arrays[a].name);
    r->ndims[a] = n.arrays[a].ndims;
    r->on_chip[a] = n.on_chip[a];
    r->shape[a] = n.arrays[a];
  }
  int known = 1;
  for (unsigned l = 0; l < n.n_loops; l++) known &= n.loops[l].trips != 0 || n.loops[l].skip;
  r->mode = mode == CGP_FPGA_MODE_BASELINE ? CGP_FPGA_BASELINE : k->fpga == CGP_FPGA_UNSET ? CGP_FPGA_AUTO : k->fpga;
  if (mode == CGP_FPGA_MODE_SEARCH) r->mode = CGP_FPGA_AUTO;
  if (r->mode == CGP_FPGA_AUTO && !known) r->mode = CGP_FPGA_BASELINE, r->search_skipped = 1;
  int rc = 0;
  if (r->mode == CGP_FPGA_LIST) rc = cgp_fpga_design_of(k, h, &n, r->names, &r->design, err, sizeof err);
  else cgp_fpga_design_baseline(&r->design);
  if (rc) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (r->mode == CGP_FPGA_AUTO) rc = cgp_fpga_search(d, &n, &r->design, &r->est, &r->count, err, sizeof err);
  else rc = cgp_fpga_design_eval(d, &n, &r->design, &r->est, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s:%u:%u: error: kernel '%s': %s\n", k->file, k->for_line, k->for_col, k->name, err);
    return 1;
  }
  unsigned inner = cgp_hls_innermost(h);
  while (!r->est.scheduled[inner] && n.loops[inner].parent >= 0) inner = (unsigned)n.loops[inner].parent;
  r->inner = inner;
  r->ms = r->est.known ? r->est.cycles / (d->clock_mhz * 1e3) : 0;
  return 0;
}

static void print_json(const cgp_fpga_device *d, const cgp_fpga_result *r, cJSON *json) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kernel", r->kernel);
  cJSON_AddStringToObject(o, "file", r->file);
  cJSON_AddNumberToObject(o, "line", r->line);
  cJSON_AddStringToObject(o, "device", d->name);
  cJSON_AddNumberToObject(o, "innermost_il", r->est.il[r->inner]);
  if (r->est.known) {
    cJSON_AddNumberToObject(o, "cycles", (double)r->est.cycles);
    cJSON_AddNumberToObject(o, "time_ms", r->ms);
  } else {
    cJSON_AddNullToObject(o, "cycles");
    cJSON_AddNullToObject(o, "time_ms");
  }
  cJSON *dj = cJSON_AddObjectToObject(o, "design");
  cJSON_AddStringToObject(dj, "from", r->mode == CGP_FPGA_AUTO ? "search" : r->mode == CGP_FPGA_LIST ? "directives"
                                                                                                      : "baseline");
  char text[512];
  cgp_fpga_design_text(r, text, sizeof text);
  cJSON_AddStringToObject(dj, "summary", text);
  if (r->design.pipeline >= 0) cJSON_AddStringToObject(dj, "pipeline", r->names[r->design.pipeline]);
  else cJSON_AddNullToObject(dj, "pipeline");
  cJSON *pa = cJSON_AddArrayToObject(dj, "partition");
  for (unsigned a = 0; a < r->n_arrays; a++) {
    if (r->design.part[a] == CGP_PART_NONE) continue;
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "array", r->arrays[a]);
    cJSON_AddStringToObject(p, "kind", part_name(r->design.part[a]));
    cJSON_AddNumberToObject(p, "factor", r->design.factor[a]);
    cJSON_AddNumberToObject(p, "dim", r->design.part_dim[a] + 1);
    cJSON_AddItemToArray(pa, p);
  }
  if (r->mode == CGP_FPGA_AUTO) {
    cJSON_AddNumberToObject(dj, "designs_tried", r->count.tried);
    cJSON_AddNumberToObject(dj, "designs_fitting", r->count.fitting);
    cJSON_AddNumberToObject(dj, "designs_refused", r->count.refused);
  }
  cJSON *ls = cJSON_AddArrayToObject(o, "loops");
  for (unsigned i = 0; i < r->n_loops; i++) {
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", r->names[i]);
    cJSON_AddNumberToObject(l, "line", r->loop_line[i]);
    cJSON_AddNumberToObject(l, "depth", r->depth[i]);
    if (r->trips[i]) cJSON_AddNumberToObject(l, "trips", (double)r->trips[i]);
    else cJSON_AddNullToObject(l, "trips");
    cJSON_AddNumberToObject(l, "unroll", r->est.unroll[i]);
    cJSON_AddBoolToObject(l, "pipelined", r->design.pipeline == (int)i);
    cJSON_AddNumberToObject(l, "operations", r->ops[i]);
    if (r->skip[i]) cJSON_AddBoolToObject(l, "another_version", 1);
    if (r->est.scheduled[i]) {
      cJSON_AddNumberToObject(l, "il", r->est.il[i]);
      if (r->est.ii[i]) cJSON_AddNumberToObject(l, "ii", r->est.ii[i]);
      else cJSON_AddNullToObject(l, "ii");
      cJSON_AddNumberToObject(l, "ii_bound", r->est.ii_bound[i]);
      cJSON_AddStringToObject(l, "ii_bound_by", bound_name(r->est.bound[i]));
    }
    cJSON_AddItemToArray(ls, l);
  }
  cJSON *res = cJSON_AddObjectToObject(o, "resources");
  cJSON_AddNumberToObject(res, "dsp", (double)r->est.dsp);
  cJSON_AddNumberToObject(res, "lut", (double)r->est.lut);
  cJSON_AddNumberToObject(res, "ff", (double)r->est.ff);
  cJSON_AddNumberToObject(res, "bram18k", (double)r->est.bram18k);
  cJSON_AddBoolToObject(res, "fits", r->est.fits);
  cJSON_AddItemToArray(json, o);
}

static void print_text(const cgp_fpga_device *d, const cgp_fpga_result *r) {
  char text[512];
  cgp_fpga_design_text(r, text, sizeof text);
  printf("kernel %s (%s:%u) on %s (%s, %.0f MHz, %.2f ns of logic a cycle)\n", r->kernel, r->file, r->line, d->name,
         d->part, d->clock_mhz, cgp_fpga_budget_ns(d));
  printf("  design: %s", text);
  if (r->mode == CGP_FPGA_AUTO)
    printf(" [search: %u designs tried, %u fit the device, %u refused by the model]", r->count.tried, r->count.fitting,
           r->count.refused);
  else if (r->mode == CGP_FPGA_LIST) printf(" [the pragma's fpga(...) directives]");
  else if (r->search_skipped) printf(" [no search: a trip count is not static]");
  printf("\n  %-10s %8s %6s %6s %5s %4s %20s %14s\n", "loop", "trips", "unroll", "ops", "IL", "II", "II if pipelined >=",
         "latency");
  for (unsigned i = 0; i < r->n_loops; i++) {
    char name[48], trips[24], lat[32], iis[48], ii[12];
    snprintf(name, sizeof name, "%*s%s", 2 * (int)r->depth[i], "", r->names[i]);
    if (r->trips[i]) snprintf(trips, sizeof trips, "%llu", (unsigned long long)r->trips[i]);
    else snprintf(trips, sizeof trips, "?");
    if (!r->est.scheduled[i]) {
      printf("  %-10s %8s %6u %6u %5s %4s %20s %14s\n", name, trips, r->est.unroll[i], r->ops[i], "-", "-",
             r->skip[i] ? "(another version of the loop: not estimated)" : "(in the pipelined loop)", "-");
      continue;
    }
    if (r->est.known) snprintf(lat, sizeof lat, "%llu", (unsigned long long)r->est.latency[i]);
    else snprintf(lat, sizeof lat, "?");
    snprintf(iis, sizeof iis, "%u (%s)", r->est.ii_bound[i], bound_name(r->est.bound[i]));
    if (r->est.ii[i]) snprintf(ii, sizeof ii, "%u", r->est.ii[i]);
    else snprintf(ii, sizeof ii, "-");
    printf("  %-10s %8s %6u %6u %5u %4s %20s %14s\n", name, trips, r->est.unroll[i], r->ops[i], r->est.il[i], ii, iis,
           lat);
  }
  if (r->est.known)
    printf("  latency: %llu cycles = %.4f ms at %.0f MHz\n", (unsigned long long)r->est.cycles, r->ms, d->clock_mhz);
  else
    printf("  latency: unknown (a trip count is not static: each loop needs a constant start, step and bound)\n");
  printf("  resources: DSP %llu of %u, BRAM18K %llu of %u, LUT %llu of %u, FF %llu of %u: %s\n",
         (unsigned long long)r->est.dsp, d->dsp, (unsigned long long)r->est.bram18k, d->bram18k,
         (unsigned long long)r->est.lut, d->lut, (unsigned long long)r->est.ff, d->ff,
         r->est.fits ? "fits" : "does NOT fit");
  printf("  arrays:");
  for (unsigned a = 0; a < r->n_arrays; a++) {
    if (!r->on_chip[a]) {
      printf(" %s (pointer argument: a memory interface of the top function, no BRAM)%s", r->arrays[a],
             a + 1 < r->n_arrays ? ";" : "");
      continue;
    }
    cgp_fpga_array fa = r->shape[a];
    fa.part[r->design.part_dim[a]] = r->design.part[a], fa.factor[r->design.part_dim[a]] = r->design.factor[a];
    uint64_t e = 1;
    for (unsigned k = 0; k < fa.ndims; k++) e *= fa.dims[k];
    printf(" %s (%llu x %u bits, %llu BRAM18K)%s", r->arrays[a], (unsigned long long)e, fa.width_bits,
           (unsigned long long)cgp_fpga_bram18k(d, &fa), a + 1 < r->n_arrays ? ";" : "");
  }
  printf("%s\n", r->n_arrays ? "" : " none");
}

static const char fpga_usage[] =
  "usage: cgpredict fpga FILE.c [--device NAME] [--baseline | --search] [--json] [-- COMPILER FLAGS...]\n"
  "  the FPGA estimate of every `#pragma cgpredict kernel` nest of FILE.c, from the compiler alone:\n"
  "  the design its fpga(...) directives give, else the fastest design the search finds that fits\n"
  "  the device; --baseline: HLS's baseline (no pipelining, unrolling or partitioning) whatever the\n"
  "  pragma says; --search: the search whatever it says. NAME: an FPGA (cgpredict devices), default zcu102\n";

int cgp_fpga_estimate_file(const char *file, const cgp_fpga_device *d, char **flags, int nflags, int mode,
                           const cgp_fpga_trips *given, size_t n_given, cgp_fpga_result **out, size_t *nout) {
  *out = NULL;
  *nout = 0;
  char err[8192];
  if (access(file, R_OK) != 0) {
    fprintf(stderr, "cgpredict fpga: %s: %s\n", file, strerror(errno));
    return 1;
  }
  cgp_kernel_pragma *k = NULL;
  size_t nk = 0;
  if (cgp_pragma_scan(file, (const char *const *)flags, nflags, &k, &nk, err, sizeof err) != 0) {
    fputs(err, stderr);
    if (err[0] && err[strlen(err) - 1] != '\n') fputc('\n', stderr);
    return 1;
  }
  if (!nk) {
    fprintf(stderr, "%s: error: no `#pragma cgpredict kernel` in this file\n", file);
    free(k);
    return 1;
  }
  const char *tmp = getenv("TMPDIR");
  char dir[4096], bc[4200];
  snprintf(dir, sizeof dir, "%s/cgpredict-fpga.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "cgpredict fpga: cannot make a temporary directory in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
            strerror(errno));
    free(k);
    return 1;
  }
  snprintf(bc, sizeof bc, "%s/k.bc", dir);
  const char *clang = getenv("CGPREDICT_CLANG");
  const char *fixed[] = {clang && *clang ? clang : CGP_CLANG, "-O1", "-Xclang", "-disable-llvm-passes", "-g",
                         "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops", "-fno-builtin",
                         "-fno-discard-value-names", "-Wno-unknown-pragmas", "-ffp-contract=off", "-fno-inline-functions",
                         "-emit-llvm", "-c"};
  size_t nfixed = sizeof fixed / sizeof *fixed;
  char **cmd = calloc(nfixed + (size_t)nflags + 4, sizeof *cmd);
  int rc = cmd ? 0 : 1;
  if (cmd) {
    size_t c = 0;
    for (size_t i = 0; i < nfixed; i++) cmd[c++] = (char *)fixed[i];
    for (int i = 0; i < nflags; i++) cmd[c++] = flags[i];
    cmd[c++] = (char *)file;
    cmd[c++] = "-o";
    cmd[c++] = bc;
    rc = run_clang(cmd) ? 1 : 0;
    free(cmd);
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  if (!rc) {
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(bc, &buf, &msg) || LLVMParseBitcodeInContext2(ctx, buf, &m)) {
      fprintf(stderr, "cgpredict fpga: cannot read the bitcode of %s%s%s\n", file, msg ? ": " : "", msg ? msg : "");
      rc = 1;
    }
    LLVMDisposeMessage(msg);
    if (buf) LLVMDisposeMemoryBuffer(buf);
  }
  unlink(bc);
  rmdir(dir);
  if (!rc && cgp_pass_run_o1(m, err, sizeof err)) {
    fprintf(stderr, "cgpredict fpga: %s\n", err);
    rc = 1;
  }
  cgp_fpga_result *res = rc ? NULL : calloc(nk, sizeof *res);
  if (!rc && !res) rc = 1;
  for (size_t i = 0; i < nk && !rc; i++) {
    cgp_hls_nest n;
    if (cgp_hls_nest_ops(m, &k[i], &n, err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      rc = 1;
      break;
    }
    rc = one_kernel(d, &k[i], &n, mode, given, n_given, &res[i]);
    cgp_hls_nest_free(&n);
    if (!rc) *nout = i + 1;
  }
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  free(k);
  *out = res;
  return rc;
}

int cgp_fpga_cmd(int argc, char **argv) {
  const char *file = NULL, *dev_name = "zcu102";
  int json = 0, nflags = 0, mode = CGP_FPGA_MODE_PRAGMA;
  char **flags = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      flags = argv + i + 1;
      nflags = argc - i - 1;
      break;
    }
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) dev_name = argv[++i];
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--baseline") == 0 && mode != CGP_FPGA_MODE_SEARCH) mode = CGP_FPGA_MODE_BASELINE;
    else if (strcmp(argv[i], "--search") == 0 && mode != CGP_FPGA_MODE_BASELINE) mode = CGP_FPGA_MODE_SEARCH;
    else if (argv[i][0] != '-' && !file) file = argv[i];
    else {
      fprintf(stderr, "cgpredict fpga: unexpected argument '%s'%s\n%s", argv[i],
              !strcmp(argv[i], "--baseline") || !strcmp(argv[i], "--search") ? " (--baseline or --search, not both)" : "",
              fpga_usage);
      return 2;
    }
  }
  if (!file) {
    fprintf(stderr, "cgpredict fpga: which source file?\n%s", fpga_usage);
    return 2;
  }
  cgp_fpga_device d;
  char err[8192];
  if (cgp_fpga_device_find(dev_name, &d, err, sizeof err)) {
    fprintf(stderr, "cgpredict fpga: %s\n", err);
    return 2;
  }
  cgp_fpga_result *r = NULL;
  size_t n = 0;
  int rc = cgp_fpga_estimate_file(file, &d, flags, nflags, mode, NULL, 0, &r, &n);
  cJSON *arr = json ? cJSON_CreateArray() : NULL;
  for (size_t i = 0; i < n; i++) {
    if (json) print_json(&d, &r[i], arr);
    else print_text(&d, &r[i]);
  }
  fflush(stdout);
  if (arr && !rc) {
    char *text = cJSON_Print(arr);
    if (text) puts(text);
    free(text);
  }
  cJSON_Delete(arr);
  free(r);
  return rc;
}
