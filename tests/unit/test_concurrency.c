// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/concurrency.h's decision: CPUs taking turns (moves
 * once per switch, never twice in a row) are told from CPUs side by side
 * however many reads each made, and the words say which and why.
 */
#include "unit.h"
#include "smp/concurrency.h"

/* As single-threaded TCG showed it: a move per switch, none twice. */
static const struct concurrency_obs turns[] = {
	{0, 1, 482304, 2, 0},
	{1, 0, 7938389, 1, 0},
	{0, 2, 482304, 1, 0},
	{2, 0, 7938389, 0, 0},
};
/* As multi-threaded TCG: one pair mostly apart, the others together. */
static const struct concurrency_obs one_apart[] = {
	{0, 1, 40960, 2606, 1200},
	{1, 0, 3846144, 4411, 2000},
	{0, 2, 40960, 3, 0},
	{2, 0, 4023296, 4, 0},
};
/* Every pair side by side, one of them barely (the threshold, both ways). */
static const struct concurrency_obs side[] = {
	{0, 1, 40960, 2606, 1200},
	{1, 0, 3846144, 4411, 2000},
	{0, 2, 40960, 30, CONCURRENCY_MIN_TWICE - 1},
	{2, 0, 4023296, 40, 1},
};

static void test_turns(void **state)
{
	char why[448];
	uint64_t share = 99;

	(void)state;
	assert_false(
		concurrency_decide(turns, 4, 100000, why, sizeof(why), &share));
	assert_int_equal(share, 0);
	assert_non_null(strstr(why, "take turns"));
	assert_non_null(strstr(why, "0 times twice in a row"));
	assert_printable(why, sizeof(why));
}

static void test_side_by_side(void **state)
{
	char why[448];
	uint64_t share;

	(void)state;
	assert_true(
		concurrency_decide(side, 4, 100000, why, sizeof(why), &share));
	assert_null(strstr(why, "take turns"));
	assert_non_null(strstr(why, "3216 times twice in a row"));
}

/*
 * One pair apart is enough: the sum over pairs (3200 times twice in a
 * row) said side by side, but cpu 2's responder waits for the host.
 */
static void test_one_pair_apart(void **state)
{
	char why[448];
	uint64_t share;

	(void)state;
	assert_false(concurrency_decide(one_apart, 4, 100000, why, sizeof(why),
					&share));
	assert_non_null(strstr(why, "the cpus take turns (cpu 0 and cpu 2: 0 "
				    "times twice in a row, under 16): "));
	/* cpu 0 saw 2609 moves in 81920 reads: 3.1%; the least pair 0.0% */
	assert_non_null(strstr(why, "(3.1%)"));
	assert_non_null(strstr(why, "least, cpu 0 of cpu 2: 0.0%"));
	assert_int_equal(share, 31); /* cpu 0's view, not the peers' 0.5 */
	assert_printable(why, sizeof(why));
}

/* Twice in a row a few times only: not enough to call it side by side. */
static void test_threshold(void **state)
{
	struct concurrency_obs o[] = {{0, 1, 1000, 40, 0}, {1, 0, 1000, 40, 0}};
	char why[448];
	uint64_t share;

	(void)state;
	o[0].twice = CONCURRENCY_MIN_TWICE - 1;
	assert_false(concurrency_decide(o, 2, 1000, why, sizeof(why), &share));
	o[1].twice = 1;
	assert_true(concurrency_decide(o, 2, 1000, why, sizeof(why), &share));
}

static void test_one_cpu(void **state)
{
	char why[448], small[16];
	uint64_t share = 5;

	(void)state;
	assert_false(
		concurrency_decide(NULL, 0, 1000, why, sizeof(why), &share));
	assert_int_equal(share, 0);
	assert_string_equal(why, "only one cpu online: nothing runs beside "
				 "cpu 0");
	/* cut to its buffer, never past it */
	assert_false(concurrency_decide(turns, 4, 1000, small, sizeof(small),
					&share));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turns),
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_one_pair_apart),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_one_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
