/* Device files: the TK1 file carries MODEL.md section 10, and every malformed file is refused
   with a message that names the file and the field. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgp_model.h"

#define TK1_PATH CGP_SOURCE_DIR "/devices/jetson-tk1.json"

static char tmpdir[64];

/* After each test, in its process: the directory it made, if any, is gone (before, every run of
   the suite left three in /tmp). */
static void remove_tmpdir(void) {
  if (!tmpdir[0]) return;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  tmpdir[0] = '\0';
}

/* A fresh directory; the one an earlier call of the same test made goes first (a test that checks
   several files, values_no_gpu_has_are_refused_naming_the_field's three, left all but the last
   in /tmp: 6 a run of the suite). */
static void make_tmpdir(void) {
  remove_tmpdir();
  strcpy(tmpdir, "/tmp/cgp-test-model-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
}

TestSuite(model_device, .fini = remove_tmpdir);

static char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

/* The TK1 file named `name` (a device is looked up by its file's name) with `edit` applied,
   written to <tmpdir>/<name>.json; returns the path. */
static const char *write_variant(const char *name, void (*edit)(cJSON *)) {
  static char path[256];
  cJSON *root = cJSON_Parse(read_text(TK1_PATH));
  cr_assert_not_null(root);
  cJSON_ReplaceItemInObjectCaseSensitive(root, "name", cJSON_CreateString(name));
  if (edit) edit(root);
  char *text = cJSON_Print(root);
  snprintf(path, sizeof path, "%s/%s.json", tmpdir, name);
  write_text(path, text);
  free(text);
  cJSON_Delete(root);
  return path;
}

Test(model_device, tk1_loads_with_section10_values) {
  cgp_device d;
  char err[512] = "";
  cr_assert_eq(cgp_device_load_file(TK1_PATH, &d, err, sizeof err), 0, "%s", err);
  cr_expect_str_eq(d.name, "jetson-tk1");
  cr_expect_eq(d.no_sm, 1);
  cr_expect_eq(d.cores_per_sm, 192);
  cr_expect_eq(d.schedulers_per_sm, 4);
  cr_expect_eq(d.issue_per_scheduler, 2);
  cr_expect_eq(d.warp_size, 32);
  cr_expect_float_eq(d.freq_hz, 852e6, 1);
  cr_expect_eq(d.max_threads_per_sm, 2048);
  cr_expect_eq(d.max_threads_per_block, 1024);
  cr_expect_eq(d.max_blocks_per_sm, 16);
  cr_expect_eq(d.regs_per_sm, 65536);
  cr_expect_eq(d.smem_per_sm, 48 * 1024);
  cr_expect_eq(d.l2_bytes, 128 * 1024);
  cr_expect_eq(d.l2_line_bytes, 64);
  cr_expect_str_eq(d.l2_index, "fully_associative");
  cr_expect_eq(d.l2_assoc, 128 * 1024 / 64);
  cr_expect_float_eq(d.lat_smem, 67, 1e-9);
  cr_expect_float_eq(d.lat_l2, 164, 1e-9);
  cr_expect_float_eq(d.lat_dram, 332, 1e-9);
  cr_expect_float_eq(d.smem_load_const, 506, 1e-9);
  cr_expect_float_eq(d.dd_l2, 2, 1e-9);
  cr_expect_float_eq(d.dd_dram, 10, 1e-9);
  cr_expect_float_eq(d.inst_cycle, 0.5, 1e-12);
  /* 64-bit LPDDR3-1866: 8 bytes x 1.866e9 transfers/s = 14.93 GB/s, "about 14.9 GB/s" */
  cr_expect(d.dram_bandwidth_bytes_per_s > 14.8e9 && d.dram_bandwidth_bytes_per_s < 15.0e9);
  cr_expect_eq(d.smem_banks, 32);
  cr_expect_eq(d.smem_bank_bytes, 8);
}

Test(model_device, tk1_cites_a_source_for_every_numeric_field) {
  cJSON *root = cJSON_Parse(read_text(TK1_PATH));
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "sources");
  cr_assert(cJSON_IsObject(src));
  const cJSON *f;
  cJSON_ArrayForEach(f, root) {
    if (!cJSON_IsNumber(f)) continue;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(src, f->string);
    cr_expect(cJSON_IsString(s) && strlen(s->valuestring) > 10, "field %s has no source", f->string);
  }
  cJSON_Delete(root);
}

Test(model_device, malformed_json_names_file_and_position) {
  make_tmpdir();
  char path[256];
  snprintf(path, sizeof path, "%s/broken.json", tmpdir);
  write_text(path, "{\n  \"name\": \"broken\",\n  \"no_sm\": ,\n}\n");
  cgp_device d;
  char err[512] = "";
  cr_assert_neq(cgp_device_load_file(path, &d, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, path), "%s", err);
  cr_expect_not_null(strstr(err, ":3:"), "no line number in: %s", err);
}

static void drop_freq(cJSON *r) { cJSON_DeleteItemFromObjectCaseSensitive(r, "freq_hz"); }
static void string_freq(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "freq_hz", cJSON_CreateString("fast")); }
static void negative_dd(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "dd_dram", cJSON_CreateNumber(-1)); }
static void fractional_sm(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "no_sm", cJSON_CreateNumber(1.5)); }
static void unsourced_lat(cJSON *r) {
  cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "sources"), "lat_l2");
}
static void bad_index(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "l2_index", cJSON_CreateString("hashed")); }
static void numeric_name(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "name", cJSON_CreateNumber(3)); }

static void expect_field_error(const char *name, void (*edit)(cJSON *), const char *field, const char *why) {
  make_tmpdir();
  const char *path = write_variant(name, edit);
  cgp_device d;
  char err[512] = "", quoted[64];
  cr_assert_neq(cgp_device_load_file(path, &d, err, sizeof err), 0, "%s loaded", name);
  snprintf(quoted, sizeof quoted, "field \"%s\"", field);
  cr_expect_not_null(strstr(err, path), "file not named: %s", err);
  cr_expect_not_null(strstr(err, quoted), "field not named: %s", err);
  cr_expect_not_null(strstr(err, why), "reason missing: %s", err);
}

Test(model_device, missing_field_names_file_and_field) { expect_field_error("nofreq", drop_freq, "freq_hz", "missing"); }
Test(model_device, string_for_number_names_file_and_field) {
  expect_field_error("strfreq", string_freq, "freq_hz", "expected a positive number");
}
Test(model_device, negative_number_is_refused) { expect_field_error("negdd", negative_dd, "dd_dram", "positive"); }
Test(model_device, fractional_count_is_refused) { expect_field_error("halfsm", fractional_sm, "no_sm", "whole number"); }
Test(model_device, number_without_source_is_refused) { expect_field_error("nosrc", unsourced_lat, "lat_l2", "source"); }
Test(model_device, unknown_l2_index_is_refused) { expect_field_error("badidx", bad_index, "l2_index", "fully_associative"); }
Test(model_device, number_for_string_is_refused) { expect_field_error("numname", numeric_name, "name", "string"); }

Test(model_device, find_loads_from_env_dir_and_unknown_lists_known_names) {
  make_tmpdir();
  write_variant("beta-gpu", NULL);
  write_variant("alpha-gpu", NULL);
  setenv("CGPREDICT_DEVICES_DIR", tmpdir, 1);
  cr_expect_str_eq(cgp_devices_dir(), tmpdir);
  cgp_device d;
  char err[512] = "";
  cr_expect_eq(cgp_device_find("alpha-gpu", &d, err, sizeof err), 0, "%s", err);
  cr_assert_neq(cgp_device_find("gtx-9999", &d, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "gtx-9999"), "%s", err);
  cr_expect_not_null(strstr(err, "alpha-gpu beta-gpu"), "known names not listed in order: %s", err);
  char **names;
  size_t n = cgp_device_names(&names);
  cr_assert_eq(n, 2);
  cr_expect_str_eq(names[0], "alpha-gpu");
  cr_expect_str_eq(names[1], "beta-gpu");
  cgp_device_names_free(names, n);
}

Test(model_device, builtin_dir_finds_tk1_and_lists_it_for_unknown) {
  unsetenv("CGPREDICT_DEVICES_DIR");
  cgp_device d;
  char err[512] = "";
  cr_expect_eq(cgp_device_find("jetson-tk1", &d, err, sizeof err), 0, "%s", err);
  cr_assert_neq(cgp_device_find("no-such-gpu", &d, err, sizeof err), 0);
  cr_expect_not_null(strstr(err, "jetson-tk1"), "%s", err);
  cr_expect_neq(cgp_device_find("../devices/jetson-tk1", &d, err, sizeof err), 0, "a path is not a name");
}

/* issue 31 item 9: a device file is read like a report: a regular file of bounded size, never a
   FIFO waited on or a device read without end. */
Test(model_device, a_fifo_or_a_device_is_refused_at_once_never_read, .timeout = 20) {
  make_tmpdir();
  char fifo[256], zero[256], list[256], cmd[1024];
  snprintf(fifo, sizeof fifo, "%s/fifo.json", tmpdir);
  snprintf(zero, sizeof zero, "%s/zero.json", tmpdir);
  snprintf(list, sizeof list, "%s/default-devices.txt", tmpdir);
  snprintf(cmd, sizeof cmd, "mkfifo '%s' '%s' && ln -s /dev/zero '%s'", fifo, list, zero);
  cr_assert_eq(system(cmd), 0);
  cgp_device d;
  char err[512] = "";
  setenv("CGPREDICT_DEVICES_DIR", tmpdir, 1);
  cr_expect_neq(cgp_device_find("fifo", &d, err, sizeof err), 0);
  cr_expect(strstr(err, fifo) && strstr(err, "FIFO"), "%s", err);
  cr_expect_neq(cgp_device_find("zero", &d, err, sizeof err), 0);
  cr_expect(strstr(err, zero) && strstr(err, "device"), "%s", err);
  char **names;
  size_t n = cgp_device_names(&names);            /* the list is a FIFO: every file, no wait */
  cr_expect_eq(n, 2, "fifo and zero");
  cgp_device_names_free(names, n);
  unsetenv("CGPREDICT_DEVICES_DIR");
}

/* issue 31 item 11: a device file's numbers are bounded far beyond any GPU (values like these
   printed 300-digit times or inf), its name is one a file, CGPREDICT_DEVICE's list and a terminal
   can hold, its strings carry no terminal escape, and it holds no NUL; each refusal names the file
   and the field. */
static void huge_latency(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "lat_dram", cJSON_CreateNumber(1e300)); }
static void tiny_clock(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "freq_hz", cJSON_CreateNumber(1e-300)); }
static void huge_launch(cJSON *r) {
  cJSON_ReplaceItemInObjectCaseSensitive(r, "launch_overhead_cycles", cJSON_CreateNumber(1e200));
}
static void comma_name(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "name", cJSON_CreateString("tk1,v100")); }
static void slash_name(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "name", cJSON_CreateString("a/b")); }
static void escape_name(cJSON *r) {
  cJSON_ReplaceItemInObjectCaseSensitive(r, "name", cJSON_CreateString("tk1\x1b[2J"));
}
static void escape_description(cJSON *r) {
  cJSON_ReplaceItemInObjectCaseSensitive(r, "description", cJSON_CreateString("TK1\x1b]0;title\x07"));
}
static void escape_citation(cJSON *r) {
  cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItem(r, "sources"), "lat_l2", cJSON_CreateString("see\x1b[31m red"));
}
static void other_name(cJSON *r) { cJSON_ReplaceItemInObjectCaseSensitive(r, "name", cJSON_CreateString("jetson-tk1")); }

Test(model_device, values_no_gpu_has_are_refused_naming_the_field) {
  expect_field_error("hugelat", huge_latency, "lat_dram", "no GPU's");
  expect_field_error("tinyclock", tiny_clock, "freq_hz", "no GPU's");
  expect_field_error("hugelaunch", huge_launch, "launch_overhead_cycles", "no GPU's");
}

Test(model_device, names_and_strings_a_terminal_or_list_cannot_hold_are_refused) {
  expect_field_error("comma", comma_name, "name", "no comma");
  expect_field_error("slash", slash_name, "name", "no comma");
  expect_field_error("escname", escape_name, "name", "no comma");
  expect_field_error("escdesc", escape_description, "description", "control character");
  expect_field_error("esccite", escape_citation, "sources.lat_l2", "control character");
}

Test(model_device, a_nul_in_the_file_is_refused_naming_its_byte) {
  make_tmpdir();
  char path[256], err[512];
  cgp_device d;
  snprintf(path, sizeof path, "%s/nul.json", tmpdir);
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  fwrite("{\"name\": \"a\0b\"}", 1, 15, f);
  fclose(f);
  cr_assert_neq(cgp_device_load_file(path, &d, err, sizeof err), 0);
  cr_expect(strstr(err, "nul.json: byte 11: a NUL byte"), "%s", err);
  write_text(path, "{\"name\": \"tk1\\u0000evil\"}");
  cr_assert_neq(cgp_device_load_file(path, &d, err, sizeof err), 0);
  cr_expect(strstr(err, "nul.json: byte 13:") && strstr(err, "NUL"), "%s", err);
}

Test(model_device, a_file_claiming_another_devices_name_is_refused) {
  make_tmpdir();
  write_variant("jetson-tk1", NULL);
  write_variant("copy", other_name);          /* copy.json says it is jetson-tk1 */
  setenv("CGPREDICT_DEVICES_DIR", tmpdir, 1);
  cgp_device d;
  char err[512] = "";
  cr_expect_eq(cgp_device_find("jetson-tk1", &d, err, sizeof err), 0, "%s", err);
  cr_assert_neq(cgp_device_find("copy", &d, err, sizeof err), 0);
  cr_expect(strstr(err, "copy.json: field \"name\"") && strstr(err, "not the file's name"), "%s", err);
  unsetenv("CGPREDICT_DEVICES_DIR");
}
