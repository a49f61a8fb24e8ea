// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/multiboot_query.c: usable bytes, whether the map
 * covers a range, and overlaps, on what multiboot_parse made of a block.
 */
#include "mb_parse.h"

static void test_usable_bytes(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	assert_string_equal(boot_path_name(NULL), "unknown");
	assert_string_equal(boot_path_name(&bi), "unknown");
	bi.mmap_count = 4;
	bi.mmap[0] = (struct boot_region){0, 1ull << 63, MEM_USABLE};
	bi.mmap[1] = (struct boot_region){0, 5, MEM_RESERVED};
	bi.mmap[2] = (struct boot_region){0, 1ull << 62, MEM_USABLE};
	assert_true(boot_usable_bytes(&bi) == (1ull << 63) + (1ull << 62));
	/* Overlaps are not merged; the sum saturates instead of wrapping. */
	bi.mmap[3] = (struct boot_region){0, 1ull << 62, MEM_USABLE};
	assert_true(boot_usable_bytes(&bi) == UINT64_MAX);
}

/* Firmware reads: every byte in some entry, of any type, or false. */
static void test_mmap_covers(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	assert_false(boot_mmap_covers(&bi, 0x1000, 1));
	bi.mmap_count = 4;
	bi.mmap[0] = (struct boot_region){0x100000, 0x1000, MEM_USABLE};
	bi.mmap[1] = (struct boot_region){0x101000, 0x1000, MEM_RESERVED};
	bi.mmap[2] = (struct boot_region){0x101800, 0x1000, MEM_ACPI_RECLAIM};
	bi.mmap[3] = (struct boot_region){UINT64_MAX - 0xfff, 0x2000, 5};
	assert_true(boot_mmap_covers(&bi, 0x100000, 1));
	/* Across adjacent and overlapping entries of other types. */
	assert_true(boot_mmap_covers(&bi, 0x100ff0, 0x1800));
	assert_true(boot_mmap_covers(&bi, 0x100000, 0x2800));
	/* One byte past the last, before the first, in a gap. */
	assert_false(boot_mmap_covers(&bi, 0x100000, 0x2801));
	assert_false(boot_mmap_covers(&bi, 0xfffff, 2));
	assert_false(boot_mmap_covers(&bi, 0x80000000, 36));
	/* Empty and wrapping ranges; an entry running past the top. */
	assert_false(boot_mmap_covers(&bi, 0x100000, 0));
	assert_false(boot_mmap_covers(&bi, UINT64_MAX - 4, 8));
	assert_true(boot_mmap_covers(&bi, UINT64_MAX - 4, 4));
}

/* Device registers a table places: refused where usable RAM is. */
static void test_mmap_overlap(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	bi.mmap_count = 3;
	bi.mmap[0] = (struct boot_region){0x100000, 0x1000, MEM_RESERVED};
	bi.mmap[1] = (struct boot_region){0x101000, 0x1000, MEM_USABLE};
	bi.mmap[2] = (struct boot_region){UINT64_MAX - 0xfff, 0x2000, 1};
	assert_null(boot_mmap_overlap(&bi, 0x100000, 0x1000, MEM_USABLE));
	assert_ptr_equal(boot_mmap_overlap(&bi, 0x100000, 0x1001, MEM_USABLE),
			 &bi.mmap[1]);
	assert_ptr_equal(boot_mmap_overlap(&bi, 0x101fff, 1, MEM_USABLE),
			 &bi.mmap[1]);
	assert_null(boot_mmap_overlap(&bi, 0x102000, 0x10, MEM_USABLE));
	assert_ptr_equal(boot_mmap_overlap(&bi, 0x100800, 4, MEM_RESERVED),
			 &bi.mmap[0]);
	assert_null(boot_mmap_overlap(&bi, 0x101000, 0, MEM_USABLE));
	/* A range or an entry running past the top ends at the top. */
	assert_ptr_equal(boot_mmap_overlap(&bi, UINT64_MAX - 8, 32, MEM_USABLE),
			 &bi.mmap[2]);
	assert_ptr_equal(boot_mmap_overlap(&bi, UINT64_MAX, 1, MEM_USABLE),
			 &bi.mmap[2]);
}

/*
 * The boot report prints the loader's name inside its INFO line as it is:
 * a control byte or a newline there would start a line of the loader's
 * choosing (found by tests/fuzz/fuzz_multiboot.c). Each byte outside
 * printable ASCII becomes '?'.
 */
#define T(f) cmocka_unit_test_setup_teardown(f, sim_setup, sim_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_usable_bytes),
		T(test_mmap_covers),
		T(test_mmap_overlap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
