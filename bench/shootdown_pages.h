/* SPDX-License-Identifier: MIT */
/* The shootdown experiment's pages and what CPUs do with them. */
#ifndef BENCH_SHOOTDOWN_PAGES_H
#define BENCH_SHOOTDOWN_PAGES_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/params.h"
#include "mm/layout.h"
#include "smp/cpumask.h"

#define SD_BASE	     (EXPERIMENT_BASE + (16ull << 30))
#define SD_MAX_PAGES PARAM_PAGES_MAX /* pages= allows no more */

/* The pages every configuration flushes, and what the verifier saw. */
struct sd_pages {
	bool ready;
	uint8_t side[SD_MAX_PAGES];	      /* which frame page i maps */
	uint64_t frames[2][SD_MAX_PAGES];     /* tagged with their address */
	uint64_t *pte[SD_MAX_PAGES];	      /* each page's PTE slot */
	uint64_t pte_flags;		      /* the PTEs' flags */
	volatile uint64_t stale[MAX_CPUS];    /* stale reads seen, per CPU */
	volatile uint64_t stale_va[MAX_CPUS]; /* the first one's address */
};

/*
 * Maps SD_MAX_PAGES pages to frame set 0, once a boot (the budget's pilot
 * and the sweep share them); NULL if memory is out. The pages live in
 * static storage, but no CPU reaches them other than through this
 * pointer (the responders: through their cross-call argument).
 */
struct sd_pages *sd_setup(void);
void sd_flip(struct sd_pages *pg, unsigned k);
/* Every page global (PTE.G) or not; only while no CPU caches them. */
void sd_set_global(struct sd_pages *pg, bool global);

/* What the responders read: the first k of the pages. */
struct sd_reads {
	struct sd_pages *pages;
	unsigned k;
};

/* Cross-call functions; arg is a struct sd_reads. */
void sd_touch(void *reads);
void sd_verify(void *reads);

#endif
