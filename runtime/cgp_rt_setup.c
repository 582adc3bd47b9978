/* cgp_rt_setup.c: set-up at the first launch (devices, environment), and the handlers that end
   the run: at exit the report (rt_write_report, cgp_rt_report.c) and its files, on a crash or a
   fork what must not be left or written twice. */
#include "cgp_rt_internal.h"
#include "cgp_fpga.h"
#include "cgp_file.h"
#include "cgp_rt_file.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The program's session: its devices, set up here (rt_report_install), and their caches. */
static rt_session *const S = &cgp_rt_g.session;

#define RT_DEFAULT_REPORT "cgpredict-report.json"

/* A set-up error (environment, device files): the program comes first, so it runs on untraced;
   the message says what failed and that no report will be written (CGPREDICT_STRICT=1 turns its
   exit status 0 into 1). */
static void fatal_setup(const char *msg) {
  char m[4800];
  snprintf(m, sizeof m, "%s; the program runs on without cgpredict, no report is written", msg);
  rt_tool_failure(m);
  cgp_rt_g.disabled = 1;
}

/* An on/off variable: "0" or "1", unset or empty its default; anything else a set-up error. */
static int switch_var(const char *name, int dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
    char m[128];
    snprintf(m, sizeof m, "%s: expected 0 or 1", name);
    fatal_setup(m);
    return dflt;
  }
  return v[0] == '1';
}

/* A GPU or FPGA of that name is already in the lists. */
static int named_before(const char *name) {
  for (size_t i = 0; i < S->ndev; i++)
    if (strcmp(S->dev[i].name, name) == 0) return 1;
  for (size_t i = 0; i < S->nfpga; i++)
    if (strcmp(S->fpga[i].name, name) == 0) return 1;
  return 0;
}

/* One device by name into the next slot; 0 on success, else the tool is disabled. An FPGA goes
   to the FPGA list: the trace is a GPU's; the FPGA's estimate comes from the kernel's nest at exit. */
static int add_device(const char *name) {
  char err[1024], msg[1200];
  if (named_before(name)) {                          /* one report key, one column per device */
    snprintf(msg, sizeof msg, "CGPREDICT_DEVICE: '%.200s' named twice", name);
    fatal_setup(msg);
    return -1;
  }
  if (cgp_device_name_is_fpga(name)) {
    cgp_fpga_device *more = S->nfpga < RT_MAX_DEVICES ? realloc(S->fpga, (S->nfpga + 1) * sizeof *more) : NULL;
    if (!more) {
      snprintf(msg, sizeof msg, "CGPREDICT_DEVICE: more than %d FPGA devices, or out of memory", RT_MAX_DEVICES);
      fatal_setup(msg);
      return -1;
    }
    S->fpga = more;
    if (cgp_fpga_device_find(name, &S->fpga[S->nfpga], err, sizeof err) != 0) {
      snprintf(msg, sizeof msg, "CGPREDICT_DEVICE: %s", err);
      fatal_setup(msg);
      return -1;
    }
    S->nfpga++;
    return 0;
  }
  if (S->ndev == RT_MAX_DEVICES) {
    snprintf(msg, sizeof msg, "CGPREDICT_DEVICE: more than %d devices", RT_MAX_DEVICES);
    fatal_setup(msg);
    return -1;
  }
  if (cgp_device_find(name, &S->dev[S->ndev], err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "CGPREDICT_DEVICE: %s", err);
    fatal_setup(msg);
    return -1;
  }
  S->ndev++;
  return 0;
}

/* CGPREDICT_DEVICE: a comma-separated list, or "all" (every device file); unset: the default
   set (devices/default-devices.txt, else every file). */
static void load_devices(void) {
  const char *env = getenv("CGPREDICT_DEVICE");
  if (env && *env && strcmp(env, "all") != 0) {
    char *list = strdup(env), *save = NULL;
    for (char *name = list ? strtok_r(list, ",", &save) : NULL; name; name = strtok_r(NULL, ",", &save))
      if (add_device(name) != 0) break;
    free(list);
  } else {
    char **names = NULL;
    size_t n = env && *env ? cgp_device_all_names(&names) : cgp_device_names(&names);
    for (size_t i = 0; i < n; i++)
      if (add_device(names[i]) != 0) break;
    cgp_device_names_free(names, n);
  }
  if (cgp_rt_g.disabled) return;
  if (!S->ndev) {
    char msg[4200];
    if (S->nfpga)
      snprintf(msg, sizeof msg, "CGPREDICT_DEVICE names FPGA devices only: name a GPU too (the run traces the "
               "kernels as a GPU runs them; the FPGA estimate needs the run's trip counts and bytes)");
    else
      snprintf(msg, sizeof msg, "no device files found in %s (set CGPREDICT_DEVICES_DIR)", cgp_devices_dir());
    fatal_setup(msg);
    return;
  }
  const char *din = getenv("CGPREDICT_DIN");
  struct stat st;
  if (din && *din && stat(din, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    char msg[4400];                     /* /dev/null would make /dev/null.<device>.din */
    snprintf(msg, sizeof msg, "CGPREDICT_DIN: '%.4000s' is a device or special file; it is the prefix of "
             "files PREFIX.<device>.din, so give a path prefix (or leave it unset for no din files)", din);
    fatal_setup(msg);
    return;
  }
  for (size_t i = 0; i < S->ndev && din && *din; i++) {
    /* as the report and the trace are written: a new path or a regular file only, never through a
       link or into a FIFO or device, a temporary beside it renamed at exit (cgp_file.h) */
    char *path = cgp_rt_g.din_path[i], err[4200];
    snprintf(path, sizeof cgp_rt_g.din_path[i], "%s.%s.din", din, S->dev[i].name);
    S->din[i] = cgp_file_stream_open(path, cgp_rt_g.din_tmp[i], sizeof cgp_rt_g.din_tmp[i], err, sizeof err);
    if (!S->din[i]) {
      char msg[4400];
      snprintf(msg, sizeof msg, "CGPREDICT_DIN: %.4300s", err);
      for (size_t j = 0; j < i; j++) {
        cgp_file_stream_abort(S->din[j], cgp_rt_g.din_tmp[j]);
        S->din[j] = NULL;
      }
      fatal_setup(msg);
      return;
    }
  }
  for (size_t i = 0; i < S->ndev; i++) {
    S->l2[i] = rt_device_l2(&S->dev[i], S->general_caches);
    if (!S->l2[i]) {
      char msg[512];
      snprintf(msg, sizeof msg, "device '%s': its L2 geometry cannot be simulated (or out of memory)",
               S->dev[i].name);
      fatal_setup(msg);
      return;
    }
  }
}

/* A whole number of decimal digits only, at most `max`: strtoul alone also takes leading blanks, a
   sign and a negated value (-18446744073709551615 is 1), so such values got in. Returns the
   characters read (0: no digit, or over max); *v the value. */
static size_t whole_number(const char *s, unsigned long max, unsigned long *v) {
  size_t n = 0;
  unsigned long x = 0;
  for (; s[n] >= '0' && s[n] <= '9'; n++) {
    unsigned d = (unsigned)(s[n] - '0');
    if (x > (max - d) / 10) return 0;
    x = 10 * x + d;
  }
  *v = x;
  return n;
}

/* CGPREDICT_BLOCK="256,32x32": each shape applies to grids of its own dimensionality. */
static void parse_env_block(void) {
  const char *env = getenv("CGPREDICT_BLOCK");
  if (!env || !*env) return;
  char *list = strdup(env), *save = NULL;
  for (char *shape = strtok_r(list, ",", &save); shape; shape = strtok_r(NULL, ",", &save)) {
    unsigned v[3] = {1, 1, 1}, n = 0;
    char *p = shape, *end;
    while (n < 3) {
      unsigned long x = 0;
      end = p + whole_number(p, 1024, &x);
      if (end == p || x == 0) break;
      v[n++] = (unsigned)x;
      if (*end != 'x') { p = end; break; }
      p = end + 1;
    }
    if (!n || *p || p[-1] == 'x' || v[0] * v[1] * v[2] > 1024 || cgp_rt_g.env_block[n - 1][0]) {
      char msg[256];
      snprintf(msg, sizeof msg, "CGPREDICT_BLOCK: '%.100s' is not a block shape like 256 or 32x8 (at most 1024 "
               "threads, one shape per dimensionality)", shape);
      fatal_setup(msg);
      break;
    }
    memcpy(cgp_rt_g.env_block[n - 1], v, sizeof v);
  }
  free(list);
}

static void parse_env(void) {
  const char *q = getenv("CGPREDICT_QUIET");
  if (q && *q && strcmp(q, "0") != 0 && strcmp(q, "1") != 0) fatal_setup("CGPREDICT_QUIET: expected 0 or 1");
  cgp_rt_g.quiet = q && strcmp(q, "1") == 0;
  const char *tmb = getenv("CGPREDICT_TRACE_MB");
  unsigned long tv = RT_DEFAULT_TRACE_MB;
  if (tmb && *tmb && (tmb[whole_number(tmb, 1ul << 22, &tv)] || tv == 0))   /* (0 read: tmb[0] stops it) */
    fatal_setup("CGPREDICT_TRACE_MB: expected a number of MiB, 1 to 4194304");
  cgp_rt_g.trace_cap_bytes = (uint64_t)tv << 20;
  const char *s = getenv("CGPREDICT_SAMPLE");
  if (!s || !*s || strcmp(s, "run") == 0) cgp_rt_g.sample_mode = 0;
  else if (strcmp(s, "skip") == 0) cgp_rt_g.sample_mode = 1;
  else if (strcmp(s, "full") == 0) cgp_rt_g.sample_mode = 2;
  else fatal_setup("CGPREDICT_SAMPLE: expected run, skip or full");
  const char *it = getenv("CGPREDICT_ITERATIONS");
  if (it && *it && strcmp(it, "sample") != 0 && strcmp(it, "all") != 0)
    fatal_setup("CGPREDICT_ITERATIONS: expected sample or all");
  cgp_rt_g.sample_iterations = cgp_rt_g.sample_mode != 2 && !(it && strcmp(it, "all") == 0);
  cgp_rt_g.fold = switch_var("CGPREDICT_FOLD", 1);
  cgp_rt_g.fast = switch_var("CGPREDICT_FAST", 1);
  S->general_caches = !cgp_rt_g.fast;
  S->whatif = switch_var("CGPREDICT_WHATIF", 1);
  cgp_rt_g.converge = switch_var("CGPREDICT_CONVERGE", 1);
  const char *mb = getenv("CGPREDICT_MEMORY_MB");
  unsigned long v = RT_DEFAULT_BUDGET_MB;
  if (mb && *mb && (mb[whole_number(mb, 1ul << 20, &v)] || v == 0))
    fatal_setup("CGPREDICT_MEMORY_MB: expected a number of MiB, 1 to 1048576");
  cgp_rt_g.budget_bytes = (size_t)v << 20;
  cgp_rt_g.block_force = switch_var("CGPREDICT_BLOCK_FORCE", 0);
  const char *r = getenv("CGPREDICT_REPORT");
  snprintf(cgp_rt_g.report_path, sizeof cgp_rt_g.report_path, "%s", r && *r ? r : RT_DEFAULT_REPORT);
  parse_env_block();
}

static void at_exit(void) {
  if (getpid() != cgp_rt_g.pid) return;       /* a fork's exit: the files are the parent's */
  for (size_t i = 0; i < S->ndev; i++) {
    char err[4400], msg[4600];
    if (S->din[i] &&
        cgp_file_stream_commit(S->din[i], cgp_rt_g.din_tmp[i], cgp_rt_g.din_path[i], err, sizeof err) != 0) {
      snprintf(msg, sizeof msg, "CGPREDICT_DIN: %s; that din file is not written", err);
      rt_tool_failure(msg);
    }
    S->din[i] = NULL;
  }
  const rt_kernel *k = rt_current_kernel();
  if (k) {
    fflush(stdout);
    /* a longjmp out of the nest looks the same until another nest begins (which ends it): the
       runtime sees no exit edge either way */
    fprintf(stderr, "cgpredict: the program exited inside kernel '%s' (%s:%u) before the loop nest "
            "finished (or left it by longjmp and entered no nest after: the two cannot be told apart); "
            "no report written\n", k->name, k->file, k->line);
    rt_trace_finish(0);
    return;
  }
  rt_write_report();
}

/* Async-signal-safe: only write(2) and fixed buffers. */
static void put(const char *s) {
  ssize_t rc = write(STDERR_FILENO, s, strlen(s));
  (void)rc;
}

/* A fatal signal whose disposition was the default: the temporary trace file goes, a line
   says what happened, and the signal is raised again with the default action, so the program
   ends as it would have without cgpredict. */
static void on_crash(int sig) {
  if (getpid() != cgp_rt_g.pid) {              /* a fork's: nothing of it is ours to remove */
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  const rt_kernel *k = rt_current_kernel();
  char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), 0, 0};
  rt_trace_unlink_on_signal();
  for (size_t i = 0; i < S->ndev; i++)
    if (S->din[i] && cgp_rt_g.din_tmp[i][0]) unlink(cgp_rt_g.din_tmp[i]);
  int stopped = sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
  put(stopped ? "cgpredict: the program was stopped (signal " : "cgpredict: the program crashed (signal ");
  put(sig >= 10 ? num : num + 1);
  if (k) {
    put(") inside kernel '");
    put(k->name);
    put("'");
  } else {
    put(")");
  }
  put("; no report written\n");
  signal(sig, SIG_DFL);
  raise(sig);
}

/* quick_exit runs no atexit handler, so no report: its own handlers run, and this one says so and
   removes what a signal would (named temporaries, where the file system has no O_TMPFILE), rather
   than ending in silence. Async-signal-safe, as quick_exit may be called from a signal handler. */
static void at_quick_exit_handler(void) {
  if (getpid() != cgp_rt_g.pid) return;        /* a fork's: nothing of it is ours */
  const rt_kernel *k = rt_current_kernel();
  rt_trace_unlink_on_signal();
  for (size_t i = 0; i < S->ndev; i++)
    if (S->din[i] && cgp_rt_g.din_tmp[i][0]) unlink(cgp_rt_g.din_tmp[i]);
  put("cgpredict: the program ended by quick_exit");
  if (k) {
    put(" inside kernel '");
    put(k->name);
    put("'");
  }
  put(", which runs no atexit handler; no report written\n");
}

/* ---- fork (issue 31 item 8) ----------------------------------------------------------------------

   A child of fork() inherits the runtime's state: the open trace and din streams (with whatever
   their buffers hold), the nest the parent may be inside, the exit and signal handlers. Were it to
   act on them, it would write its copy of the buffers into the parent's files, commit or remove
   the parent's temporaries, and write its own report over the parent's. So a child runs untraced
   and leaves every file alone: at the fork its copies of the buffers are dropped unwritten and the
   nest goes on untraced; its exit and signal handlers do nothing (they compare the pid with the
   one recorded at start-up, which also covers a child made without fork's handlers); a marked
   nest the child enters is said once on stderr, and is in no report. */

static void say_forked_once(void) {
  static int said;
  if (said) return;
  said = 1;
  char msg[200];
  snprintf(msg, sizeof msg, "cgpredict: process %ld, a fork of process %ld, runs its marked nests untraced: "
           "they are in no report\n", (long)getpid(), cgp_rt_g.pid);
  fputs(msg, stderr);                        /* no fflush(stdout): the child's output is the program's,
                                                flushed when the child would flush it */
}

static void after_fork_child(void) {
  rt_trace_forget_in_child();
  for (size_t i = 0; i < S->ndev; i++) {
    if (S->din[i]) __fpurge(S->din[i]);
    S->din[i] = NULL;
    cgp_rt_g.din_tmp[i][0] = '\0';
  }
  rt_nest_forget_in_child();
  cgp_rt_g.forked = 1;
  cgp_rt_g.disabled = 1;
}

/* issue 31 item 11: a run whose marked nests never began (a loop that runs zero times is not
   entered: the pass's hook is on the nest's entry edge) wrote no report and said nothing, an
   earlier run's report left as if it were this one's. The report reflects the run: registered at
   start-up, so after every handler of the program, this handler writes it, with no kernel and a
   note saying why, unless a nest began (then at_exit, registered at the first nest, wrote it).
   Only in a program the pass instrumented (cgp_abi.h, CGP_MARKED_PROGRAM): the driver and the
   tests link the runtime too. */
extern const int cgp_rt_marked_program __attribute__((weak));     /* CGP_MARKED_PROGRAM */

/* Random where the system gives randomness, else the time and the pid: unique enough to tell one
   run's trace from another's. */
static void new_run_id(void) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec << 20 ^ (uint64_t)getpid();
  }
  cgp_rt_g.run_id = v;
}

static void at_exit_if_no_nest(void) {
  if (&cgp_rt_marked_program == NULL || cgp_rt_g.initialised || cgp_rt_g.forked || getpid() != cgp_rt_g.pid) return;
  cgp_rt_g.initialised = 1;
  new_run_id();
  parse_env();
  if (!cgp_rt_g.disabled) load_devices();
  if (!cgp_rt_g.disabled) at_exit();
}

/* After rt_file_init (priority 101), so that its strict-mode handler runs after this one's. */
__attribute__((constructor(102))) static void rt_report_init(void) {
  cgp_rt_g.pid = (long)getpid();
  pthread_atfork(NULL, NULL, after_fork_child);
  atexit(at_exit_if_no_nest);
}

void rt_report_install(void) {
  if (!cgp_rt_g.forked && getpid() != cgp_rt_g.pid) after_fork_child();     /* made without fork() */
  if (cgp_rt_g.forked) {
    say_forked_once();
    return;
  }
  if (cgp_rt_g.initialised) return;
  cgp_rt_g.initialised = 1;
  new_run_id();
  parse_env();
  if (!cgp_rt_g.disabled) load_devices();
  if (cgp_rt_g.disabled) return;
  atexit(at_exit);
  at_quick_exit(at_quick_exit_handler);
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(sigs[i], on_crash);
  }
}
