// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/barrier.h: the last arrival opens the barrier for a
 * new round at count 0; a CPU that gives up takes its arrival back, so
 * the next barrier is not opened one CPU early (issue 19 item 5: a
 * timed-out barrier left its count raised); and a withdrawal that comes
 * after the barrier opened reports that it did open.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "unit.h"
#include "smp/barrier.h"

static void test_last_arrival_opens(void **state)
{
	volatile uint32_t w = 0;
	uint32_t s0, s1, s2;

	(void)state;
	assert_false(barrier_arrive(&w, 3, &s0));
	assert_false(barrier_arrive(&w, 3, &s1));
	assert_false(barrier_open(&w, s0));
	assert_true(barrier_arrive(&w, 3, &s2));
	assert_true(barrier_open(&w, s0) && barrier_open(&w, s1));
	assert_int_equal(w & ~BARRIER_SENSE, 0);
	assert_int_equal(s0, s2);
}

static void test_withdrawal_keeps_the_next_round_whole(void **state)
{
	volatile uint32_t w = 0;
	uint32_t s, late;

	(void)state;
	/* Round 1: two of three arrive; one gives up and withdraws. */
	assert_false(barrier_arrive(&w, 3, &s));
	assert_false(barrier_arrive(&w, 3, &late));
	assert_true(barrier_withdraw(&w, late));
	assert_true(barrier_withdraw(&w, s));
	assert_int_equal(w, 0);
	/* Round 2 needs all three again, not one fewer. */
	assert_false(barrier_arrive(&w, 3, &s));
	assert_false(barrier_arrive(&w, 3, &s));
	assert_false(barrier_open(&w, s));
	assert_true(barrier_arrive(&w, 3, &s));
}

static void test_withdraw_after_open_fails(void **state)
{
	volatile uint32_t w = 0;
	uint32_t a, b;

	(void)state;
	assert_false(barrier_arrive(&w, 2, &a));
	assert_true(barrier_arrive(&w, 2, &b));
	assert_false(barrier_withdraw(&w, a)); /* it opened: a passed */
	assert_int_equal(w & ~BARRIER_SENSE, 0);
}

#define THREADS 4
#define ROUNDS	2000
static volatile uint32_t shared;
static volatile unsigned passed[THREADS];

static void *meet(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < ROUNDS; i++) {
		uint32_t sense;

		if (!barrier_arrive(&shared, THREADS, &sense))
			while (!barrier_open(&shared, sense))
				sched_yield(); /* more threads than cores */
		passed[me]++;
		/* Nobody may be more than one round ahead of anyone. */
		for (unsigned t = 0; t < THREADS; t++)
			if (passed[t] + 1 < passed[me])
				abort();
	}
	return NULL;
}

static void test_rounds_under_contention(void **state)
{
	pthread_t t[THREADS];

	(void)state;
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, meet, (void *)i),
				 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(passed[i], ROUNDS);
	assert_int_equal(shared & ~BARRIER_SENSE, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_arrival_opens),
		cmocka_unit_test(test_withdrawal_keeps_the_next_round_whole),
		cmocka_unit_test(test_withdraw_after_open_fails),
		cmocka_unit_test(test_rounds_under_contention),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
