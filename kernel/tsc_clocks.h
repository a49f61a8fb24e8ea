/* SPDX-License-Identifier: MIT */
/*
 * The platform clocks the TSC is timed against (tsc_clocks.c), and what
 * they report into: internal to kernel/tsc*.c.
 */
#ifndef KERNEL_TSC_CLOCKS_H
#define KERNEL_TSC_CLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include "acpi.h"
#include "tsc.h"

/*
 * The early rate, in kHz, from two short PIT windows timed by the PIT's
 * output; 0 with *why (which must be NULL on entry) set if it did not
 * count.
 */
uint64_t tsc_pit_early_khz(const char **why);

/*
 * Times three windows with the HPET, the PM timer and the PIT at once,
 * and puts each one's estimate, or why it has none, into tsc_freq.
 */
void tsc_clocks_measure(const struct acpi_info *ai,
			void *(*map_mmio)(uint64_t pa, size_t len));

/* Source s gave no estimate, for the reason fmt says; returns false. */
bool tsc_set_absent(enum tsc_src s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
