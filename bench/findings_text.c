// SPDX-License-Identifier: MIT
/*
 * The findings' INFO lines (bench/findings.h), portable: each built with
 * bench/fline.h, so that the caveat comes first and a long finding wraps
 * instead of being cut (docs/findings.md, "Findings").
 */
#include "bench/findings.h"
#include "bench/fline.h"
#include "lib/printf.h"

/* A value in hundredths as "V.VV": two printf arguments. */
#define X100(v) (unsigned long long)((v) / 100), (unsigned long long)((v) % 100)

void findings_print_crossover(const struct findings_crossover *c,
			      fline_sink sink, void *arg)
{
	struct fline l;

	fline_begin(&l, sink, arg, c->caveats, "findings: crossover (%s vs %s)",
		    c->ipi, c->invlpgb);
	if (c->no_data) {
		fline_add(&l, "no data: %s", c->no_data);
		fline_end(&l);
		return;
	}
	fline_add(&l,
		  "%zu cells, one run, not tested; the fewest targets at "
		  "which INVLPGB is faster at the point estimates:",
		  c->cells);
	for (size_t i = 0; i < c->nfrontier; i++) {
		unsigned long long pages = c->frontier[i].pages;
		char lean[24] = "none";

		if (c->frontier[i].lean)
			ksnprintf(lean, sizeof(lean), "%llu",
				  (unsigned long long)c->frontier[i].lean_from);
		fline_add(&l, "%s %llu page%s: %s", i ? "," : "", pages,
			  pages == 1 ? "" : "s", lean);
	}
	fline_add(&l,
		  "; Linux's rule (INVLPGB from 4 active CPUs) picks the "
		  "slower way in %zu of %zu",
		  c->linux_slower, c->cells);
	fline_end(&l);
}

void findings_print_irqs(const struct findings_irqs *q, fline_sink sink,
			 void *arg)
{
	struct fline l;

	/* Exact counts: an answer on any machine, no caveat. */
	fline_begin(&l, sink, arg, 0, "findings: interrupts per GiB paged out");
	if (!q->have) {
		fline_add(&l, "no data: no per-page and batch 512 reclaim "
			      "records");
		fline_end(&l);
		return;
	}
	fline_add(&l, "per-page %llu, batch 512 %llu: %llu.%02llux fewer",
		  (unsigned long long)q->per_page,
		  (unsigned long long)q->batch512, X100(q->ratio_x100));
	fline_add(&l,
		  " (the seed's arithmetic for %llu targets: %llu and %llu; "
		  "exact counts)",
		  (unsigned long long)q->targets,
		  (unsigned long long)q->seed_per_page,
		  (unsigned long long)q->seed_batch512);
	fline_end(&l);
}

static void add_loss(struct fline *l, const char *sep, const char *name,
		     const struct findings_loss_side *s)
{
	if (!s->have)
		fline_add(l, "%s%s not measured", sep, name);
	else if (s->has_ci)
		fline_add(l, "%s%s %lld%% [%lld, %lld]", sep, name,
			  (long long)s->pct, (long long)s->lo,
			  (long long)s->hi);
	else
		fline_add(l, "%s%s %lld%% (no interval)", sep, name,
			  (long long)s->pct);
}

void findings_print_loss(const struct findings_loss *f, fline_sink sink,
			 void *arg)
{
	struct fline l;

	if (!f->per_page.have && !f->batch512.have) {
		fline_begin(&l, sink, arg, 0,
			    "findings: worker loss during page-out");
		fline_add(&l, "no data: no per-page or batch 512 reclaim "
			      "records");
		fline_end(&l);
		return;
	}
	fline_begin(&l, sink, arg, f->caveats,
		    "findings: worker loss during page-out (seed 001: about "
		    "53%% per-page, about 0 batched)");
	add_loss(&l, "", "per-page", &f->per_page);
	add_loss(&l, ", ", "batch 512", &f->batch512);
	fline_end(&l);
}

void findings_print_throughput(const struct findings_throughput *t,
			       fline_sink sink, void *arg)
{
	struct fline l;

	fline_begin(&l, sink, arg, t->caveats,
		    "findings: flushloop invlpgb / %s loops per second",
		    t->ipi);
	if (t->no_data) {
		fline_add(&l, "no data: %s", t->no_data);
		fline_end(&l);
		return;
	}
	for (size_t i = 0; i < t->n; i++)
		fline_add(&l, "%s%llu cpu%s %llu.%02llu", i ? ", " : "",
			  (unsigned long long)t->row[i].cpus,
			  t->row[i].cpus == 1 ? "" : "s",
			  X100(t->row[i].ratio_x100));
	fline_add(&l, " (one run, no interval; seed 000: 2.20 at 36 cores, "
		      "with an LRU drain removed too)");
	fline_end(&l);
}
