// SPDX-License-Identifier: MIT
/* shootdown: the experiment: its parameters turned into a sweep. */
#include "bench/bench.h"
#include "bench/options.h"
#include "bench/shootdown_sweep.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "bench/shootdown_pages.h"

/*
 * The sweep's lists from the parameters: the run's and the time budget's
 * (shootdown_plan_shape) one way. d: where targets= problems are said
 * (NULL: the plan's look, the run says them).
 */
static void build_lists(struct sd_config *sw, const struct bench_params *p,
			const struct cmdline_list *targets, unsigned responders,
			const struct diag_sink *d)
{
	struct cmdline_list t;

	for (uint32_t i = 0; i < p->pages.n; i++) /* 1..SD_MAX_PAGES */
		sw->pages[sw->npages++] = p->pages.v[i];
	params_resolve_targets(targets, responders, &t, d);
	for (uint32_t i = 0; i < t.n && i < SWEEP_MAX; i++)
		sw->targets[sw->ntargets++] = t.v[i];
	for (uint32_t i = 0; i < p->strategies.n; i++)
		sw->strategy[p->strategies.v[i]] = true;
}

/* delay_handler=: a test aid, said out loud so no one takes its times. */
static void shootdown_delay(struct sd_config *sw, const struct param_delay *d)
{
	if (!d->on)
		return;
	if (strategy_is_invlpgb((int)d->strategy)) {
		report_info("shootdown: delay_handler: %s has no responder "
			    "handler: no delay",
			    strategy_names[d->strategy]);
		return;
	}
	sw->delay_strategy = (enum strategy)d->strategy;
	sw->delay_cycles = d->cycles;
	report_info("shootdown: delay_handler: every %s responder handler "
		    "busy-waits %llu cycles (a test aid: its records carry "
		    "delay_cycles)",
		    strategy_names[d->strategy], (unsigned long long)d->cycles);
}

void shootdown_run(const struct bench_params *p, struct bench_ctx *ctx)
{
	unsigned responders = cpumask_count(&cpus_online) - 1;
	struct sd_config sw = {.samples = ctx->size.sd_samples,
			       .warmup = ctx->size.sd_warmup,
			       .seed = p->seed,
			       .handler_timing = p->handler_timing,
			       .bug = p->invlpgb.bug,
			       .inject_nmi = p->inject_nmi,
			       .inject_oom = p->inject_oom,
			       .ctx = ctx};

	if (!responders) {
		report_skip("shootdown", "needs at least 2 cpus online");
		return;
	}
	struct diag_sink d = {bench_diag, NULL};

	build_lists(&sw, p, &ctx->size.sd_targets, responders, &d);
	shootdown_delay(&sw, &p->delay);
	sw.invlpgb_max_pages =
		bench_invlpgb(&ctx->invlpgb, "shootdown", &sw.invlpgb_emulated);
	if (!sw.npages || !sw.ntargets) {
		report_skip("shootdown", "no page count or target count left "
					 "to run");
		return;
	}
	shootdown_sweep(&sw);
}

/* The time budget's hooks (struct experiment). */
void shootdown_plan_shape(const struct bench_params *p,
			  const struct bench_ctx *ctx,
			  const struct plan_costs *costs, struct plan *plan)
{
	struct plan_shootdown *sd = &plan->sd;
	struct sd_config sw = {0};

	build_lists(&sw, p, &p->targets, costs->responders, NULL);
	for (uint32_t i = 0; i < sw.npages && i < PLAN_LIST_MAX; i++)
		sd->pages[sd->npages++] = sw.pages[i];
	for (uint32_t i = 0; i < sw.ntargets && i < PLAN_LIST_MAX; i++)
		sd->targets[sd->ntargets++] = sw.targets[i];
	for (int s = 0; s < S_COUNT; s++) {
		if (!sw.strategy[s])
			continue;
		if (s == S_INVLPGB)
			sd->invlpgb = bench_invlpgb_planned(&ctx->invlpgb);
		else if (s == S_INVLPGB_LINUX)
			sd->invlpgb_linux =
				bench_invlpgb_planned(&ctx->invlpgb);
		else
			sd->ipi_strategies++;
	}
	sd->classes = smp_classes_present();
	sd->samples = p->samples;
	sd->warmup = p->warmup;
	sd->samples_set = bench_given(p, "samples");
	sd->warmup_set = bench_given(p, "warmup");
	sd->targets_set = bench_given(p, "targets");
}

/* The pilot over the fewest and the most pages of the sweep. */
void shootdown_plan_pilot(const struct bench_params *p, struct bench_ctx *ctx,
			  struct plan *plan)
{
	struct plan_shootdown *sd = &plan->sd;
	struct sd_config sw = {.handler_timing = p->handler_timing, .ctx = ctx};

	if (!sd->npages)
		return;
	sd->pilot_k[0] = sd->pilot_k[1] = sd->pages[0];
	for (uint32_t i = 0; i < sd->npages; i++) {
		if (sd->pages[i] < sd->pilot_k[0])
			sd->pilot_k[0] = sd->pages[i];
		if (sd->pages[i] > sd->pilot_k[1])
			sd->pilot_k[1] = sd->pages[i];
	}
	for (uint32_t i = 0; i < p->strategies.n; i++)
		sw.strategy[p->strategies.v[i]] = true;
	sw.invlpgb_max_pages = bench_invlpgb_planned_pages(&ctx->invlpgb);
	if (!shootdown_pilot(&sw, sd->pilot_k, sd->pilot))
		sd->pilot[0][0] = 0; /* derive it instead */
}
