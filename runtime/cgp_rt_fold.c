/* cgp_rt_fold.c: folded loops (docs/pipeline.md, "Folded loops"). A loop whose addresses are
   affine in its counter runs without hooks, and its iterations are issued here, whole periods at
   once where the lane's state repeats. Entered once per loop, not per access, so it lives apart
   from the hooks (cgp_rt.c), sharing their per-access steps inline (cgp_rt_access.h). */
#include "cgp_rt_internal.h"

#include <limits.h>
#include <string.h>

static rt_launch *const L = &cgp_rt_g.launch;
#include "cgp_rt_access.h"      /* after L, which its inline functions work on */

int cgp_rt_fold;             /* read by the instrumented code at a foldable loop's entry: 1 while a
                                launch runs with folding on (CGPREDICT_FOLD) */

#define RT_FOLD_SITES 64     /* the most sites of a loop the fast-forward handles (a bit each) */
#define RT_FOLD_TRIES 4      /* windows of up to RT_FWD iterations searched for a repeat */

typedef struct {
  uint64_t fwd[RT_FWD];
  uint32_t fwd_id[RT_FWD], fwd_stamp[RT_FWD];
  unsigned nfwd, fwd_next;
} fwd_state;

static void fwd_save(fwd_state *s) {
  memcpy(s->fwd, L->fwd, sizeof s->fwd);
  memcpy(s->fwd_id, L->fwd_id, sizeof s->fwd_id);
  memcpy(s->fwd_stamp, L->fwd_stamp, sizeof s->fwd_stamp);
  s->nfwd = L->nfwd;
  s->fwd_next = L->fwd_next;
}

typedef struct {
  uint32_t bid, first, count, slot;
  void *const *a0, *const *a1, *const *base;
} fold_loop;

static uint64_t site_stride(const fold_loop *f, uint32_t s) {
  return (uint64_t)(uintptr_t)f->a1[s] - (uint64_t)(uintptr_t)f->a0[s];
}

/* The step of site s's GPU address an iteration, *affine 0 if it has none. A global site's is its
   host stride (gpu_addr is linear in the address). A local-memory site's word interleaves the
   warp's lanes (rt_local_address: byte o of the array at (o / u * 32 + lane) u + o % u, u its
   word): a host stride h that is a multiple of u moves o / u by h / u and leaves o % u, so the
   address moves 32 h a stride; any other h moves it by turns (a short array read a short at a
   time): no step, and the loop is issued iteration by iteration. */
static uint64_t gpu_stride(const fold_loop *f, uint32_t s, int *affine) {
  uint64_t h = site_stride(f, s);
  *affine = 1;
  if (!L->mem_local || !L->mem_local[f->first + s]) return h;
  unsigned size = L->k->mem_size[f->first + s];
  int64_t u = size > RT_LOCAL_WORD_BYTES ? size : RT_LOCAL_WORD_BYTES, hs = (int64_t)h;
  if (hs % u != 0) { *affine = 0; return 0; }
  return (uint64_t)(hs / u) * (uint64_t)RT_WARP * (uint64_t)u;
}

/* 1 if every site of the loop has a GPU step (gpu_stride): its iterations may be issued by whole
   periods. */
static int strides_affine(const fold_loop *f) {
  int affine = 1;
  for (uint32_t s = 0; s < f->count && affine; s++) gpu_stride(f, s, &affine);
  return affine;
}

/* Iteration t of the loop as its instrumented block runs it: the header's hook while the lane is
   traced (cgp.bb; what it does inline in a skipped iteration is what cgp_rt_bb does), then the
   sites while the iteration is traced (cgp.mem.flush), site s at a0 + t (a1 - a0). Returns the
   sites served from registers (bit s), UINT64_MAX if the sites did not run. */
static uint64_t loop_iteration(const fold_loop *f, uint64_t t) {
  if (cgp_rt_tracing != 0) cgp_rt_bb(f->bid);
  if (cgp_rt_tracing != 1) return UINT64_MAX;
  uint64_t held = 0;
  for (uint32_t s = 0; s < f->count; s++)
    if (mem_at(f->first + s, site_addr_at(f->first + s, f->a0[s], f->base[s], t * site_stride(f, s))) &&
        s < RT_FOLD_SITES)
      held |= UINT64_C(1) << s;
  return held;
}

/* The GPU stride of address expression id if a site of the loop computes it anew each iteration
   (its vary slot is the loop's), else 0 with *moves 0: a held value of it then stays as it is. */
static uint64_t id_stride(const fold_loop *f, uint32_t id, int *moves) {
  for (uint32_t s = 0; s < f->count; s++) {
    uint64_t fwd = L->mem_fwd[f->first + s];
    if (fwd != RT_FWD_NONE && (uint32_t)(fwd >> 2) == id && (fwd >> RT_FWD_SLOT_SHIFT) == f->slot) {
      int affine;
      *moves = 1;
      return gpu_stride(f, s, &affine);            /* affine: strides_affine held */
    }
  }
  *moves = 0;
  return 0;
}

/* Is the forwarding state now the one saved in s moved p iterations on: each value held of an
   address the loop computes anew p strides and p stamps further, every other one unchanged, in
   the same slots, the next slot to replace the same? */
static int fwd_moved(const fold_loop *f, const fwd_state *s, uint64_t p) {
  _Static_assert(((uint64_t)UINT_MAX + 1) % RT_FWD == 0, "fwd_next % RT_FWD survives its wrapping");
  if (L->nfwd != s->nfwd || (L->fwd_next - s->fwd_next) % RT_FWD != 0) return 0;
  for (unsigned i = 0; i < L->nfwd; i++) {
    int moves;
    uint64_t d = id_stride(f, s->fwd_id[i], &moves);
    if (L->fwd_id[i] != s->fwd_id[i] || L->fwd[i] != s->fwd[i] + p * d ||
        L->fwd_stamp[i] != s->fwd_stamp[i] + (uint32_t)p * (uint32_t)moves)
      return 0;
  }
  return 1;
}

/* q more periods of p iterations like the last p, in each of which the sites in `held` were
   served from registers and the others recorded, and the slots of held values turned `turn`
   times: the runs grow, the counters move, the values held move q p iterations on. 0, nothing
   changed, if the tracker cannot show that the runs grow so. */
static int fast_forward(const fold_loop *f, uint64_t held, uint64_t p, uint64_t q, unsigned turn) {
  uint64_t k = p * q;
  uint32_t ev[RT_FOLD_SITES + 1];
  size_t nev = 0;
  ev[nev++] = (uint32_t)L->nmem + f->bid;
  for (uint32_t s = 0; s < f->count; s++)
    if (!(held >> s & 1)) ev[nev++] = f->first + s;
  if (!rt_tracker_extend(L->tracker, ev, nev, k)) return 0;
  L->iter[f->slot] += (uint32_t)k;
  for (unsigned i = 0; i < L->nfwd; i++) {
    int moves;
    uint64_t d = id_stride(f, L->fwd_id[i], &moves);
    L->fwd[i] += k * d;
    L->fwd_stamp[i] += (uint32_t)k * (uint32_t)moves;
  }
  L->fwd_next += (unsigned)q * turn;
  for (uint32_t s = 0; s < f->count; s++)
    if (held >> s & 1) L->k->forwarded[f->first + s] += k;
  cgp_rt_g.traced_accesses += k * (nev - 1);
  cgp_rt_g.folded_iterations += k;
  return 1;
}

/* Issues iterations *t, *t + 1 ... one by one until the loop's state repeats, moved on, after p of
   them (p <= RT_FWD), with the same sites served from registers in each and no new run; then the
   remaining whole periods at once (1). 0 when it does not repeat within RT_FWD iterations, or the
   loop ends first. Why a repeat is enough: every address is affine in the iteration, and the
   hooks only compare addresses and stamps for equality, which moving them all on keeps; so p
   iterations from a state moved on are those p iterations moved on, with the same outcome. */
static int fold_periods(const fold_loop *f, uint64_t n, uint64_t *t) {
  fwd_state s;
  fwd_save(&s);
  rt_lane_rec *lane = L->lane;
  size_t runs = lane->n;
  uint64_t held = 0;
  for (uint64_t p = 1; p <= RT_FWD && *t < n; p++) {
    uint64_t h = loop_iteration(f, (*t)++);
    if (h == UINT64_MAX || cgp_rt_tracing != 1 || L->lane != lane || lane->failed || lane->n != runs ||
        (p > 1 && h != held))
      return 0;
    held = h;
    if (fwd_moved(f, &s, p)) {
      uint64_t q = (n - *t) / p, room = rt_tracker_room(L->tracker);
      if (q > room / p) q = room / p;              /* not past the window of traced iterations */
      if (q && fast_forward(f, held, p, q, L->fwd_next - s.fwd_next)) *t += p * q;
      return 1;
    }
  }
  return 0;
}

/* A folded loop has run n iterations (n >= 1) of its one block `bid`, with no hook: its header's
   cgp.bb and its sites' cgp.mem.flush (sites first .. first + count - 1, site s at a0[s] in the
   first iteration and a1[s] in the second, indexed from base[s]) are issued here, in order, as
   the block would have: iterations 0 and 1 one by one (they open the runs and set their strides),
   then whole periods at once where the state repeats (fold_periods, tried again a few times: the
   slots of held values settle into their turn only once each has been replaced since the lane
   began, the turn starting where the last lane left it; within the window of traced iterations
   where iterations are sampled), the rest one by one, but for those sampling skips: the
   instrumented code skips them inline, one by one, and here they are skipped at once
   (rt_tracker_skip), the same state after them. */
void cgp_rt_loop(uint32_t bid, uint64_t n, uint32_t first, uint32_t count, void *const *a0, void *const *a1,
                 void *const *base) {
  if (!rt_owner || !L->lane) return;
  if (first > L->nmem) first = (uint32_t)L->nmem;
  if (count > L->nmem - first) count = (uint32_t)(L->nmem - first); /* cgp_rt_mem ignores the others */
  fold_loop f = {bid, first, count, bid < L->nbb ? L->bb_slot[bid] : 0, a0, a1, base};
  uint64_t t = 0;
  for (; t < n && t < 2; t++) loop_iteration(&f, t);
  if (bid < L->nbb && count <= RT_FOLD_SITES && strides_affine(&f))
    for (int try = 0; try < RT_FOLD_TRIES && t + 2 < n && cgp_rt_tracing == 1 && L->lane; try++)
      if (fold_periods(&f, n, &t)) break;
  while (t < n) {
    if (cgp_rt_tracing == 2) {                     /* iterations sampling skips (the tracker paused
                                                      in this loop): skipped at once, as the
                                                      instrumented code skips them one by one */
      uint64_t m = rt_tracker_skip(L->tracker, bid, n - t);
      t += m;
      if (m) continue;
    }
    loop_iteration(&f, t++);
  }
}
