/* cgp_l2_list.h: a small fully associative LRU L2 as a recency list (cgp_l2_list.c). Only
   cgp_l2.c uses it, for the fully associative caches of at most CGP_L2_LIST_MAX_LINES lines;
   its semantics are cgp_l2_access's, cgp_l2_holds's, cgp_l2_mark's and cgp_l2_inherited's. */
#ifndef CGP_L2_LIST_H
#define CGP_L2_LIST_H

#include <stddef.h>
#include <stdint.h>

/* 64 Ki lines: 64 bytes a line, 4.2 MB at most. */
#define CGP_L2_LIST_MAX_LINES (1u << 16)

typedef struct cgp_l2_list cgp_l2_list;

/* NULL when lines is 0, above CGP_L2_LIST_MAX_LINES, or out of memory. */
cgp_l2_list *cgp_l2_list_new(uint32_t lines);
void cgp_l2_list_reset(cgp_l2_list *c);
void cgp_l2_list_free(cgp_l2_list *c);
size_t cgp_l2_list_bytes(const cgp_l2_list *c);
int cgp_l2_list_access(cgp_l2_list *c, uint64_t line);
/* lines[0..n) in order: the hits, and each one's result in hit[] unless hit is NULL. */
unsigned cgp_l2_list_access_each(cgp_l2_list *c, const uint64_t *lines, unsigned n, unsigned char *hit);
int cgp_l2_list_holds(const cgp_l2_list *c, uint64_t line);
void cgp_l2_list_mark(cgp_l2_list *c);
uint64_t cgp_l2_list_inherited(const cgp_l2_list *c);

#endif
