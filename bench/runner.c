// SPDX-License-Identifier: MIT
/*
 * The experiment table and the run loop: parameters in, each selected
 * experiment in table order, the time budget around them.
 */
#include "bench/bench.h"
#include "bench/budget.h"
#include "bench/ceiling_run.h"
#include "bench/inject.h"
#include "bench/options.h"
#include "bench/protocol_overhead.h"
#include "bench/shootdown_sweep.h"
#include "bench/vocabulary.h"
#include "kernel/report.h"
#include "kernel/smi.h"
#include "kernel/x86.h"
#include "smp/concurrency.h"
#include "smp/smp.h"

const struct experiment experiments[] = {
	{"primitives", "cost of each building block", primitives_run,
	 primitives_plan_shape, NULL},
	{"shootdown", "IPI shootdown vs INVLPGB, swept over pages and cpus",
	 shootdown_run, shootdown_plan_shape, shootdown_plan_pilot},
	{"reclaim", "paging out with per-page vs PMD-batched flushes",
	 reclaim_run, reclaim_plan_shape, reclaim_plan_pilot},
	{"flushloop", "unmap + flush + remap loops on 1, 2, 4, ... cpus",
	 flushloop_run, flushloop_plan, NULL},
};
const size_t nr_experiments = sizeof(experiments) / sizeof(experiments[0]);
/*
 * The time budget (bench/plan.h) and bench= (bench/options.c) know them
 * by the same index.
 */
_Static_assert(sizeof(experiments) / sizeof(experiments[0]) == PLAN_EXPS,
	       "the experiment table and enum plan_exp differ");
_Static_assert(sizeof(experiments) / sizeof(experiments[0]) ==
		       sizeof(bench_names) / sizeof(bench_names[0]),
	       "the experiment table and bench_names differ");

/* What the command line asked for; what the run makes of it. */
static struct bench_params params;
static struct bench_ctx ctx;

void bench_diag(void *ctx, const char *msg)
{
	(void)ctx;
	report_info("%s", msg);
}

static bool selected(size_t idx)
{
	for (uint32_t i = 0; i < params.bench.n; i++)
		if (params.bench.v[i] == idx)
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

void bench_init(const struct config *cfg, const struct bench_params *p)
{
	params = *p;
	bench_options_from_kernel(&params, cfg);
	bench_text(cfg->output != OUTPUT_JSON);
	bench_invlpgb_init(&ctx.invlpgb, params.invlpgb.mode);
}

bool bench_invlpgb_model(void)
{
	return ctx.invlpgb.model_on;
}

/* The sizes as configured, for the time budget to cut. */
static void sizes_from_params(const struct bench_params *p,
			      struct bench_sizes *s)
{
	*s = (struct bench_sizes){.sd_samples = p->samples,
				  .sd_warmup = p->warmup,
				  .sd_targets = p->targets,
				  .reclaim_mb = p->reclaim_mb,
				  .hot_mb = p->hot_mb,
				  .flushloop_ms = p->duration_ms};
}

void bench_run(void)
{
	bool run[PLAN_EXPS], ap_fault;

	ctx.records.overhead = bench_overhead();
	ctx.records.raw = params.raw;
	sizes_from_params(&params, &ctx.size);
	vocabulary_record(); /* every run: the host reads its lists here */
	report_info("bench: timer overhead %llu cycles (subtracted)",
		    (unsigned long long)ctx.records.overhead);
	for (size_t i = 0; i < nr_experiments; i++)
		run[i] = selected(i);
	if (nr_selected())
		budget_plan(&params, run, &ctx);
	ap_fault = inject_ap_fault(&params);
	for (size_t i = 0; i < nr_experiments; i++) {
		uint64_t t0 = rdtsc(), smi0;
		struct smi_tally smi;

		if (!run[i])
			continue;
		report_info("bench: %s: %s", experiments[i].name,
			    experiments[i].desc);
		inject_ap_announce(experiments[i].name);
		bench_progress_begin(&ctx.progress);
		smi_tally_start(&smi); /* an SMI is a caveat of its timings */
		smi0 = smi_read(&smi);
		experiments[i].run(&params, &ctx);
		smi_tally_add(&smi, smi0, smi_read(&smi));
		smi_record(experiments[i].name, &smi);
		budget_account((enum plan_exp)i, rdtsc() - t0);
	}
	/*
	 * Again, before the ceiling's and the findings' caveats: the host's
	 * load moves within a minute, and taking turns at either probe is
	 * the caveat (bench/caveats.h). Not where a CPU was made to fault
	 * or hang on purpose: it may not answer.
	 */
	if (nr_selected() && !ap_fault)
		smp_probe_concurrency(CONCURRENCY_EXPERIMENTS);
	if (nr_selected())
		budget_report();
	protocol_overhead_report(&ctx.records.po);
	ceiling_report(&ctx.records);
	nmi_report();
	xcall_lost_report();
	if (ap_fault)
		inject_ap_check(&params);
	if (nr_selected())
		findings_report(&ctx.records.findings,
				&ctx.records.ceiling_decision);
	bench_invlpgb_fini(&ctx.invlpgb);
}
