// SPDX-License-Identifier: MIT
/* The flush ceiling of this run (bench/ceiling_run.h). */
#include "bench/ceiling_run.h"
#include "bench/findings.h"
#include "bench/fline.h"
#include "bench/progress.h"
#include "bench/result.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "lib/printf.h"

/*
 * Why this machine's figures are not the hardware's (bench/findings.h);
 * model: the way's INVLPGB is the software model's.
 */
static unsigned int caveats_of(const struct ceiling_book *b, bool model)
{
	struct findings_machine m;

	findings_machine_here(&m);
	return findings_timing_caveats(&m) | (b->delayed ? FC_DELAYED : 0) |
	       (model ? FC_EMULATED : 0);
}

static void json_k(struct json *j, const char *key, const char *wkey,
		   struct ceiling_k k)
{
	json_u64(j, key, k.k);
	json_str(j, wkey, ceiling_where_name(k.where));
}

static void console_sink(const char *line, void *arg)
{
	(void)arg;
	bench_printf("%s\n", line);
}

static void json_curve(struct json *j, const struct ceiling_curve *c)
{
	json_begin_array(j, "curve");
	for (unsigned i = 0; i < c->n; i++) {
		json_begin_array(j, NULL);
		json_u64(j, NULL, c->k[i]);
		json_u64(j, NULL, c->cost[i].p50);
		json_u64(j, NULL, c->cost[i].lo);
		json_u64(j, NULL, c->cost[i].hi);
		json_end_array(j);
	}
	json_end_array(j);
}

static void json_point(struct json *j, const struct ceiling_point *p,
		       bool answer)
{
	const struct ceiling_solution *s = &p->s;

	json_begin_object(j, NULL);
	json_u64(j, "w", p->w);
	json_u64(j, "full_p50", s->full.p50);
	json_u64(j, "full_lo", s->full.lo);
	json_u64(j, "full_hi", s->full.hi);
	json_k(j, "k", "k_where", s->kstar);
	json_k(j, "k_lo", "k_lo_where", s->lo);
	json_k(j, "k_hi", "k_hi_where", s->hi);
	json_str(j, "linux_pos", CEILING_ONE_RUN);
	if (s->have33)
		json_u64(j, "range33", s->range33);
	if (answer)
		json_bool(j, "answer", true);
	json_end_object(j);
}

static void report_way(const struct ceiling_book *b,
		       const struct ceiling_decision *d, enum ceiling_way way,
		       const char *nh)
{
	const struct ceiling_way_result *r = &d->way[way];
	char buf[2048], k[16], lo[16], hi[16];
	struct fline l;
	struct record rec;

	record_begin(&rec, buf, sizeof(buf), "ceiling");
	json_str(&rec.j, "way", ceiling_way_name(way));
	json_u64(&rec.j, "targets", r->targets);
	json_str(&rec.j, "currency", CEILING_CURRENCY);
	json_u64(&rec.j, "linux", CEILING_LINUX);
	json_u64(&rec.j, "l2_tlb", b->l2);
	json_str(&rec.j, "l2_tlb_source", b->l2_cpuid ? "cpuid" : "assumed");
	json_bool(&rec.j, "hardware", !nh);
	if (nh)
		json_str(&rec.j, "not_hardware", nh);
	if (r->have_cap) {
		json_u64(&rec.j, "cap_ns", CEILING_CAP_NS);
		json_u64(&rec.j, "cap_cycles", d->cap_cycles);
		json_k(&rec.j, "k_3us", "k_3us_where", r->k_cap);
	}
	json_curve(&rec.j, &b->curve[way]);
	json_begin_array(&rec.j, "points");
	/* The caveat first on every line of figures (bench/fline.h). */
	fline_begin(&l, console_sink, NULL,
		    way == CEILING_INVLPGB ? d->caveats_model : d->caveats,
		    "  ceiling %-9s K*(W) within the run",
		    ceiling_way_name(way));
	for (unsigned i = 0; i < r->npt; i++) {
		const struct ceiling_solution *s = &r->pt[i].s;

		json_point(&rec.j, &r->pt[i],
			   d->have && d->answer_way == way &&
				   d->answer_pt == i);
		fline_add(&l, "%sW %u: %s [%s, %s]", i ? "; " : "", r->pt[i].w,
			  ceiling_k_text(s->kstar, k, sizeof(k)),
			  ceiling_k_text(s->lo, lo, sizeof(lo)),
			  ceiling_k_text(s->hi, hi, sizeof(hi)));
	}
	json_end_array(&rec.j);
	if (!r->npt) {
		json_str(&rec.j, "why_not", r->why_not);
		fline_add(&l, "none: %s", r->why_not);
	}
	if (r->have_cap)
		fline_add(&l, "; under %u ns one by one: K %s", CEILING_CAP_NS,
			  ceiling_k_text(r->k_cap, k, sizeof(k)));
	if (way == CEILING_INVLPGB && b->emulated)
		fline_add(&l, " (the software model's INVLPGB)");
	record_end(&rec);
	fline_end(&l);
}

void ceiling_report(struct result_sink *sink)
{
	const struct ceiling_book *b = &sink->ceiling;
	struct ceiling_decision *d = &sink->ceiling_decision;
	char nh[320], nh_model[400];

	/* Decide first, from the whole book; print only what was decided. */
	ceiling_decide(b, tsc_freq.khz, d);
	d->caveats = caveats_of(b, false);
	d->caveats_model = caveats_of(b, b->emulated);
	if (!b->nw)
		return; /* no refill (primitives did not run): no records */
	findings_caveats_text(d->caveats, nh, sizeof(nh));
	findings_caveats_text(d->caveats_model, nh_model, sizeof(nh_model));
	/* The lines below carry figures: never without the qualifier. */
	bench_printf("  ceiling: K* [within-run interval] pages per way and W, "
		     "%s cycles; " CEILING_LINUX_TEXT " against it: %s%s%s\n",
		     CEILING_CURRENCY, CEILING_ONE_RUN, nh[0] ? "; " : "",
		     nh[0] ? nh : " (a hardware answer)");
	for (unsigned w = 0; w < CEILING_WAYS; w++)
		report_way(b, d, (enum ceiling_way)w,
			   w == CEILING_INVLPGB
				   ? (nh_model[0] ? nh_model : NULL)
				   : (nh[0] ? nh : NULL));
}
