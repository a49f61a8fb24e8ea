// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/ceiling.c and bench/ceiling_book.c: the median's
 * order-statistic ranks, a known break-even (interpolated between two
 * measured K), none within the measured K range (above it and below it),
 * a tie whose interval spans 33, the full side's sum with its saturating
 * extra refill; the book: which records it notes, the answer's way and W,
 * a decision that does not depend on the order records came in, and the
 * 3,000 ns cap from the TSC rate.
 */
#include <string.h>
#include "unit.h"
#include "bench/ceiling.h"
#include "bench/ceiling_book.h"
#include "role_of.h"

static void test_ranks(void **state)
{
	/*
	 * n, lo, hi: none; one; too few for 95% ([1, n]); n = 25: d =
	 * floor(sqrt(96)) = 9 (the binomial's own 8 and 18); 73: d = 16;
	 * 100: d = 19.
	 */
	static const uint64_t cases[][3] = {{0, 0, 0},	  {1, 1, 1},
					    {5, 1, 5},	  {25, 8, 18},
					    {73, 28, 46}, {100, 40, 61}};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t lo, hi;

		ceiling_median_ranks(cases[i][0], &lo, &hi);
		assert_int_equal(lo, cases[i][1]);
		assert_int_equal(hi, cases[i][2]);
	}
}

static struct ceiling_est est(uint64_t p50, uint64_t spread)
{
	return (struct ceiling_est){p50, p50 > spread ? p50 - spread : 0,
				    p50 + spread};
}

/* 100 cycles a page, from 1 to 512 pages, each +-`spread`. */
static void linear_curve(struct ceiling_curve *c, uint64_t spread)
{
	static const uint32_t ks[] = {1, 2, 8, 32, 33, 64, 512};

	c->n = sizeof(ks) / sizeof(ks[0]);
	for (unsigned i = 0; i < c->n; i++) {
		c->k[i] = ks[i];
		c->cost[i] = est(100ull * ks[i], spread);
	}
}

static struct ceiling_full_side side(uint64_t flush, uint64_t extra)
{
	return (struct ceiling_full_side){
		.flush = est(flush, 0),
		.init_full = est(1000 + extra, 0),
		.init_range = est(1000, 0),
	};
}

static void test_known_break_even(void **state)
{
	struct ceiling_curve c;
	struct ceiling_full_side f = side(500, 4500); /* 5000: K* = 50 */
	struct ceiling_solution s;

	(void)state;
	linear_curve(&c, 0);
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.full.p50, 5000);
	assert_int_equal(s.kstar.where, CEILING_AT);
	assert_int_equal(s.kstar.k, 50); /* between 33 (3300) and 64 */
	assert_int_equal(s.lo.k, 50);
	assert_int_equal(s.hi.k, 50);
	assert_true(s.have33);
	assert_int_equal(s.range33, 3300);
	/* Cheaper refill: K* = 20, and 33 lies above it. */
	f = side(500, 1500);
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.kstar.k, 20);
}

static void test_none_in_range(void **state)
{
	struct ceiling_curve c;
	struct ceiling_full_side f = side(100000, 0);
	struct ceiling_solution s;

	(void)state;
	linear_curve(&c, 0);
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.kstar.where, CEILING_ABOVE);
	assert_int_equal(s.kstar.k, 512);
	f = side(50, 0); /* even one page costs more than the full flush */
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.kstar.where, CEILING_BELOW);
	assert_int_equal(s.kstar.k, 1);
	c.n = 0;
	assert_false(ceiling_solve(&c, &f, &s));
}

static void test_tie(void **state)
{
	struct ceiling_curve c;
	struct ceiling_full_side f = side(3300, 0); /* K* = 33 exactly */
	struct ceiling_solution s;

	(void)state;
	linear_curve(&c, 1500); /* wide: +-1500 cycles at every K */
	f.flush = est(3300, 1000);
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.kstar.k, 33);
	/* lo: hi curve (100k + 1500) reaches 2300 between 8 and 32. */
	assert_int_equal(s.lo.where, CEILING_AT);
	assert_int_equal(s.lo.k, 8);
	/* hi: lo curve (100k - 1500) reaches 4300 between 33 and 64. */
	assert_int_equal(s.hi.where, CEILING_AT);
	assert_int_equal(s.hi.k, 58);
}

static void test_full_side(void **state)
{
	struct ceiling_full_side f = {
		.flush = {100, 90, 120},
		.init_full = {1000, 900, 1100},
		.init_range = {200, 150, 950}, /* hi above init_full.lo */
	};
	struct ceiling_est e;

	(void)state;
	ceiling_full_cost(&f, &e);
	assert_int_equal(e.p50, 100 + 800);
	assert_int_equal(e.lo, 90 + 0); /* 900 - 950 saturates */
	assert_int_equal(e.hi, 120 + 950);
}

static const uint32_t ks[] = {1, 2, 8, 32, 33, 64, 512};
#define NK (sizeof(ks) / sizeof(ks[0]))

static struct ceiling_obs obs(const char *bench, const char *strategy,
			      const char *mode, uint64_t pages,
			      uint64_t targets, uint64_t p50)
{
	struct ceiling_obs o = {.bench = bench,
				.ipi_mode = mode,
				.pages = pages,
				.targets = targets,
				.n = 25,
				.e = est(p50, 0)};

	role_of(bench, strategy, &o.role, &o.flush);
	return o;
}

/*
 * One run's records: local INVLPG 100 cycles a page and CR3 500;
 * unicast ipi-range 3000 + 200 K and ipi-full 5000; W 16 and 512 with
 * CPU 0's extra refill 18000 x W / 512 (and a responder's, which the
 * initiator's currency leaves out).
 */
static size_t run_obs(struct ceiling_obs *o, bool unicast)
{
	static const uint32_t ws[] = {16, 512};
	size_t n = 0;

	for (size_t i = 0; i < NK; i++)
		o[n++] = obs("primitives", "invlpg-range", NULL, ks[i], 0,
			     100ull * ks[i]);
	o[n++] = obs("primitives", "cr3-reload", NULL, 1, 0, 500);
	for (size_t i = 0; i < 2; i++)
		for (uint64_t t = 0; t < 2; t++) {
			uint64_t extra = 18000ull * ws[i] / 512 * (t ? 9 : 1);

			o[n++] = obs("primitives", "refill-after-full", NULL,
				     ws[i], t, 2000 + extra);
			o[n++] = obs("primitives", "refill-after-range", NULL,
				     ws[i], t, 2000);
		}
	for (size_t i = 0; unicast && i < NK; i++) {
		o[n++] = obs("shootdown", "ipi-range", "unicast", ks[i], 1,
			     3000 + 200ull * ks[i]);
		o[n++] =
			obs("shootdown", "ipi-full", "unicast", ks[i], 1, 5000);
		/* Another way and more targets: not the ceiling's. */
		o[n++] = obs("shootdown", "ipi-range", "unicast", ks[i], 2, 1);
		o[n++] = obs("shootdown", "ipi-page", "unicast", ks[i], 1, 1);
	}
	return n;
}

static void decide(const struct ceiling_obs *o, size_t n, bool reverse,
		   uint64_t khz, struct ceiling_decision *d)
{
	static struct ceiling_book b;

	memset(&b, 0, sizeof(b));
	ceiling_book_set_l2(&b, 512, true);
	for (size_t i = 0; i < n; i++)
		ceiling_book_note(&b, &o[reverse ? n - 1 - i : i]);
	ceiling_decide(&b, khz, d);
}

static void test_book_answer(void **state)
{
	static struct ceiling_obs o[64];
	size_t n = run_obs(o, true);
	struct ceiling_decision d;
	const struct ceiling_way_result *u;

	(void)state;
	assert_true(n <= 64);
	decide(o, n, false, 0, &d);
	assert_true(d.have);
	assert_int_equal(d.answer_way, CEILING_UNICAST);
	assert_int_equal(d.answer_w, 512);
	u = &d.way[CEILING_UNICAST];
	assert_int_equal(u->targets, 1);
	assert_int_equal(u->npt, 2);
	assert_int_equal(u->pt[d.answer_pt].w, 512);
	/* 5000 + 18000 = 23000 = 3000 + 200 K: K* 100 (64 + 448 x 7200 /
	 * 89600 = 100, rounded down), the responder's refill not counted. */
	assert_int_equal(u->pt[d.answer_pt].s.full.p50, 23000);
	assert_int_equal(u->pt[d.answer_pt].s.kstar.where, CEILING_AT);
	assert_int_equal(u->pt[d.answer_pt].s.kstar.k, 100);
	/* W 16: 5000 + 562 = 5562 within 8 (4600) and 32 (9400): 12. */
	assert_int_equal(u->pt[0].w, 16);
	assert_int_equal(u->pt[0].s.kstar.k, 12);
	assert_int_equal(d.way[CEILING_LOCAL].npt, 2);
	assert_int_equal(d.way[CEILING_BROADCAST].npt, 0);
	assert_string_equal(d.way[CEILING_BROADCAST].why_not,
			    "no ipi-range records in this way");
	assert_false(u->have_cap); /* no TSC rate: no cap */
	assert_int_equal(d.cap_cycles, 0);
}

static void test_book_order_free(void **state)
{
	static struct ceiling_obs o[64];
	size_t n = run_obs(o, true);
	struct ceiling_decision a, b;

	(void)state;
	decide(o, n, false, 2000000, &a);
	decide(o, n, true, 2000000, &b);
	assert_int_equal(a.answer_way, b.answer_way);
	assert_int_equal(a.answer_w, b.answer_w);
	for (unsigned w = 0; w < CEILING_WAYS; w++) {
		assert_int_equal(a.way[w].npt, b.way[w].npt);
		for (unsigned i = 0; i < a.way[w].npt; i++) {
			/* The W order may differ; the same W, the same K*. */
			unsigned j = 0;

			while (b.way[w].pt[j].w != a.way[w].pt[i].w)
				j++;
			assert_memory_equal(&a.way[w].pt[i].s.kstar,
					    &b.way[w].pt[j].s.kstar,
					    sizeof(struct ceiling_k));
		}
	}
}

static void test_book_local_and_cap(void **state)
{
	static struct ceiling_obs o[64];
	size_t n = run_obs(o, false);
	struct ceiling_decision d;
	const struct ceiling_way_result *l;

	(void)state;
	/* 2 GHz: 3,000 ns is 6000 cycles; INVLPG 100 a page: up to 60. */
	decide(o, n, false, 2000000, &d);
	assert_true(d.have);
	assert_int_equal(d.answer_way, CEILING_LOCAL);
	assert_int_equal(d.cap_cycles, 6000);
	l = &d.way[CEILING_LOCAL];
	assert_true(l->have_cap);
	assert_int_equal(l->k_cap.where, CEILING_AT);
	assert_int_equal(l->k_cap.k, 60);
	assert_false(d.way[CEILING_BROADCAST].have_cap);
	/* 500 + 18000 against 100 a page: K* 185 at W 512. */
	assert_int_equal(l->pt[d.answer_pt].s.kstar.k, 185);
	/* No refill: no answer, and why. */
	decide(o, NK + 1, false, 0, &d);
	assert_false(d.have);
	assert_string_equal(d.why_not,
			    "no refill records: primitives did not run");
	/* A record without samples is none of the ceiling's. */
	o[0].n = 0;
	assert_false(ceiling_uses(&o[0]));
}

/*
 * The ceiling takes a record by its role and flush kind, whatever its
 * name: a range flush by IPI of a made-up name is the unicast curve's, a
 * variant named ipi-range is none of the ceiling's, nor is a role unset.
 */
static void test_book_by_role(void **state)
{
	struct ceiling_obs o =
		obs("shootdown", "trial-range", "unicast", 8, 1, 100);

	(void)state;
	assert_false(ceiling_uses(&o)); /* role_of(): not a producer's name */
	o.role = ROLE_RANGE;
	o.flush = FK_IPI;
	assert_true(ceiling_uses(&o));
	o.flush = FK_INVLPGB;
	assert_true(ceiling_uses(&o)); /* the INVLPGB way's curve */
	o.flush = FK_LOCAL;
	assert_false(ceiling_uses(&o)); /* local is the primitives' */
	o = obs("shootdown", "ipi-range", "unicast", 8, 1, 100);
	assert_true(ceiling_uses(&o));
	o.role = ROLE_VARIANT;
	assert_false(ceiling_uses(&o));
	o.role = ROLE_UNSET;
	assert_false(ceiling_uses(&o));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_known_break_even),
		cmocka_unit_test(test_none_in_range),
		cmocka_unit_test(test_tie),
		cmocka_unit_test(test_full_side),
		cmocka_unit_test(test_book_answer),
		cmocka_unit_test(test_book_order_free),
		cmocka_unit_test(test_book_local_and_cap),
		cmocka_unit_test(test_book_by_role),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
