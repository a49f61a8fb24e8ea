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
#include "smp/xcall_ack.h"

#define XCALL_TIMEOUT_US 5000000
/* selftest=slow-ap: one acknowledgement this much past the wait. */
#define SLOW_AP_EXTRA_US 1000000

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

/*
 * selftest=hang-ap and slow-ap: one CPU stops answering for good, or
 * answers one request late, at the after-th cross-call it serves.
 */
static struct {
	enum xcall_inject what;
	unsigned cpu;
	uint32_t after, seen;
	bool fired;
} inject;

bool xcall_inject_fired(void)
{
	return __atomic_load_n(&inject.fired, __ATOMIC_ACQUIRE);
}

void xcall_inject(enum xcall_inject what, unsigned cpu, uint32_t after)
{
	inject.cpu = cpu;
	inject.after = after;
	inject.seen = 0;
	__atomic_store_n(&inject.what, what, __ATOMIC_RELEASE);
}

/* In the handler, after the function, before the acknowledgement. */
static void injected_fault(void)
{
	uint64_t t0, delay;

	if (++inject.seen != inject.after)
		return;
	__atomic_store_n(&inject.fired, true, __ATOMIC_RELEASE);
	if (inject.what == XCALL_INJECT_HANG)
		halt_forever(); /* interrupts off: no IPI reaches it again */
	inject.what = XCALL_INJECT_NONE;
	delay = us_to_cycles(XCALL_TIMEOUT_US + SLOW_AP_EXTRA_US);
	t0 = rdtsc();
	while (rdtsc() - t0 < delay)
		cpu_relax();
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
		if (inject.what && this_cpu() == inject.cpu)
			injected_fault();
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

/*
 * A CPU that missed a wait, until it answers; the CPUs taken out of the
 * run (docs/output.md, "Faults").
 */
static struct {
	bool owing;
	uint32_t owed;	 /* the request it did not answer in time */
	uint64_t missed; /* when that wait ended (TSC) */
} miss[MAX_CPUS];
static struct cpumask cpus_lost;
static volatile uint32_t faults; /* misses and late answers */

uint32_t xcall_faults(void)
{
	return __atomic_load_n(&faults, __ATOMIC_ACQUIRE);
}

bool xcall_cpu_lost(unsigned cpu)
{
	return cpumask_test(cpu, &cpus_lost);
}

bool ping_cpu(unsigned cpu)
{
	uint64_t before = ping_acks[cpu], start = rdtsc();
	uint64_t limit = us_to_cycles(XCALL_TIMEOUT_US);

	if (xcall_cpu_lost(cpu))
		return false;
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

/*
 * The request cpu missed is answered now, while the initiator waits for
 * a later one: counted and named, and not taken for that later one.
 */
static void late_answer(unsigned cpu, uint32_t waiting_for)
{
	uint64_t late = rdtsc() - miss[cpu].missed;
	unsigned so_far;

	miss[cpu].owing = false;
	__atomic_add_fetch(&faults, 1, __ATOMIC_RELEASE);
	/* Initiators holding different mailboxes may count at once. */
	so_far = __atomic_add_fetch(&smp_stats.xcall_late, 1, __ATOMIC_RELAXED);
	report_info("smp: xcall: cpu %u, apic id %u answered request %u "
		    "late, seen %llu ms after its wait ended; not taken for "
		    "request %u (late answers so far: %u)",
		    cpu, cpu_apic_id[cpu], miss[cpu].owed,
		    (unsigned long long)(tsc_to_ns(late) / 1000000),
		    waiting_for, so_far);
}

/*
 * No later cross-call, background work or experiment includes cpu; false
 * if another CPU took it out first (and named it).
 */
static bool take_out(unsigned cpu)
{
	if (cpumask_test_and_set_atomic(cpu, &cpus_lost))
		return false;
	cpumask_clear_atomic(cpu, &cpus_online);
	__atomic_add_fetch(&faults, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&smp_stats.cpus_lost, 1, __ATOMIC_RELAXED);
	return true;
}

/*
 * The wait for cpu timed out. The first time, it may only be slow: named,
 * and its request remembered. Again while it still owes that one: it is
 * taken out of the run, so that no later wait is spent on it.
 */
static bool missed(unsigned cpu, uint64_t timeout_us)
{
	struct mailbox *m = &mbox[cpu];
	uint32_t done = __atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
	unsigned ms = (unsigned)(timeout_us / 1000);

	__atomic_add_fetch(&faults, 1, __ATOMIC_RELEASE);
	if (xcall_classify_miss(miss[cpu].owing, done, miss[cpu].owed) ==
	    XCALL_MISS_AGAIN) {
		if (!take_out(cpu))
			return false;
		report_fail("smp: xcall",
			    "cpu %u, apic id %u did not answer within %u "
			    "ms, and still owes request %u: taken out of "
			    "the run (no later cross-call or experiment "
			    "includes it)",
			    cpu, cpu_apic_id[cpu], ms, miss[cpu].owed);
		return false;
	}
	miss[cpu].owing = true;
	miss[cpu].owed = m->req;
	miss[cpu].missed = rdtsc();
	report_fail("smp: xcall",
		    "cpu %u, apic id %u did not answer within %u ms "
		    "(request %u); it stays in the run unless it misses its "
		    "next wait too",
		    cpu, cpu_apic_id[cpu], ms, m->req);
	return false;
}

static bool wait_one(unsigned cpu, uint64_t start, uint64_t limit,
		     uint64_t timeout_us)
{
	struct mailbox *m = &mbox[cpu];
	uint32_t done;

	if (cpumask_test(cpu, &cpus_lost))
		return false; /* named when it was taken out */
	while (!xcall_answered(
		done = __atomic_load_n(&m->done, __ATOMIC_ACQUIRE), m->req)) {
		if (miss[cpu].owing &&
		    xcall_owed_answered(done, miss[cpu].owed))
			late_answer(cpu, m->req);
		if (rdtsc() - start > limit)
			return missed(cpu, timeout_us);
		cpu_relax();
	}
	if (miss[cpu].owing)
		late_answer(cpu, m->req);
	return true;
}

bool xcall_wait(const struct cpumask *mask, uint64_t timeout_us)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(timeout_us);
	bool ok = true;
	unsigned cpu;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		ok &= wait_one(cpu, start, limit, timeout_us);
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

/*
 * For several initiators at once (flushloop): each target's mailbox is
 * locked from post to acknowledgement. Locks are taken in CPU order and
 * handlers never take them, so as long as every initiator waits with
 * interrupts on (it still answers the others), nobody deadlocks.
 */
static struct spinlock mbox_lock[MAX_CPUS];
/*
 * Whose ticket is served, for a waiter that must find a holder that
 * stopped: each lock's holder (ticket << 32 | cpu), written once it is
 * served; each CPU's last ticket drawn (ticket << 32 | lock), written
 * before it waits, which names a holder served but not yet written.
 */
static volatile uint64_t mbox_holder[MAX_CPUS], mbox_drawn[MAX_CPUS];

static inline uint64_t ticket_of(uint32_t t, unsigned who)
{
	return (uint64_t)t << 32 | who;
}

/* The CPU that holds ticket t of lock cpu, or MAX_CPUS if not known. */
static unsigned holder_of(unsigned cpu, uint32_t t)
{
	uint64_t h = __atomic_load_n(&mbox_holder[cpu], __ATOMIC_ACQUIRE);
	unsigned c;

	if (h >> 32 == t)
		return (unsigned)h;
	for (c = 0; c < nr_cpus; c++)
		if (mbox_drawn[c] == ticket_of(t, cpu))
			return c;
	return MAX_CPUS;
}

/*
 * Ticket t of cpu's mailbox lock has been served for the whole
 * cross-call wait, or its holder was taken out of the run. A live
 * initiator waits with interrupts on and answers a ping at once; one
 * that does not answer within the wait has stopped with the lock
 * (selftest=hang-ap on a flushloop initiator): it is taken out, and the
 * lock released for it.
 */
static void probe_holder(unsigned cpu, uint32_t t)
{
	unsigned holder = holder_of(cpu, t);

	if (holder >= MAX_CPUS)
		return;
	if (!xcall_cpu_lost(holder)) {
		if (ping_cpu(holder))
			return;
		if (take_out(holder))
			report_fail(
				"smp: xcall",
				"cpu %u, apic id %u held the mailbox of cpu %u "
				"past the %u ms wait and did not answer a "
				"ping: "
				"taken out of the run, the mailbox released "
				"for "
				"it",
				holder, cpu_apic_id[holder], cpu,
				XCALL_TIMEOUT_US / 1000);
	}
	spin_unlock_for(&mbox_lock[cpu], t);
}

/*
 * Ticket t's holder is known, and was taken out of the run (it may have
 * drawn t before it stopped, and been served after).
 */
static bool holder_lost(unsigned cpu, uint32_t t)
{
	unsigned holder = holder_of(cpu, t);

	return holder < MAX_CPUS && xcall_cpu_lost(holder);
}

static void lock_mbox(unsigned cpu)
{
	struct spinlock *l = &mbox_lock[cpu];
	uint32_t me = spin_lock_draw(l), seen = spin_lock_serving(l), now;
	uint64_t since = rdtsc(), limit = us_to_cycles(XCALL_TIMEOUT_US);

	__atomic_store_n(&mbox_drawn[this_cpu()], ticket_of(me, cpu),
			 __ATOMIC_RELEASE);
	while ((now = spin_lock_serving(l)) != me) {
		if (now != seen) {
			seen = now;
			since = rdtsc();
		} else if (rdtsc() - since > limit || holder_lost(cpu, now)) {
			probe_holder(cpu, now);
			since = rdtsc();
		}
		cpu_relax();
	}
	__atomic_store_n(&mbox_holder[cpu], ticket_of(me, this_cpu()),
			 __ATOMIC_RELEASE);
}

bool on_cpumask_shared(const struct cpumask *mask, xcall_fn fn, void *arg)
{
	unsigned cpu;
	bool ok;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		lock_mbox(cpu);
	on_cpumask_async(mask, fn, arg, IPI_EACH);
	ok = xcall_wait(mask, XCALL_TIMEOUT_US);
	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		spin_unlock(&mbox_lock[cpu]);
	return ok;
}

static volatile bool stopping;
static volatile uint64_t nmis[MAX_CPUS];

/*
 * Every other CPU gets an NMI; while stopping, it halts for good. Any
 * other NMI (a watchdog, a hardware error, a BMC's button, selftest=nmi)
 * is counted and returned from: the harness runs no code it could have
 * interrupted mid-way, and a timed sample it landed in is discarded by
 * whoever reads nmi_count() around it. "The processor ... blocks
 * subsequent NMIs until the next execution of the IRET instruction"
 * (SDM vol. 3A, 6.7.1): no second one nests in this handler.
 */
static void on_nmi(struct trap_frame *f)
{
	(void)f;
	if (stopping)
		halt_forever();
	nmis[this_cpu()]++;
}

uint64_t nmis_taken(unsigned cpu)
{
	return nmis[cpu];
}

uint64_t nmi_count(const struct cpumask *mask)
{
	uint64_t sum = nmis[this_cpu()];
	unsigned cpu;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		if (cpu != this_cpu())
			sum += nmis[cpu];
	return sum;
}

void nmi_report(void)
{
	unsigned cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (nmis[cpu])
			report_info("smp: cpu %u, apic id %u took %llu NMIs "
				    "that nobody sent to stop it (a timed "
				    "sample they landed in was discarded)",
				    cpu, cpu_apic_id[cpu],
				    (unsigned long long)nmis[cpu]);
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
