// SPDX-License-Identifier: MIT
/*
 * In-guest checks of each TLB-invalidation primitive (names start "tlb:"):
 * change a PTE the TLB holds, read it once before the invalidation (the
 * control: a CPU that caches still reads the old frame), invalidate with
 * the primitive, and read the new frame. Where the control already reads
 * the new frame, the CPU re-walked the tables and the check SKIPs: it
 * could not have failed. Optional instructions are gated on CPUID and SKIP
 * with the reason when absent. INVLPGB, a broadcast, is checked on every
 * CPU, each against its own control; it also runs through the software
 * model (invlpgb=emulate) where CPUID lacks it.
 */
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

/* A page of its own, past the ones mm_selftest.c uses. */
#define TLB_VA	 (EXPERIMENT_BASE + (1ull << 20))
#define SPLIT_VA (EXPERIMENT_BASE + (1ull << 30))

static volatile uint64_t *const word = (volatile uint64_t *)TLB_VA;
static uint64_t frames[2];
static int current;

/* Points TLB_VA at the other frame after making sure the TLB holds it. */
static bool flip(void)
{
	uint64_t old;

	(void)*word;
	current ^= 1;
	return vm_unmap(TLB_VA, PT_4K, &old) == PT_OK &&
	       vm_map(TLB_VA, frames[current], PT_4K, PTE_P | PTE_W | pte_nx(),
		      NULL) == PT_OK;
}

/* The tag read before the invalidation: the control. */
static uint64_t before(void)
{
	return *word;
}

/* The new frame, read after the invalidation; the read before decides. */
static void expect_current(const char *name, uint64_t before)
{
	struct report_control ctl = {.name = "the control"};
	uint64_t seen = *word;
	char why[80];

	report_control_note(&ctl, before != frames[current],
			    "the read before the invalidation saw the new "
			    "frame too: this CPU re-walks the tables");
	ksnprintf(
		why, sizeof(why), "read the tag of frame %#llx, expected %#llx",
		(unsigned long long)seen, (unsigned long long)frames[current]);
	report_gated(&ctl, seen != frames[current], "reads of the old frame",
		     why, "%s", name);
}

static bool setup(void)
{
	for (int i = 0; i < 2; i++) {
		frames[i] = frame_alloc(PMM_ZERO);
		if (!frames[i])
			return false;
		/* Each frame holds its own address as a tag. */
		*(volatile uint64_t *)phys_to_virt(frames[i]) = frames[i];
	}
	return vm_map(TLB_VA, frames[0], PT_4K, PTE_P | PTE_W | pte_nx(),
		      NULL) == PT_OK;
}

static void check_cr3_reload(void)
{
	uint64_t b;

	if (flip()) {
		b = before();
		cr3_reload();
		expect_current("tlb: cr3 reload drops a non-global entry", b);
	}
}

static void check_invpcid(void)
{
	if (!cpu_info.invpcid || !cpu_info.pcid) {
		report_skip("tlb: invpcid", "CPUID.7:EBX[10] (INVPCID) or "
					    "CPUID.1:ECX[17] (PCID) is clear");
		return;
	}
	if (flip()) {
		uint64_t b = before();

		invpcid(INVPCID_ADDR, HARNESS_PCID, TLB_VA);
		expect_current("tlb: invpcid (individual address)", b);
	}
}

/* Toggling CR4.PGE drops every entry of this CPU, global ones included. */
static void pge_toggle(void)
{
	uint64_t cr4 = read_cr4();

	write_cr4(cr4 & ~CR4_PGE);
	write_cr4(cr4);
}

/* TLB_VA on frames[f], global or not; false if the tables refused. */
static bool map_tag(int f, uint64_t global)
{
	uint64_t old;

	current = f;
	return vm_unmap(TLB_VA, PT_4K, &old) == PT_OK &&
	       vm_map(TLB_VA, frames[f], PT_4K,
		      PTE_P | PTE_W | pte_nx() | global, NULL) == PT_OK;
}

/*
 * A global entry (PTE.G, CR4.PGE on) survives a CR3 reload and is dropped
 * by toggling CR4.PGE (SDM vol. 3, 4.10.4.1): what ipi-full-global relies
 * on and a flush that reloads CR3 alone gets wrong. A CPU may drop any
 * entry at any time, so a CR3 reload that dropped it is not a failure:
 * the check SKIPs, saying so (QEMU TCG drops every entry, global ones
 * included, on each CR3 write). Only this CPU: the cross-CPU paths are
 * shootdown's ipi-full-global.
 */
static void check_global(void)
{
	struct report_control ctl = {.name = "the control"};
	uint64_t b, kept, seen;
	int old = current ^ 1;
	char why[96];

	if (!map_tag(old, PTE_G))
		return;
	pge_toggle();
	(void)*word; /* a global entry for the old frame */
	if (!map_tag(old ^ 1, PTE_G))
		return;
	b = before();
	cr3_reload();
	kept = *word;
	pge_toggle();
	seen = *word;
	if (b != frames[old])
		report_control_note(&ctl, false,
				    "the read before the CR3 reload saw the "
				    "new frame: this CPU re-walks the tables");
	else
		report_control_note(&ctl, kept == frames[old],
				    "a CR3 reload dropped the global entry "
				    "(QEMU TCG drops every entry on a CR3 "
				    "write): only its drop by CR4.PGE is "
				    "shown");
	ksnprintf(why, sizeof(why),
		  "read the tag of frame %#llx after toggling CR4.PGE, "
		  "expected %#llx",
		  (unsigned long long)seen,
		  (unsigned long long)frames[current]);
	report_gated(&ctl, seen != frames[current], "reads of the old frame",
		     why,
		     "tlb: a global entry survives a CR3 reload, toggling "
		     "CR4.PGE drops it");
	/* Back to a non-global mapping, nothing global of it cached. */
	if (map_tag(current, 0))
		pge_toggle();
}

/* What each CPU read at TLB_VA: before the invalidation, and after it. */
static uint64_t seen_before[MAX_CPUS], seen_after[MAX_CPUS];

/* Cross-call: this CPU's read of TLB_VA into its slot of arg. */
static void read_tag(void *arg)
{
	((uint64_t *)arg)[this_cpu()] = *word;
}

/* fn(arg) here and on every other online CPU; false if one did not answer. */
static bool on_every_cpu(xcall_fn fn, void *arg)
{
	struct cpumask others;

	cpus_others(&others);
	fn(arg);
	return on_cpumask(&others, fn, arg, IPI_EACH);
}

/*
 * Appends ", N" to buf for every online CPU whose slot of v is (want) or is
 * not (!want) tag, listing at most 8; returns how many there are.
 */
static unsigned cpus_where(const uint64_t *v, uint64_t tag, bool want,
			   char *buf, size_t size)
{
	unsigned cpu, n = 0;
	size_t len = 0;

	for_each_cpu(cpu, &cpus_online) {
		if ((v[cpu] == tag) != want)
			continue;
		if (n++ < 8)
			len += kscnprintf(buf + len, size - len, "%s%u",
					  n > 1 ? ", " : "", cpu);
	}
	if (n > 8)
		kscnprintf(buf + len, size - len, " and %u more", n - 8);
	return n;
}

#define INVLPGB_CHECK "tlb: invlpgb + tlbsync on every cpu"

/*
 * The negative control: the tags every CPU read after the remap and before
 * any invalidation. A CPU that read the new frame re-walked the tables, so
 * the check below says nothing about it; shown where any CPU kept the old.
 */
static void control_verdict(uint64_t old, struct report_control *ctl)
{
	unsigned stale, online = cpumask_count(&cpus_online);
	char fresh[96] = "";

	report_control_init(ctl, "tlb: invlpgb + tlbsync: negative control");
	stale = online -
		cpus_where(seen_before, old, false, fresh, sizeof(fresh));
	if (!stale) {
		report_control_missed(ctl, "no cpu read the old frame after "
					   "the remap without INVLPGB: they "
					   "re-walk the tables");
		return;
	}
	report_control_shown(ctl,
			     "%u of %u cpus kept the old translation "
			     "without it",
			     stale, online);
	if (stale < online)
		report_info("tlb: invlpgb + tlbsync: cpu %s read the new "
			    "frame without INVLPGB: the check does not speak "
			    "for them",
			    fresh);
}

/* Every CPU must read the new frame; the control decides what that is worth. */
static void invlpgb_verdict(uint64_t old)
{
	struct report_control ctl;
	char cpus[96] = "", why[200];
	unsigned bad = cpus_where(seen_after, frames[current], false, cpus,
				  sizeof(cpus));

	control_verdict(old, &ctl);
	ksnprintf(why, sizeof(why),
		  "cpu %s (%u of %u) did not read the new frame %#llx after "
		  "INVLPGB + TLBSYNC from cpu %u",
		  cpus, bad, cpumask_count(&cpus_online),
		  (unsigned long long)frames[current], this_cpu());
	report_gated(&ctl, bad, "cpus that read the old frame", why, "%s",
		     INVLPGB_CHECK);
}

/* selftest=invlpgb-local: the bug of a flush that never left this CPU. */
static void invalidate(const struct invlpgb_regs *r, bool local)
{
	if (local) {
		invlpg((const void *)TLB_VA);
		return;
	}
	mfence(); /* INVLPGB is weakly ordered against the PTE store */
	invlpgb(r->rax, r->ecx, r->edx);
	tlbsync();
}

static bool invlpgb_usable(const struct tlb_invlpgb_model *model, bool local,
			   struct invlpgb_regs *r)
{
	struct invlpgb_caps caps = {.max_pages =
					    model ? model->max_pages
						  : cpu_info.invlpgb_max_pages,
				    .pcide = cpu_info.pcid};
	struct invlpgb_req req = {.va = TLB_VA, .pages = 1};
	int err;

	if (!cpu_info.invlpgb && !model) {
		report_skip(INVLPGB_CHECK, "%s", cpu_invlpgb_absent_reason());
		if (local)
			report_info("selftest: selftest=invlpgb-local: no "
				    "INVLPGB check to break");
		return false;
	}
	err = invlpgb_encode(&req, &caps, r);
	if (err)
		report_fail(INVLPGB_CHECK, "encoder refused: %s",
			    invlpgb_strerror(err));
	return !err;
}

/*
 * Every CPU caches TLB_VA, CPU 0 remaps it, every CPU reads it (the
 * control: no invalidation yet), CPU 0 issues INVLPGB + TLBSYNC, every
 * CPU reads it again: each must now see the new frame. A broadcast that
 * misses a responder shows only on that responder, so all are checked.
 */
static void check_invlpgb(const struct tlb_invlpgb_model *model, bool local)
{
	struct invlpgb_regs r;
	uint64_t old;

	if (!invlpgb_usable(model, local, &r))
		return;
	if (local)
		report_info("selftest: selftest=invlpgb-local: a local INVLPG "
			    "in place of INVLPGB + TLBSYNC: %s",
			    cpumask_count(&cpus_online) > 1
				    ? "every other cpu must keep the old frame"
				    : "one cpu only, so nothing can stay "
				      "stale");
	if (!on_every_cpu(read_tag, seen_after))
		return; /* every TLB now holds TLB_VA */
	old = frames[current];
	if (!flip() || !on_every_cpu(read_tag, seen_before))
		return;
	invalidate(&r, local);
	if (on_every_cpu(read_tag, seen_after))
		invlpgb_verdict(old);
	if (model)
		model->report("tlb: checks");
}

/* A 2 MiB page, then split into 4 KiB pages with the same translation. */
static void check_large_and_split(void)
{
	uint64_t pa = frame_alloc_run(512, LARGE_PAGE_SIZE);
	volatile uint64_t *p = (volatile uint64_t *)(SPLIT_VA + 0x12340);
	struct pt_walk w;
	uint64_t old;
	bool ok;

	if (!pa) {
		report_skip("tlb: 2M page and split", "no free 2 MiB run");
		return;
	}
	ok = vm_map(SPLIT_VA, pa, PT_2M, PTE_P | PTE_W | pte_nx(), NULL) ==
	     PT_OK;
	*p = 0x5eed;
	vm_walk((uint64_t)p, &w);
	ok = ok && w.size == PT_2M && w.pa == pa + 0x12340;
	ok = ok && vm_split(SPLIT_VA, PT_2M) == PT_OK;
	invlpg((const void *)p);
	vm_walk((uint64_t)p, &w);
	ok = ok && w.size == PT_4K && w.pa == pa + 0x12340 && *p == 0x5eed;
	report_check(ok, "tlb: 2M page and split", "walk size %d pa %#llx",
		     w.size, (unsigned long long)w.pa);
	for (uint64_t off = 0; off < LARGE_PAGE_SIZE; off += PAGE_SIZE) {
		vm_unmap(SPLIT_VA + off, PT_4K, &old);
		invlpg((const void *)(SPLIT_VA + off));
	}
	frame_free_run(pa, 512);
}

void tlb_selftest_run(const struct config *cfg,
		      const struct tlb_invlpgb_model *invlpgb_model)
{
	if (!setup()) {
		report_fail("tlb: setup", "could not map the test page");
		return;
	}
	check_cr3_reload();
	check_global();
	check_invpcid();
	check_invlpgb(invlpgb_model, cfg->inject == INJECT_INVLPGB_LOCAL);
	check_large_and_split();
}
