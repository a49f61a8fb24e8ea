// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/reclaim_counts.h: the negative control's record is
 * the sum of its passes, every count of it, so that its lost writes are
 * never set against one pass's pages and IPIs.
 */
#include "unit.h"
#include "bench/reclaim_counts.h"

static const struct rc_counts pass1 = {.pages = 64,
				       .flushes = 1,
				       .icr = 3,
				       .irqs = 3,
				       .cycles = 1000,
				       .ticks = 10,
				       .lost = 2,
				       .refused = 0};
static const struct rc_counts pass2 = {.pages = 64,
				       .flushes = 1,
				       .icr = 3,
				       .irqs = 4,
				       .cycles = 1500,
				       .ticks = 5,
				       .lost = 1,
				       .refused = 1};

/* Two passes: every field is theirs together, none the last pass's. */
static void test_passes_sum(void **state)
{
	struct rc_counts sum = {0};

	(void)state;
	rc_counts_add(&sum, &pass1);
	rc_counts_add(&sum, &pass2);
	assert_int_equal(sum.pages, 128);
	assert_int_equal(sum.flushes, 2);
	assert_int_equal(sum.icr, 6);
	assert_int_equal(sum.irqs, 7);
	assert_int_equal(sum.cycles, 2500);
	assert_int_equal(sum.ticks, 15);
	assert_int_equal(sum.lost, 3);
	assert_int_equal(sum.refused, 1);
}

/* One pass: the record is that pass, as before there were several. */
static void test_one_pass(void **state)
{
	struct rc_counts sum = {0};

	(void)state;
	rc_counts_add(&sum, &pass1);
	assert_memory_equal(&sum, &pass1, sizeof(sum));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes_sum),
		cmocka_unit_test(test_one_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
