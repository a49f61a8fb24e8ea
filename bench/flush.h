/* SPDX-License-Identifier: MIT */
/*
 * What a responder does with a shootdown IPI, shared by every experiment:
 * cross-call functions (smp.h's xcall_fn) that invalidate this CPU's TLB.
 */
#ifndef BENCH_FLUSH_H
#define BENCH_FLUSH_H

#include <stdint.h>

struct flush_range {
	uint64_t va;	/* first page */
	uint64_t pages; /* 4 KiB pages from va */
};

/* INVLPG of the address arg. */
void flush_page(void *va);
/* INVLPG of every page of the struct flush_range at arg. */
void flush_range(void *range);
/* CR3 reload: every non-global entry of this address space. */
void flush_all(void *unused);

#endif
