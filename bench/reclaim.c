// SPDX-License-Identifier: MIT
/*
 * reclaim: the re-enactment of the reclaim-batching patch. For each
 * strategy, the whole cold region is paged out while the workers run; the
 * exact counts (IPIs, interrupts, flushes) and the workers' loss are
 * recorded, and the swap copies are checked for lost writes.
 */
#include "bench/bench.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_state.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define GIB	  (1ull << 30)
#define PMD_PAGES 512
/* The pilot's workers' baseline window (they only need to be running). */
#define PILOT_BASE_US 1000

/* The strategies, in the order they run; results are found by key. */
static const struct rc_kind kinds[] = {
	{.s = RC_PER_PAGE, .batch = 1, .name = "per-page"},
	{.s = RC_PER_PAGE_INVLPG, .batch = 1, .name = "per-page-invlpg"},
	{.s = RC_BATCH, .batch = 1, .name = "batch"},
	{.s = RC_BATCH, .batch = 31, .name = "batch"},
	{.s = RC_BATCH, .batch = 512, .name = "batch"},
	/* Where it differs from batch: 31 pages INVLPGed, not a full flush */
	{.s = RC_BATCH_PAGES, .batch = 31, .name = "batch-pages"},
	{.s = RC_INVLPGB_PAGE, .batch = 1, .name = "invlpgb"},
	{.s = RC_INVLPGB_BATCH, .batch = 512, .name = "invlpgb"},
	{.s = RC_INVLPGB_BATCH_PAGES, .batch = 512, .name = "invlpgb-pages"},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

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
					    .name = "writeback-before-flush"};

/*
 * What the passes share with the workers, who reach it through their
 * background work's argument: one instance for the pilot and the run
 * (one after the other), static because it holds a slot per CPU, too big
 * for CPU 0's stack.
 */
static struct rc_state state;

/* The run of strategy s in batches of batch, if it ran; else NULL. */
static const struct rc_run *result_of(const struct rc_run *runs, size_t n,
				      enum rc_strategy s, unsigned batch)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].ran && runs[i].kind->s == s &&
		    runs[i].kind->batch == batch)
			return &runs[i];
	return NULL;
}

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
			const struct bench_ctx *ctx, struct plan_reclaim *p)
{
	struct rc_config c = {0};
	bool invlpgb = bench_invlpgb_planned(&ctx->invlpgb);

	size_up(&c, &ctx->size, cpumask_count(&cpus_online) - 1);
	p->cold_pages = c.cold_pages;
	p->hot_pages = c.hot_pages;
	p->workers = c.workers;
	p->duration_ms = params->duration_ms;
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
	windows = us_to_cycles(c->base_us + c->base_us / 4);
	return (t > windows ? t - windows : 0) / c->cold_pages;
}

/*
 * The time budget's pilot: one PMD paged out per page and as one batch,
 * as the run will do it, workers running, recorded nowhere. What a page
 * costs here depends on more than the costs the plan measures (how the
 * workers and the flushes share the CPUs, above all under TCG), so it is
 * measured rather than derived.
 */
void reclaim_pilot(const struct bench_params *params, struct bench_ctx *ctx,
		   struct plan_reclaim *p)
{
	static const struct rc_kind per_page = {RC_PER_PAGE, 1, "pilot"},
				    batched = {RC_BATCH, PMD_PAGES, "pilot"};
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

static void emit(struct bench_ctx *ctx, const struct rc_run *r,
		 uint64_t *samples, uint64_t n)
{
	const struct rc_kind *k = r->kind;
	/* the time spent printing ticks and progress left out */
	uint64_t ns = tsc_to_ns(r->count.cycles - r->count.ticks);
	/* the CPUs still in the run (smp.h: one can be taken out) */
	uint64_t others = cpumask_count(&cpus_online) - 1;
	struct result_field f[] = {
		{"batch", k->batch, false},
		{"ipis_sent", r->count.icr, false},
		{"irqs_received", r->count.irqs, false},
		{"flushes", r->count.flushes, false},
		{"lost_writes", r->count.lost, false},
		{"worker_loss_pct", (uint64_t)r->loss_pct, true},
		{"worker_loss_min_pct", (uint64_t)r->loss_min, true},
		{"worker_loss_median_pct", (uint64_t)r->loss_median, true},
		{"reclaim_pages_per_s",
		 ns ? r->count.pages * 1000000000ull / ns : 0, false},
		{"workers", others, false},
		{"passes", r->passes, false}, /* the control's only */
	};
	struct result res = {.bench = "reclaim",
			     .strategy = k->name,
			     .pages = r->count.pages,
			     .targets = others,
			     .samples = samples,
			     .n = n,
			     .fields = f,
			     .nfields = sizeof(f) / sizeof(f[0]) -
					(k->s != RC_WRITEBACK_FIRST),
			     .emulated = r->emulated};

	result_emit(&ctx->records, &res);
	bench_printf("  %-22s %5u %8llu %8llu %6lld%% %10llu %6llu\n", k->name,
		     k->batch, (unsigned long long)r->count.icr,
		     (unsigned long long)r->count.irqs, (long long)r->loss_pct,
		     (unsigned long long)f[8].value,
		     (unsigned long long)r->count.lost);
}

/* Exact counts: one IPI per other CPU per flush, one interrupt each. */
static void check_counts(const struct rc_run *r)
{
	const struct rc_kind *k = r->kind;
	uint64_t others = cpumask_count(&cpus_online) - 1;
	uint64_t unit = k->batch ? k->batch : 1;
	uint64_t flushes = (r->count.pages + unit - 1) / unit;
	char name[96];

	ksnprintf(name, sizeof(name), "reclaim: %s %u: exact counts", k->name,
		  k->batch);
	if (r->emulated) /* the software model sends IPIs of its own */
		return;
	report_check(r->count.flushes == flushes &&
			     r->count.icr ==
				     (rc_uses_ipis(k) ? flushes * others : 0) &&
			     r->count.irqs == r->count.icr,
		     name, "%llu flushes, %llu IPIs, %llu interrupts",
		     (unsigned long long)r->count.flushes,
		     (unsigned long long)r->count.icr,
		     (unsigned long long)r->count.irqs);
}

/* A lost write always fails; none proves the flush as the control decides. */
static void check_lost(const struct rc_run *r, bool writers,
		       const struct report_control *ctl)
{
	char name[96];

	ksnprintf(name, sizeof(name), "reclaim: %s %u: no lost writes",
		  r->kind->name, r->kind->batch);
	if (writers)
		report_gated(ctl, r->count.lost, "lost writes", NULL, "%s",
			     name);
	else
		report_skip(name, "writers=off: nothing was written");
}

/* Interrupts per GiB paged out; 0 if r paged nothing out (it failed). */
static uint64_t irqs_per_gib(const struct rc_run *r)
{
	return r->count.pages
		       ? r->count.irqs * GIB / (r->count.pages * PAGE_SIZE)
		       : 0;
}

/* The seed's claim: one flush per PMD sends 512x fewer IPIs. */
static void check_ratio(const struct rc_run *runs, size_t n)
{
	const struct rc_run *pp = result_of(runs, n, RC_PER_PAGE, 1);
	const struct rc_run *b31 = result_of(runs, n, RC_BATCH, 31);
	const struct rc_run *b512 = result_of(runs, n, RC_BATCH, 512);

	if (!pp || !b512)
		return;
	report_check(pp->count.icr == 512 * b512->count.icr,
		     "reclaim: per-page sends 512x the IPIs of batch 512",
		     "%llu vs %llu", (unsigned long long)pp->count.icr,
		     (unsigned long long)b512->count.icr);
	report_info("reclaim: interrupts per GiB paged out: per-page %llu, "
		    "batch 31 %llu, batch 512 %llu",
		    (unsigned long long)irqs_per_gib(pp),
		    (unsigned long long)(b31 ? irqs_per_gib(b31) : 0),
		    (unsigned long long)irqs_per_gib(b512));
}

/* An INVLPGB encoding the encoder refused: nothing would be flushed. */
static void report_refused(const struct rc_run *r)
{
	char name[96];

	if (!r->count.refused)
		return;
	ksnprintf(name, sizeof(name), "reclaim: %s %u: INVLPGB encoding",
		  r->kind->name, r->kind->batch);
	report_fail(name,
		    "the encoder refused %llu of %llu flushes: %s; each "
		    "flushed every CPU by IPIs instead",
		    (unsigned long long)r->count.refused,
		    (unsigned long long)r->count.flushes,
		    invlpgb_strerror(r->refused_err));
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
static bool responders_faulted(const struct rc_run *r, uint32_t faults)
{
	if (xcall_faults() == faults)
		return false;
	report_fail("reclaim: responders",
		    "%s %u: a cpu did not answer in time (above): this run "
		    "is discarded, not reported, and reclaim stops here (its "
		    "workers are set for the whole experiment)",
		    r->kind->name, r->kind->batch);
	return true;
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
	uint32_t faults = xcall_faults();

	if (invlpgb && !c->invlpgb_max_pages)
		return false;
	r->emulated = invlpgb && c->invlpgb_emulated;
	if (c->writers) {
		r->writers = true;
		if (!pass(c, pg, r, s) || responders_faulted(r, faults))
			return false;
		lost = r->count.lost;
	}
	r->writers = false;
	if (!pass(c, pg, r, s) || responders_faulted(r, faults))
		return false;
	r->count.lost = lost;
	report_refused(r);
	emit(c->ctx, r, s, r->count.flushes);
	return true;
}

/* Whether the control lost a write of every worker that wrote. */
static void control_verdict(const struct rc_run *ctl_run,
			    struct report_control *ctl)
{
	const struct rc_run *r = ctl_run;

	if (r->count.lost && r->lost_workers == r->writing_workers)
		report_control_shown(ctl,
				     "writing back before the flush lost %llu "
				     "writes, of each of the %u workers (%u of "
				     "at most %u passes)",
				     (unsigned long long)r->count.lost,
				     r->lost_workers, r->passes,
				     RC_CONTROL_PASSES);
	else if (r->count.lost)
		report_control_missed(ctl,
				      "writing back before the flush lost %llu "
				      "writes, but of only %u of the %u "
				      "workers in %u passes",
				      (unsigned long long)r->count.lost,
				      r->lost_workers, r->writing_workers,
				      r->passes);
	else
		report_control_missed(ctl,
				      "writing back before the flush lost no "
				      "write in %u passes: this machine shows "
				      "no stale translation here",
				      r->passes);
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
	uint32_t faults = xcall_faults();
	struct rc_counts sum = {0};
	unsigned n = 0;

	report_control_init(ctl, "reclaim: negative control");
	if (!c->writers)
		return;
	while (n < RC_CONTROL_PASSES &&
	       (!n || control.lost_workers < control.writing_workers)) {
		if (!pass(c, pg, &control, s + sum.flushes) ||
		    responders_faulted(&control, faults))
			return;
		rc_counts_add(&sum, &control.count);
		control.accumulate = true;
		n++;
	}
	control.count = sum;
	control.passes = n;
	emit(c->ctx, &control, s, sum.flushes);
	control_verdict(&control, ctl);
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
	uint32_t faults = xcall_faults();
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
	s = bench_alloc(c.cold_pages);
	if (!s || !c.cold_pages || !rc_prepare(&state, &c)) {
		report_fail("reclaim: setup", "out of memory");
		bench_free(s, c.cold_pages);
		return;
	}
	bench_printf(
		"reclaim: %llu MiB cold, %llu MiB hot on each of %u workers\n"
		"  strategy               batch     ipis     irqs   loss "
		"   pages/s   lost\n",
		(unsigned long long)(c.cold_pages * PAGE_SIZE >> 20),
		(unsigned long long)(c.hot_pages * PAGE_SIZE >> 20), c.workers);
	for (size_t i = 0; i < NKINDS; i++)
		runs[i] = (struct rc_run){.kind = &kinds[i]};
	for (size_t i = 0; i < NKINDS; i++) {
		if (xcall_faults() != faults)
			break; /* responders_faulted() said why */
		runs[i].ran = run_one(&c, &pg, &runs[i], s);
		if (runs[i].ran)
			check_counts(&runs[i]);
	}
	check_ratio(runs, NKINDS);
	/* First the control: whether a lost write can be seen at all. */
	if (xcall_faults() == faults)
		negative_control(&c, &pg, s, &ctl);
	else
		report_control_init(&ctl, "reclaim: negative control");
	for (size_t i = 0; i < NKINDS; i++)
		if (runs[i].ran)
			check_lost(&runs[i], c.writers, &ctl);
	rc_release(&state);
	bench_free(s, c.cold_pages);
}
