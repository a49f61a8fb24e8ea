// SPDX-License-Identifier: MIT
/* Log-scale histograms of samples (see hist.h). */
#include "hist.h"

typedef unsigned __int128 u128;

const uint32_t HIST_Q16[HIST_PER_OCTAVE] = {65536, 77936, 92682, 110218};

static unsigned log2_floor(uint64_t v)
{
	return 63 - (unsigned)__builtin_clzll(v); /* v != 0 */
}

uint64_t hist_lo(uint64_t v)
{
	return v ? 1ull << log2_floor(v) : 1;
}

size_t hist_bucket(uint64_t v, uint64_t lo)
{
	unsigned shift, octave;
	uint64_t base;
	size_t q = 0, i;

	if (!lo || v < lo)
		return 0;
	/* lo is a power of two: v / lo is a shift, its log2 a bit scan. */
	shift = log2_floor(lo);
	octave = log2_floor(v >> shift);
	base = lo << octave; /* <= v: cannot overflow */
	/* 128-bit products: v * 65536 overflows 64 bits for huge v. */
	while (q + 1 < HIST_PER_OCTAVE &&
	       (u128)v * HIST_Q16[0] >= (u128)base * HIST_Q16[q + 1])
		q++;
	i = (size_t)octave * HIST_PER_OCTAVE + q;
	return i < HIST_MAX_BUCKETS ? i : HIST_MAX_BUCKETS - 1;
}

void hist_build(const uint64_t *v, size_t n, uint64_t min, struct hist *h)
{
	h->lo = hist_lo(min);
	h->nbuckets = 0;
	for (size_t i = 0; i < HIST_MAX_BUCKETS; i++)
		h->counts[i] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t b = hist_bucket(v[i], h->lo);

		h->counts[b]++;
		if (b + 1 > h->nbuckets)
			h->nbuckets = b + 1;
	}
}
