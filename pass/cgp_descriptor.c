/* cgp_descriptor.c: the kernel's JSON descriptor, which cgp_rt_kernel_begin hands the runtime
   (docs/pipeline.md lists its keys): sites with their source names and addr_ids, blocks with PTX
   counts, inner loops, carried scalars, exits, mapping. Uses cgp_names.c, cgp_shape.c and
   cgp_sites.c. */
#include "cgp_phase2.h"
#include "cgp_abi.h"
#include "cgp_mark.h"
#include "cgp_overlap.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"load", "store", "atomic"};

/* For each site, the first site of the nest whose address is the same SSA value: after -O1's CSE
   two accesses with one address expression share it, which is what a compiler can prove equal
   (the runtime forwards a load only from a site of the same addr_id). Sorting keeps it n log n. */
typedef struct { uintptr_t ptr; size_t idx; } site_ptr;

static int cmp_site_ptr(const void *a, const void *b) {
  const site_ptr *x = a, *y = b;
  if (x->ptr != y->ptr) return x->ptr < y->ptr ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t *addr_ids(const pass_ctx *pc, const nest *n) {
  site_ptr *v = malloc((n->nmem ? n->nmem : 1) * sizeof *v);
  size_t *id = malloc((n->nmem ? n->nmem : 1) * sizeof *id);
  if (!v || !id) { free(v); free(id); return NULL; }
  for (size_t i = 0; i < n->nmem; i++) {
    LLVMValueRef p, b;
    cgp_site_pointers(pc, n->mem[i].inst, &p, &b);
    v[i] = (site_ptr){(uintptr_t)p, i};
  }
  qsort(v, n->nmem, sizeof *v, cmp_site_ptr);
  for (size_t i = 0; i < n->nmem; i++) id[v[i].idx] = i && v[i].ptr == v[i - 1].ptr ? id[v[i - 1].idx] : v[i].idx;
  free(v);
  return id;
}

static cJSON *mem_site_json(pass_ctx *pc, const nest *n, const mem_site *site, size_t id) {
  LLVMValueRef i = site->inst, ptr, base;
  cJSON *s = cJSON_CreateObject();
  cgp_site_pointers(pc, i, &ptr, &base);
  unsigned flen = 0, dlen = 0;
  const char *file = LLVMGetDebugLocFilename(i, &flen), *dir = LLVMGetDebugLocDirectory(i, &dlen);
  char fbuf[512] = "", path[1100];
  if (file && flen < sizeof fbuf) { memcpy(fbuf, file, flen); fbuf[flen] = '\0'; }
  /* the source is read where the compiler found it: a relative name is its directory's (an
     out-of-source build, CMake's, runs elsewhere: its sites were named by debug variables,
     LULESH's `domain.xd(n)` as `this`) */
  if (fbuf[0] != '/' && dir && dlen && dlen < 512) snprintf(path, sizeof path, "%.*s/%s", (int)dlen, dir, fbuf);
  else snprintf(path, sizeof path, "%s", fbuf);
  char bname[128];
  if (!cgp_name_in_source(pc, path, LLVMGetDebugLocLine(i), LLVMGetDebugLocColumn(i), site->kind == CGP_SITE_STORE, bname,
                      sizeof bname))
    cgp_source_name(pc, ptr, bname, sizeof bname);
  cJSON_AddStringToObject(s, "file", fbuf);
  cJSON_AddNumberToObject(s, "line", LLVMGetDebugLocLine(i));
  cJSON_AddNumberToObject(s, "column", LLVMGetDebugLocColumn(i));
  cJSON_AddStringToObject(s, "kind", kind_names[site->kind]);
  cJSON_AddNumberToObject(s, "size", (double)(cgp_is_marker(pc, i) ? cgp_pass_site_size(pc->td, i)
                                                               : cgp_pass_access_size(pc->td, i)));
  cJSON_AddStringToObject(s, "array", bname);
  cJSON_AddStringToObject(s, "reading", n->may_alias ? "may_alias" : "noalias");
  cJSON_AddNumberToObject(s, "block", site->block);
  cJSON_AddNumberToObject(s, "order", site->order);
  cJSON_AddNumberToObject(s, "addr_id", (double)id);
  if (site->block < 0) cJSON_AddBoolToObject(s, "hoisted", 1);
  /* a store of a constant: every thread stores the same value (a benign race where they meet) */
  LLVMValueRef stored = site->kind != CGP_SITE_STORE ? NULL
                      : cgp_is_marker(pc, i)         ? cgp_pass_site_stored_constant(i)
                                                     : LLVMGetOperand(i, 0);
  if (stored && (LLVMIsAConstantInt(stored) || LLVMIsAConstantFP(stored))) {
    char value[64];
    cgp_constant_text(stored, NULL, value, sizeof value);
    cJSON_AddStringToObject(s, "stored_constant", value);
  }
  /* a local declared outside the nest that phase 1 kept shared (cgp_private.c): its dependences'
     remedy is a copy per thread, not an atomic */
  if (cgp_site_local_memory(pc, i))          /* a thread's own array: CUDA local memory (cgp_local.c) */
    cJSON_AddBoolToObject(s, "local_memory", 1);
  else if (LLVMIsAAllocaInst(base) || LLVMIsAAllocaInst(cgp_pass_underlying_base(ptr)))
    cJSON_AddBoolToObject(s, "local", 1);
  return s;
}

/* PTX-equivalent counts of a block: total, on CUDA cores, memory, and by functional unit. */
static cJSON *block_json(LLVMBasicBlockRef bb, int rpo, int loop) {
  unsigned total = 0, core = 0, mem = 0;
  cgp_ptx_units u = {0};
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    int c = 0;
    unsigned k = cgp_pass_ptx_cost(i, &c);
    total += k;
    core += c ? k : 0;
    mem += cgp_is_mem(i);
    cgp_pass_ptx_units(i, &u);
  }
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "total", total);
  cJSON_AddNumberToObject(o, "core", core);
  cJSON_AddNumberToObject(o, "mem", mem);
  cJSON_AddNumberToObject(o, "fp32", u.fp32);
  cJSON_AddNumberToObject(o, "fp64", u.fp64);
  cJSON_AddNumberToObject(o, "int", u.integer);
  cJSON_AddNumberToObject(o, "sfu", u.sfu);
  cJSON_AddNumberToObject(o, "rpo", rpo);
  cJSON_AddNumberToObject(o, "loop", loop);
  return o;
}

/* Does the site's load issue with the next iterations' loads (cgp_overlap.c, docs/model.md section
   5e)? Only a load in a loop inside the thread body. */
static int overlaps(const pass_ctx *pc, const cgp_cfg *cfg, const body_shape *bs, const mem_site *site) {
  if (site->kind != CGP_SITE_LOAD || site->block < 0 || bs->loop_of[site->block] < 0) return 0;
  LLVMValueRef ptr, base;
  cgp_site_pointers(pc, site->inst, &ptr, &base);
  return cgp_overlap_load(cfg, bs->inner[bs->loop_of[site->block]], ptr, pc->f_site);
}

static cJSON *uint_array(const unsigned *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

/* The locals declared outside nest k that phase 1 found private to each thread (cgp_private.c,
   cgp_privatize): the module's !cgp.privatized entries of k's name, each variable once. */
static cJSON *privatized_json(LLVMModuleRef m, const cgp_kernel_pragma *k) {
  cJSON *a = cJSON_CreateArray();
  unsigned n = LLVMGetNamedMetadataNumOperands(m, CGP_PRIVATIZED_MD);
  LLVMValueRef *ops = n ? malloc(n * sizeof *ops) : NULL;
  if (!ops) return a;
  LLVMGetNamedMetadataOperands(m, CGP_PRIVATIZED_MD, ops);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef pair[2];
    if (LLVMGetMDNodeNumOperands(ops[i]) != 2) continue;
    LLVMGetMDNodeOperands(ops[i], pair);
    unsigned klen = 0, vlen = 0;
    const char *kn = LLVMGetMDString(pair[0], &klen), *var = LLVMGetMDString(pair[1], &vlen);
    if (!kn || !var || klen != strlen(k->name) || strncmp(kn, k->name, klen) != 0) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)vlen, var);
    int seen = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, a) seen |= strcmp(e->valuestring, name) == 0;
    if (!seen) cJSON_AddItemToArray(a, cJSON_CreateString(name));
  }
  free(ops);
  return a;
}

/* The function the source wrote the nest in (cgp_source_function): two instances of one pragma
   (a template's instantiations, BabelStream's OMPStream<float> and <double>) are told apart by it
   in the report (runtime/cgp_rt_names.c). */
static void add_function(cJSON *d, LLVMContextRef ctx, const cgp_loop *l, LLVMValueRef fn) {
  char name[1024];
  cgp_source_function(ctx, l, fn, name, sizeof name);
  cJSON_AddStringToObject(d, "function", name);
}

char *cgp_descriptor(pass_ctx *pc, nest *n, const body_shape *bs) {
  const cgp_kernel_pragma *k = n->k;
  const cgp_cfg *cfg = n->cfg;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddNumberToObject(d, "abi", CGP_ABI_VERSION);
  cJSON_AddStringToObject(d, "name", k->name);
  add_function(d, pc->ctx, n->mapped[0], cfg->n ? LLVMGetBasicBlockParent(cfg->bb[0]) : NULL);
  cJSON_AddStringToObject(d, "file", k->file);
  cJSON_AddNumberToObject(d, "line", k->pragma_line);
  cJSON_AddNumberToObject(d, "for_line", k->for_line);
  cJSON_AddNumberToObject(d, "for_column", k->for_col);
  cJSON_AddNumberToObject(d, "dims", n->dims);
  cJSON_AddBoolToObject(d, "dims_given", k->dims != 0);
  cJSON_AddItemToObject(d, "block", uint_array(k->block, 3));
  if (k->fpga_json) cJSON_AddRawToObject(d, "fpga", k->fpga_json);
  cJSON *steps = cJSON_CreateArray();
  for (unsigned i = 0; i < n->dims; i++) cJSON_AddItemToArray(steps, cJSON_CreateNumber((double)n->step[i]));
  cJSON_AddItemToObject(d, "iv_step", steps);
  cJSON *ext = cJSON_CreateArray();            /* [0] x: 1 + its largest index, 0: known only by the sweep */
  for (unsigned i = 0; i < n->dims; i++) cJSON_AddItemToArray(ext, cJSON_CreateNumber((double)n->extent[i]));
  cJSON_AddItemToObject(d, "extent", ext);
  cJSON_AddBoolToObject(d, "can_skip", n->can_skip);
  cJSON *sh = cJSON_CreateArray();
  for (unsigned i = 0; i < k->nshared; i++) cJSON_AddItemToArray(sh, cJSON_CreateString(k->shared[i]));
  cJSON_AddItemToObject(d, "shared", sh);
  cJSON *pads = cJSON_CreateArray();
  for (unsigned i = 0; i < k->nshared; i++) cJSON_AddItemToArray(pads, cJSON_CreateNumber(k->shared_pad[i]));
  cJSON_AddItemToObject(d, "shared_pad", pads);
  cJSON_AddNumberToObject(d, "tile", k->tile);
  cJSON_AddNumberToObject(d, "tile_loop", cgp_tile_loop(cfg, bs, k->tile));
  cJSON_AddStringToObject(d, "reading", n->may_alias ? "may_alias" : "noalias");
  cJSON *mem = cJSON_CreateArray();
  size_t *ids = addr_ids(pc, n);
  unsigned char *unwritten = cgp_unwritten_sites(pc, n);   /* NULL (out of memory): none said */
  for (size_t i = 0; i < n->nmem; i++) {
    cJSON *site = mem_site_json(pc, n, &n->mem[i], ids ? ids[i] : i);
    cJSON_AddNumberToObject(site, "vary_loop", cgp_vary_loop(pc, cfg, bs, n->mem[i].inst));
    if (overlaps(pc, cfg, bs, &n->mem[i])) cJSON_AddBoolToObject(site, "overlap", 1);
    if (cgp_site_index_loaded(pc, n->mem[i].inst)) cJSON_AddBoolToObject(site, "index_loaded", 1);
    if (unwritten && unwritten[i]) cJSON_AddBoolToObject(site, "unwritten", 1);
    cJSON_AddItemToArray(mem, site);
  }
  free(unwritten);
  free(ids);
  cJSON_AddItemToObject(d, "mem", mem);
  cJSON *blocks = cJSON_CreateArray();
  for (size_t b = 0; b < bs->n; b++)
    cJSON_AddItemToArray(blocks, block_json(cfg->bb[bs->cfg_of[b]], bs->rpo[b], bs->loop_of[b]));
  cJSON_AddItemToObject(d, "blocks", blocks);
  cJSON_AddItemToObject(d, "loops", cgp_loops_json(bs));
  cJSON_AddBoolToObject(d, "acyclic", bs->acyclic);
  if (cgp_marks_blocks(n, bs)) cJSON_AddBoolToObject(d, "block_seen", 1);
  cJSON_AddItemToObject(d, "carried", cJSON_Duplicate(n->carried, 1));
  cJSON_AddItemToObject(d, "exits", cJSON_Duplicate(n->exits, 1));
  cJSON_AddItemToObject(d, "warnings", cJSON_Duplicate(n->warnings, 1));
  cJSON_AddItemToObject(d, "call_args", cJSON_Duplicate(n->call_args, 1));
  cJSON_AddItemToObject(d, "privatized", privatized_json(pc->m, k));
  char *s = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  return s;
}
