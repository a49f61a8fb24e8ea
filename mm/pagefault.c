// SPDX-License-Identifier: MIT
#include "kernel/cpu.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "mm/pagefault.h"

static struct {
	volatile bool active;
	uint64_t lo, hi;
	enum pf_action action;
	pf_fixup fix;
	volatile unsigned count;
	struct pf_record last;
} expect;

static void on_page_fault(struct trap_frame *f)
{
	uint64_t addr = read_cr2();

	if (expect.active && addr >= expect.lo && addr < expect.hi) {
		expect.last =
			(struct pf_record){this_cpu(), addr, f->error, f->rip};
		__atomic_fetch_add(&expect.count, 1, __ATOMIC_RELAXED);
		if (expect.action == PF_RESUME && expect.fix &&
		    expect.fix(addr, f->error))
			return;
		if (trap_fixup_safe(f))
			return;
	}
	/* Unexpected, or expected but neither repairable nor skippable. */
	fault_report(f);
}

void pagefault_init(void)
{
	trap_set_handler(VEC_PF, on_page_fault);
}

void pf_expect(uint64_t lo, uint64_t hi, enum pf_action action, pf_fixup fix)
{
	expect.lo = lo;
	expect.hi = hi;
	expect.action = action;
	expect.fix = fix;
	expect.count = 0;
	__atomic_store_n(&expect.active, true, __ATOMIC_SEQ_CST);
}

unsigned pf_expect_end(struct pf_record *last)
{
	__atomic_store_n(&expect.active, false, __ATOMIC_SEQ_CST);
	if (last)
		*last = expect.last;
	return expect.count;
}
