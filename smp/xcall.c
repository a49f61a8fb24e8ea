// SPDX-License-Identifier: MIT
/*
 * Cross-calls: a cache-line mailbox per CPU. The initiator stores the
 * function and argument, bumps `req`, and sends an IPI; the target's handler
 * runs the function and sets `done` to the request it served. Completion is
 * counted in memory, never by counting interrupts: several IPIs of one
 * vector to one CPU coalesce into one interrupt.
 */
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/spinlock.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define XCALL_TIMEOUT_US 5000000

struct mailbox {
	xcall_fn fn;
	void *arg;
	volatile uint32_t req;
	volatile uint32_t done;
	uint64_t handler_cycles; /* entry to acknowledgement, last call */
	uint64_t irqs;		 /* cross-call interrupts taken */
} __attribute__((aligned(CACHELINE)));

static struct mailbox mbox[MAX_CPUS];

/*
 * Off unless asked for (handler_timing=on): the two ordered TSC reads are
 * in the path being measured, and cost a sizeable share of a round trip
 * where RDTSC is emulated or trapped.
 */
static bool time_handlers;

void xcall_time_handlers(bool on)
{
	time_handlers = on;
}

/*
 * The members of a mask, in order, on the cross-call paths: no CPU number
 * reaches nr_cpus, so the search stops there (cpumask_next_below) instead
 * of going through every word of the mask, which under an emulating
 * hypervisor was most of the cost of an IPI round.
 */
static inline unsigned first_in(const struct cpumask *mask)
{
	return cpumask_next_below(0, mask, nr_cpus);
}

static inline unsigned next_in(unsigned cpu, const struct cpumask *mask)
{
	return cpumask_next_below(cpu + 1, mask, nr_cpus);
}

static void on_xcall(struct trap_frame *f)
{
	uint64_t t0 = time_handlers ? rdtsc_ordered() : 0;
	struct mailbox *m = &mbox[this_cpu()];
	uint32_t req = __atomic_load_n(&m->req, __ATOMIC_ACQUIRE);

	(void)f;
	m->irqs++;
	if (req != m->done) {
		m->fn(m->arg);
		if (time_handlers)
			m->handler_cycles = rdtsc_ordered() - t0;
		__atomic_store_n(&m->done, req, __ATOMIC_RELEASE);
	}
	apic_eoi();
}

static volatile uint64_t ping_acks[MAX_CPUS];

/* The smallest handler an IPI round trip can have: acknowledge, EOI. */
static void on_ping(struct trap_frame *f)
{
	(void)f;
	ping_acks[this_cpu()]++;
	apic_eoi();
}

bool ping_cpu(unsigned cpu)
{
	uint64_t before = ping_acks[cpu], start = rdtsc();
	uint64_t limit = us_to_cycles(XCALL_TIMEOUT_US);

	if (!apic_send(cpu_apic_id[cpu], ICR_FIXED | VEC_PING))
		return false;
	while (ping_acks[cpu] == before) {
		if (rdtsc() - start > limit)
			return false;
		cpu_relax();
	}
	return true;
}

/* Spurious interrupts must not be acknowledged (SDM 11.9). */
static void on_spurious(struct trap_frame *f)
{
	(void)f;
}

void xcall_init(void)
{
	trap_set_handler(VEC_XCALL, on_xcall);
	trap_set_handler(VEC_PING, on_ping);
	trap_set_handler(VEC_SPURIOUS, on_spurious);
}

static void post(unsigned cpu, xcall_fn fn, void *arg)
{
	struct mailbox *m = &mbox[cpu];

	m->fn = fn;
	m->arg = arg;
	__atomic_store_n(&m->req, m->req + 1, __ATOMIC_RELEASE);
}

/*
 * The APIC never accepted the IPI (xAPIC ICR busy past its limit): nothing
 * was sent, and the wait that follows will say who did not answer.
 */
static void send_failed(const unsigned *cpu)
{
	if (cpu)
		report_fail("smp: xcall",
			    "the APIC did not accept the IPI to cpu %u, apic "
			    "id %u",
			    *cpu, cpu_apic_id[*cpu]);
	else
		report_fail("smp: xcall", "the APIC did not accept the "
					  "all-but-self IPI");
}

void on_cpumask_async(const struct cpumask *mask, xcall_fn fn, void *arg,
		      enum ipi_mode mode)
{
	unsigned cpu;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		post(cpu, fn, arg);
	if (mode == IPI_BROADCAST) {
		if (!apic_send_all_but_self(ICR_FIXED | VEC_XCALL))
			send_failed(NULL);
		return;
	}
	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		if (!apic_send(cpu_apic_id[cpu], ICR_FIXED | VEC_XCALL))
			send_failed(&cpu);
}

static bool wait_one(unsigned cpu, uint64_t start, uint64_t limit)
{
	struct mailbox *m = &mbox[cpu];

	while (__atomic_load_n(&m->done, __ATOMIC_ACQUIRE) != m->req) {
		if (rdtsc() - start > limit) {
			report_fail("smp: xcall",
				    "cpu %u, apic id %u did not "
				    "answer within %u ms",
				    cpu, cpu_apic_id[cpu],
				    XCALL_TIMEOUT_US / 1000);
			return false;
		}
		cpu_relax();
	}
	return true;
}

bool xcall_wait(const struct cpumask *mask, uint64_t timeout_us)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(timeout_us);
	bool ok = true;
	unsigned cpu;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		ok &= wait_one(cpu, start, limit);
	return ok;
}

bool on_cpumask(const struct cpumask *mask, xcall_fn fn, void *arg,
		enum ipi_mode mode)
{
	on_cpumask_async(mask, fn, arg, mode);
	return xcall_wait(mask, XCALL_TIMEOUT_US);
}

bool on_cpu(unsigned cpu, xcall_fn fn, void *arg)
{
	struct cpumask one;

	cpumask_zero(&one);
	cpumask_set(cpu, &one);
	return on_cpumask(&one, fn, arg, IPI_EACH);
}

uint64_t xcall_handler_cycles(unsigned cpu)
{
	return mbox[cpu].handler_cycles;
}

uint64_t xcall_irqs_sum(const struct cpumask *mask)
{
	uint64_t sum = 0;
	unsigned cpu;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		sum += mbox[cpu].irqs;
	return sum;
}

void cpus_others(struct cpumask *out)
{
	cpumask_copy(out, &cpus_online);
	cpumask_clear(this_cpu(), out);
}

/* Sense-reversing barrier over the CPUs of mask. */
static struct {
	volatile unsigned count;
	volatile unsigned sense;
} __attribute__((aligned(CACHELINE))) barrier;

uint64_t smp_barrier(const struct cpumask *mask)
{
	unsigned n = cpumask_count(mask);
	unsigned sense = barrier.sense;
	uint64_t start = rdtsc(), limit = us_to_cycles(XCALL_TIMEOUT_US);

	if (__atomic_add_fetch(&barrier.count, 1, __ATOMIC_ACQ_REL) == n) {
		barrier.count = 0;
		__atomic_store_n(&barrier.sense, !sense, __ATOMIC_RELEASE);
		return rdtsc();
	}
	while (__atomic_load_n(&barrier.sense, __ATOMIC_ACQUIRE) == sense) {
		if (rdtsc() - start > limit)
			return 0; /* the caller reports who is missing */
		cpu_relax();
	}
	return rdtsc();
}

bool smp_start_background(unsigned cpu, xcall_fn fn, void *arg)
{
	struct percpu *pc = percpu[cpu];

	if (!cpu || pc->bg_fn)
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

/*
 * For several initiators at once (flushloop): each target's mailbox is
 * locked from post to acknowledgement. Locks are taken in CPU order and
 * handlers never take them, so as long as every initiator waits with
 * interrupts on (it still answers the others), nobody deadlocks.
 */
static struct spinlock mbox_lock[MAX_CPUS];

bool on_cpumask_shared(const struct cpumask *mask, xcall_fn fn, void *arg)
{
	unsigned cpu;
	bool ok;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		spin_lock(&mbox_lock[cpu]);
	on_cpumask_async(mask, fn, arg, IPI_EACH);
	ok = xcall_wait(mask, XCALL_TIMEOUT_US);
	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		spin_unlock(&mbox_lock[cpu]);
	return ok;
}

static volatile bool stopping;

/* Every other CPU gets an NMI; while stopping, it halts for good. */
static void on_nmi(struct trap_frame *f)
{
	if (!stopping)
		fault_report(f); /* an NMI nobody asked for */
	halt_forever();
}

static void stop_others(void)
{
	stopping = true;
	apic_send_all_but_self(ICR_NMI);
}

void xcall_install_stop(void)
{
	trap_set_handler(VEC_NMI, on_nmi);
	fault_stop_others = stop_others;
}
