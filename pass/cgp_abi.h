/* cgp_abi.h: the contract between instrumented code (pass/) and the runtime (runtime/), included
   by both. The pass emits calls to the hooks below (declared in runtime/cgp_rt.h) and one kernel
   descriptor per marked nest, a JSON string whose "abi" is CGP_ABI_VERSION; the runtime refuses
   a descriptor of another version with a message asking to rebuild.

   Descriptor (ABI 2):
     name, file, line, for_line, for_column, dims, dims_given, block[3], iv_step[dims], can_skip,
     shared[] (array names of the pragma's shared()), tile, warnings[],
     mem[]:    per memory site (its sid is its index): file, line, column, kind ("load" | "store" |
               "atomic"), size (bytes), array, reading ("may_alias" | "noalias"), block (bid, -1
               for a load hoisted out of the thread loop, "hoisted": true), order (within block)
     blocks[]: per thread-body block (its bid is its index): rpo (reverse postorder from the thread
               loop's header, back edges ignored), loop (index into loops[], -1), and PTX-equivalent
               counts total, core, mem, fp32, fp64, int, sfu
     loops[]:  per loop inside the thread loop: header (bid), parent (index, -1), line, column
     carried[]: scalars carried from one thread to the next: file, line, column, type */
#ifndef CGP_ABI_H
#define CGP_ABI_H

#define CGP_ABI_VERSION 2

#define CGP_HOOK_KERNEL_BEGIN "cgp_rt_kernel_begin"
#define CGP_HOOK_KERNEL_END "cgp_rt_kernel_end"
#define CGP_HOOK_THREAD "cgp_rt_thread"     /* its PLAIN answer may grant the next threads */
#define CGP_HOOK_FAST_END "cgp_rt_fast_end"
#define CGP_HOOK_MEM "cgp_rt_mem"
#define CGP_HOOK_HOISTED "cgp_rt_hoisted"
#define CGP_HOOK_BB "cgp_rt_bb"
#define CGP_HOOK_TRACING "cgp_rt_tracing"

#endif
