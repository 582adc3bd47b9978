/* cgp_build.c: a compiler command line, with the marked sources compiled for tracing.

   For a source holding `#pragma cgpredict kernel`:
     clang-14 -O1 -Xclang -disable-llvm-passes -g -fno-vectorize -fno-slp-vectorize
       -fno-unroll-loops -emit-llvm -c src
       (unoptimized bitcode, but without optnone: pass/ marks the source-level accesses, then
        runs the -O1 pipeline itself: scalars in registers, no vector or unrolled copies of the
        loop body; docs/pipeline.md)
     -> pass/ instruments the marked nests -> clang-14 -O2 -fno-slp-vectorize
       -mllvm -enable-unroll-and-jam -c -> object
   Other sources and every flag go to the user's compiler unchanged; a link step gets the
   runtime archive and its libraries appended. */
#include "cgp_build.h"
#include "cgp_pass.h"
#include "cgp_abi.h"
#include "cgp_fpga_cmd.h"
#include "cgp_pragma.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* SIGINT, SIGTERM or SIGHUP arrived: the child compiler is stopped, the build stops at the next
   step, the temporary directory is removed and the signal is raised again. */
static volatile sig_atomic_t stop_signal;
static volatile pid_t child_pid;

static void on_stop(int sig) {
  stop_signal = sig;
  if (child_pid > 0) kill(child_pid, sig);
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof *stop_signals)

static void catch_stops(struct sigaction old[NSTOP]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;                 /* no SA_RESTART: waitpid returns EINTR */
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < NSTOP; i++) {
    sigaction(stop_signals[i], NULL, &old[i]);
    if (old[i].sa_handler != SIG_IGN) sigaction(stop_signals[i], &sa, NULL);   /* nohup stays nohup */
  }
}

static void restore_stops(const struct sigaction old[NSTOP]) {
  for (size_t i = 0; i < NSTOP; i++) sigaction(stop_signals[i], &old[i], NULL);
}

/* The temporary directory holds only files we put there: remove them, then it. */
static void remove_tmpdir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    for (struct dirent *e; (e = readdir(d));) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char p[4400];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

typedef struct {
  char **v;
  int n, cap;
} args;

static void push(args *a, const char *s) {
  if (a->n + 2 > a->cap) a->v = realloc(a->v, (size_t)(a->cap = a->cap ? 2 * a->cap : 32) * sizeof *a->v);
  a->v[a->n++] = strdup(s);
  a->v[a->n] = NULL;
}

static void args_free(args *a) {
  for (int i = 0; i < a->n; i++) free(a->v[i]);
  free(a->v);
}

static int run(char **argv) {
  if (getenv("CGPREDICT_VERBOSE")) {
    fputs("cgpredict:", stderr);
    for (char **p = argv; *p; p++) fprintf(stderr, " %s", *p);
    fputc('\n', stderr);
  }
  fflush(NULL);
  if (stop_signal) return 128 + stop_signal;
  pid_t pid = fork();
  if (pid < 0) { perror("cgpredict: fork"); return 1; }
  if (pid == 0) {
    execvp(argv[0], argv);
    fprintf(stderr, "cgpredict: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  child_pid = pid;
  if (stop_signal) kill(pid, stop_signal);  /* arrived between the check and the fork */
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) { child_pid = 0; return 1; }
  child_pid = 0;
  if (stop_signal) return 128 + stop_signal;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Options whose value is the next argument. */
static int takes_value(const char *a) {
  static const char *const opts[] = {"-o", "-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter",
                                     "-x", "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor",
                                     "-L", "-l", "-T", "-z", "-u", "-e", "-imacros", NULL};
  for (int i = 0; opts[i]; i++)
    if (strcmp(a, opts[i]) == 0) return 1;
  return 0;
}

/* Flags that change how a source parses, for clang and libclang. */
static int parse_flag(const char *a) {
  return strncmp(a, "-I", 2) == 0 || strncmp(a, "-D", 2) == 0 || strncmp(a, "-U", 2) == 0 ||
         strncmp(a, "-std=", 5) == 0 || strcmp(a, "-include") == 0 || strcmp(a, "-isystem") == 0 ||
         strcmp(a, "-iquote") == 0 || strcmp(a, "-idirafter") == 0 || strcmp(a, "-imacros") == 0 ||
         strncmp(a, "-f", 2) == 0 || strncmp(a, "-m", 2) == 0;
}

/* The length of a source's extension (".c" 2; C++: ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++",
   ".C", as GCC takes them), 0 if a is no C or C++ source. */
static size_t source_ext(const char *a) {
  static const char *const ext[] = {".c", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", NULL};
  const char *dot = strrchr(a, '.');
  if (a[0] == '-' || !dot || dot == a || strchr(dot, '/')) return 0;
  for (int i = 0; ext[i]; i++)
    if (strcmp(dot, ext[i]) == 0) return strlen(dot);
  return 0;
}

static int is_c_source(const char *a) { return source_ext(a) != 0; }

/* A C++ source: by its extension, or a .c file a C++ driver compiles (g++ foo.c compiles C++). */
static int is_cxx_source(const char *a, int cxx_driver) {
  size_t e = source_ext(a);
  return e > 2 || (e == 2 && (a[strlen(a) - 1] == 'C' || cxx_driver));
}

static const char *base_of(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

typedef struct {
  int compile_only, passthrough;
  int cxx_driver;              /* the user's compiler is a C++ driver (c++, g++, clang++) */
  const char *output;
  args pflags;                 /* parse flags, separate values joined */
  int *src;                    /* argument indices of C and C++ sources */
  int nsrc;
} cmdline;

static void parse_cmdline(int argc, char **cmd, cmdline *c) {
  memset(c, 0, sizeof *c);
  c->cxx_driver = cgp_is_cxx_compiler(cmd[0]);
  c->src = calloc((size_t)argc, sizeof *c->src);
  for (int i = 1; i < argc; i++) {
    const char *a = cmd[i];
    if (strcmp(a, "-c") == 0) c->compile_only = 1;
    else if (strcmp(a, "-E") == 0 || strcmp(a, "-S") == 0 || strcmp(a, "-M") == 0 || strcmp(a, "-MM") == 0)
      c->passthrough = 1;
    if (takes_value(a) && i + 1 < argc) {
      if (strcmp(a, "-o") == 0) c->output = cmd[i + 1];
      if (parse_flag(a)) { push(&c->pflags, a); push(&c->pflags, cmd[i + 1]); }
      i++;
      continue;
    }
    if (is_c_source(a)) c->src[c->nsrc++] = i;
    else if (parse_flag(a) && strncmp(a, "-fsanitize", 10) != 0) push(&c->pflags, a);
  }
}

static const char *clang_path(void) {
  const char *e = getenv("CGPREDICT_CLANG");
  return e && *e ? e : CGP_CLANG;
}

static const char *ld_path(void) {
  const char *e = getenv("CGPREDICT_LD");
  return e && *e ? e : "ld";
}

static const char *runtime_stub(void) {
  const char *e = getenv("CGPREDICT_RUNTIME_STUB");
  return e && *e ? e : CGP_RUNTIME_STUB;
}

/* What clang (argv[0] replaced by clang-14's path) writes to its stdout (fd 1) or stderr (fd 2),
   in out ("" if it cannot run). */
static void clang_output(char **argv, int fd_out, char *out, size_t len) {
  int fd[2];
  out[0] = '\0';
  if (len < 2 || pipe(fd) != 0) return;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) { close(fd[0]); close(fd[1]); return; }
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, fd_out == 1 ? 2 : 1);
    dup2(fd[1], fd_out);
    close(fd[0]); close(fd[1]);
    execvp(clang_path(), argv);
    _exit(127);
  }
  close(fd[1]);
  size_t n = 0;
  for (ssize_t r; n + 1 < len && (r = read(fd[0], out + n, len - 1 - n)) != 0;) {
    if (r < 0) { if (errno == EINTR) continue; break; }
    n += (size_t)r;
  }
  close(fd[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  out[n] = '\0';
}

/* The first line clang prints for `clang opt`, in out ("" if it fails). */
static void clang_says(const char *opt, char *out, size_t len) {
  char *argv[] = {(char *)clang_path(), (char *)opt, NULL};
  clang_output(argv, 1, out, len);
  out[strcspn(out, "\n")] = '\0';
}

/* The parse flags clang-14 does not know, gcc's own (`-ftree-vectorizer-verbose=2`, `-fopt-info-vec`:
   HPCCG's Makefile), which stopped every marked source's compile with "clang: error: unknown
   argument": left out of clang-14's compiles, each said once. The user's compiler has checked the
   source with them (check_with_users_compiler), and they do not change how it parses. */
static void drop_unknown_to_clang(args *f) {
  int any = 0;
  for (int i = 0; i < f->n; i++) any |= f->v[i][0] == '-' && (f->v[i][1] == 'f' || f->v[i][1] == 'm');
  if (!any) return;
  args a = {0};
  push(&a, clang_path()); push(&a, "-fsyntax-only"); push(&a, "-x"); push(&a, "c");
  for (int i = 0; i < f->n; i++) push(&a, f->v[i]);
  push(&a, "/dev/null");
  char out[8192];
  clang_output(a.v, 2, out, sizeof out);
  args_free(&a);
  static const char *const says[] = {"unknown argument: '", "unsupported option '", NULL};
  for (char *line = out, *end; *line; line = *end ? end + 1 : end) {
    end = line + strcspn(line, "\n");
    char was = *end;
    *end = '\0';                             /* one line at a time */
    for (int s = 0; says[s]; s++) {
      const char *at = strstr(line, says[s]);
      if (!at) continue;
      at += strlen(says[s]);
      size_t len = strcspn(at, "'\n");
      int kept = 0;
      for (int i = 0; i < f->n; i++) {
        if (strlen(f->v[i]) == len && strncmp(f->v[i], at, len) == 0) { free(f->v[i]); continue; }
        f->v[kept++] = f->v[i];
      }
      if (kept < f->n)
        fprintf(stderr, "cgpredict: note: clang-14 does not take %.*s (your compiler's own flag): the marked "
                        "sources are instrumented without it; your compiler checked them with it\n", (int)len, at);
      f->n = kept;
      f->v[f->n] = NULL;
    }
    *end = was;
  }
}

/* LLVM's OpenMP runtime where clang-14 links it from (-lomp in its library directory, the
   resource directory's grandparent: /usr/lib/llvm-14/lib on Debian), in out; 0 if it is not
   installed there. It also serves the GOMP_* calls of objects GCC compiled, so one runtime runs
   the whole program's OpenMP. */
static int llvm_openmp_runtime(char *out, size_t len) {
  char dir[4096];
  clang_says("-print-resource-dir", dir, sizeof dir);
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    *slash = '\0';
  }
  if ((size_t)snprintf(out, len, "%s/libomp.so", dir) >= len) return 0;
  return dir[0] == '/' && access(out, R_OK) == 0;
}

/* What to say when `what` (a marked source, or an object made of one) holds clang's OpenMP
   calls and llvm_openmp_runtime finds no libomp. */
static void say_no_libomp(const char *what) {
  fprintf(stderr,
          "cgpredict: %s holds a marked nest compiled with -fopenmp: clang-14 compiles it, and its OpenMP code "
          "needs LLVM's OpenMP runtime (libomp.so beside clang-14's libraries), not installed here. Install it "
          "(Debian: libomp-14-dev), compile that source without -fopenmp, or move the marked nest to a file "
          "without OpenMP\n",
          what);
}

/* The object file at path names `what` (a symbol it defines or needs): its bytes hold the string. */
static int object_names(const char *path, const char *what) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t w = strlen(what), have = 0;
  char buf[1 << 16];
  int found = 0;
  for (size_t r; !found && (r = fread(buf + have, 1, sizeof buf - have, f)) > 0;) {
    have += r;
    for (size_t i = 0; !found && i + w <= have; i++) found = memcmp(buf + i, what, w) == 0;
    size_t keep = have < w ? have : w - 1;           /* a name split across two reads */
    memmove(buf, buf + have - keep, keep);
    have = keep;
  }
  fclose(f);
  return found;
}

/* Options of the user's command that are not diagnostics' business: output, stage, linking,
   dependency files (written by the real compile of the other sources, never by a check). An
   option that takes its value in the next argument is dropped with it (drops_value). */
static int drops_value(const char *a) {
  return strcmp(a, "-o") == 0 || strncmp(a, "-M", 2) == 0 || strcmp(a, "-l") == 0 || strcmp(a, "-L") == 0 ||
         strcmp(a, "-Xlinker") == 0;
}

/* An argument naming an object or an archive (not an option). */
static int object_or_archive(const char *a) {
  size_t n = strlen(a);
  return a[0] != '-' && n > 2 && (strcmp(a + n - 2, ".o") == 0 || strcmp(a + n - 2, ".a") == 0);
}

static int not_for_the_check(const char *a) {
  static const char *const exact[] = {"-c", "-S", "-E", "-shared", "-static", "-pie", "-rdynamic", NULL};
  for (int i = 0; exact[i]; i++)
    if (strcmp(a, exact[i]) == 0) return 1;
  size_t n = strlen(a);
  return object_or_archive(a) || (a[0] != '-' && n > 3 && strstr(a, ".so") != NULL) || strncmp(a, "-l", 2) == 0 ||
         strncmp(a, "-L", 2) == 0 || strncmp(a, "-Wl,", 4) == 0 || strncmp(a, "-M", 2) == 0;
}

/* The user's own compiler checks a marked source with every flag the user gave it (warnings,
   -Werror, -pedantic-errors, the standard), so its diagnostics and its verdict are the ones a
   plain build gives; only the pragma it cannot know is not warned about. 0 if it accepts the
   source. (The instrumented object is made by clang-14, whose warnings would differ.) */
static int check_with_users_compiler(int argc, char **cmd, const char *src) {
  args a = {0};
  push(&a, cmd[0]);
  for (int i = 1; i < argc; i++) {
    const char *x = cmd[i];
    if (is_c_source(x)) continue;
    if (takes_value(x) && i + 1 < argc) {          /* before the option alone: its value goes with it */
      if (!drops_value(x)) {
        push(&a, x);
        push(&a, cmd[i + 1]);
      }
      i++;
      continue;
    }
    if (!not_for_the_check(x)) push(&a, x);
  }
  push(&a, "-fsyntax-only"); push(&a, "-Wno-unknown-pragmas"); push(&a, src);
  int rc = run(a.v);
  args_free(&a);
  return rc;
}

/* Under `cgpredict build -- make`: tell the wrapping cgpredict that a compiler ran through it
   (the file RAN_NOTE in its directory) and that a marked source was compiled (MARKED_NOTE), so
   that a build that did neither can say which. */
#define MARKED_NOTE "marked-compiled"
#define RAN_NOTE "compiler-ran"
static void note_in_wrap_dir(const char *note) {
  const char *dir = getenv("CGPREDICT_WRAP_DIR");
  if (!dir || !*dir) return;
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, note);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
}

static void note_marked_compiled(void) { note_in_wrap_dir(MARKED_NOTE); }

/* The flags that parse source src, for clang-14 and libclang: the command's, and `-x c++` for a
   C++ source (needed where the extension says C: g++ foo.c compiles C++). */
static args source_flags(const cmdline *c, const char *src) {
  args f = {0};
  for (int i = 0; i < c->pflags.n; i++) push(&f, c->pflags.v[i]);
  if (is_cxx_source(src, c->cxx_driver)) { push(&f, "-x"); push(&f, "c++"); }
  return f;
}

/* Compile one marked source to an object with its parse flags (source_flags); 0 on success. */
static int compile_marked(const char *src, cgp_kernel_pragma *k, size_t nk, const cmdline *c, const args *flags,
                          const char *tmpdir, int idx, const char *obj) {
  char bc[4200], ibc[4200];
  snprintf(bc, sizeof bc, "%s/%d.bc", tmpdir, idx);
  snprintf(ibc, sizeof ibc, "%s/%d.inst.bc", tmpdir, idx);
  args a = {0};
  push(&a, clang_path());
  /* -fno-builtin: a loop that only clears or copies stays a loop instead of becoming memset;
     -fno-discard-value-names: arrays keep their names for the report */
  const char *ir_flags[] = {"-O1", "-Xclang", "-disable-llvm-passes", "-g", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops",
                            "-fno-builtin", "-fno-discard-value-names", "-Wno-unknown-pragmas",
                            "-emit-llvm", "-c", NULL};
  for (int i = 0; ir_flags[i]; i++) push(&a, ir_flags[i]);
  for (int i = 0; i < flags->n; i++) push(&a, flags->v[i]);
  /* the user's compiler has given its diagnostics (check_with_users_compiler): clang-14's, in
     other words, would print each warning a second time (NPB IS: six, twice) */
  push(&a, "-w");
  push(&a, src); push(&a, "-o"); push(&a, bc);
  int rc = run(a.v);
  args_free(&a);
  if (rc) return rc;
  char err[8192], warn[8192];
  /* the FPGA side's view of each nest, carried in its descriptor to the run's report */
  char **fpga = calloc(nk ? nk : 1, sizeof *fpga);
  if (fpga) cgp_fpga_carry(src, flags->v, flags->n, k, nk, fpga);
  for (size_t i = 0; i < nk; i++) k[i].fpga_json = fpga ? fpga[i] : NULL;
  rc = cgp_pass_instrument_file(bc, ibc, k, nk, err, sizeof err, warn, sizeof warn);
  for (size_t i = 0; i < nk; i++) {
    free(fpga ? fpga[i] : NULL);
    k[i].fpga_json = NULL;
  }
  free(fpga);
  if (rc != 0) {
    fprintf(stderr, "%s", err);
    if (err[0] && err[strlen(err) - 1] != '\n') fputc('\n', stderr);
    return 1;
  }
  if (warn[0]) fputs(warn, stderr);
  /* an object the user links (cc -c) carries the runtime's weak stub, so that a plain cc links
     it too (runtime/cgp_rt_stub.c); one linked here gets the runtime archive instead */
  char pre[4200];
  snprintf(pre, sizeof pre, "%s/%d.pre.o", tmpdir, idx);
  args b = {0};
  push(&b, clang_path());
  /* -fno-slp-vectorize: the hooks store each access's address to consecutive slots of a buffer;
     SLP would try to vectorize those chains, quadratic in the accesses of a block */
  push(&b, "-O2"); push(&b, "-fno-slp-vectorize");
  /* the chunk loops' request (pass/cgp_chunk.c): unroll and jam where it is proven safe, and no
     warning where it is not (the loop is ours, not the user's) */
  push(&b, "-mllvm"); push(&b, "-enable-unroll-and-jam"); push(&b, "-Wno-pass-failed");
  push(&b, "-fPIC"); push(&b, "-c");
  push(&b, ibc); push(&b, "-o"); push(&b, c->compile_only ? pre : obj);
  rc = run(b.v);
  args_free(&b);
  if (!rc && c->compile_only) {
    args l = {0};
    push(&l, ld_path());
    push(&l, "-r"); push(&l, "-o"); push(&l, obj);
    push(&l, pre); push(&l, runtime_stub());
    rc = run(l.v);
    args_free(&l);
    unlink(pre);
  }
  unlink(bc);
  unlink(ibc);
  return rc;
}

static const char *runtime_lib(void) {
  const char *e = getenv("CGPREDICT_RUNTIME");
  return e && *e ? e : CGP_RUNTIME_LIB;
}

/* A new temporary directory `prefix`.XXXXXX under $TMPDIR (default /tmp), with the stop signals
   caught (their old handlers in old) so that it is removed on every exit: 0, or -1 having said
   why (handlers restored). */
static int enter_tmpdir(const char *prefix, char *dir, size_t len, struct sigaction old[NSTOP]) {
  const char *tmp_root = getenv("TMPDIR");
  snprintf(dir, len, "%s/%s.XXXXXX", tmp_root && *tmp_root ? tmp_root : "/tmp", prefix);
  catch_stops(old);
  if (mkdtemp(dir)) return 0;
  fprintf(stderr, "cgpredict: cannot create a temporary directory '%s': %s\n", dir, strerror(errno));
  restore_stops(old);
  return -1;
}

/* The directory removed, the handlers restored; a stop signal that came is raised again. */
static void leave_tmpdir(const char *dir, const struct sigaction old[NSTOP]) {
  remove_tmpdir(dir);                      /* on every path: success, failure, signal */
  restore_stops(old);
  if (stop_signal) {
    fprintf(stderr, "cgpredict: stopped by signal %d; temporary files removed\n", (int)stop_signal);
    raise(stop_signal);                    /* the default action now: die of the signal */
  }
}

/* A marked loop inside an OpenMP construct of a file compiled with -fopenmp (RSBench's and
   XSBench's lookups, each under `#pragma omp parallel for`; RSBench's Makefile always adds
   -fopenmp): the file is compiled without OpenMP, so its OpenMP pragmas are ignored and the loop
   runs in order, one thread, as cgpredict traces it; other files and the link keep -fopenmp.
   1 (flags, k, nk replaced) when the file then scans clean, 0 otherwise. */
static int without_openmp(args *flags, const char *src, const char *scan_err, cgp_kernel_pragma **k, size_t *nk) {
  args serial = {0};
  for (int i = 0; i < flags->n; i++) push(&serial, flags->v[i]);
  push(&serial, "-fno-openmp");
  cgp_kernel_pragma *sk = NULL;
  size_t sn = 0;
  char err[8192];
  if (cgp_pragma_scan(src, (const char *const *)serial.v, serial.n, &sk, &sn, err, sizeof err) != 0 || !sn) {
    free(sk);
    args_free(&serial);
    return 0;
  }
  const char *at = strstr(scan_err, CGP_PRAGMA_IN_OPENMP), *line = at, *tag;
  while (line > scan_err && line[-1] != '\n') line--;        /* "file:line:col: error: " before it */
  tag = strstr(line, ": error: ");
  int loc = tag && tag < at ? (int)(tag - line) : 0;
  fprintf(stderr, "%.*s%swarning: " CGP_PRAGMA_IN_OPENMP ": %s is compiled without -fopenmp, so that the loop runs "
          "in order as cgpredict traces it (the file's OpenMP pragmas are ignored and its loops run on one thread; "
          "other files and the link keep -fopenmp): the program runs as with OMP_NUM_THREADS=1 in this file\n",
          loc, line, loc ? ": " : "", src);
  free(*k);
  *k = sk;
  *nk = sn;
  args_free(flags);
  *flags = serial;
  return 1;
}

int cgp_build(int argc, char **cmd) {
  cmdline c;
  parse_cmdline(argc, cmd, &c);
  if (c.passthrough) { free(c.src); args_free(&c.pflags); return run(cmd); }
  char tmpdir[4096];
  struct sigaction old_handlers[NSTOP];
  if (enter_tmpdir("cgpredict", tmpdir, sizeof tmpdir, old_handlers) != 0) {
    free(c.src);
    args_free(&c.pflags);
    return 1;
  }
  char **objs = calloc((size_t)argc, sizeof *objs);   /* objs[i]: object replacing argument i */
  int rc = 0, marked = 0;
  char libomp[4096] = "";                 /* LLVM's OpenMP runtime, when a marked source needs it */
  const char *openmp_src = NULL;
  for (int s = 0; s < c.nsrc && !rc && !stop_signal; s++) {
    const char *src = cmd[c.src[s]];
    cgp_kernel_pragma *k = NULL;
    size_t nk = 0;
    char err[8192];
    args flags = source_flags(&c, src);
    int scanned = cgp_pragma_scan(src, (const char *const *)flags.v, flags.n, &k, &nk, err, sizeof err);
    if (scanned != 0 && (strstr(err, "unknown argument: '") || strstr(err, "unsupported option '"))) {
      drop_unknown_to_clang(&c.pflags);        /* gcc's own flags: libclang and clang-14 refuse them */
      args_free(&flags);
      flags = source_flags(&c, src);
      scanned = cgp_pragma_scan(src, (const char *const *)flags.v, flags.n, &k, &nk, err, sizeof err);
    }
    if (scanned != 0 && strstr(err, CGP_PRAGMA_IN_OPENMP) && without_openmp(&flags, src, err, &k, &nk)) scanned = 0;
    unsigned unmarked_at = scanned == 0 && !nk ? cgp_pragma_written_line(src) : 0;
    if (scanned != 0) {
      fputs(err, stderr);
      if (err[0] && err[strlen(err) - 1] != '\n') fputc('\n', stderr);
      rc = 1;
    } else if (unmarked_at) {
      fprintf(stderr, "%s:%u: warning: this #pragma cgpredict is in code the preprocessor leaves out with these "
                      "flags (an #if or #ifdef that is false here): it marks nothing, and %s is compiled as your "
                      "compiler compiles it\n", src, unmarked_at, src);
    }
    if (scanned == 0 && nk) {
      char obj[4200];
      if (c.compile_only && c.output && c.nsrc == 1) snprintf(obj, sizeof obj, "%s", c.output);
      else if (c.compile_only)
        snprintf(obj, sizeof obj, "%.*s.o", (int)(strlen(base_of(src)) - source_ext(src)), base_of(src));
      else snprintf(obj, sizeof obj, "%s/%d.o", tmpdir, s);
      rc = check_with_users_compiler(argc, cmd, src);
      if (!rc) rc = compile_marked(src, k, nk, &c, &flags, tmpdir, s, obj);
      if (!rc) note_marked_compiled();
      objs[c.src[s]] = strdup(obj);
      marked++;
      if (!rc && cgp_openmp_enabled((const char *const *)c.pflags.v, c.pflags.n) && !openmp_src &&
          object_names(obj, "__kmpc_")) {                /* clang's OpenMP code is in it */
        openmp_src = src;
        if (!llvm_openmp_runtime(libomp, sizeof libomp)) libomp[0] = '\0';
        if (c.compile_only)
          fprintf(stderr,
                  "cgpredict: note: %s holds a marked nest and is compiled with -fopenmp, so clang-14 compiled it: "
                  "its OpenMP code calls LLVM's OpenMP runtime (libomp). Link with `cgpredict cc` (or c++), which adds it, "
                  "or add %s to your link command\n",
                  src, libomp[0] ? libomp : "libomp (Debian: libomp-14-dev)");
        else if (!libomp[0]) {
          say_no_libomp(src);
          rc = 1;
        }
      }
    }
    free(k);
    args_free(&flags);
  }
  if (stop_signal) rc = 128 + stop_signal;
  if (!rc) {
    args final = {0};
    int sources_left = 0;
    for (int i = 0; i < argc; i++) {
      if (objs[i] && c.compile_only) continue;                 /* already compiled to its object */
      if (c.compile_only && marked && c.nsrc == 1 && c.output && (strcmp(cmd[i], "-o") == 0 || cmd[i] == c.output))
        continue;
      push(&final, objs[i] ? objs[i] : cmd[i]);
    }
    for (int s = 0; s < c.nsrc; s++) sources_left += !objs[c.src[s]];
    if (!c.compile_only && !libomp[0]) {  /* objects `cgpredict cc -c` made with clang's OpenMP calls */
      for (int i = 1; i < argc && !libomp[0] && !rc; i++) {
        size_t n = strlen(cmd[i]);
        if (n > 2 && strcmp(cmd[i] + n - 2, ".o") == 0 && cmd[i][0] != '-' && object_names(cmd[i], "__kmpc_") &&
            object_names(cmd[i], CGP_HOOK_KERNEL_BEGIN) && !llvm_openmp_runtime(libomp, sizeof libomp)) {
          say_no_libomp(cmd[i]);       /* as for a marked source: the link would only fail on __kmpc_* */
          libomp[0] = '\0';
          rc = 1;
        }
      }
    }
    if (!c.compile_only) {
      if (libomp[0]) {                   /* before the libgomp GCC's -fopenmp appends: one runtime */
        char rpath[4200], *slash = strrchr(libomp, '/');
        snprintf(rpath, sizeof rpath, "-Wl,-rpath,%.*s", (int)(slash - libomp), libomp);
        push(&final, libomp);
        push(&final, rpath);
      }
      /* an object or archive `cgpredict cc -c` made carries the runtime's weak stub, whose hooks
         leave no symbol for the runtime archive to resolve: the linker would take none of it, and
         the program would load the shared runtime through the stub (runtime/cgp_rt_stub.c). The
         whole archive then, whose strong definitions replace the stub's. */
      int stubbed = 0;
      for (int i = 1; i < argc && !stubbed; i++)
        stubbed = object_or_archive(cmd[i]) && object_names(cmd[i], CGP_HOOK_KERNEL_BEGIN);
      if (stubbed) push(&final, "-Wl,--whole-archive");
      push(&final, runtime_lib());
      if (stubbed) push(&final, "-Wl,--no-whole-archive");
      push(&final, "-lcjson");
      push(&final, "-lz");
      push(&final, "-lm");
      if (CGP_RUNTIME_LINK_FLAG[0]) push(&final, CGP_RUNTIME_LINK_FLAG);
    }
    if (!rc && (!c.compile_only || sources_left)) rc = run(final.v);
    args_free(&final);
  }
  for (int i = 0; i < argc; i++) {
    if (objs[i] && !c.compile_only) unlink(objs[i]);
    free(objs[i]);
  }
  free(objs);
  free(c.src);
  args_free(&c.pflags);
  leave_tmpdir(tmpdir, old_handlers);
  return rc;
}

/* ---- any build command: compilers wrapped on PATH -------------------------------------------- */

/* The C drivers, then the C++ ones (from cxx_names on). */
static const char *const wrapped_names[] = {"cc", "gcc", "clang", "c89", "c99", "c++", "g++", "clang++", NULL};
static const int cxx_names = 5;

const char *cgp_one_word_driver(const char *argv0) {
  const char *b = base_of(argv0);
  return strcmp(b, "cgpredict-cc") == 0 || strcmp(b, "cgpredict-c++") == 0 ? b + strlen("cgpredict-") : NULL;
}

int cgp_is_wrapped_name(const char *argv0) {
  const char *b = base_of(argv0);
  for (int i = 0; wrapped_names[i]; i++)
    if (strcmp(b, wrapped_names[i]) == 0) return 1;
  return 0;
}

/* The index in wrapped_names of the compiler `cmd` names (a target prefix, a version suffix
   or both allowed), -1 if none. */
static int compiler_index(const char *cmd) {
  char name[256];
  snprintf(name, sizeof name, "%s", base_of(cmd));
  char *dash = strrchr(name, '-');                  /* a version suffix: -12, -14.0 */
  if (dash && dash[1] && strspn(dash + 1, "0123456789.") == strlen(dash + 1)) *dash = '\0';
  size_t n = strlen(name);
  int found = -1;
  for (int i = 0; wrapped_names[i]; i++) {        /* the longest that fits: clang++, not c++ */
    size_t w = strlen(wrapped_names[i]);
    if (n >= w && strcmp(name + n - w, wrapped_names[i]) == 0 && (n == w || name[n - w - 1] == '-') &&
        (found < 0 || w > strlen(wrapped_names[found])))
      found = i;
  }
  return found;
}

int cgp_is_c_compiler(const char *cmd) { return compiler_index(cmd) >= 0; }

int cgp_is_cxx_compiler(const char *cmd) { return compiler_index(cmd) >= cxx_names; }

int cgp_build_tool(char **cmd) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) {
    fprintf(stderr, "cgpredict: cannot find its own executable (/proc/self/exe): %s\n", strerror(errno));
    return 1;
  }
  self[len] = '\0';
  char dir[4096];
  struct sigaction old_handlers[NSTOP];
  if (enter_tmpdir("cgpredict-cc", dir, sizeof dir, old_handlers) != 0) return 1;
  int rc = 0;
  for (int i = 0; wrapped_names[i] && !rc; i++) {
    char link[4200];
    snprintf(link, sizeof link, "%s/%s", dir, wrapped_names[i]);
    if (symlink(self, link) != 0) {
      fprintf(stderr, "cgpredict: cannot make '%s': %s\n", link, strerror(errno));
      rc = 1;
    }
  }
  if (!rc) {
    const char *path = getenv("PATH");
    size_t n = strlen(dir) + (path ? strlen(path) : 0) + 2;
    char *newpath = malloc(n);
    if (!newpath) {
      fprintf(stderr, "cgpredict: out of memory\n");
      rc = 1;
    } else {
      snprintf(newpath, n, "%s%s%s", dir, path && *path ? ":" : "", path ? path : "");
      setenv("PATH", newpath, 1);
      setenv("CGPREDICT_WRAP_DIR", dir, 1);
      free(newpath);
      rc = run(cmd);
      char note[4200], ran[4200];
      snprintf(note, sizeof note, "%s/%s", dir, MARKED_NOTE);
      snprintf(ran, sizeof ran, "%s/%s", dir, RAN_NOTE);
      if (rc == 0 && access(ran, F_OK) != 0)
        fprintf(stderr,
                "cgpredict: the build ran no compiler through cgpredict, so the program is not instrumented and "
                "writes no report. Either it was up to date: remove its objects (make clean) and run `cgpredict "
                "build -- %s` again; or it names its compiler by a path (CC=/usr/bin/gcc) or another name, which "
                "goes around the cc, gcc, clang, c89, c99, c++, g++ and clang++ cgpredict puts first on PATH: name "
                "one on the command line, as in `cgpredict build -- %s CC=gcc CXX=g++`\n", cmd[0], cmd[0]);
      else if (rc == 0 && access(note, F_OK) != 0)
        fprintf(stderr,
                "cgpredict: the build compiled no source holding a #pragma cgpredict kernel (found up to date?): "
                "objects of marked sources built without cgpredict leave the program uninstrumented, with no "
                "report; remove them (make clean) and run `cgpredict build -- %s` again\n", cmd[0]);
    }
  }
  leave_tmpdir(dir, old_handlers);
  return rc;
}

int cgp_wrapped_compiler(int argc, char **argv) {
  const char *skip = getenv("CGPREDICT_WRAP_DIR"), *name = base_of(argv[0]), *path = getenv("PATH");
  char real[4200];
  int found = 0;
  for (const char *p = path ? path : ""; !found && *p;) {
    size_t n = strcspn(p, ":");
    if (n && !(skip && strlen(skip) == n && strncmp(p, skip, n) == 0)) {
      snprintf(real, sizeof real, "%.*s/%s", (int)n, p, name);
      found = access(real, X_OK) == 0;
    }
    p += n + (p[n] == ':');
  }
  if (!found) {
    fprintf(stderr, "cgpredict: the build ran '%s', which is not on PATH besides cgpredict's own\n", name);
    return 127;
  }
  argv[0] = real;
  note_in_wrap_dir(RAN_NOTE);
  return cgp_build(argc, argv);
}
