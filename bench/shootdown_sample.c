// SPDX-License-Identifier: MIT
/*
 * The shootdown sweep's variants and their samples: each variant's flush
 * planned once (bench/flush.c), then per sample: the responders' TLBs
 * warmed, the PTEs changed, the flush timed, every CPU's reads verified,
 * every TLB cleaned. Also the time budget's pilot, which samples as the
 * sweep does.
 */
#include "bench/bench.h"
#include "bench/inject.h"
#include "bench/shootdown_sample.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

static const enum flush_how strategy_how[S_COUNT] = {
	[S_IPI_PAGE] = FLUSH_IPI_PAGE, [S_IPI_RANGE] = FLUSH_IPI_RANGE,
	[S_IPI_FULL] = FLUSH_IPI_FULL, [S_IPI_LINUX] = FLUSH_IPI_LINUX,
	[S_INVLPGB] = FLUSH_INVLPGB,   [S_INVLPGB_LINUX] = FLUSH_INVLPGB_LINUX,
};

/* delay_handler=: the busy-wait of this variant's handlers, or 0. */
uint64_t sd_delay_of(const struct variant *v, const struct sd_config *sw)
{
	return v->s == sw->delay_strategy ? sw->delay_cycles : 0;
}

/* v's own INVLPGB encoding (an IPI variant's plan has none: NULL). */
static struct invlpgb_regs *insns_of(struct sweep_state *st,
				     const struct variant *v)
{
	if (!strategy_is_invlpgb(v->s))
		return NULL;
	return st->insns[v->s == S_INVLPGB_LINUX ? 2 : v->global];
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
				.delay_cycles = sd_delay_of(v, sw)};

	return flush_prepare(&v->plan, &req, insns_of(st, v), SD_MAX_PAGES);
}

/*
 * The stale reads the last verification counted, on every CPU, and where
 * the first was (lowest CPU); the counters are reset.
 */
uint64_t sd_take_stale(struct sd_pages *pg, unsigned *cpu_out, uint64_t *va_out)
{
	uint64_t sum = 0;

	for (unsigned cpu = 0; cpu < nr_cpus; cpu++) {
		if (pg->stale[cpu] && !sum) {
			*cpu_out = cpu;
			*va_out = pg->stale_va[cpu];
		}
		sum += pg->stale[cpu];
		pg->stale[cpu] = 0;
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
void sd_clean_tlbs(struct sweep_state *st)
{
	flush_everywhere(&st->resp, true);
}

/* The handler times of a kept sample, one per responder. */
static void keep_handler_times(struct variant *v, const struct cpumask *resp)
{
	unsigned cpu;

	if (!v->handler || strategy_is_invlpgb(v->s))
		return;
	for (cpu = cpumask_next_below(0, resp, nr_cpus); cpu < MAX_CPUS;
	     cpu = cpumask_next_below(cpu + 1, resp, nr_cpus))
		v->handler[v->nh++] = xcall_handler_cycles(cpu);
}

/*
 * The time of a flush, kept unless an NMI landed on this CPU or a
 * responder during it: then it holds the NMI handler too, and is only
 * counted (docs/faults.md, "An NMI nobody sent").
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

/* fn (sd_touch, sd_verify) of the first k pages on every responder, then here. */
static void read_everywhere(struct sweep_state *st, xcall_fn fn, unsigned k)
{
	struct sd_reads r = {st->pages, k};

	on_cpumask(&st->resp, fn, &r, IPI_EACH);
	fn(&r);
}

/* The variant's flush, timed, and the IPIs and interrupts it took. */
static void time_flush(struct variant *v, const struct cpumask *resp)
{
	uint64_t icr0 = apic_icr_writes[0], irq0 = xcall_irqs_sum(resp);
	uint64_t nmi0 = nmi_count(resp), t0, t1;

	t0 = rdtsc_ordered();
	flush_run(&v->plan);
	t1 = rdtsc_ordered();
	v->icr += apic_icr_writes[0] - icr0;
	v->irqs += xcall_irqs_sum(resp) - irq0;
	keep(v, resp, t1 - t0, nmi_count(resp) != nmi0);
}

void sd_sample(struct sweep_state *st, struct variant *v, unsigned k,
	       unsigned index)
{
	uint64_t stale, va = 0;
	unsigned first = 0;

	sd_set_global(st->pages, v->global);
	read_everywhere(st, sd_touch, k);
	sd_flip(st->pages, k);
	time_flush(v, &st->resp);
	read_everywhere(st, sd_verify, k);
	stale = sd_take_stale(st->pages, &first, &va);
	if (stale && !v->stale_samples++) {
		v->first_sample = index;
		v->first_cpu = first;
		v->first_va = va;
	}
	v->stale += stale;
	sd_clean_tlbs(st);
}

/* The global-page variants' names, in records, tables and verdicts. */
static const char *const global_names[S_COUNT] = {
	[S_IPI_FULL] = "ipi-full-global",
	[S_INVLPGB] = "invlpgb-global",
};

const char *sd_variant_name(int s, bool global)
{
	return global ? global_names[s] : strategy_names[s];
}

/* What each strategy's records are, for their consumers (bench/role.h). */
static const enum result_role roles[S_COUNT] = {
	[S_IPI_PAGE] = ROLE_PAGE, [S_IPI_RANGE] = ROLE_RANGE,
	[S_IPI_FULL] = ROLE_FULL, [S_IPI_LINUX] = ROLE_LINUX,
	[S_INVLPGB] = ROLE_RANGE, [S_INVLPGB_LINUX] = ROLE_LINUX,
};

struct result_what sd_variant_what(int s, bool global)
{
	return (struct result_what){.strategy = sd_variant_name(s, global),
				    .role = global ? ROLE_VARIANT : roles[s],
				    .flush = strategy_is_invlpgb(s) ? FK_INVLPGB
								    : FK_IPI};
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

/*
 * Global pages (PTE.G) change what two strategies do: a CR3 reload keeps
 * their entries (ipi-full must toggle CR4.PGE) and INVLPGB drops them only
 * with include-global. INVLPG drops any entry of its address, so the
 * others would repeat the non-global rows. invlpgb-linux is Linux's flush
 * of a process's (non-global) pages, whose full form is a single-PCID
 * INVLPGB without include-global: it has no global variant.
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
size_t sd_build_variants(struct sweep_state *st, struct variant *v, unsigned k,
			 bool report)
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
			if (strategy_is_invlpgb(s)) {
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

void sd_choose_responders(struct sweep_state *st, unsigned t)
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

bool sd_alloc_variant(struct variant *v, const struct sd_config *sw,
		      unsigned nresp)
{
	v->samples = bench_alloc(sw->samples);
	if (!sw->handler_timing)
		return v->samples != NULL;
	v->handler = bench_alloc((size_t)sw->samples * (nresp ? nresp : 1));
	return v->samples && v->handler;
}

void sd_free_variant(struct variant *v, const struct sd_config *sw,
		     unsigned nresp)
{
	bench_free(v->samples, sw->samples);
	if (v->handler)
		bench_free(v->handler,
			   (size_t)sw->samples * (nresp ? nresp : 1));
}

#define PILOT_SAMPLES 3

/*
 * A round of every variant of (k pages, the responders), timed a few
 * times: the median, as the first one is cold.
 */
static uint64_t pilot_corner(struct sweep_state *st, unsigned k)
{
	struct variant v[MAX_VARIANTS];
	uint64_t d[PILOT_SAMPLES];
	/* A refused encoding: the sweep says so, and runs none. */
	size_t nv = sd_build_variants(st, v, k, false);

	for (int n = 0; n < PILOT_SAMPLES; n++) {
		uint64_t t0 = rdtsc_ordered();

		for (size_t i = 0; i < nv; i++)
			sd_sample(st, &v[i], k, 0);
		d[n] = rdtsc_ordered() - t0;
	}
	stats_sort(d, PILOT_SAMPLES);
	return d[PILOT_SAMPLES / 2];
}

/*
 * The time budget's pilot: a few samples of every variant at the smallest
 * and the largest page count, to one responder and to all, taken as the
 * sweep takes them and recorded nowhere. corner[t][k]: cycles of one of
 * those samples (the median) at ks[k] pages and 1 (t = 0) or all
 * responders. What a sample costs depends on more than the primitives'
 * costs (the verifier's reads, how TCG schedules vCPUs), so it is
 * measured rather than derived.
 */
bool shootdown_pilot(const struct sd_config *sw, const uint32_t ks[2],
		     uint64_t corner[2][2])
{
	static struct sweep_state st; /* as shootdown_sweep()'s */
	unsigned ts[2] = {1, cpumask_count(&cpus_online) - 1};
	struct sd_pages *pages = ts[1] ? sd_setup() : NULL;

	if (!pages)
		return false;
	st = (struct sweep_state){.sw = sw, .pages = pages};
	xcall_time_handlers(sw->handler_timing);
	for (int t = 0; t < 2; t++) {
		sd_choose_responders(&st, ts[t]);
		for (int k = 0; k < 2; k++)
			corner[t][k] = pilot_corner(&st, ks[k]);
	}
	xcall_time_handlers(false);
	/*
	 * Each sample took its own stale reads (dropped with these variants)
	 * and cleaned every TLB it used: nothing is left for the sweep.
	 */
	return true;
}
