// SPDX-License-Identifier: MIT
/*
 * In-guest checks of each TLB-invalidation primitive (names start "tlb:"):
 * change a PTE the TLB holds, read it once before the invalidation (the
 * control: a CPU that caches still reads the old frame), invalidate with
 * the primitive, and read the new frame. Where the control already reads
 * the new frame, the CPU re-walked the tables and the check SKIPs: it
 * could not have failed. Optional instructions are gated on CPUID and SKIP
 * with the reason when absent.
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/mm_selftest.h"
#include "mm/vm.h"

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

static void expect_current(const char *name, uint64_t before)
{
	uint64_t seen = *word;

	if (seen != frames[current])
		report_fail(name, "read the tag of frame %#llx, expected %#llx",
			    (unsigned long long)seen,
			    (unsigned long long)frames[current]);
	else if (before == frames[current])
		report_skip(name, "the new frame was read before the "
				  "invalidation too: this CPU re-walked the "
				  "tables, so this proves nothing here");
	else
		report_pass("%s", name);
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

static void check_invlpgb(void)
{
	struct invlpgb_caps caps = {.max_pages = cpu_info.invlpgb_max_pages,
				    .pcide = cpu_info.pcid};
	struct invlpgb_req req = {.va = TLB_VA, .pages = 1};
	struct invlpgb_regs r;
	int err;

	if (!cpu_info.invlpgb) {
		report_skip("tlb: invlpgb + tlbsync", "%s",
			    cpu_invlpgb_absent_reason());
		return;
	}
	err = invlpgb_encode(&req, &caps, &r);
	if (err) {
		report_fail("tlb: invlpgb + tlbsync", "encoder refused: %s",
			    invlpgb_strerror(err));
		return;
	}
	if (flip()) {
		uint64_t b = before();

		mfence(); /* INVLPGB is weakly ordered against the PTE store */
		invlpgb(r.rax, r.ecx, r.edx);
		tlbsync();
		expect_current("tlb: invlpgb + tlbsync", b);
	}
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

void tlb_selftest_run(void)
{
	if (!setup()) {
		report_fail("tlb: setup", "could not map the test page");
		return;
	}
	check_cr3_reload();
	check_invpcid();
	check_invlpgb();
	check_large_and_split();
}
