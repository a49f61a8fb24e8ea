/* SPDX-License-Identifier: MIT */
/*
 * Every x86 instruction the harness uses, as a tiny inline helper. This is
 * the only file (besides boot/ and the interrupt entry stubs) that contains
 * inline assembly, so that what touches the hardware is visible in one place.
 */
#ifndef KERNEL_X86_H
#define KERNEL_X86_H

#include <stdbool.h>
#include <stdint.h>

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid_count(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

static inline struct cpuid_regs cpuid(uint32_t leaf)
{
	return cpuid_count(leaf, 0);
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t val)
{
	asm volatile("wrmsr"
		     :
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		     : "memory");
}

static inline void outb(uint16_t port, uint8_t val)
{
	asm volatile("outb %0, %1" : : "a"(val), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t val;

	asm volatile("inb %1, %0" : "=a"(val) : "Nd"(port));
	return val;
}

static inline void outl(uint16_t port, uint32_t val)
{
	asm volatile("outl %0, %1" : : "a"(val), "Nd"(port));
}

/* TSC read, not ordered against surrounding instructions. */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * TSC read that waits for earlier instructions to complete first (LFENCE is
 * dispatch-serialising on Intel, and on AMD once the OS/firmware sets
 * DE_CFG[1], which every current firmware and Linux do).
 */
static inline uint64_t rdtsc_ordered(void)
{
	asm volatile("lfence" ::: "memory");
	return rdtsc();
}

static inline void mfence(void)
{
	asm volatile("mfence" ::: "memory");
}

/* Spin-wait hint; every busy loop must run it (see DESIGN.md on TCG). */
static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

static inline void hlt(void)
{
	asm volatile("hlt" ::: "memory");
}

static inline void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;

	asm volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

#define DEFINE_CR_ACCESSORS(n)                                         \
	static inline uint64_t read_cr##n(void)                        \
	{                                                              \
		uint64_t v;                                            \
		asm volatile("mov %%cr" #n ", %0" : "=r"(v));          \
		return v;                                              \
	}                                                              \
	static inline void write_cr##n(uint64_t v)                     \
	{                                                              \
		asm volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); \
	}
DEFINE_CR_ACCESSORS(0)
DEFINE_CR_ACCESSORS(2)
DEFINE_CR_ACCESSORS(3)
DEFINE_CR_ACCESSORS(4)
#undef DEFINE_CR_ACCESSORS

struct __attribute__((packed)) desc_ptr {
	uint16_t limit;
	uint64_t base;
};

static inline void lgdt(const struct desc_ptr *p)
{
	asm volatile("lgdt %0" : : "m"(*p));
}

static inline void lidt(const struct desc_ptr *p)
{
	asm volatile("lidt %0" : : "m"(*p));
}

static inline void ltr(uint16_t sel)
{
	asm volatile("ltr %0" : : "r"(sel));
}

static inline uint64_t read_rbp(void)
{
	uint64_t v;

	asm volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

/* Raises #BP; the handler returns to the next instruction. */
static inline void int3(void)
{
	asm volatile("int3" ::: "memory");
}

/* Raises #UD on purpose (fault injection). */
static inline void ud2(void)
{
	asm volatile("ud2");
}

static inline void invlpg(const volatile void *va)
{
	asm volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* Never returns: interrupts off, halt for ever (NMIs wake and re-halt). */
static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt" ::: "memory");
}

/* CPUID bits the harness gates on. */
#define CPUID1_ECX_X2APIC	  (1u << 21)
#define CPUID1_ECX_PCID		  (1u << 17)
#define CPUID1_ECX_HYPERVISOR	  (1u << 31)
#define CPUID7_EBX_INVPCID	  (1u << 10)
#define CPUID80000001_EDX_PDPE1GB (1u << 26)
#define CPUID80000001_EDX_NX	  (1u << 20)
#define CPUID80000007_EDX_INVTSC  (1u << 8)
#define CPUID80000008_EBX_INVLPGB (1u << 3)

#endif
