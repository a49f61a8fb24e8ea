// SPDX-License-Identifier: MIT
/*
 * The time budget's hooks (struct experiment's plan_shape and pilot) of
 * primitives, shootdown and flushloop; reclaim's are in reclaim.c.
 * Shootdown exports no shape of its own yet: shootdown_plan_shape()
 * resolves its lists as shootdown.c's build_lists() does, and belongs
 * there (with the pilot's sd_config), where one function can serve both.
 */
#include "bench/bench.h"
#include "bench/options.h"
#include "bench/shootdown_sweep.h"
#include "smp/smp.h"
#include "smp/topology.h"

/* Distance classes from CPU 0 that have a CPU: a sweep or a row each. */
static uint32_t distance_classes(void)
{
	uint32_t n = 0;

	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++)
		n += smp_cpu_in_class((enum topo_class)k) != 0;
	return n;
}

/* A handful of local ops and round trips per class: counted, not cut. */
void primitives_plan_shape(const struct bench_params *p,
			   const struct bench_ctx *ctx,
			   const struct plan_costs *costs, struct plan *plan)
{
	(void)ctx;
	plan->primitives_cycles =
		plan_primitives_cycles(p->samples, distance_classes(), costs);
}

void shootdown_plan_shape(const struct bench_params *p,
			  const struct bench_ctx *ctx,
			  const struct plan_costs *costs, struct plan *plan)
{
	struct plan_shootdown *sd = &plan->sd;
	struct param_list t;

	for (uint32_t i = 0; i < p->pages.n; i++)
		sd->pages[sd->npages++] = p->pages.v[i];
	params_resolve_targets(&p->targets, costs->responders, &t, NULL);
	for (uint32_t i = 0; i < t.n && i < PLAN_LIST_MAX; i++)
		sd->targets[sd->ntargets++] = t.v[i];
	for (uint32_t i = 0; i < p->strategies.n; i++) {
		if (p->strategies.v[i] == S_INVLPGB)
			sd->invlpgb = bench_invlpgb_planned(&ctx->invlpgb);
		else
			sd->ipi_strategies++;
	}
	sd->classes = distance_classes();
	sd->samples = p->samples;
	sd->warmup = p->warmup;
	sd->samples_set = bench_given(p, "samples");
	sd->warmup_set = bench_given(p, "warmup");
	sd->targets_set = bench_given(p, "targets");
}

/* The shootdown pilot over the fewest and the most pages of the sweep. */
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

/* flushloop's own shape, and whether the user set its time per point. */
void flushloop_plan(const struct bench_params *p, const struct bench_ctx *ctx,
		    const struct plan_costs *costs, struct plan *plan)
{
	(void)costs;
	flushloop_plan_shape(ctx, &plan->fl);
	plan->fl.duration_set = bench_given(p, "duration_ms");
}
