/* SPDX-License-Identifier: MIT */
/* One pass of the reclaim re-enactment: paging a region out while workers run. */
#ifndef BENCH_RECLAIM_PASS_H
#define BENCH_RECLAIM_PASS_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/params.h"
#include "bench/reclaim_counts.h"
#include "bench/role.h"
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

/* One strategy as the experiment runs it: a row of a const table. */
struct rc_kind {
	enum rc_strategy s;
	unsigned batch; /* pages per flush unit (1: a flush per page) */
	const char *name;
	enum result_role role; /* for the findings (bench/role.h) */
};

/* Whether kind's flushes are IPI rounds (not INVLPGB). */
static inline bool rc_uses_ipis(const struct rc_kind *kind)
{
	return kind->s != RC_INVLPGB_PAGE && kind->s != RC_INVLPGB_BATCH &&
	       kind->s != RC_INVLPGB_BATCH_PAGES;
}

/* One run of a kind, and what it found. */
struct rc_run {
	const struct rc_kind *kind;
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
	bool ran;		/* it ran to its record */
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
	/*
	 * From the timeline (bench/reclaim_timeline.h): loss_pct's 95%
	 * interval over bins, and the loss in the window after the page-out
	 * against the one before, with its own; each only where valid.
	 */
	bool timeline, loss_ci, after_ci, after_est;
	int64_t loss_lo, loss_hi, after_loss, after_lo, after_hi;
	/* The batch means under loss_lo/hi: the fewer windows' (rc_tl_loss) */
	uint64_t loss_blocks, loss_eff_bins;
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
};

/*
 * Progress lines and tick records while paging out (not in the pilot):
 * pages done in earlier passes, pages of all of them, and which pass of
 * how many this is.
 */
struct rc_progress {
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

/* What a pass shares with its workers (bench/reclaim_state.h). */
struct rc_state;

/*
 * Buffers and the workers' hot regions in st, for cfg (copied), once;
 * then the runs; then free.
 */
/* The strategies in the order they run (*n of them), and the control. */
const struct rc_kind *rc_kinds(size_t *n);
const struct rc_kind *rc_control_kind(void);

bool rc_prepare(struct rc_state *st, const struct rc_config *cfg);
void rc_release(struct rc_state *st);

/*
 * Maps the cold region, starts the workers, warms their TLBs up and
 * measures their throughput,
 * pages the region out with run->kind while they run (one sample per
 * flush unit into samples), stops them and counts lost writes. With
 * progress (NULL in the pilot), prints progress lines and tick records.
 */
bool rc_run_strategy(struct rc_state *st, struct rc_run *run,
		     const struct rc_progress *progress, uint64_t *samples);
/* Cold pages a pass of run maps and pages out. */
uint64_t rc_pass_pages(const struct rc_config *cfg, const struct rc_run *run);

#endif
