/* SPDX-License-Identifier: MIT */
/*
 * The experiments and their runner (bench/runner.c), and the shared pieces
 * every experiment uses: measure.h (the timer's cost, sample buffers),
 * result.h (records), progress.h (text, progress, ticks) and
 * invlpgb_policy.h. Measurement is kept apart from processing (sel4bench):
 * timed regions only store raw TSC deltas into buffers allocated
 * beforehand; statistics, records and tables come after.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/params.h"
#include "bench/plan.h"
#include "bench/invlpgb_policy.h"
#include "bench/measure.h"
#include "bench/progress.h"
#include "bench/result.h"
#include "bench/stats.h"
#include "kernel/config.h"

struct experiment {
	const char *name;
	const char *desc;
	void (*run)(void);
};

extern const struct experiment experiments[];
extern const size_t nr_experiments;

/* Parameters of this run, parsed from the command line. */
extern struct bench_params bench_params;

/*
 * Parses the experiments' parameters and, with invlpgb=emulate on a CPU
 * without INVLPGB, installs the software model: before the tlb: checks,
 * which run INVLPGB through it too (bench_invlpgb_model() says whether).
 */
void bench_init(const struct config *cfg);
/*
 * Runs the experiments that bench= selects, in table order, then removes
 * the model if bench_init installed it.
 */
void bench_run(const struct config *cfg);

/* Prints a parameter diagnostic as an INFO line (struct param_diag). */
void bench_diag(void *ctx, const char *msg);

/* What each experiment will run, for the time budget (bench/plan.h). */
void reclaim_plan_shape(struct plan_reclaim *p);
/* Measures what a page costs reclaim here, per page and batched. */
void reclaim_pilot(struct plan_reclaim *p);
void flushloop_plan_shape(struct plan_flushloop *p);

#endif
