/* cgp_fold.h: folded loops (docs/pipeline.md, "Folded loops"). A leaf loop of one block whose
   sites' addresses are affine in its counter runs, while a thread is traced whole, without a
   hook per iteration: on its exit edge one call, cgp_rt_loop, tells the runtime the iteration
   count and each site's first two addresses, and the runtime issues the hooks' events itself.
   Internal to pass/. */
#ifndef CGP_FOLD_H
#define CGP_FOLD_H

#include <llvm-c/Core.h>

/* The names of the always-inlined shells the pass makes around the hooks, each written here
   once: the block hook's and the flush's (cgp_hooks.c; a flush of n sites is CGP_SHELL_FLUSH
   ".v<n>"), and in a folded loop, their unless-shells and the loop call's (cgp_fold.c), which
   cgp_sink.c finds again by name. */
#define CGP_SHELL_BB "cgp.bb"
#define CGP_SHELL_FLUSH "cgp.mem.flush"
#define CGP_SHELL_BB_UNLESS "cgp.bb.unless"
#define CGP_SHELL_FLUSH_UNLESS "cgp.mem.flush.unless"
#define CGP_SHELL_LOOP_UNLESS "cgp.loop.unless"

/* What an instrumented block calls, and the values kept up to date if a phi holding one is
   rebuilt (the thread loops' counters). */
typedef struct {
  LLVMValueRef bb_shell, flush_shell;    /* the always-inlined cgp.bb and cgp.mem.flush */
  LLVMTypeRef bb_ty, flush_ty;
  LLVMValueRef *track;
  size_t ntrack;
} cgp_fold_hooks;

/* Folds the loop whose only block is h (its header and latch, a thread-body block already
   instrumented: its block hook names its bid, its flush its sites, their addresses and bases):
   when on entry cgp_rt_tracing is 1 and cgp_rt_fold is set, its hooks do nothing and its exit
   edge calls cgp_rt_loop. Returns 1 if folded; 0, changing nothing, when the loop has more than
   one way in, an exit other than its branch, a call other than an intrinsic or a hook, or a site
   whose address is not affine in a 64-bit counter (modulo 2^64: integer adds, subtracts,
   multiplies by an invariant, shifts by one, getelementptr) or whose base varies. */
int cgp_fold_loop(LLVMModuleRef m, LLVMBuilderRef b, LLVMBasicBlockRef h, const cgp_fold_hooks *hooks);

/* The slot of the sites' address buffer whose slot 0 `at` points to (a constant getelementptr of
   the buffer, as a flush names it) that instruction st stores into, or -1 if st is no such store:
   how the fold and the sink (cgp_sink.c) read what a block stores for its flush. */
long cgp_buffer_slot(LLVMValueRef st, LLVMValueRef at);

#endif
