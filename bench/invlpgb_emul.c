// SPDX-License-Identifier: MIT
/*
 * The INVLPGB software model (DESIGN.md), for CI only and only when asked
 * (invlpgb=emulate) on a CPU without INVLPGB: the #UD that 0F 01 FE and
 * 0F 01 FF raise is caught, the operands are decoded as the hardware would
 * decode them, and the invalidation is posted to every CPU; TLBSYNC waits
 * for it. Its purpose is to prove the INVLPGB code path and its encodings
 * with the stale-read verifier under QEMU; its timings mean nothing, and
 * every record made with it says "emulated": true.
 *
 * The real-page-size rule comes for free: each page is invalidated with
 * INVLPG at its address, which drops whatever entry maps that address. So
 * a 2 MiB stride over 4 KiB mappings misses the 511 pages after each
 * address, as on the hardware.
 */
#include "bench/invlpgb_emul.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define EMUL_WAIT_US 5000000

struct op {
	uint64_t rax;
	uint32_t ecx, edx;
};

static struct op pending[MAX_CPUS]; /* each CPU's INVLPGB in flight */
static volatile uint64_t emulated_insns;

/* Runs on every CPU: what INVLPGB would do to this CPU's TLB. */
static void apply(void *arg)
{
	const struct op *op = arg;
	uint64_t step = (op->ecx & INVLPGB_ECX_2M_STRIDE) ? (2ull << 20) : 4096;
	uint64_t va = op->rax & ~0xfffull;
	uint32_t pages = (op->ecx & INVLPGB_ECX_COUNT_MASK) + 1;

	if (!(op->rax & INVLPGB_RAX_VA)) {
		cr3_reload(); /* every address (of this address space) */
		return;
	}
	for (uint32_t i = 0; i < pages; i++)
		invlpg((const void *)(va + i * step));
}

/*
 * INVLPGB is emulated synchronously: the invalidation has reached every
 * CPU when the instruction "retires", so the TLBSYNC that must follow has
 * nothing left to wait for. Several CPUs may emulate at once (flushloop):
 * the cross-calls lock each target's mailbox, and interrupts are turned
 * on while waiting so that this CPU answers the others meanwhile.
 */
static void on_ud(struct trap_frame *f)
{
	const uint8_t *insn = (const uint8_t *)f->rip;
	unsigned cpu = this_cpu();
	struct cpumask others;

	if (insn[0] != 0x0f || insn[1] != 0x01 ||
	    (insn[2] != 0xfe && insn[2] != 0xff)) {
		fault_report(f);
	}
	if (insn[2] == 0xfe) {
		bool irqs_were_on = f->rflags & (1u << 9);

		pending[cpu] =
			(struct op){f->rax, (uint32_t)f->rcx, (uint32_t)f->rdx};
		apply(&pending[cpu]);
		cpus_others(&others);
		irq_enable();
		on_cpumask_shared(&others, apply, &pending[cpu]);
		if (!irqs_were_on)
			irq_disable();
		__atomic_fetch_add(&emulated_insns, 1, __ATOMIC_RELAXED);
	}
	f->rip += 3;
}

bool invlpgb_emul_enable(void)
{
	if (cpu_info.invlpgb)
		return false; /* the real thing is there: never emulate it */
	trap_set_handler(VEC_UD, on_ud);
	return true;
}

void invlpgb_emul_disable(void)
{
	trap_set_handler(VEC_UD, NULL);
}

uint64_t invlpgb_emul_count(void)
{
	return emulated_insns;
}
