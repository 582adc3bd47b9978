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

_Static_assert((int)CGP_FPGA_FROM_DIRECTIVES == (int)CGP_FPGA_LIST && (int)CGP_FPGA_FROM_SEARCH == (int)CGP_FPGA_AUTO &&
               (int)CGP_FPGA_FROM_BASELINE == (int)CGP_FPGA_BASELINE, "the model's design sources are the pragma's values");

int cgp_fpga_prepare(const cgp_kernel_pragma *k, const cgp_hls_nest *h, int mode, cgp_fpga_result *r,
                     cgp_fpga_nest *n, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  snprintf(r->kernel, sizeof r->kernel, "%.255s", k->name);
  snprintf(r->file, sizeof r->file, "%.1023s", k->file);
  r->line = k->for_line;
  char e[2048];
  if (cgp_fpga_nest_of(h, n, e, sizeof e))
    return snprintf(err, errlen, "%s:%u:%u: error: kernel '%s': %s", k->file, k->for_line, k->for_col, k->name, e), 1;
  r->n_loops = n->n_loops;
  r->n_arrays = n->n_arrays;
  cgp_fpga_loop_names(k->file, h, r->names);
  for (unsigned l = 0; l < n->n_loops; l++) r->trips[l] = n->loops[l].trips, r->depth[l] = h->loops[l].depth,
                                            r->loop_line[l] = h->loops[l].line, r->ops[l] = h->loops[l].ddg.n_nodes,
                                            r->skip[l] = n->loops[l].skip;
  for (unsigned a = 0; a < n->n_arrays; a++) {
    snprintf(r->arrays[a], sizeof r->arrays[a], "%s", h->arrays[a].name);
    r->ndims[a] = n->arrays[a].ndims;
    r->on_chip[a] = n->on_chip[a];
    r->shape[a] = n->arrays[a];
  }
  r->mode = mode == CGP_FPGA_MODE_BASELINE ? CGP_FPGA_BASELINE : k->fpga == CGP_FPGA_UNSET ? CGP_FPGA_AUTO : k->fpga;
  if (mode == CGP_FPGA_MODE_SEARCH) r->mode = CGP_FPGA_AUTO;
  cgp_fpga_design_baseline(&r->design);
  if (r->mode == CGP_FPGA_LIST && cgp_fpga_design_of(k, h, n, r->names, &r->design, err, errlen)) return 1;
  return 0;
}

/* One kernel: its design (baseline, directives or search) estimated. 0, or 1 with a message. */
static int one_kernel(const cgp_fpga_device *d, const cgp_kernel_pragma *k, cgp_hls_nest *h, int mode,
                      const cgp_fpga_trips *given, size_t n_given, cgp_fpga_result *r) {
  char err[2048];
  unsigned trips_given = 0;
  for (size_t g = 0; g < n_given; g++)
    if (!strcmp(given[g].kernel, k->name))
      for (unsigned l = 0; l < h->n_loops && l < CGP_FPGA_MAX_LOOPS; l++)
        if (!h->loops[l].trips && given[g].trips[l]) h->loops[l].trips = given[g].trips[l], trips_given |= 1u << l;
  cgp_fpga_nest n;
  if (cgp_fpga_prepare(k, h, mode, r, &n, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  r->trips_given = trips_given;
  if (cgp_fpga_result_estimate(d, &n, r, err, sizeof err)) {
    fprintf(stderr, "%s:%u:%u: error: kernel '%s': %s\n", k->file, k->for_line, k->for_col, k->name, err);
    return 1;
  }
  return 0;
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
    snprintf(iis, sizeof iis, "%u (%s)", r->est.ii_bound[i], cgp_fpga_bound_name(r->est.bound[i]));
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

/* file compiled as `cgpredict build` compiles a marked source, with -ffp-contract=off, and
   optimised by the pass's -O1 pipeline, into *m (in ctx). quiet: clang's warnings are not shown
   (the build has shown them). 0, or 1 having said why on stderr. */
static int fpga_module(const char *file, char **flags, int nflags, int quiet, LLVMContextRef ctx, LLVMModuleRef *m) {
  *m = NULL;
  char err[8192];
  const char *tmp = getenv("TMPDIR");
  char dir[4096], bc[4200];
  snprintf(dir, sizeof dir, "%s/cgpredict-fpga.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "cgpredict fpga: cannot make a temporary directory in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
            strerror(errno));
    return 1;
  }
  snprintf(bc, sizeof bc, "%s/k.bc", dir);
  const char *clang = getenv("CGPREDICT_CLANG");
  const char *fixed[] = {clang && *clang ? clang : CGP_CLANG, "-O1", "-Xclang", "-disable-llvm-passes", "-g",
                         "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops", "-fno-builtin",
                         "-fno-discard-value-names", "-Wno-unknown-pragmas", "-ffp-contract=off", "-fno-inline-functions",
                         "-emit-llvm", "-c"};
  size_t nfixed = sizeof fixed / sizeof *fixed;
  char **cmd = calloc(nfixed + (size_t)nflags + 5, sizeof *cmd);
  int rc = cmd ? 0 : 1;
  if (cmd) {
    size_t c = 0;
    for (size_t i = 0; i < nfixed; i++) cmd[c++] = (char *)fixed[i];
    for (int i = 0; i < nflags; i++) cmd[c++] = flags[i];
    if (quiet) cmd[c++] = "-w";
    cmd[c++] = (char *)file;
    cmd[c++] = "-o";
    cmd[c++] = bc;
    rc = run_clang(cmd) ? 1 : 0;
    free(cmd);
  }
  if (!rc) {
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(bc, &buf, &msg) || LLVMParseBitcodeInContext2(ctx, buf, m)) {
      fprintf(stderr, "cgpredict fpga: cannot read the bitcode of %s%s%s\n", file, msg ? ": " : "", msg ? msg : "");
      rc = 1;
    }
    LLVMDisposeMessage(msg);
    if (buf) LLVMDisposeMemoryBuffer(buf);
  }
  unlink(bc);
  rmdir(dir);
  if (!rc && cgp_pass_run_o1(*m, err, sizeof err)) {
    fprintf(stderr, "cgpredict fpga: %s\n", err);
    rc = 1;
  }
  if (rc && *m) LLVMDisposeModule(*m), *m = NULL;
  return rc;
}

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
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  int rc = fpga_module(file, flags, nflags, 0, ctx, &m);
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

/* {"note": text}, unformatted, malloc'd. */
static char *note_json(const char *text) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "note", text);
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}

void cgp_fpga_carry(const char *file, char **flags, int nflags, const cgp_kernel_pragma *k, size_t nk, char **json) {
  char err[8192], note[8400];
  for (size_t i = 0; i < nk; i++) json[i] = NULL;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  if (fpga_module(file, flags, nflags, 1, ctx, &m)) {
    for (size_t i = 0; i < nk; i++)
      json[i] = note_json("the FPGA compile of this source failed (its message was shown when it was built)");
    LLVMContextDispose(ctx);
    return;
  }
  for (size_t i = 0; i < nk; i++) {
    cgp_hls_nest h;
    cgp_fpga_result *r = calloc(1, sizeof *r);
    cgp_fpga_nest n;
    if (!r) break;
    if (cgp_hls_nest_ops(m, &k[i], &h, err, sizeof err)) {
      snprintf(note, sizeof note, "no FPGA estimate: %s", err);
      json[i] = note_json(note);
    } else {
      if (cgp_fpga_prepare(&k[i], &h, CGP_FPGA_MODE_PRAGMA, r, &n, err, sizeof err)) {
        snprintf(note, sizeof note, "no FPGA estimate: %s", err);
        json[i] = note_json(note);
      } else {
        cJSON *o = cgp_fpga_kernel_to_json(r, &n);
        json[i] = o ? cJSON_PrintUnformatted(o) : NULL;
        cJSON_Delete(o);
      }
      cgp_hls_nest_free(&h);
    }
    free(r);
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
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
    if (json) cJSON_AddItemToArray(arr, cgp_fpga_result_json(&d, &r[i]));
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
