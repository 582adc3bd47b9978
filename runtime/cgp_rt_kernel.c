/* cgp_rt_kernel.c: the kernels the program has launched. Each is known by its descriptor
   pointer (the pass emits one constant JSON string per marked nest), parsed once. */
#include "cgp_rt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static rt_kernel *parse_kernel(const char *desc) {
  cJSON *d = cJSON_Parse(desc);
  if (!d) {
    fputs("cgpredict: internal error: unreadable kernel descriptor (pass and runtime of different versions?)\n", stderr);
    return NULL;
  }
  rt_kernel *k = calloc(1, sizeof *k);
  k->desc_ptr = desc;
  k->desc = d;
  k->name = str(d, "name");
  k->file = str(d, "file");
  k->line = (unsigned)num(d, "line", 0);
  k->dims = (unsigned)num(d, "dims", 1);
  k->can_skip = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "can_skip"));
  const cJSON *blk = cJSON_GetObjectItemCaseSensitive(d, "block");
  for (int i = 0; i < 3; i++) {
    const cJSON *v = cJSON_GetArrayItem(blk, i);
    k->block[i] = cJSON_IsNumber(v) ? (unsigned)v->valuedouble : 0;
    const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "iv_step"), i);
    k->step[i] = cJSON_IsNumber(s) ? (long long)s->valuedouble : 1;
  }
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "mem");
  k->nmem = (size_t)cJSON_GetArraySize(mem);
  if (k->nmem > RT_MAX_SIDS) {
    fprintf(stderr, "cgpredict: kernel '%s' has %zu memory instructions; at most %u can be traced\n",
            k->name, k->nmem, RT_MAX_SIDS);
    k->nmem = RT_MAX_SIDS;
  }
  k->mem_size = calloc(k->nmem ? k->nmem : 1, sizeof *k->mem_size);
  k->mem_store = calloc(k->nmem ? k->nmem : 1, 1);
  size_t i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, mem) {
    k->mem_size[i] = (unsigned)num(m, "size", 4);
    k->mem_store[i] = strcmp(str(m, "kind"), "store") == 0;
    i++;
  }
  const cJSON *bbs = cJSON_GetObjectItemCaseSensitive(d, "blocks");
  k->nbb = (size_t)cJSON_GetArraySize(bbs);
  k->bb_total = calloc(k->nbb ? k->nbb : 1, sizeof *k->bb_total);
  k->bb_core = calloc(k->nbb ? k->nbb : 1, sizeof *k->bb_core);
  i = 0;
  cJSON_ArrayForEach(m, bbs) {
    k->bb_total[i] = num(m, "total", 0);
    k->bb_core[i] = num(m, "core", 0);
    i++;
  }
  for (size_t dv = 0; dv < cgp_rt_g.ndev; dv++) k->sid[dv] = calloc(k->nmem ? k->nmem : 1, sizeof **k->sid);
  return k;
}

rt_kernel *rt_kernel_for(const char *desc) {
  for (size_t i = 0; i < cgp_rt_g.nkernels; i++)
    if (cgp_rt_g.kernels[i]->desc_ptr == desc) return cgp_rt_g.kernels[i];
  rt_kernel *k = parse_kernel(desc);
  if (!k) return NULL;
  cgp_rt_g.kernels = realloc(cgp_rt_g.kernels, (cgp_rt_g.nkernels + 1) * sizeof *cgp_rt_g.kernels);
  cgp_rt_g.kernels[cgp_rt_g.nkernels++] = k;
  return k;
}

/* Block shape: the pragma's, else CGPREDICT_BLOCK's for this dimensionality, else the defaults
   of MODEL.md section 2 (256 for 1-D grids, 32x8 for 2-D and 3-D grids). */
void rt_resolve_block(const rt_kernel *k, unsigned block[3]) {
  unsigned dims = k->dims >= 1 && k->dims <= 3 ? k->dims : 1;
  if (k->block[0]) {
    for (int i = 0; i < 3; i++) block[i] = k->block[i] ? k->block[i] : 1;
  } else if (cgp_rt_g.env_block[dims - 1][0]) {
    for (int i = 0; i < 3; i++) block[i] = cgp_rt_g.env_block[dims - 1][i];
  } else {
    block[0] = dims == 1 ? 256 : 32;
    block[1] = dims == 1 ? 1 : 8;
    block[2] = 1;
  }
  for (unsigned i = dims; i < 3; i++) block[i] = 1;    /* an unmapped dimension has one thread */
}

void rt_record_launch(rt_kernel *k, const rt_sample *s) {
  if (k->nsamples == k->capsamples) {
    k->capsamples = k->capsamples ? 2 * k->capsamples : 8;
    k->samples = realloc(k->samples, k->capsamples * sizeof *k->samples);
  }
  k->samples[k->nsamples++] = *s;
}
