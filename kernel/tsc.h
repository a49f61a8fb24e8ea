/* SPDX-License-Identifier: MIT */
/* The TSC: the harness's only clock. */
#ifndef KERNEL_TSC_H
#define KERNEL_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tsc_estimate.h"

struct acpi_info;

#define TSC_CPUID_SAMPLES 32

struct tsc_freq {
	uint64_t khz;	    /* 0: unknown */
	const char *source; /* tsc_src_name() of the chosen one, or "none" */
	char why[96];	    /* when unknown: why */
	/* Each source's estimate in kHz, 0 where there is none. */
	uint64_t estimate[TSC_SRCS];
	/* Why a source that could exist gave no estimate ("" if it did). */
	char absent[TSC_SRCS][72];
	/* Before tsc_crosscheck(): the rate udelay() used during boot. */
	uint64_t early_khz;
	const char *early_source;
	/* Median TSC cycles between two back-to-back RDTSCs. */
	uint64_t rdtsc_cycles;
	bool rdtsc_trapped; /* rdtsc_cycles > TSC_RDTSC_TRAPPED_CYCLES */
	/*
	 * Median TSC cycles of CPUID leaf 0 (of TSC_CPUID_SAMPLES), RDTSC's
	 * cost taken off: a VM exit's cost under a hypervisor.
	 */
	uint64_t cpuid_cycles;
	uint64_t crosscheck_cycles; /* how long tsc_crosscheck() took */
};

extern struct tsc_freq tsc_freq;

/*
 * Early, before ACPI is read: a rate good enough for udelay() and
 * timeouts during bring-up. The first declared rate (CPUID 0x15, the
 * hypervisor's leaf 0x40000010, CPUID 0x16) if there is one, else the
 * shorter of two 10 ms windows of PIT channel 2.
 */
void tsc_calibrate(void);

/*
 * After ACPI is read (smp_init) and before anything prints a time: times
 * three 50 ms windows with every clock there is (PIT, ACPI PM timer,
 * HPET) at once, reads the declared rates, and sets tsc_freq.khz to the
 * estimate tsc_choose() picks. Also measures the cost of RDTSC and of
 * CPUID (env cpuid_cycles). Takes about 160 ms. map_mmio maps an HPET or
 * a memory-mapped PM timer uncached (NULL when it cannot): the page
 * tables are mm's, a floor up.
 */
void tsc_crosscheck(const struct acpi_info *ai,
		    void *(*map_mmio)(uint64_t pa, size_t len));

/* INFO lines: every estimate, the choice, absent sources, RDTSC cost. */
void tsc_report(void);

/* cycles_to_ns() with the calibrated frequency: rounded, 0 if unknown. */
uint64_t tsc_to_ns(uint64_t cycles);

/* Busy-waits (with PAUSE) at least `us` microseconds. */
void udelay(uint64_t us);
/* Microseconds as TSC cycles (a generous guess if the rate is unknown). */
uint64_t us_to_cycles(uint64_t us);

#endif
