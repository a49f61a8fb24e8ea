// SPDX-License-Identifier: MIT
/*
 * The kernel address space at run time (mm/vm.h): mappings in the kernel
 * tables that vm.c built, device registers (mmio_map) and firmware data
 * read where the firmware's pointers say. Each takes the page-table lock,
 * and the frame allocator's when tables may be allocated.
 */
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/fwread.h"
#include "kernel/report.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "mm/vm.h"
#include "mm/vm_locks.h"

/* Table frames come from the allocator: take its lock around pt calls. */
int vm_map(uint64_t va, uint64_t pa, enum pt_size size, uint64_t flags,
	   uint64_t *old)
{
	int err;

	vm_lock_tables();
	vm_lock_frames();
	err = pt_map(&kernel_pt, va, pa, size, flags, old);
	vm_unlock_frames();
	vm_unlock_tables();
	return err;
}

int vm_unmap(uint64_t va, enum pt_size size, uint64_t *old)
{
	int err;

	vm_lock_tables();
	err = pt_unmap(&kernel_pt, va, size, old);
	vm_unlock_tables();
	return err;
}

int vm_split(uint64_t va, enum pt_size size)
{
	uint64_t old;
	int err;

	vm_lock_tables();
	vm_lock_frames();
	err = pt_split(&kernel_pt, va, size, &old);
	vm_unlock_frames();
	vm_unlock_tables();
	return err;
}

int vm_walk(uint64_t va, struct pt_walk *w)
{
	return pt_walk(&kernel_pt, va, w);
}

uint64_t *vm_pte_slot(uint64_t va)
{
	struct pt_walk w;
	uint64_t pde;

	if (pt_walk(&kernel_pt, va, &w) != PT_OK || w.level != 1)
		return NULL; /* stopped above the page table, or a large leaf */
	pde = w.entries[2];
	return (uint64_t *)phys_to_virt(pde & PTE_ADDR_MASK) +
	       ((va >> 12) & (PT_ENTRIES - 1));
}

/*
 * Device registers at an address a firmware table gave (an IOAPIC, the
 * HPET, a reset register) are written to: never where the memory map says
 * usable RAM is, whatever the table says, and never beyond the address
 * width. Refusals are kept for mm_report().
 */
#define MMIO_REFUSALS_MAX 4

static struct {
	uint64_t pa;
	size_t len;
	char why[64];
} mmio_refusals[MMIO_REFUSALS_MAX];
static unsigned mmio_refusal_count;

static bool mmio_refused(uint64_t pa, size_t len)
{
	const struct boot_region *r;
	char why[64];

	if (!len || pa + len < pa || ((pa + len - 1) >> cpu_info.phys_bits))
		ksnprintf(why, sizeof(why),
			  "beyond the cpu's %u-bit physical address width",
			  cpu_info.phys_bits);
	else if ((r = boot_mmap_overlap(&boot_info, pa, len, MEM_USABLE)))
		ksnprintf(why, sizeof(why), "usable RAM (%#llx-%#llx)",
			  (unsigned long long)r->base,
			  (unsigned long long)(r->base + r->len - 1));
	else
		return false;
	if (mmio_refusal_count < MMIO_REFUSALS_MAX) {
		mmio_refusals[mmio_refusal_count].pa = pa;
		mmio_refusals[mmio_refusal_count].len = len;
		kstrlcpy(mmio_refusals[mmio_refusal_count].why, why,
			 sizeof(why));
	}
	mmio_refusal_count++;
	return true;
}

void mmio_report_refusals(void)
{
	for (unsigned i = 0; i < mmio_refusal_count && i < MMIO_REFUSALS_MAX;
	     i++)
		report_info("mm: device registers at %#llx (%zu bytes), as a "
			    "firmware table says, not mapped: %s",
			    (unsigned long long)mmio_refusals[i].pa,
			    mmio_refusals[i].len, mmio_refusals[i].why);
}

static uint64_t mmio_next = MMIO_BASE;

void *mmio_map(uint64_t pa, size_t len)
{
	uint64_t off = pa & (PAGE_SIZE - 1), base = pa - off, va;
	uint64_t size = (off + len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uint64_t flags = PTE_P | PTE_W | PTE_PCD | PTE_PWT | PTE_G | pte_nx();

	if (mmio_refused(pa, len))
		return NULL;
	vm_lock_tables();
	va = mmio_next;
	if (va + size > MMIO_BASE + MMIO_SIZE) {
		vm_unlock_tables();
		return NULL;
	}
	mmio_next += size;
	vm_lock_frames();
	for (uint64_t o = 0; o < size; o += PAGE_SIZE)
		pt_map(&kernel_pt, va + o, base + o, PT_4K, flags, NULL);
	vm_unlock_frames();
	vm_unlock_tables();
	return (void *)(uintptr_t)(va + off);
}

/*
 * Firmware data is read wherever the firmware's pointers say, below the
 * address width and the direct map's end: kernel/fwread.h has the rule.
 * What the map does not list is mapped read-only by phys_map_firmware(),
 * as everything it maps, and never reaches the allocator.
 */
enum fw_read firmware_read_class(uint64_t pa, size_t len, const char **why)
{
	static char buf[64];

	return fw_read_rule(&boot_info, pa, len, cpu_info.phys_bits,
			    DIRECT_MAP_MAX, why, buf, sizeof(buf));
}

const char *firmware_read_refused(uint64_t pa, size_t len)
{
	const char *why;

	return firmware_read_class(pa, len, &why) == FW_READ_REFUSED ? why
								     : NULL;
}

/*
 * Mapped into the direct map on demand, read-only, one 4 KiB page at a
 * time; pages already covered are left alone.
 */
const void *phys_map_firmware(uint64_t pa, size_t len)
{
	uint64_t first = pa & ~(PAGE_SIZE - 1);
	struct pt_walk w;

	if (firmware_read_refused(pa, len))
		return NULL;
	for (uint64_t p = first; p < pa + len; p += PAGE_SIZE) {
		vm_walk(DIRECT_MAP_BASE + p, &w);
		if (!w.mapped &&
		    vm_map(DIRECT_MAP_BASE + p, p, PT_4K,
			   PTE_P | PTE_G | pte_nx(), NULL) != PT_OK)
			return NULL;
	}
	return phys_to_virt(pa);
}
