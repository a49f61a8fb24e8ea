// SPDX-License-Identifier: MIT
/*
 * The time budget's reductions (bench/plan.h): what is cut, and by how
 * much, so that the estimates (plan_cost.c) fit the budget; and the
 * default suite's plan.
 */
#include "bench/plan.h"
#include "bench/params.h"
#include "bench/plan_cost.h"
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

static uint64_t work_cycles(const struct plan *p, enum plan_exp e,
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

/* The work, and printing what it found. */
static uint64_t exp_cycles(const struct plan *p, enum plan_exp e,
			   const struct plan_costs *c)
{
	return work_cycles(p, e, c) + plan_output_cycles(p, e, c);
}

/* Of an experiment's share, what its reductions can fit work into. */
static uint64_t work_share(const struct plan *p, enum plan_exp e,
			   const struct plan_costs *c, uint64_t share)
{
	uint64_t out = plan_output_cycles(p, e, c);

	return share > out ? share - out : 0;
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
	paging = plan_rc_paging_cycles(rc, c);
	/* Per page first: cold pages x cycles can pass 2^64. */
	per_page = paging / rc->cold_pages;
	if (share > plan_rc_fixed_cycles(rc, c) && per_page)
		pages = (share - plan_rc_fixed_cycles(rc, c)) / per_page;
	else
		pages = per_page ? 0 : rc->cold_pages;
	pages -= pages % PMD_PAGES;
	rc->cold_pages = pages < PMD_PAGES ? PMD_PAGES : pages;
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
	budget = plan_ms_cycles(c, p->budget_ms);
	left = budget > exp_cycles(p, PLAN_PRIMITIVES, c)
		       ? budget - exp_cycles(p, PLAN_PRIMITIVES, c)
		       : 0;
	shares(p, c, left, share);
	if (p->run[PLAN_SHOOTDOWN])
		fit_shootdown(p, c,
			      work_share(p, PLAN_SHOOTDOWN, c,
					 share[PLAN_SHOOTDOWN]));
	if (p->run[PLAN_RECLAIM])
		fit_reclaim(
			p, c,
			work_share(p, PLAN_RECLAIM, c, share[PLAN_RECLAIM]));
	if (p->run[PLAN_FLUSHLOOP])
		fit_flushloop(p, c,
			      work_share(p, PLAN_FLUSHLOOP, c,
					 share[PLAN_FLUSHLOOP]));
	estimate(p, c);
	if (!p->fits)
		note(p,
		     "does not fit: %llu ms planned for a %llu ms budget "
		     "(minimum sizes, and values set on the command line, "
		     "are run as given)",
		     (unsigned long long)p->total_ms,
		     (unsigned long long)p->budget_ms);
}

/* The config's defaults (kernel/config.c, bench/params.h). */
#define DEFAULT_SAMPLES	    200
#define DEFAULT_WARMUP	    20
#define DEFAULT_DURATION_MS 100

static void default_shootdown(const struct plan_machine *m,
			      struct plan_shootdown *sd)
{
	uint32_t resp = m->cpus - 1;

	sd->npages = param_pages_default(sd->pages, PLAN_LIST_MAX);
	if (sd->npages > PLAN_LIST_MAX)
		sd->npages = PLAN_LIST_MAX;
	/* targets=auto: 1, 2, 4, ... and all */
	for (uint32_t t = 1; t < resp && sd->ntargets < PLAN_LIST_MAX - 1;
	     t *= 2)
		sd->targets[sd->ntargets++] = t;
	sd->targets[sd->ntargets++] = resp;
	sd->ipi_strategies = 4;
	sd->invlpgb = sd->invlpgb_linux = m->invlpgb;
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
