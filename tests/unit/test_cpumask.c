// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/cpumask.h: the bitmap operations at word boundaries
 * and at the ends, iteration, and the atomic variants under contention
 * from several threads.
 */
#include <pthread.h>
#include "unit.h"
#include "smp/cpumask.h"

static struct cpumask a, b, c;

static int zero_all(void **state)
{
	(void)state;
	cpumask_zero(&a);
	cpumask_zero(&b);
	cpumask_zero(&c);
	return 0;
}

/* Collects the members in iteration order; returns how many. */
static unsigned int members(const struct cpumask *m, unsigned int *out,
			    unsigned int max)
{
	unsigned int cpu, n = 0;

	for_each_cpu(cpu, m) {
		assert_true(n < max);
		out[n++] = cpu;
	}
	return n;
}

static void test_set_clear_test(void **state)
{
	static const unsigned int cpus[] = {0, 1, 63, 64, 127, 299, 300, 1023};

	(void)state;
	assert_true(cpumask_empty(&a));
	assert_int_equal(cpumask_count(&a), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cpus); i++) {
		assert_false(cpumask_test(cpus[i], &a));
		cpumask_set(cpus[i], &a);
		assert_true(cpumask_test(cpus[i], &a));
		cpumask_set(cpus[i], &a); /* twice: still one member */
	}
	assert_int_equal(cpumask_count(&a), ARRAY_SIZE(cpus));
	assert_false(cpumask_test(2, &a));
	assert_false(cpumask_test(65, &a));
	cpumask_clear(64, &a);
	assert_false(cpumask_test(64, &a));
	assert_true(cpumask_test(63, &a));
	assert_int_equal(cpumask_count(&a), ARRAY_SIZE(cpus) - 1);
	assert_false(cpumask_empty(&a));
}

/* Indexes at or above MAX_CPUS are never members and never written. */
static void test_out_of_range(void **state)
{
	(void)state;
	cpumask_set(MAX_CPUS, &a);
	cpumask_set(MAX_CPUS + 64, &a);
	cpumask_set(~0u, &a);
	cpumask_set_atomic(MAX_CPUS, &a);
	assert_true(cpumask_empty(&a));
	assert_false(cpumask_test(MAX_CPUS, &a));
	assert_false(cpumask_test_atomic(~0u, &a));
	assert_false(cpumask_test_and_set_atomic(MAX_CPUS, &a));
	assert_true(cpumask_empty(&a));
	cpumask_fill(&a, MAX_CPUS);
	cpumask_clear(MAX_CPUS, &a);
	cpumask_clear_atomic(MAX_CPUS + 1, &a);
	assert_false(cpumask_test_and_clear_atomic(MAX_CPUS, &a));
	assert_int_equal(cpumask_count(&a), MAX_CPUS);
}

static void test_fill(void **state)
{
	static const unsigned int ns[] = {
		0,   1,	  63,		64,	  65,
		128, 300, MAX_CPUS - 1, MAX_CPUS, MAX_CPUS + 7};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ns); i++) {
		unsigned int n = ns[i] < MAX_CPUS ? ns[i] : MAX_CPUS;

		cpumask_fill(&a, ns[i]);
		assert_int_equal(cpumask_count(&a), n);
		assert_true(n == 0 || cpumask_test(n - 1, &a));
		assert_false(cpumask_test(n, &a));
		assert_int_equal(cpumask_first(&a), n ? 0 : MAX_CPUS);
	}
}

static void test_first_next(void **state)
{
	unsigned int got[8];

	(void)state;
	assert_int_equal(cpumask_first(&a), MAX_CPUS);
	assert_int_equal(cpumask_next(0, &a), MAX_CPUS);
	cpumask_set(MAX_CPUS - 1, &a);
	assert_int_equal(cpumask_first(&a), MAX_CPUS - 1);
	assert_int_equal(cpumask_next(MAX_CPUS - 2, &a), MAX_CPUS - 1);
	assert_int_equal(cpumask_next(MAX_CPUS - 1, &a), MAX_CPUS);
	assert_int_equal(cpumask_next(MAX_CPUS + 5, &a), MAX_CPUS);
	cpumask_set(0, &a);
	cpumask_set(63, &a);
	cpumask_set(64, &a);
	cpumask_set(200, &a);
	assert_int_equal(cpumask_next(0, &a), 63);
	assert_int_equal(cpumask_next(63, &a), 64);
	assert_int_equal(cpumask_next(64, &a), 200);
	assert_int_equal(cpumask_next_from(64, &a), 64);
	assert_int_equal(members(&a, got, 8), 5);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 63);
	assert_int_equal(got[2], 64);
	assert_int_equal(got[3], 200);
	assert_int_equal(got[4], MAX_CPUS - 1);
}

/* Clearing the current CPU (as an acknowledging responder does). */
static void test_for_each_clear_current(void **state)
{
	unsigned int cpu, seen = 0;

	(void)state;
	cpumask_fill(&a, 300);
	for_each_cpu(cpu, &a) {
		cpumask_clear(cpu, &a);
		seen++;
	}
	assert_int_equal(seen, 300);
	assert_true(cpumask_empty(&a));
	/* An empty mask runs the body zero times. */
	for_each_cpu(cpu, &a)
		fail();
}

static void test_and_or_andnot(void **state)
{
	(void)state;
	cpumask_fill(&a, 100); /* 0..99 */
	for (unsigned int i = 50; i < 150; i++)
		cpumask_set(i, &b); /* 50..149 */
	cpumask_and(&c, &a, &b);
	assert_int_equal(cpumask_count(&c), 50);
	assert_int_equal(cpumask_first(&c), 50);
	cpumask_or(&c, &a, &b);
	assert_int_equal(cpumask_count(&c), 150);
	cpumask_andnot(&c, &a, &b);
	assert_int_equal(cpumask_count(&c), 50);
	assert_false(cpumask_test(50, &c));
	assert_true(cpumask_test(49, &c));
	/* dst may be an operand. */
	cpumask_andnot(&a, &a, &b);
	assert_true(cpumask_equal(&a, &c));
	cpumask_or(&a, &a, &b);
	assert_int_equal(cpumask_count(&a), 150);
	cpumask_and(&b, &a, &b);
	assert_int_equal(cpumask_count(&b), 100);
}

static void test_equal_copy(void **state)
{
	(void)state;
	assert_true(cpumask_equal(&a, &b));
	cpumask_set(1023, &a);
	assert_false(cpumask_equal(&a, &b));
	cpumask_copy(&b, &a);
	assert_true(cpumask_equal(&a, &b));
	cpumask_set(0, &b);
	assert_false(cpumask_equal(&a, &b));
}

static void test_popcount(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_int_equal(cpumask_popcount64(0), 0);
	assert_int_equal(cpumask_popcount64(~0ull), 64);
	for (int i = 0; i < 1000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		assert_int_equal(cpumask_popcount64(x),
				 __builtin_popcountll(x));
	}
}

static void test_atomic_single(void **state)
{
	(void)state;
	assert_false(cpumask_test_and_set_atomic(70, &a));
	assert_true(cpumask_test_and_set_atomic(70, &a));
	assert_true(cpumask_test_atomic(70, &a));
	cpumask_set_atomic(71, &a);
	assert_int_equal(cpumask_count(&a), 2);
	assert_true(cpumask_test_and_clear_atomic(70, &a));
	assert_false(cpumask_test_and_clear_atomic(70, &a));
	cpumask_clear_atomic(71, &a);
	assert_true(cpumask_empty(&a));
}

/*
 * Threads set and clear interleaved bits of the same words: with plain
 * read-modify-write some updates would be lost, with the atomic ones
 * every thread's bits end as it left them.
 */
#define THREADS 4
#define ROUNDS	20000

static void *hammer(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg;

	for (int r = 0; r < ROUNDS; r++) {
		for (unsigned int cpu = t; cpu < MAX_CPUS; cpu += THREADS)
			cpumask_set_atomic(cpu, &a);
		for (unsigned int cpu = t; cpu < MAX_CPUS; cpu += THREADS)
			if (cpu % 8 != t)
				cpumask_clear_atomic(cpu, &a);
	}
	return NULL;
}

static void test_atomic_threads(void **state)
{
	pthread_t th[THREADS];
	unsigned int want = 0;

	(void)state;
	for (uintptr_t t = 0; t < THREADS; t++)
		assert_int_equal(
			pthread_create(&th[t], NULL, hammer, (void *)t), 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++) {
		bool kept = cpu % 8 == cpu % THREADS;

		assert_int_equal(cpumask_test(cpu, &a), kept);
		want += kept;
	}
	assert_int_equal(cpumask_count(&a), want);
}

#define T(f) cmocka_unit_test_setup(f, zero_all)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_set_clear_test),
		T(test_out_of_range),
		T(test_fill),
		T(test_first_next),
		T(test_for_each_clear_current),
		T(test_and_or_andnot),
		T(test_equal_copy),
		T(test_popcount),
		T(test_atomic_single),
		T(test_atomic_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
