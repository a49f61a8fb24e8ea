/* SPDX-License-Identifier: MIT */
/* The TSC: the harness's only clock. */
#ifndef KERNEL_TSC_H
#define KERNEL_TSC_H

#include <stdint.h>

struct tsc_freq {
	uint64_t khz;	    /* 0: unknown */
	const char *source; /* "cpuid-15h", "cpuid-16h", "hypervisor", "pit" */
	char why[96];	    /* when unknown: why */
};

extern struct tsc_freq tsc_freq;

/* Plausible TSC rates: anything outside is a broken source. */
#define TSC_KHZ_MIN 100000ull
#define TSC_KHZ_MAX 20000000ull

static inline int tsc_khz_plausible(uint64_t khz)
{
	return khz >= TSC_KHZ_MIN && khz <= TSC_KHZ_MAX;
}

/*
 * Finds the TSC frequency: CPUID 0x15 (crystal ratio), else CPUID 0x16
 * (base frequency), else the hypervisor's leaf 0x40000010, else by timing
 * PIT channel 2 (minimum over three 50 ms windows).
 */
void tsc_calibrate(void);

/* Cycles to nanoseconds with the calibrated frequency (0 if unknown). */
uint64_t tsc_to_ns(uint64_t cycles);

/* Busy-waits (with PAUSE) at least `us` microseconds. */
void udelay(uint64_t us);
/* Microseconds as TSC cycles (a generous guess if the rate is unknown). */
uint64_t us_to_cycles(uint64_t us);

#endif
