// SPDX-License-Identifier: MIT
#include "kernel/x86.h"
#include "smp/percpu.h"

_Static_assert(__builtin_offsetof(struct percpu, cpu) == PERCPU_OFF_CPU,
	       "this_cpu() reads %gs:8");
_Static_assert(__builtin_offsetof(struct percpu, apic_id) == PERCPU_OFF_APIC_ID,
	       "the APIC ID is at %gs:12");

struct percpu *percpu[MAX_CPUS];
uint32_t cpu_apic_id[MAX_CPUS];
unsigned nr_cpus = 1;
struct cpumask cpus_online;

static struct percpu boot_percpu;

void percpu_install(struct percpu *pc)
{
	pc->self = pc;
	percpu[pc->cpu] = pc;
	wrmsr(MSR_GS_BASE, (uint64_t)pc);
}

void percpu_init_boot(void)
{
	boot_percpu.cpu = 0;
	/* CPUID.1:EBX[31:24] until the APIC code knows better (x2APIC). */
	boot_percpu.apic_id = cpuid(1).ebx >> 24;
	cpu_apic_id[0] = boot_percpu.apic_id;
	percpu_install(&boot_percpu);
	cpumask_set_atomic(0, &cpus_online);
}
