// SPDX-License-Identifier: MIT
/* shootdown: the command line's parameters turned into a sweep. */
#include "bench/bench.h"
#include "bench/sweep.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "bench/invlpgb_emul.h"
#include "bench/shootdown.h"

static void diag_info(void *ctx, const char *msg)
{
	(void)ctx;
	report_info("%s", msg);
}

/* Whether and how INVLPGB runs; sets sw->invlpgb_skip when it does not. */
static void choose_invlpgb(struct sd_sweep *sw)
{
	const struct param_invlpgb *p = &bench_params.invlpgb;
	int vec;

	sw->bug_count = p->bug == PARAM_BUG_COUNT;
	if (p->mode == PARAM_INVLPGB_OFF) {
		sw->invlpgb_skip = "turned off by invlpgb=off";
	} else if (cpu_info.invlpgb) {
		sw->invlpgb_max_pages = cpu_info.invlpgb_max_pages;
	} else if (p->mode == PARAM_INVLPGB_EMULATE) {
		invlpgb_emul_enable();
		sw->invlpgb_emulated = true;
		/* The model takes any count; use a small maximum so that
		 * chunking is exercised as on Zen 4 (8 pages). */
		sw->invlpgb_max_pages = 8;
	} else if (p->mode == PARAM_INVLPGB_FORCE) {
		/* Run it anyway, as asked: the #UD is caught and reported. */
		vec = invlpgb_safe(0x5, 0, 0); /* VA 0, ASID 0, one page */
		if (!vec)
			vec = tlbsync_safe();
		report_check(!vec, "shootdown: invlpgb=force",
			     "INVLPGB/TLBSYNC raised vector %d (%s)", vec,
			     cpu_info.invlpgb_cpuid ? "running under a "
						      "hypervisor"
						    : "not supported by this "
						      "CPU");
		sw->invlpgb_skip = "INVLPGB is not executable here";
	} else {
		sw->invlpgb_skip = cpu_info.invlpgb_cpuid
					   ? "running under a hypervisor"
					   : "not supported by this CPU "
					     "(CPUID Fn8000_0008 EBX[3])";
	}
}

static void build_lists(struct sd_sweep *sw, unsigned responders)
{
	struct param_diag d = {diag_info, NULL};
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

void shootdown_run(void)
{
	static struct sd_sweep sw;
	unsigned responders = cpumask_count(&cpus_online) - 1;

	sw = (struct sd_sweep){.samples = bench_params.samples,
			       .warmup = bench_params.warmup,
			       .seed = bench_params.seed};
	if (!responders) {
		report_skip("shootdown", "needs at least 2 cpus online");
		return;
	}
	build_lists(&sw, responders);
	choose_invlpgb(&sw);
	if (!sw.npages || !sw.ntargets) {
		report_skip("shootdown", "no page count or target count left "
					 "to run");
		return;
	}
	shootdown_sweep(&sw);
	if (sw.invlpgb_emulated)
		invlpgb_emul_disable();
}
