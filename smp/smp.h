/* SPDX-License-Identifier: MIT */
/*
 * Every CPU online and under the harness's control: ACPI tables, the APIC,
 * bring-up, cross-calls, the start barrier and the TSC offsets.
 */
#ifndef SMP_SMP_H
#define SMP_SMP_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/acpi.h"
#include "lib/json.h"
#include "smp/cpumask.h"
#include "smp/topology.h"

struct smp_stats {
	unsigned cpus_madt;   /* enabled CPUs in the MADT (0 if no MADT) */
	unsigned cpus_wanted; /* after cpus= and the limits */
	unsigned cpus_parked; /* left out by cpus=: INIT, never started */
	uint64_t bringup_cycles;
	bool init_wait;		   /* waited 10 ms after INIT (init_wait=) */
	const char *init_wait_why; /* why (smp_init_wait()) */
	int idle;		   /* the idle loop used (enum idle_mode) */
	int idle_requested;	   /* idle= as given */
	const char *idle_why;	   /* why (smp_idle_choose()) */
	unsigned sipis;		   /* STARTUP IPIs sent */
	int64_t tsc_max_offset;	   /* largest |offset| from the boot CPU */
	bool tsc_trusted;	   /* invariant and offsets within tolerance */
	unsigned xcall_late;	   /* cross-calls answered after their wait */
	unsigned cpus_lost;	   /* CPUs taken out for not answering */
	bool acpi_parsed;	   /* acpi_parse() found an RSDT or XSDT */
	unsigned cpus_limit;	   /* cpus=, 0: none */
	/* CPUID's count of the boot CPU's package (topo_package_cpus). */
	struct topo_pkg_count cpus_package;
};

extern struct acpi_info acpi;
extern struct topo_layout topo;

/* An online CPU other than 0 at distance class c from CPU 0; 0 if none. */
unsigned smp_cpu_in_class(enum topo_class c);
/* Distance classes from CPU 0 that have an online CPU (a row each). */
unsigned smp_classes_present(void);
/* The env record's "topology" object: counts per level and class. */
void smp_env_topology(struct json *j);
extern struct smp_stats smp_stats;

/*
 * Tables, APIC, all CPUs (at most cpus= of them), with or without the wait
 * after INIT (init_wait=, smp/initwait.h).
 */
struct config;
void smp_init(const struct config *cfg);
/* INFO lines about the above (ACPI problems, bring-up time, TSC). */
void smp_report(void);
/* The "smp:" checks (and selftest=fault-ap). */
void smp_selftest_run(const struct config *cfg);

/*
 * The INVLPGB software model (invlpgb=emulate) as the tlb: checks see it:
 * it lives with the experiments, a floor up, so they are handed it.
 */
struct tlb_invlpgb_model {
	unsigned int max_pages; /* pages an instruction may take */
	/* An INFO line of what it did since the last one; counts restart. */
	void (*report)(const char *during);
};

/*
 * The "tlb:" checks: each invalidation primitive, large pages, split;
 * INVLPGB's on every CPU. invlpgb_model: INVLPGB and TLBSYNC run through
 * the software model, or NULL; without it and without INVLPGB in CPUID,
 * the INVLPGB check SKIPs. cfg->inject == INJECT_INVLPGB_LOCAL breaks it.
 */
void tlb_selftest_run(const struct config *cfg,
		      const struct tlb_invlpgb_model *invlpgb_model);

/* smp/tsc_sync.c: fills percpu[]->tsc_offset_signed and the stats. */
void smp_measure_tsc(void);

/*
 * smp/bringup.c. The APs idle in smp_stats.idle's loop (smp/idle.h), set
 * before they start.
 */
bool smp_start_aps(uint64_t tramp_page, bool init_wait, const char **why);

/*
 * Cross-calls (smp/xcall.c). fn runs on the target in its IPI handler,
 * interrupts off. One initiator at a time.
 */
typedef void (*xcall_fn)(void *arg);
enum ipi_mode { IPI_EACH, IPI_BROADCAST };

void xcall_init(void);
/* After bring-up: a fault anywhere stops the other CPUs with an NMI. */
void xcall_install_stop(void);
/* Runs fn(arg) on cpu and waits; false (with a FAIL naming it) on timeout. */
bool on_cpu(unsigned cpu, xcall_fn fn, void *arg);
/* Posts fn to every CPU in mask (not this one), sends the IPIs. */
void on_cpumask_async(const struct cpumask *mask, xcall_fn fn, void *arg,
		      enum ipi_mode mode);
/* Waits until every CPU of the last post acknowledged; false on timeout. */
bool xcall_wait(const struct cpumask *mask, uint64_t timeout_us);
bool on_cpumask(const struct cpumask *mask, xcall_fn fn, void *arg,
		enum ipi_mode mode);
/*
 * on_cpumask for many initiators at once: the caller must have interrupts
 * on while it waits, so that it answers the others meanwhile.
 */
bool on_cpumask_shared(const struct cpumask *mask, xcall_fn fn, void *arg);
/*
 * TSC cycles from handler entry to acknowledgement of its last xcall, while
 * xcall_time_handlers(true) (off at boot: not measured, 0).
 */
uint64_t xcall_handler_cycles(unsigned cpu);
void xcall_time_handlers(bool on);
/*
 * Cross-call interrupts the CPUs of mask have taken (may be fewer than
 * calls: IPIs of one vector coalesce).
 */
uint64_t xcall_irqs_sum(const struct cpumask *mask);

/*
 * A CPU that misses a wait is named in a FAIL; if it misses another
 * while it still owes the first, it is taken out of the run: out of
 * cpus_online, and every later wait on it returns false at once. A late
 * answer is named in an INFO line and never taken for a later request.
 * xcall_faults() counts misses and late answers: an experiment that sees
 * it move during a measurement discards that measurement.
 */
uint32_t xcall_faults(void);
bool xcall_cpu_lost(unsigned cpu);

/*
 * An INFO line for each CPU that ran on after it was taken out (and then
 * stopped), and a FAIL for each taken out holding the console's lock.
 */
void xcall_lost_report(void);

/*
 * NMIs taken by this CPU and the CPUs of mask, other than the one that
 * stops them all at a fault: an experiment reads it before and after a
 * timed sample, and discards the sample if it moved.
 */
uint64_t nmi_count(const struct cpumask *mask);
uint64_t nmis_taken(unsigned cpu); /* by cpu alone */
/* An INFO line for each CPU that took such NMIs. */
void nmi_report(void);

/* Raw IPI round trip (smp/liveness.c): VEC_PING to cpu, wait its ack. */
bool ping_cpu(unsigned cpu);
enum ping_result {
	PING_ANSWERED,
	PING_SILENT, /* no answer within cpu_wait_us (or taken out) */
	PING_UNSENT, /* the APIC refused the IPI: nothing is known */
};
enum ping_result ping_cpu_wait(unsigned cpu);
/* The ping handler and the lock hooks (from xcall_init). */
void liveness_init(void);

/*
 * All CPUs in mask (this one included) meet; returns this CPU's exit TSC,
 * or 0 if the others did not all arrive within 5 s.
 */
uint64_t smp_barrier(const struct cpumask *mask);

/*
 * Background work: fn(arg) runs on cpu (not 0) from its idle loop, outside
 * interrupt context and with interrupts on, so it can itself take
 * cross-calls (a worker that must answer TLB shootdowns). False if that
 * CPU already has work. Completion: smp_background_finished() advances.
 */
bool smp_start_background(unsigned cpu, xcall_fn fn, void *arg);
uint32_t smp_background_finished(unsigned cpu);

/*
 * Background work on several CPUs at once, and the one wait for all of
 * it: bg_start() starts fn(arg) on cpu and remembers it; bg_wait() waits
 * until each started CPU has finished, was taken out of the run, or
 * timeout_us passed, and returns how many had not finished.
 */
struct bg_group {
	struct cpumask started;
	uint32_t finished_before[MAX_CPUS];
};
void bg_init(struct bg_group *g);
bool bg_start(struct bg_group *g, unsigned cpu, xcall_fn fn, void *arg);
unsigned bg_wait(const struct bg_group *g, uint64_t timeout_us);

/* The online CPUs other than this one. */
void cpus_others(struct cpumask *out);

#endif
