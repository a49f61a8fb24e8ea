// SPDX-License-Identifier: MIT
/*
 * The experiment table, parameter handling, sample buffers and the result
 * record writer shared by every experiment.
 */
#include <stdarg.h>
#include "bench/bench.h"
#include "bench/budget.h"
#include "bench/hist.h"
#include "bench/invlpgb_emul.h"
#include "bench/shootdown_sweep.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "lib/string.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/memops.h"
#include "mm/vm.h"
#include "smp/idle.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define OVERHEAD_ROUNDS 1000
#define PROGRESS_US	3000000
/*
 * Values per raw record: at most 32 x 21 bytes of digits and commas, so a
 * record stays within RAW_BUF whatever the values; typical 4-6 digit
 * samples make lines of about 250 bytes.
 */
#define RAW_PER_RECORD 32
#define RAW_BUF	       1024

void primitives_run(void);
void shootdown_run(void);
void reclaim_run(void);
void flushloop_run(void);

const struct experiment experiments[] = {
	{"primitives", "cost of each building block", primitives_run},
	{"shootdown", "IPI shootdown vs INVLPGB, swept over pages and cpus",
	 shootdown_run},
	{"reclaim", "paging out with per-page vs PMD-batched flushes",
	 reclaim_run},
	{"flushloop", "unmap + flush + remap loops on 1, 2, 4, ... cpus",
	 flushloop_run},
};
const size_t nr_experiments = sizeof(experiments) / sizeof(experiments[0]);
/* The time budget (bench/plan.h) knows them by the same index. */
_Static_assert(sizeof(experiments) / sizeof(experiments[0]) == PLAN_EXPS,
	       "the experiment table and enum plan_exp differ");

struct bench_params bench_params;
static uint64_t overhead = UINT64_MAX;
static uint64_t exp_start, last_progress, last_tick;
static bool human_text = true; /* output= is not json */

void bench_diag(void *ctx, const char *msg)
{
	(void)ctx;
	report_info("%s", msg);
}

uint64_t bench_overhead(void)
{
	if (overhead != UINT64_MAX)
		return overhead;
	for (int i = 0; i < OVERHEAD_ROUNDS; i++) {
		uint64_t t0 = rdtsc_ordered(), t1 = rdtsc_ordered();

		if (t1 - t0 < overhead)
			overhead = t1 - t0;
	}
	return overhead;
}

uint64_t *bench_alloc(size_t n)
{
	uint64_t frames = (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t pa = frames ? frame_alloc_run(frames, PAGE_SIZE) : 0;

	if (!pa) {
		report_fail("bench: memory", "no room for %zu samples", n);
		return NULL;
	}
	mem_zero(phys_to_virt(pa), n * 8); /* as bench.h promises */
	return phys_to_virt(pa);
}

void bench_free(uint64_t *buf, size_t n)
{
	uint64_t frames = (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE;

	if (buf && frames)
		frame_free_run((uint64_t)buf - DIRECT_MAP_BASE, frames);
}

void bench_printf(const char *fmt, ...)
{
	va_list ap;

	if (!human_text)
		return;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

void bench_progress_begin(void)
{
	exp_start = last_progress = last_tick = rdtsc();
}

bool bench_progress_due(void)
{
	return rdtsc() - last_progress >= us_to_cycles(PROGRESS_US);
}

void bench_progress(const char *what, uint64_t done, uint64_t total,
		    const char *detail)
{
	uint64_t now = rdtsc(), elapsed = now - exp_start;
	char eta[24] = "?";

	if (!total || done > total || !bench_progress_due())
		return;
	last_progress = now;
	/* cycles per unit times units left: no 64-bit overflow */
	if (done)
		ksnprintf(eta, sizeof(eta), "%llu",
			  (unsigned long long)(tsc_to_ns(elapsed / done *
							 (total - done)) /
					       1000000000));
	bench_printf("%s: %llu%%%s%s%s, eta %s s\n", what,
		     (unsigned long long)(done * 100 / total),
		     detail ? " (" : "", detail ? detail : "",
		     detail ? ")" : "", eta);
}

bool bench_tick_begin(struct record *rec, char *buf, size_t cap,
		      const char *bench, const char *strategy,
		      unsigned interval_ms)
{
	uint64_t now = rdtsc();

	if (now - last_tick < us_to_cycles(interval_ms * 1000ull))
		return false;
	last_tick = now;
	record_begin(rec, buf, cap, "tick");
	json_str(&rec->j, "bench", bench);
	json_u64(&rec->j, "t_ms", tsc_to_ns(now - exp_start) / 1000000);
	json_str(&rec->j, "strategy", strategy);
	return true;
}

/*
 * The protocol overhead: what the harness adds to a raw IPI round trip
 * when it flushes one page on one responder. Both ends are the p50 of a
 * record towards the same CPU: the one of a distance class (the records'
 * `distance`), the nearest class that has both.
 */
#define OVERHEAD_CLASSES 8
static struct {
	const char *distance;
	uint64_t ipi, range; /* ipi-roundtrip, ipi-range 1 page 1 target */
} overhead_ends[OVERHEAD_CLASSES];

static void note_overhead_end(const struct result *r)
{
	bool ipi = !strcmp(r->bench, "primitives") &&
		   !strcmp(r->strategy, "ipi-roundtrip");
	bool range = !strcmp(r->bench, "shootdown") &&
		     !strcmp(r->strategy, "ipi-range") && r->pages == 1 &&
		     r->targets == 1 && r->ipi_mode &&
		     !strcmp(r->ipi_mode, "unicast") && !r->emulated;

	if (!r->distance || !r->n || (!ipi && !range))
		return;
	for (int i = 0; i < OVERHEAD_CLASSES; i++) {
		if (overhead_ends[i].distance &&
		    strcmp(overhead_ends[i].distance, r->distance))
			continue;
		overhead_ends[i].distance = r->distance;
		if (ipi && !overhead_ends[i].ipi)
			overhead_ends[i].ipi = r->st.p50;
		if (range && !overhead_ends[i].range)
			overhead_ends[i].range = r->st.p50;
		return;
	}
}

/* The INFO line and the summary record's protocol_overhead, if measured. */
static void report_overhead(void)
{
	for (int i = 0; i < OVERHEAD_CLASSES; i++) {
		uint64_t x100, ipi = overhead_ends[i].ipi;
		uint64_t range = overhead_ends[i].range;

		if (!ipi || !range)
			continue;
		x100 = stats_ratio_x100(range, ipi);
		report_info("shootdown: protocol overhead: ipi-range 1 page 1 "
			    "target p50 / ipi-roundtrip p50 = %llu.%02llu "
			    "(%llu / %llu cycles, %s)",
			    (unsigned long long)(x100 / 100),
			    (unsigned long long)(x100 % 100),
			    (unsigned long long)range, (unsigned long long)ipi,
			    overhead_ends[i].distance);
		report_summary_x100("protocol_overhead", x100);
		return;
	}
}

static void emit_stats(struct json *j, const struct stats *st)
{
	json_u64(j, "min", st->min);
	json_u64(j, "p50", st->p50);
	json_u64(j, "p90", st->p90);
	json_u64(j, "p99", st->p99);
	json_u64(j, "max", st->max);
	json_u64(j, "mean", st->mean);
}

/* The distribution, in the contract of docs/output.md ("hist"). */
static void emit_hist(struct json *j, const uint64_t *sorted, size_t n)
{
	static struct hist h; /* 520 bytes: off the stack */

	hist_build(sorted, n, sorted[0], &h);
	json_begin_object(j, "hist");
	json_u64(j, "lo", h.lo);
	json_u64(j, "per_octave", HIST_PER_OCTAVE);
	json_begin_array(j, "counts");
	for (size_t i = 0; i < h.nbuckets; i++)
		json_u64(j, NULL, h.counts[i]);
	json_end_array(j);
	json_end_object(j);
}

/*
 * raw=on: every sample, in the order measured, overhead subtracted as for
 * the statistics, in raw records that name their result record's seq.
 */
static void emit_raw(unsigned result_seq, const uint64_t *v, size_t n,
		     uint64_t sub)
{
	char buf[RAW_BUF];
	struct record rec;

	for (size_t off = 0; off < n; off += RAW_PER_RECORD) {
		record_begin(&rec, buf, sizeof(buf), "raw");
		json_u64(&rec.j, "result", result_seq);
		json_u64(&rec.j, "offset", off);
		json_begin_array(&rec.j, "values");
		for (size_t i = off; i < n && i < off + RAW_PER_RECORD; i++)
			json_u64(&rec.j, NULL, v[i] > sub ? v[i] - sub : 0);
		json_end_array(&rec.j);
		record_end(&rec);
	}
}

static void emit_ns(struct json *j, const struct stats *st)
{
	struct stats ns;

	stats_to_ns(st, tsc_freq.khz, &ns);
	json_u64(j, "ns_min", ns.min);
	json_u64(j, "ns_p50", ns.p50);
	json_u64(j, "ns_p90", ns.p90);
	json_u64(j, "ns_p99", ns.p99);
	json_u64(j, "ns_max", ns.max);
	json_u64(j, "ns_mean", ns.mean);
	json_u64(j, "ns_stddev", ns.stddev);
}

void result_emit(struct result *r)
{
	uint64_t sub = r->raw ? 0 : bench_overhead();
	uint64_t *copy = NULL;
	char buf[2048];
	struct record rec;

	/* Sorting loses the order measured, which raw records keep. */
	if (bench_params.raw && r->n && (copy = bench_alloc(r->n)))
		mem_copy_words(copy, r->samples, r->n * sizeof(*copy));
	stats_compute(r->samples, r->n, sub, &r->st);
	record_begin(&rec, buf, sizeof(buf), "result");
	json_str(&rec.j, "bench", r->bench);
	json_str(&rec.j, "strategy", r->strategy);
	if (r->ipi_mode)
		json_str(&rec.j, "ipi_mode", r->ipi_mode);
	if (r->distance)
		json_str(&rec.j, "distance", r->distance);
	json_u64(&rec.j, "pages", r->pages);
	json_u64(&rec.j, "targets", r->targets);
	json_u64(&rec.j, "samples", r->n);
	/* The responders' idle loop changes what an IPI costs (smp/idle.h). */
	json_str(&rec.j, "idle", smp_idle_name(smp_stats.idle));
	json_str(&rec.j, "unit", "cycles");
	emit_stats(&rec.j, &r->st);
	if (r->n) {
		json_u64(&rec.j, "stddev", r->st.stddev);
		emit_hist(&rec.j, r->samples, r->n);
	}
	if (tsc_freq.khz)
		emit_ns(&rec.j, &r->st);
	for (size_t i = 0; i < r->nfields; i++) {
		if (r->fields[i].is_signed)
			json_i64(&rec.j, r->fields[i].key,
				 (int64_t)r->fields[i].value);
		else
			json_u64(&rec.j, r->fields[i].key, r->fields[i].value);
	}
	if (r->emulated)
		json_bool(&rec.j, "emulated", true);
	if (r->raw)
		json_bool(&rec.j, "overhead_subtracted", false);
	record_end(&rec);
	if (copy) {
		emit_raw(rec.seq, copy, r->n, sub);
		bench_free(copy, r->n);
	}
	note_overhead_end(r);
}

static bool selected(size_t idx)
{
	for (uint32_t i = 0; i < bench_params.bench.n; i++)
		if (bench_params.bench.v[i] == idx)
			return true;
	return false;
}

static bool model_on; /* the INVLPGB software model is installed */

static size_t nr_selected(void)
{
	size_t n = 0;

	for (size_t i = 0; i < nr_experiments; i++)
		n += selected(i);
	return n;
}

/* invlpgb=force: execute it once, as asked; the #UD is caught, reported. */
static void invlpgb_force_probe(const char *bench)
{
	static bool probed;
	char name[48];
	int vec;

	if (probed)
		return;
	probed = true;
	vec = invlpgb_safe(0x5, 0, 0); /* VA 0, ASID 0, one page */
	if (!vec)
		vec = tlbsync_safe();
	ksnprintf(name, sizeof(name), "%s: invlpgb=force", bench);
	report_check(!vec, name, "INVLPGB/TLBSYNC raised vector %d (%s)", vec,
		     cpu_invlpgb_absent_reason());
}

bool bench_invlpgb_planned(void)
{
	return bench_params.invlpgb.mode != PARAM_INVLPGB_OFF &&
	       (cpu_info.invlpgb || model_on);
}

uint32_t bench_invlpgb(const char *bench, bool *emulated)
{
	enum param_invlpgb_mode mode = bench_params.invlpgb.mode;
	char name[48];

	*emulated = false;
	ksnprintf(name, sizeof(name), "%s: invlpgb", bench);
	if (mode == PARAM_INVLPGB_OFF) {
		report_skip(name, "turned off by invlpgb=off");
		return 0;
	}
	if (cpu_info.invlpgb)
		return cpu_info.invlpgb_max_pages;
	if (model_on) {
		*emulated = true;
		return INVLPGB_EMUL_MAX_PAGES;
	}
	if (mode == PARAM_INVLPGB_FORCE) {
		invlpgb_force_probe(bench);
		report_skip(name, "INVLPGB is not executable here");
		return 0;
	}
	report_skip(name, "%s", cpu_invlpgb_absent_reason());
	return 0;
}

void bench_init(const struct config *cfg)
{
	struct param_names benches = PARAM_NAMES_FIELD(experiments, name);
	struct param_names strategies = PARAM_NAMES_ARRAY(strategy_names);
	struct param_diag d = {bench_diag, NULL};

	human_text = cfg->output != OUTPUT_JSON;
	params_from_config(cfg, &benches, &strategies, &bench_params, &d);
	model_on = bench_params.invlpgb.mode == PARAM_INVLPGB_EMULATE &&
		   invlpgb_emul_enable();
}

bool bench_invlpgb_model(void)
{
	return model_on;
}

void bench_run(const struct config *cfg)
{
	bool run[PLAN_EXPS];

	report_info("bench: timer overhead %llu cycles (subtracted)",
		    (unsigned long long)bench_overhead());
	for (size_t i = 0; i < nr_experiments; i++)
		run[i] = selected(i);
	if (nr_selected())
		budget_plan(cfg, run);
	for (size_t i = 0; i < nr_experiments; i++) {
		uint64_t t0 = rdtsc();

		if (!run[i])
			continue;
		report_info("bench: %s: %s", experiments[i].name,
			    experiments[i].desc);
		bench_progress_begin();
		experiments[i].run();
		budget_account((enum plan_exp)i, rdtsc() - t0);
	}
	if (nr_selected())
		budget_report();
	report_overhead();
	if (model_on)
		invlpgb_emul_disable();
}
