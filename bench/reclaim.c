// SPDX-License-Identifier: MIT
/*
 * reclaim: the re-enactment of the reclaim-batching patch. For each
 * strategy, the whole cold region is paged out while the workers run; the
 * exact counts (IPIs, interrupts, flushes) and the workers' loss are
 * recorded, and the swap copies are checked for lost writes.
 */
#include "bench/bench.h"
#include "bench/options.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_windows.h"
#include "bench/reclaim_report.h"
#include "bench/reclaim_state.h"
#include "bench/xcpu_fault.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "mm/pt.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define GIB (1ull << 30)
/* The pilot's workers' baseline window (they only need to be running). */
#define PILOT_BASE_US 1000

/*
 * The strategies, in the order they run; results are found by key. The
 * findings compare a flush a page with a flush a batch (bench/role.h);
 * the variants of either are measured beside them, compared by none.
 */
static const struct rc_kind kinds[] = {
	{RC_PER_PAGE, 1, "per-page", ROLE_PAGE},
	{RC_PER_PAGE_INVLPG, 1, "per-page-invlpg", ROLE_VARIANT},
	{RC_BATCH, 1, "batch", ROLE_BATCH},
	{RC_BATCH, 31, "batch", ROLE_BATCH},
	{RC_BATCH, 512, "batch", ROLE_BATCH},
	/* Where it differs from batch: 31 pages INVLPGed, not a full flush */
	{RC_BATCH_PAGES, 31, "batch-pages", ROLE_VARIANT},
	{RC_INVLPGB_PAGE, 1, "invlpgb", ROLE_PAGE},
	{RC_INVLPGB_BATCH, 512, "invlpgb", ROLE_BATCH},
	{RC_INVLPGB_BATCH_PAGES, 512, "invlpgb-pages", ROLE_VARIANT},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct rc_kind *rc_kinds(size_t *n)
{
	*n = NKINDS;
	return kinds;
}

/*
 * The negative control: passes of one batch of RC_WRITER_PAGES, until
 * every worker has lost a write or RC_CONTROL_PASSES passes are done.
 * Whether a worker's translation outlives the 64 random reads between
 * two of its writes is luck of the TLB's sets (QEMU's is direct-mapped),
 * so one pass of 512 pages missed a worker in about half of the default
 * TCG runs; four passes of 64 cost half as much.
 */
#define RC_CONTROL_PASSES 4
static const struct rc_kind control_kind = {.s = RC_WRITEBACK_FIRST,
					    .batch = RC_WRITER_PAGES,
					    .name = "writeback-before-flush",
					    .role = ROLE_CONTROL};

const struct rc_kind *rc_control_kind(void)
{
	return &control_kind;
}

/*
 * What the passes share with the workers, who reach it through their
 * background work's argument: one instance for the pilot and the run
 * (one after the other), static because it holds a slot per CPU, too big
 * for CPU 0's stack.
 */
static struct rc_state state;
/* The reader passes' timeline (bench/reclaim_timeline.h), for the run. */
static struct rc_tl timeline;

/* Sizes from free memory: cold <= 20 GiB and a third of it (the swap
 * copy takes as much again), each hot region <= 2 GiB. */
static void size_up(struct rc_config *c, const struct bench_sizes *sz,
		    unsigned workers)
{
	uint64_t free = frames_free() * PAGE_SIZE, cold, hot;

	cold = sz->reclaim_mb ? sz->reclaim_mb << 20 : free / 3;
	if (cold > 20 * GIB)
		cold = 20 * GIB;
	hot = sz->hot_mb ? sz->hot_mb << 20
			 : free / 6 / (workers ? workers : 1);
	if (hot > 2 * GIB)
		hot = 2 * GIB;
	if (workers && hot * workers > RC_HOT_SPACE)
		hot = RC_HOT_SPACE / workers;
	c->cold_pages = cold / PAGE_SIZE / PMD_PAGES * PMD_PAGES;
	/* Less than a PMD (reclaim_mb=1): one PMD, said in reclaim_run() */
	if (!c->cold_pages && cold)
		c->cold_pages = PMD_PAGES;
	c->hot_pages = hot / PAGE_SIZE ? hot / PAGE_SIZE : 1;
	c->workers = workers;
}

void reclaim_plan_shape(const struct bench_params *params,
			const struct bench_ctx *ctx,
			const struct plan_costs *costs, struct plan *plan)
{
	struct plan_reclaim *p = &plan->rc;
	struct rc_config c = {0};
	bool invlpgb = bench_invlpgb_planned(&ctx->invlpgb);

	(void)costs; /* the pilot measures what a page costs */
	size_up(&c, &ctx->size, cpumask_count(&cpus_online) - 1);
	p->cold_pages = c.cold_pages;
	p->hot_pages = c.hot_pages;
	p->workers = c.workers;
	p->duration_ms = params->duration_ms;
	/* 0 means "size it from free RAM", which is not a user's size. */
	p->cold_set = bench_given(params, "reclaim_mb") && params->reclaim_mb;
	p->hot_set = bench_given(params, "hot_mb") && params->hot_mb;
	p->per_page_passes = p->nbatches = p->nruns = 0;
	/*
	 * Each strategy's writer pass, beside its reader pass. The negative
	 * control, writer passes only and at most RC_CONTROL_PASSES x 64
	 * pages, is left out: a few per cent of one strategy's reader pass.
	 */
	p->writer_pages = params->writers ? RC_WRITER_PAGES : 0;
	for (size_t i = 0; i < NKINDS; i++) {
		const struct rc_kind *r = &kinds[i];

		if (!invlpgb && !rc_uses_ipis(r))
			continue;
		if (p->nruns < PLAN_LIST_MAX) {
			p->run_names[p->nruns] = r->name;
			p->run_batches[p->nruns++] = r->batch;
		}
		if (r->batch == 1)
			p->per_page_passes++;
		else if (p->nbatches < PLAN_LIST_MAX)
			p->batches[p->nbatches++] = r->batch;
	}
}

/* One pilot pass: cycles per page, the workers' windows left out. */
static uint64_t pilot_pass(const struct rc_config *c,
			   const struct rc_kind *kind, uint64_t *samples)
{
	struct rc_run r = {.kind = kind};
	uint64_t t0 = rdtsc_ordered(), t, windows;

	if (!rc_run_strategy(&state, &r, NULL, samples))
		return 0;
	t = rdtsc_ordered() - t0;
	windows = us_to_cycles(rc_quarters(c->base_us, RC_BEFORE_QUARTERS));
	return (t > windows ? t - windows : 0) / c->cold_pages;
}

/*
 * The time budget's pilot: one PMD paged out per page and as one batch,
 * as the run will do it, workers running, recorded nowhere. What a page
 * costs here depends on more than the costs the plan measures (how the
 * workers and the flushes share the CPUs, above all under TCG), so it is
 * measured rather than derived.
 */
void reclaim_plan_pilot(const struct bench_params *params,
			struct bench_ctx *ctx, struct plan *plan)
{
	struct plan_reclaim *p = &plan->rc;
	/* Recorded nowhere: no consumer's role (bench/role.h). */
	static const struct rc_kind per_page = {RC_PER_PAGE, 1, "pilot",
						ROLE_NONE},
				    batched = {RC_BATCH, PMD_PAGES, "pilot",
					       ROLE_NONE};
	struct rc_config c = {.writers = params->writers,
			      .base_us = PILOT_BASE_US,
			      .seed = params->seed,
			      .bug = params->invlpgb.bug,
			      .ctx = ctx};
	uint64_t *s, t0;

	size_up(&c, &ctx->size, cpumask_count(&cpus_online) - 1);
	if (!c.workers || c.cold_pages < PMD_PAGES)
		return;
	c.cold_pages = PMD_PAGES;
	c.hot_pages = c.hot_pages < PMD_PAGES ? c.hot_pages : PMD_PAGES;
	s = bench_alloc(c.cold_pages);
	if (!s)
		return;
	t0 = rdtsc_ordered();
	state.tl = NULL; /* recorded nowhere */
	if (!rc_prepare(&state, &c)) {
		rc_release(&state); /* whatever part of it was set up */
		bench_free(s, c.cold_pages);
		return;
	}
	p->pilot_setup = (rdtsc_ordered() - t0) /
			 (c.cold_pages + c.hot_pages * c.workers);
	p->pilot_page = pilot_pass(&c, &per_page, s);
	p->pilot_batch = pilot_pass(&c, &batched, s);
	rc_release(&state);
	bench_free(s, c.cold_pages);
}

static bool pass(const struct rc_config *c, struct rc_progress *pg,
		 struct rc_run *r, uint64_t *s)
{
	pg->index++;
	if (!rc_run_strategy(&state, r, pg, s)) {
		report_fail("reclaim: setup", "out of memory for the cold "
					      "region");
		return false;
	}
	pg->done += rc_pass_pages(c, r);
	return true;
}

/*
 * A CPU missed a wait or answered late during run r (smp.h): its passes
 * hold that wait, and the workers are set for the whole experiment.
 */
static bool responders_faulted(const struct rc_run *r,
			       const struct xcpu_unit *u)
{
	return xcpu_unit_spoiled(
		u, "reclaim: responders",
		"%s %u: a cpu did not answer in time (above): this run is "
		"discarded, not reported, and reclaim stops here (its workers "
		"are set for the whole experiment)",
		r->kind->name, r->kind->batch);
}

/*
 * With writers=on, first a writer pass for the lost writes; then the
 * reader pass that everything else in the record comes from.
 */
static bool run_one(const struct rc_config *c, struct rc_progress *pg,
		    struct rc_run *r, uint64_t *s)
{
	bool invlpgb = !rc_uses_ipis(r->kind);
	uint64_t lost = 0;
	struct xcpu_unit u;

	if (invlpgb && !c->invlpgb_max_pages)
		return false;
	r->emulated = invlpgb && c->invlpgb_emulated;
	xcpu_unit_begin(&u);
	if (c->writers) {
		r->writers = true;
		if (!pass(c, pg, r, s) || responders_faulted(r, &u))
			return false;
		lost = r->count.lost;
	}
	r->writers = false;
	if (!pass(c, pg, r, s) || responders_faulted(r, &u))
		return false;
	r->count.lost = lost;
	rc_report_refused(r);
	if (state.tl) /* first: it gives the loss its interval */
		rc_tl_emit(state.tl, r);
	rc_emit(c->ctx, r, s, r->count.flushes);
	return true;
}

/*
 * Shown where writing back before the flush lost a write of every worker
 * that wrote: the verdicts speak for each of them. Its record sums all
 * its passes, each pass's samples after the last one's (they fit: a pass
 * flushes once per RC_WRITER_PAGES, s has room for a flush per page of
 * the cold region, 512 or more).
 */
static void negative_control(const struct rc_config *c, struct rc_progress *pg,
			     uint64_t *s, struct report_control *ctl)
{
	struct rc_run control = {.kind = &control_kind, .writers = true};
	struct rc_counts sum = {0};
	struct xcpu_unit u;
	unsigned n = 0;

	xcpu_unit_begin(&u);
	report_control_init(ctl, "reclaim: negative control");
	if (!c->writers)
		return;
	while (n < RC_CONTROL_PASSES &&
	       (!n || control.lost_workers < control.writing_workers)) {
		if (!pass(c, pg, &control, s + sum.flushes) ||
		    responders_faulted(&control, &u))
			return;
		rc_counts_add(&sum, &control.count);
		control.accumulate = true;
		n++;
	}
	control.count = sum;
	control.passes = n;
	rc_emit(c->ctx, &control, s, sum.flushes);
	rc_control_verdict(&control, RC_CONTROL_PASSES, ctl);
}

/* The passes the experiment will make, and their pages, for progress. */
static void count_passes(const struct rc_config *c, struct rc_progress *pg)
{
	struct rc_run control = {.kind = &control_kind, .writers = true};

	/* The negative control, at most RC_CONTROL_PASSES passes */
	pg->count = c->writers ? RC_CONTROL_PASSES : 0;
	pg->total = pg->count * rc_pass_pages(c, &control);
	for (size_t i = 0; i < NKINDS; i++) {
		struct rc_run w = {.kind = &kinds[i], .writers = true};

		if (!rc_uses_ipis(&kinds[i]) && !c->invlpgb_max_pages)
			continue;
		pg->count += c->writers ? 2 : 1; /* writer, reader */
		pg->total +=
			c->cold_pages + (c->writers ? rc_pass_pages(c, &w) : 0);
	}
}

void reclaim_run(const struct bench_params *p, struct bench_ctx *ctx)
{
	struct rc_config c;
	struct rc_run runs[NKINDS];
	struct rc_progress pg = {0};
	struct report_control ctl;
	struct xcpu_unit whole; /* the experiment: one fault stops it */
	uint64_t *s;

	if (cpumask_count(&cpus_online) < 2) { /* smp.h: some taken out */
		report_skip("reclaim", "needs at least 2 cpus online");
		return;
	}
	c = (struct rc_config){.writers = p->writers,
			       .base_us = p->duration_ms * 1000,
			       .seed = p->seed,
			       .bug = p->invlpgb.bug,
			       .ctx = ctx};
	size_up(&c, &ctx->size, cpumask_count(&cpus_online) - 1);
	if (ctx->size.reclaim_mb && ctx->size.reclaim_mb < 2)
		report_info("reclaim: reclaim_mb=%llu is less than one PMD, "
			    "the unit a batch pages out: paging out 2 MiB",
			    (unsigned long long)ctx->size.reclaim_mb);
	c.invlpgb_max_pages =
		bench_invlpgb(&ctx->invlpgb, "reclaim", &c.invlpgb_emulated);
	count_passes(&c, &pg);
	xcpu_unit_begin(&whole);
	s = bench_alloc(c.cold_pages);
	if (!s || !c.cold_pages || !rc_prepare(&state, &c)) {
		report_fail("reclaim: setup", "out of memory");
		bench_free(s, c.cold_pages);
		return;
	}
	if (!rc_tl_alloc(&timeline, c.workers, p->timeline_ms))
		report_fail("reclaim: timeline",
			    "out of memory for its "
			    "buffers: no timeline records");
	state.tl = timeline.cap ? &timeline : NULL;
	bench_printf(
		"reclaim: %llu MiB cold, %llu MiB hot on each of %u workers\n"
		"  strategy               batch     ipis     irqs    loss "
		"95%% ci         pages/s   lost\n",
		(unsigned long long)(c.cold_pages * PAGE_SIZE >> 20),
		(unsigned long long)(c.hot_pages * PAGE_SIZE >> 20), c.workers);
	for (size_t i = 0; i < NKINDS; i++)
		runs[i] = (struct rc_run){.kind = &kinds[i]};
	for (size_t i = 0; i < NKINDS; i++) {
		if (xcpu_unit_faulted(&whole))
			break; /* responders_faulted() said why */
		runs[i].ran = run_one(&c, &pg, &runs[i], s);
		if (runs[i].ran)
			rc_check_counts(&runs[i]);
	}
	rc_table_caveat();
	rc_check_ratio(runs, NKINDS);
	/* First the control: whether a lost write can be seen at all. */
	if (!xcpu_unit_faulted(&whole))
		negative_control(&c, &pg, s, &ctl);
	else
		report_control_init(&ctl, "reclaim: negative control");
	for (size_t i = 0; i < NKINDS; i++)
		if (runs[i].ran)
			rc_check_lost(&runs[i], c.writers, &ctl);
	rc_tl_free(&timeline);
	state.tl = NULL;
	rc_release(&state);
	bench_free(s, c.cold_pages);
}
