// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/spinlock.h: a spin_lock_timeout() that gives up must
 * leave the lock usable (it once kept its ticket, so everyone behind it
 * waited for ever), and the lock excludes under contention from threads
 * that mix both ways of taking it.
 */
#include <pthread.h>
#include "unit.h"
#include "kernel/spinlock.h"

#define THREADS 4
#define ROUNDS	20000

static void test_timeout_takes_a_free_lock(void **state)
{
	struct spinlock l = {0};

	(void)state;
	assert_true(spin_lock_timeout(&l, 0));
	spin_unlock(&l);
	assert_true(spin_lock_timeout(&l, 10));
	assert_int_equal(l.next, 2);
	assert_int_equal(l.owner, 1);
	spin_unlock(&l);
}

/* The regression: giving up while the lock is held draws no ticket. */
static void test_giving_up_leaves_the_lock_usable(void **state)
{
	struct spinlock l = {0};

	(void)state;
	spin_lock(&l);
	assert_false(spin_lock_timeout(&l, 100));
	assert_false(spin_lock_timeout(&l, 0));
	assert_int_equal(l.next, 1); /* no ticket left behind */
	spin_unlock(&l);
	/* Free now: both ways of taking it succeed at once. */
	assert_true(spin_lock_timeout(&l, 0));
	spin_unlock(&l);
	spin_lock(&l);
	spin_unlock(&l);
	assert_int_equal(l.next, l.owner);
}

/* Wrap-around of the 32-bit tickets. */
static void test_tickets_wrap(void **state)
{
	struct spinlock l = {UINT32_MAX, UINT32_MAX};

	(void)state;
	assert_true(spin_lock_timeout(&l, 0));
	assert_int_equal(l.next, 0);
	assert_false(spin_lock_timeout(&l, 5));
	spin_unlock(&l);
	assert_int_equal(l.owner, 0);
	spin_lock(&l);
	spin_unlock(&l);
	assert_int_equal(l.next, 1);
	assert_int_equal(l.owner, 1);
}

/*
 * A holder that stopped: the lock is released for it once, and the next
 * ticket is served; a second release for the same ticket does nothing.
 */
static void test_unlock_for_a_stopped_holder(void **state)
{
	struct spinlock l = {0, 0};
	uint32_t stopped, waiter;

	(void)state;
	stopped = spin_lock_draw(&l);
	waiter = spin_lock_draw(&l);
	assert_int_equal(spin_lock_serving(&l), stopped);
	assert_true(spin_unlock_for(&l, stopped));
	assert_false(spin_unlock_for(&l, stopped));
	assert_int_equal(spin_lock_serving(&l), waiter);
	spin_unlock(&l);
	assert_true(spin_lock_timeout(&l, 0));
	spin_unlock(&l);
}

static struct spinlock shared;
static volatile uint64_t inside, total, gave_up, overlaps;

static void *hammer(void *arg)
{
	bool timeout_way = (uintptr_t)arg & 1;

	for (int i = 0; i < ROUNDS; i++) {
		if (timeout_way && !spin_lock_timeout(&shared, 50)) {
			__atomic_fetch_add(&gave_up, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (!timeout_way)
			spin_lock(&shared);
		/* Nobody else inside: a plain read-modify-write is exact. */
		assert_int_equal(
			__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED), 0);
		total = total + 1;
		__atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
		spin_unlock(&shared);
	}
	return NULL;
}

/*
 * Half the threads give up now and then (the cmocka checks stay on the
 * main thread); with the old ticket-keeping timeout the others would hang
 * at the first abandoned ticket.
 */
static void test_mixed_contention(void **state)
{
	pthread_t t[THREADS];

	(void)state;
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, (void *)i),
				 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(overlaps, 0);
	assert_int_equal(total + gave_up, (uint64_t)THREADS * ROUNDS);
	assert_int_equal(shared.next, shared.owner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeout_takes_a_free_lock),
		cmocka_unit_test(test_giving_up_leaves_the_lock_usable),
		cmocka_unit_test(test_tickets_wrap),
		cmocka_unit_test(test_unlock_for_a_stopped_holder),
		cmocka_unit_test(test_mixed_contention),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
