// SPDX-License-Identifier: MIT
/* The flush ceiling of this run (bench/ceiling_run.h). */
#include "bench/ceiling_run.h"
#include "bench/findings.h"
#include "bench/progress.h"
#include "bench/result.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"

#define MAX_W 4

enum way { WAY_LOCAL, WAY_UNICAST, WAY_BROADCAST, WAY_INVLPGB, WAYS };

static const char *const way_names[WAYS] = {"local", "unicast", "broadcast",
					    "invlpgb"};

struct noted {
	bool have;
	struct ceiling_est e;
};

/* What the records gave, each the first of its kind (the main sweep's). */
static struct {
	uint32_t l2;
	bool l2_cpuid;
	struct ceiling_curve curve[WAYS]; /* the range flush against K */
	struct noted full[WAYS];	  /* the full flush */
	uint32_t targets[WAYS];
	uint32_t w[MAX_W], nw;
	struct noted refill[MAX_W][2][2]; /* [w][responder][after range] */
	uint64_t delay;			  /* delay_cycles of a noted record */
	bool emulated;			  /* an INVLPGB record noted was */
} cs;

static struct ceiling_answer answer = {
	.why_not = "the ceiling was not computed (no experiment ran)"};
static char not_hw[320], not_hw_model[400];

static struct ceiling_est est_of(const struct result *r)
{
	return (struct ceiling_est){r->st.p50, r->p50_lo, r->p50_hi};
}

static void note(struct noted *n, const struct result *r)
{
	if (!n->have)
		*n = (struct noted){true, est_of(r)};
}

/* Into the curve at K, in K order, unless K is already there. */
static void note_k(struct ceiling_curve *c, const struct result *r)
{
	unsigned i = 0;

	while (i < c->n && c->k[i] < r->pages)
		i++;
	if ((i < c->n && c->k[i] == r->pages) || c->n == CEILING_MAX_K)
		return;
	for (unsigned j = c->n; j > i; j--) {
		c->k[j] = c->k[j - 1];
		c->cost[j] = c->cost[j - 1];
	}
	c->k[i] = (uint32_t)r->pages;
	c->cost[i] = est_of(r);
	c->n++;
}

static int w_index(uint64_t w)
{
	for (uint32_t i = 0; i < cs.nw; i++)
		if (cs.w[i] == w)
			return (int)i;
	if (cs.nw == MAX_W)
		return -1;
	cs.w[cs.nw] = (uint32_t)w;
	return (int)cs.nw++;
}

static bool is(const struct result *r, const char *bench, const char *s)
{
	return !strcmp(r->bench, bench) && !strcmp(r->strategy, s);
}

static void note_delay(const struct result *r)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i].key, "delay_cycles"))
			cs.delay = r->fields[i].value;
}

/* The way of a shootdown record the ceiling uses, or WAYS. */
static enum way shootdown_way(const struct result *r)
{
	if (is(r, "shootdown", "invlpgb") && r->targets == 1 && r->n)
		return WAY_INVLPGB;
	if ((!is(r, "shootdown", "ipi-range") &&
	     !is(r, "shootdown", "ipi-full")) ||
	    !r->ipi_mode || r->emulated || !r->n)
		return WAYS;
	if (!strcmp(r->ipi_mode, "unicast") && r->targets == 1)
		return WAY_UNICAST;
	if (!strcmp(r->ipi_mode, "broadcast"))
		return WAY_BROADCAST;
	return WAYS;
}

static bool is_primitive(const struct result *r)
{
	return r->n && (is(r, "primitives", "invlpg-range") ||
			is(r, "primitives", "cr3-reload") ||
			is(r, "primitives", "invlpgb-all+tlbsync") ||
			is(r, "primitives", "refill-after-full") ||
			is(r, "primitives", "refill-after-range"));
}

bool ceiling_uses(const struct result *r)
{
	return is_primitive(r) || shootdown_way(r) != WAYS;
}

static void note_shootdown(const struct result *r)
{
	bool range = !is(r, "shootdown", "ipi-full");
	enum way way = shootdown_way(r);

	if (way == WAYS)
		return;
	if (cs.targets[way] && cs.targets[way] != r->targets)
		return;
	cs.targets[way] = (uint32_t)r->targets;
	cs.emulated |= way == WAY_INVLPGB && r->emulated;
	note_delay(r);
	if (range)
		note_k(&cs.curve[way], r);
	else
		note(&cs.full[way], r);
}

void ceiling_note(const struct result *r)
{
	bool after_full = is(r, "primitives", "refill-after-full");
	int w;

	if (!r->n)
		return;
	if (is(r, "primitives", "invlpg-range"))
		note_k(&cs.curve[WAY_LOCAL], r);
	else if (is(r, "primitives", "cr3-reload"))
		note(&cs.full[WAY_LOCAL], r);
	else if (is(r, "primitives", "invlpgb-all+tlbsync")) {
		cs.emulated |= r->emulated;
		note(&cs.full[WAY_INVLPGB], r);
	} else if (after_full || is(r, "primitives", "refill-after-range")) {
		w = w_index(r->pages);
		if (w >= 0)
			note(&cs.refill[w][r->targets != 0][!after_full], r);
	} else
		note_shootdown(r);
}

void ceiling_set_l2(uint32_t entries, bool from_cpuid)
{
	cs.l2 = entries;
	cs.l2_cpuid = from_cpuid;
}

/*
 * Why this machine's figures are not the hardware's (bench/findings.h);
 * model: the way's INVLPGB is the software model's.
 */
static unsigned int caveats_of(bool model)
{
	struct findings_machine m;

	findings_machine_here(&m);
	return findings_timing_caveats(&m) | (cs.delay ? FC_DELAYED : 0) |
	       (model ? FC_EMULATED : 0);
}

/* The caveats in words into buf, or NULL for none. */
static const char *why_not_hardware(char *buf, size_t cap, bool model)
{
	findings_caveats_text(caveats_of(model), buf, cap);
	return buf[0] ? buf : NULL;
}

/* The full side of one way and W; false if a refill is missing. */
static bool full_side(enum way way, uint32_t w, struct ceiling_full_side *f)
{
	struct noted(*rf)[2] = cs.refill[w];

	if (!cs.full[way].have || !rf[0][0].have || !rf[0][1].have)
		return false;
	if (way != WAY_LOCAL && (!rf[1][0].have || !rf[1][1].have))
		return false;
	*f = (struct ceiling_full_side){
		.flush = cs.full[way].e,
		.init_full = rf[0][0].e,
		.init_range = rf[0][1].e,
		.targets = way == WAY_LOCAL ? 0 : cs.targets[way],
	};
	if (way != WAY_LOCAL) {
		f->resp_full = rf[1][0].e;
		f->resp_range = rf[1][1].e;
	}
	return true;
}

void ceiling_json_k(struct json *j, const char *key, const char *wkey,
		    struct ceiling_k k)
{
	json_u64(j, key, k.k);
	json_str(j, wkey, ceiling_where_name(k.where));
}

static const char *why_none(enum way way)
{
	if (!cs.curve[way].n)
		return way == WAY_LOCAL ? "no invlpg-range records "
					  "(primitives did not run)"
		       : way == WAY_INVLPGB
			       ? "no invlpgb records at 1 target "
				 "(INVLPGB did not run)"
			       : "no ipi-range records in this way";
	if (!cs.full[way].have)
		return way == WAY_LOCAL	    ? "no cr3-reload record"
		       : way == WAY_INVLPGB ? "no invlpgb-all+tlbsync record"
					    : "no ipi-full records in this way";
	return "no refill records for it (primitives did not run, or had "
	       "no responder)";
}

/* The largest W within the L2 TLB, else the smallest W. */
static uint32_t answer_w(void)
{
	uint32_t best = cs.nw;

	for (uint32_t i = 0; i < cs.nw; i++)
		if (cs.w[i] <= cs.l2 && (best == cs.nw || cs.w[i] > cs.w[best]))
			best = i;
	return best == cs.nw ? 0 : best;
}

/* "K", "<=K" or ">K": where a crossing is. */
static const char *where_prefix(struct ceiling_k k)
{
	return k.where == CEILING_BELOW	  ? "<="
	       : k.where == CEILING_ABOVE ? ">"
					  : "";
}

static void text_point(char *line, size_t cap, size_t *n, uint32_t w,
		       const struct ceiling_solution *s)
{
	*n += ksnprintf(line + *n, cap - *n,
			" W %u: %s%u [%s%u, %s%u] (33 %s);", w,
			where_prefix(s->kstar), s->kstar.k, where_prefix(s->lo),
			s->lo.k, where_prefix(s->hi), s->hi.k,
			ceiling_pos_name(s->linux_pos));
}

static void report_way(enum way way, const char *nh, uint32_t aw)
{
	char buf[2048], line[320];
	struct record rec;
	size_t n = 0, head;

	record_begin(&rec, buf, sizeof(buf), "ceiling");
	json_str(&rec.j, "way", way_names[way]);
	json_u64(&rec.j, "targets", way == WAY_LOCAL ? 0 : cs.targets[way]);
	json_u64(&rec.j, "linux", CEILING_LINUX);
	json_u64(&rec.j, "l2_tlb", cs.l2);
	json_str(&rec.j, "l2_tlb_source", cs.l2_cpuid ? "cpuid" : "assumed");
	json_bool(&rec.j, "hardware", !nh);
	if (nh)
		json_str(&rec.j, "not_hardware", nh);
	n += ksnprintf(line, sizeof(line), "  ceiling %-9s K*", way_names[way]);
	head = n;
	json_begin_array(&rec.j, "points");
	for (uint32_t i = 0; i < cs.nw; i++) {
		struct ceiling_full_side f;
		struct ceiling_solution s;
		bool chosen;

		if (!full_side(way, i, &f) ||
		    !ceiling_solve(&cs.curve[way], &f, &s))
			continue;
		chosen = !answer.have && i == aw &&
			 (way == WAY_UNICAST || way == WAY_LOCAL);
		json_begin_object(&rec.j, NULL);
		json_u64(&rec.j, "w", cs.w[i]);
		json_u64(&rec.j, "full_p50", s.full.p50);
		json_u64(&rec.j, "full_lo", s.full.lo);
		json_u64(&rec.j, "full_hi", s.full.hi);
		ceiling_json_k(&rec.j, "k", "k_where", s.kstar);
		ceiling_json_k(&rec.j, "k_lo", "k_lo_where", s.lo);
		ceiling_json_k(&rec.j, "k_hi", "k_hi_where", s.hi);
		json_str(&rec.j, "linux_pos", ceiling_pos_name(s.linux_pos));
		if (s.have33)
			json_u64(&rec.j, "range33", s.range33);
		if (chosen)
			json_bool(&rec.j, "answer", true);
		json_end_object(&rec.j);
		text_point(line, sizeof(line), &n, cs.w[i], &s);
		if (!chosen)
			continue;
		answer = (struct ceiling_answer){.have = true,
						 .way = way_names[way],
						 .w = cs.w[i],
						 .targets = f.targets,
						 .s = s,
						 .caveats = caveats_of(false)};
	}
	json_end_array(&rec.j);
	if (n == head) {
		json_str(&rec.j, "why_not", why_none(way));
		ksnprintf(line + n, sizeof(line) - n, " none: %s",
			  why_none(way));
	} else if (way == WAY_INVLPGB && cs.emulated)
		ksnprintf(line + n, sizeof(line) - n,
			  " (the software model's "
			  "INVLPGB)");
	record_end(&rec);
	bench_printf("%s\n", line);
}

void ceiling_report(void)
{
	const char *nh = why_not_hardware(not_hw, sizeof(not_hw), false);
	const char *nh_model = why_not_hardware(
		not_hw_model, sizeof(not_hw_model), cs.emulated);
	uint32_t aw = answer_w();

	if (!cs.nw) {
		/* No refill (primitives did not run): one line, no records. */
		answer.why_not = "no refill records: primitives did not run";
		return;
	}
	answer.why_not = "no way had both its flushes and the refill "
			 "measured (bench=primitives,shootdown)";
	/* The lines below carry figures: never without the qualifier. */
	bench_printf("  ceiling: K* [interval] pages per way and W%s%s\n",
		     nh ? ", " : " (a hardware answer)", nh ? nh : "");
	report_way(WAY_UNICAST, nh, aw);
	report_way(WAY_LOCAL, nh, aw);
	report_way(WAY_BROADCAST, nh, aw);
	report_way(WAY_INVLPGB, nh_model, aw);
	/* The answer's line is the findings block's (bench/findings.c). */
	if (answer.have)
		answer.why_not = NULL;
}

const struct ceiling_answer *ceiling_answer(void)
{
	return &answer;
}
