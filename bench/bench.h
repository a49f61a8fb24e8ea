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

/*
 * The sizes the experiments run with: the parameters', or what the time
 * budget cut them to where the user did not set them (bench/budget.c).
 */
struct bench_sizes {
	uint32_t sd_samples, sd_warmup; /* shootdown */
	struct cmdline_list sd_targets; /* shootdown, unresolved */
	uint64_t reclaim_mb, hot_mb;	/* 0: from free RAM */
	uint64_t flushloop_ms;
};

/*
 * Everything an experiment runs with besides its parameters, handed to it
 * by the runner (as kvm-unit-tests' vmexit tests and sel4bench's
 * benchmarks get theirs): nothing an experiment needs is a global.
 */
struct bench_ctx {
	struct bench_sizes size;
	struct invlpgb_policy invlpgb; /* which INVLPGB, if any */
	struct bench_progress progress;
	struct result_sink records; /* the timer's overhead, raw=, ... */
};

struct experiment {
	const char *name;
	const char *desc;
	void (*run)(const struct bench_params *p, struct bench_ctx *ctx);
	/*
	 * For the time budget (bench/budget.c), before any experiment runs,
	 * in table order, each pilot right after its shape. plan_shape fills
	 * the experiment's part of *plan: what it will run, as it will run
	 * it, and which of its sizes the user set (costs: what the
	 * operations cost here). pilot, where what the experiment costs is
	 * better measured than derived from the costs, runs a little of it,
	 * recorded nowhere (only with a budget, and if it is selected).
	 * NULL: nothing to say.
	 */
	void (*plan_shape)(const struct bench_params *p,
			   const struct bench_ctx *ctx,
			   const struct plan_costs *costs, struct plan *plan);
	void (*pilot)(const struct bench_params *p, struct bench_ctx *ctx,
		      struct plan *plan);
};

extern const struct experiment experiments[];
extern const size_t nr_experiments;

/*
 * Takes the experiments' parameters (parsed with the command line,
 * bench/options.h) and, with invlpgb=emulate on a CPU without INVLPGB,
 * installs the software model: before the tlb: checks, which run INVLPGB
 * through it too (bench_invlpgb_model() says whether).
 */
void bench_init(const struct config *cfg, const struct bench_params *p);
/* Whether bench_init installed the INVLPGB software model. */
bool bench_invlpgb_model(void);
/*
 * Runs the experiments that bench= selects, in table order, then removes
 * the model if bench_init installed it.
 */
void bench_run(void);

/* Prints a parameter diagnostic as an INFO line (struct diag_sink). */
void bench_diag(void *ctx, const char *msg);

/* The experiments' entry points: bench/runner.c's table. */
void primitives_run(const struct bench_params *p, struct bench_ctx *ctx);
void shootdown_run(const struct bench_params *p, struct bench_ctx *ctx);
void reclaim_run(const struct bench_params *p, struct bench_ctx *ctx);
void flushloop_run(const struct bench_params *p, struct bench_ctx *ctx);

/* Their hooks for the time budget (struct experiment). */
void primitives_plan_shape(const struct bench_params *p,
			   const struct bench_ctx *ctx,
			   const struct plan_costs *costs, struct plan *plan);
void shootdown_plan_shape(const struct bench_params *p,
			  const struct bench_ctx *ctx,
			  const struct plan_costs *costs, struct plan *plan);
void shootdown_plan_pilot(const struct bench_params *p, struct bench_ctx *ctx,
			  struct plan *plan);
void reclaim_plan_shape(const struct bench_params *p,
			const struct bench_ctx *ctx,
			const struct plan_costs *costs, struct plan *plan);
void reclaim_plan_pilot(const struct bench_params *p, struct bench_ctx *ctx,
			struct plan *plan);
void flushloop_plan(const struct bench_params *p, const struct bench_ctx *ctx,
		    const struct plan_costs *costs, struct plan *plan);

/* What flushloop will run (flushloop_run() sizes its progress by it). */
void flushloop_plan_shape(const struct bench_ctx *ctx,
			  struct plan_flushloop *out);

#endif
