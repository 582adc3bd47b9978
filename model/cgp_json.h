/* cgp_json.h: reading a number out of the report's JSON and printing a time as the report does,
   for the model's readers and writers of it (the offload decision, the FPGA predictions, the
   summary, the page). */
#ifndef CGP_JSON_H
#define CGP_JSON_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* o[key] when it is a number, else dflt. */
static inline double cgp_json_num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* A time in ms as the summary, the page and the offload verdict print it: at least three
   significant digits (0.000015 ms is not 0.000). */
static inline void cgp_report_format_ms(char *out, size_t len, double ms) {
  if (ms == 0 || ms >= 0.01) snprintf(out, len, "%.3f", ms);
  else snprintf(out, len, "%.3g", ms);
}

#endif
