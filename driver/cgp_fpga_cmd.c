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

/* The nest's loops as the core composes them (children contiguous); free with free_tree. */
typedef struct {
  cgp_fpga_loop *loops; /* per nest loop */
  cgp_fpga_loop **kids; /* per nest loop: its children's array */
  unsigned n;
} tree;

static int build_tree(const cgp_hls_nest *n, const unsigned *il, tree *t) {
  t->n = n->n_loops;
  t->loops = calloc(n->n_loops, sizeof *t->loops);
  t->kids = calloc(n->n_loops, sizeof *t->kids);
  if (!t->loops || !t->kids) return -1;
  /* children first: fill each loop's array from the deepest level up */
  for (unsigned depth = 64; depth-- > 0;)
    for (unsigned i = 0; i < n->n_loops; i++) {
      if (n->loops[i].depth != depth) continue;
      unsigned nc = 0;
      for (unsigned j = 0; j < n->n_loops; j++) nc += n->loops[j].parent == (int)i;
      t->kids[i] = nc ? calloc(nc, sizeof **t->kids) : NULL;
      if (nc && !t->kids[i]) return -1;
      unsigned c = 0;
      for (unsigned j = 0; j < n->n_loops; j++)
        if (n->loops[j].parent == (int)i) t->kids[i][c++] = t->loops[j];
      t->loops[i] = (cgp_fpga_loop){.trips = n->loops[i].trips, .unroll = 1, .il = il[i], .children = t->kids[i],
                                    .n_children = nc};
    }
  return 0;
}

static void free_tree(tree *t) {
  for (unsigned i = 0; i < t->n && t->kids; i++) free(t->kids[i]);
  free(t->kids);
  free(t->loops);
}

static const char *bound_name(cgp_fpga_ii_bound b) {
  switch (b) {
  case CGP_II_MEMORY: return "memory ports";
  case CGP_II_UNITS: return "operators";
  case CGP_II_RECURRENCE: return "recurrence";
  default: return "none";
  }
}

/* One kernel: schedule each loop, compose, print (or add to json). 0, or 1 with a message. */
static int one_kernel(const cgp_fpga_device *d, const cgp_kernel_pragma *k, cgp_hls_nest *n, cJSON *json) {
  char err[2048];
  unsigned *il = calloc(n->n_loops ? n->n_loops : 1, sizeof *il);
  cgp_fpga_sched *s = calloc(n->n_loops ? n->n_loops : 1, sizeof *s);
  if (!il || !s) {
    free(il);
    free(s);
    fprintf(stderr, "cgpredict fpga: out of memory\n");
    return 1;
  }
  int rc = 0;
  unsigned scheduled = 0;
  for (unsigned i = 0; i < n->n_loops && !rc; i++, scheduled++)
    if (cgp_fpga_schedule(d, &n->loops[i].ddg, NULL, 0, &s[i], err, sizeof err)) {
      fprintf(stderr, "%s:%u:%u: error: kernel '%s': %s\n", k->file, n->loops[i].line, n->loops[i].col, k->name, err);
      rc = 1;
    } else {
      il[i] = s[i].il;
    }
  uint64_t cycles = 0;
  int known = 1;
  for (unsigned i = 0; i < n->n_loops; i++) known &= n->loops[i].trips != 0;
  tree t = {0};
  if (!rc && known) {
    if (build_tree(n, il, &t) || cgp_fpga_loop_latency(d, &t.loops[0], &cycles, err, sizeof err)) {
      fprintf(stderr, "%s:%u:%u: error: kernel '%s': %s\n", k->file, k->for_line, k->for_col, k->name,
              t.loops ? err : "out of memory");
      rc = 1;
    }
  }
  unsigned inner = cgp_hls_innermost(n);
  cgp_fpga_usage u = {0};
  if (!rc && cgp_fpga_sched_usage(d, &n->loops[inner].ddg, &s[inner], &u)) {
    fprintf(stderr, "%s:%u:%u: error: kernel '%s': cannot cost the operators\n", k->file, k->for_line, k->for_col,
            k->name);
    rc = 1;
  }
  if (!rc && json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kernel", k->name);
    cJSON_AddStringToObject(o, "file", k->file);
    cJSON_AddNumberToObject(o, "line", k->for_line);
    cJSON_AddStringToObject(o, "device", d->name);
    cJSON_AddNumberToObject(o, "innermost_il", il[inner]);
    if (known) cJSON_AddNumberToObject(o, "cycles", (double)cycles);
    else cJSON_AddNullToObject(o, "cycles");
    cJSON *ls = cJSON_AddArrayToObject(o, "loops");
    for (unsigned i = 0; i < n->n_loops; i++) {
      cJSON *l = cJSON_CreateObject();
      cJSON_AddNumberToObject(l, "line", n->loops[i].line);
      cJSON_AddNumberToObject(l, "depth", n->loops[i].depth);
      if (n->loops[i].trips) cJSON_AddNumberToObject(l, "trips", (double)n->loops[i].trips);
      else cJSON_AddNullToObject(l, "trips");
      cJSON_AddNumberToObject(l, "il", il[i]);
      cJSON_AddNumberToObject(l, "operations", n->loops[i].ddg.n_nodes);
      unsigned ii = s[i].ii_memory > s[i].ii_units ? s[i].ii_memory : s[i].ii_units;
      if (s[i].ii_recurrence > ii) ii = s[i].ii_recurrence;
      cJSON_AddNumberToObject(l, "ii_bound", ii ? ii : 1);
      cJSON_AddStringToObject(l, "ii_bound_by", bound_name(s[i].bound));
      cJSON_AddItemToArray(ls, l);
    }
    cJSON *r = cJSON_AddObjectToObject(o, "resources");
    cJSON_AddNumberToObject(r, "dsp", (double)u.dsp);
    cJSON_AddNumberToObject(r, "lut", (double)u.lut);
    cJSON_AddNumberToObject(r, "ff", (double)u.ff);
    cJSON_AddItemToArray(json, o);
  } else if (!rc) {
    printf("kernel %s (%s:%u) on %s (%s, %.0f MHz, %.2f ns of logic a cycle): HLS baseline (not pipelined, not "
           "unrolled, no partitioning)\n",
           k->name, k->file, k->for_line, d->name, d->part, d->clock_mhz, cgp_fpga_budget_ns(d));
    printf("  %-10s %8s %6s %5s %20s %14s\n", "loop", "trips", "ops", "IL", "II if pipelined >=", "latency");
    for (unsigned i = 0; i < n->n_loops; i++) {
      char name[32], trips[24], lat[32];
      snprintf(name, sizeof name, "%*sline %u", 2 * (int)n->loops[i].depth, "", n->loops[i].line);
      if (n->loops[i].trips) snprintf(trips, sizeof trips, "%llu", (unsigned long long)n->loops[i].trips);
      else snprintf(trips, sizeof trips, "?");
      uint64_t lc = 0;
      const cgp_fpga_loop *fl = known ? &t.loops[i] : NULL;
      if (fl && !cgp_fpga_loop_latency(d, fl, &lc, err, sizeof err)) snprintf(lat, sizeof lat, "%llu", (unsigned long long)lc);
      else snprintf(lat, sizeof lat, "?");
      unsigned ii = s[i].ii_memory > s[i].ii_units ? s[i].ii_memory : s[i].ii_units;
      if (s[i].ii_recurrence > ii) ii = s[i].ii_recurrence;
      char iis[48];
      snprintf(iis, sizeof iis, "%u (%s)", ii ? ii : 1, bound_name(s[i].bound));
      printf("  %-10s %8s %6u %5u %20s %14s\n", name, trips, n->loops[i].ddg.n_nodes, il[i], iis, lat);
    }
    if (known)
      printf("  latency: %llu cycles = %.4f ms at %.0f MHz\n", (unsigned long long)cycles, cycles / (d->clock_mhz * 1e3),
             d->clock_mhz);
    else
      printf("  latency: unknown (a trip count is not static: each loop needs a constant start, step and bound)\n");
    printf("  operators of the innermost loop: DSP %llu, LUT %llu, FF %llu\n", (unsigned long long)u.dsp,
           (unsigned long long)u.lut, (unsigned long long)u.ff);
    printf("  arrays:");
    for (unsigned a = 0; a < n->n_arrays; a++) {
      const cgp_hls_array *ar = &n->arrays[a];
      if (!ar->elems) {
        printf(" %s (pointer argument: a memory interface of the top function, no BRAM)%s", ar->name,
               a + 1 < n->n_arrays ? ";" : "");
        continue;
      }
      cgp_fpga_array fa = {.width_bits = ar->width_bits, .ndims = 1, .dims = {ar->elems}};
      printf(" %s (%llu x %u bits, %llu BRAM18K)%s", ar->name, (unsigned long long)ar->elems, ar->width_bits,
             (unsigned long long)cgp_fpga_bram18k(d, &fa), a + 1 < n->n_arrays ? ";" : "");
    }
    printf("%s\n", n->n_arrays ? "" : " none");
  }
  free_tree(&t);
  for (unsigned i = 0; i < scheduled; i++) cgp_fpga_sched_free(&s[i]);
  free(s);
  free(il);
  return rc;
}

static const char fpga_usage[] =
  "usage: cgpredict fpga FILE.c [--device NAME] [--json] [-- COMPILER FLAGS...]\n"
  "  the FPGA estimate (HLS baseline: no pipelining, unrolling or partitioning) of every\n"
  "  `#pragma cgpredict kernel` nest of FILE.c, from the compiler alone; NAME: an FPGA device\n"
  "  (cgpredict devices), default zcu102\n";

int cgp_fpga_cmd(int argc, char **argv) {
  const char *file = NULL, *dev_name = "zcu102";
  int json = 0, nflags = 0;
  char **flags = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      flags = argv + i + 1;
      nflags = argc - i - 1;
      break;
    }
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) dev_name = argv[++i];
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (argv[i][0] != '-' && !file) file = argv[i];
    else {
      fprintf(stderr, "cgpredict fpga: unexpected argument '%s'\n%s", argv[i], fpga_usage);
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
                         "-fno-discard-value-names", "-Wno-unknown-pragmas", "-ffp-contract=off", "-emit-llvm", "-c"};
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
  cJSON *arr = json ? cJSON_CreateArray() : NULL;
  for (size_t i = 0; i < nk && !rc; i++) {
    cgp_hls_nest n;
    if (cgp_hls_nest_ops(m, &k[i], &n, err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      rc = 1;
      break;
    }
    rc = one_kernel(&d, &k[i], &n, arr);
    fflush(stdout); /* a later kernel's error on stderr comes after this one's estimate */
    cgp_hls_nest_free(&n);
  }
  if (arr && !rc) {
    char *text = cJSON_Print(arr);
    if (text) puts(text);
    free(text);
  }
  cJSON_Delete(arr);
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  free(k);
  return rc;
}
