// SPDX-License-Identifier: MIT
/*
 * The fatal-fault report (docs/faults.md): a FAIL verdict naming the
 * CPU, vector and RIP; the registers and a frame-pointer backtrace for a
 * person (resolve with `addr2line -e build/shootdown.elf ADDR`); a "fault"
 * record for a parser; the summary so far; EXIT: STATUS=63.
 */
#include <stdint.h>
#include "console.h"
#include "cpu.h"
#include "exit.h"
#include "report.h"
#include "trap.h"
#include "x86.h"

#define BACKTRACE_MAX 16

/* CPU + 1 of the one reporting a fault; 0 while none is. */
static volatile unsigned fault_reporter;
void (*fault_stop_others)(void);

/* Image bounds from linker.ld: return addresses must point into text. */
extern const char __text_start[], __text_end[];

/*
 * Frame pointers live on the faulting stack: accept only 8-aligned ones
 * above the faulting RSP and within a stack's reach of it, so that a
 * corrupt chain cannot make the report itself fault.
 */
#define BACKTRACE_STACK_REACH (64u << 10)

static int backtrace(uint64_t rbp, uint64_t rsp, uint64_t *out, int max)
{
	int n = 0;

	/* Each frame: [rbp] = caller's rbp, [rbp + 8] = return address. */
	while (n < max && rbp && !(rbp & 7) && rbp >= rsp &&
	       rbp + 16 <= rsp + BACKTRACE_STACK_REACH) {
		uint64_t ret = ((uint64_t *)rbp)[1];

		if (ret < (uint64_t)__text_start || ret >= (uint64_t)__text_end)
			break;
		out[n++] = ret;
		rbp = ((uint64_t *)rbp)[0];
	}
	return n;
}

static void print_registers(const struct trap_frame *f)
{
	kprintf("  rax=%016llx rbx=%016llx rcx=%016llx rdx=%016llx\n"
		"  rsi=%016llx rdi=%016llx rbp=%016llx rsp=%016llx\n"
		"  r8 =%016llx r9 =%016llx r10=%016llx r11=%016llx\n"
		"  r12=%016llx r13=%016llx r14=%016llx r15=%016llx\n"
		"  rip=%016llx rflags=%08llx cs=%llx ss=%llx cr2=%016llx "
		"cr3=%016llx\n",
		(unsigned long long)f->rax, (unsigned long long)f->rbx,
		(unsigned long long)f->rcx, (unsigned long long)f->rdx,
		(unsigned long long)f->rsi, (unsigned long long)f->rdi,
		(unsigned long long)f->rbp, (unsigned long long)f->rsp,
		(unsigned long long)f->r8, (unsigned long long)f->r9,
		(unsigned long long)f->r10, (unsigned long long)f->r11,
		(unsigned long long)f->r12, (unsigned long long)f->r13,
		(unsigned long long)f->r14, (unsigned long long)f->r15,
		(unsigned long long)f->rip, (unsigned long long)f->rflags,
		(unsigned long long)f->cs, (unsigned long long)f->ss,
		(unsigned long long)read_cr2(), (unsigned long long)read_cr3());
}

static void fault_record(const struct trap_frame *f, const uint64_t *bt, int n)
{
	char buf[768];
	struct record r;

	record_begin(&r, buf, sizeof(buf), "fault");
	json_u64(&r.j, "cpu", this_cpu());
	json_u64(&r.j, "vector", f->vector);
	json_str(&r.j, "name", trap_name((unsigned)f->vector));
	json_hex(&r.j, "error", f->error);
	json_hex(&r.j, "rip", f->rip);
	json_hex(&r.j, "rsp", f->rsp);
	json_hex(&r.j, "cr2", read_cr2());
	json_begin_array(&r.j, "backtrace");
	for (int i = 0; i < n; i++)
		json_hex(&r.j, NULL, bt[i]);
	json_end_array(&r.j);
	record_end(&r);
}

/*
 * One CPU reports; true for it. Another CPU that faults meanwhile stops
 * here, silent (the reporter's NMI would stop it anyway); both seeing
 * "nobody reports yet" would each stop the other, and nobody report.
 * False for the reporter itself faulting again.
 */
static bool claim_report(void)
{
	unsigned me = this_cpu() + 1, prev = 0;

	if (__atomic_compare_exchange_n(&fault_reporter, &prev, me, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	if (prev != me)
		halt_forever();
	return false;
}

void fault_report(const struct trap_frame *f)
{
	uint64_t bt[BACKTRACE_MAX];
	int n;

	irq_disable();
	if (!claim_report()) {
		/* Faulted while reporting a fault: say the least and stop. */
		kprintf("\nFAULT: vector %llu at rip %016llx while reporting a "
			"fault\nEXIT: STATUS=%d\n",
			(unsigned long long)f->vector,
			(unsigned long long)f->rip, STATUS_ABORTED);
		run_exit_raw(STATUS_ABORTED);
	}
	if (fault_stop_others)
		fault_stop_others();
	console_enter_panic();
	kprintf("\n");
	report_fail("fault",
		    "cpu %u: vector %llu (%s), error 0x%llx, rip 0x%016llx",
		    this_cpu(), (unsigned long long)f->vector,
		    trap_name((unsigned)f->vector),
		    (unsigned long long)f->error, (unsigned long long)f->rip);
	print_registers(f);
	n = backtrace(f->rbp, f->rsp, bt, BACKTRACE_MAX);
	kprintf("  backtrace: %016llx", (unsigned long long)f->rip);
	for (int i = 0; i < n; i++)
		kprintf(" %016llx", (unsigned long long)bt[i]);
	kprintf("\n  (addr2line -e build/shootdown.elf ADDR names them)\n");
	fault_record(f, bt, n);
	report_summary();
	run_exit(STATUS_ABORTED);
}
