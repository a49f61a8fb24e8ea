// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/rc_timeline.h: cumulative snapshots into bins, the
 * record's encoding (every count comes back), and the loss with its
 * interval on synthetic timelines: a known dip, none, a worker that stops.
 */
#include "unit.h"
#include <math.h>
#include "bench/rc_timeline.h"

/*
 * The encoding's inverse, the oracle of the encoder (the host reads the
 * records with tools/timeline_codec.py): up to max counts into v; how
 * many, or -1 if s is not well formed (a character outside the alphabet, a
 * value cut short, a count below 0).
 */
static int digit(char c)
{
	static const char abc[] = RC_TL_ALPHABET;

	for (int i = 0; i < 64; i++)
		if (abc[i] == c)
			return i;
	return -1;
}

static long rc_tl_decode(const char *s, uint64_t *v, size_t max)
{
	uint64_t prev = 0;
	size_t n = 0;

	while (*s) {
		uint64_t z = 0;
		unsigned shift = 0;
		int c;

		do {
			c = digit(*s);
			if (c < 0 || shift > 60)
				return -1;
			z |= (uint64_t)(c & 31) << shift;
			shift += 5;
			s++;
		} while ((c & 32) && *s);
		if (c & 32)
			return -1; /* cut short */
		prev += (z >> 1) ^ (0 - (z & 1));
		if ((int64_t)prev < 0 || n == max)
			return -1;
		v[n++] = prev;
	}
	return (long)n;
}

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
static const uint64_t ms[256] = {[0 ... 255] = 1000};

/* A small deterministic generator: the tests repeat exactly. */
static uint64_t rng_state = 88172645463325252ull;

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / (double)(1ull << 53);
}

/* Roughly normal, mean 0, sd 1 (sum of 12 uniforms). */
static double gauss(void)
{
	double s = 0;

	for (int i = 0; i < 12; i++)
		s += uniform();
	return s - 6;
}

/*
 * n bins of mean m around an AR(1) series of lag-1 correlation rho and
 * sd sd: what a worker slowed for several bins at a time looks like.
 */
static void ar1(uint64_t *v, size_t n, double m, double sd, double rho)
{
	double x = gauss() * sd;

	for (size_t i = 0; i < n; i++) {
		x = rho * x + sqrt(1 - rho * rho) * sd * gauss();
		v[i] = (uint64_t)llround(m + x > 0 ? m + x : 0);
	}
}

/* 1000 +/- 50 bins before, half as many during: 50% and a tight interval */
static void test_loss_known_dip(void **state)
{
	uint64_t before[100], during[100];
	struct rc_tl_loss l;

	(void)state;
	ar1(before, 100, 1000, 50, 0);
	ar1(during, 100, 500, 25, 0);
	l = rc_tl_loss(before, ms, 100, during, ms, 100);
	assert_true(l.valid);
	assert_in_range(l.loss_x100, 4900, 5100);
	assert_int_equal(l.block_bins[0], 10); /* floor(sqrt(100)) */
	assert_int_equal(l.blocks, 10);
	/*
	 * se of the ratio ~ 0.5 x sqrt(2 x 0.05^2 / 100) = 0.0035, t(9)
	 * 2.262: about 0.8%; the blocks' own spread makes it 0.4 to 1.5.
	 */
	assert_in_range(l.half_x100, 40, 150);
	assert_true(l.loss_x100 - (int64_t)l.half_x100 <= 5000 &&
		    l.loss_x100 + (int64_t)l.half_x100 >= 5000);
}

static void test_loss_no_dip(void **state)
{
	uint64_t b[27], d[27];
	struct rc_tl_loss l;

	(void)state;
	for (int i = 0; i < 27; i++)
		b[i] = d[i] = 1000 + 10 * (i % 3);
	l = rc_tl_loss(b, ms, 27, d, ms, 27);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 0);
	assert_true(l.half_x100 > 0 && l.half_x100 < 200);
	/* all equal: no spread, an interval of 0 */
	for (int i = 0; i < 27; i++)
		b[i] = d[i] = 7;
	l = rc_tl_loss(b, ms, 27, d, ms, 27);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 0);
	assert_int_equal(l.half_x100, 0);
}

/* The worker stops: 100% lost, and only before's spread is left. */
static void test_loss_worker_stops(void **state)
{
	uint64_t b[25], d[25] = {0};
	struct rc_tl_loss l;

	(void)state;
	ar1(b, 25, 100, 10, 0);
	l = rc_tl_loss(b, ms, 25, d, ms, 25);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 10000);
	assert_int_equal(l.half_x100, 0);
	/*
	 * It stops a fifth of the way in: one step, its bins as correlated
	 * as can be, so one event, not 25: the loss, but no interval.
	 */
	for (int i = 0; i < 5; i++)
		d[i] = 100;
	l = rc_tl_loss(b, ms, 25, d, ms, 25);
	assert_true(l.estimated);
	assert_in_range(l.loss_x100, 7800, 8200);
	assert_true(l.rho_x1000[1] > 500);
	assert_false(l.valid);
}

/*
 * Bins of uneven length (snapshots come late by up to a flush unit): the
 * rate is counts over time, so a steady worker shows no loss and no
 * spread however the bins fall.
 */
static void test_loss_uneven_bins(void **state)
{
	uint64_t bc[25], bt[25], dc[26], dt[26];
	struct rc_tl_loss l;

	(void)state;
	for (int i = 0; i < 25; i++) {
		bc[i] = 100;
		bt[i] = 1000;
		dt[i] = 500 * (1 + i % 4); /* 0.5 to 2 ms */
		dc[i] = dt[i] / 10;
	}
	dc[25] = dt[25] = 0; /* one no snapshot closed */
	l = rc_tl_loss(bc, bt, 25, dc, dt, 26);
	assert_true(l.valid);
	assert_int_equal(l.loss_x100, 0);
	assert_int_equal(l.half_x100, 0);
	/* Half the rate in the long bins: the loss is weighted by time. */
	for (int i = 3; i < 25; i += 4)
		dc[i] /= 2;
	l = rc_tl_loss(bc, bt, 25, dc, dt, 26);
	/* six 2 ms bins at half: 6 ms of 30.5 ms lose half, 19.67% */
	assert_in_range(l.loss_x100, 1966, 1968);
	assert_true(l.half_x100 > 0);
}

static void test_loss_invalid(void **state)
{
	uint64_t b[] = {5, 5}, z[] = {0, 0};

	(void)state;
	assert_false(rc_tl_loss(b, ms, 1, b, ms, 2).estimated); /* one bin */
	assert_false(rc_tl_loss(b, ms, 2, b, ms, 1).estimated);
	assert_false(rc_tl_loss(z, ms, 2, b, ms, 2).estimated); /* none */
	/* a bin no snapshot closed does not count as one */
	assert_false(rc_tl_loss(b, ms, 2, b, z, 2).estimated);
}

/*
 * Two bins a side (batch 512 of a short page-out): the loss, but no
 * interval: two bins cannot say how wide it is. The bin-level interval
 * gave one, t(1) 12.7 times a spread of two values.
 */
static void test_loss_two_bins_no_interval(void **state)
{
	uint64_t b[] = {1000, 1010}, d[] = {10, 12};
	struct rc_tl_loss l = rc_tl_loss(b, ms, 2, d, ms, 2);

	(void)state;
	assert_true(l.estimated);
	assert_false(l.valid);
	assert_int_equal(l.half_x100, 0);
	assert_in_range(l.loss_x100, 9890, 9892);
	assert_true(l.blocks < RC_TL_MIN_BLOCKS);
	/* 24 bins, 4 blocks of 6 at rho 0.7: none either */
	{
		uint64_t bb[24], dd[24];

		for (int i = 0; i < 24; i++)
			bb[i] = dd[i] = 1000 + 100 * (i / 6 % 2);
		l = rc_tl_loss(bb, ms, 24, dd, ms, 24);
		assert_true(l.estimated);
		assert_false(l.valid);
		assert_true(l.rho_x1000[0] > 500);
	}
}

static void test_block_len(void **state)
{
	(void)state;
	assert_int_equal(rc_tl_block_len(100, 0), 10);
	assert_int_equal(rc_tl_block_len(100, -900), 10);
	assert_int_equal(rc_tl_block_len(20, 0), 4);
	assert_int_equal(rc_tl_block_len(2, 0), 1);
	/* rho 0.84: tau 11.5, blocks of 12 beat sqrt's 10 */
	assert_int_equal(rc_tl_block_len(100, 840), 12);
	assert_int_equal(rc_tl_block_len(100, 500), 10);    /* tau 3 */
	assert_int_equal(rc_tl_effective_bins(20, 840), 1); /* the 1.7 */
	assert_int_equal(rc_tl_effective_bins(100, 0), 100);
	assert_int_equal(rc_tl_effective_bins(100, -500), 100);
	assert_int_equal(rc_tl_effective_bins(100, 600), 25);
}

/*
 * Autocorrelated bins (rho 0.8, as the timelines have up to 0.84): over
 * many synthetic passes of known loss the 95% interval must cover the
 * truth about 95% of the time. An interval over single bins treats 100
 * bins as 100 independent ones (there are some 11): it is a third as
 * wide as it should be and covers about half the time.
 */
static void test_loss_autocorrelated_coverage(void **state)
{
	uint64_t b[100], d[100];
	int covered = 0, trials = 400, with = 0;

	(void)state;
	for (int k = 0; k < trials; k++) {
		struct rc_tl_loss l;

		ar1(b, 100, 1000, 100, 0.8);
		ar1(d, 100, 400, 40, 0.8); /* 60% lost */
		l = rc_tl_loss(b, ms, 100, d, ms, 100);
		assert_true(l.estimated);
		if (!l.valid)
			continue;
		with++;
		covered += l.loss_x100 - (int64_t)l.half_x100 <= 6000 &&
			   l.loss_x100 + (int64_t)l.half_x100 >= 6000;
	}
	/* most passes keep their interval: 100 bins are enough */
	assert_true(with > trials * 9 / 10);
	/* 95% nominal; batch means on 10 blocks runs a little short */
	assert_true(covered * 100 >= with * 85);
}

static void test_t_table(void **state)
{
	(void)state;
	assert_int_equal(rc_tl_t975_x1000(0), 0);
	assert_int_equal(rc_tl_t975_x1000(1), 12706);
	assert_int_equal(rc_tl_t975_x1000(30), 2042);
	assert_int_equal(rc_tl_t975_x1000(1000), 1960);
}

/* The interval's rounding, shared by the harness and the Linux side. */
static void test_interval_rounding(void **state)
{
	struct rc_tl_loss d = {0};
	int64_t lo, hi;

	(void)state;
	/* 53.00% -/+ 4.50: outwards to whole percent, [48, 58] */
	rc_tl_interval(5300, 450, &lo, &hi);
	assert_int_equal(lo, 48);
	assert_int_equal(hi, 58);
	/* negative losses round outwards too: -2.50 -/+ 1 is [-4, -1] */
	rc_tl_interval(-250, 100, &lo, &hi);
	assert_int_equal(lo, -4);
	assert_int_equal(hi, -1);
	/* never above 100 */
	rc_tl_interval(9900, 500, &lo, &hi);
	assert_int_equal(hi, 100);
	assert_int_equal(rc_tl_round_pct(5350), 54);
	assert_int_equal(rc_tl_round_pct(5349), 53);
	assert_int_equal(rc_tl_round_pct(-251), -3);
	assert_string_equal(rc_tl_no_interval_why(&d),
			    "fewer than 2 timed bins a side");
	d.estimated = true;
	d.blocks = 4;
	assert_string_equal(rc_tl_no_interval_why(&d), "fewer than 5 blocks");
	d.blocks = 5;
	assert_string_equal(rc_tl_no_interval_why(&d),
			    "fewer than 5 effective bins");
	d.valid = true;
	assert_null(rc_tl_no_interval_why(&d));
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
		cmocka_unit_test(test_loss_two_bins_no_interval),
		cmocka_unit_test(test_block_len),
		cmocka_unit_test(test_loss_autocorrelated_coverage),
		cmocka_unit_test(test_t_table),
		cmocka_unit_test(test_interval_rounding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
