/* The FPGA side of a run's report (docs/model.md 11.14): the off-chip equation, the nest carried
   from the build through the descriptor and the report (written and read back, and refused where
   damaged), and the prediction made from a report's kernel. Every number is worked by hand in the
   comment above its check. */
#include <criterion/criterion.h>
#include <string.h>

#include "cgp_fpga.h"
#include "cgp_fpga_kernel.h"
#include "fpga_book.h"
#include "cgp_report.h"

/* The book's FPGA (tests/fpga_book.h) on a board with a 64-bit AXI port, 4.264 GB/s of DDR and
   an m_axi latency of 64 cycles. */
static cgp_fpga_device board(void) {
  cgp_fpga_device d = fpga_book();
  strcpy(d.name, "board");
  d.offchip_bandwidth_bytes_per_s = 4.264e9, d.axi_data_bits = 64, d.burst_setup_cycles = 64, d.max_burst_beats = 16;
  return d;
}

/* 64 bits at 100 MHz is 0.8 GB/s, below the DDR's 4.264: 8 bytes a cycle. 4096 bytes in one
   piece: 64 + 4096 / 8 = 576; in four pieces 4 x 64 + 512 = 768; 4097 bytes: 64 + 513 = 577.
   A 512-bit port on 1.6 GB/s of DDR at 100 MHz: the DDR's 16 bytes a cycle bind: 64 + 256 = 320.
   32768 bytes buffered: 8192 words of 32 bits, the 36 x 512 shape: 16 BRAM18K; 5 bytes, two
   words: 1. */
Test(fpga_kernel, offchip_cycles_are_a_latency_per_piece_and_the_narrower_of_port_and_ddr) {
  cgp_fpga_device d = board();
  cr_expect_float_eq(cgp_fpga_offchip_bytes_per_cycle(&d), 8.0, 1e-12);
  cr_expect_eq(cgp_fpga_offchip_cycles(&d, 4096, 1), 576);
  cr_expect_eq(cgp_fpga_offchip_cycles(&d, 4096, 4), 768);
  cr_expect_eq(cgp_fpga_offchip_cycles(&d, 4097, 1), 577);
  cr_expect_eq(cgp_fpga_offchip_cycles(&d, 0, 0), 0);
  cr_expect_eq(cgp_fpga_buffer_bram18k(&d, 32768), 16);
  cr_expect_eq(cgp_fpga_buffer_bram18k(&d, 5), 1);
  cr_expect_eq(cgp_fpga_buffer_bram18k(&d, 4), 0);    /* one word: a register (cgp_fpga_is_registers) */
  d.axi_data_bits = 512, d.offchip_bandwidth_bytes_per_s = 1.6e9;
  cr_expect_float_eq(cgp_fpga_offchip_bytes_per_cycle(&d), 16.0, 1e-12);
  cr_expect_eq(cgp_fpga_offchip_cycles(&d, 4096, 1), 320);
}

/* tests/test_fpga_design.c's integer reduction: i = i + 1, loads of a[i] and b[i], their product
   added to a sum carried to the next iteration; pipelined, unrolled by 4, both arrays cyclic 2:
   II 1, IL 4, 1024 trips: 1 x (256 - 1) + 4 = 259 cycles. */
static cgp_fpga_ddg g;
static cgp_fpga_access acc[8];
static void reduction_nest(cgp_fpga_result *r, cgp_fpga_nest *n, uint64_t trips) {
  cgp_fpga_ddg_init(&g);
  memset(acc, 0, sizeof acc);
  int iv = cgp_fpga_ddg_add(&g, CGP_FOP_ADD, CGP_FTYPE_INT, 32, -1, 0);
  int la = cgp_fpga_ddg_add(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 32, 0, 0);
  int lb = cgp_fpga_ddg_add(&g, CGP_FOP_LOAD, CGP_FTYPE_MEM, 32, 1, 0);
  int m = cgp_fpga_ddg_add(&g, CGP_FOP_MUL, CGP_FTYPE_INT, 32, -1, 0);
  int s = cgp_fpga_ddg_add(&g, CGP_FOP_ADD, CGP_FTYPE_INT, 32, -1, 0);
  g.nodes[iv].induction = 1;
  acc[la] = acc[lb] = (cgp_fpga_access){.affine = 1, .coef = {1}};
  int e[7][3] = {{iv, iv, 1}, {iv, la, 1}, {iv, lb, 1}, {la, m, 0}, {lb, m, 0}, {m, s, 0}, {s, s, 1}};
  for (int i = 0; i < 7; i++) cr_assert_eq(cgp_fpga_ddg_edge(&g, (unsigned)e[i][0], (unsigned)e[i][1], (unsigned)e[i][2], 0), 0);
  memset(n, 0, sizeof *n);
  memset(r, 0, sizeof *r);
  n->n_loops = r->n_loops = 1, n->n_arrays = r->n_arrays = 2;
  n->loops[0] = (cgp_fpga_nest_loop){.trips = trips, .parent = -1, .ddg = &g, .acc = acc};
  r->trips[0] = trips;
  for (int a = 0; a < 2; a++) {
    n->arrays[a] = r->shape[a] = (cgp_fpga_array){.width_bits = 32, .ndims = 1, .dims = {1024}};
    r->ndims[a] = 1;
  }
  strcpy(r->kernel, "dot");
  strcpy(r->file, "dot.c");
  r->line = 3, r->loop_line[0] = 4, r->ops[0] = g.n_nodes;
  strcpy(r->names[0], "i"), strcpy(r->arrays[0], "a"), strcpy(r->arrays[1], "b");
  r->mode = CGP_FPGA_FROM_DIRECTIVES;
  cgp_fpga_design_baseline(&r->design);
  r->design.pipeline = 0, r->design.unroll[0] = 4;
  r->design.part[0] = r->design.part[1] = CGP_PART_CYCLIC, r->design.factor[0] = r->design.factor[1] = 2;
}

Test(fpga_kernel, the_carried_nest_reads_back_as_written_and_estimates_the_same) {
  cgp_fpga_device d = board();
  cgp_fpga_result r, back;
  cgp_fpga_nest n, nb;
  cgp_fpga_store st;
  char err[512] = "";
  reduction_nest(&r, &n, 1024);
  cJSON *j = cgp_fpga_kernel_to_json(&r, &n);
  char *text = cJSON_PrintUnformatted(j);
  cJSON *parsed = cJSON_Parse(text);
  cr_assert_eq(cgp_fpga_kernel_from_json(parsed, &back, &nb, &st, err, sizeof err), 0, "%s", err);
  cr_expect_str_eq(back.kernel, "dot");
  cr_expect_str_eq(back.names[0], "i");
  cr_expect_str_eq(back.arrays[1], "b");
  cr_expect_eq(nb.loops[0].trips, 1024);
  cr_expect_eq(nb.loops[0].ddg->n_nodes, 5);
  cr_expect_eq(nb.loops[0].ddg->n_edges, 7);
  cr_expect_eq(nb.loops[0].ddg->nodes[1].array, 0);
  cr_expect_eq(nb.loops[0].ddg->nodes[0].induction, 1);
  cr_expect_eq(nb.loops[0].acc[2].coef[0], 1);
  cr_expect_eq(back.mode, CGP_FPGA_FROM_DIRECTIVES);
  cr_expect_eq(back.design.factor[1], 2);
  cr_assert_eq(cgp_fpga_result_estimate(&d, &nb, &back, err, sizeof err), 0, "%s", err);
  cr_assert_eq(cgp_fpga_result_estimate(&d, &n, &r, err, sizeof err), 0, "%s", err);
  cr_expect_eq(back.est.cycles, 259);
  cr_expect_eq(r.est.cycles, 259);
  cgp_fpga_store_free(&st);
  free(text);
  cJSON_Delete(parsed);
  cJSON_Delete(j);
  cgp_fpga_ddg_free(&g);
}

/* A descriptor a user edited: an edge within a window going backwards, an operation kind out of
   range (type 9), a load naming no array; each refused with the field named. */
Test(fpga_kernel, a_damaged_carried_nest_is_refused_naming_the_field) {
  cgp_fpga_result r, back;
  cgp_fpga_nest n, nb;
  cgp_fpga_store st;
  char err[512];
  reduction_nest(&r, &n, 1024);
  const char *damage[][3] = {{"[3,4,0,0]", "[4,3,0,0]", "loops[0].edges[5]: an edge within a window must go forward"},
                             {"[4,0,32,0,0]", "[4,9,32,0,0]", "loops[0].nodes[3][1]: not a whole number from 0 to 2"},
                             {"[0,2,32,1,0]", "[0,2,32,0,0]", "loops[0].nodes[1]: a load or store names an array"}};
  for (int c = 0; c < 3; c++) {
    cJSON *j = cgp_fpga_kernel_to_json(&r, &n);
    char *text = cJSON_PrintUnformatted(j), *at = strstr(text, damage[c][0]);
    cr_assert_not_null(at, "%s in %s", damage[c][0], text);
    memcpy(at, damage[c][1], strlen(damage[c][1]));
    cJSON *parsed = cJSON_Parse(text);
    cr_assert_not_null(parsed);
    cr_expect_neq(cgp_fpga_kernel_from_json(parsed, &back, &nb, &st, err, sizeof err), 0);
    cr_expect_not_null(strstr(err, damage[c][2]), "case %d: %s", c, err);
    cgp_fpga_store_free(&st);
    free(text);
    cJSON_Delete(parsed);
    cJSON_Delete(j);
  }
  cgp_fpga_ddg_free(&g);
}

/* The prediction from a report's kernel: the loop's trips are not static (0 in the nest); the run
   mapped it to 1024 threads. Compute 259 cycles (above); the trace read 8192 bytes in 2 pieces and
   wrote none: 2 x 64 + 8192 / 8 = 1152 off-chip cycles. The data (8192 bytes: 4 BRAM18K, the
   partitions' 2 + 2 banks) fits: copied in, then computed: 1411 cycles, 0.01411 ms. Launched 3
   times: 3 x 259 + 1152 = 1929. A board of 3 BRAM18K cannot hold it: streamed, max(777, 1152). */
Test(fpga_kernel, a_report_kernel_is_predicted_with_the_runs_trips_and_bytes) {
  cgp_fpga_device d = board();
  cgp_fpga_result r;
  cgp_fpga_nest n;
  reduction_nest(&r, &n, 0);
  cJSON *report = cJSON_CreateObject(), *ks = cJSON_AddArrayToObject(report, "kernels"), *k = cJSON_CreateObject();
  cJSON_AddItemToArray(ks, k);
  cJSON_AddStringToObject(k, "name", "dot");
  cJSON_AddNumberToObject(k, "dims", 1);
  cJSON_AddNumberToObject(k, "launches", 1);
  const double ext[3] = {1024, 1, 1};
  cJSON_AddItemToObject(k, "threads_extent", cJSON_CreateDoubleArray(ext, 3));
  cJSON *h = cJSON_AddObjectToObject(k, "host");
  cJSON_AddNumberToObject(h, "bytes_read", 8192);
  cJSON_AddNumberToObject(h, "ranges_read", 2);
  cJSON_AddNumberToObject(h, "bytes_written", 0);
  cJSON_AddNumberToObject(h, "ranges_written", 0);
  cJSON_AddItemToObject(k, "fpga_nest", cgp_fpga_kernel_to_json(&r, &n));
  cr_assert_eq(cgp_report_predict_fpga(report, &d, 1), 0);
  cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0);
  cr_assert(cgp_report_is_fpga(p));
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cycles")), 1411, 1e-9);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "time_ms")), 0.01411, 1e-12);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "trips_from_run")), "i 1024");
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "bound")), "compute and copies");
  cJSON *off = cJSON_GetObjectItem(p, "offchip");
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(off, "cycles")), 1152, 1e-9);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(off, "buffer_bram18k")), 4, 1e-9);
  cJSON_DeleteItemFromObject(k, "predictions");
  cJSON_SetNumberValue(cJSON_GetObjectItem(k, "launches"), 3);
  cr_assert_eq(cgp_report_predict_fpga(report, &d, 1), 0);
  p = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cycles")), 1929, 1e-9);
  cJSON_DeleteItemFromObject(k, "predictions");
  d.bram18k = 3;
  cr_assert_eq(cgp_report_predict_fpga(report, &d, 1), 0);
  p = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cycles")), 1152, 1e-9);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "bound")), "off-chip memory");
  /* without the carried nest: a note, no time */
  cJSON_DeleteItemFromObject(k, "predictions");
  cJSON_DeleteItemFromObject(k, "fpga_nest");
  cr_assert_eq(cgp_report_predict_fpga(report, &d, 1), 0);
  p = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "predictions"), 0);
  cr_expect_null(cJSON_GetObjectItem(p, "time_ms"));
  cr_expect_not_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(p, "note")), "rebuild"));
  cJSON_Delete(report);
  cgp_fpga_ddg_free(&g);
}
