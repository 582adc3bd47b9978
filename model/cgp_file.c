/* cgp_file.c: see cgp_file.h. The checks are made on the open descriptor (fstat after open),
   not on the name, so a path swapped for a FIFO between check and read cannot block us. */
#define _GNU_SOURCE                 /* O_TMPFILE */
#include "cgp_file.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

static void cap_text(size_t cap, char *out, size_t n) {
  if (cap % ((size_t)1 << 20) == 0) snprintf(out, n, "%zu MiB", cap >> 20);
  else snprintf(out, n, "%zu bytes", cap);
}

int cgp_read_regular_file(const char *path, size_t cap, char **buf, size_t *len, char *err, size_t errlen) {
  *buf = NULL;
  *len = 0;
  /* O_NONBLOCK: opening a FIFO for reading must not wait for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return -1; }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: is %s; only regular files are read", path, kind_of(st.st_mode));
    close(fd);
    return -1;
  }
  char capbuf[32];
  cap_text(cap, capbuf, sizeof capbuf);
  if (st.st_size < 0 || (unsigned long long)st.st_size > cap) {
    snprintf(err, errlen, "%s: %lld bytes, larger than the %s limit", path, (long long)st.st_size, capbuf);
    close(fd);
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  size_t want = (size_t)st.st_size, n = 0;
  char *b = malloc(want + 1);
  if (!b) {
    snprintf(err, errlen, "%s: out of memory (%zu bytes for the file)", path, want + 1);
    close(fd);
    return -1;
  }
  for (;;) {                              /* the file may grow or shrink while we read it */
    if (n == want) {
      if (want >= cap) {                  /* one byte more would exceed the cap: probe for it */
        char probe;
        ssize_t r = read(fd, &probe, 1);
        if (r == 0) break;
        if (r < 0 && errno == EINTR) continue;
        snprintf(err, errlen, r < 0 ? "%s: read error" : "%s: grew past the %s limit while being read", path, capbuf);
        free(b);
        close(fd);
        return -1;
      }
      size_t more = want < 65536 ? 65536 : want;
      if (more > cap - want) more = cap - want;
      char *bigger = realloc(b, want + more + 1);
      if (!bigger) {
        snprintf(err, errlen, "%s: out of memory (%zu bytes for the file)", path, want + more + 1);
        free(b);
        close(fd);
        return -1;
      }
      b = bigger;
      want += more;
    }
    ssize_t r = read(fd, b + n, want - n);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
      free(b);
      close(fd);
      return -1;
    }
    n += (size_t)r;
  }
  close(fd);
  b[n] = '\0';
  *buf = b;
  *len = n;
  return 0;
}

/* The directory part of path ("." when it has none), in out. */
static int dir_of(const char *path, char *out, size_t n) {
  const char *slash = strrchr(path, '/');
  int w;
  if (!slash) w = snprintf(out, n, ".");
  else if (slash == path) w = snprintf(out, n, "/");
  else w = snprintf(out, n, "%.*s", (int)(slash - path), path);
  return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* ---- streamed, then renamed ------------------------------------------------------------------- */

/* fsync, again when a signal interrupted it (EINTR: nothing failed yet). */
static int sync_fd(int fd) {
  int r;
  while ((r = fsync(fd)) != 0 && errno == EINTR) {}
  return r;
}


/* `path` may be written: absent, or a regular file (its mode in *mode, else the umask's). */
static int check_target(const char *path, mode_t *mode, char *err, size_t errlen) {
  struct stat st;
  if (!path[0]) { snprintf(err, errlen, "cannot write an empty path"); return -1; }
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      snprintf(err, errlen, "cannot write '%s': it is a symbolic link; refusing to write through it "
               "(give the target's own path)", path);
      return -1;
    }
    if (!S_ISREG(st.st_mode)) {
      snprintf(err, errlen, "cannot write '%s': it is %s, not a regular file; refusing to replace it",
               path, kind_of(st.st_mode));
      return -1;
    }
    *mode = st.st_mode & 07777;
  } else if (errno == ENOENT) {
    mode_t mask = umask(0);
    umask(mask);
    *mode = 0666 & ~mask;
  } else {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- temporaries that cannot outlive their run (issue 31 item 1) ------------------------------

   A run can end without any code of ours running (_exit, quick_exit, SIGKILL, a crash handler of
   the program's own). So a temporary is first opened unlinked (O_TMPFILE): it has no name until
   commit links it, under a name of the form below, and renames it over the target; a run that
   ends before leaves nothing. Where the file system cannot (no O_TMPFILE, no /proc to link it
   through), the temporary is named .<target>.<pid>.XXXXXX, and each later write of the same target
   removes those whose process no longer exists (kill(pid, 0): ESRCH) and says so on stderr. A
   process of another PID namespace or machine sharing the directory may look dead: its file
   would go; the same target written from two such places at once is no use anyway. */

static int tmp_name(const char *path, char *tmp, size_t tmplen) {
  char dir[4096];
  if (dir_of(path, dir, sizeof dir) != 0) return -1;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  int w = snprintf(tmp, tmplen, "%s/.%.200s.%ld.XXXXXX", dir, base, (long)getpid());
  return w < 0 || (size_t)w >= tmplen ? -1 : 0;
}

/* Is `name` .<base>.<pid>.XXXXXX? Its pid in *pid. */
static int stale_pattern(const char *name, const char *base, long *pid) {
  size_t bl = strlen(base);
  if (name[0] != '.' || strncmp(name + 1, base, bl) != 0 || name[1 + bl] != '.') return 0;
  const char *p = name + 2 + bl, *q = p;
  long v = 0;
  while (*q >= '0' && *q <= '9' && q - p < 10) v = v * 10 + (*q++ - '0');
  if (q == p || *q != '.' || strlen(q + 1) != 6) return 0;
  for (const char *c = q + 1; *c; c++)
    if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))) return 0;
  *pid = v;
  return v > 0;
}

int cgp_file_remove_stale(const char *path) {
  char dir[4096], full[4400];
  if (dir_of(path, dir, sizeof dir) != 0) return 0;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strlen(base) > 200) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    long pid;
    struct stat st;
    if (!stale_pattern(e->d_name, base, &pid) || pid == (long)getpid()) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;        /* alive, or not ours to know */
    snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
    if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
    if (unlink(full) == 0) {
      fprintf(stderr, "cgpredict: removed '%s', a temporary of process %ld, which ended before finishing it "
              "(_exit, a kill or a crash)\n", full, pid);
      n++;
    }
  }
  closedir(d);
  return n;
}

/* Give the unlinked temporary fd a name beside path (in tmp), as a named one would have. */
static int link_unnamed(int fd, const char *path, char *tmp, size_t tmplen) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  unsigned long x = (unsigned long)getpid() * 2654435761u ^ (unsigned long)fd;
  for (int attempt = 0; attempt < 100; attempt++) {
    if (tmp_name(path, tmp, tmplen) != 0) return -1;
    char *s = tmp + strlen(tmp) - 6;
    x = x * 6364136223846793005u + 1442695040888963407u + (unsigned long)attempt;
    for (int i = 0; i < 6; i++) s[i] = digits[(x >> (8 * i + 3)) % 62];
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != EEXIST) break;
  }
  tmp[0] = '\0';
  return -1;
}

/* An unlinked temporary in dir, or -1 where the file system (or a missing /proc) does not allow
   one. Readable: should its link fail at commit, its bytes are copied to a named one (copy_named).
   (A link cannot be tried here and undone: an O_TMPFILE file once linked and unlinked can never
   be linked again.) */
static int open_unnamed(const char *dir) {
#ifdef O_TMPFILE
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (access(proc, F_OK) != 0) { close(fd); return -1; }    /* commit could not link it */
  return fd;
#else
  (void)dir;
  return -1;
#endif
}

/* The unlinked temporary fd's bytes into a new named temporary beside path (its name in tmp),
   fsync'ed, with `mode`: commit's way when the link fails. */
static int copy_named(int fd, const char *path, mode_t mode, char *tmp, size_t tmplen) {
  if (tmp_name(path, tmp, tmplen) != 0) return -1;
  int out = mkstemp(tmp);
  if (out < 0) { tmp[0] = '\0'; return -1; }
  char buf[65536];
  off_t at = 0;
  int ok = 1;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ok = n == 0; break; }
    for (ssize_t w = 0; w < n && ok;) {
      ssize_t k = write(out, buf + w, (size_t)(n - w));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) ok = 0;
      else w += k;
    }
    at += n;
  }
  if (ok) ok = fchmod(out, mode) == 0 && sync_fd(out) == 0;
  if (close(out) != 0) ok = 0;
  if (!ok) { unlink(tmp); tmp[0] = '\0'; }
  return ok ? 0 : -1;
}

FILE *cgp_file_stream_open(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen) {
  mode_t mode;
  char dir[4096];
  if (check_target(path, &mode, err, errlen) != 0) return NULL;
  if (dir_of(path, dir, sizeof dir) != 0 || tmp_name(path, tmp, tmplen) != 0) {
    snprintf(err, errlen, "cannot write '%s': path too long", path);
    return NULL;
  }
  cgp_file_remove_stale(path);
  int fd = open_unnamed(dir);
  if (fd >= 0) tmp[0] = '\0';                 /* nothing to remove on any exit path */
  else fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write '%s': cannot create a temporary file in '%s': %s", path, dir, strerror(errno));
    return NULL;
  }
  FILE *f = fdopen(fd, "w+b");
  if (!f) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    close(fd);
    if (tmp[0]) unlink(tmp);
  }
  return f;
}

void cgp_file_stream_abort(FILE *f, const char *tmp) {
  if (f) fclose(f);
  if (tmp[0]) unlink(tmp);
}

int cgp_file_stream_commit(FILE *f, const char *tmp_in, const char *path, char *err, size_t errlen) {
  mode_t mode;
  char tmp[4400];
  snprintf(tmp, sizeof tmp, "%s", tmp_in);
  if (check_target(path, &mode, err, errlen) != 0) { cgp_file_stream_abort(f, tmp); return -1; }
  const char *step = "write";
  int ok = fflush(f) == 0 && !ferror(f);
  int saved = ok ? 0 : errno, fd = fileno(f);
  if (ok && !(ok = fchmod(fd, mode) == 0)) { step = "chmod"; saved = errno; }
  if (ok && !(ok = sync_fd(fd) == 0)) { step = "fsync"; saved = errno; }
  if (ok && !tmp[0] && link_unnamed(fd, path, tmp, sizeof tmp) != 0 &&
      !(ok = copy_named(fd, path, mode, tmp, sizeof tmp) == 0)) {
    step = "link or copy";
    saved = errno;
  }
  /* a close interrupted by a signal has closed the descriptor, its data written (Linux close(2)) */
  if (fclose(f) != 0 && errno != EINTR && ok) { ok = 0; step = "close"; saved = errno; }
  if (ok && rename(tmp, path) != 0) { ok = 0; step = "rename"; saved = errno; }
  if (!ok) {
    if (tmp[0]) unlink(tmp);
    snprintf(err, errlen, "cannot write '%s': %s failed: %s", path, step, strerror(saved ? saved : EIO));
    return -1;
  }
  char dir[4096];
  if (dir_of(path, dir, sizeof dir) == 0) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) { (void)fsync(dfd); close(dfd); }
  }
  return 0;
}

/* Whole, at once: the streamed path with one write. */
int cgp_write_file_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen) {
  char tmp[4200];
  FILE *f = cgp_file_stream_open(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  if (len) (void)fwrite(data, 1, len, f);      /* a short write leaves ferror set: commit says so */
  return cgp_file_stream_commit(f, tmp, path, err, errlen);
}

int cgp_same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0) return 1;
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea || eb) return 0;
  char da[4400], db[4400];
  snprintf(da, sizeof da, "%s", a);
  snprintf(db, sizeof db, "%s", b);
  char *ka = strrchr(da, '/'), *kb = strrchr(db, '/');
  if (strcmp(ka ? ka + 1 : da, kb ? kb + 1 : db) != 0) return 0;   /* other names */
  if (ka) *ka = '\0';
  if (kb) *kb = '\0';
  return stat(ka ? (*da ? da : "/") : ".", &sa) == 0 && stat(kb ? (*db ? db : "/") : ".", &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;       /* the same directory */
}
