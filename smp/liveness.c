// SPDX-License-Identifier: MIT
/*
 * Which CPUs are still in the run (docs/faults.md, "A CPU that does not
 * answer"): the CPUs taken out for not answering, the ping that tells a
 * live CPU from a stopped one, and what a lock waiter does about a holder
 * that has not moved for a whole wait (kernel/spinlock.h's stall hook).
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/spinlock.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "smp/xcall_internal.h"

static struct cpumask cpus_lost, cpus_stopped_self;
static volatile uint32_t faults; /* misses and late answers */
static volatile uint64_t ping_acks[MAX_CPUS];
/* A quiet lock each CPU was taken out holding, reported at the end. */
static const char *held_when_lost[MAX_CPUS];

uint32_t xcall_faults(void)
{
	return __atomic_load_n(&faults, __ATOMIC_ACQUIRE);
}

void xcall_count_fault(void)
{
	__atomic_add_fetch(&faults, 1, __ATOMIC_RELEASE);
}

bool xcall_cpu_lost(unsigned cpu)
{
	return cpumask_test(cpu, &cpus_lost);
}

bool take_out(unsigned cpu)
{
	if (cpumask_test_and_set_atomic(cpu, &cpus_lost))
		return false;
	cpumask_clear_atomic(cpu, &cpus_online);
	xcall_count_fault();
	__atomic_add_fetch(&smp_stats.cpus_lost, 1, __ATOMIC_RELAXED);
	return true;
}

bool xcall_cpu_halted(unsigned cpu)
{
	return cpumask_test(cpu, &cpus_stopped_self);
}

void stop_lost_self(void)
{
	cpumask_set_atomic(this_cpu(), &cpus_stopped_self);
	halt_forever();
}

void stop_if_lost(void)
{
	if (xcall_cpu_lost(this_cpu()))
		stop_lost_self();
}

void xcall_lost_report(void)
{
	unsigned cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (held_when_lost[cpu])
			report_fail(
				"smp: lock",
				"cpu %u, apic id %u held the lock '%s' past "
				"the %u ms wait and did not answer a ping: "
				"it was taken out of the run, the lock "
				"released for it",
				cpu, cpu_apic_id[cpu], held_when_lost[cpu],
				cpu_wait_us / 1000);
	for_each_cpu(cpu, &cpus_stopped_self)
		report_info("smp: cpu %u, apic id %u ran on after it was "
			    "taken out of the run, noticed, and stopped",
			    cpu, cpu_apic_id[cpu]);
}

/* The smallest handler an IPI round trip can have: acknowledge, EOI. */
static void on_ping(struct trap_frame *f)
{
	(void)f;
	ping_acks[this_cpu()]++;
	apic_eoi();
}

enum ping_result ping_cpu_wait(unsigned cpu)
{
	uint64_t before = ping_acks[cpu], start = rdtsc();
	uint64_t limit = us_to_cycles(cpu_wait_us);

	if (xcall_cpu_lost(cpu))
		return PING_SILENT;
	if (!apic_send(cpu_apic_id[cpu], ICR_FIXED | VEC_PING))
		return PING_UNSENT;
	while (ping_acks[cpu] == before) {
		if (rdtsc() - start > limit)
			return PING_SILENT;
		cpu_relax();
	}
	return PING_ANSWERED;
}

bool ping_cpu(unsigned cpu)
{
	return ping_cpu_wait(cpu) == PING_ANSWERED;
}

/*
 * A ticket drawn and never claimed for a whole wait: its drawer stopped
 * between drawing and claiming (or is that slow: it will draw again).
 * Nobody can be named or pinged; the ticket is skipped.
 */
static void skip_unclaimed(struct spinlock *l, uint64_t seen)
{
	if (spin_release_for(l, seen) && !l->quiet)
		report_info("smp: lock '%s': ticket %u was drawn and not "
			    "claimed within %u ms: skipped (its drawer, if it "
			    "runs on, draws again)",
			    l->name, spin_ticket(seen), cpu_wait_us / 1000);
}

/*
 * spin_stall_hook: the lock has served `seen` for a whole wait. A live
 * holder answers a ping at once (locks are held with interrupts on, or
 * briefly); one that does not, and still holds the lock after the ping's
 * wait, has stopped with it: it is taken out and the lock released for
 * it. An APIC that refused the ping proves nothing about the holder:
 * wait on.
 */
static bool on_lock_stall(struct spinlock *l, uint64_t seen)
{
	unsigned holder = spin_holder(seen);
	bool named;

	if (holder == SPIN_NO_HOLDER) {
		skip_unclaimed(l, seen);
		return false;
	}
	if (holder == this_cpu() || holder >= nr_cpus)
		return true; /* cannot be: wait on rather than guess */
	if (!xcall_cpu_lost(holder)) {
		if (ping_cpu_wait(holder) != PING_SILENT ||
		    spin_serving(l) != seen)
			return true;
		named = take_out(holder);
		if (!spin_release_for(l, seen) || !named)
			return false;
		if (l->quiet) {
			held_when_lost[holder] = l->name;
			return false;
		}
		report_fail("smp: lock",
			    "cpu %u, apic id %u held the lock '%s' past the %u "
			    "ms wait and did not answer a ping: taken out of "
			    "the run, the lock released for it",
			    holder, cpu_apic_id[holder], l->name,
			    cpu_wait_us / 1000);
		return false;
	}
	spin_release_for(l, seen);
	return false;
}

/* A holder already taken out: released at once, without the wait. */
static bool holder_lost(uint64_t seen)
{
	unsigned holder = spin_holder(seen);

	return holder != SPIN_NO_HOLDER && holder < nr_cpus &&
	       xcall_cpu_lost(holder);
}

void liveness_init(void)
{
	trap_set_handler(VEC_PING, on_ping);
	spin_holder_lost_hook = holder_lost;
	spin_stall_hook = on_lock_stall;
	spin_lost_hook = stop_lost_self;
}
