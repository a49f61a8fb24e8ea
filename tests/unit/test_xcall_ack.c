// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/xcall_ack.h: a wait ends only on the acknowledgement
 * of its own request, so that a late answer to a request whose wait had
 * ended (selftest=slow-ap) is never taken for a later one; and a CPU is
 * taken out of the run only when it misses a wait while it still owes
 * the request of an earlier miss (selftest=hang-ap).
 */
#include "unit.h"
#include "smp/xcall_ack.h"

/* A slow CPU answers request 7 while the initiator waits for 8. */
static void test_late_answer_is_not_a_later_one(void **state)
{
	(void)state;
	assert_true(xcall_answered(7, 7));
	assert_false(xcall_answered(7, 8));
	assert_false(xcall_answered(6, 8));
	assert_true(xcall_owed_answered(7, 7));
	assert_true(xcall_answered(8, 8));
	assert_true(xcall_owed_answered(8, 7));
}

static void test_owed_wraps(void **state)
{
	(void)state;
	assert_false(xcall_owed_answered(0xfffffffeu, 0xffffffffu));
	assert_true(xcall_owed_answered(0xffffffffu, 0xffffffffu));
	assert_true(xcall_owed_answered(0, 0xffffffffu));
	assert_true(xcall_owed_answered(3, 0xfffffffeu));
	assert_false(xcall_answered(0xffffffffu, 0));
}

static void test_miss_rule(void **state)
{
	(void)state;
	/* Nothing owed: only slow, so far. */
	assert_int_equal(xcall_classify_miss(false, 6, 0), XCALL_MISS_FIRST);
	assert_int_equal(xcall_classify_miss(false, 6, 7), XCALL_MISS_FIRST);
	/* Owes 7 and has not answered it: taken out. */
	assert_int_equal(xcall_classify_miss(true, 6, 7), XCALL_MISS_AGAIN);
	/* Answered 7 late, then missed 8: a new first miss. */
	assert_int_equal(xcall_classify_miss(true, 7, 7), XCALL_MISS_FIRST);
	assert_int_equal(xcall_classify_miss(true, 0, 0xffffffffu),
			 XCALL_MISS_FIRST);
	assert_int_equal(xcall_classify_miss(true, 0xfffffffeu, 0xffffffffu),
			 XCALL_MISS_AGAIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_answer_is_not_a_later_one),
		cmocka_unit_test(test_owed_wraps),
		cmocka_unit_test(test_miss_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
