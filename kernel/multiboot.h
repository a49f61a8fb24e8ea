/* SPDX-License-Identifier: MIT */
/*
 * Multiboot 1 and 2 boot information, parsed into one loader-independent
 * struct boot_info. Portable: the parser reads "physical memory" only through
 * a phys_reader callback, so host tests can feed it synthetic and malformed
 * blocks; in the kernel the reader returns identity-mapped pointers.
 *
 * Nothing from the loader is trusted: every length is checked against the
 * block's stated size and the reader, problems are recorded in errors[] (the
 * rest of the block is still used where that is safe), and everything kept
 * is copied into boot_info, so the loader's memory can be reused after
 * the parse.
 */
#ifndef KERNEL_MULTIBOOT_H
#define KERNEL_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB1_BOOTLOADER_MAGIC 0x2BADB002u
#define MB2_BOOTLOADER_MAGIC 0x36d76289u

#define BOOT_MMAP_MAX	     512
#define BOOT_MODS_MAX	     16
#define BOOT_KEEP_MAX	     40
#define BOOT_ERR_MAX	     8
#define BOOT_ERR_LEN	     96
/*
 * The loader's command line is copied whole or not used at all: a line cut
 * at a limit would run with a value cut in half (cpus=31 as cpus=3). Far
 * above any real use; a longer line is named and none of it applied.
 */
#define BOOT_CMDLINE_MAX 8192

/* Memory map types, as both multiboot versions (and E820) number them. */
enum {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIM = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

enum boot_proto { BOOT_NONE, BOOT_MB1, BOOT_MB2 };

struct boot_region {
	uint64_t base, len;
	uint32_t type;
};

struct boot_info {
	enum boot_proto proto;
	bool efi; /* mb2 EFI system table tag seen: booted through UEFI */
	bool efi_bs_active; /* mb2 tag 18: boot services not exited */
	uint64_t efi_systab;

	char cmdline[BOOT_CMDLINE_MAX];
	/*
	 * The loader's line did not fit cmdline[]: what is there is its start
	 * only, and no word of it may be applied. cmdline_len is the length
	 * the loader gave (mb1: counted up to 1 MiB, then "at least").
	 */
	bool cmdline_truncated;
	size_t cmdline_len;
	char loader[64]; /* printable ASCII: other bytes become '?' */

	bool have_meminfo;
	uint32_t mem_lower_kb, mem_upper_kb;

	bool have_mmap;
	size_t mmap_count;
	bool mmap_truncated; /* more entries than BOOT_MMAP_MAX */
	struct boot_region mmap[BOOT_MMAP_MAX];

	size_t mod_count;
	struct boot_region mods[BOOT_MODS_MAX]; /* type unused */

	/* Copy of the RSDP from an mb2 ACPI tag (14 = v1, 15 = v2+). */
	size_t rsdp_len; /* 0: none */
	uint8_t rsdp[64];

	/*
	 * Physical ranges the loader's data occupied (the info block, and for
	 * mb1 the map, strings and modules): regions the kernel must not
	 * hand out before it has finished reading them; modules for ever.
	 */
	size_t keep_count;
	struct boot_region keep[BOOT_KEEP_MAX];

	size_t error_count; /* how many problems; only the first few kept */
	char errors[BOOT_ERR_MAX][BOOT_ERR_LEN];
};

/*
 * Returns a pointer to len readable bytes at physical address addr, or NULL
 * if that range is not accessible. The parser uses the pointer only until
 * its next call, so a reader may reuse one temporary mapping.
 */
typedef const void *(*phys_reader)(void *ctx, uint64_t addr, size_t len);

/*
 * Parses the information the loader left at info_addr. Returns 0 when the
 * magic is known and the block was usable (errors[] may still list
 * problems with parts of it), -1 when nothing could be used (unknown magic,
 * unreadable block); proto is BOOT_NONE then.
 */
int multiboot_parse(uint32_t magic, uint64_t info_addr, phys_reader rd,
		    void *ctx, struct boot_info *out);

/* "multiboot1", "multiboot2-bios", "multiboot2-efi" or "unknown". */
const char *boot_path_name(const struct boot_info *bi);

/* Sum of the lengths of MEM_USABLE regions (overlaps not merged; saturates). */
uint64_t boot_usable_bytes(const struct boot_info *bi);

/*
 * Whether every byte of [pa, pa + len) lies in some memory-map entry, of
 * any type (usable, reserved, ACPI, ...); ranges may span adjacent or
 * overlapping entries. False for an empty range or one that wraps.
 */
bool boot_mmap_covers(const struct boot_info *bi, uint64_t pa, uint64_t len);

/* The first entry of this type that shares a byte with [pa, pa + len). */
const struct boot_region *boot_mmap_overlap(const struct boot_info *bi,
					    uint64_t pa, uint64_t len,
					    uint32_t type);

#endif
