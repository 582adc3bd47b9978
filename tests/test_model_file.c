/* Reading and writing the tool's files: only regular files are read (FIFOs refused without
   blocking), sizes are capped, reports are written atomically and never through a symlink or
   over a special file, and no temporary is left behind on failure. Reports that parse but carry
   out-of-range numbers are refused naming the kernel and field. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgp_file.h"
#include "cgp_report.h"

#include "test_dir.h"

static void setup(void) { test_dir_make("cgp-file"); }
static void teardown(void) { test_dir_remove(); }

static int entries(void) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
  closedir(d);
  return n;
}

TestSuite(model_file, .init = setup, .fini = teardown, .timeout = 20);

Test(model_file, write_refuses_a_symlink_and_leaves_its_target_alone) {
  write_file("target.json", "precious\n");
  cr_assert_eq(symlink(in_dir("target.json"), in_dir("r.json")), 0);
  char err[512];
  cr_assert_neq(cgp_write_file_atomic(in_dir("r.json"), "new\n", 4, err, sizeof err), 0);
  cr_assert(strstr(err, "symbolic link") && strstr(err, "r.json"), "%s", err);
  struct stat st;
  cr_assert_eq(lstat(in_dir("r.json"), &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the symlink was replaced");
  char *text;
  size_t len;
  cr_assert_eq(cgp_read_regular_file(in_dir("target.json"), 100, &text, &len, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(text, "precious\n");
  free(text);
  cr_assert_eq(entries(), 2, "a temporary was left behind");
}

Test(model_file, write_refuses_a_fifo_and_does_not_replace_it) {
  cr_assert_eq(mkfifo(in_dir("r.json"), 0600), 0);
  char err[512];
  cr_assert_neq(cgp_write_file_atomic(in_dir("r.json"), "new\n", 4, err, sizeof err), 0);
  cr_assert(strstr(err, "FIFO") && strstr(err, "r.json"), "%s", err);
  struct stat st;
  cr_assert_eq(lstat(in_dir("r.json"), &st), 0);
  cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
  cr_assert_eq(entries(), 1);
}

Test(model_file, write_refuses_a_device_node) {
  char err[512];
  cr_assert_neq(cgp_write_file_atomic("/dev/null", "x", 1, err, sizeof err), 0);
  cr_assert(strstr(err, "character device") && strstr(err, "/dev/null"), "%s", err);
}

Test(model_file, report_write_refuses_a_symlink) {
  write_file("target.json", "precious\n");
  cr_assert_eq(symlink(in_dir("target.json"), in_dir("r.json")), 0);
  cJSON *r = cgp_report_new("test");
  char err[512];
  cr_assert_neq(cgp_report_write(r, in_dir("r.json"), err, sizeof err), 0);
  cr_assert(strstr(err, "symbolic link"), "%s", err);
  cJSON_Delete(r);
}

Test(model_file, write_replaces_a_regular_file_whole_and_keeps_its_mode) {
  write_file("r.json", "old contents that are longer\n");
  cr_assert_eq(chmod(in_dir("r.json"), 0640), 0);
  char err[512], *text;
  size_t len;
  cr_assert_eq(cgp_write_file_atomic(in_dir("r.json"), "new\n", 4, err, sizeof err), 0, "%s", err);
  cr_assert_eq(cgp_read_regular_file(in_dir("r.json"), 100, &text, &len, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(text, "new\n");
  cr_assert_eq(len, 4);
  free(text);
  struct stat st;
  cr_assert_eq(stat(in_dir("r.json"), &st), 0);
  cr_assert_eq(st.st_mode & 0777, 0640);
  cr_assert_eq(entries(), 1);
}

Test(model_file, a_failed_write_removes_its_temporary) {
  /* the file size limit makes write(2) fail part way: the temporary must go */
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {16, 16};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  char err[512], data[4096];
  memset(data, 'x', sizeof data);
  cr_assert_neq(cgp_write_file_atomic(in_dir("r.json"), data, sizeof data, err, sizeof err), 0);
  cr_assert(strstr(err, "r.json") && strstr(err, "write failed"), "%s", err);
  cr_assert_eq(entries(), 0, "a temporary was left behind");
}

Test(model_file, a_missing_directory_is_named) {
  char err[512];
  cr_assert_neq(cgp_write_file_atomic(in_dir("no/such/r.json"), "x", 1, err, sizeof err), 0);
  cr_assert(strstr(err, "no/such/r.json"), "%s", err);
}

Test(model_file, read_refuses_a_fifo_without_blocking) {
  cr_assert_eq(mkfifo(in_dir("r.json"), 0600), 0);
  char err[512], *text = (char *)1;
  size_t len;
  cr_assert_neq(cgp_read_regular_file(in_dir("r.json"), 100, &text, &len, err, sizeof err), 0);
  cr_assert(strstr(err, "FIFO") && strstr(err, "only regular files"), "%s", err);
  cr_assert_null(text);
  cJSON *r;
  cr_assert_neq(cgp_report_load(in_dir("r.json"), &r, err, sizeof err), 0);
  cr_assert(strstr(err, "FIFO"), "%s", err);
}

Test(model_file, read_refuses_a_directory) {
  char err[512], *text;
  size_t len;
  cr_assert_neq(cgp_read_regular_file(dir, 100, &text, &len, err, sizeof err), 0);
  cr_assert(strstr(err, "directory"), "%s", err);
}

Test(model_file, read_refuses_a_file_over_the_cap_naming_it) {
  write_file("big.json", "0123456789");
  char err[512], *text;
  size_t len;
  cr_assert_neq(cgp_read_regular_file(in_dir("big.json"), 9, &text, &len, err, sizeof err), 0);
  cr_assert(strstr(err, "larger than the 9 bytes limit"), "%s", err);
  cr_assert_eq(cgp_read_regular_file(in_dir("big.json"), 10, &text, &len, err, sizeof err), 0, "%s", err);
  cr_assert_eq(len, 10);
  free(text);
}

Test(model_file, report_load_refuses_a_report_over_256_mib_without_reading_it) {
  FILE *f = fopen(in_dir("huge.json"), "w");
  cr_assert_not_null(f);
  cr_assert_eq(ftruncate(fileno(f), (off_t)(257 << 20)), 0);   /* sparse: costs no disk */
  fclose(f);
  cJSON *r;
  char err[512];
  cr_assert_neq(cgp_report_load(in_dir("huge.json"), &r, err, sizeof err), 0);
  cr_assert(strstr(err, "256 MiB") && strstr(err, "huge.json"), "%s", err);
}

/* ---- report contents ------------------------------------------------------------------------ */

static const char *stats_json =
  "{\"blocks\":4,\"threads_per_block\":256,\"total_warps\":32,\"smem_per_block\":0,\"regs_per_thread\":0,"
  "\"insts\":[0,2,0],\"trans_pw\":[0,2,0],\"dram_pw\":[0,1,0],\"total_insts\":40,\"core_insts\":30,"
  "\"sync_insts\":0,\"smem_insts\":[0,0,0],\"smem_conflict\":[1,1,1],\"smem_load_insts\":0}";

/* A one-kernel report with the sample's weight and one stats field replaced. */
static int parse_with(const char *weight, const char *field, const char *value, char *err, size_t errlen) {
  char stats[2048], text[4096];
  snprintf(stats, sizeof stats, "%s", stats_json);
  if (field) {
    char key[64], *at;
    snprintf(key, sizeof key, "\"%s\":", field);
    at = strstr(stats, key);
    cr_assert_not_null(at);
    at += strlen(key);
    size_t old = at[0] == '[' ? strcspn(at, "]") + 1 : strcspn(at, ",}");
    char rest[2048];
    snprintf(rest, sizeof rest, "%s", at + old);
    snprintf(at, sizeof stats - (size_t)(at - stats), "%s%s", value, rest);
  }
  snprintf(text, sizeof text,
           "{\"version\":\"cgpredict-report/1\",\"kernels\":[{\"name\":\"k1\",\"samples\":[{\"launch\":0,"
           "\"weight\":%s,\"analysis\":{\"jetson-tk1\":%s}}]}]}", weight, stats);
  cJSON *r = NULL;
  int rc = cgp_report_parse(text, strlen(text), "r.json", &r, err, errlen);
  cJSON_Delete(r);
  return rc;
}

Test(model_file, a_well_formed_report_parses) {
  char err[512];
  cr_assert_eq(parse_with("1", NULL, NULL, err, sizeof err), 0, "%s", err);
}

Test(model_file, a_negative_weight_is_refused_naming_kernel_and_field) {
  char err[512];
  cr_assert_neq(parse_with("-3", NULL, NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "kernel 'k1'") && strstr(err, "\"weight\"") && strstr(err, "out of range"), "%s", err);
}

Test(model_file, a_non_numeric_weight_is_refused) {
  char err[512];
  cr_assert_neq(parse_with("\"many\"", NULL, NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "kernel 'k1'") && strstr(err, "\"weight\": expected a number"), "%s", err);
}

Test(model_file, stats_out_of_range_are_refused_naming_kernel_device_and_field) {
  char err[512];
  cr_assert_neq(parse_with("1", "blocks", "1e30", err, sizeof err), 0);
  cr_assert(strstr(err, "kernel 'k1'") && strstr(err, "jetson-tk1") && strstr(err, "\"blocks\""), "%s", err);
  cr_assert_neq(parse_with("1", "threads_per_block", "5e9", err, sizeof err), 0);
  cr_assert(strstr(err, "\"threads_per_block\""), "%s", err);
  cr_assert_neq(parse_with("1", "total_insts", "1e300", err, sizeof err), 0);
  cr_assert(strstr(err, "\"total_insts\""), "%s", err);
  cr_assert_neq(parse_with("1", "insts", "[0,-1,0]", err, sizeof err), 0);
  cr_assert(strstr(err, "\"insts\"[1]"), "%s", err);
}

Test(model_file, every_minor_version_of_the_major_is_read_and_another_major_refused_naming_both) {
  const char *ok[] = {"cgpredict-report/1", "cgpredict-report/1.0", "cgpredict-report/1.1", "cgpredict-report/1.27"};
  const char *no[] = {"cgpredict-report/2.0", "cgpredict-report/10", "cgpredict-report/1.x", "cgpredict-report/1."};
  char text[256], err[512];
  cJSON *r;
  for (int i = 0; i < 4; i++) {
    snprintf(text, sizeof text, "{\"version\":\"%s\",\"kernels\":[]}", ok[i]);
    cr_expect_eq(cgp_report_parse(text, strlen(text), "r.json", &r, err, sizeof err), 0, "%s: %s", ok[i], err);
    cJSON_Delete(r);
    r = NULL;
    err[0] = '\0';
    snprintf(text, sizeof text, "{\"version\":\"%s\",\"kernels\":[]}", no[i]);
    cr_expect_neq(cgp_report_parse(text, strlen(text), "r.json", &r, err, sizeof err), 0, "%s accepted", no[i]);
    cr_expect(strstr(err, no[i]) && strstr(err, CGP_REPORT_SCHEMA) && strstr(err, "r.json"), "%s", err);
  }
}

Test(model_file, bad_json_gives_line_and_column) {
  const char *text = "{\n  \"version\": \"cgpredict-report/1\",\n  \"kernels\": [ 1, ]\n}\n";
  cJSON *r;
  char err[512];
  cr_assert_neq(cgp_report_parse(text, strlen(text), "r.json", &r, err, sizeof err), 0);
  cr_assert(strstr(err, "r.json:3:") && strstr(err, "not valid JSON"), "%s", err);
  const char *trailing = "{\"version\":\"cgpredict-report/1\",\"kernels\":[]} x";
  cr_assert_neq(cgp_report_parse(trailing, strlen(trailing), "t.json", &r, err, sizeof err), 0);
  cr_assert(strstr(err, "t.json:1:") && strstr(err, "not valid JSON"), "%s", err);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CGP_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CGP_ASAN 1
#endif

Test(model_file, out_of_memory_is_not_called_bad_json) {
#ifdef CGP_ASAN
  cr_skip_test("address space limits do not mix with AddressSanitizer");
#else
  /* 24 MiB of "0," parse into 12 M cJSON items (~700 MiB): more than the limit below */
  size_t n = (size_t)24 << 20;
  char *text = malloc(n + 64);
  cr_assert_not_null(text);
  size_t at = (size_t)sprintf(text, "{\"version\":\"cgpredict-report/1\",\"kernels\":[");
  while (at < n) { text[at++] = '0'; text[at++] = ','; }
  strcpy(text + at, "0]}");
  struct rlimit lim;
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  cr_assert_eq(fscanf(f, "%lu", &pages), 1);
  fclose(f);
  lim.rlim_cur = lim.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
  cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
  cJSON *r;
  char err[512];
  cr_assert_neq(cgp_report_parse(text, strlen(text), "big.json", &r, err, sizeof err), 0);
  cr_assert(strstr(err, "big.json: out of memory"), "%s", err);
  cr_assert_null(strstr(err, "not valid JSON"), "%s", err);
  free(text);
#endif
}

Test(model_file, a_report_too_big_for_memory_is_out_of_memory_not_a_crash) {
#ifdef CGP_ASAN
  cr_skip_test("address space limits do not mix with AddressSanitizer");
#else
  FILE *f = fopen(in_dir("big.json"), "w");
  cr_assert_not_null(f);
  cr_assert_eq(ftruncate(fileno(f), (off_t)(200 << 20)), 0);     /* sparse, under the cap */
  fclose(f);
  FILE *m = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  cr_assert_eq(fscanf(m, "%lu", &pages), 1);
  fclose(m);
  struct rlimit lim;
  lim.rlim_cur = lim.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
  cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
  cJSON *r;
  char err[512];
  cr_assert_neq(cgp_report_load(in_dir("big.json"), &r, err, sizeof err), 0);
  cr_assert(strstr(err, "big.json: out of memory"), "%s", err);
#endif
}
