/* cgp_blocks_cmd.c: `cgpredict blocks -- PROGRAM [ARGS...]`: the block shape to launch each kernel
   with (issue 27; docs/model.md section 8d). The block shape decides which threads form a warp,
   so it cannot be replayed from one trace: the program is run once as the user runs it (its own
   shapes: the baseline, whose report is kept at CGPREDICT_REPORT, default cgpredict-report.json)
   and once per candidate shape with CGPREDICT_BLOCK_FORCE=1 (every kernel but a tiled one takes
   the candidate of its grid's dimensionality), each run traced and predicted as usual. The times
   per kernel and device go into the baseline report as the kernel's "block_whatif"; the model
   turns the fastest shape into a suggestion where it gains (model/cgp_report.c), so `cgpredict
   report` and the page show it too. The candidates are the usual ones: a warp's worth or more of
   threads along x, 64 to 1024 threads. The candidate runs read nothing on their standard input
   and their output is discarded (a program that reads its input from stdin gets it in the
   baseline run only: give it as a file); the baseline run's goes where the user's would. */
#include "cgp_blocks_cmd.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgp_fpga.h"
#include "cgp_report.h"

#define NCAND 8
/* per dimensionality, the candidates; a shorter list repeats its last (NULL-terminated) */
static const char *const CAND[3][NCAND + 1] = {
  {"64", "128", "256", "512", "1024", NULL},
  {"32x4", "32x8", "32x16", "32x32", "16x16", "64x4", "64x8", "128x2", NULL},
  {"32x8x1", "32x4x2", "16x8x2", "8x8x4", "32x2x4", "64x4x1", NULL},
};

static const char *cand(int dims, int i) {
  int n = 0;
  while (CAND[dims][n]) n++;
  return CAND[dims][i < n ? i : n - 1];
}

/* Run argv with the given CGPREDICT_* settings; quiet: its output to /dev/null. Exit status. */
static int run(char **argv, const char *report, const char *block, int quiet) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) { perror("cgpredict blocks: fork"); return -1; }
  if (pid == 0) {
    setenv("CGPREDICT_REPORT", report, 1);
    setenv("CGPREDICT_QUIET", "1", 1);
    setenv("CGPREDICT_TRACE", "0", 1);
    unsetenv("CGPREDICT_HTML");
    unsetenv("CGPREDICT_DIN");
    if (block) {
      setenv("CGPREDICT_BLOCK", block, 1);
      setenv("CGPREDICT_BLOCK_FORCE", "1", 1);
    }
    if (quiet) {                                /* a candidate run: nothing read, nothing shown */
      int fd = open("/dev/null", O_RDWR);
      if (fd >= 0) { dup2(fd, 0); dup2(fd, 1); dup2(fd, 2); close(fd); }
    }
    execvp(argv[0], argv);
    fprintf(stderr, "cgpredict blocks: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* A kernel whose shape the candidates do not change: a tiled one (shared memory per block). */
static int tiled(const cJSON *k) {
  const cJSON *an = get(cJSON_GetArrayItem(get(k, "samples"), 0), "analysis"), *d;
  cJSON_ArrayForEach(d, an) if (cJSON_GetNumberValue(get(d, "smem_per_block")) > 0) return 1;
  return 0;
}

/* Candidate run r's report: each kernel's shape and times, added to the baseline's block_whatif. */
static void collect(cJSON *base, const cJSON *run_report) {
  const cJSON *k;
  cJSON_ArrayForEach(k, get(run_report, "kernels")) {
    const char *name = cJSON_GetStringValue(get(k, "name"));
    cJSON *bk = NULL, *e;
    cJSON_ArrayForEach(e, get(base, "kernels"))
      if (name && !strcmp(cJSON_GetStringValue(get(e, "name")), name)) bk = e;
    if (!bk || tiled(bk)) continue;
    cJSON *list = (cJSON *)get(bk, "block_whatif");
    if (!list) list = cJSON_AddArrayToObject(bk, "block_whatif");
    const cJSON *blk = get(k, "block"), *have;
    int seen = 0;                               /* a shape once (a short list repeats its last) */
    cJSON_ArrayForEach(have, list) {
      int same = 1;
      for (int i = 0; i < 3; i++)
        same &= cJSON_GetNumberValue(cJSON_GetArrayItem(get(have, "block"), i)) ==
                cJSON_GetNumberValue(cJSON_GetArrayItem(blk, i));
      seen |= same;
    }
    if (seen) continue;
    cJSON *w = cJSON_CreateObject();
    cJSON_AddItemToObject(w, "block", cJSON_Duplicate(blk, 1));
    cJSON *t = cJSON_AddObjectToObject(w, "time_ms");
    const cJSON *p;
    cJSON_ArrayForEach(p, get(k, "predictions"))
      cJSON_AddNumberToObject(t, cJSON_GetStringValue(get(p, "device")), cJSON_GetNumberValue(get(p, "time_ms")));
    cJSON_AddItemToArray(list, w);
  }
}

int cgp_blocks_cmd(int argc, char **argv) {
  int at = 0;
  if (at < argc && !strcmp(argv[at], "--")) at++;
  if (at >= argc) {
    fprintf(stderr, "usage: cgpredict blocks -- PROGRAM [ARGS...]   (a program built with cgpredict build)\n");
    return 2;
  }
  char **prog = argv + at;
  const char *env = getenv("CGPREDICT_REPORT");
  const char *report = env && *env ? env : "cgpredict-report.json";
  char tmpl[] = "/tmp/cgpredict-blocks.XXXXXX";
  if (!mkdtemp(tmpl)) { perror("cgpredict blocks: mkdtemp"); return 1; }
  char path[4200], err[8600];
  int rc = 0, runs = 0;
  cJSON *base = NULL;
  fprintf(stderr, "cgpredict blocks: running %s with its own block shapes, then with each of %d candidates "
          "(its output from those runs discarded)\n", prog[0], NCAND);
  int st = run(prog, report, NULL, 0);
  if (st != 0) {
    fprintf(stderr, "cgpredict blocks: %s exited with status %d; no shape tried\n", prog[0], st);
    rc = 1;
  } else if (cgp_report_load(report, &base, err, sizeof err) != 0) {
    fprintf(stderr, "cgpredict blocks: %s\n", err);
    rc = 1;
  }
  for (int i = 0; i < NCAND && !rc; i++) {
    char shapes[64];
    snprintf(shapes, sizeof shapes, "%s,%s,%s", cand(0, i), cand(1, i), cand(2, i));
    snprintf(path, sizeof path, "%s/run%d.json", tmpl, i);
    st = run(prog, path, shapes, 1);
    cJSON *r = NULL;
    if (st != 0 || cgp_report_load(path, &r, err, sizeof err) != 0) {
      fprintf(stderr, "cgpredict blocks: the run with CGPREDICT_BLOCK=%s failed (status %d): shapes skipped\n",
              shapes, st);
      unlink(path);
      continue;
    }
    collect(base, r);
    cJSON_Delete(r);
    unlink(path);
    runs++;
  }
  rmdir(tmpl);
  if (rc) { cJSON_Delete(base); return rc; }
  /* the suggestions from block_whatif, the report rewritten whole */
  char **names = NULL;
  size_t n = cgp_report_devices(base, &names);
  cgp_device *devs = calloc(n ? n : 1, sizeof *devs);
  for (size_t i = 0; i < n && !rc; i++)
    if (!devs || cgp_device_find(names[i], &devs[i], err, sizeof err) != 0) rc = 1;
  /* the FPGAs the run predicted, predicted again (cgp_report_predict replaces the list) */
  char **fnames = NULL;
  size_t nf = cgp_report_fpga_devices(base, &fnames);
  cgp_fpga_device *fdevs = calloc(nf ? nf : 1, sizeof *fdevs);
  for (size_t i = 0; i < nf && !rc; i++)
    if (!fdevs || cgp_fpga_device_find(fnames[i], &fdevs[i], err, sizeof err) != 0) rc = 1;
  if (!rc && (cgp_report_predict(base, devs, n, err, sizeof err) != 0 || cgp_report_predict_fpga(base, fdevs, nf) != 0 ||
              cgp_report_write(base, report, err, sizeof err) != 0))
    rc = 1;
  cgp_device_names_free(fnames, nf);
  free(fdevs);
  if (rc) fprintf(stderr, "cgpredict blocks: %s\n", devs ? err : "out of memory");
  else {
    fprintf(stderr, "cgpredict blocks: %d candidate runs; the shapes' times are in %s (block_whatif)\n", runs, report);
    cgp_report_print_summary(stderr, base, report);
  }
  cgp_device_names_free(names, n);
  free(devs);
  cJSON_Delete(base);
  return rc;
}
