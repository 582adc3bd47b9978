/* The offload decision (docs/model.md section 12) on hand-computed examples: copies over a PCIe
   link of known bandwidth and latency, none on a board whose GPU shares the host's DRAM, and the
   verdict either way; then the program's decision as the report carries it. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <string.h>

#include "cgp_model.h"
#include "cgp_report.h"

#define TK1_PATH CGP_SOURCE_DIR "/devices/jetson-tk1.json"
#define H100_PATH CGP_SOURCE_DIR "/devices/h100-sxm5.json"

static cgp_device load(const char *path) {
  cgp_device d;
  char err[512] = "";
  cr_assert_eq(cgp_device_load_file(path, &d, err, sizeof err), 0, "%s", err);
  return d;
}

Test(model_offload, a_copy_is_its_latency_per_copy_plus_bytes_over_bandwidth) {
  /* 64 MB in two copies at 16 GB/s with 10 us each: 2 x 10 us + 4 ms = 4.02 ms */
  cr_expect_float_eq(cgp_copy_ms(64e6, 2, 16e9, 10e-6), 4.02, 1e-12);
  cr_expect_float_eq(cgp_copy_ms(0, 2, 16e9, 10e-6), 0, 1e-12);        /* nothing to copy: no copy */
  cr_expect_float_eq(cgp_copy_ms(1e6, 1, 0, 5e-6), 0.005, 1e-12);      /* bandwidth unknown: latency */
}

Test(model_offload, a_pcie_device_pays_pageable_copies_each_way) {
  /* An array of 4 MiB read, one of 4 MiB written, on a PCIe device of 10 GB/s pinned, 5 GB/s
     pageable to the device and 8 GB/s back, 10 us a copy: in 10 us + 4194304 / 5e9 s = 0.8488608 ms,
     out 10 us + 4194304 / 8e9 s = 0.534288 ms; pinned 2 x (10 us + 0.4194304 ms) = 0.8588608 ms.
     The kernel takes 1 ms, the CPU 10 ms: offloaded 1 + 1.3831488 = 2.3831488 ms, 4.1961x. */
  cgp_device d = load(H100_PATH);
  d.host_link_bandwidth_bytes_per_s = 10e9;
  d.host_link_pageable_to_bytes_per_s = 5e9;
  d.host_link_pageable_from_bytes_per_s = 8e9;
  d.host_link_latency_s = 10e-6;
  cgp_host_data h = {.bytes_in = 4194304, .copies_in = 1, .bytes_out = 4194304, .copies_out = 1, .cpu_ms = 10};
  cgp_offload o;
  cgp_offload_estimate(&d, &h, 1.0, &o);
  cr_expect_float_eq(o.in_ms, 0.8488608, 1e-9);
  cr_expect_float_eq(o.out_ms, 0.534288, 1e-9);
  cr_expect_float_eq(o.pinned_ms, 0.8588608, 1e-9);
  cr_expect_float_eq(o.offload_ms, 2.3831488, 1e-9);
  cr_expect_float_eq(o.speedup, 10 / 2.3831488, 1e-9);
  cr_expect_str_eq(cgp_offload_verdict(&o), "offload");
  /* the same kernel where the CPU takes 2 ms: the copies alone exceed it */
  h.cpu_ms = 2;
  cgp_offload_estimate(&d, &h, 1.0, &o);
  cr_expect_str_eq(cgp_offload_verdict(&o), "stay on the CPU");
  /* no pageable figure: both directions at the link's 10 GB/s, and said so */
  d.host_link_pageable_to_bytes_per_s = d.host_link_pageable_from_bytes_per_s = 0;
  cgp_offload_estimate(&d, &h, 1.0, &o);
  cr_expect_float_eq(o.transfer_ms, 0.8588608, 1e-9);
  cr_expect(o.pageable_unknown);
}

Test(model_offload, the_tk1_shares_its_dram_so_nothing_is_copied) {
  cgp_device d = load(TK1_PATH);
  cgp_host_data h = {.bytes_in = 1e9, .copies_in = 3, .bytes_out = 1e9, .copies_out = 1, .cpu_ms = 0};
  cgp_offload o;
  cgp_offload_estimate(&d, &h, 5.0, &o);
  cr_expect(o.shared_dram);
  cr_expect_float_eq(o.transfer_ms, 0, 1e-12);
  cr_expect_float_eq(o.offload_ms, 5.0, 1e-12);
  cr_expect_str_eq(cgp_offload_verdict(&o), "unknown");     /* no CPU time: no verdict */
}

Test(model_offload, the_report_adds_each_prediction_and_the_program_its_decision) {
  /* Two kernels, each 2 ms (+ 0 host sync) on a device of 10 GB/s and no latency, the program
     copying 1e7 bytes in and 1e7 out once (2 ms), the kernels alone 1e7 in each (1 ms each);
     CPU 3 + 5 ms: the program 8 / (4 + 2) = 1.333x. */
  cgp_device d = load(H100_PATH);
  d.host_link_bandwidth_bytes_per_s = 10e9;
  d.host_link_pageable_to_bytes_per_s = d.host_link_pageable_from_bytes_per_s = 0;
  d.host_link_latency_s = 0;
  cJSON *r = cJSON_Parse("{\"host\": {\"bytes_read\": 1e7, \"ranges_read\": 1, \"bytes_written\": 1e7, "
                         "\"ranges_written\": 1}, \"kernels\": ["
                         "{\"host\": {\"bytes_read\": 1e7, \"ranges_read\": 1, \"cpu_ms\": 3}, \"predictions\": "
                         "[{\"device\": \"h100-sxm5\", \"time_ms\": 2, \"host_sync_ms\": 0}]},"
                         "{\"host\": {\"bytes_written\": 1e7, \"ranges_written\": 1, \"cpu_ms\": 5}, \"predictions\": "
                         "[{\"device\": \"h100-sxm5\", \"time_ms\": 2, \"host_sync_ms\": 0}]}]}");
  cr_assert(r);
  cr_assert_eq(cgp_report_offload(r, &d, 1), 0);
  cJSON *k0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0);
  cJSON *o0 = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(k0, "predictions"), 0), "offload");
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o0, "transfer_ms")), 1.0, 1e-9);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o0, "speedup")), 1.0, 1e-9);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o0, "verdict")), "stay on the CPU");
  cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "offload"), 0);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "device")), "h100-sxm5");
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "offload_ms")), 6.0, 1e-9);
  cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "speedup")), 8.0 / 6.0, 1e-9);
  cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "verdict")), "offload");
  cJSON_Delete(r);
}
