// SPDX-License-Identifier: MIT
/*
 * What the rest of the kernel asks of the parsed boot information
 * (multiboot.h): the boot path's name, the usable RAM, and whether the
 * memory map covers or overlaps a range. Apart from the parser
 * (multiboot.c) because they trust what it built: every entry is as
 * checked there, so they need none of its care with loader data.
 */
#include "multiboot.h"

const char *boot_path_name(const struct boot_info *bi)
{
	if (!bi)
		return "unknown";
	switch (bi->proto) {
	case BOOT_MB1:
		return "multiboot1";
	case BOOT_MB2:
		return bi->efi ? "multiboot2-efi" : "multiboot2-bios";
	default:
		return "unknown";
	}
}

/*
 * Overlapping usable regions are counted twice: loaders do not produce
 * them, and the frame allocator, not this summary, decides what is usable.
 * The sum saturates instead of wrapping.
 */
uint64_t boot_usable_bytes(const struct boot_info *bi)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_region *r = &bi->mmap[i];

		if (r->type != MEM_USABLE)
			continue;
		sum = r->len > UINT64_MAX - sum ? UINT64_MAX : sum + r->len;
	}
	return sum;
}

/* The end of the entry that holds byte pa, or pa itself if none does. */
static uint64_t covered_to(const struct boot_info *bi, uint64_t pa)
{
	for (size_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_region *r = &bi->mmap[i];
		uint64_t end = r->base + r->len;

		if (end < r->base)
			end = UINT64_MAX; /* runs past the top: to the top */
		if (r->base <= pa && pa < end)
			return end;
	}
	return pa;
}

bool boot_mmap_covers(const struct boot_info *bi, uint64_t pa, uint64_t len)
{
	uint64_t end = pa + len;

	if (!len || end < pa)
		return false;
	while (pa < end) {
		uint64_t next = covered_to(bi, pa);

		if (next == pa)
			return false;
		pa = next;
	}
	return true;
}

const struct boot_region *boot_mmap_overlap(const struct boot_info *bi,
					    uint64_t pa, uint64_t len,
					    uint32_t type)
{
	uint64_t last = pa + len - 1;

	if (!len)
		return NULL;
	if (last < pa)
		last = UINT64_MAX; /* runs past the top: to the top */
	for (size_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_region *r = &bi->mmap[i];
		uint64_t r_last = r->base + r->len - 1;

		if (r_last < r->base)
			r_last = UINT64_MAX;
		if (r->type == type && r->len && r->base <= last &&
		    pa <= r_last)
			return r;
	}
	return NULL;
}
