// SPDX-License-Identifier: MIT
/*
 * The findings' decisions (bench/findings.h), portable. The guest is the
 * one place that decides them: the host tools read the findings record
 * and pool runs, they do not decide again.
 */
#include "bench/findings.h"
#include "bench/result.h"
#include "bench/stats.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "mm/pt.h"

#define GIB_PAGES 262144u /* 4 KiB pages in a GiB */

/*
 * Linux 6.15+: an mm active on more than 3 CPUs gets a global ASID and
 * INVLPGB for every flush, at any page count (mm_active_cpus_exceeds).
 */
#define LINUX_MIN_ACTIVE_CPUS 4

/* A role of a flush kind: what a finding compares (bench/role.h). */
struct findings_side {
	enum result_role role;
	enum flush_kind flush;
};

/* The IPI flushes to compare INVLPGB with, in order of preference. */
static const struct findings_side ipi_defaults[] = {
	{ROLE_LINUX, FK_IPI},
	{ROLE_RANGE, FK_IPI},
	{ROLE_PAGE, FK_IPI},
	{ROLE_FULL, FK_IPI},
};
/* Linux's INVLPGB flush first: one full flush above the ceiling. */
static const struct findings_side invlpgb_defaults[] = {
	{ROLE_LINUX, FK_INVLPGB},
	{ROLE_RANGE, FK_INVLPGB},
};
static const struct findings_side flushloop_ipis[] = {
	{ROLE_RANGE, FK_IPI},
	{ROLE_PAGE, FK_IPI},
};
static const struct findings_side flushloop_invlpgb = {ROLE_RANGE, FK_INVLPGB};
/* Reclaim's flushes by IPI, one a page and one a batch. */
static const struct findings_side reclaim_per_page = {ROLE_PAGE, FK_IPI};
static const struct findings_side reclaim_batch = {ROLE_BATCH, FK_IPI};

static uint64_t field(const struct result *r, const char *key, bool *have)
{
	for (size_t i = 0; i < r->nfields; i++) {
		if (!strcmp(r->fields[i].key, key)) {
			if (have)
				*have = true;
			return r->fields[i].value;
		}
	}
	return 0;
}

static enum findings_bench bench_of(const char *name)
{
	if (!strcmp(name, "shootdown"))
		return FB_SHOOTDOWN;
	if (!strcmp(name, "reclaim"))
		return FB_RECLAIM;
	if (!strcmp(name, "flushloop"))
		return FB_FLUSHLOOP;
	return FB_OTHER;
}

void findings_note(struct findings_book *b, const struct result *r,
		   unsigned seq)
{
	struct findings_rec *f;
	bool lo = false, hi = false;
	size_t len;

	if (bench_of(r->bench) == FB_OTHER)
		return;
	if (b->n == FINDINGS_RECORDS) {
		b->dropped++;
		return;
	}
	f = &b->rec[b->n++];
	*f = (struct findings_rec){
		.bench = bench_of(r->bench),
		.role = r->role,
		.flush = r->flush,
		.seq = seq,
		.unicast = !r->ipi_mode || !strcmp(r->ipi_mode, "unicast"),
		.emulated = r->emulated,
		.pages = r->pages,
		.targets = r->targets,
		.samples = r->n,
		.p50 = r->n ? r->st.p50 : 0,
		.delay_cycles = field(r, "delay_cycles", NULL),
		.irqs = field(r, "irqs_received", NULL),
		.batch = field(r, "batch", NULL),
		.ops_per_s = field(r, "ops_per_s", NULL),
		.cpus = field(r, "cpus", NULL),
	};
	len = strlen(r->strategy);
	if (len >= FINDINGS_NAME)
		len = FINDINGS_NAME - 1;
	memcpy(f->strategy, r->strategy, len);
	f->strategy[len] = '\0';
	f->loss_pct = (int64_t)field(r, "worker_loss_pct", &f->has_loss);
	f->loss_lo_pct = (int64_t)field(r, "worker_loss_lo_pct", &lo);
	f->loss_hi_pct = (int64_t)field(r, "worker_loss_hi_pct", &hi);
	f->has_loss_ci = lo && hi;
}

uint64_t findings_irqs_per_gib(uint64_t irqs, uint64_t pages)
{
	return pages ? irqs * GIB_PAGES / pages : 0;
}

unsigned int findings_record_caveats(const struct findings_rec *r)
{
	return (r->emulated ? FC_EMULATED : 0) |
	       (r->delay_cycles ? FC_DELAYED : 0);
}

static bool is_side(const struct findings_rec *r, enum findings_bench bench,
		    struct findings_side side)
{
	return r->bench == bench && r->role == side.role &&
	       r->flush == side.flush;
}

/*
 * The first record of a side that match() says is key's: the main
 * sweep's or pass's, not a later repeat of it.
 */
static const struct findings_rec *first_rec(
	const struct findings_book *b, enum findings_bench bench,
	struct findings_side side,
	bool (*match)(const struct findings_rec *, const struct findings_rec *),
	const struct findings_rec *key)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct findings_rec *r = &b->rec[i];

		if (is_side(r, bench, side) && match(r, key))
			return r;
	}
	return NULL;
}

static bool same_cell(const struct findings_rec *r,
		      const struct findings_rec *key)
{
	return r->unicast && r->samples && r->p50 && r->pages == key->pages &&
	       r->targets == key->targets;
}

/* The all-but-self shorthand's record of the cell (ipi_mode broadcast). */
static bool same_cell_broadcast(const struct findings_rec *r,
				const struct findings_rec *key)
{
	return !r->unicast && r->samples && r->p50 && r->pages == key->pages &&
	       r->targets == key->targets;
}

/* The first record of a side, or NULL: the strategy it names. */
static const struct findings_rec *side_rec(const struct findings_book *b,
					   enum findings_bench bench,
					   struct findings_side side)
{
	for (size_t i = 0; i < b->n; i++)
		if (is_side(&b->rec[i], bench, side))
			return &b->rec[i];
	return NULL;
}

/*
 * The first side of prefs[0..n) the run has records of (prefs[0] if
 * none), and into name the strategy its records name; with no record,
 * the side in words ("ipi-linux": the flush kind, then the role).
 */
static struct findings_side pick_side(const struct findings_book *b,
				      enum findings_bench bench,
				      const struct findings_side *prefs,
				      size_t n, char name[FINDINGS_NAME])
{
	for (size_t i = 0; i < n; i++) {
		const struct findings_rec *r = side_rec(b, bench, prefs[i]);

		if (r) {
			ksnprintf(name, FINDINGS_NAME, "%s", r->strategy);
			return prefs[i];
		}
	}
	ksnprintf(name, FINDINGS_NAME, "%s-%s", flush_kind_name(prefs[0].flush),
		  result_role_name(prefs[0].role));
	return prefs[0];
}

#define NPREFS(a) (sizeof(a) / sizeof(*(a)))

/* Notes that INVLPGB is faster at (pages, targets) on the frontier. */
static void frontier_note(struct findings_crossover *c, uint64_t pages,
			  uint64_t targets, bool lean)
{
	size_t i;

	for (i = 0; i < c->nfrontier; i++)
		if (c->frontier[i].pages == pages)
			break;
	if (i == c->nfrontier) {
		if (i == FINDINGS_PAGE_COUNTS)
			return;
		c->nfrontier++;
		c->frontier[i].pages = pages;
		c->frontier[i].lean = false;
	}
	if (lean &&
	    (!c->frontier[i].lean || targets < c->frontier[i].lean_from)) {
		c->frontier[i].lean = true;
		c->frontier[i].lean_from = targets;
	}
}

/* Linux 6.15+: INVLPGB for an mm active on 4 CPUs or more. */
static bool linux_picks_invlpgb(uint64_t targets)
{
	return targets + 1 >= LINUX_MIN_ACTIVE_CPUS;
}

/* Notes one compared cell, for the host to pool (FINDINGS_CELLS at most). */
static void pair_note(struct findings_crossover *c,
		      const struct findings_rec *ipi,
		      const struct findings_rec *inv)
{
	if (c->npairs == FINDINGS_CELLS) {
		c->pairs_dropped++;
		return;
	}
	c->pair[c->npairs].pages = inv->pages;
	c->pair[c->npairs].targets = inv->targets;
	c->pair[c->npairs].ipi_seq = ipi->seq;
	c->pair[c->npairs].invlpgb_seq = inv->seq;
	c->pair[c->npairs].broadcast = !ipi->unicast;
	c->pair[c->npairs].linux_invlpgb = linux_picks_invlpgb(inv->targets);
	c->npairs++;
}

static void decide_crossover(const struct findings_book *b,
			     const struct findings_machine *m,
			     struct findings_crossover *c)
{
	/*
	 * Linux's own INVLPGB flush (one full flush above the ceiling) where
	 * the run has it, else the chunked one; the IPI side Linux's too.
	 */
	struct findings_side is = pick_side(b, FB_SHOOTDOWN, ipi_defaults,
					    NPREFS(ipi_defaults), c->ipi);
	struct findings_side vs =
		pick_side(b, FB_SHOOTDOWN, invlpgb_defaults,
			  NPREFS(invlpgb_defaults), c->invlpgb);

	for (size_t i = 0; i < b->n; i++) {
		const struct findings_rec *r = &b->rec[i], *ipi, *inv;
		bool lean;

		if (!is_side(r, FB_SHOOTDOWN, vs) || !same_cell(r, r))
			continue;
		inv = first_rec(b, FB_SHOOTDOWN, vs, same_cell, r);
		/*
		 * Flushing every other CPU, Linux sends the all-but-self
		 * shorthand (native_send_call_func_ipi): that record where
		 * the run has one, else the unicast one.
		 */
		ipi = first_rec(b, FB_SHOOTDOWN, is, same_cell_broadcast, r);
		if (!ipi)
			ipi = first_rec(b, FB_SHOOTDOWN, is, same_cell, r);
		if (inv != r || !ipi)
			continue;
		c->cells++;
		pair_note(c, ipi, inv);
		c->caveats |= findings_record_caveats(inv) |
			      findings_record_caveats(ipi);
		lean = inv->p50 < ipi->p50;
		frontier_note(c, r->pages, r->targets, lean);
		if (lean != linux_picks_invlpgb(r->targets))
			c->linux_slower++;
	}
	if (!side_rec(b, FB_SHOOTDOWN, vs))
		c->no_data = m->invlpgb_cpuid
				     ? "no invlpgb records (strategies= "
				       "or invlpgb=off?)"
				     : "no invlpgb records: CPUID has "
				       "no INVLPGB here";
	else if (!side_rec(b, FB_SHOOTDOWN, is))
		c->no_data = "no IPI records (unicast) to compare INVLPGB with";
	else if (!c->cells)
		c->no_data = "no (pages, targets) cell measured both ways";
	if (c->cells)
		c->caveats |= findings_timing_caveats(m);
}

static bool same_batch(const struct findings_rec *r,
		       const struct findings_rec *key)
{
	return r->batch == key->batch && r->pages;
}

/* The first reclaim record of a side and batch: the main pass's. */
static const struct findings_rec *reclaim_rec(const struct findings_book *b,
					      struct findings_side side,
					      uint64_t batch)
{
	return first_rec(b, FB_RECLAIM, side, same_batch,
			 &(struct findings_rec){.batch = batch});
}

static void decide_irqs(const struct findings_book *b, struct findings_irqs *q)
{
	const struct findings_rec *pp = reclaim_rec(b, reclaim_per_page, 1);
	const struct findings_rec *b512 =
		reclaim_rec(b, reclaim_batch, PMD_PAGES);

	if (!pp || !b512)
		return;
	q->have = true;
	q->targets = pp->targets;
	q->per_page = findings_irqs_per_gib(pp->irqs, pp->pages);
	q->batch512 = findings_irqs_per_gib(b512->irqs, b512->pages);
	/* The seed: one IPI a target a page, or one a target a PMD. */
	q->seed_per_page = GIB_PAGES * pp->targets;
	q->seed_batch512 = GIB_PAGES / PMD_PAGES * b512->targets;
	q->ratio_x100 =
		q->batch512 ? stats_ratio_x100(q->per_page, q->batch512) : 0;
}

static void loss_side(const struct findings_rec *r,
		      struct findings_loss_side *s, unsigned int *caveats)
{
	if (!r || !r->has_loss)
		return;
	*s = (struct findings_loss_side){.have = true,
					 .has_ci = r->has_loss_ci,
					 .pct = r->loss_pct,
					 .lo = r->loss_lo_pct,
					 .hi = r->loss_hi_pct};
	*caveats |= findings_record_caveats(r);
}

static void decide_loss(const struct findings_book *b,
			const struct findings_machine *m,
			struct findings_loss *l)
{
	loss_side(reclaim_rec(b, reclaim_per_page, 1), &l->per_page,
		  &l->caveats);
	loss_side(reclaim_rec(b, reclaim_batch, PMD_PAGES), &l->batch512,
		  &l->caveats);
	if (l->per_page.have || l->batch512.have)
		l->caveats |= findings_timing_caveats(m);
}

static bool same_cpus(const struct findings_rec *r,
		      const struct findings_rec *key)
{
	return r->cpus == key->cpus && r->ops_per_s;
}

static const struct findings_rec *flushloop_rec(const struct findings_book *b,
						struct findings_side side,
						uint64_t cpus)
{
	return first_rec(b, FB_FLUSHLOOP, side, same_cpus,
			 &(struct findings_rec){.cpus = cpus});
}

static void decide_throughput(const struct findings_book *b,
			      const struct findings_machine *m,
			      struct findings_throughput *t)
{
	struct findings_side is = pick_side(b, FB_FLUSHLOOP, flushloop_ipis,
					    NPREFS(flushloop_ipis), t->ipi);

	for (size_t i = 0; i < b->n && t->n < FINDINGS_CPU_COUNTS; i++) {
		const struct findings_rec *r = &b->rec[i], *ipi;

		if (!is_side(r, FB_FLUSHLOOP, flushloop_invlpgb) ||
		    flushloop_rec(b, flushloop_invlpgb, r->cpus) != r)
			continue;
		ipi = flushloop_rec(b, is, r->cpus);
		if (!ipi)
			continue;
		t->row[t->n].cpus = r->cpus;
		t->row[t->n].ipi_ops = ipi->ops_per_s;
		t->row[t->n].invlpgb_ops = r->ops_per_s;
		t->row[t->n].ratio_x100 =
			stats_ratio_x100(r->ops_per_s, ipi->ops_per_s);
		t->caveats |= findings_record_caveats(r) |
			      findings_record_caveats(ipi);
		t->n++;
	}
	if (!side_rec(b, FB_FLUSHLOOP, flushloop_invlpgb))
		t->no_data = m->invlpgb_cpuid ? "no invlpgb records"
					      : "no invlpgb records: CPUID has "
						"no INVLPGB here";
	else if (!t->n)
		t->no_data = "no CPU count measured both ways";
	if (t->n)
		t->caveats |= findings_timing_caveats(m);
}

void findings_decide(const struct findings_book *b,
		     const struct findings_machine *m, struct findings *out)
{
	memset(out, 0, sizeof(*out));
	decide_crossover(b, m, &out->cross);
	decide_irqs(b, &out->irqs);
	decide_loss(b, m, &out->loss);
	decide_throughput(b, m, &out->tput);
}
