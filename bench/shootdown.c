// SPDX-License-Identifier: MIT
/* shootdown: the experiment: its parameters turned into a sweep. */
#include "bench/bench.h"
#include "bench/shootdown_sweep.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "bench/shootdown_pages.h"

static void build_lists(struct sd_config *sw, const struct bench_params *p,
			const struct param_list *targets, unsigned responders)
{
	struct diag_sink d = {bench_diag, NULL};
	struct param_list t;

	for (uint32_t i = 0; i < p->pages.n; i++) /* 1..SD_MAX_PAGES */
		sw->pages[sw->npages++] = p->pages.v[i];
	params_resolve_targets(targets, responders, &t, &d);
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
	if (d->strategy == S_INVLPGB) {
		report_info(
			"shootdown: delay_handler: invlpgb has no responder "
			"handler: no delay");
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
	build_lists(&sw, p, &ctx->size.sd_targets, responders);
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
