// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/ceiling.c: the median's order-statistic ranks, a
 * known break-even (interpolated between two measured K), none within the
 * measured K range (above it and below it), a tie whose interval spans
 * 33, and the full side's sum with its saturating extra refills.
 */
#include "unit.h"
#include "bench/ceiling.h"

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
		.resp_full = est(0, 0),
		.resp_range = est(0, 0),
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
	assert_int_equal(s.linux_pos, CEILING_33_BELOW);
	assert_true(s.have33);
	assert_int_equal(s.range33, 3300);
	assert_int_equal(s.full33, 5000);
	/* Cheaper refill: K* = 20, and 33 lies above it. */
	f = side(500, 1500);
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.kstar.k, 20);
	assert_int_equal(s.linux_pos, CEILING_33_ABOVE);
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
	assert_int_equal(s.linux_pos, CEILING_33_BELOW);
	f = side(50, 0); /* even one page costs more than the full flush */
	assert_true(ceiling_solve(&c, &f, &s));
	assert_int_equal(s.kstar.where, CEILING_BELOW);
	assert_int_equal(s.kstar.k, 1);
	assert_int_equal(s.linux_pos, CEILING_33_ABOVE);
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
	assert_int_equal(s.linux_pos, CEILING_33_INSIDE);
	assert_string_equal(ceiling_pos_name(s.linux_pos), "inside");
}

static void test_full_side(void **state)
{
	struct ceiling_full_side f = {
		.flush = {100, 90, 120},
		.init_full = {1000, 900, 1100},
		.init_range = {200, 150, 950}, /* hi above init_full.lo */
		.resp_full = {500, 450, 600},
		.resp_range = {100, 80, 130},
		.targets = 3,
	};
	struct ceiling_est e;

	(void)state;
	ceiling_full_cost(&f, &e);
	assert_int_equal(e.p50, 100 + 800 + 3 * 400);
	assert_int_equal(e.lo, 90 + 0 + 3 * 320); /* 900 - 950 saturates */
	assert_int_equal(e.hi, 120 + 950 + 3 * 520);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_known_break_even),
		cmocka_unit_test(test_none_in_range),
		cmocka_unit_test(test_tie),
		cmocka_unit_test(test_full_side),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
