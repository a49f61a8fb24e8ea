/* SPDX-License-Identifier: MIT */
/* Interrupt and exception entry: the frame the stubs build, and dispatch. */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pushed by kernel/isr.S (registers) and the CPU (from rip up). */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

enum {
	VEC_DE = 0,
	VEC_DB = 1,
	VEC_NMI = 2,
	VEC_BP = 3,
	VEC_UD = 6,
	VEC_DF = 8,
	VEC_GP = 13,
	VEC_PF = 14,
	VEC_MC = 18,
	VEC_FIRST_IRQ = 32,
};

/* Returns normally to resume after the trapping instruction (or at rip). */
typedef void (*trap_handler)(struct trap_frame *f);

/* The interrupt stacks of one CPU (#DF, NMI, #MC: 4 KiB each), in bytes. */
#define TRAPS_IST_SIZE (3 * 4096)

/*
 * Loads the GDT, TSS and IDT on this CPU. tables: traps_tables_size()
 * bytes of its own for its GDT and TSS (their contents do not matter);
 * ist: TRAPS_IST_SIZE bytes, 16-byte aligned, for its interrupt stacks,
 * not touched until one of those exceptions comes. Both NULL on the boot
 * CPU.
 */
void traps_init_cpu(void *tables, void *ist);
size_t traps_tables_size(void);
void trap_set_handler(unsigned vector, trap_handler h);
const char *trap_name(unsigned vector);

/*
 * If f->rip is a _safe instruction (kernel/x86.h), arranges for it to
 * report f->vector and resume after it; returns whether it did. Handlers
 * of exceptions that may hit such instructions (#PF) call it too.
 */
bool trap_fixup_safe(struct trap_frame *f);

/* Called by the stubs. Unhandled vectors end the run (status 63). */
void trap_dispatch(struct trap_frame *f);

/*
 * Set by smp/ once other CPUs run: stops them (an NMI that halts) so that
 * nothing is printed after the fault report.
 */
extern void (*fault_stop_others)(void);

/* The fatal path: fault report, summary so far, EXIT: STATUS=63. */
__attribute__((noreturn)) void fault_report(const struct trap_frame *f);

#endif
