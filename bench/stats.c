// SPDX-License-Identifier: MIT
/*
 * Statistics over TSC deltas (see stats.h). Everything runs after the timed
 * region, on the CPU that reports, so it favours bounded stack use and a
 * predictable worst case over raw speed.
 */
#include "stats.h"
#include "kernel/tsc_estimate.h"
#include "lib/muldiv.h"

typedef unsigned __int128 u128;

static void sift_down(uint64_t *v, size_t root, size_t n)
{
	uint64_t top = v[root];

	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			break;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[child] <= top)
			break;
		v[root] = v[child];
		root = child;
	}
	v[root] = top;
}

/*
 * Heapsort: in place, no recursion (kernel stacks are small), and
 * O(n log n) even for the sorted or all-equal inputs that timing loops
 * tend to produce (where a naive quicksort goes quadratic).
 */
void stats_sort(uint64_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		uint64_t t = v[0];

		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

uint64_t stats_percentile(const uint64_t *sorted, size_t n, unsigned int pct)
{
	size_t rank;

	if (!n)
		return 0;
	if (pct > 100)
		pct = 100;
	/*
	 * rank = ceil(pct * n / 100), split as n = 100q + r so that nothing
	 * overflows (pct * q <= n) and no 128-bit division is needed.
	 */
	rank = pct * (n / 100) + (pct * (n % 100) + 99) / 100;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}

/* floor(sqrt(v)), bit by bit: no division, no FPU. */
static uint64_t isqrt128(u128 v)
{
	u128 res = 0, bit = (u128)1 << 126;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= res + bit) {
			v -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)res;
}

uint64_t stats_isqrt_round(u128 v)
{
	uint64_t r = isqrt128(v);

	/* v >= (r + 1/2)^2 = r^2 + r + 1/4, i.e. v > r^2 + r for integers. */
	return v > (u128)r * r + r && r != UINT64_MAX ? r + 1 : r;
}

/* Population variance about the rounded mean, saturating; see stats.h. */
static uint64_t stddev_of(const uint64_t *v, size_t n, uint64_t mean)
{
	u128 sum = 0, max = ~(u128)0;

	for (size_t i = 0; i < n; i++) {
		uint64_t d = v[i] > mean ? v[i] - mean : mean - v[i];
		u128 sq = (u128)d * d;

		sum = sum > max - sq ? max : sum + sq;
	}
	return stats_isqrt_round(div128(sum, n));
}

int stats_compute(uint64_t *samples, size_t n, uint64_t overhead,
		  struct stats *out)
{
	u128 sum = 0;

	if (!samples || !out)
		return STATS_EINVAL;
	if (!n)
		return STATS_EEMPTY;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = samples[i];

		/* A sample below the overhead is noise around zero, not < 0. */
		samples[i] = s > overhead ? s - overhead : 0;
		sum += samples[i];
	}
	stats_sort(samples, n);
	out->samples = n;
	out->min = samples[0];
	out->max = samples[n - 1];
	out->p50 = stats_percentile(samples, n, 50);
	out->p90 = stats_percentile(samples, n, 90);
	out->p99 = stats_percentile(samples, n, 99);
	/* sum <= n * max, so the rounded mean fits in 64 bits. */
	out->mean = (uint64_t)div128(sum + n / 2, n);
	out->stddev = stddev_of(samples, n, out->mean);
	return STATS_OK;
}

void stats_to_ns(const struct stats *in, uint64_t tsc_khz, struct stats *out)
{
	struct stats ns = {
		.samples = in->samples,
		.min = cycles_to_ns(in->min, tsc_khz),
		.p50 = cycles_to_ns(in->p50, tsc_khz),
		.p90 = cycles_to_ns(in->p90, tsc_khz),
		.p99 = cycles_to_ns(in->p99, tsc_khz),
		.max = cycles_to_ns(in->max, tsc_khz),
		.mean = cycles_to_ns(in->mean, tsc_khz),
		.stddev = cycles_to_ns(in->stddev, tsc_khz),
	};

	*out = ns;
}

uint64_t stats_ratio_x100(uint64_t num, uint64_t den)
{
	return mul_div_round(num, 100u, den);
}
