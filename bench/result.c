// SPDX-License-Identifier: MIT
/* The result record (bench/result.h): statistics, histogram, raw samples. */
#include "bench/ceiling.h"
#include "bench/hist.h"
#include "bench/measure.h"
#include "bench/result.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "lib/memops.h"
#include "lib/string.h"
#include "smp/idle.h"
#include "smp/smp.h"

/*
 * Values per raw record: at most 32 x 21 bytes of digits and commas, so a
 * record stays within RAW_BUF whatever the values; typical 4-6 digit
 * samples make lines of about 250 bytes.
 */
#define RAW_PER_RECORD 32
#define RAW_BUF	       1024

static void emit_stats(struct json *j, const struct stats *st)
{
	json_u64(j, "min", st->min);
	json_u64(j, "p50", st->p50);
	json_u64(j, "p90", st->p90);
	json_u64(j, "p99", st->p99);
	json_u64(j, "max", st->max);
	json_u64(j, "mean", st->mean);
}

/* The distribution, in the contract of docs/records.md ("hist"). */
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

/* What the ceiling needs of r (bench/ceiling_book.h). */
static struct ceiling_obs ceiling_obs_of(const struct result *r)
{
	struct ceiling_obs o = {.bench = r->bench,
				.role = r->role,
				.flush = r->flush,
				.ipi_mode = r->ipi_mode,
				.pages = r->pages,
				.targets = r->targets,
				.n = r->n,
				.emulated = r->emulated,
				.e = {r->st.p50, r->p50_lo, r->p50_hi}};

	for (size_t i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i].key, "delay_cycles"))
			o.delay_cycles = r->fields[i].value;
	return o;
}

void result_emit(struct result_sink *sink, struct result *r)
{
	struct ceiling_obs obs;
	uint64_t sub = r->raw ? 0 : sink->overhead;
	uint64_t *copy = NULL;
	char buf[2048];
	struct record rec;

	/* A consumer would pass over it unseen (bench/role.h). */
	if (r->role == ROLE_UNSET || r->flush == FK_UNSET)
		report_fail("result: role",
			    "%s %s: no role or flush kind set "
			    "by its producer",
			    r->bench, r->strategy);
	/* Sorting loses the order measured, which raw records keep. */
	if (sink->raw && r->n && (copy = bench_alloc(r->n)))
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
	json_str(&rec.j, "role", result_role_name(r->role));
	json_str(&rec.j, "flush", flush_kind_name(r->flush));
	emit_stats(&rec.j, &r->st);
	if (r->n) {
		uint64_t lo, hi;

		json_u64(&rec.j, "stddev", r->st.stddev);
		/*
		 * The median's interval, which the ceiling is solved from
		 * (only there: every record's would cost 6 KB a run).
		 */
		ceiling_median_ranks(r->n, &lo, &hi);
		r->p50_lo = r->samples[lo - 1];
		r->p50_hi = r->samples[hi - 1];
		obs = ceiling_obs_of(r);
		if (ceiling_uses(&obs)) {
			json_u64(&rec.j, "p50_lo", r->p50_lo);
			json_u64(&rec.j, "p50_hi", r->p50_hi);
		}
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
	if (r->not_hardware)
		json_str(&rec.j, "not_hardware", r->not_hardware);
	if (r->raw)
		json_bool(&rec.j, "overhead_subtracted", false);
	record_end(&rec);
	if (copy) {
		emit_raw(rec.seq, copy, r->n, sub);
		bench_free(copy, r->n);
	}
	protocol_overhead_note(&sink->po, r);
	findings_note(&sink->findings, r, rec.seq);
	obs = ceiling_obs_of(r);
	ceiling_book_note(&sink->ceiling, &obs);
}
