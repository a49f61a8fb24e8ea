/* SPDX-License-Identifier: MIT */
/*
 * A small seeded PRNG for the order in which strategies and configurations
 * run (so that drift over a run does not favour one of them) and for the
 * workers' random reads. Not for anything secret. Portable, header-only.
 *
 * The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a 64-bit counter advanced
 * by the golden-ratio increment, then mixed. Every seed, 0 included, gives
 * a full-period stream, and a seed typed on the command line reproduces a
 * run exactly.
 */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t state;
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Uniform in [0, n) without modulo bias (Lemire, "Fast random integer
 * generation in an interval", 2019): the high half of x * n is the result;
 * the few x whose low half falls below 2^64 mod n would over-represent some
 * results and are redrawn. Returns 0 when n == 0.
 */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m;
	uint64_t low, threshold;

	if (!n)
		return 0;
	m = (unsigned __int128)rng_next(r) * n;
	low = (uint64_t)m;
	if (low < n) {
		threshold = (0 - n) % n; /* 2^64 mod n */
		while (low < threshold) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Fisher-Yates: every permutation of a[0..n) equally likely. */
static inline void rng_shuffle(struct rng *r, uint32_t *a, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)rng_below(r, i);
		uint32_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

#endif
