// SPDX-License-Identifier: MIT
/*
 * Builds the harness's address space (layout.h) and switches every control
 * bit the layout relies on. Before the switch the boot tables identity-map
 * the first 4 GiB, so everything built before it (allocator metadata, page
 * tables) must lie below 4 GiB; the allocator hands out low frames first
 * and is told to keep its metadata there. The frame allocator's API is
 * here too, over the allocator built here; mapping at run time (vm_map,
 * mmio_map, firmware reads) is in vm_map.c.
 */
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "kernel/tsc.h"
#include "kernel/report.h"
#include "kernel/spinlock.h"
#include "kernel/stoppoint.h"
#include "kernel/x86.h"
#include "mm/vm.h"
#include "mm/vm_locks.h"

#define BOOT_IDENTITY_LIMIT (4ull << 30)
#define MAX_RAM_RANGES	    BOOT_MMAP_MAX
#define ONE_TIB		    (1ull << 40)

struct pt_ctx kernel_pt;
struct mm_stats mm_stats;

static struct pmm pmm;
static struct spinlock frame_lock = {.name = "frame allocator"},
		       pt_lock = {.name = "page tables"};

/* Each kernel lock is a stop point while held (kernel/stoppoint.h). */
void vm_lock_frames(void)
{
	spin_lock(&frame_lock);
	stop_point(STOP_FRAME_LOCK);
}

void vm_unlock_frames(void)
{
	spin_unlock(&frame_lock);
}

void vm_lock_tables(void)
{
	spin_lock(&pt_lock);
	stop_point(STOP_PT_LOCK);
}

void vm_unlock_tables(void)
{
	spin_unlock(&pt_lock);
}

static bool direct_ready;

/* linker.ld and boot/entry.S */
extern char __load_start[], __text_start[], __text_end[], __rodata_start[],
	__rodata_end[], __data_start[], __kernel_end[], boot_stack_guard[];
extern uint32_t boot_entry_cr4;

static void *mm_phys(void *ctx, uint64_t pa)
{
	(void)ctx;
	return direct_ready ? phys_to_virt(pa) : (void *)(uintptr_t)pa;
}

static uint64_t table_alloc(void *ctx)
{
	(void)ctx;
	return pmm_alloc(&pmm, PMM_ZERO);
}

static void table_free(void *ctx, uint64_t pa)
{
	(void)ctx;
	pmm_free(&pmm, pa);
}

uint64_t pte_nx(void)
{
	return cpu_info.nx ? PTE_NX : 0;
}

/*
 * Setting up memory failed: say why and stop. Nothing can go on without
 * the allocator and the tables, but the run still ends by the protocol.
 */
static __attribute__((noreturn)) void mm_fatal(const char *what, int err,
					       const char *why)
{
	report_fail("mm: init", "%s: %s (error %d)", what, why, err);
	report_summary();
	run_exit(STATUS_ABORTED);
}

static void pmm_setup(void)
{
	struct boot_region reserved[BOOT_KEEP_MAX + 1];
	struct pmm_config cfg = {
		.map = boot_info.mmap,
		.map_count = boot_info.mmap_count,
		.reserved = reserved,
		.meta_limit = BOOT_IDENTITY_LIMIT,
		.reserve_trampoline = true,
		.phys_to_virt = mm_phys,
	};
	size_t n = 0;
	int err;

	reserved[n++] = (struct boot_region){
		(uint64_t)__load_start, (uint64_t)(__kernel_end - __load_start),
		MEM_RESERVED};
	for (size_t i = 0; i < boot_info.keep_count; i++)
		reserved[n++] = boot_info.keep[i];
	cfg.reserved_count = n;
	err = pmm_init(&pmm, &cfg);
	if (err)
		mm_fatal("frame allocator", err, pmm_strerror(err));
	mm_stats.trampoline = pmm.trampoline;
	mm_stats.usable_bytes = pmm.total * PMM_FRAME_SIZE;
}

static void map_or_die(uint64_t va, uint64_t pa, uint64_t len, uint64_t flags,
		       unsigned int allowed, const char *what)
{
	int err = pt_map_range(&kernel_pt, va, pa, len, flags, allowed, NULL);

	if (err)
		mm_fatal(what, err, pt_strerror(err));
}

/* The image where it runs, W^X, with a hole under the boot stack. */
static void map_kernel_image(void)
{
	uint64_t nx = pte_nx(), g = PTE_G;
	uint64_t text = (uint64_t)__text_start, ro = (uint64_t)__rodata_start;
	uint64_t data = (uint64_t)__data_start;
	uint64_t guard = (uint64_t)boot_stack_guard;
	uint64_t end = (uint64_t)__kernel_end;

	map_or_die(text, text, (uint64_t)__text_end - text, PTE_P | g,
		   PT_ALLOW_4K, "kernel text");
	map_or_die(ro, ro, (uint64_t)__rodata_end - ro, PTE_P | g | nx,
		   PT_ALLOW_4K, "kernel rodata");
	map_or_die(data, data, guard - data, PTE_P | PTE_W | g | nx,
		   PT_ALLOW_4K, "kernel data");
	map_or_die(guard + PAGE_SIZE, guard + PAGE_SIZE,
		   end - guard - PAGE_SIZE, PTE_P | PTE_W | g | nx, PT_ALLOW_4K,
		   "kernel bss");
}

static bool is_ram(uint32_t type)
{
	return type == MEM_USABLE || type == MEM_ACPI_RECLAIM ||
	       type == MEM_ACPI_NVS;
}

/* RAM ranges of the map, page-rounded, sorted and merged, into out. */
static size_t ram_ranges(struct boot_region *out)
{
	size_t n = 0;

	for (size_t i = 0; i < boot_info.mmap_count; i++) {
		const struct boot_region *r = &boot_info.mmap[i];
		uint64_t lo = r->base & ~(PAGE_SIZE - 1);
		uint64_t hi =
			(r->base + r->len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		size_t j;

		if (!is_ram(r->type) || hi <= lo || hi > DIRECT_MAP_MAX)
			continue;
		for (j = n; j > 0 && out[j - 1].base > lo; j--)
			out[j] = out[j - 1];
		out[j] = (struct boot_region){lo, hi - lo, MEM_USABLE};
		n++;
	}
	for (size_t i = 1; i < n;) {
		struct boot_region *a = &out[i - 1], *b = &out[i];

		if (b->base <= a->base + a->len) {
			uint64_t end = b->base + b->len;

			if (end > a->base + a->len)
				a->len = end - a->base;
			for (size_t k = i + 1; k < n; k++)
				out[k - 1] = out[k];
			n--;
		} else {
			i++;
		}
	}
	return n;
}

static void count_leaves(uint64_t va, uint64_t len)
{
	struct pt_walk w;

	for (uint64_t off = 0; off < len;) {
		pt_walk(&kernel_pt, va + off, &w);
		if (!w.mapped)
			break;
		if (w.size == PT_1G)
			mm_stats.pages_1g++;
		else if (w.size == PT_2M)
			mm_stats.pages_2m++;
		else
			mm_stats.pages_4k++;
		off += pt_size_bytes(w.size) -
		       ((va + off) & (pt_size_bytes(w.size) - 1));
	}
}

static void map_direct(void)
{
	static struct boot_region ram[MAX_RAM_RANGES];
	unsigned int sizes = PT_ALLOW_4K | PT_ALLOW_2M |
			     (cpu_info.pdpe1gb ? PT_ALLOW_1G : 0);
	size_t n = ram_ranges(ram);

	for (size_t i = 0; i < n; i++) {
		uint64_t va = DIRECT_MAP_BASE + ram[i].base;

		map_or_die(va, ram[i].base, ram[i].len,
			   PTE_P | PTE_W | PTE_G | pte_nx(), sizes,
			   "direct map");
		count_leaves(va, ram[i].len);
		mm_stats.direct_bytes += ram[i].len;
	}
}

static void switch_to_kernel_tables(void)
{
	write_cr0(read_cr0() | CR0_WP);
	if (cpu_info.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr4(read_cr4() | CR4_PGE);
	write_cr3(kernel_pt.root);
	/* PCIDE may only be set while CR3's PCID is 0 (SDM 4.10.1). */
	if (cpu_info.pcid) {
		write_cr4(read_cr4() | CR4_PCIDE);
		write_cr3(mm_cr3());
	}
	direct_ready = true;
	mm_stats.pcid = cpu_info.pcid;
	mm_stats.nx = cpu_info.nx;
	mm_stats.global = true;
}

void mm_init_ap(void)
{
	/* The trampoline set CR0.WP, EFER.NXE and loaded kernel_pt.root. */
	write_cr4(read_cr4() | CR4_PGE);
	if (cpu_info.pcid) {
		write_cr4(read_cr4() | CR4_PCIDE);
		write_cr3(mm_cr3());
	}
}

uint64_t mm_cr3(void)
{
	return kernel_pt.root | (cpu_info.pcid ? HARNESS_PCID : 0);
}

void mm_init(void)
{
	uint64_t t0 = rdtsc_ordered();
	int err;

	mm_stats.entry_cr4 = boot_entry_cr4;
	pmm_setup();
	kernel_pt = (struct pt_ctx){.phys_to_virt = mm_phys,
				    .alloc_table = table_alloc,
				    .free_table = table_free};
	err = pt_create(&kernel_pt);
	if (err)
		mm_fatal("page tables", err, pt_strerror(err));
	map_kernel_image();
	map_direct();
	mm_stats.table_frames = kernel_pt.tables;
	switch_to_kernel_tables();
	mm_stats.build_cycles = rdtsc_ordered() - t0;
}

uint64_t frame_alloc(unsigned int pmm_flags)
{
	uint64_t pa;

	vm_lock_frames();
	pa = pmm_alloc(&pmm, pmm_flags);
	vm_unlock_frames();
	return pa;
}

int frame_free(uint64_t pa)
{
	int err;

	vm_lock_frames();
	err = pmm_free(&pmm, pa);
	vm_unlock_frames();
	return err;
}

uint64_t frame_alloc_run(uint64_t n, uint64_t align)
{
	uint64_t pa;

	vm_lock_frames();
	pa = pmm_alloc_run(&pmm, n, align, 0);
	vm_unlock_frames();
	return pa;
}

int frame_free_run(uint64_t pa, uint64_t n)
{
	int err;

	vm_lock_frames();
	err = pmm_free_run(&pmm, pa, n);
	vm_unlock_frames();
	return err;
}

void frame_limit_grants(uint64_t n)
{
	vm_lock_frames();
	pmm_limit_grants(&pmm, n);
	vm_unlock_frames();
}

uint64_t frames_free(void)
{
	return pmm.free;
}

bool mm_extent(size_t i, struct pmm_extent_info *out)
{
	return pmm_extent(&pmm, i, out);
}

/*
 * Where usable RAM ends, and how much of it lies above 1 TiB: QEMU puts
 * the RAM above 4 GiB at 1 TiB instead when it would cross AMD's
 * HyperTransport hole below 1 TiB, as AMD servers with that much do.
 */
static void report_top(void)
{
	struct pmm_extent_info e;
	uint64_t top = 0, above = 0;

	for (size_t i = 0; mm_extent(i, &e); i++) {
		top = e.base + e.len;
		if (top > ONE_TIB)
			above += top - (e.base > ONE_TIB ? e.base : ONE_TIB);
	}
	report_info("mm: usable RAM ends at %#llx, %llu MiB of it above "
		    "1 TiB; physical addresses %u bits wide",
		    (unsigned long long)top, (unsigned long long)(above >> 20),
		    cpu_info.phys_bits);
}

void mm_report(void)
{
	const struct mm_stats *s = &mm_stats;

	report_info("mm: %llu MiB usable in %zu extents; direct map %llu MiB "
		    "as %llu x 1G + %llu x 2M + %llu x 4K pages; %llu page-"
		    "table frames; built in %llu us",
		    (unsigned long long)(s->usable_bytes >> 20),
		    pmm_extent_count(&pmm),
		    (unsigned long long)(s->direct_bytes >> 20),
		    (unsigned long long)s->pages_1g,
		    (unsigned long long)s->pages_2m,
		    (unsigned long long)s->pages_4k,
		    (unsigned long long)s->table_frames,
		    (unsigned long long)(tsc_to_ns(s->build_cycles) / 1000));
	report_info("mm: PCID %s, global pages on, NX %s; AP trampoline page "
		    "at %#llx",
		    s->pcid ? "on (harness PCID 1)" : "off (not in CPUID)",
		    s->nx ? "on" : "off (not in CPUID)",
		    (unsigned long long)s->trampoline);
	report_top();
	mmio_report_refusals();
	if (s->entry_cr4 & CR4_LA57)
		report_info("mm: the loader left CR4.LA57 (5-level paging) "
			    "set with paging off; cleared it, 4-level tables "
			    "are used");
}
