// SPDX-License-Identifier: MIT
/*
 * What the shootdown sweep concludes: each variant's record and table
 * row, the negative control, and the verdicts over the whole sweep.
 */
#include "bench/bench.h"
#include "bench/shootdown_sample.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "lib/printf.h"
#include "smp/percpu.h"
#include "smp/smp.h"

/* IPIs each sample must send: exact, from the strategy's definition. */
static uint64_t expected_ipis(enum strategy s, unsigned k, unsigned nresp)
{
	if (strategy_is_invlpgb(s))
		return 0;
	return (s == S_IPI_PAGE ? k : 1) * (uint64_t)nresp;
}

/* Samples of each variant in a configuration, warm-up included. */
static uint64_t samples_per_config(const struct sd_config *sw)
{
	return (uint64_t)sw->samples + sw->warmup;
}

/* IPIs v sent in all: one ICR write reaches every responder in broadcast. */
static uint64_t ipis_sent(const struct variant *v, unsigned nresp)
{
	return v->icr * (v->mode == IPI_BROADCAST ? nresp : 1);
}

/*
 * v's fields into f (room for 9), per sample where they are counts:
 * what a record of it carries.
 */
static size_t fill_fields(struct sweep_state *st, const struct variant *v,
			  struct result_field f[9])
{
	const struct sd_config *sw = st->sw;
	uint64_t per = samples_per_config(sw);
	struct stats hs = {0};
	size_t n;

	if (v->nh)
		stats_compute(v->handler, v->nh, sw->ctx->records.overhead,
			      &hs);
	f[0] = (struct result_field){"ipis_sent", ipis_sent(v, st->nresp) / per,
				     false};
	f[1] = (struct result_field){"irqs_received", v->irqs / per, false};
	f[2] = (struct result_field){"icr_writes", v->icr / per, false};
	f[3] = (struct result_field){"stale_reads", v->stale, false};
	f[4] = (struct result_field){"handler_p50", hs.p50, false};
	f[5] = (struct result_field){"handler_p99", hs.p99, false};
	f[6] = (struct result_field){"handler_max", hs.max, false};
	/* INVLPGB has no handler to time; the others, when asked to. */
	n = strategy_is_invlpgb(v->s) || !sw->handler_timing ? 4 : 7;
	/* A record made slower on purpose says so (delay_handler=). */
	if (sd_delay_of(v, sw))
		f[n++] = (struct result_field){"delay_cycles",
					       sd_delay_of(v, sw), false};
	if (v->discarded)
		f[n++] = (struct result_field){"discarded_nmi", v->discarded,
					       false};
	return n;
}

/* v's record: r, with the statistics result_emit() adds to it. */
static void emit_record(struct sweep_state *st, struct variant *v, unsigned k,
			struct result *r, struct result_field f[9])
{
	const struct sd_config *sw = st->sw;
	unsigned m = v->mode == IPI_BROADCAST;
	struct result_what w = sd_variant_what(v->s, v->global);

	*r = (struct result){.bench = "shootdown",
			     .strategy = w.strategy,
			     .role = w.role,
			     .flush = w.flush,
			     .ipi_mode = strategy_is_invlpgb(v->s) ? NULL
					 : m			   ? "broadcast"
								   : "unicast",
			     .pages = k,
			     .targets = st->nresp,
			     .samples = v->samples,
			     .n = v->n,
			     .fields = f,
			     .nfields = fill_fields(st, v, f),
			     .emulated = strategy_is_invlpgb(v->s) &&
					 sw->invlpgb_emulated,
			     .distance = st->distance};
	st->nmi_discards += v->discarded;
	if (v->discarded)
		report_info("shootdown: samples discarded: %llu (NMI): %s%s%s, "
			    "%u pages, %u targets; %zu kept",
			    (unsigned long long)v->discarded, r->strategy,
			    r->ipi_mode ? " " : "",
			    r->ipi_mode ? r->ipi_mode : "", k, st->nresp, v->n);
	result_emit(&sw->ctx->records, r);
}

/* The human table's row of v's record r. */
static void add_table_row(struct sweep_state *st, const struct variant *v,
			  const struct result *r)
{
	bool bcast = v->mode == IPI_BROADCAST;
	struct table_result row = {
		.strategy = r->strategy,
		.ipi_mode = r->ipi_mode ? (bcast ? "bcast" : "each") : NULL,
		.pages = r->pages,
		.targets = r->targets,
		.cycles = &r->st,
		.tsc_khz = tsc_freq.khz,
		.stale_reads = v->stale,
		.emulated = r->emulated};

	table_result_row(&st->table, &row);
}

/*
 * v's configuration in its strategy's tally, for the verdicts; a stale
 * read FAILs at once, naming the configuration and the first of them.
 */
static void tally(struct sweep_state *st, const struct variant *v,
		  const struct result *r, unsigned k)
{
	struct tally *t = &st->tally[v->s][v->mode == IPI_BROADCAST][v->global];
	uint64_t per = samples_per_config(st->sw), ipis;

	t->configs++;
	t->emulated |= r->emulated;
	t->stale += v->stale;
	if (v->stale)
		report_fail("shootdown: stale translation",
			    "%s%s%s, %u pages, %u targets: %llu stale reads "
			    "in %llu of %llu samples, first in sample %u on "
			    "cpu %u at %#llx",
			    r->strategy, r->ipi_mode ? " " : "",
			    r->ipi_mode ? r->ipi_mode : "", k, st->nresp,
			    (unsigned long long)v->stale,
			    (unsigned long long)v->stale_samples,
			    (unsigned long long)per, v->first_sample,
			    v->first_cpu, (unsigned long long)v->first_va);
	/* The software model sends IPIs of its own: nothing exact there. */
	ipis = ipis_sent(v, st->nresp);
	if (!r->emulated && (ipis != expected_ipis(v->s, k, st->nresp) * per ||
			     v->irqs != ipis))
		t->counts_wrong = true;
}

void sd_finish(struct sweep_state *st, struct variant *v, unsigned k)
{
	struct result_field f[9];
	struct result r;

	emit_record(st, v, k, &r, f);
	add_table_row(st, v, &r);
	tally(st, v, &r, k);
}

/*
 * Responders of resp that saw no stale read in the last verification
 * (the counters are left for sd_take_stale); *first: the lowest of them.
 */
static unsigned responders_without_stale(const struct sd_pages *pg,
					 const struct cpumask *resp,
					 unsigned *first)
{
	unsigned cpu, n = 0;

	for_each_cpu(cpu, resp) {
		if (pg->stale[cpu])
			continue;
		if (!n++)
			*first = cpu;
	}
	return n;
}

/*
 * The control's round: the responders read k pages, their PTEs change,
 * nothing is flushed, the responders read again. Returns the stale reads
 * of all responders; *blind: how many read none, *first: the lowest.
 */
static uint64_t unflushed_round(struct sweep_state *st, unsigned k,
				unsigned *blind, unsigned *first)
{
	struct sd_reads r = {st->pages, k};
	unsigned cpu = 0;
	uint64_t stale, va = 0;

	sd_set_global(st->pages, false);
	on_cpumask(&st->resp, sd_touch, &r, IPI_EACH);
	sd_touch(&r);
	sd_flip(st->pages, k);
	on_cpumask(&st->resp, sd_verify, &r, IPI_EACH);
	st->pages->stale[this_cpu()] = 0;
	*blind = responders_without_stale(st->pages, &st->resp, first);
	stale = sd_take_stale(st->pages, &cpu, &va);
	/* Leave every TLB clean for whatever runs next. */
	sd_clean_tlbs(st);
	return stale;
}

/*
 * Changes PTEs and never flushes: every responder must then read stale
 * data, or the verifier cannot prove anything for it. Shown only if each
 * one did (the initiator's own reads do not count: no verdict speaks for
 * it alone).
 */
void sd_negative_control(struct sweep_state *st, struct report_control *ctl)
{
	unsigned k = st->sw->pages[st->sw->npages - 1], blind, first = 0;
	unsigned nresp;
	uint64_t stale;

	report_control_init(ctl, "shootdown: negative control");
	sd_choose_responders(st, cpumask_count(&cpus_online) - 1);
	nresp = st->nresp;
	if (!nresp) { /* every other CPU was taken out of the run */
		report_control_missed(ctl, "no responder is left in the run");
		return;
	}
	stale = unflushed_round(st, k, &blind, &first);
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

/* A strategy and its mode ("" or " (unicast)"): one verdict's name. */
#define COUNTS_NAME "shootdown: %s%s: ipis_sent and irqs_received exact"

/* Stale reads under a flush, as the negative control decides. */
static void verdict(const struct tally *t, int s, int m, int g,
		    const struct report_control *ctl)
{
	const char *mode = strategy_is_invlpgb(s) ? ""
			   : m			  ? " (broadcast)"
						  : " (unicast)";
	report_gated(ctl, t->stale, "stale reads", NULL,
		     "shootdown: %s%s: no stale reads", sd_variant_name(s, g),
		     mode);
	if (t->emulated)
		report_skipf(COUNTS_NAME REPORT_DETAIL
			     "the software model sends IPIs of its own",
			     sd_variant_name(s, g), mode);
	else
		report_checkf(!t->counts_wrong,
			      COUNTS_NAME REPORT_DETAIL
			      "counts differ from pages x targets",
			      sd_variant_name(s, g), mode);
}

void sd_verdicts(const struct sweep_state *st, const struct report_control *ctl)
{
	for (int s = 0; s < S_COUNT; s++)
		for (int m = 0; m < 2; m++)
			for (int g = 0; g < 2; g++)
				if (st->tally[s][m][g].configs)
					verdict(&st->tally[s][m][g], s, m, g,
						ctl);
}
