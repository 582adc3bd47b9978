/* test_dir.h: one temporary directory per test, and files in it. Static, so each test program
   has its own; included by e2e_util.h and by the tests that write files of their own. */
#ifndef CGP_TEST_DIR_H
#define CGP_TEST_DIR_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

/* A new /tmp/<prefix>.XXXXXX as `dir`. */
static inline void test_dir_make(const char *prefix) {
  snprintf(dir, sizeof dir, "/tmp/%s.XXXXXX", prefix);
  cr_assert_not_null(mkdtemp(dir));
}

/* path and, for a directory (not a link to one), everything in it; 0 on success. */
static inline int test_dir_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return -1;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[1024];
      int n = snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      rc |= n < 0 || (size_t)n >= sizeof sub ? -1 : test_dir_remove_tree(sub);
    }
    closedir(d);
    return rc | rmdir(path);
  }
  return unlink(path);
}

/* `dir` and everything in it, without a shell: a test that lowered its address-space limit
   (model_file's report too big for memory) could not start `rm`, and left its directory and a
   200 MB sparse file behind on every run. */
static inline void test_dir_remove(void) {
  cr_assert_eq(test_dir_remove_tree(dir), 0, "could not remove %s", dir);
}

/* dir/name; the last four results stay valid. */
static inline const char *in_dir(const char *name) {
  static char buf[4][512];
  static unsigned next;
  char *b = buf[next++ % 4];
  snprintf(b, sizeof buf[0], "%s/%s", dir, name);
  return b;
}

static inline void write_file(const char *name, const char *text) {
  FILE *f = fopen(in_dir(name), "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

#endif
