// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/tsc_estimate.c: the window arithmetic and the
 * cycles-to-nanoseconds conversion (against 128-bit references), medians,
 * which source is chosen, and the agreement rule at and around its limit.
 */
#include <stdlib.h>
#include "unit.h"
#include "kernel/tsc_estimate.h"

typedef unsigned __int128 u128;

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(tsc_src_name(TSC_SRC_HPET), "hpet");
	assert_string_equal(tsc_src_name(TSC_SRC_PMTIMER), "pmtimer");
	assert_string_equal(tsc_src_name(TSC_SRC_PIT), "pit");
	assert_string_equal(tsc_src_name(TSC_SRC_CPUID_15H), "cpuid-15h");
	assert_string_equal(tsc_src_name(TSC_SRC_HYPERVISOR), "hypervisor");
	assert_string_equal(tsc_src_name(TSC_SRC_CPUID_16H), "cpuid-16h");
	assert_string_equal(tsc_src_name(TSC_SRCS), "none");
	assert_string_equal(tsc_src_name((enum tsc_src) - 1), "none");
	for (int s = 0; s < TSC_SRCS; s++)
		assert_int_equal(tsc_src_measured((enum tsc_src)s),
				 s <= TSC_SRC_PIT);
}

static void test_ticks_to_ns(void **state)
{
	(void)state;
	/* The PIT window of kernel/tsc.c, a PM timer second, HPETs. */
	assert_int_equal(tsc_ticks_to_ns_hz(59659, 1193182), 49999916);
	assert_int_equal(tsc_ticks_to_ns_hz(3579545, 3579545), 1000000000);
	assert_int_equal(tsc_ticks_to_ns_hz(0xffffffffull, 3579545),
			 1199864031601ull);
	assert_int_equal(tsc_ticks_to_ns_fs(5000000, 10000000), 50000000);
	assert_int_equal(tsc_ticks_to_ns_fs(14318180, 69841279), 1000000004);
	assert_int_equal(tsc_ticks_to_ns_hz(5, 0), 0);
	assert_int_equal(tsc_ticks_to_ns_fs(5, 0), 0);
	assert_int_equal(tsc_ticks_to_ns_hz(0, 1193182), 0);
	/* Too big to fit: saturates instead of wrapping. */
	assert_true(tsc_ticks_to_ns_fs(UINT64_MAX, 100000000) == UINT64_MAX);
	assert_true(tsc_ticks_to_ns_hz(UINT64_MAX, 1) == UINT64_MAX);
}

static void test_khz_from(void **state)
{
	(void)state;
	assert_int_equal(tsc_khz_from(129806600, 50000000), 2596132);
	assert_int_equal(tsc_khz_from(1000, 1000), 1000000);
	assert_int_equal(tsc_khz_from(1000, 0), 0);
	assert_int_equal(tsc_khz_from(1000, UINT64_MAX), 0);
	assert_int_equal(tsc_khz_from(UINT64_MAX, 1), 0);
	/* A 50 ms window at 20 GHz, and a whole day at 5 GHz. */
	assert_int_equal(tsc_khz_from(1000000000ull, 50000000), 20000000);
	assert_int_equal(tsc_khz_from(432000000000000ull, 86400000000000ull),
			 5000000);
}

/* Random windows against the exact 128-bit arithmetic. */
static void test_random_against_reference(void **state)
{
	(void)state;
	srand(12345);
	for (int i = 0; i < 200000; i++) {
		uint64_t ticks = ((uint64_t)rand() << 31 | (uint64_t)rand()) %
				 (1ull << (rand() % 40 + 1));
		uint64_t hz = (uint64_t)rand() % 1000000000ull + 1;
		uint64_t fs = (uint64_t)rand() % 100000000ull + 1;
		uint64_t cycles = ((uint64_t)rand() << 31 | (uint64_t)rand()) %
				  (1ull << (rand() % 45 + 1));
		uint64_t ns =
			(uint64_t)rand() % (1ull << (rand() % 40 + 1)) + 1;
		u128 want;

		want = (u128)ticks * 1000000000u / hz;
		assert_true(tsc_ticks_to_ns_hz(ticks, hz) ==
			    (want > UINT64_MAX ? UINT64_MAX : (uint64_t)want));
		want = (u128)ticks * fs / 1000000u;
		assert_true(tsc_ticks_to_ns_fs(ticks, fs) ==
			    (want > UINT64_MAX ? UINT64_MAX : (uint64_t)want));
		want = (u128)cycles * 1000000u / ns;
		assert_true(tsc_khz_from(cycles, ns) ==
			    (want >= UINT64_MAX ? 0 : (uint64_t)want));
	}
}

static void test_cycles_to_ns(void **state)
{
	(void)state;
	assert_int_equal(cycles_to_ns(12345, 0), 0);
	assert_int_equal(cycles_to_ns(0, 3000000), 0);
	assert_int_equal(cycles_to_ns(3000, 3000000), 1000); /* 3 GHz */
	assert_int_equal(cycles_to_ns(1, 3000000), 0);	     /* 0.33 */
	assert_int_equal(cycles_to_ns(2, 3000000), 1);	     /* 0.67 */
	assert_int_equal(cycles_to_ns(3, 2000000), 2);	     /* 1.5 up */
	assert_int_equal(cycles_to_ns(2445, 2445000), 1000);
	assert_int_equal(cycles_to_ns(1, 1), 1000000);
	/* Results past 2^64 saturate instead of wrapping. */
	assert_true(cycles_to_ns(UINT64_MAX, 1) == UINT64_MAX);
	assert_true(cycles_to_ns(UINT64_MAX, 999999) == UINT64_MAX);
	assert_true(cycles_to_ns(UINT64_MAX, 1000000) == UINT64_MAX);
	/* (2^64 - 1) / 2 = 2^63 - 0.5: rounds up. */
	assert_true(cycles_to_ns(UINT64_MAX, 2000000) == 1ull << 63);
	assert_int_equal(cycles_to_ns(UINT64_MAX, UINT64_MAX), 1000000);
	assert_int_equal(cycles_to_ns(UINT64_MAX / 2, UINT64_MAX), 500000);
	/* Against the exact 128-bit arithmetic, both division paths. */
	srand(54321);
	for (int i = 0; i < 100000; i++) {
		uint64_t c = ((uint64_t)rand() << 31 | (uint64_t)rand())
			     << (i % 40);
		uint64_t k = (uint64_t)rand() % 5000000 + 1;
		u128 want = ((u128)c * 1000000 + k / 2) / k;

		assert_true(cycles_to_ns(c, k) ==
			    (want > UINT64_MAX ? UINT64_MAX : (uint64_t)want));
	}
}

static void test_medians(void **state)
{
	uint64_t a[] = {3, 1, 2}, b[] = {4, 1, 3, 2}, c[] = {0, 5, 0, 7, 6};
	uint64_t d[] = {0, 0}, e[] = {9, 0}, f[] = {0, 8, 0, 0};
	uint64_t g[] = {0, 0, 3};

	(void)state;
	assert_int_equal(tsc_median(a, 3), 2);
	assert_int_equal(tsc_median(b, 4), 2);
	assert_int_equal(tsc_median(a, 0), 0);
	assert_int_equal(tsc_median(g, 3), 0);
	assert_int_equal(tsc_median_nonzero(c, 5), 6);
	assert_int_equal(tsc_median_nonzero(d, 2), 0);
	assert_int_equal(tsc_median_nonzero(e, 2), 9);
	assert_int_equal(tsc_median_nonzero(f, 4), 8);
	assert_int_equal(tsc_median_nonzero(d, 0), 0);
}

static void test_min_nonzero(void **state)
{
	const uint64_t a[] = {0, 7, 3, 0, 9}, b[] = {0, 0};

	(void)state;
	assert_int_equal(tsc_min_nonzero(a, 5), 3);
	assert_int_equal(tsc_min_nonzero(b, 2), 0);
	assert_int_equal(tsc_min_nonzero(a, 0), 0);
}

static void test_choose(void **state)
{
	uint64_t k[TSC_SRCS] = {0};

	(void)state;
	assert_int_equal(tsc_choose(k), -1);
	k[TSC_SRC_CPUID_16H] = 2600000;
	assert_int_equal(tsc_choose(k), TSC_SRC_CPUID_16H);
	k[TSC_SRC_HYPERVISOR] = 2596000;
	assert_int_equal(tsc_choose(k), TSC_SRC_HYPERVISOR);
	k[TSC_SRC_CPUID_15H] = 2595000;
	assert_int_equal(tsc_choose(k), TSC_SRC_CPUID_15H);
	/* Measured beats declared, however coarse the clock. */
	k[TSC_SRC_PIT] = 2596500;
	assert_int_equal(tsc_choose(k), TSC_SRC_PIT);
	k[TSC_SRC_PMTIMER] = 2596100;
	assert_int_equal(tsc_choose(k), TSC_SRC_PMTIMER);
	k[TSC_SRC_HPET] = 2596132;
	assert_int_equal(tsc_choose(k), TSC_SRC_HPET);
	/* An implausible estimate is passed over, not chosen. */
	k[TSC_SRC_HPET] = 50000000;
	assert_int_equal(tsc_choose(k), TSC_SRC_PMTIMER);
	k[TSC_SRC_PMTIMER] = TSC_KHZ_MIN - 1;
	assert_int_equal(tsc_choose(k), TSC_SRC_PIT);
	k[TSC_SRC_PIT] = TSC_KHZ_MAX + 1;
	assert_int_equal(tsc_choose(k), TSC_SRC_CPUID_15H);
	k[TSC_SRC_CPUID_15H] = TSC_KHZ_MAX;
	assert_int_equal(tsc_choose(k), TSC_SRC_CPUID_15H);
}

static void test_ppm_apart(void **state)
{
	(void)state;
	assert_int_equal(tsc_ppm_apart(2000000, 2010000), 5000);
	assert_int_equal(tsc_ppm_apart(2000000, 1990000), 5000);
	assert_int_equal(tsc_ppm_apart(2000000, 2000000), 0);
	assert_int_equal(tsc_ppm_apart(1, 3), 2000000);
	assert_int_equal(tsc_ppm_apart(3, 4), 333334);
	assert_int_equal(tsc_ppm_apart(2596132, 2596133), 1);
	assert_int_equal(tsc_ppm_apart(1ull << 41, 1ull << 42), 1000001);
	assert_true(tsc_ppm_apart(0, 5) == UINT64_MAX);
	assert_true(tsc_ppm_apart(1, UINT64_MAX) == UINT64_MAX);
}

static void test_agreement(void **state)
{
	uint64_t k[TSC_SRCS] = {0};
	struct tsc_agreement a;

	(void)state;
	tsc_agreement(k, -1, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_NONE);
	assert_int_equal(a.chosen, -1);
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_NONE);
	tsc_agreement(k, TSC_SRCS, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_NONE);

	k[TSC_SRC_PIT] = 2000000;
	tsc_agreement(k, TSC_SRC_PIT, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_ALONE);
	assert_int_equal(a.chosen, TSC_SRC_PIT);
	assert_int_equal(a.others, 0);
	assert_int_equal(a.worst, -1);

	/* Exactly at the limit agrees; one kHz more does not. */
	k[TSC_SRC_HPET] = 2000000;
	k[TSC_SRC_PMTIMER] = 2010000;
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_AGREE);
	assert_int_equal(a.others, 2);
	assert_int_equal(a.worst, TSC_SRC_PMTIMER);
	assert_int_equal(a.worst_ppm, 5000);
	k[TSC_SRC_PMTIMER] = 2010001;
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_DISAGREE);
	assert_int_equal(a.worst, TSC_SRC_PMTIMER);
	assert_int_equal(a.worst_ppm, 5001); /* 5000.5, rounded up */
	k[TSC_SRC_PMTIMER] = 1989999;
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_DISAGREE);
	k[TSC_SRC_PMTIMER] = 1990000;
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_AGREE);

	/* The furthest one is named, below or above. */
	k[TSC_SRC_PMTIMER] = 2000100;
	k[TSC_SRC_CPUID_16H] = 1900000;
	k[TSC_SRC_HYPERVISOR] = 2050000;
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_DISAGREE);
	assert_int_equal(a.others, 4);
	assert_int_equal(a.worst, TSC_SRC_CPUID_16H);
	assert_int_equal(a.worst_ppm, 50000);

	/* An implausible estimate is still compared (and disagrees). */
	k[TSC_SRC_CPUID_16H] = 0;
	k[TSC_SRC_HYPERVISOR] = 0;
	k[TSC_SRC_CPUID_15H] = 0xffffffffull;
	tsc_agreement(k, TSC_SRC_HPET, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_DISAGREE);
	assert_int_equal(a.worst, TSC_SRC_CPUID_15H);

	/* Whatever was chosen is the reference, even a late one. */
	k[TSC_SRC_CPUID_15H] = 2000000;
	tsc_agreement(k, TSC_SRC_CPUID_15H, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_AGREE);
	assert_int_equal(a.chosen, TSC_SRC_CPUID_15H);
	assert_int_equal(a.worst, TSC_SRC_PMTIMER);
	assert_int_equal(a.worst_ppm, 50);
}

/* Choice and agreement together, as kernel/tsc.c and check_tsc use them. */
static void test_choose_then_agree(void **state)
{
	uint64_t k[TSC_SRCS] = {0};
	struct tsc_agreement a;

	(void)state;
	k[TSC_SRC_HPET] = 25000000; /* implausible: passed over */
	k[TSC_SRC_PMTIMER] = 2596100;
	k[TSC_SRC_PIT] = 2596400;
	tsc_agreement(k, tsc_choose(k), TSC_AGREE_PPM, &a);
	assert_int_equal(a.chosen, TSC_SRC_PMTIMER);
	assert_int_equal(a.verdict, TSC_DISAGREE);
	assert_int_equal(a.worst, TSC_SRC_HPET);

	k[TSC_SRC_HPET] = 0;
	tsc_agreement(k, tsc_choose(k), TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_AGREE);
	assert_int_equal(a.worst, TSC_SRC_PIT);
	assert_int_equal(a.worst_ppm, 116);
}

/* selftest=tsc-skew: one other estimate, measured first, 2% up. */
static void test_skew(void **state)
{
	uint64_t k[TSC_SRCS] = {0}, was[TSC_SRCS];
	struct tsc_agreement a;
	int chosen;

	(void)state;
	k[TSC_SRC_HPET] = 2596132;
	k[TSC_SRC_PMTIMER] = 2596133;
	k[TSC_SRC_PIT] = 2596140;
	k[TSC_SRC_HYPERVISOR] = 2596000;
	chosen = tsc_choose(k);
	memcpy(was, k, sizeof(k));
	assert_int_equal(tsc_skew(k, chosen, TSC_SKEW_PPM), TSC_SRC_PMTIMER);
	assert_true(k[TSC_SRC_PMTIMER] == 2596133 + 51922);
	assert_true(k[TSC_SRC_HPET] == was[TSC_SRC_HPET]);
	assert_true(k[TSC_SRC_PIT] == was[TSC_SRC_PIT]);
	tsc_agreement(k, chosen, TSC_AGREE_PPM, &a);
	assert_int_equal(a.verdict, TSC_DISAGREE);
	assert_int_equal(a.chosen, TSC_SRC_HPET);
	assert_int_equal(a.worst, TSC_SRC_PMTIMER);
	assert_in_range(a.worst_ppm, 19990, 20010);

	/* The chosen one is never moved; a measured one before declared. */
	memset(k, 0, sizeof(k));
	k[TSC_SRC_PMTIMER] = 3000000;
	k[TSC_SRC_CPUID_15H] = 3000000;
	k[TSC_SRC_CPUID_16H] = 3000000;
	assert_int_equal(tsc_skew(k, TSC_SRC_PMTIMER, TSC_SKEW_PPM),
			 TSC_SRC_CPUID_15H);
	assert_true(k[TSC_SRC_CPUID_15H] == 3060000);
	assert_true(k[TSC_SRC_PMTIMER] == 3000000);
	k[TSC_SRC_PIT] = 3000000;
	assert_int_equal(tsc_skew(k, TSC_SRC_CPUID_15H, TSC_SKEW_PPM),
			 TSC_SRC_PMTIMER);

	/* Nothing to skew: alone, or no valid chosen estimate. */
	memset(k, 0, sizeof(k));
	k[TSC_SRC_PMTIMER] = 3000000;
	assert_int_equal(tsc_skew(k, TSC_SRC_PMTIMER, TSC_SKEW_PPM), -1);
	assert_true(k[TSC_SRC_PMTIMER] == 3000000);
	assert_int_equal(tsc_skew(k, -1, TSC_SKEW_PPM), -1);
	assert_int_equal(tsc_skew(k, TSC_SRCS, TSC_SKEW_PPM), -1);
	assert_int_equal(tsc_skew(k, TSC_SRC_HPET, TSC_SKEW_PPM), -1);

	/* An absurd estimate saturates instead of wrapping. */
	k[TSC_SRC_PIT] = UINT64_MAX - 1;
	assert_int_equal(tsc_skew(k, TSC_SRC_PMTIMER, TSC_SKEW_PPM),
			 TSC_SRC_PIT);
	assert_true(k[TSC_SRC_PIT] == UINT64_MAX);
}

/* A 50 ms window that ran 58 ms: the PIT counted 3.1 ms (it wrapped). */
static void test_pit_wrapped(void **state)
{
	const uint64_t wrap = 54925000; /* 65536 ticks at 1.193182 MHz */

	(void)state;
	assert_true(tsc_pit_wrapped(3075000, 58000000, wrap));
	assert_false(tsc_pit_wrapped(50000000, 50001000, wrap));
	assert_false(tsc_pit_wrapped(50001000, 50000000, wrap));
	/* just under half a wrap apart: still the same count */
	assert_false(tsc_pit_wrapped(10000000, 10000000 + wrap / 2 - 1, wrap));
	assert_true(tsc_pit_wrapped(10000000, 10000000 + wrap / 2, wrap));
	/* two wraps lost: far apart */
	assert_true(tsc_pit_wrapped(1000000, 1000000 + 2 * wrap, wrap));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ticks_to_ns),
		cmocka_unit_test(test_khz_from),
		cmocka_unit_test(test_cycles_to_ns),
		cmocka_unit_test(test_pit_wrapped),
		cmocka_unit_test(test_random_against_reference),
		cmocka_unit_test(test_medians),
		cmocka_unit_test(test_min_nonzero),
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_ppm_apart),
		cmocka_unit_test(test_agreement),
		cmocka_unit_test(test_choose_then_agree),
		cmocka_unit_test(test_skew),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
