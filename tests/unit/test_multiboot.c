// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/multiboot.c's multiboot 2: blocks laid out byte by
 * byte in a simulated physical memory (mbsim.h), well-formed and not.
 * Multiboot 1 is test_multiboot1.c's; the queries on what was parsed are
 * test_multiboot_query.c's.
 */
#include "mb_parse.h"

static void test_mb2_qemu_efi(void **state)
{
	const char *cmd = "/boot/shootdown.elf console=com1 bench=all";
	uint8_t rsdp[36], sys[8], fb[24] = {0};
	struct mb2b b;
	uint32_t total;

	(void)state;
	make_rsdp(rsdp, sizeof(rsdp), 2);
	put64(sys, 0x7f9e018);
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, cmd);
	mb2_str(&b, 2, "GRUB 2.06");
	mb2_u32s(&b, 21, 0x200000, 0); /* load base: not used */
	mb2_u32s(&b, 4, 639, 2095104);
	mb2_mmap(&b, 24, pc_map, ARRAY_SIZE(pc_map));
	mb2_tag(&b, 8, fb, sizeof(fb)); /* framebuffer: not used */
	mb2_tag(&b, 15, rsdp, sizeof(rsdp));
	mb2_tag(&b, 12, sys, sizeof(sys));
	total = mb2_end(&b);

	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	assert_int_equal(bi.proto, BOOT_MB2);
	assert_string_equal(boot_path_name(&bi), "multiboot2-efi");
	assert_true(bi.efi);
	assert_false(bi.efi_bs_active);
	assert_true(bi.efi_systab == 0x7f9e018);
	assert_string_equal(bi.cmdline, cmd);
	assert_false(bi.cmdline_truncated);
	assert_string_equal(bi.loader, "GRUB 2.06");
	assert_true(bi.have_meminfo);
	assert_int_equal(bi.mem_lower_kb, 639);
	assert_int_equal(bi.mem_upper_kb, 2095104);
	expect_mmap(pc_map, ARRAY_SIZE(pc_map));
	assert_false(bi.mmap_truncated);
	assert_true(boot_usable_bytes(&bi) == PC_USABLE);
	assert_int_equal(bi.rsdp_len, 36);
	assert_memory_equal(bi.rsdp, rsdp, 36);
	assert_int_equal(bi.mod_count, 0);
	assert_int_equal(bi.keep_count, 1);
	expect_region(&bi.keep[0], INFO, total);
	/* Everything was copied: the loader's memory can go. */
	memset(sim.mem, 0, sizeof(sim.mem));
	assert_string_equal(bi.cmdline, cmd);
	assert_true(bi.mmap[8].base == 0x100000000);
}

static void test_mb2_bios(void **state)
{
	uint8_t rsdp[20];
	struct mb2b b;

	(void)state;
	make_rsdp(rsdp, sizeof(rsdp), 0);
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, "");
	mb2_str(&b, 2, "GRUB 2.06");
	mb2_tag(&b, 14, rsdp, sizeof(rsdp));
	mb2_mmap(&b, 24, pc_map, 4);
	mb2_end(&b);

	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	assert_string_equal(boot_path_name(&bi), "multiboot2-bios");
	assert_false(bi.efi);
	assert_true(bi.efi_systab == 0);
	assert_string_equal(bi.cmdline, "");
	assert_false(bi.have_meminfo);
	assert_int_equal(bi.rsdp_len, 20);
	assert_memory_equal(bi.rsdp, rsdp, 20);
	expect_mmap(pc_map, 4);
	assert_true(boot_usable_bytes(&bi) == 0x9fc00 + 0x7ee0000);
}

static void test_mb2_efi32_and_boot_services(void **state)
{
	uint8_t sys[4], sys64[8];
	struct mb2b b;

	(void)state;
	put32(sys, 0x3f8e1000);
	mb2_begin(&b, INFO);
	mb2_tag(&b, 11, sys, sizeof(sys));
	mb2_tag(&b, 18, NULL, 0);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	assert_true(bi.efi);
	assert_true(bi.efi_bs_active);
	assert_true(bi.efi_systab == 0x3f8e1000);
	assert_string_equal(boot_path_name(&bi), "multiboot2-efi");
	assert_false(bi.have_mmap);
	assert_true(boot_usable_bytes(&bi) == 0);
	/* A 64-bit table pointer keeps all its bits. */
	put64(sys64, 0x123456780ull);
	mb2_begin(&b, INFO);
	mb2_tag(&b, 12, sys64, sizeof(sys64));
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_true(bi.efi);
	assert_false(bi.efi_bs_active);
	assert_true(bi.efi_systab == 0x123456780ull);
}

/* The ACPI 2.0 copy wins whichever tag comes first. */
static void test_mb2_rsdp_preference(void **state)
{
	uint8_t v1[20], v2[36];
	struct mb2b b;

	(void)state;
	make_rsdp(v1, sizeof(v1), 0);
	make_rsdp(v2, sizeof(v2), 2);
	for (int order = 0; order < 2; order++) {
		mb2_begin(&b, INFO);
		mb2_tag(&b, order ? 15 : 14, order ? v2 : v1, order ? 36 : 20);
		mb2_tag(&b, order ? 14 : 15, order ? v1 : v2, order ? 20 : 36);
		mb2_end(&b);
		assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
		assert_int_equal(bi.rsdp_len, 36);
		assert_memory_equal(bi.rsdp, v2, 36);
	}
}

static void mb2_module(struct mb2b *b, uint32_t start, uint32_t end)
{
	uint8_t p[16];

	put32(p, start);
	put32(p + 4, end);
	memcpy(p + 8, "mod.bin", 8);
	mb2_tag(b, 3, p, sizeof(p));
}

static void test_mb2_modules(void **state)
{
	struct mb2b b;
	uint32_t total;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_module(&b, 0x200000, 0x201000);
	mb2_module(&b, 0x300000, 0x2fffff); /* ends before it starts */
	mb2_module(&b, 0x400000, 0x400010);
	total = mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: module at 0x300000: module ends before it "
			"starts");
	assert_int_equal(bi.mod_count, 2);
	expect_region(&bi.mods[0], 0x200000, 0x1000);
	expect_region(&bi.mods[1], 0x400000, 0x10);
	assert_int_equal(bi.keep_count, 3);
	expect_region(&bi.keep[0], INFO, total);
	expect_region(&bi.keep[1], 0x200000, 0x1000);
	expect_region(&bi.keep[2], 0x400000, 0x10);
}

static void test_mb2_too_many_modules(void **state)
{
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	for (uint32_t i = 0; i < BOOT_MODS_MAX + 1; i++)
		mb2_module(&b, 0x200000 + i * 0x1000, 0x200800 + i * 0x1000);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.mod_count, BOOT_MODS_MAX);
	expect_region(&bi.mods[BOOT_MODS_MAX - 1], 0x20f000, 0x800);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: module at 0x210000: too many modules: ignored");
}

/* entry_size larger than 24 is honoured: the padding is skipped. */
static void test_mb2_mmap_entry_size(void **state)
{
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_mmap(&b, 40, pc_map, ARRAY_SIZE(pc_map));
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	expect_mmap(pc_map, ARRAY_SIZE(pc_map));
	assert_true(boot_usable_bytes(&bi) == PC_USABLE);
}

static void test_mb2_mmap_bad(void **state)
{
	uint8_t p[8 + 24 * 2 + 16];
	struct mb2b b;

	(void)state;
	/* entry_size below 24: the map cannot be read. */
	mb2_begin(&b, INFO);
	mb2_mmap(&b, 16, pc_map, 4);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: tag 6 at +0x8: entry_size < 24: map ignored");
	assert_false(bi.have_mmap);
	/* No entries at all. */
	mb2_begin(&b, INFO);
	mb2_mmap(&b, 24, pc_map, 0);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	expect_error(0, "mb2: tag 6 at +0x8: memory map has no entries");
	assert_false(bi.have_mmap);
	/* A trailing partial entry is not read. */
	memset(p, 0xff, sizeof(p));
	put32(p, 24);
	put32(p + 4, 0);
	for (int i = 0; i < 2; i++) {
		put64(p + 8 + 24 * i, pc_map[i].base);
		put64(p + 16 + 24 * i, pc_map[i].len);
		put32(p + 24 + 24 * i, pc_map[i].type);
	}
	mb2_begin(&b, INFO);
	mb2_tag(&b, 6, p, sizeof(p));
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	expect_mmap(pc_map, 2);
}

static void test_mb2_mmap_too_many(void **state)
{
	struct region *r = calloc(600, sizeof(*r));
	struct mb2b b;

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < 600; i++)
		r[i] = (struct region){i * 0x1000, 0x1000, MEM_USABLE};
	mb2_begin(&b, INFO);
	mb2_mmap(&b, 24, r, 600);
	mb2_str(&b, 2, "after the map");
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_true(bi.mmap_truncated);
	expect_mmap(r, BOOT_MMAP_MAX);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "boot: more than 512 memory regions: rest ignored");
	assert_true(boot_usable_bytes(&bi) == BOOT_MMAP_MAX * 0x1000ull);
	assert_string_equal(bi.loader, "after the map");
	free(r);
}

static void test_mb2_mmap_odd_regions(void **state)
{
	static const struct region r[] = {
		{0x1000, 0, MEM_USABLE}, /* empty: dropped */
		{0x2000, 0x1000, 7},	 /* unknown type: kept */
		{UINT64_MAX - 0xfff, 0x1000, MEM_RESERVED}, /* to the top */
		{UINT64_MAX - 0xfff, 0x1001, MEM_USABLE},   /* wraps */
	};
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_mmap(&b, 24, r, ARRAY_SIZE(r));
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "boot: memory region at 0xfffffffffffff000 wraps past "
			"2^64: ignored");
	expect_mmap(r + 1, 2);
	assert_true(boot_usable_bytes(&bi) == 0);
}

/* A tag that claims more than the block holds ends the walk. */
static void test_mb2_tag_past_total(void **state)
{
	uint8_t mem[8] = {0};
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, "kept");
	mb2_raw(&b, 4, 0x100, mem, sizeof(mem));
	mb2_str(&b, 2, "not reached");
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: tag 4 at +0x18: runs past total_size: rest "
			"ignored");
	assert_string_equal(bi.cmdline, "kept");
	assert_false(bi.have_meminfo);
	assert_string_equal(bi.loader, "");
	/* Just 4 bytes too long is too long. */
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, "kept");
	mb2_u32s(&b, 4, 1, 2);
	assert_int_equal(mb2_end(&b), 0x30);
	w32(INFO + 0x18 + 4, 0x30 - 0x18 + 4);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: tag 4 at +0x18: runs past total_size: rest "
			"ignored");
	assert_false(bi.have_meminfo);
	/* Ending exactly at total_size is fine (and then there is no end). */
	w32(INFO + 0x18 + 4, 0x30 - 0x18);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: no end tag");
	assert_true(bi.have_meminfo);
}

static void test_mb2_tag_size_below_8(void **state)
{
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_str(&b, 2, "L");
	mb2_raw(&b, 1, 4, NULL, 0);
	mb2_str(&b, 1, "not reached");
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: tag 1 at +0x18: size below 8: rest ignored");
	assert_string_equal(bi.loader, "L");
	assert_string_equal(bi.cmdline, "");
}

static void test_mb2_no_end_tag(void **state)
{
	struct mb2b b;

	(void)state;
	/* The last tag ends exactly at total_size. */
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, "console=com2");
	mb2_u32s(&b, 4, 640, 1024);
	w32(INFO, b.off);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: no end tag");
	assert_string_equal(bi.cmdline, "console=com2");
	assert_true(bi.have_meminfo);
	expect_region(&bi.keep[0], INFO, b.off);
	/* Or a few bytes too few for another tag header. */
	w32(INFO, b.off + 4);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: no end tag");
}

static void test_mb2_total_size(void **state)
{
	static const uint32_t bad[] = {0, 8, 15, (1u << 20) + 1, UINT32_MAX};
	char msg[BOOT_ERR_LEN];
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	assert_int_equal(mb2_end(&b), 16);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	assert_int_equal(bi.proto, BOOT_MB2);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		w32(INFO, bad[i]);
		assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), -1);
		assert_int_equal(bi.error_count, 1);
		snprintf(msg, sizeof(msg), "mb2: implausible total_size 0x%x",
			 bad[i]);
		expect_error(0, msg);
		assert_string_equal(boot_path_name(&bi), "unknown");
		assert_int_equal(bi.keep_count, 0);
	}
}

static void test_mb2_unreadable(void **state)
{
	uint64_t end = SIM_BASE + SIM_SIZE;
	struct mb2b b;

	(void)state;
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, 0x1000), -1);
	expect_error(0, "mb2: info block unreadable at 0x1000");
	/* The header is readable but the block runs off the memory. */
	mb2_begin(&b, end - 24);
	mb2_end(&b);
	w32(end - 24, 32);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, end - 24), -1);
	assert_int_equal(bi.error_count, 1);
	/* A hole inside the block. */
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, "x");
	mb2_end(&b);
	sim.hole_lo = INFO + 12;
	sim.hole_hi = INFO + 13;
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), -1);
	expect_error(0, "mb2: info block unreadable at 0x101000");
	sim.hole_lo = sim.hole_hi = 0;
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_string_equal(bi.cmdline, "x");
	assert_int_equal(bi.error_count, 0);
}

static void test_mb2_strings(void **state)
{
	static char big[BOOT_CMDLINE_MAX + 1000];
	struct mb2b b;

	(void)state;
	/* No NUL inside the tag: it ends at the tag's end, kept whole. */
	mb2_begin(&b, INFO);
	mb2_tag(&b, 1, "abc", 3);
	mb2_tag(&b, 2, "GRUB", 4);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 2);
	expect_error(0, "mb2: tag 1 at +0x8: string without NUL: ends at the "
			"tag");
	expect_error(1, "mb2: tag 2 at +0x18: string without NUL: ends at the "
			"tag");
	assert_string_equal(bi.cmdline, "abc");
	assert_false(bi.cmdline_truncated);
	assert_int_equal(bi.cmdline_len, 3);
	assert_string_equal(bi.loader, "GRUB");
	/* An empty tag has no NUL either. */
	mb2_begin(&b, INFO);
	mb2_tag(&b, 1, NULL, 0);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	expect_error(0, "mb2: tag 1 at +0x8: string without NUL: ends at the "
			"tag");
	assert_string_equal(bi.cmdline, "");
	/* Longest that fits, then one more. */
	memset(big, 'c', sizeof(big));
	big[BOOT_CMDLINE_MAX - 1] = '\0';
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, big);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	assert_false(bi.cmdline_truncated);
	assert_int_equal(bi.cmdline_len, BOOT_CMDLINE_MAX - 1);
	assert_string_equal(bi.cmdline, big);
	/* One byte more: named with its length, marked as not to be used. */
	big[BOOT_CMDLINE_MAX - 1] = 'c';
	big[BOOT_CMDLINE_MAX] = '\0';
	mb2_begin(&b, INFO);
	mb2_str(&b, 1, big);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb2: tag 1 at +0x8: command line of 8192 bytes, "
			"longer than 8191: not used");
	assert_true(bi.cmdline_truncated);
	assert_int_equal(bi.cmdline_len, BOOT_CMDLINE_MAX);
	assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
	big[BOOT_CMDLINE_MAX] = 'c';
	big[sizeof(big) - 1] = '\0';
	/* A long loader name is cut to fit without complaint. */
	mb2_begin(&b, INFO);
	mb2_str(&b, 2, big);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, 0);
	assert_int_equal(strlen(bi.loader), sizeof(bi.loader) - 1);
	assert_false(bi.cmdline_truncated);
}

static void test_mb2_short_tags(void **state)
{
	static const uint32_t types[] = {3, 4, 6, 11, 12, 14, 15};
	static const uint32_t sizes[] = {15, 12, 15, 11, 12, 27, 43};
	uint8_t zero[40] = {0};
	char msg[BOOT_ERR_LEN];
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		mb2_raw(&b, types[i], sizes[i], zero, sizes[i] - 8);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, ARRAY_SIZE(types));
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		snprintf(msg, sizeof(msg), "mb2: tag %u at +0x", types[i]);
		assert_memory_equal(bi.errors[i], msg, strlen(msg));
		assert_non_null(strstr(bi.errors[i], ": too short: ignored"));
	}
	assert_int_equal(bi.mod_count, 0);
	assert_false(bi.have_meminfo);
	assert_false(bi.have_mmap);
	assert_false(bi.efi);
	assert_int_equal(bi.rsdp_len, 0);
}

/* More problems than errors[] holds: all counted, the first ones kept. */
static void test_error_overflow(void **state)
{
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	for (int i = 0; i < BOOT_ERR_MAX + 4; i++)
		mb2_raw(&b, 4, 12, "\0\0\0\0", 4);
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_int_equal(bi.error_count, BOOT_ERR_MAX + 4);
	expect_error(0, "mb2: tag 4 at +0x8: too short: ignored");
	expect_error(BOOT_ERR_MAX - 1, "mb2: tag 4 at +0x78: too short: "
				       "ignored");
}

static void test_bad_magic_and_reader(void **state)
{
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_end(&b);
	assert_int_equal(run(0x12345678, INFO), -1);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "boot: unknown loader magic 0x12345678");
	assert_string_equal(boot_path_name(&bi), "unknown");
	assert_int_equal(sim.reads, 0);
	memset(&bi, 0x5a, sizeof(bi));
	assert_int_equal(
		multiboot_parse(MB2_BOOTLOADER_MAGIC, INFO, NULL, &sim, &bi),
		-1);
	assert_int_equal(bi.proto, BOOT_NONE);
	assert_int_equal(bi.error_count, 1);
	assert_int_equal(bi.keep_count, 0);
}

/* Multiboot 1: the info block, and what its flags point at. */
#define T(f) cmocka_unit_test_setup_teardown(f, sim_setup, sim_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_mb2_qemu_efi),
		T(test_mb2_bios),
		T(test_mb2_efi32_and_boot_services),
		T(test_mb2_rsdp_preference),
		T(test_mb2_modules),
		T(test_mb2_too_many_modules),
		T(test_mb2_mmap_entry_size),
		T(test_mb2_mmap_bad),
		T(test_mb2_mmap_too_many),
		T(test_mb2_mmap_odd_regions),
		T(test_mb2_tag_past_total),
		T(test_mb2_tag_size_below_8),
		T(test_mb2_no_end_tag),
		T(test_mb2_total_size),
		T(test_mb2_unreadable),
		T(test_mb2_strings),
		T(test_mb2_short_tags),
		T(test_error_overflow),
		T(test_bad_magic_and_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
