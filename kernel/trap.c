// SPDX-License-Identifier: MIT
/*
 * GDT, TSS and IDT. Long mode ignores segment bases and limits, but still
 * needs a code segment, a TSS for the interrupt stack table (so that a
 * double fault from a stack overflow, an NMI or a machine check runs on a
 * known-good stack) and an IDT of 16-byte interrupt gates.
 */
#include <stdbool.h>
#include <stdint.h>
#include "boot/boot.h"
#include "lib/memops.h"
#include "lib/string.h"
#include "trap.h"
#include "x86.h"

#define IST_STACK_SIZE 4096
#define IST_STACKS     3
#define IST_DF	       1
#define IST_NMI	       2
#define IST_MC	       3
#define GATE_INTERRUPT 0x8e /* present, DPL 0, 64-bit interrupt gate */

struct __attribute__((packed)) tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

struct __attribute__((packed)) idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
};

_Static_assert(TRAPS_IST_SIZE == IST_STACKS * IST_STACK_SIZE,
	       "TRAPS_IST_SIZE is the IST stacks");

/*
 * What each CPU needs of its own besides its IST stacks; the boot CPU's
 * are static.
 */
struct cpu_tables {
	uint64_t gdt[5]; /* null, code, data, TSS (two slots) */
	struct tss tss;
};

extern const char isr_stubs[];
static struct idt_gate idt[256] __attribute__((aligned(16)));
static trap_handler handlers[256];
static struct cpu_tables boot_cpu_tables __attribute__((aligned(64)));
static uint8_t boot_cpu_ist[TRAPS_IST_SIZE] __attribute__((aligned(16)));

static void idt_build(void)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t addr = (uint64_t)(isr_stubs + v * 16);

		idt[v] = (struct idt_gate){
			.offset_lo = addr & 0xffff,
			.selector = GDT_KERNEL_CS,
			.type = GATE_INTERRUPT,
			.offset_mid = (addr >> 16) & 0xffff,
			.offset_hi = addr >> 32,
		};
	}
	idt[VEC_DF].ist = IST_DF;
	idt[VEC_NMI].ist = IST_NMI;
	idt[VEC_MC].ist = IST_MC;
}

/* A 64-bit TSS descriptor takes two GDT slots (SDM vol. 3A, 8.2.3). */
static void gdt_set_tss(uint64_t *slot, const struct tss *tss)
{
	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;

	slot[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		  (0x89ull << 40) /* present, available 64-bit TSS */ |
		  (((limit >> 16) & 0xf) << 48) | ((base >> 24 & 0xff) << 56);
	slot[1] = base >> 32;
}

size_t traps_tables_size(void)
{
	return sizeof(struct cpu_tables);
}

void traps_init_cpu(void *tables, void *ist)
{
	struct cpu_tables *t = tables ? tables : &boot_cpu_tables;
	uint8_t *stacks = ist ? ist : boot_cpu_ist;
	struct desc_ptr gdtr = {sizeof(t->gdt) - 1, (uint64_t)t->gdt};
	struct desc_ptr idtr = {sizeof(idt) - 1, (uint64_t)idt};

	if (idt[0].selector == 0)
		idt_build();
	mem_zero(t, sizeof(*t));
	t->gdt[1] = 0x00AF9A000000FFFFull; /* 64-bit code, DPL 0 */
	t->gdt[2] = 0x00CF92000000FFFFull; /* data, DPL 0 */
	for (int i = 0; i < IST_STACKS; i++)
		t->tss.ist[i] = (uint64_t)(stacks + (i + 1) * IST_STACK_SIZE);
	t->tss.iomap_base = sizeof(t->tss); /* no I/O bitmap */
	gdt_set_tss(&t->gdt[3], &t->tss);
	lgdt(&gdtr);
	ltr(GDT_TSS);
	lidt(&idtr);
}

void trap_set_handler(unsigned vector, trap_handler h)
{
	if (vector < 256)
		handlers[vector] = h;
}

const char *trap_name(unsigned vector)
{
	static const char *const names[32] = {
		"#DE divide error",
		"#DB debug",
		"NMI",
		"#BP breakpoint",
		"#OF overflow",
		"#BR bound range",
		"#UD invalid opcode",
		"#NM device not available",
		"#DF double fault",
		"coprocessor segment overrun",
		"#TS invalid TSS",
		"#NP segment not present",
		"#SS stack fault",
		"#GP general protection",
		"#PF page fault",
		"reserved",
		"#MF x87 error",
		"#AC alignment check",
		"#MC machine check",
		"#XM SIMD error",
		"#VE virtualization",
		"#CP control protection",
		"reserved",
		"reserved",
		"reserved",
		"reserved",
		"reserved",
		"reserved",
		"#HV hypervisor injection",
		"#VC VMM communication",
		"#SX security",
		"reserved",
	};

	return vector < 32 ? names[vector] : "interrupt";
}

/* From linker.ld: {faulting instruction, where to resume} pairs. */
struct extable_entry {
	uint64_t insn, fixup;
};
extern const struct extable_entry __extable_start[], __extable_end[];

bool trap_fixup_safe(struct trap_frame *f)
{
	for (const struct extable_entry *e = __extable_start; e < __extable_end;
	     e++) {
		if (e->insn == f->rip) {
			f->r11 = f->vector;
			f->rip = e->fixup;
			return true;
		}
	}
	return false;
}

void trap_dispatch(struct trap_frame *f)
{
	trap_handler h = f->vector < 256 ? handlers[f->vector] : NULL;

	if (h)
		h(f);
	else if (f->vector >= 32 || !trap_fixup_safe(f))
		fault_report(f);
}
