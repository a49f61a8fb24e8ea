// SPDX-License-Identifier: MIT
/*
 * The experiment table and the run loop: parameters in, each selected
 * experiment in table order, the time budget around them.
 */
#include "bench/bench.h"
#include "bench/budget.h"
#include "bench/protocol_overhead.h"
#include "bench/shootdown_sweep.h"
#include "kernel/report.h"
#include "kernel/x86.h"

void primitives_run(void);
void shootdown_run(void);
void reclaim_run(void);
void flushloop_run(void);

const struct experiment experiments[] = {
	{"primitives", "cost of each building block", primitives_run},
	{"shootdown", "IPI shootdown vs INVLPGB, swept over pages and cpus",
	 shootdown_run},
	{"reclaim", "paging out with per-page vs PMD-batched flushes",
	 reclaim_run},
	{"flushloop", "unmap + flush + remap loops on 1, 2, 4, ... cpus",
	 flushloop_run},
};
const size_t nr_experiments = sizeof(experiments) / sizeof(experiments[0]);
/* The time budget (bench/plan.h) knows them by the same index. */
_Static_assert(sizeof(experiments) / sizeof(experiments[0]) == PLAN_EXPS,
	       "the experiment table and enum plan_exp differ");

struct bench_params bench_params;

void bench_diag(void *ctx, const char *msg)
{
	(void)ctx;
	report_info("%s", msg);
}

static bool selected(size_t idx)
{
	for (uint32_t i = 0; i < bench_params.bench.n; i++)
		if (bench_params.bench.v[i] == idx)
			return true;
	return false;
}

static size_t nr_selected(void)
{
	size_t n = 0;

	for (size_t i = 0; i < nr_experiments; i++)
		n += selected(i);
	return n;
}

void bench_init(const struct config *cfg)
{
	struct param_names benches = PARAM_NAMES_FIELD(experiments, name);
	struct param_names strategies = PARAM_NAMES_ARRAY(strategy_names);
	struct param_diag d = {bench_diag, NULL};

	bench_text(cfg->output != OUTPUT_JSON);
	params_from_config(cfg, &benches, &strategies, &bench_params, &d);
	bench_invlpgb_init();
}

void bench_run(const struct config *cfg)
{
	bool run[PLAN_EXPS];

	report_info("bench: timer overhead %llu cycles (subtracted)",
		    (unsigned long long)bench_overhead());
	for (size_t i = 0; i < nr_experiments; i++)
		run[i] = selected(i);
	if (nr_selected())
		budget_plan(cfg, run);
	for (size_t i = 0; i < nr_experiments; i++) {
		uint64_t t0 = rdtsc();

		if (!run[i])
			continue;
		report_info("bench: %s: %s", experiments[i].name,
			    experiments[i].desc);
		bench_progress_begin();
		experiments[i].run();
		budget_account((enum plan_exp)i, rdtsc() - t0);
	}
	if (nr_selected())
		budget_report();
	protocol_overhead_report();
	bench_invlpgb_fini();
}
