// SPDX-License-Identifier: MIT
/*
 * The shootdown sweep: for every page count K and responder count T, each
 * strategy is sampled in a seeded random order (re-shuffled every sample, so
 * drift favours none), on identical state: the same pages, the same
 * responders, their TLBs warmed before every sample.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/inject.h"
#include "bench/rng.h"
#include "bench/shootdown_pages.h"
#include "bench/shootdown_sweep.h"
#include "bench/table.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define MAX_VARIANTS (4 * S_COUNT) /* modes x global or not */

struct variant {
	enum strategy s;
	enum ipi_mode mode;
	bool global; /* on global pages (PTE.G) */
	struct flush_plan plan;
	uint64_t *samples, *handler;
	size_t n, nh;	    /* samples kept, handler times */
	uint64_t discarded; /* samples an NMI landed in */
	uint64_t icr, irqs;
	/* Stale reads its own samples left, and where the first one was. */
	uint64_t stale, stale_samples, first_va;
	unsigned first_sample, first_cpu;
};

static void table_line(void *ctx, const char *line)
{
	(void)ctx;
	bench_printf("%s\n", line);
}

/* Per strategy and mode, over the whole sweep: for the final verdicts. */
struct tally {
	unsigned configs;
	uint64_t stale;
	bool counts_wrong;
	bool emulated;
};

/*
 * A sweep's state (or the pilot's), handed down from shootdown_sweep():
 * this configuration's responders, the tallies the verdicts come from.
 */
/* The sweep while it runs: this configuration, the tallies so far. */
struct sweep_state {
	const struct sd_config *sw;
	struct cpumask resp;
	unsigned nresp;
	const char *distance; /* one responder of this class, or NULL */
	struct table table;   /* the human one, beside the records */
	/* The INVLPGB variant's encoding (the only variant that has one). */
	struct invlpgb_regs insns[SD_MAX_PAGES];
	struct tally tally[S_COUNT][2][2]; /* [strategy][broadcast][global] */
	bool nmi_due;	       /* selftest=nmi: in the first kept sample */
	uint64_t nmi_discards; /* samples an NMI landed in */
};

static const enum flush_how strategy_how[S_COUNT] = {
	[S_IPI_PAGE] = FLUSH_IPI_PAGE, [S_IPI_RANGE] = FLUSH_IPI_RANGE,
	[S_IPI_FULL] = FLUSH_IPI_FULL, [S_IPI_LINUX] = FLUSH_IPI_LINUX,
	[S_INVLPGB] = FLUSH_INVLPGB,
};

/* delay_handler=: the busy-wait of this variant's handlers, or 0. */
static uint64_t delay_of(const struct variant *v, const struct sd_config *sw)
{
	return v->s == sw->delay_strategy ? sw->delay_cycles : 0;
}

/*
 * The variant's flush of k pages to this configuration's responders, as
 * bench/flush.c plans it; the encoder's error, if INVLPGB was refused.
 */
static int plan_variant(struct sweep_state *st, struct variant *v, unsigned k)
{
	const struct sd_config *sw = st->sw;
	struct flush_req req = {.how = strategy_how[v->s],
				.va = SD_BASE,
				.pages = k,
				.targets = &st->resp,
				.mode = v->mode,
				.global = v->global,
				.invlpgb_max = sw->invlpgb_max_pages,
				.bug = sw->bug,
				.delay_cycles = delay_of(v, sw)};

	return flush_prepare(&v->plan, &req, st->insns, SD_MAX_PAGES);
}

/*
 * The stale reads the last verification counted, on every CPU, and where
 * the first was (lowest CPU); the counters are reset.
 */
static uint64_t take_stale(unsigned *cpu_out, uint64_t *va_out)
{
	uint64_t sum = 0;

	for (unsigned cpu = 0; cpu < nr_cpus; cpu++) {
		if (sd_pages.stale[cpu] && !sum) {
			*cpu_out = cpu;
			*va_out = sd_pages.stale_va[cpu];
		}
		sum += sd_pages.stale[cpu];
		sd_pages.stale[cpu] = 0;
	}
	return sum;
}

/*
 * Every entry on every CPU, global ones included: after every sample (a
 * variant that left its pages stale must not make the next one look
 * wrong, or right) and after the negative control, which leaves stale
 * entries on purpose.
 *
 * Always a full flush, never INVLPG of the sample's own pages, though
 * that would keep the next round's code and data warm: measured on the
 * default 4-CPU TCG run, INVLPG of up to 33 pages after each sample (an
 * extra IPI round) took shootdown from 5.5 s to 16.9 s, and folding it
 * into the next sample's warming round still to 13.6 s, with the
 * protocol overhead ratio unchanged (2.0-2.1 all three ways). The round
 * that warms the next sample (sd_touch on every CPU) runs the same
 * handler path first, so little of that path is cold when it is timed.
 */
static void clean_tlbs(struct sweep_state *st)
{
	flush_everywhere(&st->resp, true);
}

/* The handler times of a kept sample, one per responder. */
static void keep_handler_times(struct variant *v, const struct cpumask *resp)
{
	unsigned cpu;

	if (!v->handler || v->s == S_INVLPGB)
		return;
	for (cpu = cpumask_next_below(0, resp, nr_cpus); cpu < MAX_CPUS;
	     cpu = cpumask_next_below(cpu + 1, resp, nr_cpus))
		v->handler[v->nh++] = xcall_handler_cycles(cpu);
}

/*
 * The time of a flush, kept unless an NMI landed on this CPU or a
 * responder during it: then it holds the NMI handler too, and is only
 * counted (docs/output.md, "Faults").
 */
static void keep(struct variant *v, const struct cpumask *resp, uint64_t cycles,
		 bool nmi)
{
	if (!v->samples)
		return;
	if (nmi) {
		v->discarded++;
		return;
	}
	v->samples[v->n++] = cycles;
	keep_handler_times(v, resp);
}

/*
 * One sample of one variant: warm, change, time the flush, verify; the
 * stale reads are this sample's, charged to this variant; then clean.
 */
static void sample(struct sweep_state *st, struct variant *v, unsigned k,
		   unsigned index)
{
	const struct cpumask *resp = &st->resp;
	uint64_t stale, va = 0;
	unsigned first = 0;
	uint64_t t0, t1, icr0, irq0, nmi0;

	sd_set_global(v->global);
	on_cpumask(resp, sd_touch, (void *)(uintptr_t)k, IPI_EACH);
	sd_touch((void *)(uintptr_t)k);
	sd_flip(k);
	icr0 = apic_icr_writes[0];
	irq0 = xcall_irqs_sum(resp);
	nmi0 = nmi_count(resp);
	t0 = rdtsc_ordered();
	flush_run(&v->plan);
	t1 = rdtsc_ordered();
	v->icr += apic_icr_writes[0] - icr0;
	v->irqs += xcall_irqs_sum(resp) - irq0;
	keep(v, resp, t1 - t0, nmi_count(resp) != nmi0);
	on_cpumask(resp, sd_verify, (void *)(uintptr_t)k, IPI_EACH);
	sd_verify((void *)(uintptr_t)k);
	stale = take_stale(&first, &va);
	if (stale && !v->stale_samples++) {
		v->first_sample = index;
		v->first_cpu = first;
		v->first_va = va;
	}
	v->stale += stale;
	clean_tlbs(st);
}

/* The global-page variants' names, in records, tables and verdicts. */
static const char *const global_names[S_COUNT] = {
	[S_IPI_FULL] = "ipi-full-global",
	[S_INVLPGB] = "invlpgb-global",
};

static const char *name_of(int s, bool global)
{
	return global ? global_names[s] : strategy_names[s];
}

/* IPIs each sample must send: exact, from the strategy's definition. */
static uint64_t expected_ipis(enum strategy s, unsigned k, unsigned nresp)
{
	if (s == S_INVLPGB)
		return 0;
	return (s == S_IPI_PAGE ? k : 1) * (uint64_t)nresp;
}

static void finish(struct sweep_state *st, struct variant *v, unsigned k)
{
	const struct sd_config *sw = st->sw;
	struct tally *t = &st->tally[v->s][v->mode == IPI_BROADCAST][v->global];
	unsigned nresp = st->nresp;
	uint64_t per = (uint64_t)sw->samples + sw->warmup, stale = v->stale;
	uint64_t ipis = v->icr * (v->mode == IPI_BROADCAST ? nresp : 1);
	unsigned m = v->mode == IPI_BROADCAST;
	struct stats hs = {0};
	struct table_result row;
	struct result_field f[9];
	struct result r = {.bench = "shootdown",
			   .strategy = name_of(v->s, v->global),
			   .ipi_mode = v->s == S_INVLPGB ? NULL
				       : m		 ? "broadcast"
							 : "unicast",
			   .pages = k,
			   .targets = nresp,
			   .samples = v->samples,
			   .n = v->n,
			   .fields = f,
			   .emulated =
				   v->s == S_INVLPGB && sw->invlpgb_emulated};

	if (v->nh)
		stats_compute(v->handler, v->nh, sw->ctx->records.overhead,
			      &hs);
	f[0] = (struct result_field){"ipis_sent", ipis / per, false};
	f[1] = (struct result_field){"irqs_received", v->irqs / per, false};
	f[2] = (struct result_field){"icr_writes", v->icr / per, false};
	f[3] = (struct result_field){"stale_reads", stale, false};
	f[4] = (struct result_field){"handler_p50", hs.p50, false};
	f[5] = (struct result_field){"handler_p99", hs.p99, false};
	f[6] = (struct result_field){"handler_max", hs.max, false};
	/* INVLPGB has no handler to time; the others, when asked to. */
	r.nfields = v->s == S_INVLPGB || !sw->handler_timing ? 4 : 7;
	/* A record made slower on purpose says so (delay_handler=). */
	if (delay_of(v, sw))
		f[r.nfields++] = (struct result_field){"delay_cycles",
						       delay_of(v, sw), false};
	st->nmi_discards += v->discarded;
	if (v->discarded) {
		f[r.nfields++] = (struct result_field){"discarded_nmi",
						       v->discarded, false};
		report_info("shootdown: samples discarded: %llu (NMI): %s%s%s, "
			    "%u pages, %u targets; %zu kept",
			    (unsigned long long)v->discarded, r.strategy,
			    r.ipi_mode ? " " : "", r.ipi_mode ? r.ipi_mode : "",
			    k, nresp, v->n);
	}
	r.distance = st->distance;
	result_emit(&sw->ctx->records, &r);
	row.strategy = r.strategy;
	row.ipi_mode = r.ipi_mode ? (m ? "bcast" : "each") : NULL;
	row.pages = k;
	row.targets = nresp;
	row.cycles = &r.st;
	row.tsc_khz = tsc_freq.khz;
	row.stale_reads = stale;
	row.emulated = r.emulated;
	table_result_row(&st->table, &row);
	t->configs++;
	t->emulated |= r.emulated;
	t->stale += stale;
	if (stale)
		report_fail("shootdown: stale translation",
			    "%s%s%s, %u pages, %u targets: %llu stale reads "
			    "in %llu of %llu samples, first in sample %u on "
			    "cpu %u at %#llx",
			    r.strategy, r.ipi_mode ? " " : "",
			    r.ipi_mode ? r.ipi_mode : "", k, nresp,
			    (unsigned long long)stale,
			    (unsigned long long)v->stale_samples,
			    (unsigned long long)per, v->first_sample,
			    v->first_cpu, (unsigned long long)v->first_va);
	/* The software model sends IPIs of its own: nothing exact there. */
	if (!r.emulated &&
	    (ipis != expected_ipis(v->s, k, nresp) * per || v->irqs != ipis))
		t->counts_wrong = true;
}

/*
 * invlpgb=...,bug=pcid names another PCID than the one the harness runs
 * in (0), which needs CR4.PCIDE on: the sweep turns it on everywhere
 * where CPUID has PCID. Without it, INVLPGB does not run at all.
 */
static bool invlpgb_runs(const struct sd_config *sw)
{
	return sw->invlpgb_max_pages &&
	       (sw->bug != PARAM_BUG_PCID || (read_cr4() & CR4_PCIDE));
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
		if (!on)
			return false;
		report_skip("shootdown: invlpgb: bug=pcid",
			    "this CPU has no PCID (CPUID.01H:ECX[17]; TCG "
			    "has none), so no wrong PCID can be named: "
			    "INVLPGB is not run");
		return false;
	}
	cpus_others(&others);
	on_cpumask(&others, on ? pcide_on : pcide_off, NULL, IPI_EACH);
	(on ? pcide_on : pcide_off)(NULL);
	return true;
}

/*
 * Global pages (PTE.G) change what two strategies do: a CR3 reload keeps
 * their entries (ipi-full must toggle CR4.PGE) and INVLPGB drops them only
 * with include-global. INVLPG drops any entry of its address, so the
 * others would repeat the non-global rows.
 */
static bool has_global_variant(enum strategy s)
{
	return s == S_IPI_FULL || s == S_INVLPGB;
}

const char *shootdown_global_name(enum strategy s)
{
	return has_global_variant(s) ? global_names[s] : NULL;
}

/* Adds v to the list if it can be planned; a refused encoding FAILs. */
static void add_variant(struct sweep_state *st, struct variant *list, size_t *n,
			struct variant v, unsigned k, bool report)
{
	int err = plan_variant(st, &v, k);

	if (!err) {
		list[(*n)++] = v;
		return;
	}
	/* No INVLPGB variant at all, rather than one that flushes nothing. */
	if (report)
		report_fail("shootdown: invlpgb: encoding",
			    "%u pages, %u targets%s: %s", k, st->nresp,
			    v.global ? ", global pages" : "",
			    invlpgb_strerror(err));
}

/*
 * The variants of configuration (k pages, the responders), each with its
 * flush planned; report: say what the encoder refused.
 */
static size_t build_variants(struct sweep_state *st, struct variant *v,
			     unsigned k, bool report)
{
	const struct sd_config *sw = st->sw;
	bool all = st->nresp == cpumask_count(&cpus_online) - 1;
	size_t n = 0;

	for (int s = 0; s < S_COUNT; s++) {
		if (!sw->strategy[s])
			continue;
		for (int g = 0; g < 2; g++) {
			struct variant x = {.s = s, .global = g};

			if (g && !has_global_variant(s))
				continue;
			if (s == S_INVLPGB) {
				if (invlpgb_runs(sw))
					add_variant(st, v, &n, x, k, report);
				continue;
			}
			add_variant(st, v, &n, x, k, report);
			/* The shorthand reaches every other CPU: only for all. */
			x.mode = IPI_BROADCAST;
			if (all)
				add_variant(st, v, &n, x, k, report);
		}
	}
	return n;
}

static void choose_responders(struct sweep_state *st, unsigned t)
{
	unsigned cpu;

	cpumask_zero(&st->resp);
	st->nresp = 0;
	for_each_cpu(cpu, &cpus_online) {
		if (cpu != this_cpu() && st->nresp < t) {
			cpumask_set(cpu, &st->resp);
			st->nresp++;
		}
	}
}

static bool alloc_variant(struct variant *v, const struct sd_config *sw,
			  unsigned nresp)
{
	v->samples = bench_alloc(sw->samples);
	if (!sw->handler_timing)
		return v->samples != NULL;
	v->handler = bench_alloc((size_t)sw->samples * (nresp ? nresp : 1));
	return v->samples && v->handler;
}

static void free_variant(struct variant *v, const struct sd_config *sw,
			 unsigned nresp)
{
	bench_free(v->samples, sw->samples);
	if (v->handler)
		bench_free(v->handler,
			   (size_t)sw->samples * (nresp ? nresp : 1));
}

/*
 * selftest=oom: once the pages are set up, the frame allocator grants
 * this many requests and refuses the rest (docs/output.md, "Faults").
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
 * A responder missed a wait (or answered late) during this configuration:
 * its samples hold that wait, and perhaps rounds without that CPU.
 */
static void discard(struct sweep_state *st, struct variant *v, size_t nv,
		    unsigned k)
{
	report_fail("shootdown: responders",
		    "%u pages, %u targets: a responder did not answer in "
		    "time (above): this configuration's samples are "
		    "discarded, not reported; the sweep goes on with the "
		    "cpus that answer",
		    k, st->nresp);
	for (size_t i = 0; i < nv; i++)
		free_variant(&v[i], st->sw, st->nresp);
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
		    name_of(x->s, x->global),
		    x->s == S_INVLPGB	       ? ""
		    : x->mode == IPI_BROADCAST ? " (broadcast)"
					       : " (unicast)");
	for (size_t i = 0; i < n; i++)
		free_variant(&v[i], sw, st->nresp);
}

/* Every sample of one variant list, or until a responder missed a wait. */
static void run_samples(struct sweep_state *st, struct variant *v, size_t nv,
			unsigned k, struct rng *rng, uint32_t faults)
{
	const struct sd_config *sw = st->sw;
	uint32_t order[MAX_VARIANTS];
	unsigned total = sw->warmup + sw->samples;

	for (size_t i = 0; i < nv; i++)
		order[i] = (uint32_t)i;
	for (unsigned s = 0; s < total && xcall_faults() == faults; s++) {
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
			sample(st, x, k, s);
			x->samples = keep;
		}
	}
}

/* Every sample of configuration (k pages, resp); false: out of memory. */
static bool run_config(struct sweep_state *st, unsigned k, struct rng *rng)
{
	const struct sd_config *sw = st->sw;
	struct variant v[MAX_VARIANTS];
	uint32_t faults = xcall_faults();
	size_t nv;

	if (!prune_responders(st))
		return true;
	nv = build_variants(st, v, k, true);
	for (size_t i = 0; i < nv; i++) {
		if (!alloc_variant(&v[i], sw, st->nresp)) {
			out_of_memory(st, v, i + 1, k);
			return false;
		}
	}
	run_samples(st, v, nv, k, rng, faults);
	if (xcall_faults() != faults) {
		discard(st, v, nv, k);
		return true;
	}
	for (size_t i = 0; i < nv; i++) {
		finish(st, &v[i], k);
		free_variant(&v[i], sw, st->nresp);
	}
	return true;
}

/*
 * Responders of resp that saw no stale read in the last verification
 * (the counters are left for take_stale); *first: the lowest of them.
 */
static unsigned responders_without_stale(const struct cpumask *resp,
					 unsigned *first)
{
	unsigned cpu, n = 0;

	for_each_cpu(cpu, resp) {
		if (sd_pages.stale[cpu])
			continue;
		if (!n++)
			*first = cpu;
	}
	return n;
}

/*
 * Changes PTEs and never flushes: every responder must then read stale
 * data, or the verifier cannot prove anything for it. Shown only if each
 * one did (the initiator's own reads do not count: no verdict speaks for
 * it alone).
 */
static void negative_control(struct sweep_state *st, struct report_control *ctl)
{
	unsigned k = st->sw->pages[st->sw->npages - 1], cpu = 0, blind;
	unsigned first = 0, nresp;
	uint64_t stale, va = 0;

	report_control_init(ctl, "shootdown: negative control");
	choose_responders(st, cpumask_count(&cpus_online) - 1);
	nresp = st->nresp;
	if (!nresp) { /* every other CPU was taken out of the run */
		report_control_missed(ctl, "no responder is left in the run");
		return;
	}
	sd_set_global(false);
	on_cpumask(&st->resp, sd_touch, (void *)(uintptr_t)k, IPI_EACH);
	sd_touch((void *)(uintptr_t)k);
	sd_flip(k);
	on_cpumask(&st->resp, sd_verify, (void *)(uintptr_t)k, IPI_EACH);
	sd_pages.stale[this_cpu()] = 0;
	blind = responders_without_stale(&st->resp, &first);
	stale = take_stale(&cpu, &va);
	/* Leave every TLB clean for whatever runs next. */
	clean_tlbs(st);
	if (!blind)
		report_control_shown(ctl,
				     "%llu stale reads of %u pages on %u "
				     "responders without a flush, each had "
				     "some",
				     (unsigned long long)stale, k, nresp);
	else if (stale)
		report_control_missed(ctl,
				      "%u of %u responders (the first: cpu "
				      "%u) read no stale data without a flush",
				      blind, nresp, first);
	else
		report_control_missed(ctl, "no stale read without a flush");
}

/* Stale reads under a flush, as the negative control decides. */
static void verdict(const struct tally *t, int s, int m, int g,
		    const struct report_control *ctl)
{
	const char *mode = s == S_INVLPGB ? ""
			   : m		  ? " (broadcast)"
					  : " (unicast)";
	char name[96];

	report_gated(ctl, t->stale, "stale reads", NULL,
		     "shootdown: %s%s: no stale reads", name_of(s, g), mode);
	ksnprintf(name, sizeof(name),
		  "shootdown: %s%s: ipis_sent and irqs_received exact",
		  name_of(s, g), mode);
	if (t->emulated)
		report_skip(name, "the software model sends IPIs of its own");
	else
		report_check(!t->counts_wrong, name,
			     "counts differ from pages x targets");
}

static void verdicts(const struct sweep_state *st,
		     const struct report_control *ctl)
{
	for (int s = 0; s < S_COUNT; s++)
		for (int m = 0; m < 2; m++)
			for (int g = 0; g < 2; g++)
				if (st->tally[s][m][g].configs)
					verdict(&st->tally[s][m][g], s, m, g,
						ctl);
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

	if (!bench_progress_due(pr))
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

		choose_responders(st, st->sw->targets[t]);
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

void shootdown_sweep(const struct sd_config *sw)
{
	/* 12 KiB of encodings: off the stack */
	static struct sweep_state st;
	unsigned done = 0, total = sw->npages * sw->ntargets;
	bool covered[TOPO_CLASSES] = {false};
	struct report_control ctl;
	struct rng rng;

	/* and a sweep per distance class, unless the 1-target one was it */
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++)
		if (smp_cpu_in_class((enum topo_class)k))
			total += sw->npages;

	if (!sd_setup()) {
		report_fail("shootdown: setup", "out of memory for the pages");
		return;
	}
	st = (struct sweep_state){.sw = sw, .nmi_due = sw->inject_nmi};
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
	if (sw->inject_nmi && st.nmi_due)
		report_skip("selftest: nmi",
			    "selftest=nmi: no IPI strategy "
			    "kept a sample in shootdown: nothing was injected");
	else if (sw->inject_nmi)
		inject_nmi_check("shootdown", st.nmi_discards);
	xcall_time_handlers(false);
	negative_control(&st, &ctl);
	verdicts(&st, &ctl);
	pcid_bug(sw, false);
	if (sw->inject_oom)
		inject_oom_end("shootdown");
}

#define PILOT_SAMPLES 3

/*
 * The time budget's pilot: a few samples of every variant at the smallest and
 * the largest page count, to one responder and to all, taken as the sweep
 * takes them and recorded nowhere. corner[t][k]: cycles of one of those
 * samples (the median)
 * at ks[k] pages and 1 (t = 0) or all responders. What a sample
 * costs depends on more than the primitives' costs (the verifier's reads,
 * how TCG schedules vCPUs), so it is measured rather than derived.
 */
bool shootdown_pilot(const struct sd_config *sw, const uint32_t ks[2],
		     uint64_t corner[2][2])
{
	static struct sweep_state st; /* as shootdown_sweep()'s */
	unsigned ts[2] = {1, cpumask_count(&cpus_online) - 1};

	if (!ts[1] || !sd_setup())
		return false;
	st = (struct sweep_state){.sw = sw};
	xcall_time_handlers(sw->handler_timing);
	for (int t = 0; t < 2; t++) {
		choose_responders(&st, ts[t]);
		for (int k = 0; k < 2; k++) {
			struct variant v[MAX_VARIANTS];
			uint64_t d[PILOT_SAMPLES];
			/* A refused encoding: the sweep says so, and runs none. */
			size_t nv = build_variants(&st, v, ks[k], false);

			/* The median of a few: the first one is cold. */
			for (int n = 0; n < PILOT_SAMPLES; n++) {
				uint64_t t0 = rdtsc_ordered();

				for (size_t i = 0; i < nv; i++)
					sample(&st, &v[i], ks[k], 0);
				d[n] = rdtsc_ordered() - t0;
			}
			stats_sort(d, PILOT_SAMPLES);
			corner[t][k] = d[PILOT_SAMPLES / 2];
		}
	}
	xcall_time_handlers(false);
	/*
	 * Each sample took its own stale reads (dropped with these variants)
	 * and cleaned every TLB it used: nothing is left for the sweep.
	 */
	return true;
}
