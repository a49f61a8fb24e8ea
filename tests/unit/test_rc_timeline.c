// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/rc_timeline.h: cumulative snapshots into bins, the
 * record's encoding (every count comes back), and the loss with its
 * interval on synthetic timelines: a known dip, none, a worker that stops.
 */
#include "unit.h"
#include <math.h>
#include "bench/rc_timeline.h"

static void test_bins(void **state)
{
	const uint64_t cum[] = {0, 10, 20, 35, 40, 50};
	uint64_t out[8];

	(void)state;
	/* from the start: [0..2], [2..4]; the last edge left over */
	assert_int_equal(rc_tl_bins(cum, 5, 2, false, 8, out), 2);
	assert_int_equal(out[0], 20);
	assert_int_equal(out[1], 20);
	/* from the end: [1..3], [3..5], so the last ends at cum[5] */
	assert_int_equal(rc_tl_bins(cum, 5, 2, true, 8, out), 2);
	assert_int_equal(out[0], 25);
	assert_int_equal(out[1], 15);
	/* at most max: the ones nearest the end */
	assert_int_equal(rc_tl_bins(cum, 5, 1, true, 2, out), 2);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 10);
	assert_int_equal(rc_tl_bins(cum, 5, 1, false, 2, out), 2);
	assert_int_equal(out[0], 10);
	assert_int_equal(out[1], 10);
	/* a width wider than the window: no bin */
	assert_int_equal(rc_tl_bins(cum, 5, 6, false, 8, out), 0);
}

/* Halving keeps every other snapshot: the bins' sums stay exact. */
static void test_halve(void **state)
{
	uint64_t cum[] = {0, 3, 7, 8, 12};

	(void)state;
	assert_int_equal(rc_tl_halve(cum, 4), 2);
	assert_int_equal(cum[0], 0);
	assert_int_equal(cum[1], 7);
	assert_int_equal(cum[2], 12);
}

static void round_trip(const uint64_t *v, size_t n)
{
	char s[1024];
	uint64_t back[64];
	size_t len = rc_tl_encode(v, n, s, sizeof(s));

	assert_true(len > 0 || n == 0);
	assert_int_equal(strlen(s), len);
	assert_printable(s, sizeof(s));
	assert_int_equal(rc_tl_decode(s, back, 64), (long)n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(back[i], v[i]);
}

static void test_encoding_round_trip(void **state)
{
	const uint64_t steady[] = {100, 101, 99, 100, 100, 98, 102};
	const uint64_t wild[] = {0, 31,	      32,	 1023, 1024,
				 0, 1u << 20, 7,	 0,    1ull << 40,
				 3, 3,	      INT64_MAX, 0,    12345};

	(void)state;
	round_trip(steady, ARRAY_SIZE(steady));
	round_trip(wild, ARRAY_SIZE(wild));
	round_trip(NULL, 0);
}

/* Zero to 31 apart is one character a bin: the budget rests on it. */
static void test_encoding_size(void **state)
{
	const uint64_t steady[] = {0, 5, 10, 15, 15, 0};
	char s[64];

	(void)state;
	assert_int_equal(rc_tl_encode(steady, ARRAY_SIZE(steady), s, sizeof(s)),
			 6);
	assert_string_equal(s, "0AAA0T"); /* +5 +5 +5 0 -15 (zigzag 29) */
	/* no room: 0 and an empty string, never a cut encoding */
	assert_int_equal(rc_tl_encode(steady, ARRAY_SIZE(steady), s, 6), 0);
	assert_string_equal(s, "");
}

static void test_decode_rejects(void **state)
{
	uint64_t v[4];

	(void)state;
	assert_int_equal(rc_tl_decode("!", v, 4), -1);	/* not the alphabet */
	assert_int_equal(rc_tl_decode("0W", v, 4), -1); /* cut short */
	assert_int_equal(rc_tl_decode("1", v, 4), -1);	/* below 0 */
	assert_int_equal(rc_tl_decode("00000", v, 4), -1); /* too many */
	assert_int_equal(rc_tl_decode("", v, 4), 0);
}

/* Every bin 1 ms long, unless a test says otherwise. */
static const uint64_t ms[64] = {[0 ... 63] = 1000};

/* 100 +/- 5 bins before, half as many during: 50% with a tight interval */
static void test_loss_known_dip(void **state)
{
	uint64_t before[20], during[40];
	struct rc_tl_loss l;

	(void)state;
	for (int i = 0; i < 20; i++)
		before[i] = 1000 + (i % 2 ? 50 : -50);
	for (int i = 0; i < 40; i++)
		during[i] = 500 + (i % 2 ? 25 : -25);
	l = rc_tl_loss(before, ms, 20, during, ms, 40);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 5000);
	/*
	 * sd(before) 51.3, sd(during) 25.3: se of the ratio
	 * sqrt(25.3^2/40/1000^2 + 0.25 * 51.3^2/20/1000^2) = 0.0068, times
	 * t(19) 2.093 = 1.42%.
	 */
	assert_in_range(l.half_x100, 135, 150);
}

static void test_loss_no_dip(void **state)
{
	uint64_t b[10], d[10];
	struct rc_tl_loss l;

	(void)state;
	for (int i = 0; i < 10; i++)
		b[i] = d[i] = 1000 + 10 * (i % 3);
	l = rc_tl_loss(b, ms, 10, d, ms, 10);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 0);
	assert_true(l.half_x100 > 0 && l.half_x100 < 200);
	/* all equal: no spread, an interval of 0 */
	for (int i = 0; i < 10; i++)
		b[i] = d[i] = 7;
	l = rc_tl_loss(b, ms, 10, d, ms, 10);
	assert_int_equal(l.loss_x100, 0);
	assert_int_equal(l.half_x100, 0);
}

/* The worker stops: 100% lost, and only before's spread is left. */
static void test_loss_worker_stops(void **state)
{
	uint64_t b[] = {90, 110, 100, 100}, d[] = {0, 0, 0, 0, 0};
	struct rc_tl_loss l;

	(void)state;
	l = rc_tl_loss(b, ms, 4, d, ms, 5);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 10000);
	assert_int_equal(l.half_x100, 0);
	/* It stops halfway: the spread of during widens the interval. */
	d[3] = d[4] = 0;
	d[0] = d[1] = d[2] = 100;
	l = rc_tl_loss(b, ms, 4, d, ms, 5);
	assert_int_equal(l.loss_x100, 4000);
	assert_true(l.half_x100 > 4000); /* t(3) 3.18 x se 0.24 */
}

/*
 * Bins of uneven length (snapshots come late by up to a flush unit): the
 * rate is counts over time, so a steady worker shows no loss and no
 * spread however the bins fall.
 */
static void test_loss_uneven_bins(void **state)
{
	uint64_t bc[] = {100, 100, 100}, bt[] = {1000, 1000, 1000};
	uint64_t dc[] = {50, 250, 0, 100}, dt[] = {500, 2500, 0, 1000};
	struct rc_tl_loss l;

	(void)state;
	l = rc_tl_loss(bc, bt, 3, dc, dt, 4);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 0);
	assert_int_equal(l.half_x100, 0);
	/* Half the rate in a long bin: the loss is weighted by time. */
	dc[1] = 125;
	l = rc_tl_loss(bc, bt, 3, dc, dt, 4);
	/* (50 + 125 + 100) / 4000 us against 0.1 a us: 31.25% */
	assert_int_equal(l.loss_x100, 3125);
	assert_true(l.half_x100 > 0);
}

static void test_loss_invalid(void **state)
{
	uint64_t b[] = {5, 5}, z[] = {0, 0};

	(void)state;
	assert_false(rc_tl_loss(b, ms, 1, b, ms, 2).valid); /* one bin */
	assert_false(rc_tl_loss(b, ms, 2, b, ms, 1).valid);
	assert_false(rc_tl_loss(z, ms, 2, b, ms, 2).valid); /* none before */
	/* a bin no snapshot closed does not count as one */
	assert_false(rc_tl_loss(b, ms, 2, b, z, 2).valid);
}

static void test_t_table(void **state)
{
	(void)state;
	assert_int_equal(rc_tl_t975_x1000(0), 0);
	assert_int_equal(rc_tl_t975_x1000(1), 12706);
	assert_int_equal(rc_tl_t975_x1000(30), 2042);
	assert_int_equal(rc_tl_t975_x1000(1000), 1960);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bins),
		cmocka_unit_test(test_halve),
		cmocka_unit_test(test_encoding_round_trip),
		cmocka_unit_test(test_encoding_size),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_loss_known_dip),
		cmocka_unit_test(test_loss_no_dip),
		cmocka_unit_test(test_loss_worker_stops),
		cmocka_unit_test(test_loss_uneven_bins),
		cmocka_unit_test(test_loss_invalid),
		cmocka_unit_test(test_t_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
