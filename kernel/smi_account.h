/* SPDX-License-Identifier: MIT */
/*
 * Counting SMIs around timed work (kernel/smi.c), the portable part: which
 * counter a CPU has, the difference of two readings of a counter that
 * wraps, and what a count means for the timings it overlaps. An SMI stops
 * the CPU for as long as the firmware takes, unseen by the TSC readings
 * around it; a timing that overlaps one is not the kernel's alone.
 */
#ifndef KERNEL_SMI_ACCOUNT_H
#define KERNEL_SMI_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

enum smi_source {
	SMI_SRC_NONE,	   /* nothing counts them here */
	SMI_SRC_INTEL_MSR, /* MSR_SMI_COUNT (0x34), 32 bits */
	SMI_SRC_AMD_PMC,   /* core PMC event 0x2B "SMIs Received", 48 bits */
};

#define MSR_SMI_COUNT 0x34
#define SMI_MSR_WIDTH 32
#define SMI_PMC_WIDTH 48
#define SMI_PMC_EVENT 0x2bu

/* What CPUID says, as kernel/cpu.h has it. */
struct smi_cpu_id {
	bool intel, amd; /* GenuineIntel; AMD or Hygon */
	unsigned family, model;
	bool hypervisor;   /* CPUID.1:ECX[31] */
	bool perfctr_core; /* CPUID.80000001H:ECX[23] PerfCtrExtCore */
};

/*
 * The counter this CPU should have: MSR_SMI_COUNT on Intel family 6 from
 * Nehalem (model 0x1a) on, except the first Atoms (Bonnell, Saltwell),
 * which lack it; the PMC event on AMD family 17h and later where CPUID
 * has the core counters and no hypervisor is present (a guest's counters
 * count the guest, or nothing). *why says why not (or what) in a few
 * words. The caller still reads it once and takes a fault as none.
 */
enum smi_source smi_choose_source(const struct smi_cpu_id *id,
				  const char **why);

const char *smi_source_name(enum smi_source src);

/* after - before of a counter width bits wide that may have wrapped once. */
uint64_t smi_delta(uint64_t before, uint64_t after, unsigned width);

/* The SMIs over the timed spans of one experiment. */
struct smi_tally {
	enum smi_source src;
	uint64_t smis;	/* summed over the spans */
	uint32_t spans; /* readings pairs taken */
};

void smi_tally_add(struct smi_tally *t, uint64_t before, uint64_t after);

enum smi_caveat {
	SMI_CAVEAT_NONE,      /* counted, and none came */
	SMI_CAVEAT_SEEN,      /* counted, and some came: the timings overlap */
	SMI_CAVEAT_UNCOUNTED, /* nothing counted: not known either way */
};

/* What t means for the timings it spans; the caveat rule reads this. */
enum smi_caveat smi_caveat_of(const struct smi_tally *t);

#endif
