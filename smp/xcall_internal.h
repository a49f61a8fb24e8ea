/* SPDX-License-Identifier: MIT */
/*
 * What the cross-call files share (smp/xcall.c: mailboxes and waits;
 * smp/liveness.c: which CPUs are still in the run; smp/nmi.c: the stop).
 */
#ifndef SMP_XCALL_INTERNAL_H
#define SMP_XCALL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/* Counts a miss or a late answer (xcall_faults()). */
void xcall_count_fault(void);

/*
 * Takes cpu out of the run: no later cross-call, background work or
 * experiment includes it. False if another CPU took it out first (and
 * named it).
 */
bool take_out(unsigned cpu);

/*
 * This CPU was taken out of the run and has noticed: it stops for good,
 * touching nothing shared (another CPU already released what it held).
 */
void __attribute__((noreturn)) stop_lost_self(void);

/* cpu was taken out, noticed, and has halted for good (stop_lost_self). */
bool xcall_cpu_halted(unsigned cpu);

/* The CPU running this, if it was taken out: stop_lost_self(). */
void stop_if_lost(void);

/* The APIC never accepted an IPI: a FAIL naming the target (NULL: all). */
void send_failed(const unsigned *cpu);

#endif
