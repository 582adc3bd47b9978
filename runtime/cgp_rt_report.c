/* cgp_rt_report.c: the report, at exit: what each kernel's sampled launches measured, run through
   the model for every device (model/cgp_report.h), written whole or not at all (rt_write_report).
   Its set-up and the exit and crash handlers that call it are cgp_rt_setup.c's. */
#include "cgp_rt_internal.h"
#include "cgp_report.h"
#include "cgp_fpga.h"
#include "cgp_rt_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program's session: its devices (cgp_rt_setup.c), and their caches. */
static rt_session *const S = &cgp_rt_g.session;

#define RT_NO_NEST_NOTE "no marked loop nest began in this run (a nest whose loop runs zero times is never " \
  "entered): the report lists no kernel"

/* ---- the report ---------------------------------------------------------------------------- */

static cJSON *num_array(const double *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

static cJSON *u64_array(const uint64_t *v, int n) {
  double d[3];
  for (int i = 0; i < n; i++) d[i] = (double)v[i];
  return num_array(d, n);
}

static const char *dominant_class(const cgp_site_totals *s) {
  int best = 0;
  for (int c = 1; c < CGP_NCLASS; c++)
    if (s->insts[c] > s->insts[best]) best = c;
  return s->insts[best] ? cgp_class_name((cgp_class)best) : "not_executed";
}

static const char *const reading_text[2] = {
    "may_alias: the CUDA kernel's pointers may alias, so every source-level access is issued, a "
    "store every iteration, a load again after any store; a load of a value the thread still "
    "holds is served from a register",
    "noalias (restrict or the pragma's noalias): values stay in registers as the compiler keeps them"};

static cJSON *memory_json(const rt_kernel *k) {
  cJSON *arr = cJSON_CreateArray();
  const cJSON *sites = cJSON_GetObjectItemCaseSensitive(k->desc, "mem");
  size_t i = 0;
  const cJSON *site;
  cJSON_ArrayForEach(site, sites) {
    if (i >= k->nmem) break;
    cJSON *m = cJSON_Duplicate(site, 1);
    const cgp_site_totals *s = &k->site[0][i];
    double n = s->insts[0] + s->insts[1] + s->insts[2];
    cJSON_DeleteItemFromObjectCaseSensitive(m, "block");
    cJSON_DeleteItemFromObjectCaseSensitive(m, "order");
    cJSON_AddStringToObject(m, "class", dominant_class(s));
    cJSON_AddNumberToObject(m, "warp_instructions_traced", n);
    cJSON_AddNumberToObject(m, "active_lanes_per_warp_instruction", n > 0 ? s->lanes / n : 0);
    /* the bytes a warp instruction moves, in whole sectors: against lanes x size, its waste */
    cJSON_AddNumberToObject(m, "sector_bytes_per_warp_instruction", n > 0 ? s->sectors * CGP_SECTOR_BYTES / n : 0);
    /* of an uncoalesced load's instructions, those whose addresses follow the thread index: the
       rest the data chose (a gather, a search's probes, a random pick), which no interchange fixes */
    if (k->mem_kind[i] == CGP_LOAD && s->insts[CGP_CLASS_UNCOAL] > 0)
      cJSON_AddNumberToObject(m, "uncoalesced_on_thread_stride", s->uncoal_on_stride / s->insts[CGP_CLASS_UNCOAL]);
    rt_site_stats_json(m, s);
    if (k->mem_kind[i] == CGP_LOAD)
      cJSON_AddNumberToObject(m, "forwarded_from_register", (double)k->forwarded[i]);
    if (s->smem_insts > 0) {                 /* tiled: shared-memory instructions (docs/model.md 8b) */
      cJSON_AddNumberToObject(m, "shared_instructions_traced", s->smem_insts);
      cJSON_AddNumberToObject(m, "bank_conflict_degree", s->bank_degree_sum / s->smem_insts);
    } else if (k->mem_shared[i] && n > 0) {
      cJSON_AddNumberToObject(m, "bank_conflict_degree", s->bank_degree_sum / n);
    }
    cJSON *by = cJSON_AddObjectToObject(m, "by_device");
    for (size_t d = 0; d < S->ndev; d++) rt_site_stats_json(cJSON_AddObjectToObject(by, S->dev[d].name), &k->site[d][i]);
    cJSON_AddStringToObject(m, "reading_explained", reading_text[k->mem_noalias[i]]);
    if (k->mem_local[i])
      cJSON_AddStringToObject(m, "memory_note", "local memory: a per-thread array indexed at run time, which "
                              "nvcc places in local memory, off-chip like global memory and cached in L1/L2, "
                              "its 32-bit words interleaved across the warp's threads: coalesced when every "
                              "lane uses the same index (CUDA C Programming Guide, \"Local Memory\")");
    cJSON_AddItemToArray(arr, m);
    i++;
  }
  return arr;
}

static const char *const dep_kind[3] = {"raw", "war", "waw"};

/* Site sid's entry in k's descriptor. */
static const cJSON *site_desc(const rt_kernel *k, uint32_t sid) {
  return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k->desc, "mem"), (int)sid);
}

static cJSON *site_loc(const rt_kernel *k, uint32_t sid) {
  const cJSON *s = site_desc(k, sid);
  cJSON *o = cJSON_CreateObject();
  const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "file"));
  cJSON_AddStringToObject(o, "file", f ? f : "");
  cJSON_AddNumberToObject(o, "line", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "line")));
  cJSON_AddNumberToObject(o, "column", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "column")));
  const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "array"));
  if (a) cJSON_AddStringToObject(o, "array", a);
  return o;
}

static cJSON *coords(const rt_kernel *k, uint64_t key) {
  uint64_t xyz[3];
  cgp_thread_unkey((int)k->dims, key, xyz);
  cJSON *a = cJSON_CreateArray();
  for (unsigned d = 0; d < (k->dims ? k->dims : 1) && d < 3; d++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)xyz[d]));
  return a;
}

/* The remedy of a carried scalar by the form the pass found (absent from an older pass's
   descriptor: either). */
static const char *carried_remedy(const cJSON *c, const char *remedy) {
  const char *form = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "form"));
  if (form && strcmp(form, "reduction") == 0)
    return "a reduction carried in a register from one thread to the next: threads cannot see each other's "
           "registers; in CUDA each thread combines its value into the result with an atomic operation "
           "(atomicAdd, atomicMax, ...), or a tree reduction (per-block partial results in shared memory, then "
           "one more pass)";
  if (form && strcmp(form, "recurrence") == 0)
    return "a recurrence: each thread needs the value the previous thread computed (an index, a state), which "
           "threads cannot see: not parallel as written; restructure the algorithm (each thread finds its own "
           "starting value)";
  return remedy;
}

/* What a benign race is, after its kind's own words. */
#define BENIGN_NOTE                                                                                          \
  ": a benign race: every thread that writes it writes the same value, so their order does not matter; in " \
  "CUDA a plain store to one global (no atomic), as Rodinia's bfs sets *g_over = true"

/* One dependence of `kind` per entry of the descriptor's array `key`, a location the pass found
   (first and second alike), with its remedy (a carried scalar's: by its form); a flag (a carried
   scalar every thread that sets it sets to one value) is a benign race, in *benign. */
static void pass_dependences(cJSON *list, cJSON *benign, const cJSON *desc, const char *key, const char *kind,
                             const char *remedy) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(desc, key)) {
    const char *form = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "form"));
    int flag = form && strcmp(form, "flag") == 0;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "kind", kind);
    cJSON_AddItemToObject(e, "first", cJSON_Duplicate(c, 1));
    cJSON_AddItemToObject(e, "second", cJSON_Duplicate(c, 1));
    if (flag) {
      const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "value"));
      cJSON_AddStringToObject(e, "value", v ? v : "");
      cJSON_AddStringToObject(e, "note", "a flag carried from one iteration to the next that every iteration either "
                              "leaves or sets to this value, and none reads" BENIGN_NOTE);
      cJSON_AddItemToArray(benign, e);
      continue;
    }
    cJSON_AddStringToObject(e, "remedy", strcmp(kind, "carried") == 0 ? carried_remedy(c, remedy) : remedy);
    cJSON_AddItemToArray(list, e);
  }
}

/* The constant site sid of k stores, the same in every thread (the pass's "stored_constant":
   `mask[id] = true`), or NULL. */
static const char *site_constant(const rt_kernel *k, uint32_t sid) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(site_desc(k, sid), "stored_constant"));
}

/* Two threads wrote one element, each the same constant: a benign race. */
static int benign_waw(const rt_kernel *k, const cgp_dep *d) {
  const char *a = site_constant(k, d->first_sid), *b = site_constant(k, d->second_sid);
  return d->kind == CGP_DEP_WAW && a && b && strcmp(a, b) == 0 &&
         k->mem_size[d->first_sid] == k->mem_size[d->second_sid];
}

/* Site sid of k is an access to a local declared outside the nest (the pass's "local"): scratch
   memory the nest shares only because of where it is declared. */
static int site_is_local(const rt_kernel *k, uint32_t sid) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(site_desc(k, sid), "local"));
}

/* The store of dependence d: a waw's first, a raw's first (write then read), a war's second. */
static uint32_t store_of(const cgp_dep *d) { return d->kind == CGP_DEP_WAR ? d->second_sid : d->first_sid; }

/* A shared scratch's remedy (its store's array and line). */
static void scratch_remedy(char *out, size_t len, const rt_kernel *k, uint32_t store, int part) {
  const cJSON *s = site_desc(k, store);
  const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "array"));
  snprintf(out, len, "%s'%s' (line %d) is scratch every thread fills and reads back, one copy for all threads: give "
           "each thread its own (declare it inside the loop, or index it by the thread: registers or CUDA local "
           "memory)%s", part ? "part of a shared scratch: " : "", a ? a : "?",
           (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "line")),
           part ? "; this dependence goes with it" : "");
}

/* A reduction's remedy: into one element, or (its store indexed by data it loads, the pass's
   index_loaded) into elements the data chooses, a histogram. */
static void reduction_remedy(char *out, size_t len, const rt_kernel *k, uint32_t store, int part) {
  const cJSON *s = site_desc(k, store);
  const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "array"));
  int line = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "line"));
  int histogram = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "index_loaded"));
  snprintf(out, len, "%s%s: %s. In CUDA use atomicAdd on them, or %s",
           part ? "the read and the write of one update of the reduction into " : "a reduction into ",
           a ? a : "an array",
           histogram ? "threads add into elements the data chooses (a histogram)" : "threads add into the same elements",
           histogram ? "per-block histograms in shared memory (atomicAdd there), added together at the end"
                     : "a tree reduction (per-block partial sums in shared memory, then one more pass)");
  if (part) {
    size_t n = strlen(out);
    snprintf(out + n, len - n, "; its update at line %d is the waw listed with it: an atomic update has no separate "
             "read to order", line);
  }
}

/* The array named by k's site i (the descriptor's), "?" if none. */
static const char *site_array(const rt_kernel *k, size_t i) {
  const cJSON *site = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k->desc, "mem"), (int)i);
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(site, "array");
  return cJSON_IsString(a) ? a->valuestring : "?";
}

/* The arrays of k's unwritten loads (the descriptor's `unwritten`), each once, comma-separated,
   into out ("" if none; cut at cap). */
static void unwritten_arrays(const rt_kernel *k, char *out, size_t cap) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < k->nmem; i++) {
    if (!k->mem_unwritten[i]) continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = k->mem_unwritten[j] && strcmp(site_array(k, j), site_array(k, i)) == 0;
    int w = seen ? 0 : snprintf(out + used, cap - used, "%s%s", used ? ", " : "", site_array(k, i));
    if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
  }
}

/* Dependences through memory (traced threads), and from the pass scalars carried across threads
   and early exits from mapped loops. */
static void dependences_json(cJSON *o, const rt_kernel *k) {
  cJSON *list = cJSON_CreateArray(), *benign = cJSON_CreateArray();
  for (size_t i = 0; i < k->ndeps; i++) {
    const cgp_dep *d = &k->deps[i].d;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "kind", dep_kind[d->kind]);
    cJSON_AddItemToObject(e, "first", site_loc(k, d->first_sid));
    cJSON_AddItemToObject(e, "second", site_loc(k, d->second_sid));
    cJSON *ex = cJSON_AddObjectToObject(e, "example");
    cJSON_AddItemToObject(ex, "first_thread", coords(k, d->first_thread));
    cJSON_AddItemToObject(ex, "second_thread", coords(k, d->second_thread));
    cJSON_AddNumberToObject(ex, "launch", (double)k->deps[i].launch);
    cJSON_AddNumberToObject(e, "pairs_seen", (double)d->count);
    if (d->extrapolated) cJSON_AddBoolToObject(e, "extrapolated", 1);   /* schema 1.10 */
    if (benign_waw(k, d)) {
      cJSON_AddStringToObject(e, "value", site_constant(k, d->first_sid));
      cJSON_AddStringToObject(e, "note", "two threads store to one element" BENIGN_NOTE);
      cJSON_AddItemToArray(benign, e);
      continue;
    }
    if (site_is_local(k, d->first_sid) || site_is_local(k, d->second_sid)) {
      const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(site_desc(k, d->second_sid), "array"));
      char remedy[512];
      snprintf(remedy, sizeof remedy,
               "'%s' is a local declared outside the nest, one for all threads: declare it inside the loop "
               "(private to each thread); a value one iteration leaves for the next must then be passed "
               "explicitly (a reduction or a recurrence)", a ? a : "");
      cJSON_AddStringToObject(e, "remedy", remedy);
    } else if (d->reduction) {     /* (a raw or war: the read and the write of one update) */
      char remedy[600];
      reduction_remedy(remedy, sizeof remedy, k, store_of(d), d->kind != CGP_DEP_WAW);
      cJSON_AddBoolToObject(e, "reduction", 1);
      cJSON_AddStringToObject(e, "remedy", remedy);
    } else if (d->scratch) {
      char remedy[600];
      scratch_remedy(remedy, sizeof remedy, k, store_of(d), d->kind != CGP_DEP_WAW);
      cJSON_AddBoolToObject(e, "scratch", 1);
      cJSON_AddStringToObject(e, "remedy", remedy);
    } else {
      cJSON_AddStringToObject(e, "remedy", d->kind == CGP_DEP_RAW
                                               ? "a thread reads what another thread of the same launch writes: "
                                                 "split the loop into launches at the dependence, or restructure"
                                               : "two threads touch one element and one writes it: the result "
                                                 "depends on their order; give each thread its own element");
    }
    cJSON_AddItemToArray(list, e);
  }
  pass_dependences(list, benign, k->desc, "carried", "carried",
                   "a scalar carried from one thread to the next (a running sum or a recurrence): threads "
                   "cannot see each other's registers; a sum is a reduction (atomicAdd, or a tree "
                   "reduction), a recurrence is not parallel as written");
  pass_dependences(list, benign, k->desc, "exits", "exit",
                   "the loop is left early (a break, return or goto, as in a search): a CUDA grid runs "
                   "every thread, so each thread must test its own element and the first hit be chosen "
                   "after them (atomicMin on its index, or a reduction)");
  cJSON_AddBoolToObject(o, "parallel_safe", cJSON_GetArraySize(list) == 0);
  cJSON_AddItemToObject(o, "dependences", list);
  if (cJSON_GetArraySize(benign) > 0) cJSON_AddItemToObject(o, "benign_races", benign);   /* schema 1.8 */
  else cJSON_Delete(benign);
  cJSON *dc = cJSON_AddObjectToObject(o, "dependence_check");
  char scope[1200], arrays[600] = "";
  unwritten_arrays(k, arrays, sizeof arrays);
  snprintf(scope, sizeof scope, "exact among the traced threads of each analysed launch's first window (its first "
           "2 x B x SMs blocks), element addresses, at most 2^%d addresses and 2^24 accesses a launch; beyond them, "
           "where the traced threads' addresses follow one affine law of the thread index, that law carried to the "
           "whole grid (\"extrapolated\"); a value carried in a register is found by the pass%s%s%s",
           RT_DEPS_MAX_ADDRESSES_LOG2, arrays[0] ? "; loads of " : "", arrays,
           arrays[0] ? " are not followed: the pass proved that no store of the nest writes them (each array its own "
                       "allocation, no call that may touch memory)" : "");
  cJSON_AddStringToObject(dc, "scope", scope);
  cJSON_AddBoolToObject(dc, "partial", k->deps_partial || k->oom_lost);   /* warps lost: not checked either */
}

/* Sample i ran after another kernel's untraced launch, so the L2 it found is not known (ADI's
   kernel 5, launched once per time step after kernel 4's N - 1 launches, whose last ones ran
   untraced the first time: nothing yet told the runtime that kernel 5 would follow and wants them
   warmed, docs/model.md 5b). The analysed launch after it of its shape and grid whose L2 is known
   stands in for it (the model predicts it from that one's analysis): its index, or -1 where there
   is none. */
static long stand_in_of(const rt_kernel *k, size_t i) {
  const rt_sample *s = &k->samples[i];
  if (!s->after) return -1;
  for (size_t j = i + 1; j < k->nsamples; j++) {
    const rt_sample *t = &k->samples[j];
    if (!t->after && t->key_shape == s->key_shape && !memcmp(t->gridblocks, s->gridblocks, sizeof s->gridblocks))
      return (long)j;
  }
  return -1;
}

/* The launches sample i stands for: with launch shapes, its shape's; else those up to the next. */
static double sample_weight(const rt_kernel *k, size_t i) {
  const rt_sample *s = &k->samples[i];
  uint64_t next = i + 1 < k->nsamples ? k->samples[i + 1].launch : k->launches;
  return k->nshapes ? (double)s->stood_launches : (double)(next - s->launch);
}

static cJSON *sample_json(const rt_kernel *k, size_t i) {
  const rt_sample *s = &k->samples[i];
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "launch", (double)s->launch);
  cJSON_AddNumberToObject(o, "weight", sample_weight(k, i));
  if (s->shape >= 0) cJSON_AddNumberToObject(o, "shape", s->shape);
  cJSON_AddItemToObject(o, "grid", u64_array(s->gridblocks, 3));
  cJSON_AddItemToObject(o, "threads_extent", u64_array(s->grid, 3));
  cJSON_AddNumberToObject(o, "threads", (double)s->threads);
  cJSON_AddNumberToObject(o, "blocks", (double)s->blocks);
  cJSON_AddNumberToObject(o, "total_warps", (double)s->total_warps);
  cJSON_AddNumberToObject(o, "traced_warps", s->traced_warps);
  cJSON_AddNumberToObject(o, "windows", s->windows);
  static const char *const stops[] = {"grid", "converged", "budget"};
  cJSON_AddStringToObject(o, "stop", stops[s->stop]);
  if (s->after) {                            /* schema 1.9 */
    cJSON_AddStringToObject(o, "after_untraced", s->after->name);
    long j = stand_in_of(k, i);
    if (j >= 0) cJSON_AddNumberToObject(o, "stand_in", (double)k->samples[j].launch);
  }
  cJSON *lg = cJSON_AddArrayToObject(o, "launch_grids");   /* [mean blocks, launches] (docs/model.md 4d) */
  for (unsigned j = 0; j < s->nstood; j++) {
    double e[2] = {s->stood[j].blocks / s->stood[j].count, s->stood[j].count};
    cJSON_AddItemToArray(lg, cJSON_CreateDoubleArray(e, 2));
  }
  cJSON *an = cJSON_AddObjectToObject(o, "analysis");
  for (size_t d = 0; d < S->ndev; d++)
    cJSON_AddItemToObject(an, S->dev[d].name, cgp_report_stats_to_json(&s->stats[d]));
  if (s->has_tiled) {                        /* the what-if tiling (docs/model.md 8c) */
    cJSON *ti = cJSON_AddObjectToObject(o, "analysis_tiled");
    for (size_t d = 0; d < S->ndev; d++)
      cJSON_AddItemToObject(ti, S->dev[d].name, cgp_report_stats_to_json(&s->tiled[d]));
  }
  return o;
}

/* Launch sampling (launches 0, 1, 3, 7, 15 ... analysed, closer once they differ, each standing
   for those up to the next: docs/model.md 5b)
   assumes launches between two analysed ones behave like the first. When the analysed launches'
   class mix (constant / coalesced / uncoalesced loads, device 0) differs by more than 10 points,
   the launches do not all behave alike (FFT's stages) and the unanalysed ones are estimated: the
   report says so, with the two launches that differ most. */
/* Can launches analysed as a and b stand for each other's? Of one shape, yes; of two shapes that
   recur, no: each has its own schedule (docs/model.md 5b); else (no shapes, or shapes that never
   come back, LU's) the kernel's schedule stood each launch for the one before, whatever its shape. */
static int stand_for_each_other(const rt_kernel *k, const rt_sample *a, const rt_sample *b) {
  if (a->key_shape == b->key_shape) return 1;
  return !rt_shape_recurs(k, a->key_shape) && !rt_shape_recurs(k, b->key_shape);
}

static void launch_sampling_note(cJSON *o, const rt_kernel *k) {
  if (k->nsamples < 2 || cgp_rt_g.sample_mode == 2 || k->launches <= k->nsamples) return;
  double worst = 0;
  size_t wa = 0, wb = 0;
  double mix[2][3];
  for (size_t a = 0; a < k->nsamples; a++)
    for (size_t b = a + 1; b < k->nsamples; b++) {
      if (!stand_for_each_other(k, &k->samples[a], &k->samples[b])) continue;
      for (int t = 0; t < 2; t++) {
        const cgp_kernel_stats *s = &k->samples[t ? b : a].stats[0];
        double n = s->insts[0] + s->insts[1] + s->insts[2];
        for (int c = 0; c < 3; c++) mix[t][c] = n > 0 ? s->insts[c] / n : 0;
      }
      for (int c = 0; c < 3; c++)
        if (fabs(mix[0][c] - mix[1][c]) > worst) { worst = fabs(mix[0][c] - mix[1][c]); wa = a; wb = b; }
    }
  if (worst <= 0.10) return;
  double ma[3], mb[3];
  for (int t = 0; t < 2; t++) {
    const cgp_kernel_stats *s = &k->samples[t ? wb : wa].stats[0];
    double n = s->insts[0] + s->insts[1] + s->insts[2];
    for (int c = 0; c < 3; c++) (t ? mb : ma)[c] = n > 0 ? 100 * s->insts[c] / n : 0;
  }
  char note[600];
  snprintf(note, sizeof note, "the analysed launches behave differently (class mix %.0f/%.0f/%.0f %% in launch %llu, "
           "%.0f/%.0f/%.0f %% in launch %llu), so the %llu launches not analysed, each estimated from the analysed "
           "one before it, may be off: CGPREDICT_SAMPLE=full analyses every launch",
           ma[0], ma[1], ma[2], (unsigned long long)k->samples[wa].launch, mb[0], mb[1], mb[2],
           (unsigned long long)k->samples[wb].launch, (unsigned long long)(k->launches - k->nsamples));
  cJSON_AddStringToObject(o, "launch_sampling_note", note);
}

/* The analysed launches that ran after another kernel's untraced launch (stand_in_of): the first
   such, what stands in for it, and how many there are. Not said where they stand for under
   RT_L2_NOTE_SHARE of the kernel's launches (each sample still says `after_untraced`): TSVC's 106
   loops, 2000 launches each, every first launch after the loop before it, had the note 105 times
   for 1 launch in 2000, whose L2 can move the kernel's time by about as much as launch sampling
   may anyway. [choice] */
#define RT_L2_NOTE_SHARE 0.01

static void l2_note(cJSON *o, const rt_kernel *k) {
  size_t n = 0, first = 0;
  double concerned = 0;
  for (size_t i = 0; i < k->nsamples; i++)
    if (k->samples[i].after) {
      if (!n++) first = i;
      concerned += sample_weight(k, i);
    }
  if (!n || concerned < RT_L2_NOTE_SHARE * (double)k->launches) return;
  const rt_sample *s = &k->samples[first];
  long j = stand_in_of(k, first);
  char note[1024], more[64] = "";
  if (n > 1) snprintf(more, sizeof more, " (and %zu more analysed launches)", n - 1);
  if (j >= 0)
    snprintf(note, sizeof note, "launch %llu%s ran after a launch of %s that was not traced, so the L2 it found is "
             "not known: it is predicted from launch %llu, of the same grid, whose L2 is known",
             (unsigned long long)s->launch, more, s->after->name, (unsigned long long)k->samples[j].launch);
  else
    snprintf(note, sizeof note, "launch %llu%s ran after a launch of %s that was not traced, so the L2 it found is "
             "not known, and no later analysed launch of the same grid and shape (a run's first launch is a "
             "shape of its own) can stand in for it: its prediction may be off (CGPREDICT_SAMPLE=full traces "
             "every launch)",
             (unsigned long long)s->launch, more, s->after->name);
  cJSON_AddStringToObject(o, "l2_note", note);
}

/* What the what-if tiling changed (docs/model.md 8c), for the suggestion's text: its loop, the
   tile, the arrays it keeps in shared memory and those it holds in a register. */
static void tiling_whatif_json(cJSON *o, const rt_kernel *k, unsigned tile) {
  int pad = k->wi_pad != NULL;
  const cJSON *lp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k->desc, "loops"),
                                       pad ? (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(k->desc, "tile_loop"))
                                           : k->wi_loop);
  cJSON *t = cJSON_AddObjectToObject(o, "tiling_whatif");
  cJSON_AddStringToObject(t, "kind", pad ? "pad" : "tile");
  cJSON_AddNumberToObject(t, "loop_line", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(lp, "line")));
  cJSON_AddNumberToObject(t, "tile", pad ? k->tile : tile);
  cJSON *sh = cJSON_AddArrayToObject(t, "shared"), *reg = cJSON_AddArrayToObject(t, "registers");
  cJSON *acc = cJSON_CreateArray();            /* of reg, those written: an accumulator */
  const cJSON *sites = cJSON_GetObjectItemCaseSensitive(k->desc, "mem");
  for (size_t i = 0; i < k->nmem; i++) {
    int32_t f = pad ? (k->wi_pad[i] != k->mem_pad[i] ? 0 : -1) : k->wi_footprint[i];
    if (f == -1) continue;
    const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(sites, (int)i), "array"));
    for (int pass = 0; pass < 2; pass++) {
      cJSON *to = pass ? acc : f >= 0 ? sh : reg;
      if (pass && (f >= 0 || k->mem_kind[i] == CGP_LOAD)) break;
      int seen = 0;
      const cJSON *e;
      cJSON_ArrayForEach(e, to) seen |= a && !strcmp(cJSON_GetStringValue(e), a);
      if (a && !seen) cJSON_AddItemToArray(to, cJSON_CreateString(a));
    }
  }
  cJSON_AddItemToObject(t, "accumulated", acc);   /* schema 1.8 */
}

/* What the host would copy for the kernel, and the CPU's time for it (docs/model.md section 12). */
static cJSON *host_json(const rt_kernel *k) {
  cJSON *h = cJSON_CreateObject();
  if (k->fp) {
    const cgp_ranges *r = rt_footprint_read(k->fp), *w = rt_footprint_written(k->fp);
    cJSON_AddNumberToObject(h, "bytes_read", (double)cgp_ranges_bytes(r));
    cJSON_AddNumberToObject(h, "ranges_read", (double)r->n);
    cJSON_AddNumberToObject(h, "bytes_written", (double)cgp_ranges_bytes(w));
    cJSON_AddNumberToObject(h, "ranges_written", (double)w->n);
    if (rt_footprint_lost(k->fp))
      cJSON_AddStringToObject(h, "footprint_note", "out of memory: some ranges read or written were not kept");
    else if (k->budget_hit || k->windows_dropped)
      cJSON_AddStringToObject(h, "footprint_note", "the memory budget cut the sample short: the bytes, carried from "
                              "fewer blocks, are a lower bound (GEMM 2048 with the H100: 85 % of those read, 77 % of "
                              "those written)");
  }
  cJSON_AddNumberToObject(h, "threads", (double)k->threads_all);
  cJSON_AddNumberToObject(h, "threads_timed", (double)k->plain_threads);
  if (k->plain_threads > 0 && k->plain_s > 0) {
    cJSON_AddNumberToObject(h, "cpu_ms", k->plain_s / (double)k->plain_threads * (double)k->threads_all * 1e3);
  } else {
    cJSON_AddStringToObject(h, "cpu_note", cgp_rt_g.sample_mode == 0
                            ? "every thread was traced (the grid fits the sample taken for the devices analysed, two "
                              "batches of the largest): no CPU time measured; a larger problem, or a run for smaller "
                              "devices only (CGPREDICT_DEVICE=jetson-tk1), leaves threads untraced and times them"
                            : "no thread ran untraced in this mode (CGPREDICT_SAMPLE=skip or full): no CPU time "
                              "measured; the default mode (run) measures it");
  }
  return h;
}

/* The program's copies, once each (docs/model.md section 12): to the device what a kernel reads
   that no kernel before it (in the order the kernels first ran) wrote; back what any kernel wrote. */
static cJSON *program_host_json(void) {
  cgp_ranges in, out, made;
  cgp_ranges_init(&in);
  cgp_ranges_init(&out);
  cgp_ranges_init(&made);
  int ok = 1;
  for (size_t i = 0; i < cgp_rt_g.nkernels && ok; i++) {
    const rt_kernel *k = cgp_rt_g.kernels[i];
    if (!k->fp) continue;
    const cgp_ranges *r = rt_footprint_read(k->fp), *w = rt_footprint_written(k->fp);
    for (size_t j = 0; j < r->n && ok; j++) ok = cgp_ranges_add_outside(&in, r->r[j].lo, r->r[j].hi, &made) == 0;
    ok = ok && cgp_ranges_merge(&made, w) == 0 && cgp_ranges_merge(&out, w) == 0;
  }
  cJSON *h = NULL;
  if (ok) {
    h = cJSON_CreateObject();
    cJSON_AddNumberToObject(h, "bytes_read", (double)cgp_ranges_bytes(&in));
    cJSON_AddNumberToObject(h, "ranges_read", (double)in.n);
    cJSON_AddNumberToObject(h, "bytes_written", (double)cgp_ranges_bytes(&out));
    cJSON_AddNumberToObject(h, "ranges_written", (double)out.n);
  }
  cgp_ranges_free(&in);
  cgp_ranges_free(&out);
  cgp_ranges_free(&made);
  return h;
}

/* A kernel with no launch to predict, its every launch's mapped step 0 at run time, is said in
   the runtime's step_note, not listed. */
static int listed_kernel(const rt_kernel *k) { return k->launches || !k->bad_step_launches; }

static cJSON *kernel_json(const rt_kernel *k, const char *name) {
  cJSON *o = cJSON_CreateObject();
  unsigned block[3];
  rt_resolve_block(k, block);
  cJSON_AddStringToObject(o, "name", name);
  cJSON_AddStringToObject(o, "file", k->file);
  cJSON_AddNumberToObject(o, "line", k->line);
  cJSON_AddNumberToObject(o, "dims", k->dims);
  cJSON_AddNumberToObject(o, "launches", (double)k->launches);
  cJSON_AddNumberToObject(o, "launches_sampled", (double)k->nsamples);
  cJSON_AddItemToObject(o, "grid", u64_array(k->gridblocks_max, 3));          /* blocks, as gridDim */
  cJSON_AddItemToObject(o, "threads_extent", u64_array(k->grid_max, 3));    /* threads per dimension */
  double b[3] = {block[0], block[1], block[2]};
  cJSON_AddItemToObject(o, "block", num_array(b, 3));
  cJSON_AddBoolToObject(o, "threads_skippable", k->can_skip);
  cJSON_AddItemToObject(o, "memory", memory_json(k));
  cJSON *dv = cJSON_AddObjectToObject(o, "divergence");
  cJSON_AddNumberToObject(dv, "warps_traced", (double)k->warps_traced);
  cJSON_AddNumberToObject(dv, "divergent_warps", (double)k->divergent_warps);
  cJSON_AddNumberToObject(dv, "masked_issue_slots_per_warp", k->warps_traced ? k->masked_slots / (double)k->warps_traced : 0);
  dependences_json(o, k);
  cJSON_AddItemToObject(o, "host", host_json(k));
  const cJSON *fpga = cJSON_GetObjectItemCaseSensitive(k->desc, "fpga");
  if (fpga) cJSON_AddItemToObject(o, "fpga_nest", cJSON_Duplicate(fpga, 1));
  if (k->windows_dropped)
    cJSON_AddStringToObject(o, "sampling_note", "the trace memory budget (CGPREDICT_MEMORY_MB) was reached in a "
                            "nest that runs its threads backwards (a descending loop): the blocks a GPU runs first "
                            "were kept, those it runs last dropped, so the blocks kept stand for the grid");
  else if (k->budget_hit)
    cJSON_AddStringToObject(o, "sampling_note", "the trace memory budget (CGPREDICT_MEMORY_MB) was reached: "
                            "later threads of a launch were not traced, so the threads traced stand for the grid");
  if (k->oom_lost) {
    char note[400];
    snprintf(note, sizeof note, "out of memory: %llu warps, windows or threads of analysed launches could not be "
             "kept (an allocation failed) and are not in the prediction, which is partial",
             (unsigned long long)k->oom_lost);
    cJSON_AddStringToObject(o, "memory_note", note);
  }
  if (k->left_launches) {
    char note[400];
    snprintf(note, sizeof note, "%llu launch(es) left the nest without reaching its end (a longjmp out of it, seen "
             "when the next marked nest began): each is predicted as the threads that ran before it was left, "
             "which no GPU launch does", (unsigned long long)k->left_launches);
    cJSON_AddStringToObject(o, "left_note", note);
  }
  if (k->bad_step_launches) {
    char note[400];
    snprintf(note, sizeof note, "%llu launch(es) began with a mapped loop's run-time step of 0: no thread "
             "mapping (thread t handles i = lo + t * step), so they ran as the program wrote them, untraced, and "
             "are not in the prediction", (unsigned long long)k->bad_step_launches);
    cJSON_AddStringToObject(o, "step_note", note);
  }
  /* not every warp the sample asked for was traced: the budget, or memory */
  if (k->budget_hit || k->windows_dropped || k->oom_lost) cJSON_AddBoolToObject(o, "partial", 1);
  if (k->iters_skipped) {
    cJSON_AddNumberToObject(o, "loop_iterations_skipped", (double)k->iters_skipped);
    char note[400];
    snprintf(note, sizeof note, "long loops inside traced threads were sampled: of a loop without a loop inside, "
             "the first %d iterations and then %d of every %d were traced, each standing for the iterations up to "
             "the next ones traced (CGPREDICT_ITERATIONS=all traces them all, as CGPREDICT_SAMPLE=full does)",
             RT_ITER_FIRST, RT_ITER_WINDOW, RT_ITER_PERIOD);
    cJSON_AddStringToObject(o, "iterations_note", note);
  }
  /* the launches before analysed ones traced to warm the caches, and those left untraced because
     the kernel's analysed launches found nothing of earlier launches in the L2 (docs/model.md 5b) */
  if (k->warming_traced || k->warming_skipped) {
    cJSON_AddNumberToObject(o, "launches_warming", (double)k->warming_traced);
    cJSON_AddNumberToObject(o, "launches_warming_skipped", (double)k->warming_skipped);
    if (k->warming_skipped) {
      char note[400];
      snprintf(note, sizeof note, "%llu launches before analysed ones ran untraced, not warming the caches: this "
               "kernel's analysed launches found no more than %g %% of their L2 transactions in what earlier launches "
               "left there (checked again every %d analysed launches)", (unsigned long long)k->warming_skipped,
               100 * RT_INHERIT_TOLERANCE, RT_INHERIT_RECHECK);
      cJSON_AddStringToObject(o, "warming_note", note);
    }
  }
  cJSON_AddItemToObject(o, "warnings", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(k->desc, "warnings"), 1));
  const cJSON *priv = cJSON_GetObjectItemCaseSensitive(k->desc, "privatized");
  if (cJSON_GetArraySize(priv) > 0) cJSON_AddItemToObject(o, "privatized", cJSON_Duplicate(priv, 1));
  if (k->nsamples && k->samples[0].has_tiled) tiling_whatif_json(o, k, k->cfg_wi[0].tile);
  launch_sampling_note(o, k);
  l2_note(o, k);
  cJSON *samples = cJSON_AddArrayToObject(o, "samples");
  for (size_t i = 0; i < k->nsamples; i++) cJSON_AddItemToArray(samples, sample_json(k, i));
  return o;
}

/* CGPREDICT_HTML=PATH: the report as one self-contained page too (cgp_report_write_html). */
static void write_html(const cJSON *r) {
  const char *path = getenv("CGPREDICT_HTML");
  char err[4400], msg[4600];
  if (!path || !*path || cgp_report_write_html(r, cgp_rt_g.report_path, path, err, sizeof err) == 0) return;
  snprintf(msg, sizeof msg, "CGPREDICT_HTML: %s; no HTML page written", err);
  rt_tool_failure(msg);
}

void rt_write_report(void) {
  cJSON *r = cgp_report_new(CGP_VERSION);
  cJSON *kernels = cJSON_GetObjectItemCaseSensitive(r, "kernels");
  cJSON *rt = cJSON_AddObjectToObject(r, "runtime");
  char id[24];
  snprintf(id, sizeof id, "%016llx", (unsigned long long)cgp_rt_g.run_id);
  cJSON_AddStringToObject(rt, "run_id", id);
  cJSON_AddNumberToObject(rt, "traced_threads", (double)cgp_rt_g.traced_threads);
  cJSON_AddNumberToObject(rt, "traced_accesses", (double)cgp_rt_g.traced_accesses);
  cJSON_AddNumberToObject(rt, "folded_iterations", (double)cgp_rt_g.folded_iterations);
  cJSON_AddNumberToObject(rt, "concurrent_entries", (double)rt_concurrent_entries());
  if (rt_concurrent_entries())
    cJSON_AddStringToObject(rt, "threads_note", "marked nests were entered by a thread while another thread was "
                            "inside one: the first thread was traced, the others ran untraced (their work is "
                            "not in the predictions)");
  char lost[256] = "";
  for (size_t d = 0; d < S->ndev; d++)
    if (S->l2[d] && cgp_l2_degraded(S->l2[d]))
      snprintf(lost + strlen(lost), sizeof lost - strlen(lost), "%s%s", *lost ? ", " : "", S->dev[d].name);
  if (*lost) {
    char note[400];
    snprintf(note, sizeof note, "out of memory: the L2 simulation of %s could not record every reference, so its "
             "miss counts may differ from exact LRU", lost);
    cJSON_AddStringToObject(rt, "l2_note", note);
    rt_tool_failure(note);
  }
  cJSON_AddStringToObject(rt, "sample_mode", cgp_rt_g.sample_mode == 0 ? "run" : cgp_rt_g.sample_mode == 1 ? "skip" : "full");
  if (!cgp_rt_g.nkernels)
    cJSON_AddStringToObject(rt, "kernels_note", RT_NO_NEST_NOTE);
  char step_note[1024] = "";
  /* the listed kernels' names (rt_kernel_names): a name two share tells them apart */
  const rt_kernel **listed = calloc(cgp_rt_g.nkernels + 1, sizeof *listed);
  char (*names)[RT_NAME_BYTES] = calloc(cgp_rt_g.nkernels + 1, sizeof *names);
  size_t nlisted = 0;
  for (size_t i = 0; i < cgp_rt_g.nkernels && listed && names; i++)
    if (listed_kernel(cgp_rt_g.kernels[i])) listed[nlisted++] = cgp_rt_g.kernels[i];
  if (listed && names) rt_kernel_names(listed, nlisted, names);
  for (size_t i = 0, li = 0; i < cgp_rt_g.nkernels; i++) {
    const rt_kernel *k = cgp_rt_g.kernels[i];
    if (!listed_kernel(k)) {                     /* never a launch to predict: said, not listed */
      size_t used = strlen(step_note);
      snprintf(step_note + used, sizeof step_note - used, "%skernel '%.100s' (%.200s:%u): %llu launch(es) with a "
               "mapped loop's run-time step of 0, run untraced; not listed", used ? "; " : "", k->name, k->file,
               k->line, (unsigned long long)k->bad_step_launches);
      continue;
    }
    cJSON_AddItemToArray(kernels, kernel_json(k, listed && names ? names[li++] : k->name));
    if (k->oom_lost) {                          /* on stderr too, whatever CGPREDICT_QUIET says */
      char m[300];
      snprintf(m, sizeof m, "kernel '%.100s': out of memory: %llu warps, windows or threads not kept; its "
               "prediction is partial (the report's memory_note)", k->name, (unsigned long long)k->oom_lost);
      rt_tool_failure(m);
    }
    if (k->left_launches)                       /* the program's doing, not a tool failure: said, not failed */
      fprintf(stderr, "cgpredict: kernel '%s' (%s:%u): %llu launch(es) left without reaching the nest's end (a "
              "longjmp out of it?), each predicted as the threads that ran (the report's left_note)\n", k->name,
              k->file, k->line, (unsigned long long)k->left_launches);
  }
  free(listed);
  free(names);
  if (step_note[0]) cJSON_AddStringToObject(rt, "step_note", step_note);
  cJSON *host = program_host_json();
  if (host) cJSON_AddItemToObject(r, "host", host);
  rt_trace_report(rt);
  char err[2048], msg[2400];
  int rc = cgp_report_predict(r, S->dev, S->ndev, err, sizeof err);
  if (rc == 0 && cgp_report_predict_fpga(r, S->fpga, S->nfpga) != 0)
    rc = -1, snprintf(err, sizeof err, "out of memory predicting the FPGA devices");
  if (rc != 0) {              /* the program's exit goes on as without cgpredict (cgp_rt_file.h) */
    snprintf(msg, sizeof msg, "%s; no report written: this run's analysis is lost", err);
    rt_tool_failure(msg);
    rt_trace_finish(0);
    cJSON_Delete(r);
    return;
  }
  if (cgp_report_write(r, cgp_rt_g.report_path, err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "%s; the report is lost%s", err, cgp_rt_g.quiet ? "" : " (its summary follows)");
    rt_tool_failure(msg);
    rt_trace_finish(0);
  } else {
    rt_trace_finish(1);       /* the trace goes with its report */
    write_html(r);
  }
  fflush(stdout);
  if (!cgp_rt_g.quiet) cgp_report_print_summary(stderr, r, cgp_rt_g.report_path);
  cJSON_Delete(r);
}

