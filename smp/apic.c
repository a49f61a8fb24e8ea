// SPDX-License-Identifier: MIT
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/cpumask.h"

/* Register offsets in the xAPIC page; the x2APIC MSR is 0x800 + off / 16. */
#define APIC_ID		 0x20
#define APIC_VERSION	 0x30
#define APIC_TPR	 0x80
#define APIC_EOI	 0xb0
#define APIC_SVR	 0xf0
#define APIC_ESR	 0x280
#define APIC_ICR_LOW	 0x300
#define APIC_ICR_HIGH	 0x310
#define APIC_LVT_TIMER	 0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PERF	 0x340
#define APIC_LVT_LINT0	 0x350
#define APIC_LVT_LINT1	 0x360
#define APIC_LVT_ERROR	 0x370
#define SVR_ENABLE	 (1u << 8)
#define LVT_MASKED	 (1u << 16)
#define LVT_NMI		 (4u << 8)
/*
 * An xAPIC accepts an IPI within microseconds; allow far more. In time,
 * not in spins: a spin is tens of cycles on hardware and microseconds
 * under an emulating hypervisor.
 */
#define ICR_BUSY_US 100000

#define PIC1_DATA   0x21
#define PIC2_DATA   0xa1

enum apic_mode apic_mode;
static volatile uint32_t *xapic;

static uint32_t apic_read(uint32_t reg)
{
	if (apic_mode == APIC_X2APIC)
		return (uint32_t)rdmsr(MSR_X2APIC_BASE + (reg >> 4));
	return xapic[reg / 4];
}

static void apic_write(uint32_t reg, uint32_t val)
{
	if (apic_mode == APIC_X2APIC)
		wrmsr(MSR_X2APIC_BASE + (reg >> 4), val);
	else
		xapic[reg / 4] = val;
}

bool apic_setup(uint64_t madt_lapic_addr, const char **why)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (!(cpuid(1).edx & (1u << 9))) {
		*why = "CPUID.1:EDX[9] (APIC) is clear";
		return false;
	}
	/* Firmware with > 255 CPUs may hand over in x2APIC mode already. */
	if ((base & APIC_BASE_EXTD) || cpu_info.x2apic) {
		apic_mode = APIC_X2APIC;
	} else {
		uint64_t pa = base & APIC_BASE_ADDR_MASK;

		apic_mode = APIC_XAPIC;
		xapic = mmio_map(pa ? pa : madt_lapic_addr, 4096);
		if (!xapic) {
			*why = "could not map the xAPIC page";
			return false;
		}
	}
	/* No 8259 interrupts, ever: mask both PICs. */
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	return true;
}

void apic_init_cpu(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;
	unsigned max_lvt;

	/*
	 * Disabled -> x2APIC in one write is an invalid transition (#GP, SDM
	 * 11.12.5): enable xAPIC mode first, then switch.
	 */
	wrmsr(MSR_APIC_BASE, base);
	if (apic_mode == APIC_X2APIC && !(base & APIC_BASE_EXTD))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
	apic_write(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	apic_write(APIC_TPR, 0);
	max_lvt = (apic_read(APIC_VERSION) >> 16) & 0xff;
	/* Writing an LVT the APIC lacks is a #GP in x2APIC mode. */
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);
	apic_write(APIC_LVT_LINT1, LVT_NMI);
	apic_write(APIC_LVT_ERROR, LVT_MASKED);
	if (max_lvt >= 4)
		apic_write(APIC_LVT_PERF, LVT_MASKED);
	if (max_lvt >= 5)
		apic_write(APIC_LVT_THERMAL, LVT_MASKED);
	apic_write(APIC_ESR, 0);
	apic_eoi();
}

uint32_t apic_read_id(void)
{
	if (apic_mode == APIC_X2APIC)
		return (uint32_t)rdmsr(MSR_X2APIC_BASE + (APIC_ID >> 4));
	return xapic[APIC_ID / 4] >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

bool apic_inject_busy;

static bool xapic_wait_idle(void)
{
	uint64_t start, limit;

	if (apic_inject_busy)
		return false; /* as if the limit had passed (selftest) */
	if (!(xapic[APIC_ICR_LOW / 4] & ICR_BUSY))
		return true; /* the usual case: no clock read */
	start = rdtsc();
	limit = us_to_cycles(ICR_BUSY_US);
	while (xapic[APIC_ICR_LOW / 4] & ICR_BUSY) {
		if (rdtsc() - start > limit)
			return false;
		cpu_relax();
	}
	return true;
}

uint64_t apic_icr_writes[MAX_CPUS];

/* Counted once the ICR is written: a send never accepted is no IPI. */
bool apic_send(uint32_t apic_id, uint32_t icr_low)
{
	if (apic_mode == APIC_X2APIC) {
		/* The mailbox stores before the IPI, on Intel too. */
		weak_wrmsr_fence(cpu_info.apic_msr_fence);
		/* One 64-bit write: destination in bits 63:32. */
		wrmsr(MSR_X2APIC_BASE + (APIC_ICR_LOW >> 4),
		      ((uint64_t)apic_id << 32) | icr_low);
	} else {
		if (!xapic_wait_idle())
			return false;
		xapic[APIC_ICR_HIGH / 4] = apic_id << 24;
		xapic[APIC_ICR_LOW / 4] = icr_low;
	}
	apic_icr_writes[this_cpu()]++;
	return true;
}

bool apic_send_all_but_self(uint32_t icr_low)
{
	return apic_send(0, icr_low | ICR_ALL_EXCL);
}

const char *apic_mode_name(void)
{
	return apic_mode == APIC_X2APIC ? "x2apic" : "xapic";
}

uint32_t apic_max_id(void)
{
	return apic_mode == APIC_X2APIC ? 0xfffffffeu : 0xfe;
}

/* IOAPIC: IOREGSEL at +0, IOWIN at +0x10; redirection entry i at 0x10+2i. */
bool ioapic_mask_all(uint64_t addr)
{
	volatile uint32_t *io = mmio_map(addr, 32);
	unsigned entries;

	if (!io)
		return false;
	io[0] = 1; /* version register */
	entries = ((io[4] >> 16) & 0xff) + 1;
	for (unsigned i = 0; i < entries; i++) {
		io[0] = 0x10 + 2 * i;
		io[4] = io[4] | LVT_MASKED;
	}
	return true;
}
