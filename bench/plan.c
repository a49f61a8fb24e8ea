// SPDX-License-Identifier: MIT
/*
 * The time budget's arithmetic (bench/plan.h): estimates from measured
 * costs, and the reductions that make a run fit.
 */
#include "bench/flush.h"
#include "bench/plan.h"
#include "lib/printf.h"

static const char *const exp_names[PLAN_EXPS] = {
	"primitives",
	"shootdown",
	"reclaim",
	"flushloop",
};

/* Of the budget left after primitives, the share each experiment gets. */
static const unsigned exp_weight[PLAN_EXPS] = {0, 5, 3, 2};

const char *plan_exp_name(enum plan_exp e)
{
	return e < PLAN_EXPS ? exp_names[e] : "?";
}

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
	if (sd->invlpgb)
		sum += around + (uint64_t)k * c->invlpg;
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

static uint64_t ms_cycles(const struct plan_costs *c, uint64_t ms)
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
static uint64_t rc_paging_cycles(const struct plan_reclaim *rc,
				 const struct plan_costs *c)
{
	return rc->pilot_page ? rc_pilot_cycles(rc) : rc_model_cycles(rc, c);
}

/*
 * The workers' windows (a quarter to get going, then the baseline) and
 * setting up the regions: not cut by cold pages.
 */
static uint64_t rc_fixed_cycles(const struct plan_reclaim *rc,
				const struct plan_costs *c)
{
	uint64_t passes = rc->per_page_passes + rc->nbatches;
	uint64_t hot = (uint64_t)rc->workers * rc->hot_pages;
	uint64_t setup = rc->pilot_setup
				 ? (rc->cold_pages + hot) * rc->pilot_setup
				 : hot * c->page_copy;

	return passes * ms_cycles(c, rc->duration_ms) * 5 / 4 + setup;
}

uint64_t plan_reclaim_cycles(const struct plan_reclaim *rc,
			     const struct plan_costs *c)
{
	return rc_fixed_cycles(rc, c) + rc_paging_cycles(rc, c);
}

uint64_t plan_flushloop_cycles(const struct plan_flushloop *fl,
			       const struct plan_costs *c)
{
	return ((uint64_t)fl->strategies * fl->cpu_counts + fl->controls) *
	       ms_cycles(c, fl->duration_ms);
}

static void note(struct plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes >= PLAN_NOTES_MAX)
		return;
	va_start(ap, fmt);
	kvsnprintf(p->notes[p->nnotes++], PLAN_NOTE_LEN, fmt, ap);
	va_end(ap);
}

static uint64_t exp_cycles(const struct plan *p, enum plan_exp e,
			   const struct plan_costs *c)
{
	if (!p->run[e])
		return 0;
	switch (e) {
	case PLAN_PRIMITIVES:
		return p->primitives_cycles;
	case PLAN_SHOOTDOWN:
		return plan_shootdown_cycles(&p->sd, c);
	case PLAN_RECLAIM:
		return plan_reclaim_cycles(&p->rc, c);
	default:
		return plan_flushloop_cycles(&p->fl, c);
	}
}

/* 1, the middle one and all: the ends of the curve and its bend. */
static void thin_targets(struct plan *p)
{
	struct plan_shootdown *sd = &p->sd;
	uint32_t n = sd->ntargets;

	if (sd->targets_set || n <= 3)
		return;
	sd->targets[1] = sd->targets[n / 2];
	sd->targets[2] = sd->targets[n - 1];
	sd->ntargets = 3;
	note(p, "shootdown: responder counts thinned from %u to %u, %u, %u", n,
	     sd->targets[0], sd->targets[1], sd->targets[2]);
}

static void fit_shootdown(struct plan *p, const struct plan_costs *c,
			  uint64_t share)
{
	struct plan_shootdown *sd = &p->sd;
	uint64_t per, allowed;
	uint32_t warmup, samples;

	if (plan_shootdown_cycles(sd, c) <= share)
		return;
	thin_targets(p);
	sd->samples = sd->samples ? sd->samples : 1;
	per = plan_shootdown_cycles(sd, c) / (sd->samples + sd->warmup);
	if (sd->samples_set || !per || plan_shootdown_cycles(sd, c) <= share)
		return;
	allowed = share / per;
	warmup = sd->warmup;
	if (!sd->warmup_set && warmup > allowed / 11)
		warmup = (uint32_t)(allowed / 11);
	if (!sd->warmup_set && warmup < PLAN_MIN_WARMUP)
		warmup = sd->warmup < PLAN_MIN_WARMUP ? sd->warmup
						      : PLAN_MIN_WARMUP;
	samples = allowed > warmup ? (uint32_t)(allowed - warmup) : 0;
	if (samples < PLAN_MIN_SAMPLES)
		samples = PLAN_MIN_SAMPLES;
	if (samples >= sd->samples)
		return;
	note(p, "shootdown: samples %u -> %u, warmup %u -> %u", sd->samples,
	     samples, sd->warmup, warmup);
	sd->samples = samples;
	sd->warmup = warmup;
}

static void fit_reclaim(struct plan *p, const struct plan_costs *c,
			uint64_t share)
{
	struct plan_reclaim *rc = &p->rc;
	uint64_t old_cold = rc->cold_pages, old_hot = rc->hot_pages;
	uint64_t total = plan_reclaim_cycles(rc, c), paging, pages, per_page;

	if (rc->cold_set || total <= share || !rc->cold_pages)
		return;
	/* The hot regions shrink in the same proportion, to 1 MiB. */
	if (!rc->hot_set && rc->hot_pages > 256) {
		rc->hot_pages = rc->hot_pages * share / total;
		rc->hot_pages = rc->hot_pages < 256 ? 256 : rc->hot_pages;
	}
	paging = rc_paging_cycles(rc, c);
	/* Per page first: cold pages x cycles can pass 2^64. */
	per_page = paging / rc->cold_pages;
	if (share > rc_fixed_cycles(rc, c) && per_page)
		pages = (share - rc_fixed_cycles(rc, c)) / per_page;
	else
		pages = per_page ? 0 : rc->cold_pages;
	pages -= pages % PLAN_PMD_PAGES;
	rc->cold_pages = pages < PLAN_PMD_PAGES ? PLAN_PMD_PAGES : pages;
	if (rc->cold_pages > old_cold)
		rc->cold_pages = old_cold;
	note(p, "reclaim: cold region %llu -> %llu MiB, hot %llu -> %llu MiB",
	     (unsigned long long)(old_cold / 256),
	     (unsigned long long)(rc->cold_pages / 256),
	     (unsigned long long)(old_hot / 256),
	     (unsigned long long)(rc->hot_pages / 256));
}

static void fit_flushloop(struct plan *p, const struct plan_costs *c,
			  uint64_t share)
{
	struct plan_flushloop *fl = &p->fl;
	uint64_t points =
		(uint64_t)fl->strategies * fl->cpu_counts + fl->controls;
	uint64_t ms;

	if (fl->duration_set || !points || !c->tsc_khz ||
	    plan_flushloop_cycles(fl, c) <= share)
		return;
	ms = share / points / c->tsc_khz;
	ms = ms < PLAN_MIN_DURATION_MS ? PLAN_MIN_DURATION_MS : ms;
	if (ms >= fl->duration_ms)
		return;
	note(p, "flushloop: %llu -> %llu ms per point",
	     (unsigned long long)fl->duration_ms, (unsigned long long)ms);
	fl->duration_ms = ms;
}

/*
 * Shares of what primitives leave, by weight; an experiment that needs
 * less than its share gives the rest to the others.
 */
static void shares(const struct plan *p, const struct plan_costs *c,
		   uint64_t left, uint64_t share[PLAN_EXPS])
{
	bool settled[PLAN_EXPS] = {true};
	bool again = true;

	while (again) {
		unsigned weights = 0;

		again = false;
		for (int e = 1; e < PLAN_EXPS; e++)
			if (!settled[e] && p->run[e])
				weights += exp_weight[e];
		for (int e = 1; e < PLAN_EXPS; e++) {
			uint64_t need = exp_cycles(p, (enum plan_exp)e, c);

			if (settled[e] || !p->run[e])
				continue;
			share[e] = left / weights * exp_weight[e];
			if (need <= share[e]) {
				share[e] = need;
				settled[e] = true;
				left -= need;
				again = true;
				break;
			}
		}
	}
}

static void estimate(struct plan *p, const struct plan_costs *c)
{
	p->total_ms = 0;
	for (int e = 0; e < PLAN_EXPS; e++) {
		uint64_t cyc = exp_cycles(p, (enum plan_exp)e, c);

		p->est_ms[e] =
			c->tsc_khz ? (cyc + c->tsc_khz - 1) / c->tsc_khz : 0;
		p->total_ms += p->est_ms[e];
	}
	p->fits = !p->budget_ms || p->total_ms <= p->budget_ms;
}

void plan_make(struct plan *p, const struct plan_costs *c)
{
	uint64_t budget, left, share[PLAN_EXPS] = {0};

	p->nnotes = 0;
	estimate(p, c);
	if (!p->budget_ms || !c->tsc_khz || p->fits)
		return;
	budget = ms_cycles(c, p->budget_ms);
	left = budget > exp_cycles(p, PLAN_PRIMITIVES, c)
		       ? budget - exp_cycles(p, PLAN_PRIMITIVES, c)
		       : 0;
	shares(p, c, left, share);
	if (p->run[PLAN_SHOOTDOWN])
		fit_shootdown(p, c, share[PLAN_SHOOTDOWN]);
	if (p->run[PLAN_RECLAIM])
		fit_reclaim(p, c, share[PLAN_RECLAIM]);
	if (p->run[PLAN_FLUSHLOOP])
		fit_flushloop(p, c, share[PLAN_FLUSHLOOP]);
	estimate(p, c);
	if (!p->fits)
		note(p,
		     "does not fit: %llu ms planned for a %llu ms budget "
		     "(minimum sizes, and values set on the command line, "
		     "are run as given)",
		     (unsigned long long)p->total_ms,
		     (unsigned long long)p->budget_ms);
}

uint64_t plan_primitives_cycles(uint32_t samples, uint32_t classes,
				const struct plan_costs *c)
{
	return (uint64_t)samples *
	       (8 * (c->cr3 + c->invlpg) + 4 * c->ipi_one * (classes + 1));
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

/* The config's defaults (kernel/config.c, bench/params.h). */
static const uint32_t default_pages[] = {1, 2, 8, 32, 33, 64, 512};
#define DEFAULT_SAMPLES	    200
#define DEFAULT_WARMUP	    20
#define DEFAULT_DURATION_MS 100

static void default_shootdown(const struct plan_machine *m,
			      struct plan_shootdown *sd)
{
	uint32_t resp = m->cpus - 1;

	for (size_t i = 0; i < sizeof(default_pages) / sizeof(*default_pages);
	     i++)
		sd->pages[sd->npages++] = default_pages[i];
	/* targets=auto: 1, 2, 4, ... and all */
	for (uint32_t t = 1; t < resp && sd->ntargets < PLAN_LIST_MAX - 1;
	     t *= 2)
		sd->targets[sd->ntargets++] = t;
	sd->targets[sd->ntargets++] = resp;
	sd->ipi_strategies = 4;
	sd->invlpgb = m->invlpgb;
	sd->classes = m->classes;
	sd->samples = DEFAULT_SAMPLES;
	sd->warmup = DEFAULT_WARMUP;
}

/* reclaim.c's strategies: per page (IPI, INVLPG, INVLPGB), batches. */
static void default_reclaim(const struct plan_machine *m,
			    struct plan_reclaim *rc)
{
	static const uint32_t batches[] = {1, 31, 512, 512}; /* + control */

	rc->cold_pages = m->cold_pages;
	rc->hot_pages = m->hot_pages;
	rc->workers = m->cpus - 1;
	rc->per_page_passes = 2 + m->invlpgb;
	for (size_t i = 0; i < sizeof(batches) / sizeof(*batches); i++)
		rc->batches[rc->nbatches++] = batches[i];
	if (m->invlpgb)
		rc->batches[rc->nbatches++] = 512;
	rc->duration_ms = DEFAULT_DURATION_MS;
}

void plan_default_suite(const struct plan_machine *m,
			const struct plan_costs *c, uint64_t budget_ms,
			struct plan *p, uint64_t *uncut_ms)
{
	*p = (struct plan){.budget_ms = budget_ms};
	for (int e = 0; e < PLAN_EXPS; e++)
		p->run[e] = m->cpus > 1 || e == PLAN_PRIMITIVES ||
			    e == PLAN_FLUSHLOOP;
	p->primitives_cycles =
		plan_primitives_cycles(DEFAULT_SAMPLES, m->classes, c);
	if (m->cpus > 1) {
		default_shootdown(m, &p->sd);
		default_reclaim(m, &p->rc);
	}
	p->fl.strategies = 2 + m->invlpgb;
	unsigned n;

	for_each_cpu_count(n, m->cpus) p->fl.cpu_counts++;
	p->fl.controls = m->cpus > 1;
	p->fl.duration_ms = DEFAULT_DURATION_MS;
	estimate(p, c);
	*uncut_ms = p->total_ms;
	plan_make(p, c);
}
