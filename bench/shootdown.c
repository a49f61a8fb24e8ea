// SPDX-License-Identifier: MIT
/* shootdown: the experiment: its parameters turned into a sweep. */
#include "bench/bench.h"
#include "bench/shootdown_sweep.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "bench/shootdown_pages.h"

static void build_lists(struct sd_sweep *sw, unsigned responders)
{
	struct param_diag d = {bench_diag, NULL};
	struct param_list t;

	for (uint32_t i = 0; i < bench_params.pages.n; i++) {
		if (bench_params.pages.v[i] > SD_MAX_PAGES) {
			report_info("shootdown: pages=%u is more than the %u "
				    "this experiment maps: left out",
				    bench_params.pages.v[i], SD_MAX_PAGES);
			continue;
		}
		sw->pages[sw->npages++] = bench_params.pages.v[i];
	}
	params_resolve_targets(&bench_params.targets, responders, &t, &d);
	for (uint32_t i = 0; i < t.n && i < SWEEP_MAX; i++)
		sw->targets[sw->ntargets++] = t.v[i];
	for (uint32_t i = 0; i < bench_params.strategies.n; i++)
		sw->strategy[bench_params.strategies.v[i]] = true;
}

/* delay_handler=: a test aid, said out loud so no one takes its times. */
static void shootdown_delay(struct sd_sweep *sw)
{
	const struct param_delay *d = &bench_params.delay;

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

void shootdown_run(void)
{
	static struct sd_sweep sw;
	unsigned responders = cpumask_count(&cpus_online) - 1;

	sw = (struct sd_sweep){.samples = bench_params.shootdown_samples,
			       .warmup = bench_params.shootdown_warmup,
			       .seed = bench_params.seed,
			       .handler_timing = bench_params.handler_timing};
	if (!responders) {
		report_skip("shootdown", "needs at least 2 cpus online");
		return;
	}
	build_lists(&sw, responders);
	sw.bug = bench_params.invlpgb.bug;
	shootdown_delay(&sw);
	sw.invlpgb_max_pages = bench_invlpgb("shootdown", &sw.invlpgb_emulated);
	if (!sw.npages || !sw.ntargets) {
		report_skip("shootdown", "no page count or target count left "
					 "to run");
		return;
	}
	shootdown_sweep(&sw);
}
