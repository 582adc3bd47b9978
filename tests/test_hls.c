/* csynth.xml import (model/cgp_hls_xml.c) on small reports written by hand in the tools' layout
   (tests/data/hls/): every field read, the quirks (undef, ?, -, ranges in both forms, DSP48E or
   DSP), and refusals that name the file, the line and what is wrong. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cgp_hls.h"

#define DATA CGP_SOURCE_DIR "/tests/data/hls/"

static void expect_count(cgp_hls_count c, uint64_t min, uint64_t max, const char *what) {
  cr_expect(c.known, "%s: unknown", what);
  cr_expect_eq(c.min, min, "%s: min %llu, want %llu", what, (unsigned long long)c.min, (unsigned long long)min);
  cr_expect_eq(c.max, max, "%s: max %llu, want %llu", what, (unsigned long long)c.max, (unsigned long long)max);
}

Test(hls, vivado_report_reads_latency_interval_loops_and_resources) {
  cgp_hls_report r;
  char err[512] = "";
  cr_assert_eq(cgp_hls_read(DATA "fir_csynth.xml", &r, err, sizeof err), 0, "%s", err);
  cr_expect_str_eq(r.version, "2018.2");
  cr_expect_str_eq(r.top, "fir");
  cr_expect_str_eq(r.part, "xc7z020clg484-1");
  cr_expect_str_eq(r.pipeline_type, "none");
  cr_expect_float_eq(r.target_clock_ns, 10.0, 1e-12);
  cr_expect_float_eq(r.clock_uncertainty_ns, 1.25, 1e-12);
  cr_expect_float_eq(r.estimated_clock_ns, 8.51, 1e-12);
  expect_count(r.latency_best, 66, 66, "best");
  expect_count(r.latency_average, 66, 66, "average");
  expect_count(r.latency_worst, 66, 66, "worst");
  expect_count(r.interval_min, 67, 67, "interval min");
  expect_count(r.interval_max, 67, 67, "interval max");
  cr_assert_eq(r.n_loops, 2);
  cr_expect_str_eq(r.loops[0].name, "TDL");
  cr_expect_eq(r.loops[0].parent, -1);
  expect_count(r.loops[0].trips, 10, 10, "TDL trips");
  expect_count(r.loops[0].latency, 20, 20, "TDL latency");
  expect_count(r.loops[0].iteration_latency, 2, 2, "TDL iteration latency");
  cr_expect_not(r.loops[0].pipeline_ii.known, "not pipelined: no PipelineII");
  cr_expect_str_eq(r.loops[1].name, "MAC");
  expect_count(r.loops[1].latency, 44, 44, "MAC latency");
  expect_count(r.used[CGP_HLS_DSP], 3, 3, "DSP48E used");
  expect_count(r.used[CGP_HLS_FF], 190, 190, "FF used");
  expect_count(r.used[CGP_HLS_LUT], 240, 240, "LUT used");
  expect_count(r.used[CGP_HLS_BRAM18K], 0, 0, "BRAM used");
  cr_expect_not(r.used[CGP_HLS_URAM].known, "Vivado HLS 2018 reports no URAM");
  expect_count(r.available[CGP_HLS_DSP], 220, 220, "DSP available");
  expect_count(r.available[CGP_HLS_BRAM18K], 280, 280, "BRAM available");
  cr_expect_str_eq(cgp_hls_resource_name(CGP_HLS_BRAM18K), "BRAM_18K");
  cgp_hls_free(&r);
}

Test(hls, vitis_quirks_undef_question_mark_ranges_and_nesting) {
  cgp_hls_report r;
  char err[512] = "";
  cr_assert_eq(cgp_hls_read(DATA "quirks_csynth.xml", &r, err, sizeof err), 0, "%s", err);
  cr_expect_str_eq(r.top, "spmv");
  cr_expect_float_eq(r.estimated_clock_ns, 2.433, 1e-12);
  expect_count(r.latency_best, 3, 3, "best");
  cr_expect_not(r.latency_average.known, "undef average");
  cr_expect_not(r.latency_worst.known, "? worst case");
  expect_count(r.interval_min, 4, 4, "interval min");
  cr_expect_not(r.interval_max.known);
  cr_assert_eq(r.n_loops, 2);
  const cgp_hls_loop *outer = &r.loops[0], *inner = &r.loops[1];
  cr_expect_str_eq(outer->name, "rows", "the <Name> child, not the tag");
  cr_expect_eq(outer->depth, 0);
  expect_count(outer->trips, 512, 512, "rows trips");
  cr_expect_not(outer->latency.known, "? latency");
  expect_count(outer->iteration_latency, 11, 2057, "rows iteration latency (range element)");
  cr_expect_not(outer->pipeline_ii.known, "II - : not pipelined");
  cr_expect_str_eq(inner->name, "nonzeros");
  cr_expect_eq(inner->parent, 0);
  cr_expect_eq(inner->depth, 1);
  expect_count(inner->trips, 1, 1024, "nonzeros trips (range)");
  expect_count(inner->latency, 9, 2055, "nonzeros latency (min ~ max text)");
  expect_count(inner->pipeline_ii, 2, 2, "II");
  expect_count(inner->pipeline_depth, 9, 9, "depth");
  expect_count(r.used[CGP_HLS_DSP], 5, 5, "DSP (Vitis spelling)");
  expect_count(r.used[CGP_HLS_URAM], 0, 0, "URAM");
  expect_count(r.available[CGP_HLS_URAM], 1280, 1280, "URAM available");
  cgp_hls_free(&r);
}

static void expect_refused(const char *file, const char *line, const char *what) {
  cgp_hls_report r;
  char err[512] = "";
  cr_expect_neq(cgp_hls_read(file, &r, err, sizeof err), 0, "%s accepted", file);
  cr_expect(strstr(err, file), "the message does not name the file: %s", err);
  if (line) cr_expect(strstr(err, line), "no line '%s' in: %s", line, err);
  cr_expect(strstr(err, what), "'%s' not in: %s", what, err);
  cgp_hls_free(&r);
}

Test(hls, refusals_name_the_file_the_line_and_the_fault) {
  expect_refused(DATA "truncated_csynth.xml", NULL, "not well-formed XML");
  expect_refused(DATA "wrong_root.xml", ":2:", "root element is <Report>, not <profile>");
  expect_refused(DATA "no_latency_csynth.xml", ":3:", "no <SummaryOfOverallLatency>");
  expect_refused(DATA "bad_number_csynth.xml", ":6:", "<Worst-caseLatency>: '12a' is neither a whole number");
  expect_refused(DATA "no-such-file.xml", NULL, "no-such-file.xml");
}

Test(hls, memory_input_and_edge_values) {
  cgp_hls_report r;
  char err[512] = "";
  const char *empty = "";
  cr_expect_neq(cgp_hls_parse(empty, 0, "empty.xml", &r, err, sizeof err), 0);
  cr_expect(strstr(err, "empty.xml") && strstr(err, "XML"), "%s", err);
  cgp_hls_free(&r);
  /* 2^63 is the largest count; a reversed range is refused */
  const char *big = "<profile><PerformanceEstimates><SummaryOfOverallLatency>"
                    "<Worst-caseLatency>9223372036854775808</Worst-caseLatency>"
                    "<Best-caseLatency><range><min>5</min><max>4</max></range></Best-caseLatency>"
                    "</SummaryOfOverallLatency></PerformanceEstimates></profile>";
  cr_expect_neq(cgp_hls_parse(big, strlen(big), "big.xml", &r, err, sizeof err), 0);
  cr_expect(strstr(err, "Best-caseLatency"), "%s", err);
  cgp_hls_free(&r);
  const char *ok = "<profile><PerformanceEstimates><SummaryOfOverallLatency>"
                   "<Worst-caseLatency> 9223372036854775808 </Worst-caseLatency>"
                   "</SummaryOfOverallLatency></PerformanceEstimates></profile>";
  cr_assert_eq(cgp_hls_parse(ok, strlen(ok), "ok.xml", &r, err, sizeof err), 0, "%s", err);
  expect_count(r.latency_worst, UINT64_C(9223372036854775808), UINT64_C(9223372036854775808), "2^63");
  cr_expect(isnan(r.target_clock_ns), "no UserAssignments: NaN");
  cr_expect_eq(r.n_loops, 0);
  cgp_hls_free(&r);
  /* an external entity is never fetched nor expanded */
  const char *xxe = "<?xml version=\"1.0\"?><!DOCTYPE profile [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                    "<profile><UserAssignments><TopModelName>&x;</TopModelName></UserAssignments>"
                    "<PerformanceEstimates><SummaryOfOverallLatency><Worst-caseLatency>1</Worst-caseLatency>"
                    "</SummaryOfOverallLatency></PerformanceEstimates></profile>";
  cr_assert_eq(cgp_hls_parse(xxe, strlen(xxe), "xxe.xml", &r, err, sizeof err), 0, "%s", err);
  cr_expect_null(strstr(r.top, "root"), "the entity was expanded: %s", r.top);
  cgp_hls_free(&r);
}
