/* SPDX-License-Identifier: MIT */
/*
 * How the CPUs other than 0 wait for IPIs and background work (idle=).
 *
 * In HLT a core may sink into a deep C-state (CC6 on AMD EPYC with
 * C-states enabled in the firmware): its TLB is flushed there, so a stale
 * translation can no longer be seen on it, and an IPI's round trip then
 * includes the wake-up, which INVLPGB never pays. Polling keeps the core
 * awake and its TLB as it was. MWAIT (hint 0: C1) lets it sleep lightly
 * and wake on a store to the line it monitors.
 *
 * auto polls where each CPU is a core of its own: on bare metal, or under
 * KVM when it says every vCPU has a host CPU to itself (KVM_HINTS_REALTIME,
 * CPUID 0x40000001 EDX[0]). Under any other hypervisor a polling vCPU holds
 * a host CPU that the initiator or the other vCPUs may need: measured, an
 * IPI round trip under kvm-pvm went from 0.14 ms to 20 ms, and multi-
 * threaded TCG with 8 vCPUs on 2 host cores did not finish in 300 s
 * (docs/mechanics.md, "Idle CPUs"). There auto takes HLT, and says so.
 *
 * mwait needs CPUID.01H:ECX.MONITOR[bit 3]; without it the CPUs idle in
 * HLT and the reason says so.
 *
 * Portable (no hardware access): tests/unit/test_idle.c.
 */
#ifndef SMP_IDLE_H
#define SMP_IDLE_H

#include <stdbool.h>
#include "kernel/config.h"

/* What the choice rests on: from CPUID (cpu_info). */
struct idle_cpu {
	bool monitor;	   /* CPUID.01H:ECX[3]: MONITOR/MWAIT */
	bool hypervisor;   /* CPUID.01H:ECX[31] */
	bool hv_dedicated; /* KVM_HINTS_REALTIME: a host CPU per vCPU */
};

/*
 * requested: idle= (enum idle_mode). Returns the mode to use, never
 * IDLE_AUTO; *why (if not NULL) gets a phrase for the INFO line
 * ("idle=hlt", "idle=auto: bare metal ...", "idle=mwait: ... instead").
 */
int smp_idle_choose(int requested, const struct idle_cpu *c, const char **why);

/* "auto", "poll", "hlt", "mwait": the words of idle=; "?" otherwise. */
const char *smp_idle_name(int mode);

#endif
