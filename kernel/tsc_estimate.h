/* SPDX-License-Identifier: MIT */
/*
 * The TSC frequency from several clocks: the arithmetic of one timed
 * window, which estimate the harness uses, and whether the others agree
 * with it. Portable (no hardware access): kernel/tsc.c does the timing,
 * the host unit tests (tests/unit/test_tsc_estimate.c) the rest.
 */
#ifndef KERNEL_TSC_ESTIMATE_H
#define KERNEL_TSC_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * cycles * 1e6 / tsc_khz: nanoseconds, rounded to the nearest (halves up),
 * UINT64_MAX if that does not fit, 0 when the rate is unknown (tsc_khz ==
 * 0). The one conversion of TSC cycles to time (tsc_to_ns() passes it the
 * calibrated rate).
 */
uint64_t cycles_to_ns(uint64_t cycles, uint64_t tsc_khz);

/*
 * Every source of a TSC frequency, in the order of preference
 * (tsc_choose()):
 *
 * 1. Measured against a platform clock, finest first: the HPET (10-100 ns
 *    ticks, its period stated by the device itself), the ACPI PM timer
 *    (3.579545 MHz, 279 ns ticks), the PIT (1.193182 MHz, 838 ns ticks,
 *    and its end is found by polling port 0x61). A measurement says what
 *    the TSC did on this machine during the run, in the platform's time.
 * 2. Declared, taken on trust: CPUID 0x15 (crystal and ratio: exact where
 *    the crystal is enumerated), the hypervisor's leaf 0x40000010 (what
 *    the host says it gives the guest), CPUID 0x16 (the nominal base
 *    frequency in whole MHz, which the TSC follows only approximately).
 *
 * A declared value is a claim about the TSC; a measurement is the TSC
 * against an independent clock, so it is preferred, and the claims serve
 * to check it (tsc_agreement()). Linux trusts CPUID 0x15 without measuring
 * (X86_FEATURE_TSC_KNOWN_FREQ); here it is measured anyway, so that a
 * wrong claim shows up as a FAIL instead of as wrong nanoseconds.
 */
enum tsc_src {
	TSC_SRC_HPET,
	TSC_SRC_PMTIMER,
	TSC_SRC_PIT,
	TSC_SRC_CPUID_15H,
	TSC_SRC_HYPERVISOR,
	TSC_SRC_CPUID_16H,
	TSC_SRCS,
};

/* Plausible TSC rates: anything outside is a broken source. */
#define TSC_KHZ_MIN 100000ull
#define TSC_KHZ_MAX 20000000ull

/* Two estimates agree when they are within 0.5% of the chosen one. */
#define TSC_AGREE_PPM 5000u

/*
 * Back-to-back RDTSC (two plain RDTSCs) costs 20-50 TSC cycles on current
 * x86 CPUs, under 100 on any; a trapped RDTSC costs a VM exit and entry,
 * about 1000 cycles at the very least and usually several thousand. A
 * median above 500 cycles therefore means the hypervisor traps RDTSC.
 */
#define TSC_RDTSC_TRAPPED_CYCLES 500u

static inline bool tsc_khz_plausible(uint64_t khz)
{
	return khz >= TSC_KHZ_MIN && khz <= TSC_KHZ_MAX;
}

/* The source's name in the env record: "hpet", "cpuid-15h", ... */
const char *tsc_src_name(enum tsc_src s);

/* True for the sources that time the TSC against a platform clock. */
bool tsc_src_measured(enum tsc_src s);

/*
 * Nanoseconds in `ticks` of a clock of `hz` ticks per second, or of `fs`
 * femtoseconds per tick (rounded down; 0 for a zero rate or period).
 * UINT64_MAX if the result does not fit.
 */
uint64_t tsc_ticks_to_ns_hz(uint64_t ticks, uint64_t hz);
uint64_t tsc_ticks_to_ns_fs(uint64_t ticks, uint64_t fs);

/* TSC kHz from `cycles` in `ns` nanoseconds; 0 if ns is 0 or too large. */
uint64_t tsc_khz_from(uint64_t cycles, uint64_t ns);

/*
 * A 16-bit down-counter such as the PIT's wraps after wrap_ns: over a
 * window that another clock (one that does not wrap so soon) timed as
 * other_ns, a count that says pit_ns lost at least one wrap when the two
 * differ by half a wrap or more (a host that preempted the vCPU for
 * longer than the wrap, or a window that ran long). Such a window must
 * not give the PIT's estimate.
 */
bool tsc_pit_wrapped(uint64_t pit_ns, uint64_t other_ns, uint64_t wrap_ns);

/*
 * The median of the non-zero values of v[0..n) (the lower one of the two
 * middle values for an even count); 0 if there are none. Sorts v.
 */
uint64_t tsc_median_nonzero(uint64_t *v, size_t n);
/* The median of all of v[0..n), zeros included; 0 when n is 0. Sorts v. */
uint64_t tsc_median(uint64_t *v, size_t n);
/* The smallest non-zero value of v[0..n), or 0 if there is none. */
uint64_t tsc_min_nonzero(const uint64_t *v, size_t n);

/*
 * The source to use from khz[] (kHz per source, 0: absent): the first in
 * the order above whose estimate is plausible; -1 if there is none.
 */
int tsc_choose(const uint64_t khz[TSC_SRCS]);

/*
 * How far b is from a, in parts per million of a, rounded up (so that
 * "more than N ppm apart" is exactly "tsc_ppm_apart() > N"); UINT64_MAX if
 * a is 0.
 */
uint64_t tsc_ppm_apart(uint64_t a, uint64_t b);

enum tsc_verdict {
	TSC_AGREE,    /* every other estimate within the limit */
	TSC_DISAGREE, /* `worst` is further off than the limit */
	TSC_ALONE,    /* the chosen one is the only estimate */
	TSC_NONE,     /* nothing was chosen */
};

struct tsc_agreement {
	enum tsc_verdict verdict;
	int chosen;	    /* the source compared against, or -1 */
	unsigned others;    /* estimates besides the chosen one */
	int worst;	    /* the other one furthest from it, or -1 */
	uint64_t worst_ppm; /* and how far, in ppm of the chosen */
};

/*
 * Compares every other estimate of khz[] with khz[chosen]: they agree
 * when none is more than limit_ppm away from it.
 */
void tsc_agreement(const uint64_t khz[TSC_SRCS], int chosen, uint64_t limit_ppm,
		   struct tsc_agreement *out);

/* selftest=tsc-skew: how far one estimate is moved (+2%). */
#define TSC_SKEW_PPM 20000u

/*
 * Fault injection for the agreement check (selftest=tsc-skew): raises one
 * estimate of khz[] other than khz[chosen] by ppm parts per million, the
 * first measured one present (hpet, pmtimer, pit), else the first
 * declared one. Returns the source moved, or -1 if there is no other
 * estimate (or no valid chosen one). khz[chosen] is never touched, so the
 * caller keeps the rate it uses.
 */
int tsc_skew(uint64_t khz[TSC_SRCS], int chosen, uint64_t ppm);

#endif
