// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/tsc_handshake.h: a TSC-handshake responder answers
 * only its own rounds, waits only while its own handshake has not moved
 * on, and quits on anything else, so that one the boot CPU gave up on
 * cannot answer (and corrupt) the next CPU's handshake.
 */
#include "unit.h"
#include "smp/tsc_handshake.h"

static void test_tags_are_distinct(void **state)
{
	(void)state;
	for (unsigned cpu = 0; cpu < 1024; cpu += 7) {
		for (uint32_t k = 1; k <= TSC_HS_ROUNDS; k++) {
			uint32_t t = tsc_hs_tag(cpu, k);

			assert_int_not_equal(t, TSC_HS_IDLE);
			assert_int_not_equal(t, TSC_HS_ABORT);
			assert_int_equal(t >> 8, cpu);
			assert_int_equal(t & 0xff, k);
		}
	}
	assert_int_not_equal(tsc_hs_tag(1, 2), tsc_hs_tag(2, 1));
}

/* The normal course of one CPU's handshake. */
static void test_own_rounds(void **state)
{
	(void)state;
	assert_int_equal(tsc_hs_responder(TSC_HS_IDLE, 3, 1), TSC_HS_WAIT);
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(3, 1), 3, 1),
			 TSC_HS_ANSWER);
	/* Answered round 1; the boot CPU has not posted round 2 yet. */
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(3, 1), 3, 2), TSC_HS_WAIT);
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(3, 2), 3, 2),
			 TSC_HS_ANSWER);
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(3, TSC_HS_ROUNDS), 3,
					  TSC_HS_ROUNDS),
			 TSC_HS_ANSWER);
}

/*
 * The regression: cpu 1 stopped answering in round 5 and the boot CPU
 * moved on to cpu 2. The old responder waited for the bare round number
 * and answered cpu 2's round 5 when it came; now it quits as soon as it
 * sees the abort or anything of cpu 2's, and never answers.
 */
static void test_left_behind_responder_quits(void **state)
{
	uint32_t seen[3 + TSC_HS_ROUNDS];
	unsigned n = 0;

	(void)state;
	seen[n++] = TSC_HS_ABORT;
	seen[n++] = TSC_HS_IDLE;
	for (uint32_t k = 1; k <= TSC_HS_ROUNDS; k++)
		seen[n++] = tsc_hs_tag(2, k);
	for (unsigned i = 0; i < n; i++)
		assert_int_not_equal(tsc_hs_responder(seen[i], 1, 5),
				     TSC_HS_ANSWER);
	assert_int_equal(tsc_hs_responder(TSC_HS_ABORT, 1, 5), TSC_HS_QUIT);
	for (uint32_t k = 1; k <= TSC_HS_ROUNDS; k++)
		assert_int_equal(tsc_hs_responder(tsc_hs_tag(2, k), 1, 5),
				 TSC_HS_QUIT);
	/* It only waits through the reset between two CPUs. */
	assert_int_equal(tsc_hs_responder(TSC_HS_IDLE, 1, 5), TSC_HS_WAIT);
}

/* Rounds of its own it is not waiting for: the handshake is broken. */
static void test_other_own_rounds_quit(void **state)
{
	(void)state;
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(4, 7), 4, 5), TSC_HS_QUIT);
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(4, 3), 4, 5), TSC_HS_QUIT);
	/* Round 1 has no "previous round" to wait through. */
	assert_int_equal(tsc_hs_responder(tsc_hs_tag(4, 0), 4, 1), TSC_HS_QUIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tags_are_distinct),
		cmocka_unit_test(test_own_rounds),
		cmocka_unit_test(test_left_behind_responder_quits),
		cmocka_unit_test(test_other_own_rounds_quit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
