// SPDX-License-Identifier: MIT
/*
 * The concurrency probe (smp/concurrency.h). CPU 0 posts the probe to
 * every other CPU at once and runs its side for the window: a step of its
 * own counter, a read of each peer's, a move counted where one changed
 * since the last read. Each peer does the same against CPU 0's counter
 * until CPU 0 says stop (or twice the window passed, if it never hears),
 * so that a peer that got the host only after CPU 0's window still
 * watches CPU 0 for a while, and sees it stand still.
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/concurrency.h"
#include "smp/percpu.h"
#include "smp/smp.h"

static struct slot {
	volatile uint64_t count;
	uint64_t reads, moves, twice; /* a peer's: of CPU 0's counter */
	uint64_t seen; /* CPU 0's: the peer's counter last read */
	uint64_t seen_reads, seen_moves, seen_twice;
	bool moved, seen_moved; /* at the last read */
} __attribute__((aligned(CACHELINE))) slots[MAX_CPUS];

/* Reads between two looks at the clock (RDTSC can trap, kvm-pvm). */
#define READS_PER_CLOCK 1024

static volatile bool stop;
static volatile unsigned started; /* peers in their loop */
static struct concurrency_answer answers[CONCURRENCY_PROBES] = {
	[CONCURRENCY_BRINGUP] = {.why = "not measured"},
	[CONCURRENCY_EXPERIMENTS] = {.why = "not measured"},
};

static void peer_side(void *arg)
{
	struct slot *me = &slots[this_cpu()];
	uint64_t last = slots[0].count, start = rdtsc();
	uint64_t limit = 2 * us_to_cycles(CONCURRENCY_WINDOW_US);

	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) &&
	       rdtsc() - start < limit) {
		for (unsigned i = 0; i < READS_PER_CLOCK; i++) {
			uint64_t now = slots[0].count;

			bool moved = now != last;

			me->count++;
			me->reads++;
			me->moves += moved;
			me->twice += moved && me->moved;
			me->moved = moved;
			last = now;
		}
	}
}

/* CPU 0's window: every peer read in turn, each read a step of its own. */
static void own_side(const struct cpumask *peers)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(CONCURRENCY_WINDOW_US);
	unsigned cpu;

	for_each_cpu(cpu, peers)
		slots[cpu].seen = slots[cpu].count;
	while (rdtsc() - start < limit) {
		for (unsigned i = 0; i < READS_PER_CLOCK; i++) {
			for_each_cpu(cpu, peers) {
				struct slot *s = &slots[cpu];
				uint64_t now = s->count;

				bool moved = now != s->seen;

				slots[0].count++;
				s->seen_reads++;
				s->seen_moves += moved;
				s->seen_twice += moved && s->seen_moved;
				s->seen_moved = moved;
				s->seen = now;
			}
		}
	}
}

/*
 * Until every peer is in its loop (or the window's length passed): on a
 * machine whose CPUs do run side by side, CPU 0's window must not pass
 * while an IPI or a wake from HLT is still on its way. Waiting is a
 * PAUSE loop, where single-threaded TCG lets the others run: a peer
 * that starts then still only runs in turn, as the window shows.
 */
static void wait_started(unsigned n)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(CONCURRENCY_WINDOW_US);

	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < n &&
	       rdtsc() - start < 50 * limit)
		cpu_relax();
}

void smp_probe_concurrency(enum concurrency_when when)
{
	struct concurrency_answer *a = &answers[when];
	static struct concurrency_obs obs[2 * MAX_CPUS];
	struct cpumask peers;
	size_t n = 0;
	unsigned cpu;

	cpus_others(&peers);
	for (unsigned i = 0; i < MAX_CPUS; i++)
		slots[i] = (struct slot){0};
	stop = false;
	started = 0;
	if (cpumask_count(&peers)) {
		on_cpumask_async(&peers, peer_side, NULL, IPI_EACH);
		wait_started(cpumask_count(&peers));
		own_side(&peers);
		__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
		if (!xcall_wait(&peers,
				53 * (uint64_t)CONCURRENCY_WINDOW_US + 1000000))
			report_fail("smp: concurrency probe",
				    "a cpu did not come back from it");
	}
	for_each_cpu(cpu, &peers) {
		const struct slot *s = &slots[cpu];

		obs[n++] = (struct concurrency_obs){
			0, cpu, s->seen_reads, s->seen_moves, s->seen_twice};
		obs[n++] = (struct concurrency_obs){cpu, 0, s->reads, s->moves,
						    s->twice};
	}
	a->concurrent =
		concurrency_decide(obs, n, CONCURRENCY_WINDOW_US, a->why,
				   sizeof(a->why), &a->permille);
	a->probed = true;
}

const struct concurrency_answer *cpus_concurrency(enum concurrency_when when)
{
	return &answers[when];
}

bool cpus_run_concurrently(void)
{
	return answers[CONCURRENCY_BRINGUP].probed &&
	       answers[CONCURRENCY_BRINGUP].concurrent;
}

const char *cpus_concurrency_why(void)
{
	return answers[CONCURRENCY_BRINGUP].why;
}

uint64_t cpus_concurrency_permille(void)
{
	return answers[CONCURRENCY_BRINGUP].permille;
}
