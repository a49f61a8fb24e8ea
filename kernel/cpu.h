/* SPDX-License-Identifier: MIT */
/* What this CPU is and can do, from CPUID, read once at boot. */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include "x86.h"

struct cpu_info {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;
	bool amd; /* AMD or Hygon */
	/* MFENCE;LFENCE before x2APIC MSR writes (x86.h: weak_wrmsr_fence) */
	bool apic_msr_fence;
	bool hypervisor; /* CPUID.1:ECX[31] */
	char hv_sig[13]; /* CPUID 0x40000000 signature, "" if none */
	uint32_t hv_max_leaf;
	/* KVM_HINTS_REALTIME: every vCPU has a host CPU to itself */
	bool hv_dedicated;
	uint32_t max_leaf, max_ext_leaf;

	bool x2apic, pcid, invpcid, pdpe1gb, nx, invariant_tsc;
	bool monitor; /* MONITOR/MWAIT: CPUID.01H:ECX[3] */
	/*
	 * invlpgb_cpuid: what CPUID says. invlpgb: whether the harness may use
	 * it, i.e. CPUID says so and no hypervisor is present (a guest's
	 * INVLPGB would not reach its sibling vCPUs; docs/qemu.md).
	 */
	bool invlpgb_cpuid, invlpgb;
	unsigned invlpgb_max_pages; /* Fn8000_0008 EDX[15:0] + 1 */
	/* MAXPHYADDR: Fn8000_0008 EAX[7:0], else 36 (SDM 4.1.4) */
	unsigned phys_bits;
};

extern struct cpu_info cpu_info;

/*
 * How long one CPU waits for another (a cross-call's answer, a lock's
 * holder, a barrier) before it calls that CPU slow or stopped: long
 * enough for a vCPU that the host descheduled, short enough that a run
 * with a stopped CPU still ends well inside the launcher's timeout.
 * CPU_WAIT_MS_DEFAULT unless the command line's wait_ms= set it (before
 * any CPU waits for another: init/main.c).
 */
#define CPU_WAIT_MS_DEFAULT 5000
extern uint32_t cpu_wait_us; /* <= 600 s (wait_ms=): 3x fits 32 bits */

void cpu_identify(void);

/*
 * The env record's "cpu" object (docs/records.md): vendor, family, model,
 * stepping, brand. The harness's env and the Linux side's both write it.
 */
struct json;
void cpu_json(struct json *j);

/* Why the harness may not use INVLPGB here (when cpu_info.invlpgb is false). */
const char *cpu_invlpgb_absent_reason(void);

/*
 * Dense index of the running CPU (0 = the boot CPU): %gs:8 of its struct
 * percpu (smp/percpu.h), installed first thing on every CPU.
 */
static inline unsigned this_cpu(void)
{
	return gs_read32(8);
}

#endif
