/* SPDX-License-Identifier: MIT */
/*
 * The x86 instructions that touch the hardware (CPUID, MSRs, control
 * registers, TLB invalidation, port I/O, ...), each as a tiny inline
 * helper, so that what touches the hardware is visible in one place.
 * Other inline assembly: boot/, the interrupt entry stubs, and
 * lib/memops.h's REP STOSQ/MOVSQ (portable memory copies, no hardware
 * state).
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

static inline uint32_t inl(uint16_t port)
{
	uint32_t val;

	asm volatile("inl %1, %0" : "=a"(val) : "Nd"(port));
	return val;
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

/* Later instructions start only once every earlier one has completed. */
static inline void lfence(void)
{
	asm volatile("lfence" ::: "memory");
}

static inline void mfence(void)
{
	asm volatile("mfence" ::: "memory");
}

/*
 * Linux's weak_wrmsr_fence(): on Intel (and every CPU but AMD's and
 * Hygon's) a WRMSR to an x2APIC register is not serialising, so the ICR
 * write that sends an IPI can pass earlier stores: the target then takes
 * the interrupt before the mailbox store it is meant to find is visible,
 * finds nothing, and the initiator times out. MFENCE orders the earlier
 * stores (but not the WRMSR, which is no load or store); LFENCE keeps the
 * WRMSR from starting before them. AMD (and Hygon) need no barrier there,
 * so Linux skips it on them (X86_FEATURE_APIC_MSRS_FENCE), as here. Pass
 * whether this CPU needs it: cpu_info.apic_msr_fence.
 */
static inline void weak_wrmsr_fence(bool needed)
{
	if (needed)
		asm volatile("mfence; lfence" ::: "memory");
}

/* Spin-wait hint; every busy loop must run it (see docs/qemu.md on TCG). */
static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

static inline void hlt(void)
{
	asm volatile("hlt" ::: "memory");
}

/*
 * Enables interrupts and halts: STI takes effect after the next
 * instruction, so an interrupt pending at the STI still wakes the HLT.
 */
static inline void sti_hlt(void)
{
	asm volatile("sti; hlt" ::: "memory");
}

/* Arms the monitor on addr's cache line (no extensions, no hints). */
static inline void monitor(const volatile void *addr)
{
	asm volatile("monitor" ::"a"(addr), "c"(0), "d"(0) : "memory");
}

/*
 * Enables interrupts and waits in MWAIT (hint 0: C1) until the monitored
 * line is written or an interrupt comes; the STI shadow covers MWAIT as it
 * does HLT. The NOP after it: QEMU's TCG, where MWAIT returns at once with
 * several vCPUs, keeps the STI shadow past the MWAIT and would never
 * deliver an interrupt before the CLI that follows; one more instruction
 * with interrupts on ends the shadow (on hardware it costs nothing).
 */
static inline void sti_mwait(void)
{
	asm volatile("sti; mwait; nop" ::"a"(0), "c"(0) : "memory");
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

#define RFLAGS_IF (1ull << 9)

/* Interrupts off; returns whether they were on, for irq_restore(). */
static inline bool irq_save(void)
{
	bool on = read_rflags() & RFLAGS_IF;

	irq_disable();
	return on;
}

static inline void irq_restore(bool on)
{
	if (on)
		irq_enable();
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

/*
 * TLB invalidation. None of these are ordered against earlier stores by
 * themselves beyond what the SDM/APM give each instruction: INVLPG, MOV CR3
 * and INVPCID are serialising; INVLPGB is not (see invlpgb()).
 */
#define CR3_NOFLUSH   (1ull << 63) /* with CR4.PCIDE: keep this PCID's TLB */
#define CR3_PCID_MASK 0xfffull

/* Reloads CR3 as it is: flushes non-global entries (of the current PCID). */
static inline void cr3_reload(void)
{
	write_cr3(read_cr3() & ~CR3_NOFLUSH);
}

/* INVPCID types (SDM vol. 2A, INVPCID). */
enum invpcid_type {
	INVPCID_ADDR = 0,	   /* one address in one PCID */
	INVPCID_PCID = 1,	   /* all non-global entries of one PCID */
	INVPCID_ALL_GLOBAL = 2,	   /* everything, global entries too */
	INVPCID_ALL_NONGLOBAL = 3, /* everything but global entries */
};

static inline void invpcid(enum invpcid_type type, uint64_t pcid, uint64_t addr)
{
	struct {
		uint64_t pcid, addr;
	} desc = {pcid, addr};

	asm volatile("invpcid %0, %1"
		     :
		     : "m"(desc), "r"((uint64_t)type)
		     : "memory");
}

/*
 * INVLPGB (AMD APM vol. 3): rAX = VA | flags, ECX = extra pages | stride,
 * EDX = PCID << 16 | ASID; mm/invlpgb.c encodes them. It is weakly ordered:
 * the caller must order its PTE stores before it (mfence or a locked op),
 * and only TLBSYNC on the same CPU waits for completion. Opcodes are given
 * as bytes so that older assemblers accept them.
 */
static inline void invlpgb(uint64_t rax, uint32_t ecx, uint32_t edx)
{
	asm volatile(".byte 0x0f, 0x01, 0xfe"
		     :
		     : "a"(rax), "c"(ecx), "d"(edx)
		     : "memory");
}

/* Waits until every INVLPGB this CPU issued has completed everywhere. */
static inline void tlbsync(void)
{
	asm volatile(".byte 0x0f, 0x01, 0xff" ::: "memory");
}

/*
 * _safe variants: return 0 if the instruction completed, else the vector of
 * the exception it raised (vector 0, #DE, cannot come from any of them).
 * The trap handler finds the faulting address in the .extable section,
 * puts the vector in R11 and resumes at the label after the instruction.
 */
#define SAFE_INSN(insn)                  \
	"1: " insn "\n"                  \
	"2:\n"                           \
	".pushsection .extable, \"a\"\n" \
	".balign 8\n"                    \
	".quad 1b, 2b\n"                 \
	".popsection\n"

static inline int invlpgb_safe(uint64_t rax, uint32_t ecx, uint32_t edx)
{
	register uint64_t vec asm("r11") = 0;

	asm volatile(SAFE_INSN(".byte 0x0f, 0x01, 0xfe")
		     : "+r"(vec)
		     : "a"(rax), "c"(ecx), "d"(edx)
		     : "memory");
	return (int)vec;
}

static inline int tlbsync_safe(void)
{
	register uint64_t vec asm("r11") = 0;

	asm volatile(SAFE_INSN(".byte 0x0f, 0x01, 0xff")
		     : "+r"(vec)
		     :
		     : "memory");
	return (int)vec;
}

static inline int invpcid_safe(enum invpcid_type type, uint64_t pcid,
			       uint64_t addr)
{
	register uint64_t vec asm("r11") = 0;
	struct {
		uint64_t pcid, addr;
	} desc = {pcid, addr};

	asm volatile(SAFE_INSN("invpcid %1, %2")
		     : "+r"(vec)
		     : "m"(desc), "r"((uint64_t)type)
		     : "memory");
	return (int)vec;
}

/* RDMSR; returns the vector if it faulted (#GP: no such MSR), *val 0. */
static inline int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	register uint64_t vec asm("r11") = 0;
	uint32_t lo = 0, hi = 0;

	asm volatile(SAFE_INSN("rdmsr")
		     : "+r"(vec), "+a"(lo), "+d"(hi)
		     : "c"(msr)
		     : "memory");
	*val = vec ? 0 : ((uint64_t)hi << 32) | lo;
	return (int)vec;
}

/* WRMSR; returns the vector if it faulted. */
static inline int wrmsr_safe(uint32_t msr, uint64_t val)
{
	register uint64_t vec asm("r11") = 0;

	asm volatile(SAFE_INSN("wrmsr")
		     : "+r"(vec)
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		     : "memory");
	return (int)vec;
}

/* Reads 8 bytes at p; returns the vector if that faulted (*val then 0). */
static inline int read_u64_safe(const volatile void *p, uint64_t *val)
{
	register uint64_t vec asm("r11") = 0;
	uint64_t v = 0;

	asm volatile(SAFE_INSN("movq (%2), %1")
		     : "+r"(vec), "+r"(v)
		     : "r"(p)
		     : "memory");
	*val = v;
	return (int)vec;
}

/* Writes 8 bytes at p; returns the vector if that faulted. */
static inline int write_u64_safe(volatile void *p, uint64_t val)
{
	register uint64_t vec asm("r11") = 0;

	asm volatile(SAFE_INSN("movq %2, (%1)")
		     : "+r"(vec)
		     : "r"(p), "r"(val)
		     : "memory");
	return (int)vec;
}

/* Writes one byte at p; returns the vector if that faulted. */
static inline int write_u8_safe(volatile void *p, uint8_t val)
{
	register uint64_t vec asm("r11") = 0;

	asm volatile(SAFE_INSN("movb %2, (%1)")
		     : "+r"(vec)
		     : "r"(p), "q"(val)
		     : "memory");
	return (int)vec;
}

/* Per-CPU data: GS base points at this CPU's struct percpu. */
#define MSR_GS_BASE 0xc0000101u

static inline uint32_t gs_read32(unsigned long offset)
{
	uint32_t v;

	asm volatile("movl %%gs:(%1), %0" : "=r"(v) : "r"(offset));
	return v;
}

static inline uint64_t gs_read64(unsigned long offset)
{
	uint64_t v;

	asm volatile("movq %%gs:(%1), %0" : "=r"(v) : "r"(offset));
	return v;
}

/* Local APIC: base MSR (SDM vol. 3A, 11.4.4) and the x2APIC MSR window. */
#define MSR_APIC_BASE	    0x1bu
#define APIC_BASE_BSP	    (1ull << 8)
#define APIC_BASE_EXTD	    (1ull << 10) /* x2APIC mode */
#define APIC_BASE_EN	    (1ull << 11)
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ull
#define MSR_X2APIC_BASE	    0x800u

/* Control-register and EFER bits the harness sets. */
#define CR0_WP	  (1ull << 16) /* supervisor writes honour read-only pages */
#define CR4_PGE	  (1ull << 7)
#define CR4_PCIDE (1ull << 17)
#define CR4_LA57  (1ull << 12)
#define MSR_EFER  0xc0000080u
#define EFER_NXE  (1ull << 11)
#define EFER_SVME (1ull << 12)

/* Never returns: interrupts off, halt for ever (NMIs wake and re-halt). */
static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt" ::: "memory");
}

/* CPUID bits the harness gates on. */
#define CPUID1_ECX_X2APIC     (1u << 21)
#define CPUID1_ECX_MONITOR    (1u << 3)
#define CPUID1_ECX_PCID	      (1u << 17)
#define CPUID1_ECX_HYPERVISOR (1u << 31)
/* KVM's paravirtual leaf (Linux: Documentation/virt/kvm/x86/cpuid.rst) */
#define KVM_CPUID_FEATURES	  0x40000001u
#define KVM_HINTS_REALTIME	  (1u << 0) /* EDX: vCPUs never preempted */
#define CPUID7_EBX_INVPCID	  (1u << 10)
#define CPUID80000001_EDX_PDPE1GB (1u << 26)
#define CPUID80000001_EDX_NX	  (1u << 20)
#define CPUID80000007_EDX_INVTSC  (1u << 8)
#define CPUID80000008_EBX_INVLPGB (1u << 3)

#endif
