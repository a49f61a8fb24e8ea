// SPDX-License-Identifier: MIT
/*
 * Cross-calls: a cache-line mailbox per CPU. The initiator posts the
 * function and argument under a sequence count and sends an IPI; the
 * target's handler reads the newest request whole, claims it, runs the
 * function and sets `done` to the request it served. Completion is
 * counted in memory, never by counting interrupts: several IPIs of one
 * vector to one CPU coalesce into one interrupt.
 *
 * A request whose wait ends unanswered is withdrawn (xcall_claim): a
 * handler that comes to it later acknowledges it without running it, so
 * a function never runs with an argument its initiator has let go. A
 * request the handler claimed first keeps its initiator until the
 * function returns or the CPU is stopped (let_go): a withdrawn CPU never
 * touches the caller's memory.
 */
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/report.h"
#include "kernel/spinlock.h"
#include "kernel/stoppoint.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "smp/xcall_ack.h"
#include "smp/xcall_internal.h"

/* A post in progress is a few stores: a handler waits this long for it. */
#define POST_SPINS 100000

struct mailbox {
	xcall_fn fn;
	void *arg;
	volatile uint32_t seq; /* odd while a request is being posted */
	volatile uint32_t req;
	volatile uint32_t claimed; /* run, or withdrawn: xcall_claim */
	volatile uint32_t ran;	   /* the function returned */
	volatile uint32_t done;	   /* acknowledged */
	uint64_t handler_cycles;   /* entry to acknowledgement, last call */
	uint64_t irqs;		   /* cross-call interrupts taken */
} __attribute__((aligned(CACHELINE)));

static struct mailbox mbox[MAX_CPUS];

/*
 * For several initiators at once (flushloop): each target's mailbox is
 * locked from post to acknowledgement. Locks are taken in CPU order and
 * handlers never take them, so as long as every initiator waits with
 * interrupts on (it still answers the others, and pings), nobody
 * deadlocks; a holder that stops is found by the lock (liveness.c).
 */
static struct spinlock mbox_lock[MAX_CPUS];

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

struct request {
	uint32_t req;
	xcall_fn fn;
	void *arg;
};

/*
 * The newest request, its three fields from one post (a seqlock read):
 * false if a post stayed half-written (its initiator stopped mid-way).
 */
static bool read_request(const struct mailbox *m, struct request *r)
{
	for (unsigned spins = 0; spins < POST_SPINS; spins++) {
		uint32_t seq = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);

		if (!(seq & 1)) {
			r->req = m->req;
			r->fn = m->fn;
			r->arg = m->arg;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&m->seq, __ATOMIC_RELAXED) == seq)
				return true;
		}
		cpu_relax();
	}
	return false;
}

static void on_xcall(struct trap_frame *f)
{
	uint64_t t0 = time_handlers ? rdtsc_ordered() : 0;
	struct mailbox *m = &mbox[this_cpu()];
	struct request r;

	(void)f;
	stop_if_lost();
	m->irqs++;
	if (read_request(m, &r) && r.req != m->done) {
		if (xcall_claim(&m->claimed, r.req)) {
			r.fn(r.arg);
			__atomic_store_n(&m->ran, r.req, __ATOMIC_RELEASE);
		}
		if (time_handlers)
			m->handler_cycles = rdtsc_ordered() - t0;
		stop_point(STOP_XCALL);
		__atomic_store_n(&m->done, r.req, __ATOMIC_RELEASE);
	}
	apic_eoi();
}

/* Spurious interrupts must not be acknowledged (SDM 11.9). */
static void on_spurious(struct trap_frame *f)
{
	(void)f;
}

void xcall_init(void)
{
	trap_set_handler(VEC_XCALL, on_xcall);
	trap_set_handler(VEC_SPURIOUS, on_spurious);
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		mbox_lock[cpu].name = "a cpu's mailbox";
	liveness_init();
}

static void post(unsigned cpu, xcall_fn fn, void *arg)
{
	struct mailbox *m = &mbox[cpu];
	uint32_t seq = m->seq;

	__atomic_store_n(&m->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	m->fn = fn;
	m->arg = arg;
	m->req = m->req + 1;
	__atomic_store_n(&m->seq, seq + 2, __ATOMIC_RELEASE);
}

void send_failed(const unsigned *cpu)
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

/*
 * One IPI each: a target's IPI follows its own post at once, in one walk
 * of the mask. Posting to every target first only delayed the first IPI
 * (under Bochs, whose TSC counts instructions, a second walk of the mask
 * on the measured path); the shorthand needs every post before it.
 */
void on_cpumask_async(const struct cpumask *mask, xcall_fn fn, void *arg,
		      enum ipi_mode mode)
{
	unsigned cpu;

	stop_if_lost();
	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask)) {
		post(cpu, fn, arg);
		if (mode != IPI_BROADCAST &&
		    !apic_send(cpu_apic_id[cpu], ICR_FIXED | VEC_XCALL))
			send_failed(&cpu);
	}
	if (mode == IPI_BROADCAST &&
	    !apic_send_all_but_self(ICR_FIXED | VEC_XCALL))
		send_failed(NULL);
}

/*
 * A CPU that missed a wait, until it answers (docs/faults.md, "A CPU that
 * does not answer"). Written by the initiator that holds the CPU's mailbox.
 */
static struct {
	bool owing;
	uint32_t owed;	 /* the request it did not answer in time */
	uint64_t missed; /* when that wait ended (TSC) */
} miss[MAX_CPUS];

/*
 * The request cpu missed is answered now, while the initiator waits for
 * a later one: counted and named, and not taken for that later one.
 */
static void late_answer(unsigned cpu, uint32_t waiting_for)
{
	uint64_t late = rdtsc() - miss[cpu].missed;
	unsigned so_far;

	miss[cpu].owing = false;
	xcall_count_fault();
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
 * A CPU neither returned from a cross-call function nor halted on the
 * NMI (it may be in SMM, or its NMIs blocked): it can still write into
 * an argument whose owner would return. Nothing after this is safe.
 */
static __attribute__((noreturn)) void stuck_in_function(unsigned cpu,
							uint32_t req)
{
	report_fail("smp: xcall",
		    "cpu %u, apic id %u neither returned from the function of "
		    "request %u nor halted on an NMI within %u ms: the run "
		    "ends (it could still write into the caller's argument)",
		    cpu, cpu_apic_id[cpu], req, 3 * cpu_wait_us / 1000);
	report_summary();
	run_exit(STATUS_ABORTED);
}

/*
 * The handler has the missed request: the initiator may not return (the
 * argument is on its stack) while that CPU may still write into it. It
 * waits one more wait for the function to return; then the CPU is taken
 * out and stopped by an NMI, and the halt awaited; a CPU that does
 * neither ends the run (xcall_letgo_next). Returns whether it was taken
 * out.
 */
static bool let_go(unsigned cpu, uint32_t req)
{
	struct mailbox *m = &mbox[cpu];
	uint64_t start = rdtsc(), limit = us_to_cycles(cpu_wait_us);
	enum xcall_letgo phase = XCALL_LETGO_RUNNING, next;

	for (;; cpu_relax(), phase = next) {
		uint32_t ran = __atomic_load_n(&m->ran, __ATOMIC_ACQUIRE);

		next = xcall_letgo_next(phase, xcall_owed_answered(ran, req),
					xcall_cpu_halted(cpu),
					rdtsc() - start > limit);
		if (next == XCALL_LETGO_FREE)
			return phase == XCALL_LETGO_STOPPING;
		if (next == XCALL_LETGO_STUCK)
			stuck_in_function(cpu, req);
		if (next != phase) {
			if (take_out(cpu))
				report_fail("smp: xcall",
					    "cpu %u, apic id %u has run the "
					    "function of request %u for over "
					    "%u ms: taken out of the run",
					    cpu, cpu_apic_id[cpu], req,
					    2 * cpu_wait_us / 1000);
			apic_send(cpu_apic_id[cpu], ICR_NMI);
			start = rdtsc();
		}
	}
}

/*
 * The missed request is withdrawn unless the handler has it; if it has,
 * its argument is let go only once the handler is done with it (let_go).
 * Returns whether the CPU was taken out.
 */
static bool withdraw(unsigned cpu, uint32_t req)
{
	if (xcall_claim(&mbox[cpu].claimed, req))
		return false;
	return let_go(cpu, req);
}

/*
 * The wait for cpu timed out. The first time, it may only be slow: named,
 * and its request remembered. Again while it still owes that one: it is
 * taken out of the run, so that no later wait is spent on it.
 */
static bool missed(unsigned cpu)
{
	struct mailbox *m = &mbox[cpu];
	uint32_t done = __atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
	unsigned ms = cpu_wait_us / 1000;

	xcall_count_fault();
	switch (xcall_classify_miss(miss[cpu].owing, done, miss[cpu].owed)) {
	case XCALL_MISS_AGAIN:
		/* Never run if it wakes; let go once done if it has it. */
		if (!xcall_claim(&m->claimed, m->req))
			let_go(cpu, m->req);
		if (take_out(cpu))
			report_fail("smp: xcall",
				    "cpu %u, apic id %u did not answer within "
				    "%u ms, and still owes request %u: taken "
				    "out of the run (no later cross-call or "
				    "experiment includes it)",
				    cpu, cpu_apic_id[cpu], ms, miss[cpu].owed);
		return false;
	case XCALL_MISS_AFTER_LATE:
		late_answer(cpu, m->req);
		break;
	case XCALL_MISS_FIRST:
		break;
	}
	if (withdraw(cpu, m->req))
		return false;
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

static bool wait_one(unsigned cpu, uint64_t start, uint64_t limit)
{
	struct mailbox *m = &mbox[cpu];
	uint32_t done;

	if (xcall_cpu_lost(cpu))
		return false; /* named when it was taken out */
	while (!xcall_answered(
		done = __atomic_load_n(&m->done, __ATOMIC_ACQUIRE), m->req)) {
		if (miss[cpu].owing &&
		    xcall_owed_answered(done, miss[cpu].owed))
			late_answer(cpu, m->req);
		if (rdtsc() - start > limit)
			return missed(cpu);
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
		ok &= wait_one(cpu, start, limit);
	return ok;
}

bool on_cpumask(const struct cpumask *mask, xcall_fn fn, void *arg,
		enum ipi_mode mode)
{
	on_cpumask_async(mask, fn, arg, mode);
	return xcall_wait(mask, cpu_wait_us);
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

static void lock_mbox(unsigned cpu)
{
	struct spinlock *l = &mbox_lock[cpu];
	unsigned me = this_cpu();
	uint32_t t;

	do {
		t = spin_lock_draw(l);
		stop_point(STOP_MBOX_TICKET);
	} while (spin_lock_wait(l, t, me) == SPIN_SKIPPED);
}

bool on_cpumask_shared(const struct cpumask *mask, xcall_fn fn, void *arg)
{
	unsigned cpu;
	bool ok;

	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		lock_mbox(cpu);
	stop_point(STOP_MBOX_LOCK);
	on_cpumask_async(mask, fn, arg, IPI_EACH);
	ok = xcall_wait(mask, cpu_wait_us);
	for (cpu = first_in(mask); cpu < MAX_CPUS; cpu = next_in(cpu, mask))
		spin_unlock(&mbox_lock[cpu]);
	return ok;
}
