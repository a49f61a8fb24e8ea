// SPDX-License-Identifier: MIT
/*
 * The time budget's estimates (bench/plan.h): what each experiment costs
 * at given sizes, from the costs measured here or from the pilots, and
 * those costs carried to another CPU count.
 */
#include "bench/flush_how.h"
#include "bench/plan.h"
#include "bench/plan_cost.h"
#include "bench/reclaim_windows.h"

/* One IPI round to t responders: between the measured 1 and all. */
static uint64_t round_cycles(const struct plan_costs *c, uint32_t t)
{
	if (c->responders <= 1 || t <= 1 || c->ipi_all <= c->ipi_one)
		return t >= c->responders ? c->ipi_all : c->ipi_one;
	if (t >= c->responders)
		return c->ipi_all;
	return c->ipi_one +
	       (c->ipi_all - c->ipi_one) * (t - 1) / (c->responders - 1);
}

/*
 * How many responders' handlers run one after the other rather than side
 * by side: 1 where a round to all costs what a round to one does
 * (hardware), up to all of them where it costs that many times more
 * (single-threaded TCG runs one vCPU at a time).
 */
static uint64_t serial_factor(const struct plan_costs *c)
{
	uint64_t f = c->ipi_one ? c->ipi_all / c->ipi_one : 1;

	if (f < 1)
		f = 1;
	return f > c->responders ? c->responders : f;
}

/* One sample of every variant at k pages and t responders. */
static uint64_t sd_sample_cycles(const struct plan_shootdown *sd,
				 const struct plan_costs *c, uint32_t k,
				 uint32_t t)
{
	uint64_t rt = round_cycles(c, t), sum = 0;
	/* Each IPI strategy also runs with the all-but-self shorthand. */
	uint32_t modes = t >= c->responders ? 2 : 1;
	/*
	 * Warm the responders' TLBs and verify afterwards: two rounds in
	 * which each responder reads the k pages, side by side or (where
	 * rounds are serial) one responder after the other.
	 */
	uint64_t side = t < serial_factor(c) ? t : serial_factor(c);
	uint64_t around = 2 * (rt + (uint64_t)k * side * c->touch);

	/* ipi-page is the first strategy: k rounds; the others, one each. */
	if (sd->ipi_strategies) {
		sum += modes * (around + (uint64_t)k * rt);
		sum += (uint64_t)modes * (sd->ipi_strategies - 1) *
		       (around + rt + (uint64_t)k * c->invlpg);
	}
	/* Each INVLPGB strategy: the initiator's share, as an INVLPG each. */
	sum += (uint64_t)(sd->invlpgb + sd->invlpgb_linux) *
	       (around + (uint64_t)k * c->invlpg);
	return sum;
}

/* Between a and b as x goes from x0 to x1 (x0 <= x <= x1). */
static uint64_t lerp(uint64_t a, uint64_t b, uint64_t x, uint64_t x0,
		     uint64_t x1)
{
	if (x1 <= x0 || x <= x0)
		return a;
	if (x >= x1)
		return b;
	return b >= a ? a + (b - a) * (x - x0) / (x1 - x0)
		      : a - (a - b) * (x - x0) / (x1 - x0);
}

/* One sample of every variant, from the pilot's four corners. */
static uint64_t sd_pilot_cycles(const struct plan_shootdown *sd,
				const struct plan_costs *c, uint32_t k,
				uint32_t t)
{
	uint32_t k0 = sd->pilot_k[0], k1 = sd->pilot_k[1];
	uint64_t one = lerp(sd->pilot[0][0], sd->pilot[0][1], k, k0, k1);
	uint64_t all = lerp(sd->pilot[1][0], sd->pilot[1][1], k, k0, k1);

	return lerp(one, all, t, 1, c->responders);
}

static uint64_t sd_cycles(const struct plan_shootdown *sd,
			  const struct plan_costs *c, uint32_t k, uint32_t t)
{
	return sd->pilot[0][0] ? sd_pilot_cycles(sd, c, k, t)
			       : sd_sample_cycles(sd, c, k, t);
}

uint64_t plan_shootdown_cycles(const struct plan_shootdown *sd,
			       const struct plan_costs *c)
{
	uint64_t per_round = 0; /* one sample of every configuration */

	for (uint32_t i = 0; i < sd->npages; i++) {
		for (uint32_t j = 0; j < sd->ntargets; j++)
			per_round +=
				sd_cycles(sd, c, sd->pages[i], sd->targets[j]);
		per_round += sd->classes * sd_cycles(sd, c, sd->pages[i], 1);
	}
	return per_round * ((uint64_t)sd->samples + sd->warmup);
}

/*
 * About what each experiment prints, in bytes (from Bochs runs at 2 and 4
 * CPUs): a shootdown run's record and table line 600, a reclaim or
 * flushloop run's 900 and 800 with their ticks, primitives 4 KB in all.
 * Where the console is a UART (115200 baud: 87 us a byte, a server's
 * serial port, Bochs) that was half of the default suite's time.
 */
#define PRIMITIVES_BYTES 4000
#define SD_RUN_BYTES	 600
#define RC_RUN_BYTES	 900
#define FL_RUN_BYTES	 800

/*
 * Shootdown's runs: per page count and responder count, each IPI
 * strategy and ipi-full-global (also broadcast when it is to all),
 * INVLPGB and its global variant, invlpgb-linux; the distance classes
 * after the first (which is the 1-responder configuration) add
 * 1-responder runs.
 */
static uint64_t sd_runs(const struct plan_shootdown *sd, uint32_t responders)
{
	uint64_t ipi = sd->ipi_strategies ? sd->ipi_strategies + 1 : 0;
	uint64_t invlpgb = (sd->invlpgb ? 2 : 0) + sd->invlpgb_linux;
	uint64_t per_pages = 0;

	for (uint32_t j = 0; j < sd->ntargets; j++)
		per_pages +=
			ipi * (sd->targets[j] == responders ? 2 : 1) + invlpgb;
	if (sd->classes > 1)
		per_pages += (uint64_t)(sd->classes - 1) * (ipi + invlpgb);
	return per_pages * sd->npages;
}

uint64_t plan_output_cycles(const struct plan *p, enum plan_exp e,
			    const struct plan_costs *c)
{
	uint64_t bytes;

	if (e >= PLAN_EXPS || !p->run[e])
		return 0;
	switch (e) {
	case PLAN_PRIMITIVES:
		bytes = PRIMITIVES_BYTES;
		break;
	case PLAN_SHOOTDOWN:
		bytes = SD_RUN_BYTES * sd_runs(&p->sd, c->responders);
		break;
	case PLAN_RECLAIM: /* and the negative control's */
		bytes = RC_RUN_BYTES * ((uint64_t)p->rc.nruns + 1);
		break;
	default:
		bytes = FL_RUN_BYTES *
			((uint64_t)p->fl.strategies * p->fl.cpu_counts +
			 p->fl.controls);
		break;
	}
	return bytes * c->console_byte;
}

uint64_t plan_ms_cycles(const struct plan_costs *c, uint64_t ms)
{
	return ms * c->tsc_khz;
}

/*
 * Pages a strategy of batch b pages out: its reader pass, and its writer
 * pass of one batch but at least writer_pages, within the cold region.
 */
static uint64_t rc_strategy_pages(const struct plan_reclaim *rc, uint64_t b)
{
	uint64_t w = b > rc->writer_pages ? b : rc->writer_pages;

	if (!rc->writer_pages)
		w = 0;
	return rc->cold_pages + (w < rc->cold_pages ? w : rc->cold_pages);
}

/* Paging out per page and in batches of b: from the pilot, per page. */
static uint64_t rc_pilot_cycles(const struct plan_reclaim *rc)
{
	uint64_t p = rc_strategy_pages(rc, 1),
		 sum = rc->per_page_passes * p * rc->pilot_page;
	uint64_t flush = rc->pilot_page > rc->pilot_batch
				 ? rc->pilot_page - rc->pilot_batch
				 : 0;

	/* A batch of b pays 1/b of a per-page flush on each of its pages. */
	for (uint32_t i = 0; i < rc->nbatches; i++) {
		uint64_t b = rc->batches[i] ? rc->batches[i] : 1;

		p = rc_strategy_pages(rc, b);
		sum += p * (rc->pilot_batch + flush / b);
	}
	return sum;
}

/* Paging out derived from the measured costs, without a pilot. */
static uint64_t rc_model_cycles(const struct plan_reclaim *rc,
				const struct plan_costs *c)
{
	/* The workers read memory all along: rounds reach busy CPUs. */
	uint64_t rt =
		c->ipi_all_busy > c->ipi_all ? c->ipi_all_busy : c->ipi_all;
	uint64_t p = rc_strategy_pages(rc, 1), sf = serial_factor(c);
	/* Every pass maps the region afresh and copies every page out. */
	uint64_t per_pass = p * 2 * c->page_copy;
	uint64_t sum =
		rc->per_page_passes * (per_pass + p * (rt + sf * c->cr3));

	for (uint32_t i = 0; i < rc->nbatches; i++) {
		uint64_t b = rc->batches[i] ? rc->batches[i] : 1;
		uint64_t flushes;

		p = rc_strategy_pages(rc, b);
		per_pass = p * 2 * c->page_copy;
		flushes = (p + b - 1) / b;
		/* Linux's ceiling: beyond it, a full flush. */
		uint64_t handler =
			b <= FLUSH_SINGLE_PAGE_CEILING ? b * c->invlpg : c->cr3;

		sum += per_pass + flushes * (rt + sf * handler);
	}
	return sum;
}

/* Paging the cold region out once per strategy, without the windows. */
uint64_t plan_rc_paging_cycles(const struct plan_reclaim *rc,
			       const struct plan_costs *c)
{
	return rc->pilot_page ? rc_pilot_cycles(rc) : rc_model_cycles(rc, c);
}

/*
 * The workers' windows (the warm-up, getting going, the baseline, and as
 * long after the page-out for the timeline: bench/reclaim_windows.h) and
 * setting up the regions: not cut by cold pages.
 */
uint64_t plan_rc_fixed_cycles(const struct plan_reclaim *rc,
			      const struct plan_costs *c)
{
	uint64_t passes = rc->per_page_passes + rc->nbatches;
	uint64_t hot = (uint64_t)rc->workers * rc->hot_pages;
	uint64_t setup = rc->pilot_setup
				 ? (rc->cold_pages + hot) * rc->pilot_setup
				 : hot * c->page_copy;

	return passes * rc_quarters(plan_ms_cycles(c, rc->duration_ms),
				    RC_PASS_QUARTERS) +
	       setup;
}

uint64_t plan_reclaim_cycles(const struct plan_reclaim *rc,
			     const struct plan_costs *c)
{
	return plan_rc_fixed_cycles(rc, c) + plan_rc_paging_cycles(rc, c);
}

uint64_t plan_flushloop_cycles(const struct plan_flushloop *fl,
			       const struct plan_costs *c)
{
	return ((uint64_t)fl->strategies * fl->cpu_counts + fl->controls) *
	       plan_ms_cycles(c, fl->duration_ms);
}

uint64_t plan_primitives_cycles(uint32_t samples, uint32_t classes,
				const struct plan_costs *c)
{
	uint64_t n =
		samples < PLAN_REFILL_SAMPLES ? samples : PLAN_REFILL_SAMPLES;
	uint64_t pages = 16 + 3 * (uint64_t)c->l2_tlb;

	/*
	 * The refill: of a sample's reads only the timed ones after a full
	 * flush miss (and the preloads beyond the L2 TLB), about 4 misses a
	 * page over its 4 series; its local curve's 652 INVLPGs and the
	 * INVLPGB full flush; a round trip for each remote sample.
	 */
	return (uint64_t)samples * (8 * (c->cr3 + c->invlpg) +
				    4 * c->ipi_one * (classes + 1)) +
	       n * (4 * pages * c->touch + 4 * c->ipi_one + 653 * c->invlpg);
}

/* x * num / den, in two steps: no 128-bit division in the kernel. */
static uint64_t scale(uint64_t x, uint64_t num, uint64_t den)
{
	return x / den * num + x % den * num / den;
}

void plan_costs_at(const struct plan_costs *here, uint32_t cpus,
		   struct plan_costs *out)
{
	uint64_t slope = 0, resp = cpus > 1 ? cpus - 1 : 1;

	*out = *here;
	out->responders = (uint32_t)resp;
	if (here->responders > 1 && here->ipi_all > here->ipi_one)
		slope = (here->ipi_all - here->ipi_one) /
			(here->responders - 1);
	out->ipi_all = here->ipi_one + slope * (resp - 1);
	/* Busy responders slow a round by the factor they did here. */
	out->ipi_all_busy =
		here->ipi_all && here->ipi_all_busy > here->ipi_all
			? scale(out->ipi_all, here->ipi_all_busy, here->ipi_all)
			: out->ipi_all;
}
