/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU state. Every CPU has a dense index 0..N-1 (0 = the boot CPU) and
 * a struct percpu that its GS base points at, so this_cpu() is one load.
 */
#ifndef SMP_PERCPU_H
#define SMP_PERCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "smp/cpumask.h"

#define CACHELINE 64

struct percpu {
	struct percpu *self;	   /* %gs:0 */
	uint32_t cpu;		   /* %gs:8: dense index */
	uint32_t apic_id;	   /* %gs:12 */
	void *tables;		   /* GDT and TSS (kernel/trap.c) */
	void *ist;		   /* IST stacks (kernel/trap.c) */
	int64_t tsc_offset_signed; /* TSC minus the boot CPU's, measured */
	uint32_t acpi_domain;
	/* Background work (smp_start_background), run by the idle loop. */
	void (*volatile bg_fn)(void *arg);
	void *volatile bg_arg;
	volatile uint32_t bg_finished;
} __attribute__((aligned(CACHELINE)));

#define PERCPU_OFF_CPU	   8
#define PERCPU_OFF_APIC_ID 12

extern struct percpu *percpu[MAX_CPUS];
extern uint32_t cpu_apic_id[MAX_CPUS];
extern unsigned nr_cpus; /* CPUs we try to run: index < nr_cpus */
extern struct cpumask cpus_online;

/* Points this CPU's GS base at pc (and pc->self at pc). */
void percpu_install(struct percpu *pc);

/* The boot CPU's area, installed first thing in kernel_main. */
void percpu_init_boot(void);

#endif
