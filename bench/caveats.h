/* SPDX-License-Identifier: MIT */
/*
 * Why a run's figures are not the hardware's: the one rule, in the guest.
 * The findings (bench/findings.c) and the ceiling (bench/ceiling_run.c)
 * take their caveats from here; the host only reads the tags printed
 * (the findings record's `caveats`, each finding's `not_hardware`) and
 * decides none (tools/results/caveats.py).
 *
 * The rule (caveats_decide) is portable and host-tested: it turns what
 * was read of the machine (struct caveats_facts) into struct
 * findings_machine. findings_machine_here() (bench/caveats_here.c) reads
 * the facts. The names keep their findings_ prefix: the findings' and
 * the ceiling's callers name them so.
 */
#ifndef BENCH_CAVEATS_H
#define BENCH_CAVEATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * CPUID leaf 0 (env cpuid_cycles: the median of 32, the cost of a bare
 * RDTSC pair taken off; kernel/tsc.c) above this many TSC cycles is a VM exit's cost. On bare
 * metal CPUID is microcode that takes about 100 to 250 cycles on the
 * CPUs the harness targets; every hypervisor intercepts it (Intel VMX
 * exits on CPUID unconditionally), and an exit and entry take 1000
 * cycles or more. 500 sits between the two with room on either side.
 * Seen on one host: QEMU TCG 25 to 49 (its own clock), kvm-pvm 7056
 * (RDTSC trapped too, at 11147); both set the hypervisor bit.
 */
#define CAVEATS_CPUID_VM_CYCLES 500

/* What is read of the machine: the rule's input. */
struct caveats_facts {
	bool hv_bit;	       /* CPUID.1:ECX[31] */
	bool tcg;	       /* the hypervisor signature is QEMU TCG's */
	bool rdtsc_trapped;    /* env rdtsc_trapped */
	bool invariant_tsc;    /* CPUID 0x80000007 EDX[8] */
	uint64_t cpuid_cycles; /* env cpuid_cycles */
	unsigned cpus;	       /* online */
	/* The concurrency probe after bring-up and after the experiments. */
	bool concurrent_before, probed_after, concurrent_after;
	bool invlpgb_cpuid;
	uint64_t smis; /* counted during the experiments (kernel/smi.h) */
};

/* Where the run ran: what decides whether a finding is a hardware answer. */
struct findings_machine {
	bool tcg;		/* the hypervisor signature is QEMU TCG's */
	bool hypervisor;	/* another hypervisor, by its CPUID bit */
	bool vm_suspected;	/* no hypervisor bit, but CPUID exits */
	bool rdtsc_trapped;	/* env rdtsc_trapped */
	bool not_concurrent;	/* the CPUs were seen taking turns */
	bool tsc_not_invariant; /* cycles are not time */
	bool smis;		/* SMIs came while the experiments ran */
	bool invlpgb_cpuid;	/* CPUID has INVLPGB */
};

/* Why a finding is not a hardware answer: a set of these. */
enum findings_caveat {
	FC_EMULATED = 1 << 0,	       /* INVLPGB is the software model */
	FC_DELAYED = 1 << 1,	       /* delay_handler= on a strategy */
	FC_TCG = 1 << 2,	       /* QEMU TCG */
	FC_RDTSC_TRAPPED = 1 << 3,     /* every timestamp a VM exit */
	FC_HYPERVISOR = 1 << 4,	       /* IPIs virtualized */
	FC_NOT_CONCURRENT = 1 << 5,    /* the CPUs take turns */
	FC_VM_SUSPECTED = 1 << 6,      /* a hypervisor that hides itself */
	FC_TSC_NOT_INVARIANT = 1 << 7, /* the TSC's rate may change */
	FC_SMIS = 1 << 8,	       /* firmware ran inside the timings */
};
#define FC_COUNT 9

/* The rule: the machine from the facts (portable). */
void caveats_decide(const struct caveats_facts *f, struct findings_machine *m);
/* Whether a CPUID that cost cpuid_cycles is a VM exit's (hv_bit clear). */
bool caveats_vm_suspected(bool hv_bit, uint64_t cpuid_cycles);

/* The short tag of one caveat bit (tools/results/caveats.py EXPLAIN). */
const char *findings_caveat_tag(unsigned int bit);
/*
 * The caveats every timing has on machine m: the machine's own (QEMU
 * TCG, RDTSC trapped, a hypervisor or one suspected, CPUs taking turns,
 * a TSC that is not invariant); the records' (emulated, delayed) are
 * each finding's.
 */
unsigned int findings_timing_caveats(const struct findings_machine *m);
/*
 * "not a hardware answer here: TAG, TAG" into buf (at most cap bytes),
 * or "" for no caveat; returns buf. Every figure a caveat touches is
 * printed with it, never bare. CAVEATS_TEXT holds every tag at once.
 */
#define CAVEATS_TEXT 192
const char *findings_caveats_text(unsigned int caveats, char *buf, size_t cap);

/* Where this run runs (bench/caveats_here.c): the facts, then the rule. */
void findings_machine_here(struct findings_machine *m);

#endif
