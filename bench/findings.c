// SPDX-License-Identifier: MIT
/*
 * The findings block and record at the end of a run (bench/findings.h):
 * a few INFO lines, fit for a 115200-baud console, and one `findings`
 * record with the same numbers (docs/output.md, "Findings").
 */
#include "bench/findings.h"
#include "bench/ceiling_run.h"
#include "kernel/report.h"
#include "lib/json.h"
#include "lib/printf.h"
#include "smp/concurrency.h"

#define LINE 400

/*
 * Appends to a line being built; never past its end. print_ceiling's
 * builder: the other findings are bench/fline.h's (caveat first, wrapped).
 */
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
	char text[CAVEATS_TEXT];

	if (caveats)
		add(l, ": %s",
		    findings_caveats_text(caveats, text, sizeof(text)));
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

static void print_ceiling(const struct ceiling_answer *c)
{
	const struct ceiling_solution *s = &c->s;
	struct line l = {0};

	add(&l, "findings: flush ceiling (Linux: 33 pages): ");
	if (!c->have) {
		report_info("%sno data: %s", l.buf, c->why_not);
		return;
	}
	add(&l, "K* ");
	add_k(&l, s->kstar);
	add(&l, " pages [");
	add_k(&l, s->lo);
	add(&l, ", ");
	add_k(&l, s->hi);
	add(&l, "] (%s, W %u); 33 is %s it", c->way, c->w,
	    s->linux_pos == CEILING_33_INSIDE  ? "within the interval of"
	    : s->linux_pos == CEILING_33_BELOW ? "below"
					       : "above");
	if (s->have33)
		add(&l,
		    "; at 33 pages one by one %llu cycles, a full flush + "
		    "refill %llu",
		    (unsigned long long)s->range33,
		    (unsigned long long)s->full33);
	add_caveats(&l, c->caveats);
	report_info("%s", l.buf);
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

static void json_ceiling(struct json *j, const struct ceiling_answer *c)
{
	json_begin_object(j, "ceiling");
	if (!c->have) {
		json_str(j, "no_data", c->why_not);
		json_end_object(j);
		return;
	}
	json_str(j, "way", c->way);
	json_u64(j, "w", c->w);
	ceiling_json_k(j, "k", "k_where", c->s.kstar);
	ceiling_json_k(j, "k_lo", "k_lo_where", c->s.lo);
	ceiling_json_k(j, "k_hi", "k_hi_where", c->s.hi);
	json_str(j, "linux_pos", ceiling_pos_name(c->s.linux_pos));
	if (c->s.have33)
		json_u64(j, "range33", c->s.range33);
	json_u64(j, "full", c->s.full33);
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
			 const struct findings *f)
{
	/* FINDINGS_CELLS pairs at about 20 bytes each, and the rest. */
	static char buf[6656];
	struct record rec;

	record_begin(&rec, buf, sizeof(buf), "findings");
	json_u64(&rec.j, "records", b->n);
	json_u64(&rec.j, "records_dropped", b->dropped);
	/* The run's machine tags, once: the host reads, never decides. */
	json_tags(&rec.j, "caveats", findings_timing_caveats(m));
	json_probe_after(&rec.j);
	json_crossover(&rec.j, &f->cross);
	json_ceiling(&rec.j, ceiling_answer());
	json_irqs(&rec.j, &f->irqs);
	json_begin_object(&rec.j, "worker_loss");
	json_loss_side(&rec.j, "per_page", &f->loss.per_page);
	json_loss_side(&rec.j, "batch512", &f->loss.batch512);
	json_caveats(&rec.j, f->loss.caveats);
	json_end_object(&rec.j);
	json_throughput(&rec.j, &f->tput);
	record_end(&rec);
}

static void info_sink(const char *line, void *arg)
{
	(void)arg;
	report_info("%s", line);
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

void findings_report(const struct findings_book *b)
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
	print_ceiling(ceiling_answer());
	findings_print_irqs(&f.irqs, info_sink, NULL);
	findings_print_loss(&f.loss, info_sink, NULL);
	findings_print_throughput(&f.tput, info_sink, NULL);
	print_record(b, &m, &f);
}
