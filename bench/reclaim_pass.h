/* SPDX-License-Identifier: MIT */
/* One pass of the reclaim re-enactment: paging a region out while workers run. */
#ifndef BENCH_RECLAIM_PASS_H
#define BENCH_RECLAIM_PASS_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/params.h"
#include "bench/reclaim_counts.h"
#include "mm/layout.h"
#include "smp/cpumask.h"

struct bench_ctx;

#define RC_HOT_BASE  (EXPERIMENT_BASE + (64ull << 30))
#define RC_COLD_BASE (EXPERIMENT_BASE + (256ull << 30))
#define RC_COLD_MAX  (200ull << 30)
#define RC_HOT_SPACE (192ull << 30) /* for all hot regions together */

/* How each strategy flushes: bench/reclaim_pass.c's rc_how[]. */
enum rc_strategy {
	RC_PER_PAGE,	    /* IPI round per page, responders reload CR3 */
	RC_PER_PAGE_INVLPG, /* the same, responders INVLPG the page */
	/*
	 * Clear a batch, one flush, then write back. The flush is Linux's
	 * arch_tlbbatch_flush(): a full flush on every CPU, whatever the
	 * batch size.
	 */
	RC_BATCH,
	/* The same with flush_tlb_mm_range()'s rule: INVLPG up to 33 pages */
	RC_BATCH_PAGES,
	RC_INVLPGB_PAGE, /* INVLPGB + TLBSYNC per page */
	/* Per batch, Linux's invlpgb_flush_all_nonglobals() + TLBSYNC */
	RC_INVLPGB_BATCH,
	RC_INVLPGB_BATCH_PAGES, /* per batch, INVLPGB of its pages */
	RC_WRITEBACK_FIRST,	/* negative control: write back, then flush */
};

struct rc_run {
	enum rc_strategy s;
	unsigned batch;
	const char *name;
	bool emulated;
	/*
	 * A writer pass: the workers also write their cold pages (for the
	 * lost-write verdict), over the first batch of the cold region
	 * only (rc_pass_pages), and no loss is measured. A reader pass pages out the
	 * whole region and measures the loss of workers that only read, as
	 * the seed's did: writers would add the cost of their expected page
	 * faults.
	 */
	bool writers;
	struct rc_counts count; /* this pass's */
	/* Workers that lost a write, of those that wrote in this pass. */
	unsigned lost_workers, writing_workers;
	/*
	 * A writer pass adds the workers that lost a write to those of the
	 * previous pass (the negative control's passes).
	 */
	bool accumulate;
	unsigned passes; /* the negative control's: how many it took */
	int64_t loss_pct, loss_min, loss_median;
	uint64_t base_reads, during_reads;
	int refused_err; /* the first refused INVLPGB's error */
};

struct rc_config {
	uint64_t cold_pages; /* a multiple of 512 */
	uint64_t hot_pages;  /* per worker */
	unsigned workers;
	bool writers;
	uint64_t base_us; /* worker throughput before reclaim */
	uint64_t seed;
	uint32_t invlpgb_max_pages; /* 0: no INVLPGB */
	bool invlpgb_emulated;
	/* invlpgb=...,bug=: only stride is reclaim's (the others shootdown's) */
	enum param_invlpgb_bug bug;
	struct bench_ctx *ctx; /* progress and ticks */
	/*
	 * Progress lines and tick records while paging out (not in the
	 * pilot): pages done in earlier strategies, pages of all of them,
	 * and which strategy of how many this is.
	 */
	bool progress;
	uint64_t done, total;
	unsigned index, count;
};

/*
 * A writer pass's size: one batch, but at least RC_WRITER_PAGES. The
 * writes that can be lost are those racing the flush of the page being
 * written, which any size shows; the negative control (a batch of 512)
 * shows whether a pass of that size can see a lost write. Per-page
 * flushes under a shadow-paging hypervisor cost tens of milliseconds a
 * page, so their writer passes are kept short.
 */
#define RC_WRITER_PAGES 64

/* Buffers and the workers' hot regions, once; then the runs; then free. */
bool rc_prepare(const struct rc_config *cfg);
void rc_release(const struct rc_config *cfg);

/*
 * Maps the cold region, starts the workers, measures their throughput,
 * pages the whole region out with run->s while they run (one sample per
 * flush unit into samples), stops them and counts lost writes.
 */
bool rc_run_strategy(const struct rc_config *cfg, struct rc_run *run,
		     uint64_t *samples);
/* Cold pages a pass of run maps and pages out. */
uint64_t rc_pass_pages(const struct rc_config *cfg, const struct rc_run *run);

#endif
