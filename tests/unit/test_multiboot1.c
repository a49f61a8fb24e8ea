// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/multiboot.c's multiboot 1: info blocks with each
 * flag, their sizes, command lines, bad memory maps and modules, and the
 * loader's name as printed, in the simulated memory of mbsim.h.
 */
#include "mb_parse.h"

#define MB1_ALL \
	((1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 6) | (1u << 9))
#define MB1_CMD	 (SIM_BASE + 0x800)
#define MB1_MODS (SIM_BASE + 0x900)
#define MB1_MMAP (SIM_BASE + 0xa00)
#define MB1_NAME (SIM_BASE + 0xc00)

/* A map entry: size, base, length, type (+ padding for larger sizes). */
static uint64_t mb1_entry(uint64_t at, uint32_t size, const struct region *r)
{
	w32(at, size);
	put64(sim_at(at + 4, 8), r->base);
	put64(sim_at(at + 12, 8), r->len);
	w32(at + 20, r->type);
	return at + 4 + size;
}

/* Lays out a full mb1 info block at SIM_BASE; returns the mmap length. */
static uint32_t mb1_build(const char *cmd)
{
	uint64_t at = MB1_MMAP;

	w32(SIM_BASE, MB1_ALL);
	w32(SIM_BASE + 4, 639);
	w32(SIM_BASE + 8, 129920);
	w32(SIM_BASE + 12, 0x8000ffff);
	w32(SIM_BASE + 16, (uint32_t)MB1_CMD);
	wstr(MB1_CMD, cmd);
	w32(SIM_BASE + 20, 2);
	w32(SIM_BASE + 24, (uint32_t)MB1_MODS);
	w32(MB1_MODS, 0x110000);
	w32(MB1_MODS + 4, 0x110400);
	w32(MB1_MODS + 16, 0x112000);
	w32(MB1_MODS + 20, 0x112010);
	for (size_t i = 0; i < ARRAY_SIZE(pc_map); i++)
		at = mb1_entry(at, i == 7 ? 28 : 20, &pc_map[i]);
	w32(SIM_BASE + 44, (uint32_t)(at - MB1_MMAP));
	w32(SIM_BASE + 48, (uint32_t)MB1_MMAP);
	w32(SIM_BASE + 64, (uint32_t)MB1_NAME);
	wstr(MB1_NAME, "QEMU");
	return (uint32_t)(at - MB1_MMAP);
}

static void test_mb1_full(void **state)
{
	const char *cmd = "/boot/k console=com2";
	uint32_t mlen = mb1_build(cmd);

	(void)state;
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 0);
	assert_int_equal(bi.proto, BOOT_MB1);
	assert_string_equal(boot_path_name(&bi), "multiboot1");
	assert_false(bi.efi);
	assert_true(bi.have_meminfo);
	assert_int_equal(bi.mem_lower_kb, 639);
	assert_int_equal(bi.mem_upper_kb, 129920);
	assert_string_equal(bi.cmdline, cmd);
	assert_string_equal(bi.loader, "QEMU");
	expect_mmap(pc_map, ARRAY_SIZE(pc_map));
	assert_true(boot_usable_bytes(&bi) == PC_USABLE);
	assert_int_equal(bi.mod_count, 2);
	expect_region(&bi.mods[0], 0x110000, 0x400);
	expect_region(&bi.mods[1], 0x112000, 0x10);
	assert_int_equal(bi.rsdp_len, 0);
	assert_int_equal(bi.keep_count, 7);
	expect_region(&bi.keep[0], SIM_BASE, 68);
	expect_region(&bi.keep[1], MB1_CMD, strlen(cmd) + 1);
	expect_region(&bi.keep[2], MB1_MODS, 32);
	expect_region(&bi.keep[3], 0x110000, 0x400);
	expect_region(&bi.keep[4], 0x112000, 0x10);
	expect_region(&bi.keep[5], MB1_MMAP, mlen);
	expect_region(&bi.keep[6], MB1_NAME, 5);
}

/* Only the fields that the flags announce are read, or used. */
static void test_mb1_flags(void **state)
{
	uint64_t end = SIM_BASE + SIM_SIZE;

	(void)state;
	mb1_build("unused");
	w32(SIM_BASE, 1u << 1);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 0);
	assert_false(bi.have_meminfo);
	assert_string_equal(bi.cmdline, "");
	assert_string_equal(bi.loader, "");
	assert_false(bi.have_mmap);
	assert_int_equal(bi.mod_count, 0);
	assert_int_equal(bi.keep_count, 1);
	expect_region(&bi.keep[0], SIM_BASE, 4);
	/* A block at the very end of memory: 12 bytes are all there is. */
	w32(end - 12, 1u << 0);
	w32(end - 8, 640);
	w32(end - 4, 1024);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, end - 12), 0);
	assert_int_equal(bi.mem_upper_kb, 1024);
	w32(end - 12, (1u << 0) | (1u << 2));
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, end - 12), -1);
	expect_error(0, "mb1: info block unreadable at 0x11fff4");
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, end - 2), -1);
}

/* Each flag needs the info block up to its field, and not a byte more. */
static void test_mb1_info_sizes(void **state)
{
	uint64_t end = SIM_BASE + SIM_SIZE, at;
	struct region r = {0x100000, 0x1000000, MEM_USABLE};

	(void)state;
	at = end - 20;
	w32(at, 1u << 2);
	w32(at + 16, (uint32_t)MB1_CMD);
	wstr(MB1_CMD, "cpus=2");
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, at), 0);
	assert_string_equal(bi.cmdline, "cpus=2");
	expect_region(&bi.keep[0], at, 20);

	at = end - 28;
	w32(at, 1u << 3);
	w32(at + 20, 1);
	w32(at + 24, (uint32_t)MB1_MODS);
	w32(MB1_MODS, 0x200000);
	w32(MB1_MODS + 4, 0x200100);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, at), 0);
	assert_int_equal(bi.mod_count, 1);
	expect_region(&bi.keep[0], at, 28);

	at = end - 52;
	w32(at, 1u << 6);
	w32(at + 44, 24);
	w32(at + 48, (uint32_t)MB1_MMAP);
	mb1_entry(MB1_MMAP, 20, &r);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, at), 0);
	expect_mmap(&r, 1);
	expect_region(&bi.keep[0], at, 52);

	at = end - 68;
	w32(at, 1u << 9);
	w32(at + 64, (uint32_t)MB1_NAME);
	wstr(MB1_NAME, "GRUB 0.97");
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, at), 0);
	assert_string_equal(bi.loader, "GRUB 0.97");
	expect_region(&bi.keep[0], at, 68);
	assert_int_equal(bi.error_count, 0);
}

static void test_mb1_cmdline(void **state)
{
	static char big[BOOT_CMDLINE_MAX + 8];

	(void)state;
	mb1_build("x");
	memset(big, 'a', sizeof(big));
	big[BOOT_CMDLINE_MAX - 1] = '\0';
	wstr(SIM_BASE + 0x4000, big);
	w32(SIM_BASE + 16, (uint32_t)SIM_BASE + 0x4000);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 0);
	assert_false(bi.cmdline_truncated);
	assert_string_equal(bi.cmdline, big);
	expect_region(&bi.keep[1], SIM_BASE + 0x4000, BOOT_CMDLINE_MAX);
	/* One byte more. */
	big[BOOT_CMDLINE_MAX - 1] = 'a';
	big[BOOT_CMDLINE_MAX] = '\0';
	wstr(SIM_BASE + 0x4000, big);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb1: command line at 0x104000: 8192 bytes, longer "
			"than 8191: not used");
	assert_true(bi.cmdline_truncated);
	assert_int_equal(bi.cmdline_len, BOOT_CMDLINE_MAX);
	assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
	/* 4350 bytes, cpus=31 across byte 1023: once cut to cpus=3, now whole. */
	memset(big, 'a', 4350);
	memcpy(big + 1020, " cpus=31 ", 9);
	big[4350] = '\0';
	wstr(SIM_BASE + 0x4000, big);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 0);
	assert_false(bi.cmdline_truncated);
	assert_int_equal(bi.cmdline_len, 4350);
	assert_string_equal(bi.cmdline, big);
	/* Outside memory. */
	w32(SIM_BASE + 16, 0x50);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	expect_error(0, "mb1: string unreadable at 0x50");
	assert_string_equal(bi.cmdline, "");
	assert_string_equal(bi.loader, "QEMU");
	/* Running into the end of memory: the part read is kept. */
	memcpy(sim_at(SIM_BASE + SIM_SIZE - 3, 3), "abc", 3);
	w32(SIM_BASE + 16, (uint32_t)(SIM_BASE + SIM_SIZE - 3));
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	expect_error(0, "mb1: string unreadable at 0x120000");
	assert_string_equal(bi.cmdline, "abc");
	/* A long loader name is cut to fit without complaint. */
	w32(SIM_BASE + 16, (uint32_t)MB1_CMD);
	w32(SIM_BASE + 64, (uint32_t)SIM_BASE + 0x4000);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 0);
	assert_int_equal(strlen(bi.loader), sizeof(bi.loader) - 1);
}

static void test_mb1_mmap_bad(void **state)
{
	static const char *const msgs[] = {
		"mb1: bad memory map entry at +0x18: rest ignored",
		"mb1: bad memory map entry at +0x18: rest ignored",
		"mb1: memory map length 0x0: ignored",
		"mb1: memory map length 0x100001: ignored",
		"mb1: memory map unreadable at 0x100a18",
	};
	uint64_t at;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(msgs); i++) {
		mb1_build("x");
		at = mb1_entry(MB1_MMAP, 20, &pc_map[0]);
		if (i == 0) /* an entry size below 20 */
			mb1_entry(at, 12, &pc_map[1]);
		if (i == 1) /* an entry running past mmap_length */
			w32(SIM_BASE + 44, 24 + 20);
		if (i == 2)
			w32(SIM_BASE + 44, 0);
		if (i == 3)
			w32(SIM_BASE + 44, (1u << 20) + 1);
		if (i == 4) { /* the second entry cannot be read */
			sim.hole_lo = at + 8;
			sim.hole_hi = at + 9;
		}
		assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
		assert_int_equal(bi.error_count, 1);
		expect_error(0, msgs[i]);
		assert_int_equal(bi.mmap_count, i < 2 || i == 4 ? 1 : 0);
		assert_int_equal(bi.mod_count, 2);
		assert_string_equal(bi.loader, "QEMU");
		sim.hole_lo = sim.hole_hi = 0;
	}
}

static void test_mb1_mods_bad(void **state)
{
	(void)state;
	mb1_build("x");
	w32(SIM_BASE + 20, 1000);
	for (uint32_t i = 0; i < 1000 && i < 40; i++) {
		w32(MB1_MODS + 0x2000 + 16 * i, 0x110000 + i);
		w32(MB1_MODS + 0x2004 + 16 * i, 0x110001 + i);
	}
	w32(SIM_BASE + 24, (uint32_t)MB1_MODS + 0x2000);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb1: more than 16 modules: rest ignored");
	assert_int_equal(bi.mod_count, BOOT_MODS_MAX);
	expect_region(&bi.mods[15], 0x11000f, 1);
	expect_region(&bi.keep[2], MB1_MODS + 0x2000, 16 * BOOT_MODS_MAX);
	/* Just one too many. */
	w32(SIM_BASE + 20, BOOT_MODS_MAX + 1);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 1);
	expect_error(0, "mb1: more than 16 modules: rest ignored");
	assert_int_equal(bi.mod_count, BOOT_MODS_MAX);
	/* The list itself cannot be read past its first entry. */
	w32(SIM_BASE + 20, 2);
	w32(SIM_BASE + 24, (uint32_t)(SIM_BASE + SIM_SIZE - 16));
	w32(SIM_BASE + SIM_SIZE - 16, 0x300000);
	w32(SIM_BASE + SIM_SIZE - 12, 0x200000);
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_int_equal(bi.error_count, 2);
	expect_error(0, "mb1: module at 0x300000: module ends before it "
			"starts");
	expect_error(1, "mb1: module list unreadable at 0x120000");
	assert_int_equal(bi.mod_count, 0);
}

static void test_loader_name_printable(void **state)
{
	struct mb2b b;

	(void)state;
	mb2_begin(&b, INFO);
	mb2_str(&b, 2, "GRUB\n\x1b[2JFAIL: x\x7f\xf5");
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_string_equal(bi.loader, "GRUB??[2JFAIL: x??");
	assert_int_equal(bi.error_count, 0);

	mb1_build("x");
	wstr(MB1_NAME, "\rQEMU\t");
	assert_int_equal(run(MB1_BOOTLOADER_MAGIC, SIM_BASE), 0);
	assert_string_equal(bi.loader, "?QEMU?");
	/* The command line is kept as given: cmdline.c reports such bytes. */
	mb2_begin(&b, INFO);
	mb2_str(&b, 1,
		"a\x01"
		"b");
	mb2_end(&b);
	assert_int_equal(run(MB2_BOOTLOADER_MAGIC, INFO), 0);
	assert_string_equal(bi.cmdline, "a\x01"
					"b");
}

#define T(f) cmocka_unit_test_setup_teardown(f, sim_setup, sim_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_mb1_full),
		T(test_mb1_flags),
		T(test_mb1_info_sizes),
		T(test_mb1_cmdline),
		T(test_mb1_mmap_bad),
		T(test_mb1_mods_bad),
		T(test_loader_name_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
