// SPDX-License-Identifier: MIT
/*
 * In-guest checks of the SMP machinery (names start "smp:"): every CPU the
 * firmware lists is online, answers a cross-call, and loses no IPI.
 */
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/smbios.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "smp/apic.h"
#include "smp/cpucount.h"
#include "smp/idle.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define IPI_STORM 10000
/* Background work must start within this on every idle CPU. */
#define WAKE_TIMEOUT_US 2000000

static volatile uint32_t answered[MAX_CPUS];
static volatile uint32_t hits[MAX_CPUS];

static void say_who(void *arg)
{
	(void)arg;
	answered[this_cpu()] = gs_read32(PERCPU_OFF_APIC_ID) + 1;
}

static void count_hit(void *arg)
{
	(void)arg;
	hits[this_cpu()]++;
}

/*
 * All CPUs online, of those the firmware lists, and the firmware listing
 * at least what CPUID counts in the boot CPU's package and what SMBIOS
 * type 4 counts enabled over all sockets (smp/cpucount.h).
 */
static void judge_count(void)
{
	static const char name[] = "smp: bringup: all cpus online";
	static char fw_why[160], sm_why[128], why[REPORT_LINE_MAX];
	const struct topo_pkg_count *pkg = &smp_stats.cpus_package;
	const struct smbios_info *sm = cpucount_smbios_info();
	struct cpucount c = {
		.online = cpumask_count(&cpus_online),
		.started = nr_cpus,
		.limit = smp_stats.cpus_limit,
		.package = pkg->cpus,
		.package_source = pkg->source,
		.firmware_why = fw_why,
		.smbios = sm->ok ? sm->cpus.cpus_min : 0,
		.smbios_why = sm_why,
		.smbios_max =
			sm->ok && !sm->cpus.max_unknown ? sm->cpus.cpus_max : 0,
		.smbios_off = sm->ok && sm->cpus.some_off,
	};

	smbios_cpus_describe(&sm->cpus, sm_why, sizeof(sm_why));
	c.firmware = cpucount_firmware(&acpi, smp_stats.acpi_parsed,
				       cpu_apic_id[0], fw_why, sizeof(fw_why));
	switch (cpucount_judge(&c, why, sizeof(why))) {
	case CPUCOUNT_PASS:
		report_pass("%s", name);
		break;
	case CPUCOUNT_FAIL:
		report_fail(name, "%s", why);
		break;
	case CPUCOUNT_SKIP:
		report_skip(name, "%s", why);
		break;
	}
}

static void check_online(void)
{
	for (unsigned cpu = 1; cpu < nr_cpus; cpu++) {
		if (cpumask_test(cpu, &cpus_online))
			continue;
		report_fail("smp: bringup",
			    "cpu %u, apic id %u did not start: the run goes "
			    "on without it",
			    cpu, cpu_apic_id[cpu]);
	}
	judge_count();
}

/* Each CPU runs a function that reports its own APIC ID from GS. */
static void check_on_cpu(void)
{
	unsigned cpu, bad = 0;

	for_each_cpu(cpu, &cpus_online) {
		if (cpu == this_cpu())
			continue;
		answered[cpu] = 0;
		if (!on_cpu(cpu, say_who, NULL) ||
		    answered[cpu] != cpu_apic_id[cpu] + 1)
			bad++;
	}
	report_check(!bad, "smp: every cpu answers on_cpu",
		     "%u cpus gave no or a wrong answer", bad);
}

/* rounds synchronous cross-calls to all others; every one counted. */
static bool storm(enum ipi_mode mode, unsigned rounds, unsigned *bad)
{
	struct cpumask others;
	unsigned cpu;

	cpus_others(&others);
	for_each_cpu(cpu, &others)
		hits[cpu] = 0;
	for (unsigned r = 0; r < rounds; r++)
		if (!on_cpumask(&others, count_hit, NULL, mode))
			return false;
	*bad = 0;
	for_each_cpu(cpu, &others)
		*bad += hits[cpu] != rounds;
	return true;
}

static void check_on_cpumask(void)
{
	unsigned bad = 0;
	bool ok;

	if (nr_cpus < 2) {
		report_skip("smp: on_cpumask", "only one cpu");
		return;
	}
	ok = storm(IPI_EACH, 1, &bad);
	report_check(ok && !bad, "smp: on_cpumask to all, one ICR write each",
		     "%u cpus missed it", bad);
	ok = storm(IPI_BROADCAST, 1, &bad);
	report_check(ok && !bad,
		     "smp: on_cpumask to all, all-but-self "
		     "shorthand",
		     "%u cpus missed it", bad);
	ok = storm(IPI_EACH, IPI_STORM, &bad);
	report_check(ok && !bad, "smp: 10000 IPIs to every cpu, none lost",
		     "%u cpus counted fewer", bad);
}

/*
 * An IPI the xAPIC never accepts (its ICR stays busy past the limit) is
 * not sent: apic_send() must say so and must not count it, since the
 * ipis_sent verdicts rest on that count. The busy ICR is injected; QEMU's
 * xAPIC never shows one.
 */
static void check_refused_send(void)
{
	const char *name =
		"apic: a send the xAPIC never accepts is not counted";
	unsigned me = this_cpu(), cpu;
	uint64_t before = apic_icr_writes[me];
	bool sent;

	if (apic_mode != APIC_XAPIC) {
		report_skip(name,
			    "x2APIC mode: the ICR has no busy bit, a send "
			    "cannot be refused");
		return;
	}
	cpu = me == 0 && nr_cpus > 1 ? 1 : 0;
	apic_inject_busy = true;
	sent = apic_send(cpu_apic_id[cpu], ICR_FIXED | VEC_PING);
	apic_inject_busy = false;
	report_check(!sent && apic_icr_writes[me] == before, name,
		     "apic_send returned %s and counted %llu ICR writes",
		     sent ? "true" : "false",
		     (unsigned long long)(apic_icr_writes[me] - before));
}

static uint64_t barrier_exit[MAX_CPUS];
static struct cpumask barrier_mask;

static void barrier_join(void *arg)
{
	uint64_t t = smp_barrier(&barrier_mask);

	(void)arg;
	/* On the boot CPU's time line; 0 stays 0 (timed out). */
	barrier_exit[this_cpu()] =
		t ? t - (uint64_t)percpu[this_cpu()]->tsc_offset_signed : 0;
}

/* Everyone meets at the start barrier; how far apart do they leave? */
static void check_barrier(void)
{
	struct cpumask others;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned cpu;

	cpumask_copy(&barrier_mask, &cpus_online);
	cpus_others(&others);
	on_cpumask_async(&others, barrier_join, NULL, IPI_EACH);
	barrier_join(NULL);
	xcall_wait(&others, 5000000);
	for_each_cpu(cpu, &cpus_online) {
		if (!barrier_exit[cpu]) {
			report_fail("smp: start barrier",
				    "cpu %u, apic id %u timed out waiting for "
				    "the others",
				    cpu, cpu_apic_id[cpu]);
			return;
		}
		lo = barrier_exit[cpu] < lo ? barrier_exit[cpu] : lo;
		hi = barrier_exit[cpu] > hi ? barrier_exit[cpu] : hi;
	}
	report_info("smp: start barrier skew %llu cycles (%llu ns) over %u "
		    "cpus",
		    (unsigned long long)(hi - lo),
		    (unsigned long long)tsc_to_ns(hi - lo),
		    cpumask_count(&cpus_online));
}

static void do_ud2(void *arg)
{
	(void)arg;
	ud2();
}

/*
 * selftest=fault-ap: an exception on another CPU must stop the others and
 * end the run with that CPU's fault report.
 */
static void inject_fault_ap(void)
{
	unsigned cpu, last = 0;

	for_each_cpu(cpu, &cpus_online)
		last = cpu;
	if (!last) {
		report_skip("smp: selftest=fault-ap", "only one cpu");
		return;
	}
	report_info("smp: selftest=fault-ap: ud2 on cpu %u now", last);
	on_cpu(last, do_ud2, NULL);
	report_fail("smp: selftest=fault-ap", "cpu %u did not fault", last);
}

/*
 * selftest=fault-all: every CPU faults at once. One report must come out
 * whole, with EXIT: STATUS=63: two reporters would each stop the other.
 */
static void meet_and_ud2(void *arg)
{
	smp_barrier(arg); /* as close to at once as the CPUs can */
	ud2();
}

static void inject_fault_all(void)
{
	static struct cpumask all;
	struct cpumask others;

	report_info("smp: selftest=fault-all: ud2 on all %u cpus at once now",
		    cpumask_count(&cpus_online));
	cpumask_copy(&all, &cpus_online);
	cpus_others(&others);
	on_cpumask_async(&others, meet_and_ud2, &all, IPI_EACH);
	meet_and_ud2(&all);
	report_fail("smp: selftest=fault-all", "cpu 0 did not fault");
}

static void nothing(void *arg)
{
	(void)arg;
}

static uint32_t wake_before[MAX_CPUS];

/*
 * Posts nothing() to every other online CPU; the number that did not run
 * it. One that never started is bringup's failure, not idle's.
 */
static unsigned wake_all(void)
{
	uint64_t start = rdtsc(), limit = us_to_cycles(WAKE_TIMEOUT_US);
	unsigned cpu, late = 0;

	for_each_cpu(cpu, &cpus_online) {
		if (!cpu)
			continue;
		wake_before[cpu] = smp_background_finished(cpu);
		if (!smp_start_background(cpu, nothing, NULL))
			wake_before[cpu] = ~0u; /* busy: counted as late */
	}
	for_each_cpu(cpu, &cpus_online) {
		if (!cpu)
			continue;
		while (smp_background_finished(cpu) == wake_before[cpu] &&
		       rdtsc() - start < limit)
			cpu_relax();
		late += smp_background_finished(cpu) == wake_before[cpu] ||
			wake_before[cpu] == ~0u;
	}
	return late;
}

/*
 * Posted work must wake every idle CPU. Under idle=poll and idle=mwait no
 * IPI comes with it (smp_start_background): the store to the wake word
 * alone must do it. An idle=mwait that CPUID cannot give is a SKIP.
 */
static void check_idle(const struct config *cfg)
{
	unsigned late;

	if (cfg->idle == IDLE_MWAIT && smp_stats.idle != IDLE_MWAIT)
		report_skip("smp: idle", "%s", smp_stats.idle_why);
	if (cpumask_count(&cpus_online) < 2)
		return;
	late = wake_all();
	report_checkf(!late,
		      "smp: idle %s: posted work wakes every cpu" REPORT_DETAIL
		      "%u cpus did not start it within %u ms",
		      smp_idle_name(smp_stats.idle), late,
		      WAKE_TIMEOUT_US / 1000);
}

void smp_selftest_run(const struct config *cfg)
{
	check_online();
	check_on_cpu();
	check_on_cpumask();
	check_barrier();
	check_refused_send();
	check_idle(cfg);
	if (cfg->inject == INJECT_FAULT_AP)
		inject_fault_ap();
	if (cfg->inject == INJECT_FAULT_ALL)
		inject_fault_all();
}
