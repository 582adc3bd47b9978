/* cgp_abi.h: the contract between instrumented code (pass/) and the runtime (runtime/), included
   by both. The pass emits calls to the hooks below (declared in runtime/cgp_rt.h) and one kernel
   descriptor per marked nest, a JSON string whose "abi" is CGP_ABI_VERSION; the runtime refuses
   a descriptor of another version with a message asking to rebuild.

   Descriptor (ABI 2):
     name, function (the function the source wrote the nest in, a C++ one demangled; absent from
     an older pass's descriptor), file, line, for_line, for_column, dims, dims_given, block[3], iv_step[dims] (each mapped
     loop's step, [0] the innermost's; 0: a step known only at run time, below), extent[dims]
     (each mapped loop's 1 + largest index where its bound is a constant, 0: not; absent from an
     older pass's descriptor: none), can_skip,
     shared[] (array names of the pragma's shared()), shared_pad[] (their pad(n), 0 none), tile, tile_loop (index into loops[] of the
     loop stepping by tile, -1: none; docs/model.md 8b), warnings[], call_args[] (the names of the
     arrays untraced calls of the body are given pointers into, which they may write: no
     shared-memory tile for them; absent: none),
     mem[]:    per memory site (its sid is its index): file, line, column, kind ("load" | "store" |
               "atomic"), size (bytes), array, reading ("may_alias" | "noalias"), block (bid, -1
               for a load hoisted out of the thread loop, "hoisted": true), order (within block),
               stored_constant (a store of a constant: the value as the source writes it; absent:
               not), local (a local declared outside the nest), local_memory (a thread's own
               array in CUDA local memory), addr_id (one id for the sites of one address
               value), vary_loop (the innermost inner loop whose every iteration computes its
               address anew, -1), overlap (a load issued with the next iterations' loads),
               index_loaded (its address is indexed by a value loaded from memory), unwritten
               (a load no store or atomic of the nest can write: every site's array its own
               allocation, no call that may touch memory; the dependence check skips it;
               absent: not proven)
     blocks[]: per thread-body block (its bid is its index): rpo (reverse postorder from the thread
               loop's header, back edges ignored), loop (index into loops[], -1), and PTX-equivalent
               counts total, core, mem, fp32, fp64, int, sfu
     loops[]:  per loop inside the thread loop: header (bid), parent (index, -1), line, column
     acyclic:  true if no edge of the thread body goes back in reverse postorder but the back
               edges of loops[] (absent: false)
     block_seen: true if the body's blocks may mark themselves in cgp_rt_block_seen instead of
               calling cgp_rt_bb (below; absent: false). Only for a body with no loop, acyclic,
               and at most CGP_FLAT_EVENTS sites and blocks in all
     carried[]: scalars carried from one thread to the next: file, line, column (of the update),
               type, variable, source_type, origin ("variable" | "memory" | "temporary"), form
               ("reduction" | "recurrence" | "flag": every thread that sets it sets one value, and
               none reads it, a benign race), op (a reduction's: "+" "*" "min" "max" "&" "|" "^"),
               value (a flag's, as the source writes it); origin, form and op are absent from an
               older pass's descriptor
     exits[]:  early exits from mapped loops: file, line, column, loop_line (absent from an older
               pass's descriptor: none)
     fpga:     the nest as the FPGA model takes it (model/cgp_fpga_kernel.h, the carried form), or
               {note} saying why there is none (absent: built without it); the runtime copies it
               into the report kernel's "fpga_nest" */
#ifndef CGP_ABI_H
#define CGP_ABI_H

#define CGP_ABI_VERSION 2

/* Every name the pass emits and the runtime defines begins with it (the pass never instruments a
   function of that name: the runtime's own, inlined). */
#define CGP_HOOK_PREFIX "cgp_rt_"
/* Not a hook: the stub's question to a loaded runtime (runtime/cgp_rt.h). */
#define CGP_RT_STRICT_HANDOVER "cgp_rt_strict_handover"
#define CGP_HOOK_KERNEL_BEGIN "cgp_rt_kernel_begin"
/* A nest with a mapped loop stepped by a value fixed before the nest but not at compile time
   (`i += m + m`) has 0 for it in iv_step, and begins with cgp_rt_kernel_begin_step(desc, sx, sy,
   sz) instead: the steps of the x, y, z loops this launch, as int64_t (a constant step as in
   iv_step, 1 where not mapped). Thread t of that loop handles i = t * step (+ lo: the coordinate
   is i / |step|, as for a constant step). The runtime takes a step of 0 as no mapping: the launch
   is said on stderr and in the report's step_note, and runs untraced. A descriptor without a 0 in
   iv_step never needs it, so older objects run unchanged; objects using it need this runtime
   (the stub refuses a runtime without it: "a hook is missing"). */
#define CGP_HOOK_KERNEL_BEGIN_STEP "cgp_rt_kernel_begin_step"
/* cgp_rt_kernel_class(key): called just before kernel_begin where a mapped loop's bound is a value
   the nest is entered with (an argument, a size computed before it): the key mixes those values,
   so launches of one key have one grid, and the runtime schedules the analysed launches of each
   key apart (docs/model.md 5b, "Launches of one shape"). A nest without such bounds never calls
   it. Objects using it need this runtime (the stub refuses one without it). */
#define CGP_HOOK_KERNEL_CLASS "cgp_rt_kernel_class"
#define CGP_HOOK_KERNEL_END "cgp_rt_kernel_end"
#define CGP_HOOK_THREAD "cgp_rt_thread"     /* its PLAIN answer may grant the next threads */
#define CGP_HOOK_FAST_END "cgp_rt_fast_end"
#define CGP_HOOK_MEM "cgp_rt_mem"             /* one site (objects of an older pass) */
#define CGP_HOOK_MEM_BLOCK "cgp_rt_mem_block" /* a block's sites, one call */
#define CGP_HOOK_HOISTED "cgp_rt_hoisted"
#define CGP_HOOK_BB "cgp_rt_bb"
#define CGP_HOOK_TRACING "cgp_rt_tracing"
/* int cgp_rt_marked_program = 1, a weak definition in every module with a marked nest: the
   runtime's start-up reads it (a weak reference) to tell an instrumented program, which writes a
   report even when none of its nests began, from another user of the runtime (the driver). */
#define CGP_MARKED_PROGRAM "cgp_rt_marked_program"
/* Straight-line bodies (docs/pipeline.md, "Blocks of a straight-line body mark themselves"): in
   a descriptor with block_seen, thread-body block bid of the traced thread may set bit bid % 64
   of uint64_t cgp_rt_block_seen[bid / 64] instead of calling cgp_rt_bb(bid); the runtime takes
   the marks when the thread ends (the body has no loop and no other cycle, so each block runs at
   most once and in reverse postorder: the marks say all that the calls would). CGP_FLAT_EVENTS
   is the most sites and blocks such a body has; the array has CGP_FLAT_EVENTS / 64 words (whole
   words: a word read just after the code's read-or-write of it comes from the store buffer, bytes
   gathered into a word would stall). cgp_rt_block_seen_at(p) tells the runtime to read the marks
   at p instead (what the stub does, whose copy the code writes). */
#define CGP_HOOK_BLOCK_SEEN "cgp_rt_block_seen"
#define CGP_HOOK_BLOCK_SEEN_AT "cgp_rt_block_seen_at"
#define CGP_FLAT_EVENTS 128
/* Folded loops (docs/pipeline.md, "Folded loops"): a leaf loop of one block whose sites' addresses
   are affine in its counter runs without hooks when int cgp_rt_fold and cgp_rt_tracing == 1 at
   its entry, and calls cgp_rt_loop(bid, iterations, first sid, sites, a0[], a1[], base[]) on its
   exit edge. */
#define CGP_HOOK_FOLD "cgp_rt_fold"
#define CGP_HOOK_LOOP "cgp_rt_loop"
/* int32_t cgp_rt_pause[3], the skipping state of the traced thread, which the instrumented code
   reads and updates itself so that a skipped iteration costs no call (docs/pipeline.md, "Sampling
   inside a thread"): [CGP_PAUSE_LOOP] the descriptor's index of the loop whose iterations are
   skipped, -1 if none; [CGP_PAUSE_LEFT] its header executions left to skip before the next
   window; [CGP_PAUSE_HEADER_LAST] 1 if the last block it ran was its header. While
   cgp_rt_tracing is 2, a block of that loop may, instead of calling cgp_rt_bb, set HEADER_LAST
   to 0 (a block other than the header), or decrement LEFT and set HEADER_LAST to 1 (the header,
   when LEFT > 1): exactly what cgp_rt_bb would do. Any other block calls cgp_rt_bb. */
#define CGP_HOOK_PAUSE "cgp_rt_pause"
#define CGP_PAUSE_LOOP 0
#define CGP_PAUSE_LEFT 1
#define CGP_PAUSE_HEADER_LAST 2

#endif
