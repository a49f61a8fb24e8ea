/* SPDX-License-Identifier: MIT */
/*
 * What reclaim's passes share: with the workers, which reach it only
 * through their background work's argument (struct rc_worker), and on
 * CPU 0 from one pass to the next. reclaim.c holds the one instance; the
 * pass files take it as an argument.
 */
#ifndef BENCH_RECLAIM_STATE_H
#define BENCH_RECLAIM_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/progress.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_timeline.h"
#include "mm/invlpgb.h"
#include "mm/layout.h"
#include "mm/pt.h"
#include "smp/cpumask.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define RC_INSNS 512 /* a batch of 512 pages, one page per INVLPGB at worst */

struct rc_state;

/* One worker: its own part of the state, and the pass it works for. */
struct rc_worker {
	volatile uint64_t reads;
	volatile uint64_t page;	  /* the cold page it writes now */
	volatile uint64_t writes; /* writes that went through, so far */
	unsigned index;
	uint64_t seed;
	struct rc_state *st;
} __attribute__((aligned(CACHELINE)));

struct rc_state {
	/* Read by the workers too. */
	struct rc_config cfg;
	volatile bool stop;
	bool writing;	      /* this pass's workers write their cold pages */
	uint64_t pass_pages;  /* cold pages this pass maps and pages out */
	uint64_t hot_stride;  /* bytes between two workers' regions */
	uint64_t *last_write; /* last successful value, per cold page */
	struct rc_worker workers[MAX_CPUS];

	/* CPU 0's alone. */
	uint64_t *cold_frame; /* frame of each cold page while mapped */
	uint64_t swap_pa;     /* swap area: one frame per cold page */
	uint64_t **cold_pt;   /* the cold region's page tables, per 2 MiB */
	struct cpumask others;
	struct bg_group worker_group;
	const struct rc_progress *progress; /* this pass's, or NULL */
	struct rc_tl *tl; /* the reader passes' timeline, or NULL (pilot) */
	uint64_t snap[3][MAX_CPUS]; /* reads: start, baseline, paged out */
	uint64_t tick_reads[BENCH_TICK_CPUS]; /* at the last tick */
	uint64_t tick_icr0;		      /* IPIs sent before page_out */
	struct invlpgb_regs insn[RC_INSNS];   /* a flush's INVLPGBs */
	bool lost_by[MAX_CPUS];		      /* worker w lost a write */
};

static inline uint64_t rc_cold_va(uint64_t p)
{
	return RC_COLD_BASE + p * PAGE_SIZE;
}

static inline uint64_t rc_hot_va(const struct rc_state *st, unsigned w,
				 uint64_t off)
{
	return RC_HOT_BASE + w * st->hot_stride + off;
}

static inline uint64_t *rc_cold_pte(const struct rc_state *st, uint64_t p)
{
	return st->cold_pt[p / PT_ENTRIES] + p % PT_ENTRIES;
}

/* Fresh frames for this pass's cold pages (bench/reclaim_region.c). */
bool rc_map_cold(struct rc_state *st);

/*
 * The workers (bench/reclaim_workers.c): started on every CPU but 0 with
 * their slots of st as argument, and stopped; snapshot k (0: started, 1:
 * after the baseline, 2: paged out) of their reads, and the loss between
 * the baseline and paging out, into run.
 */
void rc_workers_start(struct rc_state *st);
void rc_workers_stop(struct rc_state *st);
void rc_workers_snapshot(struct rc_state *st, int k);
void rc_workers_loss(const struct rc_state *st, struct rc_run *run,
		     uint64_t base_cyc, uint64_t dur_cyc);

#endif
