// SPDX-License-Identifier: MIT
/*
 * shootdown: the initiator (cpu 0) changes K PTEs that T responders hold in
 * their TLBs, then invalidates them with each strategy; the timed region is
 * the invalidation alone. After every sample each responder re-reads the K
 * addresses: each frame is tagged with its own physical address, so a read
 * tells which translation the CPU used, and any stale read is counted.
 */
#include "bench/bench.h"
#include "bench/rng.h"
#include "bench/shootdown_pages.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/percpu.h"
#include "smp/smp.h"

struct sd_pages sd_pages;

static inline volatile uint64_t *page_va(unsigned i)
{
	return (volatile uint64_t *)(SD_BASE + (uint64_t)i * PAGE_SIZE);
}

bool sd_setup(void)
{
	if (sd_pages.ready)
		return true;
	for (int s = 0; s < 2; s++) {
		for (unsigned i = 0; i < SD_MAX_PAGES; i++) {
			uint64_t pa = frame_alloc(0);

			if (!pa)
				return false;
			*(volatile uint64_t *)phys_to_virt(pa) = pa;
			sd_pages.frames[s][i] = pa;
		}
	}
	sd_pages.pte_flags = PTE_P | PTE_W | pte_nx();
	for (unsigned i = 0; i < SD_MAX_PAGES; i++) {
		if (vm_map((uint64_t)page_va(i), sd_pages.frames[0][i], PT_4K,
			   sd_pages.pte_flags, NULL) != PT_OK)
			return false;
		sd_pages.pte[i] = vm_pte_slot((uint64_t)page_va(i));
		if (!sd_pages.pte[i])
			return false;
	}
	sd_pages.ready = true;
	return true;
}

/*
 * Points each of the first k pages at its other frame with one PTE store
 * each, as the OS's set_pte would; never flushes.
 */
void sd_flip(unsigned k)
{
	for (unsigned i = 0; i < k; i++) {
		sd_pages.side[i] ^= 1;
		__atomic_store_n(sd_pages.pte[i],
				 sd_pages.frames[sd_pages.side[i]][i] |
					 sd_pages.pte_flags,
				 __ATOMIC_RELAXED);
	}
}

/*
 * Every page global (PTE.G) or not, from the next touch on. Called
 * between samples, when no CPU holds an entry of them (each sample ends by
 * dropping every entry), so no flush is owed for the change.
 */
void sd_set_global(bool global)
{
	uint64_t flags = (sd_pages.pte_flags & ~PTE_G) | (global ? PTE_G : 0);

	if (flags == sd_pages.pte_flags)
		return;
	sd_pages.pte_flags = flags;
	for (unsigned i = 0; i < SD_MAX_PAGES; i++)
		__atomic_store_n(sd_pages.pte[i],
				 sd_pages.frames[sd_pages.side[i]][i] | flags,
				 __ATOMIC_RELAXED);
}

/* --- responder functions, run in the cross-call handler ------------- */

void sd_touch(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < k; i++)
		(void)*page_va(i);
}

/* Counts reads that did not see the current side's frame. */
void sd_verify(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg, cpu = this_cpu();

	for (unsigned i = 0; i < k; i++) {
		if (*page_va(i) != sd_pages.frames[sd_pages.side[i]][i]) {
			if (!sd_pages.stale[cpu])
				sd_pages.stale_va[cpu] = (uint64_t)page_va(i);
			sd_pages.stale[cpu]++;
		}
	}
}
