/* SPDX-License-Identifier: MIT */
/*
 * The multiboot tests' parse (test_multiboot.c, test_multiboot1.c,
 * test_multiboot_query.c): multiboot_parse over the simulated memory of
 * mbsim.h, with what must hold for any input checked on every call, and
 * the expectations on what it made of a block.
 */
#ifndef TESTS_UNIT_MB_PARSE_H
#define TESTS_UNIT_MB_PARSE_H

#include "mbsim.h"
#include "kernel/multiboot.h"

#define INFO (SIM_BASE + 0x1000) /* where the mb2 blocks go */

static struct boot_info bi;

/* Parses, then checks what must hold for any input. */
static inline int run(uint32_t magic, uint64_t addr)
{
	int ret;

	memset(&bi, 0x5a, sizeof(bi));
	ret = multiboot_parse(magic, addr, sim_read, &sim, &bi);
	for (size_t i = 0; i < bi.error_count && i < BOOT_ERR_MAX; i++)
		assert_printable(bi.errors[i], BOOT_ERR_LEN);
	assert_true(bi.mmap_count <= BOOT_MMAP_MAX);
	assert_true(bi.mod_count <= BOOT_MODS_MAX);
	assert_true(bi.keep_count <= BOOT_KEEP_MAX);
	assert_int_equal(bi.have_mmap, bi.mmap_count > 0);
	assert_true(strnlen(bi.cmdline, BOOT_CMDLINE_MAX) < BOOT_CMDLINE_MAX);
	assert_true(strnlen(bi.loader, sizeof(bi.loader)) < sizeof(bi.loader));
	if (ret < 0)
		assert_int_equal(bi.proto, BOOT_NONE);
	return ret;
}

static inline void expect_error(size_t i, const char *msg)
{
	assert_true(i < bi.error_count);
	assert_string_equal(bi.errors[i], msg);
}

static inline void expect_region(const struct boot_region *r, uint64_t base,
				 uint64_t len)
{
	assert_true(r->base == base);
	assert_true(r->len == len);
}

static inline void expect_mmap(const struct region *want, size_t n)
{
	assert_int_equal(bi.mmap_count, n);
	for (size_t i = 0; i < n; i++) {
		expect_region(&bi.mmap[i], want[i].base, want[i].len);
		assert_int_equal(bi.mmap[i].type, want[i].type);
	}
}

/* What QEMU's firmware reports for a 2 GiB guest, roughly. */
static const struct region pc_map[] __attribute__((unused)) = {
	{0x0, 0x9fc00, MEM_USABLE},
	{0x9fc00, 0x400, MEM_RESERVED},
	{0xf0000, 0x10000, MEM_RESERVED},
	{0x100000, 0x7ee0000, MEM_USABLE},
	{0x7fe0000, 0x10000, MEM_ACPI_RECLAIM},
	{0x7ff0000, 0x10000, MEM_ACPI_NVS},
	{0xfeffc000, 0x4000, MEM_RESERVED},
	{0xfffc0000, 0x40000, MEM_RESERVED},
	{0x100000000, 0x80000000, MEM_USABLE},
};
#define PC_USABLE (0x9fc00ull + 0x7ee0000 + 0x80000000)

static inline void make_rsdp(uint8_t *r, size_t len, uint8_t rev)
{
	memcpy(r, "RSD PTR ", 8);
	r[8] = 0x42; /* checksum: not checked here */
	memcpy(r + 9, "BOCHS ", 6);
	r[15] = rev;
	put32(r + 16, 0x7fe14d2);
	if (len > 20) {
		put32(r + 20, 36);
		put64(r + 24, 0x7fe1574);
		r[32] = 0x99;
		memset(r + 33, 0, 3);
	}
}

#endif
