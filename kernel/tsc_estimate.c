// SPDX-License-Identifier: MIT
/* TSC estimates: arithmetic, choice and agreement. See tsc_estimate.h. */
#include "lib/muldiv.h"
#include "tsc_estimate.h"

#define NS_PER_S  1000000000ull
#define FS_PER_NS 1000000ull

static const char *const names[TSC_SRCS] = {
	[TSC_SRC_HPET] = "hpet",
	[TSC_SRC_PMTIMER] = "pmtimer",
	[TSC_SRC_PIT] = "pit",
	[TSC_SRC_CPUID_15H] = "cpuid-15h",
	[TSC_SRC_HYPERVISOR] = "hypervisor",
	[TSC_SRC_CPUID_16H] = "cpuid-16h",
};

const char *tsc_src_name(enum tsc_src s)
{
	return (unsigned)s < TSC_SRCS ? names[s] : "none";
}

bool tsc_src_measured(enum tsc_src s)
{
	return s == TSC_SRC_HPET || s == TSC_SRC_PMTIMER || s == TSC_SRC_PIT;
}

uint64_t cycles_to_ns(uint64_t cycles, uint64_t tsc_khz)
{
	/* ns = cycles / (khz * 1000) * 1e9 = cycles * 1e6 / khz. */
	return mul_div_round(cycles, 1000000u, tsc_khz);
}

uint64_t tsc_ticks_to_ns_hz(uint64_t ticks, uint64_t hz)
{
	return hz ? mul_div(ticks, NS_PER_S, hz) : 0;
}

uint64_t tsc_ticks_to_ns_fs(uint64_t ticks, uint64_t fs)
{
	return fs ? mul_div(ticks, fs, FS_PER_NS) : 0;
}

bool tsc_pit_wrapped(uint64_t pit_ns, uint64_t other_ns, uint64_t wrap_ns)
{
	uint64_t d = pit_ns > other_ns ? pit_ns - other_ns : other_ns - pit_ns;

	return d >= wrap_ns / 2;
}

uint64_t tsc_khz_from(uint64_t cycles, uint64_t ns)
{
	uint64_t khz;

	if (!ns || ns == UINT64_MAX)
		return 0;
	/* cycles per ms = cycles * 10^6 / ns */
	khz = mul_div(cycles, 1000000ull, ns);
	return khz == UINT64_MAX ? 0 : khz;
}

static void sort(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

uint64_t tsc_median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	sort(v, n);
	return v[(n - 1) / 2];
}

uint64_t tsc_median_nonzero(uint64_t *v, size_t n)
{
	size_t zeros = 0;

	sort(v, n);
	while (zeros < n && !v[zeros])
		zeros++;
	return zeros == n ? 0 : v[zeros + (n - zeros - 1) / 2];
}

uint64_t tsc_min_nonzero(const uint64_t *v, size_t n)
{
	uint64_t best = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i] && (!best || v[i] < best))
			best = v[i];
	}
	return best;
}

int tsc_choose(const uint64_t khz[TSC_SRCS])
{
	for (int s = 0; s < TSC_SRCS; s++) {
		if (tsc_khz_plausible(khz[s]))
			return s;
	}
	return -1;
}

uint64_t tsc_ppm_apart(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a, q, r, x;

	if (!a)
		return UINT64_MAX;
	q = d / a;
	r = d % a;
	if (a <= 1ull << 40 && q < 1ull << 20) /* no overflow below */
		return q * 1000000ull + (r * 1000000ull + a - 1) / a;
	/* Absurd values: one more than the rounded-down figure is enough. */
	x = mul_div(d, 1000000ull, a);
	return x == UINT64_MAX ? x : x + 1;
}

void tsc_agreement(const uint64_t khz[TSC_SRCS], int chosen, uint64_t limit_ppm,
		   struct tsc_agreement *out)
{
	*out = (struct tsc_agreement){
		.verdict = TSC_NONE,
		.chosen = chosen,
		.worst = -1,
	};
	if (chosen < 0 || chosen >= TSC_SRCS || !khz[chosen]) {
		out->chosen = -1;
		return;
	}
	for (int s = 0; s < TSC_SRCS; s++) {
		uint64_t ppm;

		if (s == chosen || !khz[s])
			continue;
		out->others++;
		ppm = tsc_ppm_apart(khz[chosen], khz[s]);
		if (out->worst < 0 || ppm > out->worst_ppm) {
			out->worst = s;
			out->worst_ppm = ppm;
		}
	}
	if (!out->others)
		out->verdict = TSC_ALONE;
	else if (out->worst_ppm > limit_ppm)
		out->verdict = TSC_DISAGREE;
	else
		out->verdict = TSC_AGREE;
}

int tsc_skew(uint64_t khz[TSC_SRCS], int chosen, uint64_t ppm)
{
	if (chosen < 0 || chosen >= TSC_SRCS || !khz[chosen])
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (int s = 0; s < TSC_SRCS; s++) {
			if (s == chosen || !khz[s] ||
			    tsc_src_measured(s) != (pass == 0))
				continue;
			uint64_t d = mul_div(khz[s], ppm, 1000000ull);

			khz[s] = d > UINT64_MAX - khz[s] ? UINT64_MAX
							 : khz[s] + d;
			return s;
		}
	}
	return -1;
}
