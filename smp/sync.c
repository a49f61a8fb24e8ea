// SPDX-License-Identifier: MIT
/*
 * CPUs meeting and handing work on: the start barrier, background work
 * for the other CPUs' idle loops, and the set of the others.
 */
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/barrier.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "smp/xcall_internal.h"

void cpus_others(struct cpumask *out)
{
	cpumask_copy(out, &cpus_online);
	cpumask_clear(this_cpu(), out);
}

static volatile uint32_t barrier __attribute__((aligned(CACHELINE)));

uint64_t smp_barrier(const struct cpumask *mask)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(cpu_wait_us);
	uint32_t sense;

	if (barrier_arrive(&barrier, cpumask_count(mask), &sense))
		return rdtsc();
	while (!barrier_open(&barrier, sense)) {
		/* The caller reports who is missing; the count is taken back. */
		if (rdtsc() - start > limit &&
		    barrier_withdraw(&barrier, sense))
			return 0;
		cpu_relax();
	}
	return rdtsc();
}

bool smp_start_background(unsigned cpu, xcall_fn fn, void *arg)
{
	struct percpu *pc = percpu[cpu];

	if (!cpu || pc->bg_fn || xcall_cpu_lost(cpu))
		return false;
	pc->bg_arg = arg;
	__atomic_store_n(&pc->bg_fn, fn, __ATOMIC_RELEASE);
	/*
	 * Only HLT needs an interrupt to notice: a polling CPU sees the store,
	 * and an MWAIT ends on it (the monitored line). The ping handler only
	 * acknowledges.
	 */
	if (smp_stats.idle == IDLE_HLT &&
	    !apic_send(cpu_apic_id[cpu], ICR_FIXED | VEC_PING))
		send_failed(&cpu);
	return true;
}

uint32_t smp_background_finished(unsigned cpu)
{
	return __atomic_load_n(&percpu[cpu]->bg_finished, __ATOMIC_ACQUIRE);
}

void bg_init(struct bg_group *g)
{
	cpumask_zero(&g->started);
}

bool bg_start(struct bg_group *g, unsigned cpu, xcall_fn fn, void *arg)
{
	g->finished_before[cpu] = smp_background_finished(cpu);
	if (!smp_start_background(cpu, fn, arg))
		return false;
	cpumask_set(cpu, &g->started);
	return true;
}

unsigned bg_wait(const struct bg_group *g, uint64_t timeout_us)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(timeout_us);
	unsigned cpu, late = 0;

	for_each_cpu(cpu, &g->started) {
		while (smp_background_finished(cpu) ==
			       g->finished_before[cpu] &&
		       !xcall_cpu_lost(cpu) && rdtsc() - start < limit)
			cpu_relax();
		late += smp_background_finished(cpu) == g->finished_before[cpu];
	}
	return late;
}
