// SPDX-License-Identifier: MIT
/*
 * The experiments' fault injection (bench/inject.h): where each fault is
 * armed, what announces it, and the verdict that says the harness coped.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/inject.h"
#include "bench/rng.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/stoppoint.h"
#include "lib/printf.h"
#include "mm/pmm.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

static unsigned faulty_ap; /* the CPU of selftest=hang-ap or slow-ap */
static struct fault_at fault_at;

/*
 * How far into its kind of point fault_at=seed goes: the console-lock
 * point comes once per experiment (the faulty CPU's own lines), the
 * others hundreds or thousands of times a run.
 */
#define SEEDED_NTH_MAX	       64
#define SEEDED_CONSOLE_NTH_MAX 3

/* fault_at=seed: a kind of point and a count, from seed= alone. */
static struct fault_at draw_fault_at(uint64_t seed)
{
	struct rng r;
	struct fault_at at;

	rng_seed(&r, seed ^ 0x5707d0c7u);
	at.seeded = true;
	at.site = (uint8_t)rng_below(&r, STOP_SITES);
	at.nth = 1 + (uint32_t)rng_below(&r, at.site == STOP_CONSOLE_LOCK
						     ? SEEDED_CONSOLE_NTH_MAX
						     : SEEDED_NTH_MAX);
	return at;
}

/*
 * The faulty CPU prints its own line at each experiment, so that the
 * console's lock is a place it can stop in, as any CPU that prints can.
 */
static void say_armed(void *arg)
{
	report_info("selftest: cpu %u (the faulty cpu) enters %s", this_cpu(),
		    (const char *)arg);
}

void inject_ap_announce(const char *experiment)
{
	if (!faulty_ap || xcall_cpu_lost(faulty_ap) ||
	    fault_at.site != STOP_CONSOLE_LOCK)
		return;
	on_cpu(faulty_ap, say_armed, (void *)experiment); /* a static name */
}

/*
 * selftest=hang-ap, slow-ap: the last CPU stops answering, or stalls
 * once, at the point fault_at= names, from the experiments on (after the
 * time budget's pilots, so that the fault lands in an experiment).
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
	fault_at = p->fault_at.seeded ? draw_fault_at(p->seed) : p->fault_at;
	report_info("selftest: selftest=%s: cpu %u %s, at the %uth %s point "
		    "it passes from now (fault_at=%s:%u%s)",
		    name, last,
		    hang ? "stops answering (interrupts off, halted)"
		    : fault_at.site == STOP_XCALL
			    ? "answers 1 s past the 5 s wait, once"
			    : "stalls 1 s past a 5 s wait, once",
		    fault_at.nth, stop_site_name(fault_at.site),
		    stop_site_name(fault_at.site), fault_at.nth,
		    fault_at.seeded ? ", drawn from seed=" : "");
	stop_arm(hang ? STOP_HANG : STOP_SLOW, last, fault_at);
	faulty_ap = last;
	return true;
}

/*
 * After the experiments: the hung CPU was taken out of the run; the slow
 * one stayed in (and, stalled in a cross-call handler, its late answer
 * was counted).
 */
void inject_ap_check(const struct bench_params *p)
{
	unsigned cpu = faulty_ap;
	enum stop_site where;

	if (!stop_fired(&where)) {
		report_skip("selftest: ap fault",
			    "selftest=%s: cpu %u passed %s fewer than %u "
			    "times in the experiments: nothing was injected",
			    p->inject_hang_ap ? "hang-ap" : "slow-ap", cpu,
			    stop_site_name(fault_at.site), fault_at.nth);
		return;
	}
	report_info("selftest: cpu %u %s at %s", cpu,
		    p->inject_hang_ap ? "stopped" : "stalled",
		    stop_site_name(where));
	if (p->inject_hang_ap)
		report_check(xcall_cpu_lost(cpu),
			     "selftest: hang-ap: the cpu that stopped "
			     "answering was taken out of the run",
			     "cpu %u is still in it", cpu);
	else if (where == STOP_XCALL)
		report_check(smp_stats.xcall_late && !xcall_cpu_lost(cpu),
			     "selftest: slow-ap: the late answer was counted "
			     "and the cpu stayed in the run",
			     "%u late answers; cpu %u %s", smp_stats.xcall_late,
			     cpu,
			     xcall_cpu_lost(cpu) ? "was taken out" : "stayed");
	else
		report_check(!xcall_cpu_lost(cpu),
			     "selftest: slow-ap: the cpu that stalled stayed "
			     "in the run",
			     "cpu %u, stalled at %s, was taken out", cpu,
			     stop_site_name(where));
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
	frame_limit_grants(PMM_GRANTS_UNLIMITED);
	report_checkf(
		frames_free() == oom_free_before,
		"selftest: oom: %s gave back every frame it took" REPORT_DETAIL
		"%llu frames free before, %llu after",
		bench, (unsigned long long)oom_free_before,
		(unsigned long long)frames_free());
}
