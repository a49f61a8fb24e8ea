// SPDX-License-Identifier: MIT
/*
 * The offset of each CPU's TSC from the boot CPU's, by a cache-line
 * handshake: the boot CPU reads its TSC (t0), raises `ping`; the other CPU
 * answers with its TSC (t); the boot CPU reads t1 when the answer arrives.
 * If the TSCs agree, t lies between t0 and t1, so the offset is estimated
 * as t - (t0 + t1) / 2, from the round with the shortest t1 - t0.
 *
 * One CPU at a time, but a responder that the boot CPU gave up on may still
 * be spinning when the next CPU's handshake starts. So every ping names
 * its CPU and round (tsc_handshake.h): a responder answers only its own
 * and quits on any other; and each CPU answers into its own cache line, so
 * a late answer cannot land in another CPU's measurement.
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "smp/tsc_handshake.h"

#define HANDSHAKE_TIMEOUT_US 1000000
/* Offsets below this many cycles are noise of the handshake itself. */
#define TSC_TRUST_CYCLES 2000

static struct {
	volatile uint32_t ping;
} __attribute__((aligned(CACHELINE))) hs;

/* Each responder's answer: the round it answers, and its TSC then. */
static struct answer {
	volatile uint32_t pong;
	volatile uint64_t tsc;
} __attribute__((aligned(CACHELINE))) answers[MAX_CPUS];

static void tsc_responder(void *arg)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(HANDSHAKE_TIMEOUT_US);
	unsigned me = this_cpu();
	struct answer *a = &answers[me];

	(void)arg;
	for (uint32_t k = 1; k <= TSC_HS_ROUNDS; k++) {
		enum tsc_hs_step step;

		while ((step = tsc_hs_responder(
				__atomic_load_n(&hs.ping, __ATOMIC_ACQUIRE), me,
				k)) != TSC_HS_ANSWER) {
			if (step == TSC_HS_QUIT || rdtsc() - start > limit)
				return;
			cpu_relax();
		}
		a->tsc = rdtsc_ordered();
		__atomic_store_n(&a->pong, tsc_hs_tag(me, k), __ATOMIC_RELEASE);
		start = rdtsc(); /* the limit is per round, not in total */
	}
}

static int64_t measure_one(unsigned cpu)
{
	struct answer *a = &answers[cpu];
	struct cpumask one;
	uint64_t best_rtt = UINT64_MAX;
	int64_t best = 0;

	__atomic_store_n(&hs.ping, TSC_HS_IDLE, __ATOMIC_RELEASE);
	a->pong = 0;
	cpumask_zero(&one);
	cpumask_set(cpu, &one);
	on_cpumask_async(&one, tsc_responder, NULL, IPI_EACH);
	for (uint32_t k = 1; k <= TSC_HS_ROUNDS; k++) {
		uint64_t t0 = rdtsc_ordered(), t1;
		uint32_t tag = tsc_hs_tag(cpu, k);

		__atomic_store_n(&hs.ping, tag, __ATOMIC_RELEASE);
		while (__atomic_load_n(&a->pong, __ATOMIC_ACQUIRE) != tag) {
			if (rdtsc() - t0 > us_to_cycles(HANDSHAKE_TIMEOUT_US)) {
				/* Let it go now, not at its own timeout. */
				__atomic_store_n(&hs.ping, TSC_HS_ABORT,
						 __ATOMIC_RELEASE);
				report_fail("smp: tsc offsets",
					    "cpu %u, apic id %u stopped "
					    "answering the handshake",
					    cpu, cpu_apic_id[cpu]);
				return 0;
			}
			cpu_relax();
		}
		t1 = rdtsc_ordered();
		if (t1 - t0 < best_rtt) {
			best_rtt = t1 - t0;
			best = (int64_t)(a->tsc - (t0 + (t1 - t0) / 2));
		}
	}
	xcall_wait(&one, 1000000);
	return best;
}

void smp_measure_tsc(void)
{
	unsigned cpu;
	int64_t worst = 0;

	for_each_cpu(cpu, &cpus_online) {
		int64_t off;

		if (cpu == 0)
			continue;
		off = measure_one(cpu);
		percpu[cpu]->tsc_offset_signed = off;
		if ((off < 0 ? -off : off) > (worst < 0 ? -worst : worst))
			worst = off;
	}
	smp_stats.tsc_max_offset = worst < 0 ? -worst : worst;
	smp_stats.tsc_trusted = cpu_info.invariant_tsc &&
				smp_stats.tsc_max_offset < TSC_TRUST_CYCLES;
}
