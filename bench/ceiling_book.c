// SPDX-License-Identifier: MIT
/* The flush ceiling's book and its decision (bench/ceiling_book.h). */
#include "bench/ceiling_book.h"
#include "lib/string.h"

static const char *const way_names[CEILING_WAYS] = {"unicast", "local",
						    "broadcast", "invlpgb"};

const char *ceiling_way_name(enum ceiling_way w)
{
	return w < CEILING_WAYS ? way_names[w] : "?";
}

static bool is(const struct ceiling_obs *o, const char *bench,
	       enum result_role role, enum flush_kind flush)
{
	return !strcmp(o->bench, bench) && o->role == role && o->flush == flush;
}

/* The way of a shootdown record the ceiling uses, or CEILING_WAYS. */
static enum ceiling_way shootdown_way(const struct ceiling_obs *o)
{
	if (is(o, "shootdown", ROLE_RANGE, FK_INVLPGB) && o->targets == 1)
		return CEILING_INVLPGB;
	if ((!is(o, "shootdown", ROLE_RANGE, FK_IPI) &&
	     !is(o, "shootdown", ROLE_FULL, FK_IPI)) ||
	    !o->ipi_mode || o->emulated)
		return CEILING_WAYS;
	if (!strcmp(o->ipi_mode, "unicast") && o->targets == 1)
		return CEILING_UNICAST;
	if (!strcmp(o->ipi_mode, "broadcast"))
		return CEILING_BROADCAST;
	return CEILING_WAYS;
}

/* A refill record, the initiator's or a remote CPU's. */
static bool is_refill(const struct ceiling_obs *o)
{
	return is(o, "primitives", ROLE_REFILL_FULL, FK_NONE) ||
	       is(o, "primitives", ROLE_REFILL_RANGE, FK_NONE);
}

static bool is_primitive(const struct ceiling_obs *o)
{
	return is(o, "primitives", ROLE_RANGE, FK_LOCAL) ||
	       is(o, "primitives", ROLE_FULL, FK_LOCAL) ||
	       is(o, "primitives", ROLE_FULL, FK_INVLPGB) || is_refill(o);
}

bool ceiling_uses(const struct ceiling_obs *o)
{
	return o->n && (is_primitive(o) || shootdown_way(o) != CEILING_WAYS);
}

static void note(struct ceiling_noted *n, const struct ceiling_obs *o)
{
	if (!n->have)
		*n = (struct ceiling_noted){true, o->e};
}

/* Into the curve at K, in K order, unless K is already there. */
static void note_k(struct ceiling_curve *c, const struct ceiling_obs *o)
{
	unsigned i = 0;

	while (i < c->n && c->k[i] < o->pages)
		i++;
	if ((i < c->n && c->k[i] == o->pages) || c->n == CEILING_MAX_K)
		return;
	for (unsigned j = c->n; j > i; j--) {
		c->k[j] = c->k[j - 1];
		c->cost[j] = c->cost[j - 1];
	}
	c->k[i] = (uint32_t)o->pages;
	c->cost[i] = o->e;
	c->n++;
}

static int w_index(struct ceiling_book *b, uint64_t w)
{
	for (uint32_t i = 0; i < b->nw; i++)
		if (b->w[i] == w)
			return (int)i;
	if (b->nw == CEILING_MAX_W)
		return -1;
	b->w[b->nw] = (uint32_t)w;
	return (int)b->nw++;
}

static void note_shootdown(struct ceiling_book *b, const struct ceiling_obs *o)
{
	enum ceiling_way way = shootdown_way(o);

	if (way == CEILING_WAYS)
		return;
	if (b->targets[way] && b->targets[way] != o->targets)
		return;
	b->targets[way] = (uint32_t)o->targets;
	b->emulated |= way == CEILING_INVLPGB && o->emulated;
	b->delayed |= o->delay_cycles != 0;
	if (o->role != ROLE_FULL)
		note_k(&b->curve[way], o);
	else
		note(&b->full[way], o);
}

void ceiling_book_note(struct ceiling_book *b, const struct ceiling_obs *o)
{
	bool after_full = o->role == ROLE_REFILL_FULL;
	int w;

	if (!ceiling_uses(o))
		return;
	if (is(o, "primitives", ROLE_RANGE, FK_LOCAL))
		note_k(&b->curve[CEILING_LOCAL], o);
	else if (is(o, "primitives", ROLE_FULL, FK_LOCAL))
		note(&b->full[CEILING_LOCAL], o);
	else if (is(o, "primitives", ROLE_FULL, FK_INVLPGB)) {
		b->emulated |= o->emulated;
		note(&b->full[CEILING_INVLPGB], o);
	} else if (is_refill(o)) {
		/* The currency is the initiator's: CPU 0's refill only. */
		if (o->targets)
			return;
		w = w_index(b, o->pages);
		if (w >= 0)
			note(&b->refill[w][!after_full], o);
	} else
		note_shootdown(b, o);
}

void ceiling_book_set_l2(struct ceiling_book *b, uint32_t entries,
			 bool from_cpuid)
{
	b->l2 = entries;
	b->l2_cpuid = from_cpuid;
}

/* The full side of one way and W; false if something is missing. */
static bool full_side(const struct ceiling_book *b, enum ceiling_way way,
		      uint32_t w, struct ceiling_full_side *f)
{
	const struct ceiling_noted *rf = b->refill[w];

	if (!b->full[way].have || !rf[0].have || !rf[1].have)
		return false;
	*f = (struct ceiling_full_side){.flush = b->full[way].e,
					.init_full = rf[0].e,
					.init_range = rf[1].e};
	return true;
}

static const char *why_none(const struct ceiling_book *b, enum ceiling_way way)
{
	if (!b->curve[way].n)
		return way == CEILING_LOCAL ? "no invlpg-range records "
					      "(primitives did not run)"
		       : way == CEILING_INVLPGB
			       ? "no invlpgb records at 1 target "
				 "(INVLPGB did not run)"
			       : "no ipi-range records in this way";
	if (!b->full[way].have)
		return way == CEILING_LOCAL ? "no cr3-reload record"
		       : way == CEILING_INVLPGB
			       ? "no invlpgb-all+tlbsync record"
			       : "no ipi-full records in this way";
	return "no refill records on CPU 0 for it (primitives did not run)";
}

/* The largest W within the L2 TLB, else the first W noted. */
static uint32_t answer_w(const struct ceiling_book *b)
{
	uint32_t best = b->nw;

	for (uint32_t i = 0; i < b->nw; i++)
		if (b->w[i] <= b->l2 && (best == b->nw || b->w[i] > b->w[best]))
			best = i;
	return best == b->nw ? 0 : best;
}

static void decide_way(const struct ceiling_book *b, enum ceiling_way way,
		       uint64_t cap, struct ceiling_way_result *r)
{
	const struct ceiling_curve *c = &b->curve[way];

	r->targets = way == CEILING_LOCAL ? 0 : b->targets[way];
	for (uint32_t i = 0; i < b->nw; i++) {
		struct ceiling_full_side f;
		struct ceiling_point *p = &r->pt[r->npt];

		if (!full_side(b, way, i, &f) || !ceiling_solve(c, &f, &p->s))
			continue;
		p->w = b->w[i];
		r->npt++;
	}
	if (!r->npt)
		r->why_not = why_none(b, way);
	/* Linux's cap is about the ways it flushes one by one: INVLPG, IPIs. */
	r->have_cap =
		cap && c->n && (way == CEILING_LOCAL || way == CEILING_UNICAST);
	if (r->have_cap)
		r->k_cap = ceiling_crossing(c, 0, cap);
}

static bool find_answer(const struct ceiling_way_result *r, uint32_t w,
			unsigned *pt)
{
	for (unsigned i = 0; i < r->npt; i++)
		if (r->pt[i].w == w) {
			*pt = i;
			return true;
		}
	return false;
}

void ceiling_decide(const struct ceiling_book *b, uint64_t tsc_khz,
		    struct ceiling_decision *out)
{
	*out = (struct ceiling_decision){
		/* ns x kHz / 10^6: 3,000 ns is 3 x kHz cycles. */
		.cap_cycles = (uint64_t)CEILING_CAP_NS * tsc_khz / 1000000,
		.why_not = "no refill records: primitives did not run",
	};
	for (unsigned w = 0; w < CEILING_WAYS; w++)
		decide_way(b, (enum ceiling_way)w, out->cap_cycles,
			   &out->way[w]);
	if (!b->nw)
		return;
	out->answer_w = b->w[answer_w(b)];
	out->why_not = "no way had both its flushes and the refill measured "
		       "(bench=primitives,shootdown)";
	if (find_answer(&out->way[CEILING_UNICAST], out->answer_w,
			&out->answer_pt))
		out->answer_way = CEILING_UNICAST;
	else if (find_answer(&out->way[CEILING_LOCAL], out->answer_w,
			     &out->answer_pt))
		out->answer_way = CEILING_LOCAL;
	else
		return;
	out->have = true;
	out->why_not = NULL;
}
