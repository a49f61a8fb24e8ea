// SPDX-License-Identifier: MIT
/* Host tests of bench/rng.h: SplitMix64's known outputs, draws below a
 * bound, and the shuffle. */
#include "unit.h"
#include "bench/rng.h"

/* SplitMix64's published first outputs (seed 0, and Java's 1234567). */
static void test_rng_known_values(void **state)
{
	struct rng r;

	(void)state;
	rng_seed(&r, 0);
	assert_true(rng_next(&r) == 0xe220a8397b1dcdafull);
	assert_true(rng_next(&r) == 0x6e789e6aa1b965f4ull);
	assert_true(rng_next(&r) == 0x06c45d188009454full);
	rng_seed(&r, 1234567);
	assert_true(rng_next(&r) == 6457827717110365317ull);
	assert_true(rng_next(&r) == 0x2c73f08458540fa5ull);
}

/* Sequences from an independent implementation (Python, big integers). */
static void test_rng_below_sequence(void **state)
{
	static const uint64_t ten[] = {7, 1, 2, 3, 0, 8, 2, 8, 3, 6};
	static const uint64_t big[] = {
		3595544800446187243ull, 8308050873407804673ull,
		2300599727732774152ull, 1238314238945538992ull};
	struct rng r;

	(void)state;
	rng_seed(&r, 42);
	for (size_t i = 0; i < ARRAY_SIZE(ten); i++)
		assert_int_equal(rng_below(&r, 10), ten[i]);
	/* n = 2^63 + 1 rejects about half of the draws. */
	rng_seed(&r, 7);
	for (size_t i = 0; i < ARRAY_SIZE(big); i++)
		assert_true(rng_below(&r, (1ull << 63) + 1) == big[i]);
}

static void test_rng_below_bounds(void **state)
{
	static const uint64_t ns[] = {
		1, 2, 3, 7, 1000, (1ull << 63) + 1, UINT64_MAX - 1, UINT64_MAX};
	unsigned count[6] = {0};
	struct rng r;

	(void)state;
	rng_seed(&r, 0);
	assert_int_equal(rng_below(&r, 0), 0);
	for (size_t k = 0; k < ARRAY_SIZE(ns); k++) {
		for (int i = 0; i < 2000; i++)
			assert_true(rng_below(&r, ns[k]) < ns[k]);
	}
	for (int i = 0; i < 60000; i++)
		count[rng_below(&r, 6)]++;
	for (int i = 0; i < 6; i++) {
		assert_true(count[i] > 9500); /* 10000 expected each */
		assert_true(count[i] < 10500);
	}
}

static void test_rng_shuffle(void **state)
{
	static const uint32_t want[] = {9, 0, 1, 4, 8, 2, 3, 7, 6, 5};
	uint32_t a[10], b[10], seen[6] = {0};
	struct rng r;

	(void)state;
	rng_seed(&r, 1);
	for (uint32_t i = 0; i < 10; i++)
		a[i] = i;
	rng_shuffle(&r, a, 10);
	assert_memory_equal(a, want, sizeof(a));
	rng_shuffle(&r, a, 0); /* nothing to do, nothing touched */
	rng_shuffle(&r, a, 1);
	assert_memory_equal(a, want, sizeof(a));
	/* Every order of three, about equally often. */
	for (int i = 0; i < 60000; i++) {
		b[0] = 0, b[1] = 1, b[2] = 2;
		rng_shuffle(&r, b, 3);
		assert_int_equal(b[0] + b[1] + b[2], 3);
		assert_true(b[0] != b[1] && b[1] != b[2] && b[0] != b[2]);
		seen[b[0] * 2 + (b[1] > b[2])]++;
	}
	for (int i = 0; i < 6; i++) {
		assert_true(seen[i] > 9500);
		assert_true(seen[i] < 10500);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_known_values),
		cmocka_unit_test(test_rng_below_sequence),
		cmocka_unit_test(test_rng_below_bounds),
		cmocka_unit_test(test_rng_shuffle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
