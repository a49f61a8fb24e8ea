// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/stats.c: hand-computed data sets, edge cases, and
 * random inputs against a reference built from qsort and the definitions.
 */
#include <stdlib.h>
#include <time.h>
#include "unit.h"
#include "bench/stats.h"

typedef unsigned __int128 u128;

static struct stats run(uint64_t *v, size_t n, uint64_t overhead)
{
	struct stats s;

	memset(&s, 0xa5, sizeof(s));
	assert_int_equal(stats_compute(v, n, overhead, &s), STATS_OK);
	return s;
}

static void expect(const struct stats *s, uint64_t n, uint64_t min,
		   uint64_t p50, uint64_t p90, uint64_t p99, uint64_t max,
		   uint64_t mean)
{
	assert_int_equal(s->samples, n);
	assert_int_equal(s->min, min);
	assert_int_equal(s->p50, p50);
	assert_int_equal(s->p90, p90);
	assert_int_equal(s->p99, p99);
	assert_int_equal(s->max, max);
	assert_int_equal(s->mean, mean);
}

static bool is_sorted(const uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (v[i - 1] > v[i])
			return false;
	}
	return true;
}

/* Every percentile below is worked out by hand from the nearest rank. */
static void test_known_sets(void **state)
{
	uint64_t five[] = {5, 1, 4, 2, 3};
	uint64_t ten[] = {100, 90, 80, 70, 60, 50, 40, 30, 20, 10};
	uint64_t hundred[100];
	struct stats s;

	(void)state;
	/* n=5: ranks ceil(2.5)=3, ceil(4.5)=5, ceil(4.95)=5. */
	s = run(five, 5, 0);
	expect(&s, 5, 1, 3, 5, 5, 5, 3);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(five[i], i + 1); /* sorted in place */
	/* n=10: ranks 5, 9, ceil(9.9)=10. */
	s = run(ten, 10, 0);
	expect(&s, 10, 10, 50, 90, 100, 100, 55);
	/* 1..100: ranks 50, 90, 99; mean 50.5 rounds half up to 51. */
	for (size_t i = 0; i < 100; i++)
		hundred[i] = (i * 37) % 100 + 1; /* a permutation of 1..100 */
	s = run(hundred, 100, 0);
	expect(&s, 100, 1, 50, 90, 99, 100, 51);
}

static void test_ties(void **state)
{
	uint64_t v[] = {7, 9, 1, 7, 1, 7};
	uint64_t w[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 1000};
	struct stats s;

	(void)state;
	/* 1 1 7 7 7 9: ranks 3, ceil(5.4)=6, 6; mean 32/6 = 5.33 -> 5. */
	s = run(v, 6, 0);
	expect(&s, 6, 1, 7, 9, 9, 9, 5);
	/* One outlier in ten: p90 is rank 9 (3), p99 is rank 10. */
	s = run(w, 10, 0);
	expect(&s, 10, 3, 3, 3, 1000, 1000, 103); /* 1027/10 = 102.7 */
}

static void test_one_and_two(void **state)
{
	uint64_t one[] = {42};
	uint64_t two[] = {20, 10};
	uint64_t half[] = {10, 21};
	uint64_t below[] = {10, 12, 12}; /* 34/3 = 11.33 */
	struct stats s;

	(void)state;
	s = run(one, 1, 0);
	expect(&s, 1, 42, 42, 42, 42, 42, 42);
	/* n=2: p50 is rank 1 (at least half are <= 10), p90 rank 2. */
	s = run(two, 2, 0);
	expect(&s, 2, 10, 10, 20, 20, 20, 15);
	s = run(half, 2, 0); /* 15.5: a half rounds up */
	assert_int_equal(s.mean, 16);
	s = run(below, 3, 0);
	assert_int_equal(s.mean, 11);
}

static void test_all_equal(void **state)
{
	static uint64_t v[1000];
	struct stats s;

	(void)state;
	for (size_t i = 0; i < 1000; i++)
		v[i] = 5;
	s = run(v, 1000, 0);
	expect(&s, 1000, 5, 5, 5, 5, 5, 5);
	for (size_t i = 0; i < 1000; i++)
		v[i] = UINT64_MAX;
	s = run(v, 1000, 0);
	expect(&s, 1000, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
	       UINT64_MAX, UINT64_MAX);
}

static void test_overhead(void **state)
{
	uint64_t v[] = {100, 50, 30};
	uint64_t w[] = {5, 6, 7};
	uint64_t x[] = {UINT64_MAX, 0, 1};
	struct stats s;

	(void)state;
	/* 60 10 0 (30 - 40 saturates): mean 70/3 = 23.3. */
	s = run(v, 3, 40);
	expect(&s, 3, 0, 10, 60, 60, 60, 23);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 10);
	assert_int_equal(v[2], 60);
	/* Overhead above every sample: all zero, not wrapped around. */
	s = run(w, 3, 1000);
	expect(&s, 3, 0, 0, 0, 0, 0, 0);
	s = run(x, 3, UINT64_MAX);
	expect(&s, 3, 0, 0, 0, 0, 0, 0);
	/* Equal to the sample: exactly zero. */
	w[0] = 9;
	s = run(w, 1, 9);
	expect(&s, 1, 0, 0, 0, 0, 0, 0);
}

/* Sums past 2^64 must not wrap: the mean stays exact. */
static void test_sum_overflow(void **state)
{
	uint64_t a[] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
	uint64_t b[] = {UINT64_MAX, UINT64_MAX - 1};
	uint64_t c[] = {UINT64_MAX, 1};
	uint64_t d[] = {UINT64_MAX, 0};
	uint64_t e[] = {UINT64_MAX, UINT64_MAX, 1};
	struct stats s;

	(void)state;
	assert_true(run(a, 4, 0).mean == UINT64_MAX);
	/* (2^65 - 3) / 2 = 2^64 - 1.5, a half: rounds up to 2^64 - 1. */
	assert_true(run(b, 2, 0).mean == UINT64_MAX);
	assert_true(run(c, 2, 0).mean == 1ull << 63); /* 2^64 / 2 */
	/* (2^64 - 1) / 2 = 2^63 - 0.5: rounds up to 2^63. */
	assert_true(run(d, 2, 0).mean == 1ull << 63);
	/* (2^65 - 1) / 3 = 12297829382473034410.33 */
	s = run(e, 3, 0);
	assert_true(s.mean == 12297829382473034410ull);
	assert_true(s.p50 == UINT64_MAX);
	assert_true(s.min == 1);
}

static void test_errors(void **state)
{
	uint64_t v[] = {3, 2, 1};
	struct stats s, before;

	(void)state;
	memset(&s, 0x77, sizeof(s));
	before = s;
	assert_int_equal(stats_compute(v, 0, 0, &s), STATS_EEMPTY);
	assert_memory_equal(&s, &before, sizeof(s));
	assert_int_equal(v[0], 3); /* untouched */
	assert_int_equal(stats_compute(NULL, 3, 0, &s), STATS_EINVAL);
	assert_int_equal(stats_compute(v, 3, 0, NULL), STATS_EINVAL);
	assert_int_equal(stats_compute(NULL, 0, 0, NULL), STATS_EINVAL);
	assert_int_equal(v[0], 3);
	assert_memory_equal(&s, &before, sizeof(s));
	assert_int_equal(stats_percentile(v, 0, 50), 0);
}

/* Test-local generator, independent of bench/rng.h. */
static uint64_t lcg_state;
static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return lcg_state >> 17;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The definition itself: the smallest v with >= pct% of samples <= v. */
static uint64_t ref_percentile(const uint64_t *sorted, size_t n, unsigned p)
{
	for (size_t i = 0; i < n; i++) {
		if ((u128)(i + 1) * 100 >= (u128)p * n)
			return sorted[i];
	}
	return sorted[n - 1];
}

static void check_against_reference(const uint64_t *in, size_t n,
				    uint64_t overhead)
{
	uint64_t *mine = malloc(n * sizeof(*mine));
	uint64_t *ref = malloc(n * sizeof(*ref));
	u128 sum = 0;
	struct stats s;

	assert_non_null(mine);
	assert_non_null(ref);
	for (size_t i = 0; i < n; i++) {
		mine[i] = in[i];
		ref[i] = in[i] > overhead ? in[i] - overhead : 0;
		sum += ref[i];
	}
	qsort(ref, n, sizeof(*ref), cmp_u64);
	s = run(mine, n, overhead);
	assert_memory_equal(mine, ref, n * sizeof(*ref));
	/* floor(sum / n + 1/2), written differently from the code. */
	expect(&s, n, ref[0], ref_percentile(ref, n, 50),
	       ref_percentile(ref, n, 90), ref_percentile(ref, n, 99),
	       ref[n - 1], (uint64_t)((2 * sum + n) / (2 * (u128)n)));
	for (unsigned p = 0; p <= 100; p += 7)
		assert_int_equal(stats_percentile(ref, n, p),
				 ref_percentile(ref, n, p));
	free(mine);
	free(ref);
}

static void test_patterns_vs_reference(void **state)
{
	static uint64_t v[700];

	(void)state;
	lcg_state = 12345;
	for (size_t n = 1; n <= 700; n += (n < 130 ? 1 : 37)) {
		for (int pat = 0; pat < 6; pat++) {
			for (size_t i = 0; i < n; i++) {
				uint64_t r = lcg();

				v[i] = pat == 0	  ? i		/* ascending */
				       : pat == 1 ? n - i	/* descending */
				       : pat == 2 ? r % 7	/* few values */
				       : pat == 3 ? i % 17	/* sawtooth */
				       : pat == 4 ? r << 20	/* large */
						  : r % 100000; /* random */
			}
			check_against_reference(v, n, pat == 5 ? 5000 : 0);
		}
	}
}

static void test_sort(void **state)
{
	uint64_t none[1] = {9};
	uint64_t two[] = {2, 1};
	uint64_t v[257], ref[257];

	(void)state;
	stats_sort(none, 0);
	assert_int_equal(none[0], 9);
	stats_sort(none, 1);
	assert_int_equal(none[0], 9);
	stats_sort(two, 2);
	assert_int_equal(two[0], 1);
	assert_int_equal(two[1], 2);
	lcg_state = 99;
	for (size_t n = 0; n <= 257; n++) {
		for (size_t i = 0; i < n; i++) {
			/* organ pipe with extremes and duplicates */
			v[i] = i < n / 2 ? i : n - i;
			if (i % 5 == 0)
				v[i] = lcg() % 3 ? UINT64_MAX : 0;
			ref[i] = v[i];
		}
		stats_sort(v, n);
		qsort(ref, n, sizeof(*ref), cmp_u64);
		assert_memory_equal(v, ref, n * sizeof(*v));
	}
}

static void test_percentile_rule(void **state)
{
	uint64_t v[200];

	(void)state;
	for (size_t i = 0; i < 200; i++)
		v[i] = i + 1;
	for (size_t n = 1; n <= 200; n++) {
		for (unsigned p = 0; p <= 100; p++)
			assert_int_equal(stats_percentile(v, n, p),
					 ref_percentile(v, n, p));
		assert_int_equal(stats_percentile(v, n, 0), 1);
		assert_int_equal(stats_percentile(v, n, 100), n);
		assert_int_equal(stats_percentile(v, n, 1000), n);
		assert_int_equal(stats_percentile(v, n, UINT32_MAX), n);
	}
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A million samples, sorted input and random: sane time, exact result. */
static void test_big(void **state)
{
	size_t n = 1000000;
	uint64_t *v = malloc(n * sizeof(*v));
	double t;

	(void)state;
	assert_non_null(v);
	for (int pat = 0; pat < 2; pat++) {
		lcg_state = 7;
		for (size_t i = 0; i < n; i++)
			v[i] = pat ? lcg() % 1000000 + 1000 : i + 1000;
		t = seconds();
		check_against_reference(v, n, 1000);
		t = seconds() - t;
		/* O(n log n) under ASan: well below a second; n^2 is hours. */
		assert_true(t < 10.0);
	}
	for (size_t i = 0; i < n; i++)
		v[i] = n - i;
	assert_int_equal(run(v, n, 0).p99, 990000);
	assert_true(is_sorted(v, n));
	free(v);
}

/* The protocol overhead's ratio: two decimals, rounded half up. */
static void test_ratio_x100(void **state)
{
	(void)state;
	assert_int_equal(stats_ratio_x100(5, 0), 0);
	assert_int_equal(stats_ratio_x100(0, 7), 0);
	assert_int_equal(stats_ratio_x100(6759, 3561), 190); /* 1.898 */
	assert_int_equal(stats_ratio_x100(9, 8), 113);	     /* 1.125 up */
	assert_int_equal(stats_ratio_x100(1, 3), 33);
	assert_int_equal(stats_ratio_x100(2, 3), 67);
	assert_int_equal(stats_ratio_x100(3, 3), 100);
	/* num x 100 past 2^64 neither wraps nor overflows. */
	assert_true(stats_ratio_x100(UINT64_MAX, UINT64_MAX) == 100);
	assert_true(stats_ratio_x100(UINT64_MAX, 1) == UINT64_MAX);
}

static void test_stats_to_ns(void **state)
{
	struct stats c = {.samples = 9,
			  .min = 3,
			  .p50 = 30,
			  .p90 = 300,
			  .p99 = 3000,
			  .max = UINT64_MAX,
			  .mean = 45};
	struct stats ns;

	(void)state;
	stats_to_ns(&c, 3000000, &ns);
	expect(&ns, 9, 1, 10, 100, 1000, 6148914691236517205ull, 15);
	stats_to_ns(&c, 0, &ns);
	expect(&ns, 9, 0, 0, 0, 0, 0, 0);
	/* In place. */
	stats_to_ns(&c, 1500000, &c);
	expect(&c, 9, 2, 20, 200, 2000, 12297829382473034410ull, 30);
}

/* Population standard deviation, worked out by hand. */
static void test_stddev(void **state)
{
	uint64_t a[] = {2, 4, 4, 4, 5, 5, 7, 9}; /* mean 5, variance 4 */
	uint64_t b[] = {7, 7, 7};
	uint64_t c[] = {1, 2};	/* mean 1.5 -> 2; squares 1 + 0 = 1; 1/2 = 0 */
	uint64_t d[] = {0, 10}; /* mean 5; variance 25 */
	uint64_t e[] = {0, 0, 0, 3}; /* mean 1; (1+1+1+4)/4 = 1; sqrt 1 */
	uint64_t f[] = {0, 0, 3};    /* mean 1; (1+1+4)/3 = 2; sqrt 1.41 -> 1 */
	uint64_t g[] = {0, 0, 0, 0, 0, 0, 7}; /* mean 1; (6+36)/7 = 6 -> 2 */
	uint64_t big[] = {0, UINT64_MAX};     /* saturates, does not wrap */

	(void)state;
	assert_int_equal(run(a, 8, 0).stddev, 2);
	assert_int_equal(run(b, 3, 0).stddev, 0);
	assert_int_equal(run(c, 2, 0).stddev, 0);
	assert_int_equal(run(d, 2, 0).stddev, 5);
	assert_int_equal(run(e, 4, 0).stddev, 1);
	assert_int_equal(run(f, 3, 0).stddev, 1);
	assert_int_equal(run(g, 7, 0).stddev, 2); /* 2.45 -> 2 */
	/* overhead subtracted first: {100, 104} - 100 = {0, 4}, mean 2 */
	{
		uint64_t h[] = {104, 100};

		assert_int_equal(run(h, 2, 100).stddev, 2);
	}
	assert_true(run(big, 2, 0).stddev >= (1ull << 63) - 1);
}

static void test_isqrt(void **state)
{
	typedef unsigned __int128 u128;

	(void)state;
	assert_int_equal(stats_isqrt_round(0), 0);
	assert_int_equal(stats_isqrt_round(1), 1);
	assert_int_equal(stats_isqrt_round(2), 1); /* 1.41 */
	assert_int_equal(stats_isqrt_round(3), 2); /* 1.73 */
	assert_int_equal(stats_isqrt_round(6), 2); /* 2.449 */
	assert_int_equal(stats_isqrt_round(7), 3); /* 2.646 */
	assert_int_equal(stats_isqrt_round(1000000), 1000);
	assert_int_equal(stats_isqrt_round(((u128)1 << 100)), 1ull << 50);
	assert_true(stats_isqrt_round(~(u128)0) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_sets),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_one_and_two),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_sum_overflow),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_patterns_vs_reference),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_percentile_rule),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_stats_to_ns),
		cmocka_unit_test(test_ratio_x100),
		cmocka_unit_test(test_stddev),
		cmocka_unit_test(test_isqrt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
