// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/fwread.c: where firmware data may be read. The
 * memory map is iPXE's (multiboot1 under SeaBIOS, QEMU q35, -m 1G): two
 * usable ranges and nothing else, so the ACPI tables SeaBIOS put at the
 * top of low RAM (0x3ffe2000 in the run) lie outside every entry.
 */
#include "unit.h"
#include "kernel/fwread.h"

static struct boot_info bi;

static void ipxe_map(void)
{
	memset(&bi, 0, sizeof(bi));
	bi.have_mmap = true;
	bi.mmap_count = 2;
	bi.mmap[0] = (struct boot_region){0, 0x9fc00, MEM_USABLE};
	bi.mmap[1] = (struct boot_region){0x100000, 0x3fed7000, MEM_USABLE};
}

static enum fw_read rule(uint64_t pa, uint64_t len, const char **why)
{
	static char buf[64];

	return fw_read_rule(&bi, pa, len, 40, 64ull << 40, why, buf,
			    sizeof(buf));
}

/* The tables iPXE's map leaves out are read: the first half. */
static void test_unlisted_tables_are_read(void **state)
{
	const char *why;

	(void)state;
	ipxe_map();
	assert_int_equal(rule(0x3ffe22dc, 36, &why), FW_READ_UNLISTED);
	assert_null(why);
	/* Partly in usable RAM, partly past it: still unlisted. */
	assert_int_equal(rule(0x3ffd6ff0, 0x20, &why), FW_READ_UNLISTED);
	/* A device's range, named by no entry, is unlisted too. */
	assert_int_equal(rule(0x80000000, 36, &why), FW_READ_UNLISTED);
}

static void test_listed(void **state)
{
	const char *why;

	(void)state;
	ipxe_map();
	assert_int_equal(rule(0x200000, 4096, &why), FW_READ_LISTED);
	/* The EBDA and the BIOS area, which no entry here lists. */
	assert_int_equal(rule(0x9fc00, 1024, &why), FW_READ_LISTED);
	assert_int_equal(rule(0xf5a00, 0x20, &why), FW_READ_LISTED);
	/* From below 1 MiB into usable RAM: the part above is listed. */
	assert_int_equal(rule(0xfff00, 0x200, &why), FW_READ_LISTED);
	/* A reserved entry lists its range as well as a usable one. */
	bi.mmap[bi.mmap_count++] =
		(struct boot_region){0x3ffd7000, 0x29000, MEM_RESERVED};
	assert_int_equal(rule(0x3ffe22dc, 36, &why), FW_READ_LISTED);
	/* Without a map, or with one cut short, nothing is unlisted. */
	ipxe_map();
	bi.mmap_truncated = true;
	assert_int_equal(rule(0x3ffe22dc, 36, &why), FW_READ_LISTED);
	bi.have_mmap = false;
	assert_int_equal(rule(0x3ffe22dc, 36, &why), FW_READ_LISTED);
}

static void test_refused(void **state)
{
	const char *why;

	(void)state;
	ipxe_map();
	assert_int_equal(rule(1ull << 45, 36, &why), FW_READ_REFUSED);
	assert_string_equal(why,
			    "beyond the cpu's 40-bit physical address width");
	/* The last byte decides: a table that ends past the width. */
	assert_int_equal(rule((1ull << 40) - 16, 36, &why), FW_READ_REFUSED);
	assert_int_equal(rule((1ull << 40) - 36, 36, &why), FW_READ_UNLISTED);
	assert_int_equal(rule(0x1000, 0, &why), FW_READ_REFUSED);
	assert_string_equal(why, "empty, or wraps around the address space");
	assert_int_equal(rule(UINT64_MAX - 4, 8, &why), FW_READ_REFUSED);
	assert_int_equal(fw_read_rule(&bi, 0x100000000ull, 36, 52,
				      0x100000000ull, &why, NULL, 0),
			 FW_READ_REFUSED);
	assert_string_equal(why, "beyond the direct map");
	/* Even without a map, the width holds. */
	bi.have_mmap = false;
	assert_int_equal(rule(1ull << 45, 36, &why), FW_READ_REFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlisted_tables_are_read),
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
