/* cgp_mark.h: the source-level access markers phase 1 inserts and phase 2 reads. Internal to pass/. */
#ifndef CGP_MARK_H
#define CGP_MARK_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* void cgp_rt_site(i8* addr, i8* base, i32 kind): never reaches the object file. */
#define CGP_SITE_MARKER "cgp_rt_site"
#define CGP_SITE_SIZE_MD "cgp.size"         /* !cgp.size !{i32 bytes} on each marker call */
/* !cgp.privatized !{!"kernel name", !"variable"}: a local declared outside the nest that phase 1
   found private to each thread (cgp_private.c, cgp_privatize), named in the kernel descriptor */
#define CGP_PRIVATIZED_MD "cgp.privatized"
/* !cgp.local_memory !{} on an alloca: a thread-private array in CUDA local memory (cgp_local.c),
   whose accesses phase 1 marked and phase 2 describes as `local_memory` */
#define CGP_LOCAL_MEMORY_MD "cgp.local_memory"
/* !cgp.thread_local !{} on an alloca: a local of each thread (declared in a nest, or a nest's
   callee's), which phase 2 does not trace when a callee reached it through a pointer or reference
   parameter (cgp_private.c, cgp_thread_locals_tag) */
#define CGP_THREAD_LOCAL_MD "cgp.thread_local"
/* !cgp.stored_constant !{constant} on a store's marker: the value the source stores is a constant
   (`mask[id] = true`), the same in every thread (cgp_mark.c; a benign race's sign, cgp_sites.c) */
#define CGP_STORED_CONSTANT_MD "cgp.stored_constant"
enum { CGP_SITE_LOAD = 0, CGP_SITE_STORE = 1, CGP_SITE_ATOMIC = 2 };

/* The marker's declaration in m (added if missing). */
LLVMValueRef cgp_pass_site_marker(LLVMModuleRef m);
/* The pointer p is indexed from (down GEPs and casts). */
LLVMValueRef cgp_pass_underlying_base(LLVMValueRef p);
/* CGP_SITE_* of a load, store, atomicrmw or cmpxchg (address in *ptr), else -1. */
int cgp_pass_access_kind(LLVMValueRef inst, LLVMValueRef *ptr);
/* Bytes a load, store or atomic accesses. */
unsigned long long cgp_pass_access_size(LLVMTargetDataRef td, LLVMValueRef inst);
/* Bytes the access a marker call stands for accessed. */
unsigned long long cgp_pass_site_size(LLVMTargetDataRef td, LLVMValueRef marker);
/* Phase 1's tags on an alloca (CGP_LOCAL_MEMORY_MD, CGP_THREAD_LOCAL_MD): an empty !md node set
   once, and whether alloca a carries it (0 for anything but an alloca). */
void cgp_pass_tag_alloca(LLVMValueRef a, const char *md);
int cgp_pass_alloca_tagged(LLVMValueRef a, const char *md);
/* The constant a marker call's store stored (!cgp.stored_constant), or NULL. */
LLVMValueRef cgp_pass_site_stored_constant(LLVMValueRef marker);
/* 1 if paths a and b name the same source file, as the debug info and the pragma scanner spell
   it: compared by base name, since they may spell the directory differently. */
int cgp_pass_same_file(const char *a, const char *b);

/* Alloca a carries phase 1's !cgp.local_memory (cgp_local.c). */
int cgp_local_memory_tagged(LLVMValueRef a);
/* Alloca a is an array in CUDA local memory: some address computed from it has a variable index
   (cgp_local.c). */
int cgp_local_memory_alloca(LLVMValueRef a);
/* Alloca a carries phase 1's !cgp.thread_local (cgp_private.c). */
int cgp_thread_local_tagged(LLVMValueRef a);

/* The -O1 pipeline of clang -O1 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops on m, as phase 1
   runs it (also run alone, without markers, by the HLS operations of cgp_hls_ops.c). 0 on success. */
int cgp_pass_run_o1(LLVMModuleRef m, char *err, size_t errlen);

#endif
