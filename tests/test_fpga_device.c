/* FPGA device files (model/cgp_fpga_device.c): the shipped ones load with their cited numbers,
   the implementation chosen per operation follows the clock budget rule (docs/model.md 11.2),
   and GPU lookups never take an FPGA file. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_fpga.h"
#include "cgp_model.h"

static cgp_fpga_device load(const char *name) {
  cgp_fpga_device d;
  char err[1024] = "";
  unsetenv("CGPREDICT_DEVICES_DIR");
  cr_assert_eq(cgp_fpga_device_find(name, &d, err, sizeof err), 0, "%s", err);
  return d;
}

Test(fpga_device, zc702_is_the_xc7z020_at_100_mhz) {
  cgp_fpga_device d = load("zc702");
  cr_expect_str_eq(d.part, "xc7z020clg484-1");
  cr_expect_float_eq(d.clock_mhz, 100.0, 1e-12);
  cr_expect_float_eq(d.clock_uncertainty_pct, 12.5, 1e-12);
  /* DS190, Z-7020 */
  cr_expect_eq(d.dsp, 220);
  cr_expect_eq(d.bram18k, 280);
  cr_expect_eq(d.uram, 0);
  cr_expect_eq(d.lut, 53200);
  cr_expect_eq(d.ff, 106400);
  cr_expect_eq(d.bram_ports, 2);
  cr_expect_eq(d.bram_write_ports, 1);
  cr_expect_eq(d.n_bram_configs, 6);
  cr_expect_eq(d.bram_configs[5][0], 36);
  cr_expect_eq(d.bram_configs[5][1], 512);
  cr_expect_eq(d.loop_exit_cycles, 1);
  cr_expect_float_eq(d.offchip_bandwidth_bytes_per_s, 4.264e9, 1);
  /* 10 ns less 12.5 % */
  cr_expect_float_eq(cgp_fpga_budget_ns(&d), 8.75, 1e-12);
}

Test(fpga_device, zcu102_and_u250_capacities) {
  cgp_fpga_device z = load("zcu102"), u = load("alveo-u250");
  cr_expect_eq(z.dsp, 2520);
  cr_expect_eq(z.bram18k, 1824);
  cr_expect_eq(z.lut, 274080);
  cr_expect_eq(z.ff, 548160);
  cr_expect_eq(u.uram, 1280);
  cr_expect_eq(u.bram18k, 5376);
  /* 10 ns less 27 % = 7.3 ns; 3.333 ns less 27 % = 2.4333 ns */
  cr_expect_float_eq(cgp_fpga_budget_ns(&z), 7.3, 1e-12);
  cr_expect_float_eq(cgp_fpga_budget_ns(&u), 1000.0 / 300.0 * 0.73, 1e-12);
}

/* zcu102 at 7.3 ns: the lowest latency whose delay fits. fadd rows (latency, delay) ... (2, 10.5)
   (3, 6.43): 3; fmul (1, 8.41) (2, 7.01): 2; fdiv (7, 8.27) (8, 7.05): 8. At 300 MHz (2.4333 ns)
   fadd (9, 2.46) does not fit, (10, 2.26) does: 10. */
Test(fpga_device, implementation_is_the_lowest_latency_that_fits_the_budget) {
  cgp_fpga_device z = load("zcu102"), u = load("alveo-u250"), c = load("zc702");
  double bz = cgp_fpga_budget_ns(&z), bu = cgp_fpga_budget_ns(&u);
  const cgp_fpga_impl *m = cgp_fpga_pick_impl(&z, CGP_FOP_FADD, CGP_FTYPE_FLOAT, 32, bz);
  cr_assert_not_null(m);
  cr_expect_eq(m->latency, 3);
  cr_expect_float_eq(m->delay_ns, 6.43, 1e-12);
  cr_expect_eq(m->dsp, 2);
  cr_expect_eq(cgp_fpga_pick_impl(&z, CGP_FOP_FMUL, CGP_FTYPE_FLOAT, 32, bz)->latency, 2);
  cr_expect_eq(cgp_fpga_pick_impl(&z, CGP_FOP_FDIV, CGP_FTYPE_FLOAT, 32, bz)->latency, 8);
  cr_expect_eq(cgp_fpga_pick_impl(&u, CGP_FOP_FADD, CGP_FTYPE_FLOAT, 32, bu)->latency, 10);
  /* the ZC702's table has one fadd: latency 4 (COMBA, Lin-Analyzer) */
  cr_expect_eq(cgp_fpga_pick_impl(&c, CGP_FOP_FADD, CGP_FTYPE_FLOAT, 32, cgp_fpga_budget_ns(&c))->latency, 4);
  cr_expect_eq(cgp_fpga_pick_impl(&c, CGP_FOP_LOAD, CGP_FTYPE_MEM, 32, 8.75)->latency, 1);
  cr_expect_eq(cgp_fpga_pick_impl(&c, CGP_FOP_STORE, CGP_FTYPE_MEM, 32, 8.75)->latency, 0);
  /* an 8-bit add uses the 32-bit entry (narrowest width >= 8); a 64-bit one the widest (32) */
  cr_expect_eq(cgp_fpga_pick_impl(&c, CGP_FOP_ADD, CGP_FTYPE_INT, 8, 8.75)->width, 32);
  cr_expect_eq(cgp_fpga_pick_impl(&c, CGP_FOP_ADD, CGP_FTYPE_INT, 64, 8.75)->width, 32);
  cr_expect_null(cgp_fpga_pick_impl(&c, CGP_FOP_FADD, CGP_FTYPE_INT, 32, 8.75), "no integer fadd");
}

Test(fpga_device, gpu_lookups_skip_fpga_files_and_say_why) {
  unsetenv("CGPREDICT_DEVICES_DIR");
  char **names;
  size_t n = cgp_device_all_names(&names);
  cr_assert_geq(n, 11);
  for (size_t i = 0; i < n; i++) {
    cr_expect_neq(strcmp(names[i], "zc702"), 0);
    cr_expect_neq(strcmp(names[i], "zcu102"), 0);
    cr_expect_neq(strcmp(names[i], "alveo-u250"), 0);
  }
  cgp_device_names_free(names, n);
  n = cgp_fpga_device_all_names(&names);
  cr_assert_eq(n, 3);
  cr_expect_str_eq(names[0], "alveo-u250");
  cr_expect_str_eq(names[1], "zc702");
  cr_expect_str_eq(names[2], "zcu102");
  cgp_device_names_free(names, n);
  cgp_device g;
  char err[1024] = "";
  cr_expect_neq(cgp_device_find("zc702", &g, err, sizeof err), 0);
  cr_expect(strstr(err, "zc702.json") && strstr(err, "field \"kind\"") && strstr(err, "FPGA"), "%s", err);
  cgp_fpga_device f;
  cr_expect_neq(cgp_fpga_device_find("jetson-tk1", &f, err, sizeof err), 0);
  cr_expect(strstr(err, "not an FPGA device"), "%s", err);
  cr_expect_neq(cgp_fpga_device_find("vu9p", &f, err, sizeof err), 0);
  cr_expect(strstr(err, "unknown FPGA device 'vu9p'") && strstr(err, "alveo-u250 zc702 zcu102"), "%s", err);
}
