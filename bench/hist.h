/* SPDX-License-Identifier: MIT */
/*
 * A compact log-scale histogram of a result's samples, for the records
 * (docs/records.md, "hist"): enough of the distribution to compare two runs
 * (bimodal, a long tail) in a few dozen bytes, where the raw samples would
 * take kilobytes of a 115200-baud console. Portable and integer-only (the
 * kernel has no FPU state), tested on the host.
 *
 * lo is the largest power of two <= the smallest sample (1 if that is 0).
 * Bucket i covers [lo * 2^(i/4), lo * 2^((i+1)/4)): octave o = i / 4
 * starts at base = lo << o, and its quarters begin where
 *   v * 65536 >= base * HIST_Q16[q],  HIST_Q16 = {65536, 77936, 92682,
 *   110218} (2^(q/4) in 16.16 fixed point, rounded to nearest),
 * which is the exact rule: a value within a cycle of an irrational edge
 * lands where these constants put it. A sample of 0 (possible after the
 * timer overhead is subtracted) counts in bucket 0. Values past the last
 * bucket (index >= HIST_MAX_BUCKETS) count in the last one.
 */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_PER_OCTAVE	 4
#define HIST_MAX_BUCKETS 64

extern const uint32_t HIST_Q16[HIST_PER_OCTAVE];

struct hist {
	uint64_t lo;	 /* a power of two, >= 1 */
	size_t nbuckets; /* after trimming trailing empty buckets; 0 if n 0 */
	uint64_t counts[HIST_MAX_BUCKETS];
};

/* The largest power of two <= v, or 1 when v is 0. */
uint64_t hist_lo(uint64_t v);

/* The bucket of v for a histogram starting at lo, capped at the last. */
size_t hist_bucket(uint64_t v, uint64_t lo);

/*
 * Builds the histogram of n samples (any order) whose minimum is min;
 * counts sum to n.
 */
void hist_build(const uint64_t *v, size_t n, uint64_t min, struct hist *h);

#endif
