// SPDX-License-Identifier: MIT
/*
 * flushloop, the analogue of will-it-scale's tlb_flush2_threads: every
 * participating CPU of one address space loops "write its own page; unmap
 * it and flush it on every participating CPU with the strategy; map a
 * fresh zeroed frame; check that it reads zero". Reported: operations per
 * second, all CPUs together and per CPU, for 1, 2, 4, ... all CPUs.
 *
 * Each CPU has two pages and works on them in turn, so that one is
 * mapped while it flushes the other. Between two of its operations every
 * CPU reads another's mapped page (each other CPU in turn), so that its
 * TLB holds that translation when the owner next unmaps the page: a
 * flush that missed this CPU leaves it reading a frame whose flush the
 * owner already finished, which the check counts.
 *
 * This file: the rounds, the negative controls, the records and the
 * verdicts; flushloop_round.c: what the CPUs do in a round.
 */
#include "bench/bench.h"
#include "bench/flushloop.h"
#include "bench/options.h"
#include "bench/xcpu_fault.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "lib/string.h"
#include "mm/pagefault.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

const char *const fl_names[FL_COUNT + 1] = {"ipi-page", "ipi-range", "invlpgb",
					    "local-only"};
/* What each one's records are (bench/role.h); the control skips the IPI. */
static const struct {
	enum result_role role;
	enum flush_kind flush;
} fl_what[FL_COUNT + 1] = {
	[FL_IPI_PAGE] = {ROLE_PAGE, FK_IPI},
	[FL_IPI_RANGE] = {ROLE_RANGE, FK_IPI},
	[FL_INVLPGB] = {ROLE_RANGE, FK_INVLPGB},
	[FL_CONTROL] = {ROLE_CONTROL, FK_LOCAL},
};

/* What a strategy's rounds add up to, for its verdicts. */
struct fl_tally {
	uint64_t nonzero;      /* own page read non-zero after its remap */
	uint64_t remote_reads; /* reads of another CPU's page */
	uint64_t stale_remote; /* of them, stale */
	bool stale_seen;       /* first_stale holds the first of them */
	struct fl_stale first;
};

struct result_what fl_strategy_what(int s)
{
	return (struct result_what){fl_names[s], fl_what[s].role,
				    fl_what[s].flush};
}

/* The round just run, as a record and a line; its counts go into t. */
static void record(struct fl_run *run, unsigned n, uint64_t duration_us,
		   struct fl_tally *t)
{
	const struct fl_cpu *fl = run->cpu;
	const char *strategy = fl_names[run->strategy];
	uint64_t total = 0, lo = UINT64_MAX, hi = 0, failed = 0, bad = 0;
	uint64_t reads = 0, stale = 0;
	unsigned cpu;

	for_each_cpu(cpu, &run->participants) {
		uint64_t per = fl[cpu].ops * 1000000 / duration_us;

		total += fl[cpu].ops;
		lo = per < lo ? per : lo;
		hi = per > hi ? per : hi;
		bad += fl[cpu].nonzero;
		failed += fl[cpu].failed;
		reads += fl[cpu].remote_reads;
		stale += fl[cpu].stale_remote;
	}
	t->nonzero += bad;
	t->remote_reads += reads;
	t->stale_remote += stale;
	if (run->stale_taken && !t->stale_seen) {
		t->stale_seen = true;
		t->first = run->first_stale;
	}
	struct result_field f[] = {
		{"cpus", n, false},
		{"ops_per_s", total * 1000000 / duration_us, false},
		{"ops_per_s_cpu_min", lo, false},
		{"ops_per_s_cpu_max", hi, false},
		{"nonzero_reads", bad, false},
		{"failed_ops", failed, false},
		{"remote_reads", reads, false},
		{"stale_remote_reads", stale, false},
	};
	struct result r = {.bench = "flushloop",
			   .strategy = strategy,
			   .role = fl_what[run->strategy].role,
			   .flush = fl_what[run->strategy].flush,
			   .targets = n - 1,
			   .pages = 1,
			   .samples = run->latency,
			   .n = run->nlat ? run->nlat : 1,
			   .fields = f,
			   .nfields = sizeof(f) / sizeof(f[0]),
			   .emulated = run->strategy == FL_INVLPGB &&
				       !cpu_info.invlpgb};

	if (!run->nlat)
		run->latency[0] = 0;
	result_emit(&run->ctx->records, &r);
	bench_printf("  %-10s %4u cpus %10llu ops/s  per cpu %8llu..%-8llu  "
		     "stale cross-cpu %llu of %llu%s\n",
		     strategy, n, (unsigned long long)f[1].value,
		     (unsigned long long)lo, (unsigned long long)hi,
		     (unsigned long long)stale, (unsigned long long)reads,
		     r.emulated ? "  (emulated)" : "");
}

/*
 * The negative control, on cpu 0's page: write it, unmap it, map a fresh
 * zeroed frame and read it back WITHOUT a flush. A CPU that keeps the old
 * translation reads the old data; one that re-walks the tables reads zero,
 * and then a zero read after a flush proves nothing. False if the page
 * could not be remapped (a FAIL).
 */
static bool negative_control(struct report_control *ctl)
{
	uint64_t va = fl_own_va(this_cpu(), 0), old, pa, seen = 0;
	bool ok;

	report_control_init(ctl, "flushloop: negative control");
	*(volatile uint64_t *)va = fl_tag(this_cpu(), 0);
	pa = frame_alloc(PMM_ZERO);
	ok = pa && vm_unmap(va, PT_4K, &old) == PT_OK;
	ok = ok &&
	     vm_map(va, pa, PT_4K, PTE_P | PTE_W | pte_nx(), NULL) == PT_OK;
	if (ok)
		seen = *(volatile uint64_t *)va;
	invlpg((const void *)va);
	if (!ok) {
		report_fail(ctl->name, "remap failed");
		return false;
	}
	frame_free(old & PTE_ADDR_MASK);
	if (seen)
		report_control_shown(ctl, "a remapped page read its old data "
					  "without a flush");
	else
		report_control_missed(ctl, "a remapped page read zero without "
					   "a flush: this machine re-walks "
					   "the page tables");
	return true;
}

/*
 * Runs a round of n CPUs and adds it to t, unless a CPU missed a wait or
 * answered late during it (smp.h): then it FAILs, and neither its record
 * nor its counts are kept.
 */
static bool round_kept(struct fl_run *run, unsigned n, uint64_t us,
		       struct fl_tally *t)
{
	struct xcpu_unit round;

	xcpu_unit_begin(&round);
	fl_run_round(run, n, us);
	run->rounds_done++;
	if (xcpu_unit_spoiled(&round, "flushloop: responders",
			      "%s, %u cpus: a cpu did not answer in time "
			      "(above): this round is discarded, not reported",
			      fl_names[run->strategy], n))
		return false;
	record(run, n, us, t);
	return true;
}

/*
 * The cross-CPU negative control: a round on every online CPU in which
 * each owner INVLPGs its page on its own CPU only. Each CPU must then
 * read, through another's page, a frame that owner had already
 * "flushed"; where one does not, the cross-CPU check cannot see a
 * missed remote flush on it. Shown only if every CPU did.
 */
static void cross_control(struct fl_run *run, unsigned online, uint64_t us,
			  struct report_control *ctl)
{
	bool local = run->local;
	struct fl_tally t = {0};
	unsigned cpu, blind = 0, first = 0;

	report_control_init(ctl, "flushloop: cross-cpu negative control");
	if (online < 2) {
		report_control_missed(ctl, "one cpu: no other cpu to read its "
					   "page");
		return;
	}
	run->local = true;
	run->strategy = FL_CONTROL;
	run->stale_taken = false;
	/* Once more with the CPUs left, if one was taken out during it. */
	if (!round_kept(run, online, us, &t)) {
		online = cpumask_count(&cpus_online);
		if (!round_kept(run, online, us, &t)) {
			run->local = local;
			report_control_missed(
				ctl, "its round was discarded twice (a "
				     "cpu did not answer in time, "
				     "above)");
			return;
		}
	}
	run->local = local;
	for_each_cpu(cpu, &run->participants)
		if (!run->cpu[cpu].stale_remote && !blind++)
			first = cpu;
	if (!blind)
		report_control_shown(ctl,
				     "%llu of %llu reads of another cpu's "
				     "page were stale with the remote flush "
				     "skipped, on each of %u cpus",
				     (unsigned long long)t.stale_remote,
				     (unsigned long long)t.remote_reads,
				     online);
	else if (t.stale_remote)
		report_control_missed(ctl,
				      "%u of %u cpus (the first: cpu %u) read "
				      "no stale data through another cpu's "
				      "page with the remote flush skipped",
				      blind, online, first);
	else
		report_control_missed(ctl,
				      "no cpu read stale data in %llu reads "
				      "of another cpu's page with the remote "
				      "flush skipped: this machine re-walks "
				      "the page tables, or the round was too "
				      "short to show it",
				      (unsigned long long)t.remote_reads);
}

static bool strategy_available(struct fl_run *run, enum fl_strategy s)
{
	bool emulated;

	if (s != FL_INVLPGB)
		return true;
	run->invlpgb_max =
		bench_invlpgb(&run->ctx->invlpgb, "flushloop", &emulated);
	return run->invlpgb_max != 0;
}

void flushloop_plan_shape(const struct bench_ctx *ctx, struct plan_flushloop *p)
{
	unsigned online = cpumask_count(&cpus_online), n;

	p->strategies = 0;
	for (int s = 0; s < FL_COUNT; s++)
		if (s != FL_INVLPGB || bench_invlpgb_planned(&ctx->invlpgb))
			p->names[p->strategies++] = fl_names[s];
	p->cpu_counts = 0;
	for_each_cpu_count(n, online) if (p->cpu_counts++ < PLAN_LIST_MAX)
		p->cpus[p->cpu_counts - 1] = n;
	p->controls = online > 1;
	p->duration_ms = ctx->size.flushloop_ms;
}

/* The time budget's hook: the shape, and whether the user set its time. */
void flushloop_plan(const struct bench_params *p, const struct bench_ctx *ctx,
		    const struct plan_costs *costs, struct plan *plan)
{
	(void)costs;
	flushloop_plan_shape(ctx, &plan->fl);
	plan->fl.duration_set = bench_given(p, "duration_ms");
}

static void own_verdict(int s, const struct fl_tally *t,
			const struct report_control *ctl)
{
	report_gated(ctl, t->nonzero, "reads that saw old data", NULL,
		     "flushloop: %s: remapped pages read zero", fl_names[s]);
}

#define CROSS_NAME "flushloop: %s: no stale cross-cpu reads" /* a strategy */

/*
 * A stale read through another CPU's page always fails, naming the first
 * one's owner (whose flush missed) and reader. None passes only where
 * the cross-CPU control showed that every CPU would have read stale data.
 */
static void cross_verdict(int s, const struct fl_tally *t, unsigned online,
			  const struct report_control *ctl)
{
	const struct fl_stale *f = &t->first;
	char what[96], why[320];

	if (!t->stale_remote && online < 2) {
		report_skipf(CROSS_NAME REPORT_DETAIL
			     "one cpu: no other cpu to read its page",
			     fl_names[s]);
		return;
	}
	if (!t->stale_remote && !t->remote_reads) {
		report_failf(CROSS_NAME REPORT_DETAIL
			     "no cpu read another cpu's page: the check did "
			     "not run",
			     fl_names[s]);
		return;
	}
	if (fl_tag_of(f->value, f->owner))
		ksnprintf(what, sizeof(what), "its generation %llu",
			  (unsigned long long)(f->value & FL_GEN_MASK));
	else
		ksnprintf(what, sizeof(what),
			  "0x%llx, which cpu %u never writes there",
			  (unsigned long long)f->value, f->owner);
	ksnprintf(why, sizeof(why),
		  "%llu of %llu reads of another cpu's page were stale; the "
		  "first: cpu %u read cpu %u's page after cpu %u's flush of "
		  "generation %llu had completed (a round of %u cpus) and saw "
		  "%s",
		  (unsigned long long)t->stale_remote,
		  (unsigned long long)t->remote_reads, f->checker, f->owner,
		  f->owner, (unsigned long long)f->done, f->cpus, what);
	report_gated(ctl, t->stale_remote, "stale reads of another cpu's page",
		     why, CROSS_NAME, fl_names[s]);
}

/*
 * Every CPU count of strategy s (fewer, if a CPU was taken out of the
 * run), then its verdicts.
 */
static void run_strategy(struct fl_run *run, enum fl_strategy s,
			 unsigned online, uint64_t us,
			 const struct report_control *own,
			 const struct report_control *cross)
{
	struct fl_tally t = {0};
	unsigned n, last = 0;

	run->strategy = s;
	run->stale_taken = false;
	for_each_cpu_count(n, online)
	{
		/* fewer, if a CPU was taken out of the run (smp.h) */
		unsigned m = n < cpumask_count(&cpus_online)
				     ? n
				     : cpumask_count(&cpus_online);

		if (m <= last)
			break;
		round_kept(run, m, us, &t);
		last = m;
	}
	own_verdict(s, &t, own);
	cross_verdict(s, &t, online, cross);
}

/* The run's state, and its pages mapped; false (a FAIL) if out of memory. */
static bool setup(struct fl_run *run, struct bench_ctx *ctx)
{
	struct plan_flushloop shape;

	memset(run, 0, sizeof(*run));
	run->ctx = ctx;
	flushloop_plan_shape(ctx, &shape);
	run->rounds_total =
		shape.strategies * shape.cpu_counts + shape.controls;
	run->latency = bench_alloc(FL_LATENCIES);
	if (!run->latency || !fl_map_own_pages()) {
		report_fail("flushloop: setup", "out of memory");
		return false;
	}
	return true;
}

void flushloop_run(const struct bench_params *p, struct bench_ctx *ctx)
{
	/* Per CPU counters and quarantines: far too big for a stack. */
	static struct fl_run run;
	uint64_t us = ctx->size.flushloop_ms * 1000;
	unsigned online = cpumask_count(&cpus_online);
	struct report_control own, cross;

	if (!setup(&run, ctx))
		return;
	if (!negative_control(&own)) {
		bench_free(run.latency, FL_LATENCIES);
		return;
	}
	run.local = p->flushloop_local;
	if (run.local)
		report_info("selftest: selftest=flushloop-local: every "
			    "flushloop strategy INVLPGs on the flushing cpu "
			    "only; the other cpus acknowledge its IPI without "
			    "flushing");
	/* A read of another CPU's page while its owner has it unmapped. */
	pf_expect(FL_BASE, fl_own_va(MAX_CPUS, 0), PF_SKIP, NULL);
	bench_printf(
		"flushloop: write, unmap + flush, remap, check; read another "
		"cpu's page between operations; %llu ms each\n",
		(unsigned long long)ctx->size.flushloop_ms);
	cross_control(&run, online, us, &cross);
	for (int s = 0; s < FL_COUNT; s++)
		if (strategy_available(&run, (enum fl_strategy)s))
			run_strategy(&run, (enum fl_strategy)s, online, us,
				     &own, &cross);
	pf_expect_end(NULL);
	fl_drain_quarantine(&run);
	bench_free(run.latency, FL_LATENCIES);
}
