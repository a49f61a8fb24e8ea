// SPDX-License-Identifier: MIT
/*
 * Stop points (kernel/stoppoint.h): the armed CPU counts its passes
 * through the named kind of point and, at the nth, stops for good or
 * stalls once. Only the armed CPU writes the count.
 */
#include "cpu.h"
#include "stoppoint.h"
#include "tsc.h"
#include "x86.h"

/* selftest=slow-ap: the stall outlasts one whole wait by this much. */
#define SLOW_EXTRA_US 1000000

volatile bool stop_armed;

static struct {
	enum stop_action what;
	unsigned cpu;
	struct fault_at at;
	uint32_t seen;
	volatile bool fired;
	enum stop_site fired_at;
} arm;

void stop_arm(enum stop_action what, unsigned cpu, struct fault_at at)
{
	arm.what = what;
	arm.cpu = cpu;
	arm.at = at;
	arm.seen = 0;
	arm.fired = false;
	__atomic_store_n(&stop_armed, true, __ATOMIC_RELEASE);
}

bool stop_fired(enum stop_site *where)
{
	if (!__atomic_load_n(&arm.fired, __ATOMIC_ACQUIRE))
		return false;
	if (where)
		*where = arm.fired_at;
	return true;
}

static void stall(void)
{
	uint64_t t0 = rdtsc();
	uint64_t delay = us_to_cycles(cpu_wait_us + SLOW_EXTRA_US);

	while (rdtsc() - t0 < delay)
		cpu_relax();
}

void stop_point_slow(enum stop_site site)
{
	if (this_cpu() != arm.cpu)
		return;
	if (arm.at.site != STOP_ANY && site != arm.at.site)
		return;
	if (++arm.seen != arm.at.nth)
		return;
	stop_armed = false;
	arm.fired_at = site;
	__atomic_store_n(&arm.fired, true, __ATOMIC_RELEASE);
	if (arm.what == STOP_HANG)
		halt_forever(); /* interrupts off: no IPI reaches it again */
	stall(); /* with interrupts as they were: a ping may be answered */
}
