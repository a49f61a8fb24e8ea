/* SPDX-License-Identifier: MIT */
/*
 * The harness's virtual address space (one PML4, shared by every CPU):
 *
 *   0x0000_0000_0020_0000  the kernel image, identity-mapped (it is linked
 *                          there): text RX, rodata R, data/bss RW NX; the
 *                          page under the boot stack is left unmapped
 *   0x0000_1000_0000_0000  the experiment region: 4 KiB / 2 MiB pages
 *                          mapped on demand, NOT global, so that a CR3
 *                          reload flushes them as it does user pages
 *   0xffff_8880_0000_0000  direct map of all RAM (physical + offset), global
 *   0xffff_c800_0000_0000  AP stacks, one 64 KiB slot each, the page under
 *                          every stack unmapped (a guard)
 *   0xffff_c800_0000_0000  AP stacks, a guard page under each
 *   0xffff_c900_0000_0000  MMIO window (LAPIC, IOAPIC, HPET), uncached
 *
 * Page 0 and everything else are unmapped, so stray pointers fault.
 */
#ifndef MM_LAYOUT_H
#define MM_LAYOUT_H

#include <stdint.h>

#define KERNEL_VIRT_OFFSET 0ull /* the image runs where it was loaded */
#define EXPERIMENT_BASE	   0x0000100000000000ull
#define EXPERIMENT_SIZE	   (512ull << 30) /* one PML4 entry */
#define DIRECT_MAP_BASE	   0xffff888000000000ull
#define DIRECT_MAP_MAX	   (64ull << 40) /* 64 TiB of physical addresses */
/* AP stacks: one 64 KiB slot each, the page under each stack unmapped. */
#define STACK_BASE	0xffffc80000000000ull
#define STACK_SLOT	(64ull << 10)
#define AP_STACK_SIZE	(32ull << 10)
#define MMIO_BASE	0xffffc90000000000ull
#define MMIO_SIZE	(1ull << 30)

#define PAGE_SIZE	4096ull
#define LARGE_PAGE_SIZE (2ull << 20)
#define HUGE_PAGE_SIZE	(1ull << 30)

/* The PCID the harness's address space runs under when PCID is on. */
#define HARNESS_PCID 1

#endif
