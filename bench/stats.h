/* SPDX-License-Identifier: MIT */
/*
 * Statistics over raw TSC deltas, computed after the timed region (as
 * sel4bench does): the timed loop only stores cycle counts into a
 * preallocated buffer, and everything here runs once it is over. Portable
 * and integer-only (the kernel has no FPU state), tested on the host.
 *
 * Percentiles are exact, by the nearest-rank rule: pP is the smallest
 * sample value v such that at least P% of the samples are <= v, i.e. the
 * sorted sample at 1-based rank ceil(P * n / 100) (rank 1 for P = 0). No
 * interpolation: every reported value is one that was measured.
 *
 * The mean is exact too: the sum is kept in 128 bits (it cannot overflow
 * for any n that fits in memory) and divided with rounding to the nearest
 * integer, halves rounded up: floor((sum + floor(n / 2)) / n).
 *
 * The standard deviation is the population one (divided by n, not n - 1:
 * it describes these samples, it does not estimate a larger population's),
 * taken about the rounded mean and rounded to the nearest cycle:
 * round(sqrt(floor(sum((x - mean)^2) / n))). Using the rounded mean adds at
 * most 0.25 to the variance. The sum of squares is kept in 128 bits and
 * saturates there (only for deviations beyond 2^60 cycles).
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats {
	uint64_t samples; /* n */
	uint64_t min, p50, p90, p99, max;
	uint64_t mean;
	uint64_t stddev; /* population, about the mean, rounded */
};

enum stats_err {
	STATS_OK = 0,
	STATS_EEMPTY = -1, /* n == 0: nothing to summarise */
	STATS_EINVAL = -2, /* NULL samples or out */
};

/*
 * Summarises n samples into *out. Sorts the array in place (heapsort: no
 * recursion, O(n log n) whatever the input) and subtracts `overhead` (the
 * measured cost of reading the timer) from every sample, saturating at 0;
 * on return the array holds the adjusted samples in ascending order, so
 * the caller can read any other quantile from it. On error *out and the
 * array are left untouched.
 */
int stats_compute(uint64_t *samples, size_t n, uint64_t overhead,
		  struct stats *out);

/* Sorts v ascending in place, without recursion; O(n log n) worst case. */
void stats_sort(uint64_t *v, size_t n);

/* Nearest-rank percentile (pct 0..100, larger is taken as 100) of a sorted
 * array; 0 when n == 0. */
uint64_t stats_percentile(const uint64_t *sorted, size_t n, unsigned int pct);

/*
 * Converts every value of a cycle summary to nanoseconds with
 * cycles_to_ns() (kernel/tsc_estimate.h; samples is copied); all zero but
 * samples when tsc_khz == 0. in and out may alias.
 */
void stats_to_ns(const struct stats *in, uint64_t tsc_khz, struct stats *out);

/* round(sqrt(v)) for a 128-bit v: the nearest integer, halves up. */
uint64_t stats_isqrt_round(unsigned __int128 v);

/* num / den in hundredths, rounded half up (1.125 -> 113); 0 if den is 0. */
uint64_t stats_ratio_x100(uint64_t num, uint64_t den);

#endif
