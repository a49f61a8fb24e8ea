// SPDX-License-Identifier: MIT
/*
 * reclaim, its memory: the workers' hot regions and the cold region's page
 * tables, set up once for all the passes, the swap area, and each pass's
 * fresh cold frames.
 */
#include "bench/bench.h"
#include "bench/flush.h"
#include "bench/reclaim_pass.h"
#include "bench/reclaim_state.h"
#include "kernel/x86.h"
#include "mm/vm.h"
#include "smp/smp.h"

/*
 * The workers' hot regions, read-only. What they hold does not matter
 * (they are only read, at random), so the frames are not zeroed; the first
 * page of every 2 MiB goes through vm_map, which makes its table, and the
 * rest are stored into that table's slots. At the default sizes (tens of
 * thousands of pages) zeroing and locked walks took ~40 s under kvm-pvm.
 */
static bool map_hot(const struct rc_state *st)
{
	uint64_t flags = PTE_P | pte_nx(), *slot = NULL;

	for (unsigned w = 0; w < st->cfg.workers; w++) {
		for (uint64_t i = 0; i < st->cfg.hot_pages; i++) {
			uint64_t va = rc_hot_va(st, w, i * PAGE_SIZE);
			uint64_t pa = frame_alloc(0);

			if (!pa)
				return false;
			if (slot && (va & (LARGE_PAGE_SIZE - 1))) {
				__atomic_store_n(++slot, pa | flags,
						 __ATOMIC_RELAXED);
				continue;
			}
			if (vm_map(va, pa, PT_4K, flags, NULL) != PT_OK)
				return false;
			slot = vm_pte_slot(va);
			if (!slot)
				return false;
		}
	}
	return true;
}

/*
 * Undoes map_hot: clears the hot regions' PTEs, frees their frames and
 * flushes every CPU's TLB, so that the regions can be mapped again (the
 * time budget's pilot runs before the experiment).
 */
static void unmap_hot(const struct rc_state *st)
{
	uint64_t *slot = NULL;
	struct cpumask all;

	for (unsigned w = 0; w < st->cfg.workers; w++) {
		for (uint64_t i = 0; i < st->cfg.hot_pages; i++) {
			uint64_t va = rc_hot_va(st, w, i * PAGE_SIZE), pte;

			if (!slot || !(va & (LARGE_PAGE_SIZE - 1)))
				slot = vm_pte_slot(va);
			else
				slot++;
			if (!slot)
				return;
			pte = __atomic_exchange_n(slot, 0, __ATOMIC_RELAXED);
			if (pte & PTE_P)
				frame_free(pte & PTE_ADDR_MASK);
		}
	}
	cpus_others(&all);
	flush_everywhere(&all, false);
}

/*
 * Page tables for the whole cold region, once: map and unmap the first
 * page of every 2 MiB, and keep where its table is. Paging in and out then
 * stores PTEs directly, as the OS does, instead of walking the tables.
 */
static bool cold_tables(struct rc_state *st)
{
	uint64_t old, pa = frame_alloc(0);
	bool ok = pa != 0;

	for (uint64_t t = 0; ok && t < st->cfg.cold_pages / PT_ENTRIES; t++) {
		uint64_t va = rc_cold_va(t * PT_ENTRIES);

		ok = vm_map(va, pa, PT_4K, PTE_P | pte_nx(), NULL) == PT_OK;
		st->cold_pt[t] = ok ? vm_pte_slot(va) : NULL;
		ok = ok && st->cold_pt[t] && vm_unmap(va, PT_4K, &old) == PT_OK;
	}
	if (pa)
		frame_free(pa);
	return ok;
}

/*
 * Fresh frames for the cold region. Only the first word of a page is ever
 * checked (it must hold the last write that succeeded, 0 for none), so
 * only that word is cleared: zeroing whole pages costs milliseconds each
 * under an emulating hypervisor, outside anything timed.
 */
bool rc_map_cold(struct rc_state *st)
{
	uint64_t flags = PTE_P | PTE_W | pte_nx();

	for (uint64_t p = 0; p < st->pass_pages; p++) {
		uint64_t pa = frame_alloc(0);

		if (!pa)
			return false;
		*(volatile uint64_t *)phys_to_virt(pa) = 0;
		st->cold_frame[p] = pa;
		st->last_write[p] = 0;
		__atomic_store_n(rc_cold_pte(st, p), pa | flags,
				 __ATOMIC_RELEASE);
	}
	return true;
}

bool rc_prepare(struct rc_state *st, const struct rc_config *cfg)
{
	uint64_t n = cfg->cold_pages;

	st->cfg = *cfg;
	st->hot_stride = (cfg->hot_pages * PAGE_SIZE + LARGE_PAGE_SIZE - 1) &
			 ~(LARGE_PAGE_SIZE - 1);
	st->cold_frame = bench_alloc(n);
	st->last_write = bench_alloc(n);
	st->cold_pt = (uint64_t **)bench_alloc(n / PT_ENTRIES);
	st->swap_pa = frame_alloc_run(n, PAGE_SIZE);
	return st->cold_frame && st->last_write && st->cold_pt && st->swap_pa &&
	       cold_tables(st) && map_hot(st);
}

void rc_release(struct rc_state *st)
{
	uint64_t n = st->cfg.cold_pages;

	unmap_hot(st);
	bench_free(st->cold_frame, n);
	bench_free(st->last_write, n);
	bench_free((uint64_t *)st->cold_pt, n / PT_ENTRIES);
	if (st->swap_pa)
		frame_free_run(st->swap_pa, n);
	st->cold_frame = st->last_write = NULL;
	st->cold_pt = NULL;
	st->swap_pa = 0;
}
