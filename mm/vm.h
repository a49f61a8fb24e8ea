/* SPDX-License-Identifier: MIT */
/*
 * The kernel's memory: the frame allocator and the page tables every CPU
 * runs on (see layout.h). Built once by mm_init() on the boot CPU.
 */
#ifndef MM_VM_H
#define MM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/fwread.h"
#include "mm/layout.h"
#include "mm/pmm.h"
#include "mm/pt.h"

struct mm_stats {
	uint64_t usable_bytes; /* managed by the frame allocator */
	uint64_t direct_bytes; /* RAM covered by the direct map */
	uint64_t pages_1g, pages_2m, pages_4k; /* direct-map leaves */
	uint64_t table_frames; /* page-table frames at the switch */
	uint64_t build_cycles; /* TSC cycles to build and switch */
	uint64_t trampoline;   /* reserved page below 1 MiB, 0 if none */
	uint64_t entry_cr4;    /* CR4 as the loader left it */
	bool pcid, global, nx; /* what the harness enabled */
};

extern struct pt_ctx kernel_pt;
extern struct mm_stats mm_stats;

/*
 * Frame allocator from the memory map, kernel page tables, then the switch:
 * CR0.WP, EFER.NXE, CR4.PGE and CR4.PCIDE where CPUID has them. Stops the
 * run (FAIL + status 63) if memory cannot be set up at all.
 */
void mm_init(void);

/* On an AP, after the trampoline: the control bits mm_init set. */
void mm_init_ap(void);

/* The CR3 value of the harness's address space (with its PCID). */
uint64_t mm_cr3(void);

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(DIRECT_MAP_BASE + pa);
}

/* Frames, under a lock (callable from any CPU). 0 when none is left. */
uint64_t frame_alloc(unsigned int pmm_flags);
int frame_free(uint64_t pa);
uint64_t frames_free(void);
/* n contiguous frames aligned to align bytes; 0 when there is no such run. */
uint64_t frame_alloc_run(uint64_t n, uint64_t align);
int frame_free_run(uint64_t pa, uint64_t n);
/*
 * selftest=oom: only n more allocations (page tables' included) succeed;
 * PMM_GRANTS_UNLIMITED lifts the limit (pmm_limit_grants).
 */
void frame_limit_grants(uint64_t n);

/* The allocator's i-th extent; false past the last. */
bool mm_extent(size_t i, struct pmm_extent_info *out);

/* One INFO line: how memory was set up (for the closing summary). */
void mm_report(void);

/*
 * Why firmware data may not be read at [pa, pa + len) (beyond the CPU's
 * physical address width or the direct map), or NULL if it may.
 */
const char *firmware_read_refused(uint64_t pa, size_t len);

/*
 * The rule of kernel/fwread.h for [pa, pa + len) on this machine: listed
 * in the memory map (or below 1 MiB), unlisted (read all the same, read-
 * only), or refused (*why says why).
 */
enum fw_read firmware_read_class(uint64_t pa, size_t len, const char **why);

/*
 * Readable pointer to firmware data at [pa, pa + len), which may lie outside
 * RAM; NULL if firmware_read_refused() or it cannot be mapped.
 */
const void *phys_map_firmware(uint64_t pa, size_t len);

/*
 * Maps [pa, pa + len) uncached into the MMIO window; NULL if it is full,
 * or if the range is in usable RAM or beyond the address width (then
 * mm_report() says so).
 */
void *mmio_map(uint64_t pa, size_t len);

/* Page-table changes in the kernel tables, under a lock. Never flush. */
int vm_map(uint64_t va, uint64_t pa, enum pt_size size, uint64_t flags,
	   uint64_t *old);
int vm_unmap(uint64_t va, enum pt_size size, uint64_t *old);
int vm_walk(uint64_t va, struct pt_walk *w);
int vm_split(uint64_t va, enum pt_size size);

/*
 * The 4 KiB PTE slot for va, in the kernel tables, or NULL if no page table
 * holds it yet (nothing was ever mapped in its 2 MiB) or a large page maps
 * it. Tables are never freed, so the pointer stays valid. For experiments
 * that change PTEs of their own pages many times over, as the OS would
 * (one store, like set_pte/ptep_get_and_clear), where vm_map/vm_unmap's
 * locked walk would dominate: under an emulating hypervisor a walk costs
 * hundreds of microseconds. The caller owns the entry; nothing is flushed.
 */
uint64_t *vm_pte_slot(uint64_t va);

/* PTE_NX where the CPU supports it, else 0 (NX is reserved without NXE). */
uint64_t pte_nx(void);

#endif
