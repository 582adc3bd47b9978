/* libFuzzer harness: the report reader. The bytes go through cgp_report_parse (syntax, schema,
   every kernel's weights and stats) and, when they are a JSON object, straight through
   cgp_report_stats_from_json. Neither may crash; an accepted report's stats must be in range. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_report.h"

static void check_stats(const cgp_kernel_stats *s) {
  const double *v[] = {&s->total_insts, &s->core_insts, &s->sync_insts, &s->smem_load_insts,
                       &s->insts[0], &s->insts[1], &s->insts[2], &s->trans_pw[0], &s->dram_pw[2]};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (!isfinite(*v[i]) || *v[i] < 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cJSON *r = NULL;
  char err[1024];
  err[0] = '\0';
  if (cgp_report_parse((const char *)data, size, "fuzz.json", &r, err, sizeof err) != 0) {
    if (!err[0] || r) abort();
  } else {
    char **names = NULL;
    size_t n = cgp_report_devices(r, &names);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    cJSON_Delete(r);
  }
  cJSON *o = cJSON_ParseWithLength((const char *)data, size);
  if (cJSON_IsObject(o)) {
    cgp_kernel_stats s;
    if (cgp_report_stats_from_json(o, &s, err, sizeof err) == 0) check_stats(&s);
    else if (!err[0]) abort();
  }
  cJSON_Delete(o);
  return 0;
}
