/* cgp_rt_kernel.c: the kernels the program has launched. Each is known by its descriptor
   pointer (the pass emits one constant JSON string per marked nest), parsed once. */
#include "cgp_rt_internal.h"
#include "cgp_abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A descriptor's number; one that is not finite or does not fit an int is the default (a trace
   file brings descriptors back from disk: they are input, and every caller casts). */
static double num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= -2147483648.0 && v->valuedouble <= 2147483647.0)) return dflt;
  return v->valuedouble;
}

static unsigned unum(const cJSON *o, const char *key, unsigned dflt) {
  double v = num(o, key, -1);
  return v >= 0 ? (unsigned)v : dflt;
}

static int in_int(const cJSON *v) {
  return cJSON_IsNumber(v) && v->valuedouble >= -2147483648.0 && v->valuedouble <= 2147483647.0;
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static int in_shared(const cJSON *d, const char *array) {
  const cJSON *a;
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(d, "shared"))
    if (cJSON_IsString(a) && strcmp(a->valuestring, array) == 0) return 1;
  return 0;
}

static void *alloc0(size_t n, size_t size) { return calloc(n ? n : 1, size); }

/* A thread body with no loop and no other cycle runs each site at most once, in program order
   (the shape's ranks), and a thread starts holding nothing. A load is then never served from a
   register when no site before it shares its address expression, and what it holds serves
   nobody when no load after it does (a store after it, which shares it, clears everything held
   before holding its own value: cgp_rt_access.h, forwarded). A store (or atomic) then matters to no
   site when no load after it is checked: what it clears and what it holds would only serve
   such a load. With at most RT_FWD sites with a forwarding word in all, nothing held is ever
   evicted either, so such sites need not be checked at all: their forwarding words are cleared,
   the loads' first (a store's fate depends on them, theirs not on the stores). 2DCONV's nine
   loads; all four of LU's sites. Reports are unchanged (docs/pipeline.md, "Loads no register
   could serve"). */
static void quiet_sites(rt_kernel *k) {
  size_t held = 0;
  for (size_t i = 0; i < k->nmem; i++) held += k->mem_fwd[i] != RT_FWD_NONE;
  if (held > RT_FWD) return;
  const uint32_t *rank = k->shape->rank;
  for (size_t i = 0; i < k->nmem; i++) {
    if (k->mem_fwd[i] == RT_FWD_NONE || k->mem_kind[i] != CGP_LOAD) continue;
    int quiet = 1;
    for (size_t j = 0; j < k->nmem && quiet; j++)
      if (j != i && k->mem_fwd[j] != RT_FWD_NONE && k->mem_addr_id[j] == k->mem_addr_id[i])
        quiet = rank[j] > rank[i] && k->mem_kind[j] != CGP_LOAD;
    if (quiet) k->mem_fwd[i] = RT_FWD_NONE;
  }
  for (size_t i = 0; i < k->nmem; i++) {
    if (k->mem_fwd[i] == RT_FWD_NONE || k->mem_kind[i] == CGP_LOAD) continue;
    int quiet = 1;
    for (size_t j = 0; j < k->nmem && quiet; j++)
      if (k->mem_kind[j] == CGP_LOAD && k->mem_fwd[j] != RT_FWD_NONE && rank[j] > rank[i]) quiet = 0;
    if (quiet) k->mem_fwd[i] = RT_FWD_NONE;
  }
}

/* 1 if flat shape s's thread-body sites (all but the hoisted, which have the lowest ranks and are
   never in a block's call) rank in the order of their numbers, as the pass numbers them when its
   blocks are numbered in reverse postorder. */
static int sites_in_rank_order(const rt_shape *s) {
  uint32_t last = 0;
  for (size_t i = 0; i < s->nmem; i++) {
    if (s->pos[i][0] >> 16 == 0) continue;     /* hoisted: position 1, 2, ... (no block) */
    if (s->rank[i] <= last) return 0;
    last = s->rank[i];
  }
  return 1;
}

/* The one place the recording hot path's specialisations are chosen (RT_FAST_*, cgp_rt_internal.h):
   those whose conditions the kernel meets, none under CGPREDICT_FAST=0 (the general path, which
   each must equal: tests e2e_fast::*). Those for a lane in its warp's matrix need a flat shape;
   cgp_rt.c still asks whether the lane records into one now (rt_tracker_matrix: the warp may
   have spilled or found no memory) and, for RT_FAST_LANE, whether loads are hoisted. */
static unsigned fast_paths(const rt_kernel *k) {
  if (!cgp_rt_g.fast || !rt_shape_flat(k->shape)) return 0;
  unsigned fast = RT_FAST_BB;
  if (!k->block_seen || k->nbb <= 64) fast |= RT_FAST_LANE;
  if (k->has_local) return fast;             /* a local-memory site's address is the lane's own
                                                (site_addr, cgp_rt_access.h): the general block path */
  fast |= RT_FAST_BLOCK;
  if (sites_in_rank_order(k->shape)) {
    fast |= RT_FAST_RANKED;
    int quiet = 1;
    for (size_t s = 0; s < k->nmem; s++) quiet &= k->mem_fwd[s] == RT_FWD_NONE;
    if (quiet) fast |= RT_FAST_QUIET;
  }
  return fast;
}

/* The static shape of the thread body, for reconvergent warps (cgp_rt_lanes.h). */
static rt_shape *parse_shape(const cJSON *d, size_t nmem, size_t nbb) {
  const cJSON *loops = cJSON_GetObjectItemCaseSensitive(d, "loops");
  size_t nl = (size_t)cJSON_GetArraySize(loops);
  int *mb = alloc0(nmem, sizeof *mb), *bl = alloc0(nbb, sizeof *bl), *lh = alloc0(nl, sizeof *lh),
      *lp = alloc0(nl, sizeof *lp);
  unsigned *mo = alloc0(nmem, sizeof *mo), *rpo = alloc0(nbb, sizeof *rpo);
  rt_shape *sh = NULL;
  if (mb && bl && lh && lp && mo && rpo) {
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(d, "mem")) {
      if (i >= nmem) break;
      mb[i] = (int)num(m, "block", -1);
      mo[i++] = unum(m, "order", 0);
    }
    i = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(d, "blocks")) {
      rpo[i] = unum(m, "rpo", (unsigned)i);
      bl[i++] = (int)num(m, "loop", -1);
    }
    i = 0;
    cJSON_ArrayForEach(m, loops) {
      lh[i] = (int)num(m, "header", -1);
      lp[i++] = (int)num(m, "parent", -1);
    }
    char err[256];
    sh = rt_shape_new(nmem, mb, mo, nbb, rpo, bl, nl, lh, lp, err, sizeof err);
    if (!sh) fprintf(stderr, "cgpredict: kernel descriptor: %s\n", err);
  }
  free(mb); free(bl); free(lh); free(lp); free(mo); free(rpo);
  return sh;
}

/* 1 if loop `l` is loop `anc` or inside it (loops[].parent). */
static int loop_within(const cJSON *loops, int l, int anc) {
  for (int guard = 0; l >= 0 && guard < 64; guard++) {
    if (l == anc) return 1;
    l = (int)num(cJSON_GetArrayItem(loops, l), "parent", -1);
  }
  return 0;
}

/* Memory instructions block b issues once unrolled: its sites (the trace's, as nvcc issues them:
   the CPU compiler's IR may have kept some in registers), less those `held` marks (a site the
   tiled code holds in a register: CGP_TILE_REGISTER; NULL: none). */
static double sites_in_block(const rt_kernel *k, size_t b, const int32_t *held) {
  double n = 0;
  const cJSON *s;
  size_t j = 0;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(k->desc, "mem")) {
    if (j < k->nmem && num(s, "block", -1) == (double)b && !(held && held[j] == CGP_TILE_REGISTER)) n++;
    j++;
  }
  return n;
}

/* The loop (index into loops[]) holding site m's block, -1 for none or a hoisted site. */
static int site_loop(const rt_kernel *k, const cJSON *m) {
  double b = num(m, "block", -1);
  return b >= 0 && b < (double)k->nbb
             ? (int)num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k->desc, "blocks"), (int)b), "loop", -1)
             : -1;
}

/* Site i's footprint in fp[0..i): that of an earlier site of the same address expression
   (addr_id), else a new one (*nf, counted up). */
static int32_t footprint_of(const rt_kernel *k, const int32_t *fp, size_t i, int32_t *nf) {
  for (size_t j = 0; j < i; j++)
    if (fp[j] >= 0 && k->mem_addr_id[j] == k->mem_addr_id[i]) return fp[j];
  return (*nf)++;
}

/* Block b's PTX counts once nvcc has unrolled its loop fully (a loop of constant trip count, the
   loop over one tile): its counter, compare, branch and the address arithmetic on the counter fold
   into immediates, leaving its memory instructions (sites_in_block) and floating-point ones. */
static void unrolled_block(const rt_kernel *k, size_t b, const int32_t *held, double *total, double *core,
                           double *integer) {
  *core = k->bb_fp32[b] + k->bb_fp64[b] + k->bb_sfu[b];
  *total = sites_in_block(k, b, held) + *core;
  *integer = 0;
}

/* Tiling (docs/model.md section 8b): the tile loop's header, and per site of a shared(...) array
   inside the tile loop its footprint, one per address expression (addr_id). A shared array's
   access outside the tile loop stays a global access, which the report's warnings say. */
static int tile_footprints(rt_kernel *k) {
  const cJSON *d = k->desc, *loops = cJSON_GetObjectItemCaseSensitive(d, "loops");
  double tile = num(d, "tile", 0), tl = num(d, "tile_loop", -1);
  k->tile_header = -1;
  k->mem_footprint = alloc0(k->nmem ? k->nmem : 1, sizeof *k->mem_footprint);
  k->mem_pad = alloc0(k->nmem ? k->nmem : 1, 1);
  if (!k->mem_footprint || !k->mem_pad) return -1;
  for (size_t i = 0; i < k->nmem; i++) k->mem_footprint[i] = -1;
  if (!(tile >= 1 && tile <= 65536) || !(tl >= 0 && tl < cJSON_GetArraySize(loops))) return 0;
  double h = num(cJSON_GetArrayItem(loops, (int)tl), "header", -1);
  if (!(h >= 0 && h < (double)k->nbb)) return 0;
  k->tile = (unsigned)tile;
  k->tile_header = (int)h;
  const cJSON *bbs = cJSON_GetObjectItemCaseSensitive(d, "blocks"), *m;
  cJSON *warn = cJSON_GetObjectItemCaseSensitive(d, "warnings");
  size_t b = 0;                              /* the loops inside the tile loop are unrolled, and
                                                traced whole up to RT_TILE_WHOLE iterations */
  cJSON_ArrayForEach(m, bbs) {
    if (b >= k->nbb) break;
    int loop = (int)num(m, "loop", -1);
    if (loop != (int)tl && loop_within(loops, loop, (int)tl)) {
      unrolled_block(k, b, NULL, &k->bb_total[b], &k->bb_core[b], &k->bb_int[b]);
      if (tile <= RT_TILE_WHOLE) rt_shape_trace_whole(k->shape, (int)b);
    }
    b++;
  }
  int32_t nf = 0;
  size_t i = 0;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(d, "mem")) {
    if (i >= k->nmem) break;
    if (!k->mem_shared[i]) { i++; continue; }
    if (!loop_within(loops, site_loop(k, m), (int)tl)) {
      char msg[512];
      snprintf(msg, sizeof msg, "line %u: this access to shared array '%s' is outside the tile loop (line %u): "
               "it stays a global access", unum(m, "line", 0), str(m, "array"),
               unum(cJSON_GetArrayItem(loops, (int)tl), "line", 0));
      if (cJSON_IsArray(warn)) cJSON_AddItemToArray(warn, cJSON_CreateString(msg));
      i++;
      continue;
    }
    k->mem_footprint[i] = footprint_of(k, k->mem_footprint, i, &nf);
    const cJSON *a;
    int ai = 0;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(d, "shared")) {
      if (cJSON_IsString(a) && !strcmp(a->valuestring, str(m, "array"))) {
        const cJSON *pv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "shared_pad"), ai);
        k->mem_pad[i] = in_int(pv) && pv->valuedouble >= 0 && pv->valuedouble <= 64 ? (uint8_t)pv->valuedouble : 0;
      }
      ai++;
    }
    i++;
  }
  return 0;
}

/* The what-if tiling of an untiled kernel (docs/model.md section 8c): the leaf loop inside the
   thread body with the most loads whose address it steps (vary_loop) becomes the loop over one tile,
   cut every RT_WHATIF_TILE (32, a warp's width: the classic 32x32 tile) iterations; those loads of
   arrays it does not also write there become footprints (one per address expression), the sites in
   it whose address it does not step are held in a register (a tiled rewrite accumulates in one),
   its other accesses stay global. */
#define RT_WHATIF_TILE 32

static int whatif_tiling(rt_kernel *k) {
  const cJSON *d = k->desc, *loops = cJSON_GetObjectItemCaseSensitive(d, "loops");
  const cJSON *bbs = cJSON_GetObjectItemCaseSensitive(d, "blocks"), *mem = cJSON_GetObjectItemCaseSensitive(d, "mem");
  int nl = cJSON_GetArraySize(loops);
  k->wi_header = k->wi_loop = -1;
  k->wi_footprint = alloc0(k->nmem ? k->nmem : 1, sizeof *k->wi_footprint);
  if (!k->wi_footprint) return -1;
  for (size_t i = 0; i < k->nmem; i++) k->wi_footprint[i] = -1;
  if (k->tile_header >= 0) {                 /* tiled: the what-if pads its unpadded footprints */
    int any = 0;
    if (!(k->wi_pad = alloc0(k->nmem ? k->nmem : 1, 1))) return -1;
    for (size_t i = 0; i < k->nmem; i++) {
      k->wi_pad[i] = k->mem_pad[i];
      if (k->mem_footprint[i] >= 0 && !k->mem_pad[i]) { k->wi_pad[i] = 1; any = 1; }
    }
    if (!any) { free(k->wi_pad); k->wi_pad = NULL; }
    return 0;
  }
  if (nl <= 0) return 0;
  int best = -1, best_n = 0;
  for (int l = 0; l < nl; l++) {
    int leaf = 1, n = 0;
    for (int c = 0; c < nl && leaf; c++) leaf = (int)num(cJSON_GetArrayItem(loops, c), "parent", -1) != l;
    if (!leaf) continue;
    const cJSON *m;
    size_t i = 0;
    cJSON_ArrayForEach(m, mem) {
      if (i < k->nmem && k->mem_kind[i] == CGP_LOAD && (int)num(m, "vary_loop", -1) == l) n++;
      i++;
    }
    if (n > best_n) { best = l; best_n = n; }
  }
  double h = best >= 0 ? num(cJSON_GetArrayItem(loops, best), "header", -1) : -1;
  if (!(h >= 0 && h < (double)k->nbb)) return 0;
  k->wi_loop = best;
  k->wi_header = (int)h;
  int32_t nf = 0;
  size_t i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, mem) {
    if (i >= k->nmem) break;
    if (site_loop(k, m) == best) {
      /* an array the loop also writes is not a read-only tile: it stays global; nor is one an
         untraced call of the body is given, which may write it (the descriptor's call_args) */
      int written = 0;
      const cJSON *arg;
      cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(d, "call_args"))
        written |= cJSON_IsString(arg) && !strcmp(arg->valuestring, str(m, "array"));
      const cJSON *s;
      size_t j = 0;
      cJSON_ArrayForEach(s, mem) {
        written |= j < k->nmem && k->mem_kind[j] != CGP_LOAD && !strcmp(str(s, "array"), str(m, "array")) &&
                   site_loop(k, s) == best && (int)num(s, "vary_loop", -1) == best;
        j++;
      }
      if ((int)num(m, "vary_loop", -1) != best)
        k->wi_footprint[i] = CGP_TILE_REGISTER;
      else if (k->mem_kind[i] == CGP_LOAD && !written && !k->mem_local[i])   /* a thread's own array
                                                                                 is no block's tile */
        k->wi_footprint[i] = footprint_of(k, k->wi_footprint, i, &nf);
    }
    i++;
  }
  if (!nf) { k->wi_header = k->wi_loop = -1; return 0; }
  /* the loop over one tile unrolled (section 8b), less the sites held in a register */
  k->wi_bb_total = alloc0(k->nbb, sizeof *k->wi_bb_total);
  k->wi_bb_core = alloc0(k->nbb, sizeof *k->wi_bb_core);
  k->wi_bb_int = alloc0(k->nbb, sizeof *k->wi_bb_int);
  k->wi_bb_in = alloc0(k->nbb, 1);
  if (!k->wi_bb_total || !k->wi_bb_core || !k->wi_bb_int || !k->wi_bb_in) return -1;
  size_t b = 0;
  cJSON_ArrayForEach(m, bbs) {
    if (b >= k->nbb) break;
    k->wi_bb_total[b] = k->bb_total[b];
    k->wi_bb_core[b] = k->bb_core[b];
    k->wi_bb_int[b] = k->bb_int[b];
    if ((int)num(m, "loop", -1) == best) {
      k->wi_bb_in[b] = 1;
      unrolled_block(k, b, k->wi_footprint, &k->wi_bb_total[b], &k->wi_bb_core[b], &k->wi_bb_int[b]);
    }
    b++;
  }
  return 0;
}

static void kernel_free(rt_kernel *k) {
  for (size_t d = 0; d < RT_MAX_DEVICES; d++) {
    cgp_analysis_set_free(k->an[d]);
    free(k->site[d]);
  }
  free(k->samples);
  free(k->deps);
  cJSON_Delete(k->desc);
  free(k->mem_footprint); free(k->mem_pad);
  free(k->wi_footprint); free(k->wi_pad); free(k->wi_bb_in); free(k->wi_bb_total); free(k->wi_bb_core); free(k->wi_bb_int);
  free(k->mem_size); free(k->mem_kind); free(k->mem_overlap); free(k->mem_noalias); free(k->mem_shared); free(k->mem_local); free(k->mem_unwritten); free(k->forwarded); free(k->mem_addr_id); free(k->mem_fwd);
  free(k->bb_slot); free(k->iter);
  free(k->bb_total); free(k->bb_core); free(k->bb_fp32); free(k->bb_fp64); free(k->bb_int); free(k->bb_sfu);
  rt_shape_free(k->shape);
  rt_footprint_free(k->fp);
  for (size_t i = 0; i < k->niters; i++) rt_witer_free(k->iters[i]);
  free(k->iters);
  free(k);
}

/* A kernel from its descriptor, per-site sums for ndev devices. */
static rt_kernel *parse_kernel(const char *desc, size_t ndev) {
  cJSON *d = cJSON_Parse(desc);
  if (!d) {
    fputs("cgpredict: internal error: unreadable kernel descriptor (pass and runtime of different versions?)\n", stderr);
    return NULL;
  }
  rt_kernel *k = calloc(1, sizeof *k);
  if (!k) { cJSON_Delete(d); return NULL; }
  k->cur_shape = -1;
  k->desc_ptr = desc;
  k->desc = d;
  k->trace_id = -1;
  k->name = str(d, "name");
  k->function = str(d, "function");
  k->file = str(d, "file");
  k->line = unum(d, "line", 0);
  if ((int)num(d, "abi", 0) != CGP_ABI_VERSION) {
    fprintf(stderr, "cgpredict: kernel '%s' (%s:%u) was instrumented by another version of cgpredict "
            "(descriptor ABI %d, runtime ABI %d): rebuild it with this one; it is not analysed\n",
            k->name, k->file, k->line, (int)num(d, "abi", 0), CGP_ABI_VERSION);
    kernel_free(k);
    return NULL;
  }
  k->dims = unum(d, "dims", 1);
  k->can_skip = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "can_skip"));
  const cJSON *blk = cJSON_GetObjectItemCaseSensitive(d, "block");
  for (int i = 0; i < 3; i++) {
    const cJSON *v = cJSON_GetArrayItem(blk, i);
    k->block[i] = in_int(v) && v->valuedouble >= 0 ? (unsigned)v->valuedouble : 0;
    const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "iv_step"), i);
    k->step[i] = in_int(s) ? (long long)s->valuedouble : 1;
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "extent"), i);
    k->extent[i] = in_int(e) && e->valuedouble > 0 ? (uint64_t)e->valuedouble : 0;
  }
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "mem");
  k->nmem = (size_t)cJSON_GetArraySize(mem);
  k->mem_size = alloc0(k->nmem, sizeof *k->mem_size);
  k->mem_kind = alloc0(k->nmem, 1);
  k->mem_overlap = alloc0(k->nmem, 1);
  k->mem_noalias = alloc0(k->nmem, 1);
  k->mem_shared = alloc0(k->nmem, 1);
  k->mem_local = alloc0(k->nmem, 1);
  k->mem_unwritten = alloc0(k->nmem, 1);
  k->forwarded = alloc0(k->nmem, sizeof *k->forwarded);
  k->mem_addr_id = alloc0(k->nmem, sizeof *k->mem_addr_id);
  k->mem_fwd = alloc0(k->nmem, sizeof *k->mem_fwd);
  const cJSON *bbs = cJSON_GetObjectItemCaseSensitive(d, "blocks");
  k->nbb = (size_t)cJSON_GetArraySize(bbs);
  double **cols[] = {&k->bb_total, &k->bb_core, &k->bb_fp32, &k->bb_fp64, &k->bb_int, &k->bb_sfu};
  const char *keys[] = {"total", "core", "fp32", "fp64", "int", "sfu"};
  const cJSON *loops = cJSON_GetObjectItemCaseSensitive(d, "loops");
  size_t nloops = (size_t)cJSON_GetArraySize(loops);
  k->bb_slot = alloc0(k->nbb, sizeof *k->bb_slot);
  k->iter = alloc0(nloops + 2, sizeof *k->iter);
  int ok = k->mem_size && k->mem_kind && k->mem_overlap && k->mem_noalias && k->mem_shared && k->mem_local && k->mem_unwritten && k->forwarded && k->mem_addr_id && k->mem_fwd &&
           k->bb_slot && k->iter;
  for (size_t c = 0; c < 6; c++) ok &= (*cols[c] = alloc0(k->nbb, sizeof **cols[c])) != NULL;
  if (!ok) { kernel_free(k); return NULL; }
  size_t i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, mem) {
    k->mem_size[i] = unum(m, "size", 4);
    const char *kind = str(m, "kind");
    k->mem_kind[i] = strcmp(kind, "store") == 0 ? CGP_STORE : strcmp(kind, "atomic") == 0 ? CGP_ATOMIC : CGP_LOAD;
    k->mem_overlap[i] = k->mem_kind[i] == CGP_LOAD && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "overlap"));
    k->mem_noalias[i] = strcmp(str(m, "reading"), "noalias") == 0;
    k->mem_shared[i] = in_shared(d, str(m, "array"));
    k->mem_local[i] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "local_memory"));
    k->has_local |= k->mem_local[i];
    k->mem_unwritten[i] = k->mem_kind[i] == CGP_LOAD && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "unwritten"));
    double id = num(m, "addr_id", (double)i);
    k->mem_addr_id[i] = id >= 0 && id < (double)k->nmem ? (uint32_t)id : (uint32_t)i;
    double vary = num(m, "vary_loop", -1);
    uint64_t slot = vary >= 0 && vary < (double)nloops ? (uint64_t)vary + 1 : 0;
    /* local memory is its own state space, which no global access aliases: a local store drops no
       value held of a global address, and a local load is issued (no forwarding check) */
    k->mem_fwd[i] = k->mem_noalias[i] || k->mem_local[i] ? RT_FWD_NONE
                                      : (slot << RT_FWD_SLOT_SHIFT | (uint64_t)k->mem_addr_id[i] << 2 | (k->mem_kind[i] + 1u));
    i++;
  }
  i = 0;
  cJSON_ArrayForEach(m, bbs) {
    for (size_t c = 0; c < 6; c++) (*cols[c])[i] = num(m, keys[c], 0);
    k->bb_slot[i] = (uint32_t)nloops + 1;
    i++;
  }
  i = 0;
  cJSON_ArrayForEach(m, loops) {
    double h = num(m, "header", -1);
    if (h >= 0 && h < (double)k->nbb) k->bb_slot[(size_t)h] = (uint32_t)i + 1;
    i++;
  }
  k->shape = parse_shape(d, k->nmem, k->nbb);
  if (!k->shape) { kernel_free(k); return NULL; }
  i = 0;
  /* traced whole: a loop that reaches local memory, and one that gathers or scatters (a site whose
     index the thread loads from memory, the pass's index_loaded): the lines its skipped iterations
     touch follow the data, which no span can give, and its trip count is the data's too (a CSR
     row a thread: the lanes still in the loop thin out, which a window, all of them in it, cannot
     tell); docs/pipeline.md, "Sampling inside a thread" */
  cJSON_ArrayForEach(m, mem) {
    if (i < k->nmem && (k->mem_local[i] || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "index_loaded"))))
      rt_shape_trace_whole(k->shape, (int)num(m, "block", -1));
    i++;
  }
  k->fp = rt_footprint_new(k->nmem, k->mem_kind);   /* NULL: out of memory, no footprint */
  if (tile_footprints(k) != 0 || whatif_tiling(k) != 0) { kernel_free(k); return NULL; }
  int acyclic = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "acyclic"));
  if (rt_shape_flat(k->shape) && acyclic) quiet_sites(k);
  k->block_seen = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "block_seen"));
  k->fast = fast_paths(k);
  if (k->block_seen && (!rt_shape_flat(k->shape) || !acyclic)) {
    fprintf(stderr, "cgpredict: %s:%u: kernel '%s': its descriptor says block_seen of a thread body that is not "
            "straight-line (it has a loop, a cycle, or more than %d sites and blocks): rebuild it with this "
            "cgpredict; the nest runs untraced\n", k->file, k->line, k->name, CGP_FLAT_EVENTS);
    kernel_free(k);
    return NULL;
  }
  for (size_t dv = 0; dv < ndev; dv++) {
    k->site[dv] = alloc0(k->nmem, sizeof **k->site);
    if (!k->site[dv]) { kernel_free(k); return NULL; }
  }
  return k;
}

static cgp_l2_index l2_index_of(const cgp_device *d) {
  if (strcmp(d->l2_index, "modulo") == 0) return CGP_L2_MODULO;
  if (strcmp(d->l2_index, "xor") == 0) return CGP_L2_XOR;
  return CGP_L2_FULLY_ASSOCIATIVE;
}

cgp_l2 *rt_device_l2(const cgp_device *d, int general) {
  return cgp_l2_new_as(cgp_l2_capacity_bytes(d), cgp_transaction_bytes(d),
                       d->l2_assoc * (d->l2_line_bytes / cgp_transaction_bytes(d)), l2_index_of(d), general);
}

void rt_session_free_caches(rt_session *s) {
  for (size_t d = 0; d < RT_MAX_DEVICES; d++) {
    cgp_l2_free(s->l2[d]);
    cgp_l2_free(s->l2_whatif[d]);
    s->l2[d] = s->l2_whatif[d] = NULL;
  }
}

cgp_analysis_set *rt_kernel_analyses(rt_session *s, rt_kernel *k, size_t d) {
  if (k->an[d]) return k->an[d];
  const cgp_device *dev = &s->dev[d];
  cgp_analysis_cfg *c = &k->cfg[d];
  *c = (cgp_analysis_cfg){.nsid = k->nmem, .nbid = k->nbb, .sid_kind = k->mem_kind, .sid_shared = k->mem_shared,
                          .bid_total = k->bb_total, .bid_core = k->bb_core, .bid_fp32 = k->bb_fp32,
                          .bid_fp64 = k->bb_fp64, .bid_int = k->bb_int, .bid_sfu = k->bb_sfu,
                          .no_sm = dev->no_sm, .l1_bytes = dev->l1_bytes,
                          .l1_unit_bytes = dev->l1_sector_bytes ? dev->l1_sector_bytes : dev->l1_line_bytes,
                          .l1_caches_global = dev->l1_caches_global, .wavefront_bytes = dev->l1_line_bytes,
                          .l2_bytes = cgp_l2_capacity_bytes(dev),
                          .l2_line_bytes = dev->l2_line_bytes, .l2_unit_bytes = cgp_transaction_bytes(dev),
                          .l2_assoc = dev->l2_assoc, .l2_index = l2_index_of(dev), .l2 = s->l2[d],
                          .l2_general = s->general_caches,
                          .smem_banks = dev->smem_banks, .smem_bank_bytes = dev->smem_bank_bytes,
                          .dims = (int)k->dims, .din = s->din[d],
                          .tile = k->tile, .tile_header = k->tile_header, .sid_footprint = k->mem_footprint,
                          .sid_pad = k->mem_pad,
                          .smem_vector_bytes = dev->smem_load_vector_bytes};
  rt_resolve_block(k, c->block);
  if ((k->wi_header >= 0 || k->wi_pad) && s->whatif) {   /* section 8c */
    if (!s->l2_whatif[d]) s->l2_whatif[d] = rt_device_l2(dev, s->general_caches);
    cgp_analysis_cfg *w = &k->cfg_wi[d];
    *w = *c;
    w->l2 = s->l2_whatif[d];
    w->din = NULL;
    if (k->wi_pad) {                          /* the tiled kernel with its unpadded tiles padded */
      w->sid_pad = k->wi_pad;
    } else {                                  /* the untiled kernel tiled by RT_WHATIF_TILE */
      w->tile = RT_WHATIF_TILE;
      w->tile_header = k->wi_header;
      w->tile_virtual = 1;
      w->sid_footprint = k->wi_footprint;
      w->bid_total = k->wi_bb_total;
      w->bid_core = k->wi_bb_core;
      w->bid_int = k->wi_bb_int;
      w->bid_in_tile_loop = k->wi_bb_in;
    }
    if (w->l2 && w->tile >= 2) c->whatif = w;
  }
  k->an[d] = cgp_analysis_set_new(c, cgp_analyses);
  return k->an[d];
}

/* One conflict more, merged with the kernel's of its kind and sites. */
static void record_dep(rt_kernel *k, uint64_t launch, const cgp_dep *f) {
  size_t j = 0;
  while (j < k->ndeps && !(k->deps[j].d.kind == f->kind && k->deps[j].d.first_sid == f->first_sid &&
                           k->deps[j].d.second_sid == f->second_sid))
    j++;
  if (j < k->ndeps) {
    rt_dep *e = &k->deps[j];
    e->d.count += f->count;
    e->d.reduction |= f->reduction;
    e->d.scratch |= f->scratch;
    if (e->d.extrapolated && !f->extrapolated) {   /* seen now: the seen example */
      e->d = *f;
      e->launch = launch;
    }
    return;
  }
  rt_dep *p = realloc(k->deps, (k->ndeps + 1) * sizeof *p);
  if (!p) return;
  k->deps = p;
  k->deps[k->ndeps++] = (rt_dep){*f, launch};
}

void rt_record_deps(rt_kernel *k, uint64_t launch, const cgp_deps *dp, const uint64_t grid[3]) {
  size_t n;
  const cgp_dep *f = cgp_deps_found(dp, &n);
  k->deps_partial |= cgp_deps_partial(dp);
  for (size_t i = 0; i < n; i++) record_dep(k, launch, &f[i]);
  cgp_dep beyond[RT_DEPS_BEYOND];
  size_t nb = cgp_deps_beyond(dp, grid, beyond, RT_DEPS_BEYOND);
  for (size_t i = 0; i < nb; i++) record_dep(k, launch, &beyond[i]);
}

rt_kernel *rt_kernel_new(const char *desc, size_t ndev) { return parse_kernel(desc, ndev); }
void rt_kernel_free(rt_kernel *k) { if (k) kernel_free(k); }

rt_kernel *rt_kernel_for(const char *desc) {
  for (size_t i = 0; i < cgp_rt_g.nkernels; i++)
    if (cgp_rt_g.kernels[i]->desc_ptr == desc) return cgp_rt_g.kernels[i];
  rt_kernel *k = parse_kernel(desc, cgp_rt_g.session.ndev);
  if (!k) return NULL;
  rt_kernel **p = realloc(cgp_rt_g.kernels, (cgp_rt_g.nkernels + 1) * sizeof *p);
  if (!p) { kernel_free(k); return NULL; }
  cgp_rt_g.kernels = p;
  cgp_rt_g.kernels[cgp_rt_g.nkernels++] = k;
  return k;
}

/* Block shape: the pragma's, else CGPREDICT_BLOCK's for this dimensionality, else the defaults
   of MODEL.md section 2 (256 for 1-D grids, 32x8 for 2-D and 3-D grids). CGPREDICT_BLOCK_FORCE=1
   puts CGPREDICT_BLOCK's before the pragma's, but for a tiled kernel (`cgpredict blocks`). */
void rt_resolve_block(const rt_kernel *k, unsigned block[3]) {
  unsigned dims = k->dims >= 1 && k->dims <= 3 ? k->dims : 1;
  int forced = cgp_rt_g.block_force && cgp_rt_g.env_block[dims - 1][0] && !k->tile;
  if (k->block[0] && !forced) {
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
    size_t cap = k->capsamples ? 2 * k->capsamples : 8;
    rt_sample *p = realloc(k->samples, cap * sizeof *p);
    if (!p) return;                          /* the launch is not predicted; the others are */
    k->samples = p;
    k->capsamples = cap;
  }
  k->samples[k->nsamples++] = *s;
}

void rt_record_stood_for(rt_kernel *k, long sample, uint64_t G) {
  if (!k->nsamples || sample < 0 || (size_t)sample >= k->nsamples) return;
  rt_sample *s = &k->samples[sample];
  s->stood_launches++;
  if (!G) return;
  rt_stood *last = s->nstood ? &s->stood[s->nstood - 1] : NULL;
  if (last && last->blocks == (double)G * last->count) {   /* the same grid as the run before it */
    last->blocks += (double)G;
    last->count += 1;
    return;
  }
  if (s->nstood == RT_STOOD_MAX) {                          /* neighbours merge: half as many */
    for (unsigned i = 0; i < RT_STOOD_MAX / 2; i++) {
      s->stood[i].blocks = s->stood[2 * i].blocks + s->stood[2 * i + 1].blocks;
      s->stood[i].count = s->stood[2 * i].count + s->stood[2 * i + 1].count;
    }
    s->nstood = RT_STOOD_MAX / 2;
  }
  s->stood[s->nstood++] = (rt_stood){(double)G, 1};
}

/* A site's per-device figures (transactions per warp instruction, L2 and L1 hit rates) into o: the
   report's and a trace replay's. */
void rt_site_stats_json(cJSON *o, const cgp_site_totals *s) {
  double n = s->insts[0] + s->insts[1] + s->insts[2];
  double looked = s->trans + s->l1_hit;
  cJSON_AddNumberToObject(o, "transactions_per_warp", n > 0 ? s->trans / n : 0);
  cJSON_AddNumberToObject(o, "l2_hit_rate", s->trans > 0 ? 1.0 - s->miss / s->trans : 0);
  if (s->l1_hit > 0) cJSON_AddNumberToObject(o, "l1_hit_rate", looked > 0 ? s->l1_hit / looked : 0);
}
