// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/hist.c: bucket edges exactly at the fixed-point
 * boundaries, one sample, all equal, huge values, the 64-bucket cap, and
 * counts that always sum to n (random data against a floating-point
 * reference, which must agree except within a cycle of an edge).
 */
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "bench/hist.h"

static uint64_t sum_counts(const struct hist *h)
{
	uint64_t s = 0;

	for (size_t i = 0; i < HIST_MAX_BUCKETS; i++)
		s += h->counts[i];
	return s;
}

static void test_lo(void **state)
{
	(void)state;
	assert_int_equal(hist_lo(0), 1);
	assert_int_equal(hist_lo(1), 1);
	assert_int_equal(hist_lo(2), 2);
	assert_int_equal(hist_lo(3), 2);
	assert_int_equal(hist_lo(1000), 512);
	assert_int_equal(hist_lo(1024), 1024);
	assert_true(hist_lo(UINT64_MAX) == 1ull << 63);
}

/* lo = 1024: the quarter edges are 1024 * Q16 / 65536, rounded up. */
static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(hist_bucket(1024, 1024), 0);
	/* 1024 * 77936 / 65536 = 1217.75: 1217 is below, 1218 above */
	assert_int_equal(hist_bucket(1217, 1024), 0);
	assert_int_equal(hist_bucket(1218, 1024), 1);
	/* 1024 * 92682 / 65536 = 1448.16 */
	assert_int_equal(hist_bucket(1448, 1024), 1);
	assert_int_equal(hist_bucket(1449, 1024), 2);
	/* 1024 * 110218 / 65536 = 1722.16 */
	assert_int_equal(hist_bucket(1722, 1024), 2);
	assert_int_equal(hist_bucket(1723, 1024), 3);
	assert_int_equal(hist_bucket(2047, 1024), 3);
	assert_int_equal(hist_bucket(2048, 1024), 4);
	assert_int_equal(hist_bucket(4096, 1024), 8);
	/* lo = 1: small integers, where the edges are exact products */
	assert_int_equal(hist_bucket(0, 1), 0);
	assert_int_equal(hist_bucket(1, 1), 0);
	assert_int_equal(hist_bucket(2, 1), 4);
	assert_int_equal(hist_bucket(3, 1), 6);	 /* 3/2 = 1.5 >= 2^(1/2) */
	assert_int_equal(hist_bucket(7, 1), 11); /* 7/4 = 1.75 >= 2^(3/4) */
	/* an exact multiple at a quarter edge: 65536 * 77936 / 65536 */
	assert_int_equal(hist_bucket(77936, 65536), 1);
	assert_int_equal(hist_bucket(77935, 65536), 0);
	/* below lo (the caller's bug) is bucket 0, not an underflow */
	assert_int_equal(hist_bucket(5, 8), 0);
}

static void test_one_sample(void **state)
{
	uint64_t v = 5000;
	struct hist h;

	(void)state;
	hist_build(&v, 1, 5000, &h);
	assert_int_equal(h.lo, 4096);
	/* 5000 / 4096 = 1.22: the second quarter */
	assert_int_equal(h.nbuckets, 2);
	assert_int_equal(h.counts[0], 0);
	assert_int_equal(h.counts[1], 1);
	assert_int_equal(sum_counts(&h), 1);
}

static void test_all_equal(void **state)
{
	uint64_t v[100];
	struct hist h;

	(void)state;
	for (size_t i = 0; i < 100; i++)
		v[i] = 4096;
	hist_build(v, 100, 4096, &h);
	assert_int_equal(h.lo, 4096);
	assert_int_equal(h.nbuckets, 1);
	assert_int_equal(h.counts[0], 100);
	/* all zero: lo 1, bucket 0 */
	for (size_t i = 0; i < 100; i++)
		v[i] = 0;
	hist_build(v, 100, 0, &h);
	assert_int_equal(h.lo, 1);
	assert_int_equal(h.nbuckets, 1);
	assert_int_equal(h.counts[0], 100);
}

static void test_huge_and_cap(void **state)
{
	uint64_t v[] = {1, UINT64_MAX, 1ull << 16, (1ull << 16) - 1};
	struct hist h;

	(void)state;
	/* 2^16 / 1 is octave 16, bucket 64: past the cap */
	assert_int_equal(hist_bucket(1ull << 16, 1), HIST_MAX_BUCKETS - 1);
	assert_int_equal(hist_bucket((1ull << 16) - 1, 1), 63);
	assert_int_equal(hist_bucket(UINT64_MAX, 1), 63);
	/* the largest values against the largest lo: no overflow */
	assert_int_equal(hist_bucket(UINT64_MAX, 1ull << 63), 3);
	assert_int_equal(hist_bucket(1ull << 63, 1ull << 63), 0);
	hist_build(v, 4, 1, &h);
	assert_int_equal(h.nbuckets, HIST_MAX_BUCKETS);
	assert_int_equal(h.counts[0], 1);
	assert_int_equal(h.counts[63], 3);
	assert_int_equal(sum_counts(&h), 4);
}

/* Random spreads: the sum is n, and the bucket agrees with log2. */
static void test_random(void **state)
{
	static uint64_t v[5000];
	struct hist h;

	(void)state;
	srand(12);
	for (int iter = 0; iter < 50; iter++) {
		uint64_t min = UINT64_MAX;
		size_t n = 1 + (size_t)rand() % 5000;
		int bits = 1 + rand() % 40;

		for (size_t i = 0; i < n; i++) {
			v[i] = (((uint64_t)rand() << 31) ^ (uint64_t)rand()) &
			       ((1ull << bits) - 1);
			if (v[i] < min)
				min = v[i];
		}
		hist_build(v, n, min, &h);
		assert_int_equal(sum_counts(&h), n);
		assert_true(h.nbuckets >= 1 && h.counts[h.nbuckets - 1]);
		assert_true(h.lo <= (min ? min : 1) && h.lo * 2 > min);
		for (size_t i = 0; i < n; i++) {
			double x = v[i] ? 4 * log2((double)v[i] / h.lo) : 0;
			long want = (long)floor(x);
			size_t got = hist_bucket(v[i], h.lo);

			if (want > 63)
				want = 63;
			/* the rounded constants move an edge by < 1e-5 */
			if (fabs(x - round(x)) > 1e-4 || want == 63)
				assert_int_equal(got, want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lo),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_one_sample),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_huge_and_cap),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
