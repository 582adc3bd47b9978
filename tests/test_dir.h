/* test_dir.h: one temporary directory per test, and files in it. Static, so each test program
   has its own; included by e2e_util.h and by the tests that write files of their own. */
#ifndef CGP_TEST_DIR_H
#define CGP_TEST_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static char dir[256];

/* A new /tmp/<prefix>.XXXXXX as `dir`. */
static inline void test_dir_make(const char *prefix) {
  snprintf(dir, sizeof dir, "/tmp/%s.XXXXXX", prefix);
  cr_assert_not_null(mkdtemp(dir));
}

static inline void test_dir_remove(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
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
