// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/reclaim_race.h: the reclaim negative control races
 * a worker only on a page it has just written and still writes, and
 * never twice on one page, so that a try that missed (the worker's TLB
 * dropped the entry) moves on to a page still mapped.
 */
#include "unit.h"
#include "bench/reclaim_race.h"

#define FIRST 512 /* the batch: pages 512..575 */
#define N     64
#define CAP   512

/* It wrote its page (writes 7 -> 8) and is still on it: raced. */
static void test_just_written(void **state)
{
	uint64_t done[CAP / 64] = {0};

	(void)state;
	assert_true(rc_race_target(520, 520, 7, 8, FIRST, N, CAP, done));
}

/* No write went through, or it moved on: its TLB may not hold p. */
static void test_no_write_or_moved(void **state)
{
	uint64_t done[CAP / 64] = {0};

	(void)state;
	assert_false(rc_race_target(520, 520, 7, 7, FIRST, N, CAP, done));
	assert_false(rc_race_target(520, 523, 7, 8, FIRST, N, CAP, done));
}

/*
 * A page raced once is cleared: a second try there could only fault, so
 * the next try is on the worker's next page. Without this the control
 * raced each worker once, at the same point of every deterministic pass.
 */
static void test_never_twice(void **state)
{
	uint64_t done[CAP / 64] = {0};

	(void)state;
	rc_race_mark(done, 520 - FIRST);
	assert_true(rc_race_done(done, 520 - FIRST));
	assert_false(rc_race_target(520, 520, 8, 9, FIRST, N, CAP, done));
	assert_true(rc_race_target(523, 523, 9, 10, FIRST, N, CAP, done));
	assert_false(rc_race_done(done, 523 - FIRST));
}

/* Outside the batch (before it, after it, past the bitmap): never. */
static void test_outside_the_batch(void **state)
{
	uint64_t done[CAP / 64] = {0};

	(void)state;
	assert_false(rc_race_target(FIRST - 1, FIRST - 1, 0, 1, FIRST, N, CAP,
				    done));
	assert_false(rc_race_target(FIRST + N, FIRST + N, 0, 1, FIRST, N, CAP,
				    done));
	assert_false(rc_race_target(FIRST + 600, FIRST + 600, 0, 1, FIRST, 1000,
				    CAP, done));
	assert_true(rc_race_target(FIRST + N - 1, FIRST + N - 1, 0, 1, FIRST, N,
				   CAP, done));
}

/* The bitmap's words: bit 63 and bit 64 are different pages. */
static void test_bitmap_words(void **state)
{
	uint64_t done[CAP / 64] = {0};

	(void)state;
	rc_race_mark(done, 63);
	assert_true(rc_race_done(done, 63));
	assert_false(rc_race_done(done, 64));
	rc_race_mark(done, 64);
	assert_int_equal(done[0], 1ull << 63);
	assert_int_equal(done[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_just_written),
		cmocka_unit_test(test_no_write_or_moved),
		cmocka_unit_test(test_never_twice),
		cmocka_unit_test(test_outside_the_batch),
		cmocka_unit_test(test_bitmap_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
