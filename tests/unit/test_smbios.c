// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/smbios.c: the tables QEMU 7.2 + SeaBIOS give a q35
 * machine with -smbios type=0,vendor=TestBIOS,version=1.2.3 -smbios
 * type=1,manufacturer=Acme-Corp,product=Rocket-9000,serial=SECRET123
 * (tests/unit/data/smbios/README), then damaged copies, a made-up 3.x entry
 * point and an EFI system table, through a fake physical memory that
 * counts every read outside the memory map.
 */
#include <stdio.h>
#include <stdlib.h>
#include "unit.h"
#include "kernel/smbios.h"

#define DATA	 "tests/unit/data/smbios/qemu72-seabios-q35.bin"
#define EP_PA	 0xf5a20u /* where SeaBIOS put the captured entry point */
#define HIGH_PA	 0x7f000000ull
#define HIGH_LEN 0x10000u

static uint8_t fseg[0x10000];  /* 0xf0000-0xfffff */
static uint8_t high[HIGH_LEN]; /* HIGH_PA..: EFI tables, a 3.x table */
static struct boot_info bi;
static unsigned bad_reads; /* reads outside the fake memory */
static size_t blob_len;

static const void *rd(void *ctx, uint64_t pa, size_t len)
{
	(void)ctx;
	if (pa >= 0xf0000 && pa + len <= 0x100000)
		return fseg + (pa - 0xf0000);
	if (pa >= HIGH_PA && pa + len <= HIGH_PA + HIGH_LEN)
		return high + (pa - HIGH_PA);
	bad_reads++;
	return NULL;
}

static void map(size_t n, ...)
{
	va_list ap;

	memset(&bi, 0, sizeof(bi));
	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		bi.mmap[i].base = va_arg(ap, uint64_t);
		bi.mmap[i].len = va_arg(ap, uint64_t);
		bi.mmap[i].type = va_arg(ap, unsigned);
	}
	va_end(ap);
	bi.mmap_count = n;
}

/* SeaBIOS's map: low RAM, the BIOS ROM reserved, RAM above 1 MiB. */
static void seabios_map(void)
{
	map(3, 0ull, 0x9fc00ull, MEM_USABLE, 0xf0000ull, 0x10000ull,
	    MEM_RESERVED, 0x100000ull, 0x1ff00000ull, MEM_USABLE);
}

static int setup(void **state)
{
	FILE *f = fopen(DATA, "rb");

	(void)state;
	assert_non_null(f);
	memset(fseg, 0, sizeof(fseg));
	memset(high, 0, sizeof(high));
	blob_len = fread(fseg + (EP_PA - 0xf0000), 1, 4096, f);
	fclose(f);
	assert_int_equal(blob_len, 377);
	seabios_map();
	bad_reads = 0;
	return 0;
}

static struct smbios_info read_sm(uint64_t systab)
{
	struct smbios_info sm;

	memset(&sm, 0x5a, sizeof(sm));
	smbios_read(&bi, systab, rd, NULL, &sm);
	assert_int_equal(bad_reads, 0);
	assert_printable(sm.error, sizeof(sm.error));
	return sm;
}

static void expect_empty(const struct smbios_info *sm)
{
	assert_false(sm->ok);
	assert_string_equal(sm->bios_vendor, "");
	assert_string_equal(sm->bios_version, "");
	assert_string_equal(sm->sys_vendor, "");
	assert_string_equal(sm->product, "");
}

static void test_captured(void **state)
{
	struct smbios_info sm = read_sm(0);

	(void)state;
	assert_true(sm.found && sm.ok);
	assert_int_equal(sm.major, 2);
	assert_int_equal(sm.minor, 8);
	assert_int_equal(sm.entry_pa, EP_PA);
	assert_int_equal(sm.table_pa, EP_PA + 0x20);
	assert_int_equal(sm.table_len, 345);
	assert_string_equal(sm.bios_vendor, "TestBIOS");
	assert_string_equal(sm.bios_version, "1.2.3");
	assert_string_equal(sm.sys_vendor, "Acme-Corp");
	assert_string_equal(sm.product, "Rocket-9000");
	assert_string_equal(sm.error, "");
	/* -smp 1: one socket, one core, one thread; a 2.6-sized type 4 has
	 * no Thread Enabled. */
	assert_int_equal(sm.cpus.structs, 1);
	assert_int_equal(sm.cpus.sockets, 1);
	assert_int_equal(sm.cpus.cores, 1);
	assert_int_equal(sm.cpus.cores_enabled, 1);
	assert_int_equal(sm.cpus.threads, 1);
	assert_int_equal(sm.cpus.unknown, SMBIOS_CPU_THREADS_ENABLED);
	assert_int_equal(sm.cpus.cpus_min, 1);
}

/* Nothing outside the map is read: no F-segment in it, no scan. */
static void test_not_in_map(void **state)
{
	struct smbios_info sm;

	(void)state;
	map(2, 0ull, 0x9fc00ull, MEM_USABLE, 0x100000ull, 0x1000000ull,
	    MEM_USABLE);
	sm = read_sm(0);
	assert_false(sm.found);
	expect_empty(&sm);
	/* ACPI NVS is neither RAM nor ROM: not read either */
	map(1, 0xf0000ull, 0x10000ull, MEM_ACPI_NVS);
	sm = read_sm(0);
	assert_false(sm.found);
}

static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	uint8_t s = 0;

	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	p[at] = (uint8_t)-s;
}

static void test_bad_checksum(void **state)
{
	uint8_t *ep = fseg + (EP_PA - 0xf0000);
	struct smbios_info sm;

	(void)state;
	ep[6] ^= 1; /* the version: the checksum no longer adds up */
	sm = read_sm(0);
	assert_true(sm.found);
	expect_empty(&sm);
	assert_non_null(strstr(sm.error, "bad checksum"));
	ep[6] ^= 1;
	ep[0x18] ^= 1; /* the table address: the _DMI_ part's checksum */
	fix_sum(ep, 0x1f, 4);
	sm = read_sm(0);
	expect_empty(&sm);
	assert_non_null(strstr(sm.error, "_DMI_"));
}

/* A table the map does not cover is not read. */
static void test_table_outside(void **state)
{
	uint8_t *ep = fseg + (EP_PA - 0xf0000);
	struct smbios_info sm;

	(void)state;
	ep[0x1b] = 0x40; /* table at 0x400f5a40: beyond the map */
	fix_sum(ep + 0x10, 0x0f, 0x15 - 0x10);
	fix_sum(ep, 0x1f, 4);
	sm = read_sm(0);
	expect_empty(&sm);
	assert_non_null(strstr(sm.error, "outside the memory map"));
}

/* Builds a 3.x entry point at pa (in fseg) for a table at table_pa. */
static void put_ep3(uint8_t *p, uint64_t table_pa, uint32_t max)
{
	memcpy(p, "_SM3_", 5);
	p[6] = 0x18;
	p[7] = 3;
	p[8] = 4;
	p[0x0a] = 1;
	memcpy(p + 0x0c, &max, 4);
	memcpy(p + 0x10, &table_pa, 8);
	fix_sum(p, 0x18, 5);
}

static const uint8_t table3[] = {
	/* type 1 first: order does not matter */
	1,
	8,
	0x10,
	0,
	1,
	2,
	0,
	0,
	'V',
	'e',
	'n',
	'd',
	' ',
	' ',
	0,
	'P',
	0x01,
	0,
	0,
	/* type 0 with a string index beyond its strings: empty */
	0,
	6,
	0x11,
	0,
	1,
	3,
	'B',
	'V',
	0,
	'x',
	0,
	0,
	/* a second type 1: ignored */
	1,
	8,
	0x12,
	0,
	1,
	1,
	0,
	0,
	'N',
	'o',
	0,
	0,
	127,
	4,
	0x13,
	0,
	0,
	0,
};

/* 3.x is preferred to 2.x, wherever it lies in the area. */
static void test_v3(void **state)
{
	struct smbios_info sm;

	(void)state;
	memcpy(high + 0x100, table3, sizeof(table3));
	map(2, 0xf0000ull, 0x10000ull, MEM_RESERVED, HIGH_PA,
	    (uint64_t)HIGH_LEN, MEM_RESERVED);
	put_ep3(fseg + 0xff00, HIGH_PA + 0x100, HIGH_LEN);
	/* the maximum size runs past the memory the map covers */
	sm = read_sm(0);
	assert_true(sm.found);
	expect_empty(&sm);
	put_ep3(fseg + 0xff00, HIGH_PA + 0x100, sizeof(table3));
	sm = read_sm(0);
	assert_true(sm.ok);
	assert_int_equal(sm.major, 3);
	assert_int_equal(sm.minor, 4);
	assert_int_equal(sm.entry_pa, 0xfff00);
	assert_string_equal(sm.sys_vendor, "Vend"); /* trailing spaces cut */
	assert_string_equal(sm.product, "P?");
	assert_string_equal(sm.bios_vendor, "BV");
	assert_string_equal(sm.bios_version, "");
}

static void test_parse_bounds(void **state)
{
	uint8_t t[300];
	struct smbios_info sm;

	(void)state;
	memset(&sm, 0, sizeof(sm));
	/* a structure longer than the table */
	memcpy(t, (uint8_t[]){0, 40, 0, 0, 1, 2}, 6);
	assert_false(smbios_parse_table(t, 20, &sm));
	assert_non_null(strstr(sm.error, "overruns"));
	/* a length below the 4-byte header */
	memcpy(t, (uint8_t[]){0, 3, 0, 0, 0, 0}, 6);
	assert_false(smbios_parse_table(t, 6, &sm));
	/* strings without their double NUL before the end */
	memcpy(t, (uint8_t[]){1, 6, 0, 0, 1, 2, 'a', 0, 'b'}, 9);
	assert_false(smbios_parse_table(t, 9, &sm));
	assert_non_null(strstr(sm.error, "strings overrun"));
	expect_empty(&sm);
	/* a string longer than kept: cut at SMBIOS_STR_MAX - 1 */
	memcpy(t, (uint8_t[]){1, 6, 0, 0, 1, 0}, 6);
	memset(t + 6, 'x', 200);
	t[206] = 0;
	t[207] = 0;
	assert_true(smbios_parse_table(t, 208, &sm));
	assert_int_equal(strlen(sm.sys_vendor), SMBIOS_STR_MAX - 1);
	assert_string_equal(sm.product, "");
	/* empty table: fine, nothing found */
	memset(&sm, 0, sizeof(sm));
	assert_true(smbios_parse_table(t, 0, &sm));
	assert_string_equal(sm.sys_vendor, "");
}

static const uint8_t guid_smbios3[16] = {0x44, 0x15, 0xfd, 0xf2, 0x94, 0x97,
					 0x2c, 0x4a, 0x99, 0x2e, 0xe5, 0xbb,
					 0xcf, 0x20, 0xe3, 0x94};

/* UEFI: the system table's configuration table names the entry point. */
static void test_efi(void **state)
{
	uint64_t systab = HIGH_PA, cfg = HIGH_PA + 0x400, ep = HIGH_PA + 0x800;
	uint64_t v;
	struct smbios_info sm;

	(void)state;
	map(1, HIGH_PA, (uint64_t)HIGH_LEN, MEM_RESERVED);
	memcpy(high + 0x100, table3, sizeof(table3));
	memcpy(high, "IBI SYST", 8);
	v = 3;
	memcpy(high + 104, &v, 8);
	memcpy(high + 112, &cfg, 8);
	/* two other GUIDs, then SMBIOS3 */
	memset(high + 0x400, 0x11, 48);
	memcpy(high + 0x400 + 48, guid_smbios3, 16);
	memcpy(high + 0x400 + 64, &ep, 8);
	put_ep3(high + 0x800, HIGH_PA + 0x100, sizeof(table3));
	sm = read_sm(systab);
	assert_true(sm.ok);
	assert_int_equal(sm.entry_pa, ep);
	assert_string_equal(sm.sys_vendor, "Vend");
	/* without the GUID: not found, and the BIOS area is not scanned */
	memset(high + 0x400 + 48, 0x22, 16);
	sm = read_sm(systab);
	assert_false(sm.found);
	/* a bad signature */
	high[0] = 'X';
	sm = read_sm(systab);
	assert_false(sm.found);
	assert_non_null(strstr(sm.error, "signature"));
	/* a system table outside the map */
	sm = read_sm(0x1000);
	assert_non_null(strstr(sm.error, "outside the memory map"));
}

static void test_range_ok(void **state)
{
	(void)state;
	seabios_map();
	assert_true(smbios_range_ok(&bi, 0xf0000, 0x10000));
	assert_true(smbios_range_ok(&bi, 0xffff0, 16));
	assert_false(smbios_range_ok(&bi, 0xffff0, 17)); /* into the next */
	assert_false(smbios_range_ok(&bi, 0xa0000, 16)); /* a hole */
	assert_false(smbios_range_ok(&bi, 0xf0000, 0));
	assert_false(smbios_range_ok(&bi, UINT64_MAX - 4, 16)); /* wraps */
	map(1, 0xf0000ull, 0x10000ull, MEM_ACPI_RECLAIM);
	assert_false(smbios_range_ok(&bi, 0xf0000, 16));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_captured, setup),
		cmocka_unit_test_setup(test_not_in_map, setup),
		cmocka_unit_test_setup(test_bad_checksum, setup),
		cmocka_unit_test_setup(test_table_outside, setup),
		cmocka_unit_test_setup(test_v3, setup),
		cmocka_unit_test_setup(test_parse_bounds, setup),
		cmocka_unit_test_setup(test_efi, setup),
		cmocka_unit_test_setup(test_range_ok, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
