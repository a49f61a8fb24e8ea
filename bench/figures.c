// SPDX-License-Identifier: MIT
/*
 * The run's headline figures, one FIGURE line each (docs/findings.md,
 * "Figures"): a lab's LAVA monitor turns each into a test case with a
 * measurement and units (docs/lab.md), so its charts show numbers. Each
 * restates a number of a record printed before (the findings record, or a
 * shootdown result record), which tools/checklog.py holds it to. A figure
 * the run has no data for has no line; at most FIGURES_MAX lines.
 *
 * A figure a caveat touches is never bare (bench/caveats.h): its name
 * ends in FIGURE_NOT_HARDWARE, so that a lab's chart never pools it with
 * a hardware answer's, and the line ends in its caveats' tags, as the
 * finding it restates says them. The interrupt counts are counts, exact
 * anywhere: they carry none.
 */
#include <stdarg.h>
#include "bench/ceiling_book.h"
#include "bench/findings.h"
#include "kernel/report.h"
#include "lib/kstring.h"
#include "lib/printf.h"

#define FIGURES_MAX	    40
#define FIGURE_NOT_HARDWARE " (not hardware)"
/* The shootdown timings' share (8 strategies), the findings' first. */
#define FIGURES_P50_MAX 16

struct figures {
	unsigned n;
};

static void figure(struct figures *s, unsigned int caveats, const char *name,
		   const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void figure(struct figures *s, unsigned int caveats, const char *name,
		   const char *unit, const char *fmt, ...)
{
	char value[32], full[128], why[CAVEATS_TEXT];
	va_list ap;

	if (s->n >= FIGURES_MAX)
		return;
	va_start(ap, fmt);
	kvsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	ksnprintf(full, sizeof(full), "%s%s", name,
		  caveats ? FIGURE_NOT_HARDWARE : "");
	report_figure(full, value, unit,
		      findings_caveats_text(caveats, why, sizeof(why)));
	s->n++;
}

static void figure_x100(struct figures *s, unsigned int caveats,
			const char *name, uint64_t v)
{
	figure(s, caveats, name, "x", "%llu.%02llu",
	       (unsigned long long)(v / 100), (unsigned long long)(v % 100));
}

/* A strategy's most targets and its fewest and most pages (shootdown). */
struct span {
	uint64_t targets, pages_lo, pages_hi;
};

static struct span strategy_span(const struct findings_book *b,
				 const char *strat)
{
	struct span sp = {0, UINT64_MAX, 0};

	for (size_t i = 0; i < b->n; i++) {
		const struct findings_rec *r = &b->rec[i];

		if (r->bench != FB_SHOOTDOWN || kstrcmp(r->strategy, strat))
			continue;
		if (r->targets > sp.targets)
			sp.targets = r->targets;
		if (r->pages < sp.pages_lo)
			sp.pages_lo = r->pages;
		if (r->pages > sp.pages_hi)
			sp.pages_hi = r->pages;
	}
	return sp;
}

/* Whether an earlier record already gave this (strategy, pages) a line. */
static bool seen_before(const struct findings_book *b, size_t i,
			uint64_t targets)
{
	const struct findings_rec *r = &b->rec[i];

	for (size_t k = 0; k < i; k++)
		if (b->rec[k].bench == FB_SHOOTDOWN &&
		    !kstrcmp(b->rec[k].strategy, r->strategy) &&
		    b->rec[k].pages == r->pages && b->rec[k].targets == targets)
			return true;
	return false;
}

/*
 * Each strategy's p50 at the fewest and the most pages it ran, at its most
 * targets: the first record of that cell, in the order the run printed
 * them (two lines a strategy, not one a page count: a default run has 7).
 */
static void figures_p50(struct figures *s, const struct findings_book *b,
			unsigned int timing)
{
	unsigned start = s->n;
	char name[96];

	for (size_t i = 0; i < b->n && s->n - start < FIGURES_P50_MAX; i++) {
		const struct findings_rec *r = &b->rec[i];
		struct span sp;

		if (r->bench != FB_SHOOTDOWN)
			continue;
		sp = strategy_span(b, r->strategy);
		if (r->targets != sp.targets || seen_before(b, i, sp.targets))
			continue;
		if (r->pages != sp.pages_lo && r->pages != sp.pages_hi)
			continue;
		ksnprintf(name, sizeof(name),
			  "shootdown: %s: %llu page%s, %llu targets: p50",
			  r->strategy, (unsigned long long)r->pages,
			  r->pages == 1 ? "" : "s",
			  (unsigned long long)sp.targets);
		figure(s, timing | findings_record_caveats(r), name, "cycles",
		       "%llu", (unsigned long long)r->p50);
	}
}

static void figures_findings(struct figures *s, const struct findings *f)
{
	char name[64];

	if (f->cross.cells)
		figure(s, f->cross.caveats,
		       "crossover: cells where linux picks the slower way",
		       "cells", "%zu", f->cross.linux_slower);
	if (f->irqs.have) {
		figure(s, 0, "interrupts per gib: per-page", "interrupts",
		       "%llu", (unsigned long long)f->irqs.per_page);
		figure(s, 0, "interrupts per gib: batch 512", "interrupts",
		       "%llu", (unsigned long long)f->irqs.batch512);
		figure_x100(s, 0, "interrupts per gib: per-page / batch 512",
			    f->irqs.ratio_x100);
	}
	if (f->loss.per_page.have)
		figure(s, f->loss.caveats, "worker loss: per-page", "%", "%lld",
		       (long long)f->loss.per_page.pct);
	if (f->loss.batch512.have)
		figure(s, f->loss.caveats, "worker loss: batch 512", "%",
		       "%lld", (long long)f->loss.batch512.pct);
	for (size_t i = 0; i < f->tput.n; i++) {
		ksnprintf(name, sizeof(name),
			  "flushloop: invlpgb / %s: %llu cpu%s", f->tput.ipi,
			  (unsigned long long)f->tput.row[i].cpus,
			  f->tput.row[i].cpus == 1 ? "" : "s");
		figure_x100(s, f->tput.caveats, name,
			    f->tput.row[i].ratio_x100);
	}
}

/*
 * The flush ceiling's K* at the answer's W, where it is a number: a bound
 * (K* below the fewest pages measured, above the most) is no number a
 * chart can plot, and has no line; the INFO line and the record say it.
 */
static void figure_ceiling(struct figures *s, const struct ceiling_decision *c)
{
	const struct ceiling_k *k;
	char name[64];

	if (!c->have)
		return;
	k = &c->way[c->answer_way].pt[c->answer_pt].s.kstar;
	if (k->where != CEILING_AT)
		return;
	ksnprintf(name, sizeof(name), "flush ceiling: %s: k* at w %u",
		  ceiling_way_name(c->answer_way), c->answer_w);
	figure(s, c->caveats, name, "pages", "%u", k->k);
}

void figures_report(const struct findings_book *b,
		    const struct findings_machine *m, const struct findings *f,
		    const struct ceiling_decision *c)
{
	struct figures s = {0};

	figures_findings(&s, f);
	figure_ceiling(&s, c);
	figures_p50(&s, b, findings_timing_caveats(m));
}
