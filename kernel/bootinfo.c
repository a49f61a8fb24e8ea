// SPDX-License-Identifier: MIT
#include "bootinfo.h"
#include "report.h"

/* The boot page tables identity-map the first 4 GiB (boot/entry.S). */
#define IDENTITY_LIMIT (4ull << 30)

struct boot_info boot_info;

static const void *identity_reader(void *ctx, uint64_t addr, size_t len)
{
	(void)ctx;
	if (addr == 0 || addr >= IDENTITY_LIMIT || len > IDENTITY_LIMIT - addr)
		return NULL;
	return (const void *)(uintptr_t)addr;
}

void bootinfo_parse(uint32_t magic, uint32_t info_addr)
{
	multiboot_parse(magic, info_addr, identity_reader, NULL, &boot_info);
}

void bootinfo_report(void)
{
	const struct boot_info *bi = &boot_info;

	report_info("boot: %s, loader '%s', %zu memory map entries, "
		    "%llu MiB usable",
		    boot_path_name(bi), bi->loader[0] ? bi->loader : "?",
		    bi->mmap_count,
		    (unsigned long long)(boot_usable_bytes(bi) >> 20));
	for (size_t i = 0; i < bi->error_count && i < BOOT_ERR_MAX; i++)
		report_info("boot: loader information: %s", bi->errors[i]);
	if (bi->error_count > BOOT_ERR_MAX)
		report_info("boot: loader information: %zu more problems",
			    bi->error_count - BOOT_ERR_MAX);
	if (bi->mmap_truncated)
		report_info("boot: memory map has more than %d entries; the "
			    "rest are ignored",
			    BOOT_MMAP_MAX);
}
