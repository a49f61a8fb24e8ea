// SPDX-License-Identifier: MIT
/*
 * The findings block and record at the end of a run (bench/findings.h):
 * a few INFO lines, fit for a 115200-baud console, and one `findings`
 * record with the same numbers (docs/output.md, "Findings").
 */
#include "bench/findings.h"
#include "bench/ceiling_book.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "lib/json.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "smp/concurrency.h"
#include "smp/percpu.h"

#define TCG_SIGNATURE "TCGTCGTCGTCG"
#define LINE	      400

void findings_machine_here(struct findings_machine *m)
{
	bool tcg =
		cpu_info.hypervisor && !strcmp(cpu_info.hv_sig, TCG_SIGNATURE);

	*m = (struct findings_machine){
		.tcg = tcg,
		.hypervisor = cpu_info.hypervisor && !tcg,
		.rdtsc_trapped = tsc_freq.rdtsc_trapped,
		.invlpgb_cpuid = cpu_info.invlpgb_cpuid,
		/* One CPU has nobody to take turns with. */
		.not_concurrent = cpumask_count(&cpus_online) > 1 &&
				  !cpus_run_concurrently(),
	};
}

/* Appends to a line being built; never past its end. */
struct line {
	char buf[LINE];
	size_t len;
};

static void add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = kvsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof(l->buf) - l->len
				  ? (size_t)n
				  : sizeof(l->buf) - l->len - 1;
}

/* ": not a hardware answer here: TAG, TAG" or nothing. */
static void add_caveats(struct line *l, unsigned int caveats)
{
	char text[128];

	if (caveats)
		add(l, ": %s",
		    findings_caveats_text(caveats, text, sizeof(text)));
}

static void x100(struct line *l, uint64_t v)
{
	add(l, "%llu.%02llu", (unsigned long long)(v / 100),
	    (unsigned long long)(v % 100));
}

static void print_crossover(const struct findings_crossover *c)
{
	struct line l = {0};

	add(&l, "findings: crossover (%s vs %s): ", c->ipi, c->invlpgb);
	if (c->no_data) {
		report_info("%sno data: %s", l.buf, c->no_data);
		return;
	}
	add(&l,
	    "%zu cells, one run, not tested; the fewest targets at which "
	    "INVLPGB is faster at the point estimates:",
	    c->cells);
	for (size_t i = 0; i < c->nfrontier; i++) {
		unsigned long long pages = c->frontier[i].pages;

		add(&l, "%s %llu page%s: ", i ? "," : "", pages,
		    pages == 1 ? "" : "s");
		if (c->frontier[i].lean)
			add(&l, "%llu",
			    (unsigned long long)c->frontier[i].lean_from);
		else
			add(&l, "none");
	}
	add(&l,
	    "; Linux's rule (INVLPGB from 4 active CPUs) picks the slower "
	    "way in %zu of %zu",
	    c->linux_slower, c->cells);
	add_caveats(&l, c->caveats);
	report_info("%s", l.buf);
}

/* "K", "<=K" or ">K" (bench/ceiling.h). */
static void add_k(struct line *l, struct ceiling_k k)
{
	add(l, "%s%u",
	    k.where == CEILING_BELOW   ? "<="
	    : k.where == CEILING_ABOVE ? ">"
				       : "",
	    k.k);
}

/* "W 16: 24 [22, 29]" for one point. */
static void add_point(struct line *l, const struct ceiling_point *p)
{
	add(l, "W %u: ", p->w);
	add_k(l, p->s.kstar);
	add(l, " [");
	add_k(l, p->s.lo);
	add(l, ", ");
	add_k(l, p->s.hi);
	add(l, "]");
}

/*
 * K*(W) of the answer's way, each W named, and the K that keeps one by
 * one under 3,000 ns; never a verdict on 33 from one boot.
 */
static void print_ceiling(const struct ceiling_decision *c)
{
	const struct ceiling_way_result *r;
	struct line l = {0};

	add(&l, "findings: flush ceiling (Linux: 33 pages): ");
	if (!c->have) {
		report_info("%sno data: %s", l.buf, c->why_not);
		return;
	}
	r = &c->way[c->answer_way];
	add(&l, "K*(W) %s, %s cycles, within the run: ",
	    ceiling_way_name(c->answer_way), CEILING_CURRENCY);
	for (unsigned i = 0; i < r->npt; i++) {
		add(&l, "%s", i ? "; " : "");
		add_point(&l, &r->pt[i]);
	}
	add(&l,
	    " (answer W %u: the largest within the L2 TLB); 33 against K*: %s",
	    c->answer_w, CEILING_ONE_RUN);
	if (r->have_cap) {
		add(&l, "; one by one under %u ns up to K ", CEILING_CAP_NS);
		add_k(&l, r->k_cap);
	}
	add_caveats(&l, c->caveats);
	report_info("%s", l.buf);
}

static void print_irqs(const struct findings_irqs *q)
{
	struct line l = {0};

	if (!q->have) {
		report_info("findings: interrupts per GiB paged out: no data: "
			    "no per-page and batch 512 reclaim records");
		return;
	}
	add(&l,
	    "findings: interrupts per GiB paged out: per-page %llu, batch 512 "
	    "%llu: ",
	    (unsigned long long)q->per_page, (unsigned long long)q->batch512);
	x100(&l, q->ratio_x100);
	add(&l,
	    "x fewer (the seed's arithmetic for %llu targets: %llu and %llu; "
	    "exact counts)",
	    (unsigned long long)q->targets,
	    (unsigned long long)q->seed_per_page,
	    (unsigned long long)q->seed_batch512);
	report_info("%s", l.buf);
}

static void add_loss(struct line *l, const char *name,
		     const struct findings_loss_side *s)
{
	if (!s->have) {
		add(l, "%s not measured", name);
		return;
	}
	add(l, "%s %lld%%", name, (long long)s->pct);
	if (s->has_ci)
		add(l, " [%lld, %lld]", (long long)s->lo, (long long)s->hi);
	else
		add(l, " (no interval)");
}

static void print_loss(const struct findings_loss *f)
{
	struct line l = {0};

	if (!f->per_page.have && !f->batch512.have) {
		report_info(
			"findings: worker loss during page-out: no data: no "
			"per-page or batch 512 reclaim records");
		return;
	}
	add(&l, "findings: worker loss during page-out (seed 001: about 53%% "
		"per-page, about 0 batched): ");
	add_loss(&l, "per-page", &f->per_page);
	add(&l, ", ");
	add_loss(&l, "batch 512", &f->batch512);
	add_caveats(&l, f->caveats);
	report_info("%s", l.buf);
}

static void print_throughput(const struct findings_throughput *t)
{
	struct line l = {0};

	add(&l, "findings: flushloop invlpgb / %s loops per second: ", t->ipi);
	if (t->no_data) {
		report_info("%sno data: %s", l.buf, t->no_data);
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		add(&l, "%s%llu cpu%s ", i ? ", " : "",
		    (unsigned long long)t->row[i].cpus,
		    t->row[i].cpus == 1 ? "" : "s");
		x100(&l, t->row[i].ratio_x100);
	}
	add(&l, " (one run, no interval; seed 000: 2.20 at 36 cores, with an "
		"LRU drain removed too)");
	add_caveats(&l, t->caveats);
	report_info("%s", l.buf);
}

static void json_caveats(struct json *j, unsigned int caveats)
{
	json_begin_array(j, "not_hardware");
	for (unsigned int i = 0; i < FC_COUNT; i++)
		if (caveats & 1u << i)
			json_str(j, NULL, findings_caveat_tag(1u << i));
	json_end_array(j);
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

static void print_record(const struct findings_book *b,
			 const struct findings *f,
			 const struct ceiling_decision *c)
{
	char buf[4096];
	struct record rec;

	record_begin(&rec, buf, sizeof(buf), "findings");
	json_u64(&rec.j, "records", b->n);
	json_u64(&rec.j, "records_dropped", b->dropped);
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

void findings_report(const struct findings_book *b,
		     const struct ceiling_decision *c)
{
	struct findings_machine m;
	static struct findings f;

	findings_machine_here(&m);
	findings_decide(b, &m, &f);
	report_info("findings: what this run answers (one boot: "
		    "tools/shootdown.py answer pools several)");
	if (b->dropped)
		report_info("findings: only the first %d result records were "
			    "considered (%zu more were not)",
			    FINDINGS_RECORDS, b->dropped);
	print_crossover(&f.cross);
	print_ceiling(c);
	print_irqs(&f.irqs);
	print_loss(&f.loss);
	print_throughput(&f.tput);
	print_record(b, &f, c);
}
