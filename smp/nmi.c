// SPDX-License-Identifier: MIT
/*
 * NMIs: the one that stops every other CPU at a fatal fault, and any other
 * (a watchdog, a hardware error, a BMC's button, selftest=nmi), which is
 * counted so that the timed sample it landed in can be discarded; and the
 * one that stops a CPU taken out of the run while inside a cross-call's
 * function (smp/xcall.c, let_go).
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"
#include "smp/xcall_internal.h"

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
	stop_if_lost(); /* the NMI a cross-call sends one stuck inside */
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

	/* Around every timed sample: the search stops at nr_cpus. */
	for (cpu = cpumask_next_below(0, mask, nr_cpus); cpu < MAX_CPUS;
	     cpu = cpumask_next_below(cpu + 1, mask, nr_cpus))
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
