/* SPDX-License-Identifier: MIT */
/*
 * Stop points: the places where selftest=hang-ap or slow-ap makes its CPU
 * stop for good, or stall once, when fault_at= names them (docs/faults.md,
 * "Injecting a stop"). Each is a place a real CPU could stop and leave the
 * others something to cope with: the cross-call handler between its
 * function and its acknowledgement, a mailbox ticket drawn but not yet
 * claimed, the mailbox locks held, and each kernel lock held.
 *
 * The names and the fault_at= value's rule are portable (config.c parses
 * it); stop_point() is the kernel's.
 */
#ifndef KERNEL_STOPPOINT_H
#define KERNEL_STOPPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stop_site {
	STOP_XCALL,	   /* a cross-call handler, before it acknowledges */
	STOP_MBOX_TICKET,  /* a mailbox lock's ticket drawn, not claimed */
	STOP_MBOX_LOCK,	   /* the target mailboxes locked, nothing posted */
	STOP_PT_LOCK,	   /* the page-table lock held (vm_map, vm_unmap) */
	STOP_FRAME_LOCK,   /* the frame allocator's lock held */
	STOP_CONSOLE_LOCK, /* the console lock held, mid-line */
	STOP_ANY,	   /* fault_at=any:N: the Nth stop point of any kind */
	STOP_SITES = STOP_ANY,
};

/* fault_at= names, in enum order; "seed" draws one (bench/inject.c). */
#define STOP_SITE_NAMES                                                       \
	{                                                                     \
		"xcall", "mbox-ticket", "mbox-lock", "pt-lock", "frame-lock", \
			"console-lock", "any"                                 \
	}

/* fault_at=: the default is today's: the 20th cross-call served. */
struct fault_at {
	bool seeded;  /* fault_at=seed: drawn from seed= */
	uint8_t site; /* enum stop_site */
	uint32_t nth; /* the nth pass of the armed CPU, from 1 */
};

#define FAULT_AT_DEFAULT "xcall:20"
#define FAULT_AT_NTH_MAX 1000000

/* SITE:N or "seed" into *out; false (why says) on anything else. */
bool fault_at_parse(const char *val, struct fault_at *out, char *why,
		    size_t whylen);
const char *stop_site_name(unsigned site);

enum stop_action {
	STOP_HANG, /* interrupts off, halted for good */
	STOP_SLOW, /* one stall of cpu_wait_us + 1 s, then on */
};

#ifndef STOPPOINT_PORTABLE_ONLY
void stop_arm(enum stop_action what, unsigned cpu, struct fault_at at);
/* Whether the armed stop happened, and at which kind of point. */
bool stop_fired(enum stop_site *where);

extern volatile bool stop_armed;
void stop_point_slow(enum stop_site site);

/* Cheap when nothing is armed: one load and a branch. */
static inline void stop_point(enum stop_site site)
{
	if (__builtin_expect(stop_armed, 0))
		stop_point_slow(site);
}
#endif

#endif
