// SPDX-License-Identifier: MIT
/*
 * The findings block and record at the end of a run (bench/findings.h):
 * a few INFO lines, fit for a 115200-baud console, and one `findings`
 * record with the same numbers (docs/findings.md, "Findings").
 */
#include "bench/findings.h"
#include "bench/ceiling_book.h"
#include "kernel/report.h"
#include "lib/json.h"
#include "lib/printf.h"
#include "smp/concurrency.h"

static void info_sink(const char *line, void *arg)
{
	(void)arg;
	report_info("%s", line);
}

/* "W 16: 24 [22, 29]" for one point, a piece of its own. */
static void add_point(struct fline *l, const struct ceiling_point *p,
		      bool first)
{
	char k[16], lo[16], hi[16];

	fline_add(l, "%sW %u: %s [%s, %s]", first ? "" : "; ", p->w,
		  ceiling_k_text(p->s.kstar, k, sizeof(k)),
		  ceiling_k_text(p->s.lo, lo, sizeof(lo)),
		  ceiling_k_text(p->s.hi, hi, sizeof(hi)));
}

/*
 * K*(W) of the answer's way, each W named, and the K that keeps one by
 * one under 3,000 ns; never a verdict on 33 from one boot. The caveat
 * first, as every finding's (bench/fline.h).
 */
static void print_ceiling(const struct ceiling_decision *c, fline_sink sink)
{
	const struct ceiling_way_result *r;
	struct fline l;
	char k[16];

	if (!c->have) {
		report_info(
			"findings: flush ceiling (Linux: " CEILING_LINUX_TEXT
			" pages): no data: %s",
			c->why_not);
		return;
	}
	r = &c->way[c->answer_way];
	fline_begin(&l, sink, NULL, c->caveats,
		    "findings: flush ceiling (Linux: " CEILING_LINUX_TEXT
		    " pages)");
	fline_add(&l, "K*(W) %s, %s cycles, within the run: ",
		  ceiling_way_name(c->answer_way), CEILING_CURRENCY);
	for (unsigned i = 0; i < r->npt; i++)
		add_point(&l, &r->pt[i], i == 0);
	fline_add(&l, " (answer W %u: the largest within the L2 TLB)",
		  c->answer_w);
	fline_add(&l, "; " CEILING_LINUX_TEXT " against K*: %s",
		  CEILING_ONE_RUN);
	if (r->have_cap)
		fline_add(&l, "; one by one under %u ns up to K %s",
			  CEILING_CAP_NS,
			  ceiling_k_text(r->k_cap, k, sizeof(k)));
	fline_end(&l);
}

static void json_tags(struct json *j, const char *key, unsigned int caveats)
{
	json_begin_array(j, key);
	for (unsigned int i = 0; i < FC_COUNT; i++)
		if (caveats & 1u << i)
			json_str(j, NULL, findings_caveat_tag(1u << i));
	json_end_array(j);
}

/* A finding's own: the machine's tags and its records'. */
static void json_caveats(struct json *j, unsigned int caveats)
{
	json_tags(j, "not_hardware", caveats);
}

static void json_crossover(struct json *j, const struct findings_crossover *c)
{
	json_begin_object(j, "crossover");
	json_str(j, "ipi", c->ipi);
	json_str(j, "invlpgb", c->invlpgb);
	json_u64(j, "cells", c->cells);
	if (c->no_data)
		json_str(j, "no_data", c->no_data);
	json_begin_array(j, "frontier");
	for (size_t i = 0; i < c->nfrontier; i++) {
		json_begin_object(j, NULL);
		json_u64(j, "pages", c->frontier[i].pages);
		if (c->frontier[i].lean)
			json_u64(j, "lean_from", c->frontier[i].lean_from);
		else
			json_null(j, "lean_from");
		json_end_object(j);
	}
	json_end_array(j);
	json_u64(j, "linux_slower", c->linux_slower);
	/*
	 * [pages, targets, IPI record's seq, INVLPGB record's seq, 1 where
	 * Linux's rule picks INVLPGB]
	 */
	json_begin_array(j, "pairs");
	for (size_t i = 0; i < c->npairs; i++) {
		json_begin_array(j, NULL);
		json_u64(j, NULL, c->pair[i].pages);
		json_u64(j, NULL, c->pair[i].targets);
		json_u64(j, NULL, c->pair[i].ipi_seq);
		json_u64(j, NULL, c->pair[i].invlpgb_seq);
		json_u64(j, NULL, c->pair[i].linux_invlpgb);
		json_end_array(j);
	}
	json_end_array(j);
	if (c->pairs_dropped)
		json_u64(j, "pairs_dropped", c->pairs_dropped);
	json_caveats(j, c->caveats);
	json_end_object(j);
}

static void json_k(struct json *j, const char *key, const char *wkey,
		   struct ceiling_k k)
{
	json_u64(j, key, k.k);
	json_str(j, wkey, ceiling_where_name(k.where));
}

static void json_kstar(struct json *j, const struct ceiling_solution *s)
{
	json_k(j, "k", "k_where", s->kstar);
	json_k(j, "k_lo", "k_lo_where", s->lo);
	json_k(j, "k_hi", "k_hi_where", s->hi);
}

static void json_ceiling(struct json *j, const struct ceiling_decision *c)
{
	const struct ceiling_way_result *r = &c->way[c->answer_way];

	json_begin_object(j, "ceiling");
	if (!c->have) {
		json_str(j, "no_data", c->why_not);
		json_end_object(j);
		return;
	}
	json_str(j, "way", ceiling_way_name(c->answer_way));
	json_str(j, "currency", CEILING_CURRENCY);
	json_u64(j, "w", c->answer_w);
	json_kstar(j, &r->pt[c->answer_pt].s);
	json_str(j, "linux_pos", CEILING_ONE_RUN);
	json_begin_array(j, "points");
	for (unsigned i = 0; i < r->npt; i++) {
		json_begin_object(j, NULL);
		json_u64(j, "w", r->pt[i].w);
		json_kstar(j, &r->pt[i].s);
		json_end_object(j);
	}
	json_end_array(j);
	if (r->have_cap)
		json_k(j, "k_3us", "k_3us_where", r->k_cap);
	json_caveats(j, c->caveats);
	json_end_object(j);
}

static void json_irqs(struct json *j, const struct findings_irqs *q)
{
	if (!q->have) {
		json_null(j, "interrupts");
		return;
	}
	json_begin_object(j, "interrupts");
	json_u64(j, "targets", q->targets);
	json_u64(j, "per_page_per_gib", q->per_page);
	json_u64(j, "batch512_per_gib", q->batch512);
	json_u64(j, "seed_per_page_per_gib", q->seed_per_page);
	json_u64(j, "seed_batch512_per_gib", q->seed_batch512);
	json_x100(j, "ratio", q->ratio_x100);
	json_end_object(j);
}

static void json_loss_side(struct json *j, const char *key,
			   const struct findings_loss_side *s)
{
	if (!s->have) {
		json_null(j, key);
		return;
	}
	json_begin_object(j, key);
	json_i64(j, "pct", s->pct);
	if (s->has_ci) {
		json_i64(j, "lo_pct", s->lo);
		json_i64(j, "hi_pct", s->hi);
	}
	json_end_object(j);
}

static void json_throughput(struct json *j, const struct findings_throughput *t)
{
	json_begin_object(j, "throughput");
	json_str(j, "ipi", t->ipi);
	if (t->no_data)
		json_str(j, "no_data", t->no_data);
	json_begin_array(j, "rows");
	for (size_t i = 0; i < t->n; i++) {
		json_begin_object(j, NULL);
		json_u64(j, "cpus", t->row[i].cpus);
		json_u64(j, "ipi_ops_per_s", t->row[i].ipi_ops);
		json_u64(j, "invlpgb_ops_per_s", t->row[i].invlpgb_ops);
		json_x100(j, "ratio", t->row[i].ratio_x100);
		json_end_object(j);
	}
	json_end_array(j);
	json_caveats(j, t->caveats);
	json_end_object(j);
}

/* The concurrency probe after the experiments (smp/concurrency.h). */
static void json_probe_after(struct json *j)
{
	const struct concurrency_answer *a =
		cpus_concurrency(CONCURRENCY_EXPERIMENTS);

	if (!a->probed) {
		json_null(j, "cpus_concurrent_after");
		return;
	}
	json_bool(j, "cpus_concurrent_after", a->concurrent);
	json_str(j, "cpus_concurrent_after_why", a->why);
	json_u64(j, "cpus_concurrent_after_permille", a->permille);
}

static void print_record(const struct findings_book *b,
			 const struct findings_machine *m,
			 const struct findings *f,
			 const struct ceiling_decision *c)
{
	/* FINDINGS_CELLS pairs at about 20 bytes each, and the rest. */
	static char buf[7168];
	struct record rec;

	record_begin(&rec, buf, sizeof(buf), "findings");
	json_u64(&rec.j, "records", b->n);
	json_u64(&rec.j, "records_dropped", b->dropped);
	/* The run's machine tags, once: the host reads, never decides. */
	json_tags(&rec.j, "caveats", findings_timing_caveats(m));
	json_probe_after(&rec.j);
	json_crossover(&rec.j, &f->cross);
	json_ceiling(&rec.j, c);
	json_irqs(&rec.j, &f->irqs);
	json_begin_object(&rec.j, "worker_loss");
	json_loss_side(&rec.j, "per_page", &f->loss.per_page);
	json_loss_side(&rec.j, "batch512", &f->loss.batch512);
	json_caveats(&rec.j, f->loss.caveats);
	json_end_object(&rec.j);
	json_throughput(&rec.j, &f->tput);
	record_end(&rec);
}

/* The second probe's answer: the first is the env record's. */
static void report_probe_after(void)
{
	const struct concurrency_answer *a =
		cpus_concurrency(CONCURRENCY_EXPERIMENTS);

	if (a->probed)
		report_info("concurrency: after the experiments: %s (cpu 0 saw "
			    "a move in %llu per mille of its reads; the "
			    "findings record's cpus_concurrent_after_why)",
			    a->concurrent ? "side by side"
					  : "the cpus take turns",
			    (unsigned long long)a->permille);
}

void findings_report(const struct findings_book *b,
		     const struct ceiling_decision *c)
{
	struct findings_machine m;
	static struct findings f;

	report_probe_after();
	findings_machine_here(&m);
	findings_decide(b, &m, &f);
	report_info("findings: what this run answers (one boot: "
		    "tools/shootdown.py answer pools several)");
	if (b->dropped)
		report_info("findings: only the first %d result records were "
			    "considered (%zu more were not)",
			    FINDINGS_RECORDS, b->dropped);
	findings_print_crossover(&f.cross, info_sink, NULL);
	print_ceiling(c, info_sink);
	findings_print_irqs(&f.irqs, info_sink, NULL);
	findings_print_loss(&f.loss, info_sink, NULL);
	findings_print_throughput(&f.tput, info_sink, NULL);
	print_record(b, &m, &f, c);
	figures_report(b, &m, &f, c);
}
