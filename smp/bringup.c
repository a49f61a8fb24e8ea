// SPDX-License-Identifier: MIT
/*
 * Starting the other CPUs: all of them at once. The boot CPU sends INIT to
 * every AP, then STARTUP IPIs (SDM vol. 3A, 9.4.4.1, "INIT-SIPI-SIPI"),
 * and waits for the APs to report in; an AP that has not within its time
 * is named and left out.
 *
 * Two sequences (init_wait=, smp/initwait.h). The MP specification's, for
 * CPUs that may need it: INIT, 10 ms, STARTUP to all, 200 us, STARTUP to
 * all again, 200 us. Without the wait, on every CPU known not to need it:
 * INIT, STARTUP to all at once, then a second STARTUP only to those that
 * have not started within 200 us (a CPU that has started ignores it, so
 * the second one only matters for a first one that came too early or was
 * lost). Every wait has its timeout.
 */
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "lib/string.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/memops.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define TR_OFF(sym)   ((uint64_t)(sym) - (uint64_t)trampoline_start)
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200
/* Reporting in: 100 ms, plus 20 ms a CPU for emulators that run them in
 * turn on one host thread. */
#define ARRIVAL_BASE_US	   100000
#define ARRIVAL_PER_CPU_US 20000

extern const char trampoline_start[], trampoline_end[], tr_gdt_ptr[],
	tr_jump32[], tr_jump64[], tr_cr3[], tr_efer[], tr_stacks[], tr_entry[],
	tr_ticket[], tr_gdt[], tr_pm32[], tr_lm64[];

static uint64_t ap_stacks[MAX_CPUS]; /* stack tops, handed out by ticket */
static volatile unsigned ap_arrived;
static volatile unsigned ap_strays;  /* started, but not in our list */
static volatile unsigned ap_started; /* in ap_main, index found */
static struct cpumask cpus_started;

static uint32_t my_apic_id(void)
{
	if (apic_mode == APIC_X2APIC && cpu_info.max_leaf >= 0xb)
		return cpuid_count(0xb, 0).edx;
	return cpuid(1).ebx >> 24;
}

/*
 * The idle loops (idle=, smp/idle.h). Each returns the background work
 * posted to pc (smp_start_background) with interrupts on; meanwhile the
 * CPU takes IPIs.
 */
static xcall_fn bg_posted(struct percpu *pc)
{
	return __atomic_load_n(&pc->bg_fn, __ATOMIC_ACQUIRE);
}

/* Awake all the time: the TLB keeps its entries, an IPI finds it running. */
static xcall_fn idle_poll(struct percpu *pc)
{
	xcall_fn fn;

	irq_enable();
	while (!(fn = bg_posted(pc)))
		cpu_relax();
	return fn;
}

/*
 * Checked with interrupts off, then STI;HLT: an IPI that comes between
 * the check and HLT still wakes the HLT, so no wake-up is lost.
 */
static xcall_fn idle_hlt(struct percpu *pc)
{
	xcall_fn fn;

	for (;;) {
		irq_disable();
		fn = bg_posted(pc);
		if (fn)
			break;
		sti_hlt();
	}
	irq_enable();
	return fn;
}

/*
 * The monitor is armed before the last check, so a post after the check
 * ends the MWAIT at once; interrupts end it too. PAUSE after each MWAIT:
 * QEMU's TCG runs MWAIT as a no-op when there are several vCPUs, and PAUSE
 * lets the others run (docs/qemu.md).
 */
static xcall_fn idle_mwait(struct percpu *pc)
{
	xcall_fn fn;

	for (;;) {
		irq_disable();
		monitor(&pc->bg_fn);
		fn = bg_posted(pc);
		if (fn)
			break;
		sti_mwait();
		cpu_relax();
	}
	irq_enable();
	return fn;
}

/* Wait in idle= 's loop; run background work when some is posted. */
static void ap_idle(struct percpu *pc)
{
	for (;;) {
		xcall_fn fn;

		if (smp_stats.idle == IDLE_POLL)
			fn = idle_poll(pc);
		else if (smp_stats.idle == IDLE_MWAIT)
			fn = idle_mwait(pc);
		else
			fn = idle_hlt(pc);
		pc->bg_fn = NULL;
		fn(pc->bg_arg); /* it can take cross-calls: interrupts on */
		__atomic_fetch_add(&pc->bg_finished, 1, __ATOMIC_RELEASE);
	}
}

/* C entry of every AP, on the stack its ticket gave it. */
void ap_main(void);
void ap_main(void)
{
	uint32_t id = my_apic_id();
	unsigned cpu;

	for (cpu = 1; cpu < nr_cpus && cpu_apic_id[cpu] != id; cpu++)
		;
	if (cpu == nr_cpus) {
		__atomic_fetch_add(&ap_strays, 1, __ATOMIC_SEQ_CST);
		halt_forever();
	}
	cpumask_set_atomic(cpu, &cpus_started);
	__atomic_fetch_add(&ap_started, 1, __ATOMIC_SEQ_CST);
	percpu_install(percpu[cpu]);
	traps_init_cpu(percpu[cpu]->tables, percpu[cpu]->ist);
	mm_init_ap();
	apic_init_cpu();
	cpumask_set_atomic(cpu, &cpus_online);
	__atomic_fetch_add(&ap_arrived, 1, __ATOMIC_SEQ_CST);
	ap_idle(percpu[cpu]);
}

/*
 * Stack slot i: AP_STACK_SIZE under its top, with the page under it
 * unmapped. Maps the pages [lo, hi) of it, counted down from the top, to
 * one run of frames.
 */
static bool map_stack(unsigned i, uint64_t lo, uint64_t hi)
{
	uint64_t top = STACK_BASE + (i + 1) * STACK_SLOT;
	uint64_t pa = frame_alloc_run(hi - lo, PAGE_SIZE);

	if (!pa)
		return false;
	for (uint64_t k = lo; k < hi; k++) {
		if (vm_map(top - (k + 1) * PAGE_SIZE,
			   pa + (hi - 1 - k) * PAGE_SIZE, PT_4K,
			   PTE_P | PTE_W | PTE_G | pte_nx(), NULL) != PT_OK)
			return false;
	}
	ap_stacks[i] = top;
	return true;
}

static uint64_t round_up(uint64_t n, uint64_t align)
{
	return (n + align - 1) & ~(align - 1);
}

/*
 * Memory for each AP: its per-CPU area, GDT and TSS, a stack, and its IST
 * stacks. Bring-up writes only the first three and the stack's top page;
 * they are taken first, so that they lie together (the per-CPU areas,
 * GDTs and TSSs of all APs side by side in one run of frames), and the
 * rest after. Under QEMU the first write to each 2 MiB of guest memory
 * makes the host fault in a huge page, which takes milliseconds on a busy
 * host: spread over every AP's memory, those writes cost more than the
 * rest of bring-up together. Each AP's share of the run is a power of two
 * of at least two cache lines (adjacent lines are often fetched together),
 * so that none straddles a page.
 */
static bool prepare_aps(void)
{
	uint64_t pc_size = round_up(sizeof(struct percpu), 2 * CACHELINE);
	uint64_t share = 2 * CACHELINE, bytes, run;
	uint64_t ist_frames = round_up(TRAPS_IST_SIZE, PAGE_SIZE) / PAGE_SIZE;
	uint8_t *hot;

	while (share < pc_size + traps_tables_size())
		share *= 2;
	bytes = share * (nr_cpus - 1);
	run = frame_alloc_run(round_up(bytes, PAGE_SIZE) / PAGE_SIZE,
			      PAGE_SIZE);
	if (!run)
		return false;
	hot = phys_to_virt(run);
	mem_zero(hot, bytes);
	for (unsigned cpu = 1; cpu < nr_cpus; cpu++) {
		struct percpu *pc = (void *)(hot + share * (cpu - 1));

		pc->cpu = cpu;
		pc->apic_id = cpu_apic_id[cpu];
		pc->tables = (uint8_t *)pc + pc_size;
		percpu[cpu] = pc;
		if (!map_stack(cpu - 1, 0, 1))
			return false;
	}
	for (unsigned cpu = 1; cpu < nr_cpus; cpu++) {
		uint64_t ist = frame_alloc_run(ist_frames, PAGE_SIZE);

		if (!ist || !map_stack(cpu - 1, 1, AP_STACK_SIZE / PAGE_SIZE))
			return false;
		percpu[cpu]->ist = phys_to_virt(ist);
	}
	return true;
}

/* Copies the trampoline to its page and fills in its data block. */
static bool install_trampoline(uint64_t page, const char **why)
{
	uint8_t *t = phys_to_virt(page);
	size_t len = (size_t)(trampoline_end - trampoline_start);

	if (!page || page >= 0x100000 || len > PAGE_SIZE) {
		*why = "no usable page below 1 MiB for the AP trampoline";
		return false;
	}
	if (kernel_pt.root >= (4ull << 30)) {
		*why = "the page tables' root is above 4 GiB";
		return false;
	}
	memcpy(t, trampoline_start, len);
	*(uint32_t *)(t + TR_OFF(tr_gdt_ptr) + 2) = page + TR_OFF(tr_gdt);
	*(uint32_t *)(t + TR_OFF(tr_jump32)) = page + TR_OFF(tr_pm32);
	*(uint32_t *)(t + TR_OFF(tr_jump64)) = page + TR_OFF(tr_lm64);
	*(uint32_t *)(t + TR_OFF(tr_cr3)) = (uint32_t)kernel_pt.root;
	*(uint32_t *)(t + TR_OFF(tr_efer)) = cpu_info.nx ? EFER_NXE : 0;
	*(uint32_t *)(t + TR_OFF(tr_ticket)) = 0;
	*(uint64_t *)(t + TR_OFF(tr_stacks)) = (uint64_t)ap_stacks;
	*(uint64_t *)(t + TR_OFF(tr_entry)) = (uint64_t)ap_main;
	/* The APs turn paging on while running here: identity-map it. */
	if (vm_map(page, page, PT_4K, PTE_P | PTE_W, NULL) != PT_OK) {
		*why = "could not identity-map the trampoline page";
		return false;
	}
	return true;
}

/* To every AP, or (unstarted) to those not yet in ap_main; how many. */
static unsigned send_to_aps(uint32_t icr, bool unstarted)
{
	unsigned sent = 0;

	for (unsigned cpu = 1; cpu < nr_cpus; cpu++) {
		if (unstarted && cpumask_test_atomic(cpu, &cpus_started))
			continue;
		sent++;
		if (!apic_send(cpu_apic_id[cpu], icr))
			report_info("smp: bringup: the APIC did not accept an "
				    "IPI to apic id %u",
				    cpu_apic_id[cpu]);
	}
	return sent;
}

/* Until every AP is in ap_main, or `us` have passed. */
static void wait_started(uint64_t us)
{
	uint64_t limit = us_to_cycles(us), start = rdtsc();

	while (ap_started < nr_cpus - 1 && rdtsc() - start < limit)
		cpu_relax();
}

static void wait_arrivals(void)
{
	uint64_t limit = us_to_cycles(ARRIVAL_BASE_US +
				      ARRIVAL_PER_CPU_US * (uint64_t)nr_cpus);
	uint64_t start = rdtsc();

	while (ap_arrived < nr_cpus - 1 && rdtsc() - start < limit)
		cpu_relax();
}

/* INIT, then STARTUP IPIs, as init_wait says (see the top of this file). */
static void start_aps(uint32_t sipi, bool init_wait)
{
	send_to_aps(ICR_INIT | ICR_ASSERT | ICR_LEVEL, false);
	if (init_wait) {
		udelay(INIT_DELAY_US);
		for (int i = 0; i < 2; i++) {
			smp_stats.sipis += send_to_aps(sipi, false);
			udelay(SIPI_DELAY_US);
		}
	} else {
		smp_stats.sipis += send_to_aps(sipi, false);
		wait_started(SIPI_DELAY_US);
		smp_stats.sipis += send_to_aps(sipi, true);
	}
	wait_arrivals();
}

bool smp_start_aps(uint64_t tramp_page, bool init_wait, const char **why)
{
	uint64_t old;
	bool ok = true;

	if (nr_cpus < 2)
		return true;
	/* First: the page tables it needs then lie with prepare_aps()'s. */
	if (!install_trampoline(tramp_page, why))
		return false;
	if (prepare_aps()) {
		start_aps(ICR_STARTUP | (uint32_t)(tramp_page >> 12),
			  init_wait);
	} else {
		*why = "out of memory for AP stacks and per-CPU areas";
		ok = false;
	}
	/* Every AP that will ever run is past the trampoline or lost. */
	vm_unmap(tramp_page, PT_4K, &old);
	invlpg((const void *)tramp_page);
	if (ap_strays)
		report_info("smp: bringup: %u CPUs started that are not in "
			    "the list; they were halted",
			    ap_strays);
	return ok;
}
