// SPDX-License-Identifier: MIT
/*
 * The experiments' fault injection (bench/inject.h): where each fault is
 * armed, what announces it, and the verdict that says the harness coped.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/inject.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "lib/printf.h"
#include "mm/pmm.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

/* The cross-call that fails: a few into the first experiment. */
#define AP_FAULT_AFTER 20

static unsigned faulty_ap; /* the CPU of selftest=hang-ap or slow-ap */

/*
 * selftest=hang-ap, slow-ap: the last CPU stops answering, or answers one
 * request late, from the experiments on (after the time budget's pilots,
 * so that the fault lands in an experiment).
 */
bool inject_ap_fault(const struct bench_params *p)
{
	bool hang = p->inject_hang_ap;
	const char *name = hang ? "hang-ap" : "slow-ap";
	unsigned cpu, last = 0;

	if (!hang && !p->inject_slow_ap)
		return false;
	for_each_cpu(cpu, &cpus_online)
		last = cpu;
	if (!last || !p->bench.n) {
		report_skip("selftest: ap fault", "selftest=%s: %s", name,
			    last ? "no experiment runs" : "only one cpu");
		return false;
	}
	report_info("selftest: selftest=%s: cpu %u %s at the %uth "
		    "cross-call it serves from now",
		    name, last,
		    hang ? "stops answering (interrupts off, halted)"
			 : "answers 1 s past the 5 s wait, once",
		    AP_FAULT_AFTER);
	xcall_inject(hang ? XCALL_INJECT_HANG : XCALL_INJECT_SLOW, last,
		     AP_FAULT_AFTER);
	faulty_ap = last;
	return true;
}

/*
 * After the experiments: the hung CPU was taken out of the run; the slow
 * one's late answer was counted and it stayed in.
 */
void inject_ap_check(const struct bench_params *p)
{
	unsigned cpu = faulty_ap;

	if (!xcall_inject_fired()) {
		report_skip("selftest: ap fault",
			    "selftest=%s: cpu %u served fewer than %u "
			    "cross-calls in the experiments: nothing was "
			    "injected",
			    p->inject_hang_ap ? "hang-ap" : "slow-ap", cpu,
			    AP_FAULT_AFTER);
		return;
	}
	if (p->inject_hang_ap)
		report_check(xcall_cpu_lost(cpu),
			     "selftest: hang-ap: the cpu that stopped "
			     "answering was taken out of the run",
			     "cpu %u is still in it", cpu);
	else
		report_check(smp_stats.xcall_late && !xcall_cpu_lost(cpu),
			     "selftest: slow-ap: the late answer was counted "
			     "and the cpu stayed in the run",
			     "%u late answers; cpu %u %s", smp_stats.xcall_late,
			     cpu,
			     xcall_cpu_lost(cpu) ? "was taken out" : "stayed");
}

void inject_nmi_next_flush(void)
{
	report_info("selftest: selftest=nmi: a responder sends cpu %u an NMI "
		    "inside the next timed flush",
		    this_cpu());
	flush_inject_nmi(true);
}

void inject_nmi_check(const char *bench, uint64_t discarded)
{
	flush_inject_nmi(false); /* not in anyone else's rounds */
	report_check(discarded == 1,
		     "selftest: nmi: the sample the NMI landed in was "
		     "discarded and counted",
		     "%s discarded %llu samples", bench,
		     (unsigned long long)discarded);
}

static uint64_t oom_free_before;

void inject_oom_begin(uint64_t grants, const char *bench)
{
	oom_free_before = frames_free();
	report_info("selftest: selftest=oom: the frame allocator grants %llu "
		    "more requests, then refuses every one until %s ends",
		    (unsigned long long)grants, bench);
	frame_limit_grants(grants);
}

void inject_oom_end(const char *bench)
{
	char name[64];

	frame_limit_grants(PMM_GRANTS_UNLIMITED);
	ksnprintf(name, sizeof(name),
		  "selftest: oom: %s gave back every frame it took", bench);
	report_check(frames_free() == oom_free_before, name,
		     "%llu frames free before, %llu after",
		     (unsigned long long)oom_free_before,
		     (unsigned long long)frames_free());
}
