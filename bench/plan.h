/* SPDX-License-Identifier: MIT */
/*
 * The time budget: what the experiments are cut to so that a run ends in
 * about budget_s seconds on any machine, from 4 vCPUs under TCG to a
 * 192-CPU server.
 *
 * Before the experiments run, the runner measures what the operations cost
 * here (an IPI round trip to one responder and to all, a CR3 reload, an
 * INVLPG, a page copy) and fills struct plan_in with the configured sizes.
 * plan_make() estimates each experiment's time from those costs and, where
 * the total is over budget, reduces what the user did not set, in an order
 * that keeps every experiment meaningful:
 *   shootdown  every strategy and every page count stay; the responder
 *              counts are thinned to 1, the middle one and all, then
 *              samples (and warmup with them) are cut, never below
 *              PLAN_MIN_SAMPLES;
 *   reclaim    every strategy stays; the cold region shrinks in whole PMDs
 *              (512 pages), never below one, and the hot regions with it;
 *   flushloop  every strategy and CPU count stay; the time per point
 *              shrinks, never below PLAN_MIN_DURATION_MS;
 *   primitives is small and fixed: it is counted, not cut.
 * A value the user set (samples=, reclaim_mb=, ...) is never reduced: if it
 * cannot fit, the plan says so and runs it as given.
 *
 * Portable: no hardware access, tested on the host.
 */
#ifndef BENCH_PLAN_H
#define BENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mm/pt.h"

/*
 * The CPU counts flushloop runs at, the one series: 1, 2, 4, ... and then
 * all of them (n need not be a power of two).
 */
static inline unsigned cpu_series_next(unsigned n, unsigned all)
{
	return n * 2 > all && n != all ? all : n * 2;
}

#define for_each_cpu_count(n, all) \
	for ((n) = 1; (n) <= (all); (n) = cpu_series_next((n), (all)))

#define PLAN_MIN_SAMPLES     10
#define PLAN_MIN_WARMUP	     2
#define PLAN_MIN_DURATION_MS 10
#define PLAN_NOTES_MAX	     8
#define PLAN_NOTE_LEN	     160
#define PLAN_LIST_MAX	     32

enum plan_exp {
	PLAN_PRIMITIVES,
	PLAN_SHOOTDOWN,
	PLAN_RECLAIM,
	PLAN_FLUSHLOOP,
	PLAN_EXPS
};

/* What the operations cost on this machine, in TSC cycles. */
struct plan_costs {
	uint64_t tsc_khz;      /* 0: unknown, so no planning */
	uint64_t ipi_one;      /* IPI round trip to one responder */
	uint64_t ipi_all;      /* one round to every responder */
	uint64_t ipi_all_busy; /* the same while they read memory */
	uint64_t touch;	       /* a read that misses the TLB */
	uint64_t cr3;	       /* CR3 reload */
	uint64_t invlpg;       /* INVLPG of a present entry */
	uint64_t page_copy;    /* copying one 4 KiB page */
	/* Printing one byte on the console (0: free): a UART's 87 us at 115200 */
	uint64_t console_byte;
	uint32_t responders; /* CPUs online but the initiator */
	uint32_t l2_tlb;     /* L2 TLB 4 KiB entries: the refill's sets */
};

struct plan_shootdown {
	uint32_t pages[PLAN_LIST_MAX], npages;
	uint32_t targets[PLAN_LIST_MAX], ntargets; /* resolved, ascending */
	uint32_t ipi_strategies;		   /* IPI strategies run */
	bool invlpgb;	    /* INVLPGB (or its model) runs too */
	bool invlpgb_linux; /* and invlpgb-linux (no global variant) */
	uint32_t classes;   /* extra 1-target configs by distance */
	uint32_t samples, warmup;
	bool samples_set, warmup_set, targets_set;
	/*
	 * Measured by a pilot (0: not measured, derived from struct
	 * plan_costs instead): cycles of one sample of every variant at
	 * pilot[t][k], t: 1 responder or all, k: pilot_k[k] pages, the
	 * fewest and the most of the sweep.
	 */
	uint64_t pilot[2][2];
	uint32_t pilot_k[2];
};

struct plan_reclaim {
	uint64_t cold_pages, hot_pages; /* hot: per worker */
	uint32_t workers;
	uint32_t per_page_passes; /* strategies that flush page by page */
	uint32_t batches[PLAN_LIST_MAX], nbatches; /* batched strategies */
	/*
	 * Each strategy also pages out one batch, but at least writer_pages
	 * (within the cold region), with writing workers, for the lost-write
	 * verdict (0: writers=off).
	 */
	uint32_t writer_pages;
	uint64_t duration_ms; /* the workers' baseline window per pass */
	/*
	 * Measured by a pilot, per page, in cycles (0: not measured, and
	 * derived from struct plan_costs instead): paging out with a flush
	 * per page, with one flush per 512, and setting up (cold and hot).
	 */
	uint64_t pilot_page, pilot_batch, pilot_setup;
	bool cold_set, hot_set;
	/* The runs by name and batch, as their records will say (the plan
	 * record lists them; the estimates do not use them). */
	const char *run_names[PLAN_LIST_MAX];
	uint32_t run_batches[PLAN_LIST_MAX], nruns;
};

struct plan_flushloop {
	uint32_t strategies, cpu_counts;
	uint32_t controls;    /* rounds besides them: the cross-CPU control */
	uint64_t duration_ms; /* per round: strategy and CPU count, control */
	bool duration_set;
	/* The strategies by name and the CPU counts (the plan record). */
	const char *names[PLAN_LIST_MAX];
	uint32_t cpus[PLAN_LIST_MAX];
};

struct plan {
	uint64_t budget_ms; /* 0: unlimited */
	bool run[PLAN_EXPS];
	uint64_t primitives_cycles; /* the caller's estimate */
	struct plan_shootdown sd;
	struct plan_reclaim rc;
	struct plan_flushloop fl;
	/* Out: estimates (ms) as planned, and what was done. */
	uint64_t est_ms[PLAN_EXPS];
	uint64_t total_ms;
	bool fits;
	size_t nnotes;
	char notes[PLAN_NOTES_MAX][PLAN_NOTE_LEN];
};

/* Estimated time of each experiment as p stands (cycles). */
uint64_t plan_shootdown_cycles(const struct plan_shootdown *sd,
			       const struct plan_costs *c);
uint64_t plan_reclaim_cycles(const struct plan_reclaim *rc,
			     const struct plan_costs *c);
uint64_t plan_flushloop_cycles(const struct plan_flushloop *fl,
			       const struct plan_costs *c);

/*
 * What experiment e prints (its records, table lines and ticks, as p
 * stands), at c->console_byte a byte: no reduction makes it less.
 */
uint64_t plan_output_cycles(const struct plan *p, enum plan_exp e,
			    const struct plan_costs *c);

/*
 * Reduces p (in place) to fit p->budget_ms on a machine with costs c, and
 * fills the estimates and notes. With budget 0, or no TSC rate, nothing is
 * reduced.
 */
void plan_make(struct plan *p, const struct plan_costs *c);

/* Samples of each refill series (bench/refill.c): its sets are large. */
#define PLAN_REFILL_SAMPLES 25

/*
 * primitives: a handful of local ops and round trips per distance class,
 * and the refill measurement, whose working sets are 16, c->l2_tlb and
 * twice that pages.
 */
uint64_t plan_primitives_cycles(uint32_t samples, uint32_t classes,
				const struct plan_costs *c);

/*
 * The target machine, for an estimate on paper: a 192-CPU server
 * with every distance class and INVLPGB, memory enough for reclaim's
 * largest default sizes.
 */
#define PLAN_SERVER_CPUS 192

struct plan_machine {
	uint32_t cpus;	  /* online, the initiator included */
	uint32_t classes; /* distance classes from CPU 0 (extra sweeps) */
	bool invlpgb;
	uint64_t cold_pages, hot_pages; /* reclaim, before the budget cuts */
};

/*
 * The costs of `here` on a machine of m->cpus CPUs: every operation costs
 * what it cost here, except that an IPI round grows with its targets at
 * the slope measured here between a round to one and to all responders
 * (linear: the initiator writes one ICR per target and waits for each
 * acknowledgement; where handlers run in parallel the slope is small, under
 * single-threaded TCG it is a whole handler per target). With one responder
 * here there is no slope: a round to all costs a round to one.
 */
void plan_costs_at(const struct plan_costs *here, uint32_t cpus,
		   struct plan_costs *out);

/*
 * The default suite (bench=all, every default size) on machine m with costs
 * c (from plan_costs_at), planned for budget_ms as plan_make() plans a run:
 * p->total_ms is what it would take after the cuts, *uncut_ms before them.
 * Shootdown and reclaim are costed from c, not from pilots: a pilot measured
 * this machine's CPU count.
 */
void plan_default_suite(const struct plan_machine *m,
			const struct plan_costs *c, uint64_t budget_ms,
			struct plan *p, uint64_t *uncut_ms);

/* Name of an experiment as the plan record and the notes write it. */
const char *plan_exp_name(enum plan_exp e);

#endif
