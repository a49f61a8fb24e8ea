// SPDX-License-Identifier: MIT
/*
 * The page-out's records: its snapshots turned into the harness's
 * timeline bins and encoding, and the loss with its interval by the
 * harness's batch means (bench/rc_timeline.h), so that checklog and the
 * results tools read them as they read a reclaim pass's.
 */
#include "linux/pageout.h"
#include "linux/out.h"
#include "bench/rc_timeline.h"

#include <stdlib.h>

#define MAX_BINS (2 * PO_WINDOW_BINS + PO_DURING_BINS + 1)

struct layout {
	size_t nb, nd, na, k; /* bins a window; calls a page-out bin */
};

bool po_alloc(struct po_timeline *tl, size_t snaps)
{
	tl->snaps = calloc(snaps * (2 + tl->workers), sizeof(uint64_t));
	tl->cap = tl->snaps ? snaps : 0;
	tl->n = 0;
	return tl->snaps != NULL;
}

void po_free(struct po_timeline *tl)
{
	free(tl->snaps);
	tl->snaps = NULL;
	free(tl->w);
	tl->w = NULL;
}

static struct layout lay_out(const struct po_timeline *tl)
{
	size_t calls = tl->end - tl->start;
	struct layout l = {.nb = tl->start, .na = tl->n - 1 - tl->end};

	l.k = (calls + PO_DURING_BINS - 1) / PO_DURING_BINS;
	l.k = l.k ? l.k : 1;
	l.nd = calls / l.k + (calls % l.k != 0);
	return l;
}

/* The snapshot a bin of series column col ends at, by window. */
static size_t edge(const struct po_timeline *tl, const struct layout *l,
		   size_t bin)
{
	if (bin < l->nb)
		return bin + 1;
	if (bin < l->nb + l->nd) {
		size_t e = tl->start + (bin - l->nb + 1) * l->k;

		return e < tl->end ? e : tl->end;
	}
	return tl->end + (bin - l->nb - l->nd) + 1;
}

/* Per-bin differences of column col (0 time in us, 1 pages, 2+ reads). */
static size_t series(struct po_timeline *tl, const struct layout *l,
		     unsigned col, uint64_t *out)
{
	size_t n = l->nb + l->nd + l->na, from = 0;
	uint64_t t0 = po_snap(tl, 0)[0];

	for (size_t b = 0; b < n; b++) {
		size_t to = edge(tl, l, b);
		uint64_t lo = po_snap(tl, from)[col], hi = po_snap(tl, to)[col];

		if (col == 0) /* whole microseconds from the first snapshot */
			lo = (lo - t0) / 1000, hi = (hi - t0) / 1000;
		out[b] = hi - lo;
		from = to;
	}
	return n;
}

static void put_series(struct json *j, const char *key, const uint64_t *v,
		       size_t n)
{
	static char enc[MAX_BINS * 13 + 1];

	rc_tl_encode(v, n, enc, sizeof(enc));
	json_str(j, key, enc);
}

struct bins {
	uint64_t us[MAX_BINS], pages[MAX_BINS], total[MAX_BINS], w[MAX_BINS];
	size_t n;
};

static void timeline_record(struct po_run *r, const struct layout *l,
			    struct bins *b, uint64_t width_ns,
			    const struct rc_tl_loss *d)
{
	struct po_timeline *tl = &r->tl;
	struct record *rec = &(struct record){0};
	uint64_t t0 = po_snap(tl, tl->start)[0], t1 = po_snap(tl, tl->end)[0];
	uint64_t base = po_snap(tl, 0)[0];

	record_begin(rec, "timeline");
	json_str(&rec->j, "bench", "linux");
	json_str(&rec->j, "workload", "pageout");
	json_u64(&rec->j, "workers", tl->workers);
	json_u64(&rec->j, "reads_unit", READS_UNIT);
	json_u64(&rec->j, "pageout_us",
		 (t1 - base) / 1000 - (t0 - base) / 1000);
	json_u64(&rec->j, "before_us", width_ns / 1000);
	json_u64(&rec->j, "before", l->nb);
	json_u64(&rec->j, "during_us", l->nd ? (t1 - t0) / 1000 / l->nd : 0);
	json_u64(&rec->j, "during", l->nd);
	json_u64(&rec->j, "after_us", width_ns / 1000);
	json_u64(&rec->j, "after", l->na);
	put_series(&rec->j, "time", b->us, b->n);
	put_series(&rec->j, "pages", b->pages, b->n);
	json_begin_array(&rec->j, "reads");
	for (unsigned w = 0; w < tl->workers && w < PO_SHOWN; w++) {
		series(tl, l, 2 + w, b->w);
		put_series(&rec->j, NULL, b->w, b->n);
	}
	json_end_array(&rec->j);
	if (tl->workers > PO_SHOWN)
		put_series(&rec->j, "reads_all", b->total, b->n);
	rc_tl_loss_json(&rec->j, d);
	record_end(rec);
}

static uint64_t sum(const uint64_t *v, size_t from, size_t to)
{
	uint64_t s = 0;

	for (size_t i = from; i < to; i++)
		s += v[i];
	return s;
}

static void interval_fields(struct json *j, const char *pct, const char *lo,
			    const char *hi, const struct rc_tl_loss *d,
			    int64_t at_x100)
{
	int64_t l, h;

	if (!d->estimated)
		return;
	json_i64(j, pct, rc_tl_round_pct(at_x100));
	if (!d->valid)
		return;
	rc_tl_interval(rc_tl_round_pct(at_x100) * 100, d->half_x100, &l, &h);
	json_i64(j, lo, l);
	json_i64(j, hi, h);
}

static void result_record(struct po_run *r, const struct layout *l,
			  const struct bins *b, uint64_t pages,
			  const struct rc_tl_loss *d,
			  const struct rc_tl_loss *a)
{
	struct record *rec = &(struct record){0};
	uint64_t us = sum(b->us, l->nb, l->nb + l->nd);

	record_begin(rec, "result");
	json_str(&rec->j, "bench", "linux");
	json_str(&rec->j, "workload", "pageout");
	json_u64(&rec->j, "workers", r->tl.workers);
	json_u64(&rec->j, "pages", pages);
	json_u64(&rec->j, "pageout_us", us);
	json_u64(&rec->j, "pages_per_s", us ? pages * 1000000 / us : 0);
	json_u64(&rec->j, "worker_reads_before",
		 sum(b->total, 0, l->nb) * READS_UNIT);
	json_u64(&rec->j, "worker_reads_during",
		 sum(b->total, l->nb, l->nb + l->nd) * READS_UNIT);
	interval_fields(&rec->j, "worker_loss_pct", "worker_loss_lo_pct",
			"worker_loss_hi_pct", d, d->loss_x100);
	json_u64(&rec->j, "worker_loss_blocks", d->blocks);
	json_u64(&rec->j, "worker_loss_effective_bins", d->effective_bins);
	interval_fields(&rec->j, "worker_after_loss_pct",
			"worker_after_loss_lo_pct", "worker_after_loss_hi_pct",
			a, a->loss_x100);
	json_u64(&rec->j, "tlb_shootdowns", r->tlb);
	json_u64(&rec->j, "call_interrupts", r->cal);
	json_u64(&rec->j, "swapped_pages", r->swapped);
	json_u64(&rec->j, "resident_pages", r->resident);
	json_u64(&rec->j, "madvise_calls", r->calls);
	json_u64(&rec->j, "madvise_errors", r->failed_calls);
	record_end(rec);
}

void po_emit(struct po_run *r, uint64_t pages, uint64_t width_ns)
{
	static struct bins b;
	struct po_timeline *tl = &r->tl;
	struct layout l = lay_out(tl);
	struct rc_tl_loss d, a;

	b.n = series(tl, &l, 0, b.us);
	series(tl, &l, 1, b.pages);
	for (size_t i = 0; i < b.n; i++)
		b.total[i] = 0;
	r->read_before = 0;
	for (unsigned w = 0; w < tl->workers; w++) {
		series(tl, &l, 2 + w, b.w);
		for (size_t i = 0; i < b.n; i++)
			b.total[i] += b.w[i];
		r->read_before += sum(b.w, 0, l.nb) > 0;
	}
	r->workers_ok =
		r->read_before == tl->workers && r->pinned == tl->workers;
	d = rc_tl_loss(b.total, b.us, l.nb, b.total + l.nb, b.us + l.nb, l.nd);
	a = rc_tl_loss(b.total, b.us, l.nb, b.total + l.nb + l.nd,
		       b.us + l.nb + l.nd, l.na);
	timeline_record(r, &l, &b, width_ns, &d);
	result_record(r, &l, &b, pages, &d, &a);
}
