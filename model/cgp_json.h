/* cgp_json.h: reading a number out of the report's JSON, for the model's readers of it (the
   offload decision, the FPGA predictions, the summary). */
#ifndef CGP_JSON_H
#define CGP_JSON_H

#include <cjson/cJSON.h>

/* o[key] when it is a number, else dflt. */
static inline double cgp_json_num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

#endif
