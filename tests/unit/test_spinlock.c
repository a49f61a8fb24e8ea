// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/spinlock.h's portable part: the holder is named
 * once claimed and nobody before; a ticket drawn by a CPU that stopped
 * before claiming it can be skipped, and its drawer then cannot claim it;
 * a holder released for (taken out) cannot release the next holder's
 * ticket; and the lock excludes under contention.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "unit.h"
#define SPINLOCK_PORTABLE_ONLY
#include "kernel/spinlock.h"

#define THREADS 4
#define ROUNDS	20000

/*
 * What spin_lock() does, without the kernel's hooks. It yields while it
 * waits: more threads than host cores on a FIFO lock otherwise wait a
 * whole time slice for each preempted ticket (minutes on 2 cores).
 */
static void lock_as(struct spinlock *l, unsigned cpu)
{
	enum spin_turn turn;

	do {
		uint32_t t = spin_lock_draw(l);

		while ((turn = spin_lock_try_claim(l, t, cpu)) == SPIN_WAITING)
			sched_yield();
	} while (turn == SPIN_SKIPPED);
}

static void test_zero_lock_names_nobody(void **state)
{
	struct spinlock l = {0};

	(void)state;
	/* Ticket 0, not claimed: not "cpu 0 holds ticket 0". */
	assert_int_equal(spin_holder(spin_serving(&l)), SPIN_NO_HOLDER);
	assert_false(spin_held_by(&l, 0));
	assert_false(spin_unlock_as(&l, 0)); /* cpu 0 holds nothing */
	lock_as(&l, 0);
	assert_true(spin_held_by(&l, 0));
	assert_true(spin_unlock_as(&l, 0));
	assert_int_equal(spin_holder(spin_serving(&l)), SPIN_NO_HOLDER);
	assert_int_equal(spin_ticket(spin_serving(&l)), 1);
}

static void test_claim_names_the_holder(void **state)
{
	struct spinlock l = {0};
	uint32_t a, b;

	(void)state;
	a = spin_lock_draw(&l);
	b = spin_lock_draw(&l);
	assert_int_equal(spin_lock_try_claim(&l, b, 7), SPIN_WAITING);
	assert_int_equal(spin_lock_try_claim(&l, a, 3), SPIN_TAKEN);
	assert_int_equal(spin_holder(spin_serving(&l)), 3);
	assert_false(spin_unlock_as(&l, 7)); /* not its to release */
	assert_true(spin_unlock_as(&l, 3));
	assert_int_equal(spin_lock_try_claim(&l, b, 7), SPIN_TAKEN);
	assert_int_equal(spin_holder(spin_serving(&l)), 7);
}

/*
 * The regression of issue 19 item 2: a CPU that stops between drawing
 * and claiming left everyone behind it waiting for ever. The waiter skips
 * the unclaimed ticket; the drawer, if it runs on, finds it skipped.
 */
static void test_unclaimed_ticket_is_skipped(void **state)
{
	struct spinlock l = {0};
	uint32_t stopped, waiter;
	uint64_t seen;

	(void)state;
	stopped = spin_lock_draw(&l);
	waiter = spin_lock_draw(&l);
	seen = spin_serving(&l);
	assert_int_equal(spin_holder(seen), SPIN_NO_HOLDER);
	assert_int_equal(spin_ticket(seen), stopped);
	assert_true(spin_release_for(&l, seen));
	assert_false(spin_release_for(&l, seen)); /* once only */
	assert_int_equal(spin_lock_try_claim(&l, stopped, 1), SPIN_SKIPPED);
	assert_int_equal(spin_lock_try_claim(&l, waiter, 2), SPIN_TAKEN);
}

/*
 * Issue 19 item 4: a holder taken out and released for, that runs on,
 * must not release the next holder's ticket (two initiators in one
 * mailbox): its unlock fails, and it learns it was taken out.
 */
static void test_released_for_holder_cannot_unlock(void **state)
{
	struct spinlock l = {0};
	uint32_t next;

	(void)state;
	lock_as(&l, 5);
	next = spin_lock_draw(&l);
	assert_true(spin_release_for(&l, spin_serving(&l)));
	assert_int_equal(spin_lock_try_claim(&l, next, 6), SPIN_TAKEN);
	assert_false(spin_unlock_as(&l, 5));
	assert_true(spin_held_by(&l, 6));
	assert_true(spin_unlock_as(&l, 6));
}

static void test_tickets_wrap(void **state)
{
	struct spinlock l = {.next = UINT32_MAX,
			     .serving = spin_word(UINT32_MAX, SPIN_NO_HOLDER)};

	(void)state;
	lock_as(&l, 2);
	assert_int_equal(l.next, 0);
	assert_true(spin_unlock_as(&l, 2));
	assert_int_equal(spin_ticket(spin_serving(&l)), 0);
	lock_as(&l, 2);
	assert_true(spin_unlock_as(&l, 2));
	assert_int_equal(l.next, 1);
}

static struct spinlock shared;
static volatile uint64_t inside, total;

/*
 * Each thread takes the lock as its own cpu; every unlock must succeed
 * (the lock names that thread as holder) and nobody is ever inside with
 * another. (cmocka's checks stay on the main thread: abort() here.)
 */
static void *hammer(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < ROUNDS; i++) {
		lock_as(&shared, cpu);
		/* Nobody else inside: a plain read-modify-write is exact. */
		if (__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED) != 0)
			abort();
		total = total + 1;
		__atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
		if (!spin_unlock_as(&shared, cpu))
			abort();
	}
	return NULL;
}

static void test_contention(void **state)
{
	pthread_t t[THREADS];

	(void)state;
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, (void *)i),
				 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(total, (uint64_t)THREADS * ROUNDS);
	assert_int_equal(shared.next, spin_ticket(spin_serving(&shared)));
	assert_int_equal(spin_holder(spin_serving(&shared)), SPIN_NO_HOLDER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_lock_names_nobody),
		cmocka_unit_test(test_claim_names_the_holder),
		cmocka_unit_test(test_unclaimed_ticket_is_skipped),
		cmocka_unit_test(test_released_for_holder_cannot_unlock),
		cmocka_unit_test(test_tickets_wrap),
		cmocka_unit_test(test_contention),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
