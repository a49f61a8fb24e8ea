// SPDX-License-Identifier: MIT
/*
 * reclaim's timeline, recorded in memory and printed afterwards
 * (bench/reclaim_timeline.h; sel4bench's rule: raw counts in the measured
 * region, processing later). CPU 0 snapshots every worker's read counter,
 * its own pages done and the TSC at each bin edge: spinning in the
 * windows before and after the page-out, and during it between flush
 * units and between the pages a unit writes back, where a snapshot can
 * come late by up to a flush or a page. So each bin's time is recorded
 * too, and rates are taken over the time a bin really
 * spans. A window whose buffer fills halves its resolution (bins grow
 * with the page-out's length), so no pass allocates or prints while it
 * runs, and the record's size is bounded whatever the page-out's length.
 */
#include "bench/bench.h"
#include "bench/findings.h"
#include "bench/rc_timeline.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_state.h"
#include "bench/reclaim_timeline.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/printf.h"
#include "smp/concurrency.h"

/* Edges a window holds: 4096 x 1 ms is 4 s before the first halving. */
#define CAP	 4096
#define MAX_BINS (RC_TL_BEFORE_BINS + RC_TL_DURING_BINS + 1 + RC_TL_AFTER_BINS)

static uint64_t *at(struct rc_tl *tl, int win, unsigned s, uint64_t i)
{
	return &tl->cum[win][s * (tl->cap + 2) + i];
}

bool rc_tl_alloc(struct rc_tl *tl, unsigned workers, uint64_t bin_ms)
{
	*tl = (struct rc_tl){.workers = workers, .series = workers + 2};
	if (!bin_ms)
		return true;
	tl->cap = CAP;
	tl->fine_cycles = us_to_cycles(bin_ms * 1000 / RC_TL_FINE);
	for (int w = 0; w < RC_TL_WINDOWS; w++) {
		tl->cum[w] = bench_alloc(tl->series * (tl->cap + 2));
		if (!tl->cum[w]) {
			rc_tl_free(tl);
			return false;
		}
	}
	return true;
}

void rc_tl_free(struct rc_tl *tl)
{
	for (int w = 0; w < RC_TL_WINDOWS; w++)
		if (tl->cum[w])
			bench_free(tl->cum[w], tl->series * (tl->cap + 2));
	*tl = (struct rc_tl){0};
}

/* Series: each worker's reads (in units), the pages done, the TSC. */
static void snap(struct rc_tl *tl, const struct rc_state *st, int win,
		 uint64_t i, uint64_t now, uint64_t done)
{
	for (unsigned w = 0; w < tl->workers; w++)
		*at(tl, win, w, i) = st->workers[w].reads / RC_READS_CHUNK;
	*at(tl, win, tl->workers, i) = done;
	*at(tl, win, tl->workers + 1, i) = now - tl->t_begin;
}

static void copy_snap(struct rc_tl *tl, int to, uint64_t j, int from,
		      uint64_t i)
{
	for (unsigned s = 0; s < tl->series; s++)
		*at(tl, to, s, j) = *at(tl, from, s, i);
}

/* Spins through cycles from start at width, a snapshot at each edge. */
static uint64_t spin_window(struct rc_tl *tl, struct rc_state *st, int win,
			    uint64_t start, uint64_t cycles, uint64_t done,
			    uint64_t w)
{
	uint64_t n, now = start;

	while (cycles / w > tl->cap)
		w *= 2;
	n = cycles / w ? cycles / w : 1;
	tl->width[win] = w;
	for (uint64_t i = 1; i <= n; i++) {
		while ((now = rdtsc_ordered()) < start + i * w)
			cpu_relax();
		snap(tl, st, win, i, now, done);
	}
	tl->edges[win] = n;
	return now;
}

uint64_t rc_tl_before(struct rc_tl *tl, struct rc_state *st, uint64_t cycles)
{
	uint64_t t0 = rdtsc_ordered(), t1;

	tl->t_begin = t0;
	snap(tl, st, RC_TL_BEFORE, 0, t0, 0);
	t1 = spin_window(tl, st, RC_TL_BEFORE, t0, cycles, 0, tl->fine_cycles);
	copy_snap(tl, RC_TL_DURING, 0, RC_TL_BEFORE, tl->edges[RC_TL_BEFORE]);
	/* The loss's snapshots are the timeline's own: the bins sum to them */
	for (unsigned w = 0; w < tl->workers; w++) {
		st->snap[0][w] = *at(tl, RC_TL_BEFORE, w, 0) * RC_READS_CHUNK;
		st->snap[1][w] = *at(tl, RC_TL_DURING, w, 0) * RC_READS_CHUNK;
	}
	tl->start = t1;
	tl->width[RC_TL_DURING] = tl->fine_cycles;
	tl->edges[RC_TL_DURING] = 0;
	tl->next = t1 + tl->fine_cycles;
	tl->polls = 0;
	return t1;
}

uint64_t rc_tl_poll(struct rc_tl *tl, struct rc_state *st, uint64_t now,
		    uint64_t done)
{
	uint64_t *n = &tl->edges[RC_TL_DURING], *w = &tl->width[RC_TL_DURING];

	tl->polls++;
	if (now < tl->next)
		return 0;
	while (now >= tl->next) {
		if (*n == tl->cap) {
			for (unsigned s = 0; s < tl->series; s++)
				rc_tl_halve(at(tl, RC_TL_DURING, s, 0), *n);
			*n /= 2;
			*w *= 2;
			tl->next = tl->start + (*n + 1) * *w;
			continue;
		}
		snap(tl, st, RC_TL_DURING, ++*n, now, done);
		tl->next += *w;
	}
	return rdtsc() - now;
}

void rc_tl_after(struct rc_tl *tl, struct rc_state *st, uint64_t t2,
		 uint64_t pages, uint64_t cycles)
{
	uint64_t last = tl->edges[RC_TL_DURING] + 1;

	snap(tl, st, RC_TL_DURING, last, t2, pages);
	for (unsigned w = 0; w < tl->workers; w++)
		st->snap[2][w] =
			*at(tl, RC_TL_DURING, w, last) * RC_READS_CHUNK;
	copy_snap(tl, RC_TL_AFTER, 0, RC_TL_DURING, last);
	tl->end = t2;
	spin_window(tl, st, RC_TL_AFTER, t2, cycles, pages,
		    tl->width[RC_TL_BEFORE]);
}

/* The grouping of each window's edges into printed bins. */
struct layout {
	uint64_t group[RC_TL_WINDOWS];
	size_t bins[RC_TL_WINDOWS]; /* during's with its last, partial one */
};

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/*
 * Before and after: at most their bins' worth of groups. During: at most
 * RC_TL_DURING_BINS full bins, and each at least as long as the time
 * between two polls on average (a flush unit, or a page written back),
 * so that most bins hold a snapshot of their own.
 */
static void lay_out(const struct rc_tl *tl, struct layout *l)
{
	uint64_t nd = tl->edges[RC_TL_DURING], wd = tl->width[RC_TL_DURING];
	uint64_t unit = tl->polls ? (tl->end - tl->start) / tl->polls : 0;
	uint64_t k = ceil_div(nd, RC_TL_DURING_BINS), ku = ceil_div(unit, wd);

	l->group[RC_TL_BEFORE] =
		ceil_div(tl->edges[RC_TL_BEFORE], RC_TL_BEFORE_BINS);
	l->group[RC_TL_AFTER] =
		ceil_div(tl->edges[RC_TL_AFTER], RC_TL_AFTER_BINS);
	k = k > ku ? k : ku;
	l->group[RC_TL_DURING] = k ? k : 1;
	for (int w = 0; w < RC_TL_WINDOWS; w++)
		if (!l->group[w])
			l->group[w] = 1;
	l->bins[RC_TL_BEFORE] =
		tl->edges[RC_TL_BEFORE] / l->group[RC_TL_BEFORE];
	l->bins[RC_TL_DURING] = nd / l->group[RC_TL_DURING] + 1;
	l->bins[RC_TL_AFTER] = tl->edges[RC_TL_AFTER] / l->group[RC_TL_AFTER];
}

/* Series s's bins, before, during and after, into out; returns how many. */
static size_t series_bins(struct rc_tl *tl, const struct layout *l, unsigned s,
			  uint64_t *out)
{
	uint64_t *b = at(tl, RC_TL_BEFORE, s, 0),
		 *d = at(tl, RC_TL_DURING, s, 0);
	uint64_t nd = tl->edges[RC_TL_DURING], k = l->group[RC_TL_DURING];
	size_t n;

	n = rc_tl_bins(b, tl->edges[RC_TL_BEFORE], l->group[RC_TL_BEFORE], true,
		       RC_TL_BEFORE_BINS, out);
	n += rc_tl_bins(d, nd, k, false, RC_TL_DURING_BINS, out + n);
	out[n++] = d[nd + 1] - d[nd / k * k]; /* to the page-out's end */
	n += rc_tl_bins(at(tl, RC_TL_AFTER, s, 0), tl->edges[RC_TL_AFTER],
			l->group[RC_TL_AFTER], false, RC_TL_AFTER_BINS,
			out + n);
	return n;
}

/* The time series in microseconds from the first snapshot, in place. */
static void time_to_us(struct rc_tl *tl)
{
	unsigned s = tl->workers + 1;

	for (int w = 0; w < RC_TL_WINDOWS; w++) {
		uint64_t n = tl->edges[w] + (w == RC_TL_DURING ? 2 : 1);

		for (uint64_t i = 0; i < n; i++)
			*at(tl, w, s, i) = tsc_to_ns(*at(tl, w, s, i)) / 1000;
	}
}

static void loss_interval(struct rc_run *run, const struct layout *l,
			  const uint64_t *total, const uint64_t *us,
			  struct rc_tl_loss *d)
{
	size_t nb = l->bins[RC_TL_BEFORE], nd = l->bins[RC_TL_DURING];
	struct rc_tl_loss a = rc_tl_loss(total, us, nb, total + nb + nd,
					 us + nb + nd, l->bins[RC_TL_AFTER]);

	*d = rc_tl_loss(total, us, nb, total + nb, us + nb, nd);
	/* Around worker_loss_pct, the whole windows' loss, as it was. */
	run->loss_ci = d->valid;
	run->loss_blocks = d->blocks;
	run->loss_eff_bins = d->effective_bins;
	if (d->valid)
		rc_tl_interval(run->loss_pct * 100, d->half_x100, &run->loss_lo,
			       &run->loss_hi);
	run->after_est = a.estimated;
	if (a.estimated)
		run->after_loss = rc_tl_round_pct(a.loss_x100);
	run->after_ci = a.valid;
	if (a.valid)
		rc_tl_interval(a.loss_x100, a.half_x100, &run->after_lo,
			       &run->after_hi);
}

void rc_tl_emit(struct rc_tl *tl, struct rc_run *run)
{
	static uint64_t bins[MAX_BINS], total[MAX_BINS], us[MAX_BINS];
	static char buf[RC_TL_RECORD_BYTES], enc[MAX_BINS * 13 + 1];
	const struct rc_kind *k = run->kind;
	struct rc_tl_loss loss;
	struct layout l;
	struct record rec;
	size_t n = 0;

	run->loss_ci = run->after_ci = run->after_est = false;
	run->timeline = tl->cap != 0;
	if (!tl->cap)
		return;
	time_to_us(tl);
	lay_out(tl, &l);
	record_begin(&rec, buf, sizeof(buf), "timeline");
	json_str(&rec.j, "bench", "reclaim");
	json_str(&rec.j, "strategy", k->name);
	json_u64(&rec.j, "batch", k->batch);
	json_u64(&rec.j, "workers", tl->workers);
	json_u64(&rec.j, "reads_unit", RC_READS_CHUNK);
	json_bool(&rec.j, "cpus_concurrent", cpus_run_concurrently());
	/* as the bins have it: to the microsecond the time series sums to */
	json_u64(&rec.j, "pageout_us",
		 *at(tl, RC_TL_DURING, tl->workers + 1,
		     tl->edges[RC_TL_DURING] + 1) -
			 *at(tl, RC_TL_DURING, tl->workers + 1, 0));
	json_u64(&rec.j, "before_us",
		 tsc_to_ns(tl->width[RC_TL_BEFORE] * l.group[RC_TL_BEFORE]) /
			 1000);
	json_u64(&rec.j, "before", l.bins[RC_TL_BEFORE]);
	json_u64(&rec.j, "during_us",
		 tsc_to_ns(tl->width[RC_TL_DURING] * l.group[RC_TL_DURING]) /
			 1000);
	json_u64(&rec.j, "during", l.bins[RC_TL_DURING]);
	json_u64(&rec.j, "after_us",
		 tsc_to_ns(tl->width[RC_TL_AFTER] * l.group[RC_TL_AFTER]) /
			 1000);
	json_u64(&rec.j, "after", l.bins[RC_TL_AFTER]);
	n = series_bins(tl, &l, tl->workers + 1, us);
	rc_tl_encode(us, n, enc, sizeof(enc));
	json_str(&rec.j, "time", enc);
	series_bins(tl, &l, tl->workers, bins);
	rc_tl_encode(bins, n, enc, sizeof(enc));
	json_str(&rec.j, "pages", enc);
	for (size_t i = 0; i < n; i++)
		total[i] = 0;
	json_begin_array(&rec.j, "reads");
	for (unsigned w = 0; w < tl->workers; w++) {
		series_bins(tl, &l, w, bins);
		for (size_t i = 0; i < n; i++)
			total[i] += bins[i];
		if (w >= RC_TL_SHOWN)
			continue;
		rc_tl_encode(bins, n, enc, sizeof(enc));
		json_str(&rec.j, NULL, enc);
	}
	json_end_array(&rec.j);
	if (tl->workers > RC_TL_SHOWN) {
		rc_tl_encode(total, n, enc, sizeof(enc));
		json_str(&rec.j, "reads_all", enc);
	}
	loss_interval(run, &l, total, us, &loss);
	rc_tl_loss_json(&rec.j, &loss);
	record_end(&rec);
}

size_t rc_tl_fields(const struct rc_run *run, struct result_field *out)
{
	size_t n = 0;

	if (!run->timeline)
		return 0;
	/* what the bins must sum to, and the window they must span */
	out[n++] = (struct result_field){"worker_reads_during",
					 run->during_reads, false};
	out[n++] = (struct result_field){
		"pageout_us", tsc_to_ns(run->count.cycles) / 1000, false};
	if (run->loss_ci) {
		out[n++] = (struct result_field){"worker_loss_lo_pct",
						 (uint64_t)run->loss_lo, true};
		out[n++] = (struct result_field){"worker_loss_hi_pct",
						 (uint64_t)run->loss_hi, true};
	}
	out[n++] = (struct result_field){"worker_loss_blocks", run->loss_blocks,
					 false};
	out[n++] = (struct result_field){"worker_loss_effective_bins",
					 run->loss_eff_bins, false};
	if (run->after_est)
		out[n++] =
			(struct result_field){"worker_after_loss_pct",
					      (uint64_t)run->after_loss, true};
	if (run->after_ci) {
		out[n++] = (struct result_field){"worker_after_loss_lo_pct",
						 (uint64_t)run->after_lo, true};
		out[n++] = (struct result_field){"worker_after_loss_hi_pct",
						 (uint64_t)run->after_hi, true};
	}
	return n;
}

const char *rc_tl_interval_text(const struct rc_run *run, char *buf, size_t cap)
{
	if (!run->loss_ci)
		return "-";
	ksnprintf(buf, cap, "[%lld, %lld]", (long long)run->loss_lo,
		  (long long)run->loss_hi);
	return buf;
}

/* Short: it goes into every reader pass's record (the env has the rest) */
const char *rc_not_hardware(void)
{
	struct findings_machine m;

	/* Whether they take turns is the findings' one rule. */
	findings_machine_here(&m);
	return m.not_concurrent ? "the cpus take turns (env "
				  "cpus_concurrent_why): the loss is the "
				  "host's time-sharing, not the TLB"
				: NULL;
}

void rc_table_caveat(void)
{
	const char *why = rc_not_hardware();

	if (why)
		bench_printf("  loss: not a hardware answer here: %s\n", why);
}
