// SPDX-License-Identifier: MIT
/*
 * reclaim, what its runs found: their records, the table's rows and the
 * verdicts (bench/reclaim_report.h).
 */
#include "bench/bench.h"
#include "bench/findings.h"
#include "bench/reclaim_report.h"
#include "bench/reclaim_timeline.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "lib/printf.h"
#include "mm/invlpgb.h"
#include "mm/layout.h"
#include "smp/percpu.h"

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

void rc_emit(struct bench_ctx *ctx, const struct rc_run *r, uint64_t *samples,
	     uint64_t n)
{
	const struct rc_kind *k = r->kind;
	/* the time spent printing ticks and progress left out */
	uint64_t ns = tsc_to_ns(r->count.cycles - r->count.ticks);
	/* the CPUs still in the run (smp.h: one can be taken out) */
	uint64_t others = cpumask_count(&cpus_online) - 1;
	char ci[24];
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
	struct result_field g[sizeof(f) / sizeof(f[0]) + RC_TL_FIELDS];
	size_t ng = sizeof(f) / sizeof(f[0]) - (k->s != RC_WRITEBACK_FIRST);
	struct result res = {.bench = "reclaim",
			     .strategy = k->name,
			     .role = k->role,
			     .flush = rc_uses_ipis(k) ? FK_IPI : FK_INVLPGB,
			     .pages = r->count.pages,
			     .targets = others,
			     .samples = samples,
			     .n = n,
			     .fields = g,
			     .emulated = r->emulated};

	for (size_t i = 0; i < ng; i++)
		g[i] = f[i];
	res.nfields = ng + rc_tl_fields(r, g + ng);
	if (k->s != RC_WRITEBACK_FIRST) /* the control measures no loss */
		res.not_hardware = rc_not_hardware();

	result_emit(&ctx->records, &res);
	bench_printf("  %-22s %5u %8llu %8llu %6lld%% %-11s %10llu %6llu\n",
		     k->name, k->batch, (unsigned long long)r->count.icr,
		     (unsigned long long)r->count.irqs, (long long)r->loss_pct,
		     rc_tl_interval_text(r, ci, sizeof(ci)),
		     (unsigned long long)f[8].value,
		     (unsigned long long)r->count.lost);
}

/* Exact counts: one IPI per other CPU per flush, one interrupt each. */
void rc_check_counts(const struct rc_run *r)
{
	const struct rc_kind *k = r->kind;
	uint64_t others = cpumask_count(&cpus_online) - 1;
	uint64_t unit = k->batch ? k->batch : 1;
	uint64_t flushes = (r->count.pages + unit - 1) / unit;

	if (r->emulated) /* the software model sends IPIs of its own */
		return;
	report_checkf(
		r->count.flushes == flushes &&
			r->count.icr ==
				(rc_uses_ipis(k) ? flushes * others : 0) &&
			r->count.irqs == r->count.icr,
		"reclaim: %s %u: exact counts" REPORT_DETAIL
		"%llu flushes, %llu IPIs, %llu interrupts",
		k->name, k->batch, (unsigned long long)r->count.flushes,
		(unsigned long long)r->count.icr,
		(unsigned long long)r->count.irqs);
}

/* A lost write always fails; none proves the flush as the control decides. */
#define LOST_NAME "reclaim: %s %u: no lost writes" /* a strategy, a batch */
void rc_check_lost(const struct rc_run *r, bool writers,
		   const struct report_control *ctl)
{
	if (writers)
		report_gated(ctl, r->count.lost, "lost writes", NULL, LOST_NAME,
			     r->kind->name, r->kind->batch);
	else
		report_skipf(LOST_NAME REPORT_DETAIL
			     "writers=off: nothing was written",
			     r->kind->name, r->kind->batch);
}

/* Interrupts per GiB paged out; 0 if r paged nothing out (it failed). */
static uint64_t irqs_per_gib(const struct rc_run *r)
{
	return findings_irqs_per_gib(r->count.irqs, r->count.pages);
}

/* The seed's claim: one flush per PMD sends 512x fewer IPIs. */
void rc_check_ratio(const struct rc_run *runs, size_t n)
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
void rc_report_refused(const struct rc_run *r)
{
	if (!r->count.refused)
		return;
	report_failf("reclaim: %s %u: INVLPGB encoding" REPORT_DETAIL
		     "the encoder refused %llu of %llu flushes: %s; each "
		     "flushed every CPU by IPIs instead",
		     r->kind->name, r->kind->batch,
		     (unsigned long long)r->count.refused,
		     (unsigned long long)r->count.flushes,
		     invlpgb_strerror(r->refused_err));
}

/* Whether the control lost a write of every worker that wrote. */
void rc_control_verdict(const struct rc_run *r, unsigned max_passes,
			struct report_control *ctl)
{
	if (r->count.lost && r->lost_workers == r->writing_workers)
		report_control_shown(ctl,
				     "writing back before the flush lost %llu "
				     "writes, of each of the %u workers (%u of "
				     "at most %u passes)",
				     (unsigned long long)r->count.lost,
				     r->lost_workers, r->passes, max_passes);
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
