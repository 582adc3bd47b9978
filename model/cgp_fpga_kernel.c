/* cgp_fpga_kernel.c: one kernel's FPGA estimate in words and JSON, and the nest carried from the
   build to the run's report (cgp_fpga_kernel.h; docs/model.md 11.10, 11.11, 11.14). */
#include "cgp_fpga_kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cgp_fpga_bound_name(cgp_fpga_ii_bound b) {
  switch (b) {
  case CGP_II_MEMORY: return "memory ports";
  case CGP_II_UNITS: return "operators";
  case CGP_II_RECURRENCE: return "recurrence";
  default: return "none";
  }
}

const char *cgp_fpga_part_name(cgp_fpga_part p) {
  return p == CGP_PART_CYCLIC ? "cyclic" : p == CGP_PART_BLOCK ? "block" : p == CGP_PART_COMPLETE ? "complete" : "none";
}

void cgp_fpga_design_text(const cgp_fpga_result *r, char *buf, size_t cap) {
  size_t w = 0;
  const cgp_fpga_design *ds = &r->design;
#define PUT(...) (w += (size_t)snprintf(buf + w, w < cap ? cap - w : 0, __VA_ARGS__), w = w < cap ? w : cap)
  buf[0] = '\0';
  if (ds->pipeline >= 0) PUT("pipeline %s", r->names[ds->pipeline]);
  for (unsigned l = 0; l < r->n_loops; l++)
    if (ds->unroll[l] > 1) PUT("%sunroll %s x%u", w ? ", " : "", r->names[l], ds->unroll[l]);
  for (unsigned a = 0; a < r->n_arrays; a++)
    if (ds->part[a] != CGP_PART_NONE) {
      PUT("%spartition %s %s", w ? ", " : "", r->arrays[a], cgp_fpga_part_name(ds->part[a]));
      if (ds->part[a] != CGP_PART_COMPLETE) PUT(" %u", ds->factor[a]);
      if (r->ndims[a] > 1) PUT(" (dim %u)", ds->part_dim[a] + 1);
    }
  if (!w) PUT("baseline (not pipelined, not unrolled, no partitioning)");
#undef PUT
}


int cgp_fpga_result_estimate(const cgp_fpga_device *d, const cgp_fpga_nest *n, cgp_fpga_result *r, char *err,
                             size_t errlen) {
  int known = 1;
  for (unsigned l = 0; l < n->n_loops; l++) known &= n->loops[l].trips != 0 || n->loops[l].skip;
  r->search_skipped = 0;
  if (r->mode == CGP_FPGA_FROM_SEARCH && !known) r->mode = CGP_FPGA_FROM_BASELINE, r->search_skipped = 1;
  if (r->mode != CGP_FPGA_FROM_DIRECTIVES) cgp_fpga_design_baseline(&r->design);
  memset(&r->count, 0, sizeof r->count);
  int rc = r->mode == CGP_FPGA_FROM_SEARCH ? cgp_fpga_search(d, n, &r->design, &r->est, &r->count, err, errlen)
                                           : cgp_fpga_design_eval(d, n, &r->design, &r->est, err, errlen);
  if (rc) return rc;
  unsigned inner = 0;                       /* the first loop no loop of the nest is nested in */
  for (unsigned l = 0; l < n->n_loops; l++) {
    int leaf = 1;
    for (unsigned c = 0; c < n->n_loops; c++) leaf &= n->loops[c].parent != (int)l;
    if (leaf) { inner = l; break; }
  }
  while (!r->est.scheduled[inner] && n->loops[inner].parent >= 0) inner = (unsigned)n->loops[inner].parent;
  r->inner = inner;
  r->ms = r->est.known ? r->est.cycles / (d->clock_mhz * 1e3) : 0;
  return 0;
}

cJSON *cgp_fpga_result_json(const cgp_fpga_device *d, const cgp_fpga_result *r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kernel", r->kernel);
  cJSON_AddStringToObject(o, "file", r->file);
  cJSON_AddNumberToObject(o, "line", r->line);
  cJSON_AddStringToObject(o, "device", d->name);
  cJSON_AddNumberToObject(o, "innermost_il", r->est.il[r->inner]);
  if (r->est.known) {
    cJSON_AddNumberToObject(o, "cycles", (double)r->est.cycles);
    cJSON_AddNumberToObject(o, "time_ms", r->ms);
  } else {
    cJSON_AddNullToObject(o, "cycles");
    cJSON_AddNullToObject(o, "time_ms");
  }
  cJSON *dj = cJSON_AddObjectToObject(o, "design");
  cJSON_AddStringToObject(dj, "from", r->mode == CGP_FPGA_FROM_SEARCH ? "search" : r->mode == CGP_FPGA_FROM_DIRECTIVES ? "directives"
                                                                                                      : "baseline");
  char text[512];
  cgp_fpga_design_text(r, text, sizeof text);
  cJSON_AddStringToObject(dj, "summary", text);
  if (r->design.pipeline >= 0) cJSON_AddStringToObject(dj, "pipeline", r->names[r->design.pipeline]);
  else cJSON_AddNullToObject(dj, "pipeline");
  cJSON *pa = cJSON_AddArrayToObject(dj, "partition");
  for (unsigned a = 0; a < r->n_arrays; a++) {
    if (r->design.part[a] == CGP_PART_NONE) continue;
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "array", r->arrays[a]);
    cJSON_AddStringToObject(p, "kind", cgp_fpga_part_name(r->design.part[a]));
    cJSON_AddNumberToObject(p, "factor", r->design.factor[a]);
    cJSON_AddNumberToObject(p, "dim", r->design.part_dim[a] + 1);
    cJSON_AddItemToArray(pa, p);
  }
  if (r->mode == CGP_FPGA_FROM_SEARCH) {
    cJSON_AddNumberToObject(dj, "designs_tried", r->count.tried);
    cJSON_AddNumberToObject(dj, "designs_fitting", r->count.fitting);
    cJSON_AddNumberToObject(dj, "designs_refused", r->count.refused);
  }
  cJSON *ls = cJSON_AddArrayToObject(o, "loops");
  for (unsigned i = 0; i < r->n_loops; i++) {
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", r->names[i]);
    cJSON_AddNumberToObject(l, "line", r->loop_line[i]);
    cJSON_AddNumberToObject(l, "depth", r->depth[i]);
    if (r->trips[i]) cJSON_AddNumberToObject(l, "trips", (double)r->trips[i]);
    else cJSON_AddNullToObject(l, "trips");
    cJSON_AddNumberToObject(l, "unroll", r->est.unroll[i]);
    cJSON_AddBoolToObject(l, "pipelined", r->design.pipeline == (int)i);
    cJSON_AddNumberToObject(l, "operations", r->ops[i]);
    if (r->skip[i]) cJSON_AddBoolToObject(l, "another_version", 1);
    if (r->est.scheduled[i]) {
      cJSON_AddNumberToObject(l, "il", r->est.il[i]);
      if (r->est.ii[i]) cJSON_AddNumberToObject(l, "ii", r->est.ii[i]);
      else cJSON_AddNullToObject(l, "ii");
      cJSON_AddNumberToObject(l, "ii_bound", r->est.ii_bound[i]);
      cJSON_AddStringToObject(l, "ii_bound_by", cgp_fpga_bound_name(r->est.bound[i]));
    }
    cJSON_AddItemToArray(ls, l);
  }
  cJSON *res = cJSON_AddObjectToObject(o, "resources");
  cJSON_AddNumberToObject(res, "dsp", (double)r->est.dsp);
  cJSON_AddNumberToObject(res, "lut", (double)r->est.lut);
  cJSON_AddNumberToObject(res, "ff", (double)r->est.ff);
  cJSON_AddNumberToObject(res, "bram18k", (double)r->est.bram18k);
  cJSON_AddBoolToObject(res, "fits", r->est.fits);
  return o;
}


/* ---- The carried form ---- */

static const char *const from_names[] = {NULL, "directives", "search", "baseline"};

static cJSON *uints(const unsigned *v, unsigned n) {
  cJSON *a = cJSON_CreateArray();
  for (unsigned i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

cJSON *cgp_fpga_kernel_to_json(const cgp_fpga_result *r, const cgp_fpga_nest *n) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "kernel", r->kernel);
  cJSON_AddStringToObject(o, "file", r->file);
  cJSON_AddNumberToObject(o, "line", r->line);
  cJSON_AddStringToObject(o, "from", r->mode >= 1 && r->mode <= 3 ? from_names[r->mode] : "baseline");
  cJSON *ls = cJSON_AddArrayToObject(o, "loops");
  for (unsigned l = 0; l < n->n_loops; l++) {
    const cgp_fpga_nest_loop *nl = &n->loops[l];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", r->names[l]);
    cJSON_AddNumberToObject(j, "line", r->loop_line[l]);
    cJSON_AddNumberToObject(j, "depth", r->depth[l]);
    cJSON_AddNumberToObject(j, "trips", (double)nl->trips);
    cJSON_AddNumberToObject(j, "parent", nl->parent);
    cJSON_AddBoolToObject(j, "skip", nl->skip);
    cJSON *nodes = cJSON_AddArrayToObject(j, "nodes"), *edges = cJSON_AddArrayToObject(j, "edges");
    cJSON *acc = cJSON_AddArrayToObject(j, "access");
    for (unsigned v = 0; v < nl->ddg->n_nodes; v++) {
      const cgp_fpga_node *nd = &nl->ddg->nodes[v];
      unsigned f[5] = {nd->op, nd->type, nd->width, (unsigned)(nd->array + 1), (unsigned)nd->induction};
      cJSON_AddItemToArray(nodes, uints(f, 5));
      const cgp_fpga_access *a = &nl->acc[v];
      cJSON *aj = cJSON_CreateArray();
      cJSON_AddItemToArray(aj, cJSON_CreateNumber(a->affine));
      cJSON_AddItemToArray(aj, cJSON_CreateNumber((double)a->offset));
      for (unsigned q = 0; q < n->n_loops; q++) cJSON_AddItemToArray(aj, cJSON_CreateNumber((double)a->coef[q]));
      cJSON_AddItemToArray(acc, aj);
    }
    for (unsigned e = 0; e < nl->ddg->n_edges; e++) {
      const cgp_fpga_edge *ed = &nl->ddg->edges[e];
      unsigned f[4] = {ed->from, ed->to, ed->distance, (unsigned)ed->memory};
      cJSON_AddItemToArray(edges, uints(f, 4));
    }
    cJSON_AddItemToArray(ls, j);
  }
  cJSON *as = cJSON_AddArrayToObject(o, "arrays");
  for (unsigned a = 0; a < n->n_arrays; a++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", r->arrays[a]);
    cJSON_AddNumberToObject(j, "width_bits", n->arrays[a].width_bits);
    cJSON *dims = cJSON_AddArrayToObject(j, "dims");
    for (unsigned k = 0; k < n->arrays[a].ndims; k++)
      cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)n->arrays[a].dims[k]));
    cJSON_AddBoolToObject(j, "on_chip", n->on_chip[a]);
    cJSON_AddItemToArray(as, j);
  }
  cJSON *ds = cJSON_AddObjectToObject(o, "design");
  unsigned part[CGP_FPGA_MAX_ARRAYS];
  for (unsigned a = 0; a < n->n_arrays; a++) part[a] = r->design.part[a];
  cJSON_AddItemToObject(ds, "unroll", uints(r->design.unroll, n->n_loops));
  cJSON_AddNumberToObject(ds, "pipeline", r->design.pipeline);
  cJSON_AddItemToObject(ds, "part", uints(part, n->n_arrays));
  cJSON_AddItemToObject(ds, "factor", uints(r->design.factor, n->n_arrays));
  cJSON_AddItemToObject(ds, "part_dim", uints(r->design.part_dim, n->n_arrays));
  return o;
}

/* A whole number in [lo, hi] at o[key] (or the array element o when key is NULL). */
static int whole(const cJSON *o, const char *key, double lo, double hi, double *v, const char *what, char *err,
                 size_t errlen) {
  const cJSON *j = key ? cJSON_GetObjectItemCaseSensitive(o, key) : o;
  if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || j->valuedouble != floor(j->valuedouble) ||
      j->valuedouble < lo || j->valuedouble > hi)
    return snprintf(err, errlen, "fpga nest: %s%s%s: not a whole number from %.0f to %.0f", what, key ? "." : "",
                    key ? key : "", lo, hi), -1;
  *v = j->valuedouble;
  return 0;
}

static int name_of(const cJSON *o, char *dst, size_t cap, const char *what, char *err, size_t errlen) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "name");
  if (!cJSON_IsString(j) || strlen(j->valuestring) >= cap)
    return snprintf(err, errlen, "fpga nest: %s.name: not a string of under %zu bytes", what, cap), -1;
  snprintf(dst, cap, "%s", j->valuestring);
  return 0;
}

/* Row `row` of an array of number rows, n numbers each, into v (ranges lo[i]..hi[i]). */
static int row(const cJSON *a, int at, unsigned n, const double *lo, const double *hi, double *v, const char *what,
               char *err, size_t errlen) {
  const cJSON *r = cJSON_GetArrayItem(a, at);
  if (!cJSON_IsArray(r) || (unsigned)cJSON_GetArraySize(r) != n)
    return snprintf(err, errlen, "fpga nest: %s[%d]: not an array of %u numbers", what, at, n), -1;
  char at_what[96];
  for (unsigned i = 0; i < n; i++) {
    snprintf(at_what, sizeof at_what, "%s[%d][%u]", what, at, i);
    if (whole(cJSON_GetArrayItem(r, (int)i), NULL, lo[i], hi[i], &v[i], at_what, err, errlen)) return -1;
  }
  return 0;
}

static int read_loop(const cJSON *j, unsigned l, const cgp_fpga_nest *n, unsigned n_arrays, cgp_fpga_result *r,
                     cgp_fpga_nest_loop *nl, cgp_fpga_store *s, char *err, size_t errlen) {
  char what[48];
  double v[CGP_FPGA_MAX_LOOPS + 2];
  snprintf(what, sizeof what, "loops[%u]", l);
  if (!cJSON_IsObject(j) || name_of(j, r->names[l], CGP_FPGA_NAME, what, err, errlen)) {
    if (!cJSON_IsObject(j)) snprintf(err, errlen, "fpga nest: %s: not an object", what);
    return -1;
  }
  if (whole(j, "line", 0, 4294967295.0, &v[0], what, err, errlen) ||
      whole(j, "depth", 0, CGP_FPGA_MAX_LOOPS, &v[1], what, err, errlen) ||
      whole(j, "trips", 0, 9007199254740992.0, &v[2], what, err, errlen) ||
      whole(j, "parent", -1, (double)l - 1, &v[3], what, err, errlen))
    return -1;
  if (l == 0 && v[3] != -1) return snprintf(err, errlen, "fpga nest: loops[0].parent: not -1"), -1;
  r->loop_line[l] = (unsigned)v[0], r->depth[l] = (unsigned)v[1];
  nl->trips = r->trips[l] = (uint64_t)v[2];
  nl->parent = (int)v[3];
  nl->skip = r->skip[l] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "skip"));
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes"), *edges = cJSON_GetObjectItemCaseSensitive(j, "edges");
  const cJSON *acc = cJSON_GetObjectItemCaseSensitive(j, "access");
  int nn = cJSON_GetArraySize(nodes);
  if (!cJSON_IsArray(nodes) || !cJSON_IsArray(edges) || !cJSON_IsArray(acc) || cJSON_GetArraySize(acc) != nn ||
      nn > CGP_FPGA_MAX_WINDOW)
    return snprintf(err, errlen, "fpga nest: %s: nodes, edges and access must be arrays, access as long as nodes, "
                    "at most %d nodes", what, CGP_FPGA_MAX_WINDOW), -1;
  cgp_fpga_ddg *g = &s->ddg[l];
  s->acc[l] = calloc((size_t)nn + 1, sizeof *s->acc[l]);
  if (!s->acc[l]) return snprintf(err, errlen, "fpga nest: out of memory"), -1;
  const double nlo[5] = {0, 0, 1, 0, 0}, nhi[5] = {CGP_FOP_COUNT - 1, CGP_FTYPE_MEM, 4096, n_arrays, 1};
  double alo[CGP_FPGA_MAX_LOOPS + 2], ahi[CGP_FPGA_MAX_LOOPS + 2];
  for (unsigned i = 0; i < n->n_loops + 2; i++) alo[i] = -9007199254740992.0, ahi[i] = 9007199254740992.0;
  alo[0] = 0, ahi[0] = 2;
  for (int v_ = 0; v_ < nn; v_++) {
    snprintf(what, sizeof what, "loops[%u].nodes", l);
    if (row(nodes, v_, 5, nlo, nhi, v, what, err, errlen)) return -1;
    if ((v[0] == CGP_FOP_LOAD || v[0] == CGP_FOP_STORE) != (v[3] > 0))
      return snprintf(err, errlen, "fpga nest: %s[%d]: a load or store names an array, nothing else does", what, v_), -1;
    int at = cgp_fpga_ddg_add(g, (cgp_fpga_opkind)v[0], (cgp_fpga_type)v[1], (unsigned)v[2], (int)v[3] - 1, 0);
    if (at < 0) return snprintf(err, errlen, "fpga nest: out of memory"), -1;
    g->nodes[at].induction = (int)v[4];
    snprintf(what, sizeof what, "loops[%u].access", l);
    if (row(acc, v_, n->n_loops + 2, alo, ahi, v, what, err, errlen)) return -1;
    cgp_fpga_access *a = &s->acc[l][v_];
    a->affine = (int)v[0];
    a->offset = (int64_t)v[1];
    for (unsigned q = 0; q < n->n_loops; q++) a->coef[q] = (int64_t)v[2 + q];
  }
  const double elo[4] = {0, 0, 0, 0}, ehi[4] = {nn - 1, nn - 1, 1 << 20, 1};
  for (int e = 0; e < cJSON_GetArraySize(edges); e++) {
    snprintf(what, sizeof what, "loops[%u].edges", l);
    if (nn == 0) return snprintf(err, errlen, "fpga nest: %s: edges without nodes", what), -1;
    if (row(edges, e, 4, elo, ehi, v, what, err, errlen)) return -1;
    if (v[2] == 0 && v[0] >= v[1])
      return snprintf(err, errlen, "fpga nest: %s[%d]: an edge within a window must go forward", what, e), -1;
    if (cgp_fpga_ddg_edge(g, (unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (int)v[3]) < 0)
      return snprintf(err, errlen, "fpga nest: out of memory"), -1;
  }
  nl->ddg = g;
  nl->acc = s->acc[l];
  r->ops[l] = g->n_nodes;
  return 0;
}

static int read_uints(const cJSON *ds, const char *key, unsigned n, double lo, double hi, unsigned *out, char *err,
                      size_t errlen) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(ds, key);
  if (!cJSON_IsArray(a) || (unsigned)cJSON_GetArraySize(a) != n)
    return snprintf(err, errlen, "fpga nest: design.%s: not an array of %u numbers", key, n), -1;
  char what[40];
  snprintf(what, sizeof what, "design.%s", key);
  for (unsigned i = 0; i < n; i++) {
    double v;
    if (whole(cJSON_GetArrayItem(a, (int)i), NULL, lo, hi, &v, what, err, errlen)) return -1;
    out[i] = (unsigned)v;
  }
  return 0;
}

int cgp_fpga_kernel_from_json(const cJSON *o, cgp_fpga_result *r, cgp_fpga_nest *n, cgp_fpga_store *s, char *err,
                              size_t errlen) {
  memset(r, 0, sizeof *r);
  memset(n, 0, sizeof *n);
  memset(s, 0, sizeof *s);
  const cJSON *ls = cJSON_GetObjectItemCaseSensitive(o, "loops"), *as = cJSON_GetObjectItemCaseSensitive(o, "arrays");
  const cJSON *from = cJSON_GetObjectItemCaseSensitive(o, "from"), *ds = cJSON_GetObjectItemCaseSensitive(o, "design");
  const cJSON *kn = cJSON_GetObjectItemCaseSensitive(o, "kernel"), *file = cJSON_GetObjectItemCaseSensitive(o, "file");
  if (!cJSON_IsArray(ls) || cJSON_GetArraySize(ls) < 1 || cJSON_GetArraySize(ls) > CGP_FPGA_MAX_LOOPS ||
      !cJSON_IsArray(as) || cJSON_GetArraySize(as) > CGP_FPGA_MAX_ARRAYS || !cJSON_IsString(from) ||
      !cJSON_IsObject(ds) || !cJSON_IsString(kn) || !cJSON_IsString(file))
    return snprintf(err, errlen, "fpga nest: needs kernel, file, from, design, 1 to %d loops and at most %d arrays",
                    CGP_FPGA_MAX_LOOPS, CGP_FPGA_MAX_ARRAYS), -1;
  snprintf(r->kernel, sizeof r->kernel, "%s", kn->valuestring);
  snprintf(r->file, sizeof r->file, "%s", file->valuestring);
  double v;
  if (whole(o, "line", 0, 4294967295.0, &v, "kernel", err, errlen)) return -1;
  r->line = (unsigned)v;
  r->mode = 0;
  for (int m = 1; m <= 3; m++)
    if (!strcmp(from->valuestring, from_names[m])) r->mode = m;
  if (!r->mode) return snprintf(err, errlen, "fpga nest: from: not directives, search or baseline"), -1;
  n->n_loops = r->n_loops = (unsigned)cJSON_GetArraySize(ls);
  n->n_arrays = r->n_arrays = (unsigned)cJSON_GetArraySize(as);
  for (unsigned a = 0; a < n->n_arrays; a++) {
    const cJSON *j = cJSON_GetArrayItem(as, (int)a), *dims = cJSON_GetObjectItemCaseSensitive(j, "dims");
    char what[32];
    snprintf(what, sizeof what, "arrays[%u]", a);
    if (name_of(j, r->arrays[a], CGP_FPGA_NAME, what, err, errlen) ||
        whole(j, "width_bits", 1, 4096, &v, what, err, errlen))
      return -1;
    cgp_fpga_array *fa = &n->arrays[a];
    fa->width_bits = (unsigned)v;
    int nd = cJSON_GetArraySize(dims);
    if (!cJSON_IsArray(dims) || nd < 1 || nd > CGP_FPGA_MAX_DIMS)
      return snprintf(err, errlen, "fpga nest: %s.dims: 1 to %d numbers", what, CGP_FPGA_MAX_DIMS), -1;
    fa->ndims = r->ndims[a] = (unsigned)nd;
    for (int k = 0; k < nd; k++) {
      if (whole(cJSON_GetArrayItem(dims, k), NULL, 1, 9007199254740992.0, &v, what, err, errlen)) return -1;
      fa->dims[k] = (uint64_t)v;
    }
    n->on_chip[a] = r->on_chip[a] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "on_chip"));
    r->shape[a] = *fa;
  }
  for (unsigned l = 0; l < n->n_loops; l++)
    if (read_loop(cJSON_GetArrayItem(ls, (int)l), l, n, n->n_arrays, r, &n->loops[l], s, err, errlen)) return -1;
  unsigned part[CGP_FPGA_MAX_ARRAYS];
  cgp_fpga_design_baseline(&r->design);
  if (read_uints(ds, "unroll", n->n_loops, 1, 1 << 20, r->design.unroll, err, errlen) ||
      read_uints(ds, "part", n->n_arrays, CGP_PART_NONE, CGP_PART_COMPLETE, part, err, errlen) ||
      read_uints(ds, "factor", n->n_arrays, 0, 1 << 20, r->design.factor, err, errlen) ||
      read_uints(ds, "part_dim", n->n_arrays, 0, CGP_FPGA_MAX_DIMS - 1, r->design.part_dim, err, errlen) ||
      whole(ds, "pipeline", -1, (double)n->n_loops - 1, &v, "design", err, errlen))
    return -1;
  r->design.pipeline = (int)v;
  for (unsigned a = 0; a < n->n_arrays; a++) {
    r->design.part[a] = (cgp_fpga_part)part[a];
    if (r->design.part_dim[a] >= n->arrays[a].ndims)
      return snprintf(err, errlen, "fpga nest: design.part_dim[%u]: the array has %u dimensions", a,
                      n->arrays[a].ndims), -1;
  }
  return 0;
}

void cgp_fpga_store_free(cgp_fpga_store *s) {
  for (unsigned l = 0; l < CGP_FPGA_MAX_LOOPS; l++) {
    cgp_fpga_ddg_free(&s->ddg[l]);
    free(s->acc[l]);
    s->acc[l] = NULL;
  }
}
