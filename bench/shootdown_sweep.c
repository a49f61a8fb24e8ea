// SPDX-License-Identifier: MIT
/*
 * The shootdown sweep: for every page count K and responder count T, each
 * strategy is sampled in a seeded random order (re-shuffled every sample, so
 * drift favours none), on identical state: the same pages, the same
 * responders, their TLBs warmed before every sample.
 */
#include "bench/bench.h"
#include "bench/inject.h"
#include "bench/rng.h"
#include "bench/shootdown_sample.h"
#include "bench/xcpu_fault.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "smp/smp.h"

static void table_line(void *ctx, const char *line)
{
	(void)ctx;
	bench_printf("%s\n", line);
}

/* CR3[11:0] is 0 (PCID 0), as turning PCIDE on requires. */
static void pcide_on(void *unused)
{
	(void)unused;
	write_cr4(read_cr4() | CR4_PCIDE);
}

static void pcide_off(void *unused)
{
	(void)unused;
	write_cr4(read_cr4() & ~CR4_PCIDE);
}

/* One SKIP per INVLPGB strategy asked for, named as the plan names it. */
static void pcid_bug_skips(const struct sd_config *sw)
{
	for (int s = 0; s < S_COUNT; s++) {
		if (!sw->strategy[s] || !strategy_is_invlpgb(s))
			continue;
		report_skipf("shootdown: %s: bug=pcid" REPORT_DETAIL
			     "this CPU has no PCID (CPUID.01H:ECX[17]; TCG has "
			     "none), so no wrong PCID can be named: INVLPGB "
			     "is not run",
			     strategy_names[s]);
	}
}

/*
 * CR4.PCIDE on (or back off) on every CPU, for bug=pcid only; false if
 * this CPU has no PCID (a SKIP says so when turning it on).
 */
static bool pcid_bug(const struct sd_config *sw, bool on)
{
	struct cpumask others;

	if (sw->bug != PARAM_BUG_PCID || !sw->invlpgb_max_pages)
		return true;
	if (!cpu_info.pcid) {
		if (on)
			pcid_bug_skips(sw);
		return false;
	}
	cpus_others(&others);
	on_cpumask(&others, on ? pcide_on : pcide_off, NULL, IPI_EACH);
	(on ? pcide_on : pcide_off)(NULL);
	return true;
}

/*
 * selftest=oom: once the pages are set up, the frame allocator grants
 * this many requests and refuses the rest (docs/faults.md, "Out of memory").
 */
#define OOM_GRANTS 3

/*
 * Only the responders still in the run (smp.h: a CPU that stopped
 * answering is taken out), so that the records' targets are the CPUs
 * actually flushed; false if none is left.
 */
static bool prune_responders(struct sweep_state *st)
{
	cpumask_and(&st->resp, &st->resp, &cpus_online);
	st->nresp = cpumask_count(&st->resp);
	return st->nresp != 0;
}

/*
 * Whether a responder missed a wait (or answered late) during this
 * configuration (a FAIL says so): its samples hold that wait, and
 * perhaps rounds without that CPU, and are discarded.
 */
static bool config_spoiled(const struct sweep_state *st,
			   const struct xcpu_unit *config, unsigned k)
{
	return xcpu_unit_spoiled(config, "shootdown: responders",
				 "%u pages, %u targets: a responder did not "
				 "answer in time (above): this "
				 "configuration's samples are discarded, not "
				 "reported; the sweep goes on with the cpus "
				 "that answer",
				 k, st->nresp);
}

/*
 * No frames for variant v[n - 1]'s buffers: the sweep stops, after
 * freeing what this configuration holds (the records already printed
 * stay; the next experiment runs).
 */
static void out_of_memory(struct sweep_state *st, struct variant *v, size_t n,
			  unsigned k)
{
	const struct sd_config *sw = st->sw;
	const struct variant *x = &v[n - 1];

	report_fail("shootdown: out of memory",
		    "%u pages, %u targets: no frames for the %u samples%s of "
		    "%s%s: the sweep stops here, its buffers are freed",
		    k, st->nresp, sw->samples,
		    sw->handler_timing ? " and handler times" : "",
		    sd_variant_name(x->s, x->global),
		    strategy_is_invlpgb(x->s)  ? ""
		    : x->mode == IPI_BROADCAST ? " (broadcast)"
					       : " (unicast)");
	for (size_t i = 0; i < n; i++)
		sd_free_variant(&v[i], sw, st->nresp);
}

/* Every sample of one variant list, or until a responder missed a wait. */
static void run_samples(struct sweep_state *st, struct variant *v, size_t nv,
			unsigned k, struct rng *rng,
			const struct xcpu_unit *config)
{
	const struct sd_config *sw = st->sw;
	uint32_t order[MAX_VARIANTS];
	unsigned total = sw->warmup + sw->samples;

	for (size_t i = 0; i < nv; i++)
		order[i] = (uint32_t)i;
	for (unsigned s = 0; s < total && !xcpu_unit_faulted(config); s++) {
		rng_shuffle(rng, order, nv);
		for (size_t i = 0; i < nv; i++) {
			struct variant *x = &v[order[i]];
			uint64_t *keep = x->samples;

			if (s < sw->warmup) {
				x->samples = NULL; /* run, but do not keep */
			} else if (st->nmi_due && x->plan.remote) {
				/*
				 * The first kept sample of an IPI variant:
				 * INVLPGB's flush has no round for the
				 * responder's NMI to ride, and an untimed
				 * cleanup round would take it instead.
				 */
				st->nmi_due = false;
				inject_nmi_next_flush();
			}
			sd_sample(st, x, k, s);
			x->samples = keep;
		}
	}
}

/* Every sample of configuration (k pages, resp); false: out of memory. */
static bool run_config(struct sweep_state *st, unsigned k, struct rng *rng)
{
	const struct sd_config *sw = st->sw;
	struct variant v[MAX_VARIANTS];
	struct xcpu_unit config;
	bool spoiled;
	size_t nv;

	xcpu_unit_begin(&config);
	if (!prune_responders(st))
		return true;
	nv = sd_build_variants(st, v, k, true);
	for (size_t i = 0; i < nv; i++) {
		if (!sd_alloc_variant(&v[i], sw, st->nresp)) {
			out_of_memory(st, v, i + 1, k);
			return false;
		}
	}
	run_samples(st, v, nv, k, rng, &config);
	spoiled = config_spoiled(st, &config, k);
	for (size_t i = 0; i < nv; i++) {
		if (!spoiled)
			sd_finish(st, &v[i], k);
		sd_free_variant(&v[i], sw, st->nresp);
	}
	return true;
}

/* The distance class of cpu if it is that class's representative, or -1. */
static int class_represented_by(unsigned cpu)
{
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++)
		if (smp_cpu_in_class((enum topo_class)k) == cpu)
			return k;
	return -1;
}

static void progress(struct bench_progress *pr, unsigned done, unsigned total)
{
	char what[40];

	if (!bench_progress_due(pr, rdtsc(), done, total))
		return;
	ksnprintf(what, sizeof(what), "%u/%u configurations", done, total);
	bench_progress(pr, "shootdown", done, total, what);
}

/*
 * Every page count of the sweep to this configuration's responders;
 * false: out of memory, the sweep stops.
 */
static bool run_pages(struct sweep_state *st, struct rng *rng, unsigned *done,
		      unsigned total)
{
	for (unsigned p = 0; p < st->sw->npages; p++) {
		if (!run_config(st, st->sw->pages[p], rng))
			return false;
		progress(&st->sw->ctx->progress, ++*done, total);
	}
	return true;
}

/*
 * Every responder count; covered[k]: a 1-target configuration was
 * distance class k's representative, so that class is not run again.
 */
static bool sweep_targets(struct sweep_state *st, struct rng *rng,
			  unsigned *done, unsigned total,
			  bool covered[TOPO_CLASSES])
{
	for (unsigned t = 0; t < st->sw->ntargets; t++) {
		int k;

		sd_choose_responders(st, st->sw->targets[t]);
		/*
		 * One responder that represents a distance class: this is
		 * that class's sweep too, so its records say so and it is
		 * not run again below.
		 */
		k = st->nresp == 1
			    ? class_represented_by(cpumask_first(&st->resp))
			    : -1;
		if (k >= 0) {
			covered[k] = true;
			st->distance = topo_class_name((enum topo_class)k);
		}
		if (!run_pages(st, rng, done, total))
			return false;
		st->distance = NULL;
	}
	return true;
}

/* One responder from each distance class the machine has. */
static void sweep_classes(struct sweep_state *st, struct rng *rng,
			  unsigned *done, unsigned total,
			  const bool covered[TOPO_CLASSES])
{
	char note[96];

	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++) {
		unsigned cpu = smp_cpu_in_class((enum topo_class)k);

		if (!cpu)
			continue;
		st->distance = topo_class_name((enum topo_class)k);
		if (covered[k]) {
			ksnprintf(note, sizeof(note),
				  "one responder: %s (cpu %u): the 1-target "
				  "rows above",
				  st->distance, cpu);
			table_note(&st->table, note);
			st->distance = NULL;
			*done += st->sw->npages;
			continue;
		}
		ksnprintf(note, sizeof(note), "one responder: %s (cpu %u)",
			  st->distance, cpu);
		table_note(&st->table, note);
		cpumask_zero(&st->resp);
		cpumask_set(cpu, &st->resp);
		st->nresp = 1;
		if (!run_pages(st, rng, done, total))
			return;
		st->distance = NULL;
	}
}

/* selftest=nmi: the injected NMI's sample must have been discarded. */
static void nmi_verdict(const struct sweep_state *st)
{
	if (!st->sw->inject_nmi)
		return;
	if (st->nmi_due)
		report_skip("selftest: nmi",
			    "selftest=nmi: no IPI strategy "
			    "kept a sample in shootdown: nothing was injected");
	else
		inject_nmi_check("shootdown", st->nmi_discards);
}

/* Configurations the sweep runs in all, for its progress. */
static unsigned configs_total(const struct sd_config *sw)
{
	unsigned total = sw->npages * sw->ntargets;

	/* and a sweep per distance class, unless the 1-target one was it */
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++)
		if (smp_cpu_in_class((enum topo_class)k))
			total += sw->npages;
	return total;
}

void shootdown_sweep(const struct sd_config *sw)
{
	/* 24 KiB of encodings: off the stack */
	static struct sweep_state st;
	unsigned done = 0, total = configs_total(sw);
	bool covered[TOPO_CLASSES] = {false};
	struct sd_pages *pages = sd_setup();
	struct report_control ctl;
	struct rng rng;

	if (!pages) {
		report_fail("shootdown: setup", "out of memory for the pages");
		return;
	}
	st = (struct sweep_state){
		.sw = sw, .pages = pages, .nmi_due = sw->inject_nmi};
	if (sw->inject_oom)
		inject_oom_begin(OOM_GRANTS, "shootdown");
	rng_seed(&rng, sw->seed);
	pcid_bug(sw, true);
	xcall_time_handlers(sw->handler_timing);
	table_results_begin(&st.table,
			    "shootdown: latency of the invalidation on the "
			    "initiator (cpu 0)",
			    table_line, NULL);
	if (sweep_targets(&st, &rng, &done, total, covered))
		sweep_classes(&st, &rng, &done, total, covered);
	table_end(&st.table);
	nmi_verdict(&st);
	xcall_time_handlers(false);
	sd_negative_control(&st, &ctl);
	sd_verdicts(&st, &ctl);
	pcid_bug(sw, false);
	if (sw->inject_oom)
		inject_oom_end("shootdown");
}
