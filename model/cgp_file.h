/* cgp_file.h: reading and writing the tool's own files (reports, device files) safely.
   Reading accepts only regular files, up to a size cap, and never blocks on a FIFO or a device.
   Writing replaces a regular file or creates a new one atomically (temporary file in the same
   directory, fsync, rename) and refuses symbolic links, FIFOs, devices and other special files. */
#ifndef CGP_FILE_H
#define CGP_FILE_H

#include <stddef.h>

/* The size cap for report files read by `cgpredict report` (also fine for device files). */
#define CGP_FILE_CAP_BYTES ((size_t)256 << 20)

/* Read the regular file `path` whole into *buf (malloc'd, NUL-terminated; *len bytes without
   the NUL). Refuses, with a message naming the path, a path that is not a regular file (FIFO,
   device, directory, socket), a file larger than `cap` bytes, and an allocation that fails
   ("out of memory"). Returns 0 on success; on failure -1 with *buf NULL and err filled. */
int cgp_read_regular_file(const char *path, size_t cap, char **buf, size_t *len, char *err, size_t errlen);

/* Write `len` bytes to `path` atomically: a temporary file beside it, fsync, rename over it.
   `path` must not exist or be a regular file; a symbolic link or special file is refused
   (never followed, never replaced). The temporary is removed on every failure path; a new file
   gets mode 0666 minus the umask, a replaced one keeps its mode. 0 on success, else -1 and err
   names the path and the reason. */
int cgp_write_file_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);

/* The same, streamed: a temporary file beside `path` (made as cgp_write_file_atomic makes it) to
   write into with stdio; commit flushes, fsyncs and renames it over `path` (with the same
   refusals: a symbolic link or special file at `path` is never replaced), abort removes it.
   *tmp (tmplen bytes) receives the temporary's name, or "" when it has none: the temporary is
   opened unlinked (O_TMPFILE) where the file system allows, and then nothing is left whatever
   way the process ends (commit links it, or copies it to a named temporary if the link is
   refused); else it is named .<base>.<pid>.XXXXXX, and opening the same path again
   removes such temporaries of processes that no longer exist (cgp_file_remove_stale). A signal
   handler removes a named one with unlink(tmp) when tmp[0] is set. NULL / -1 with err on failure. */
#include <stdio.h>
FILE *cgp_file_stream_open(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen);
int cgp_file_stream_commit(FILE *f, const char *tmp, const char *path, char *err, size_t errlen);
void cgp_file_stream_abort(FILE *f, const char *tmp);

/* Remove the temporaries .<base of path>.<pid>.XXXXXX beside `path` whose process no longer
   exists (kill(pid, 0) fails with ESRCH; regular files of this user only), each said on stderr
   ("cgpredict: removed ..."). Returns how many. */
int cgp_file_remove_stale(const char *path);

/* Would paths a and b name one file? The same string, the same existing file (device and inode),
   or the same name in the same directory (./r.json and r.json, a directory reached through a
   link) when neither exists yet: two outputs that must not overwrite each other. */
int cgp_same_file(const char *a, const char *b);

#endif
