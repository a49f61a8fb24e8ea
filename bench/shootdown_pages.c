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

static inline volatile uint64_t *page_va(unsigned i)
{
	return (volatile uint64_t *)(SD_BASE + (uint64_t)i * PAGE_SIZE);
}

struct sd_pages *sd_setup(void)
{
	/* 29 KiB, and mapped for the whole boot: not on a stack. */
	static struct sd_pages pages;
	struct sd_pages *pg = &pages;

	if (pg->ready)
		return pg;
	for (int s = 0; s < 2; s++) {
		for (unsigned i = 0; i < SD_MAX_PAGES; i++) {
			uint64_t pa = frame_alloc(0);

			if (!pa)
				return NULL;
			*(volatile uint64_t *)phys_to_virt(pa) = pa;
			pg->frames[s][i] = pa;
		}
	}
	pg->pte_flags = PTE_P | PTE_W | pte_nx();
	for (unsigned i = 0; i < SD_MAX_PAGES; i++) {
		if (vm_map((uint64_t)page_va(i), pg->frames[0][i], PT_4K,
			   pg->pte_flags, NULL) != PT_OK)
			return NULL;
		pg->pte[i] = vm_pte_slot((uint64_t)page_va(i));
		if (!pg->pte[i])
			return NULL;
	}
	pg->ready = true;
	return pg;
}

/*
 * Points each of the first k pages at its other frame with one PTE store
 * each, as the OS's set_pte would; never flushes.
 */
void sd_flip(struct sd_pages *pg, unsigned k)
{
	for (unsigned i = 0; i < k; i++) {
		pg->side[i] ^= 1;
		__atomic_store_n(pg->pte[i],
				 pg->frames[pg->side[i]][i] | pg->pte_flags,
				 __ATOMIC_RELAXED);
	}
}

/*
 * Every page global (PTE.G) or not, from the next touch on. Called
 * between samples, when no CPU holds an entry of them (each sample ends by
 * dropping every entry), so no flush is owed for the change.
 */
void sd_set_global(struct sd_pages *pg, bool global)
{
	uint64_t flags = (pg->pte_flags & ~PTE_G) | (global ? PTE_G : 0);

	if (flags == pg->pte_flags)
		return;
	pg->pte_flags = flags;
	for (unsigned i = 0; i < SD_MAX_PAGES; i++)
		__atomic_store_n(pg->pte[i], pg->frames[pg->side[i]][i] | flags,
				 __ATOMIC_RELAXED);
}

/* --- responder functions, run in the cross-call handler ------------- */

void sd_touch(void *reads)
{
	const struct sd_reads *r = reads;

	for (unsigned i = 0; i < r->k; i++)
		(void)*page_va(i);
}

/* Counts reads that did not see the current side's frame. */
void sd_verify(void *reads)
{
	const struct sd_reads *r = reads;
	struct sd_pages *pg = r->pages;
	unsigned cpu = this_cpu();

	for (unsigned i = 0; i < r->k; i++) {
		if (*page_va(i) != pg->frames[pg->side[i]][i]) {
			if (!pg->stale[cpu])
				pg->stale_va[cpu] = (uint64_t)page_va(i);
			pg->stale[cpu]++;
		}
	}
}
