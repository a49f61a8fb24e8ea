// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/acpi*.c on root tables built here (acpi_build.h):
 * bad checksums, a reader that refuses, truncated and mislabelled tables,
 * null entries, an RSDT alone, no MADT.
 */
#include "acpi_build.h"

static void test_built_machine(void **state)
{
	(void)state;
	make_machine(3);
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_true(ai.rsdp_pa == RSDP_PA);
	assert_true(ai.xsdt);
	assert_true(ai.root_pa == ROOT_PA);
	assert_int_equal(ai.madt.cpu_count, 3);
	assert_int_equal(ai.madt.cpus[2].nmi_flags, 5);
	assert_false(ai.fadt.present);
	assert_false(ai.hpet.present);
}

static void test_rsdp_bad_checksum(void **state)
{
	uint8_t r[36];

	(void)state;
	make_machine(2);
	blob_mut(RSDP_PA)->data[8] ^= 1;
	assert_int_equal(run(NULL, 0), -1);
	expect_error("RSDP at 0xf0000: bad checksum");
	expect_error("no valid RSDP");
	/* A good one further up is still found. */
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(0xffff0 - 16, r, 36);
	assert_int_equal(run(NULL, 0), 0);
	assert_true(ai.rsdp_pa == 0xfffe0);
	expect_error("RSDP at 0xf0000: bad checksum");
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* Revision 2 with a bad extended checksum: only the RSDT is trusted. */
static void test_rsdp_bad_ext_checksum(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(RSDP_PA)->data[32] ^= 1;
	assert_int_equal(run(NULL, 0), 0);
	expect_error("bad extended checksum: XSDT not used");
	assert_false(ai.xsdt);
	assert_true(ai.root_pa == ROOT_PA + 0x800);
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* A bad copy from the loader is reported, then the BIOS area is used. */
static void test_rsdp_bad_loader_copy(void **state)
{
	uint8_t r[36];

	(void)state;
	make_machine(2);
	memcpy(r, blob_at(RSDP_PA)->data, 36);
	r[0] = 'X';
	assert_int_equal(run(r, 36), 0);
	expect_error("RSDP from the loader: no \"RSD PTR \" signature");
	assert_false(ai.rsdp_from_loader);
	r[0] = 'R';
	assert_int_equal(run(r, 19), 0);
	expect_error("RSDP from the loader: only 19 bytes");
	expect_error("scanning the BIOS area for another RSDP");
	assert_int_equal(run(r, 36), 0);
	expect_no_errors();
	assert_true(ai.rsdp_from_loader);
}

static void test_xsdt_bad_checksum(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(ROOT_PA)->data[40] ^= 0x10; /* an entry byte */
	assert_int_equal(run(NULL, 0), 0);
	expect_error("XSDT at 0x7fe0000: bad checksum (its 44 bytes sum to "
		     "0x10, not 0): skipped");
	expect_error("XSDT unusable: using the RSDT");
	assert_false(ai.xsdt);
	assert_int_equal(ai.madt.cpu_count, 2);
	assert_int_equal(ai.table_count, 3); /* XSDT (bad), RSDT, APIC */
	assert_false(ai.tables[0].ok);
	assert_true(ai.tables[1].ok);
}

static void test_madt_bad_checksum(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(TABLE_PA)->data[50] ^= 1;
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC at 0x7fe1000: bad checksum (its 66 bytes sum to "
		     "0x01, not 0): skipped");
	expect_error("no usable MADT");
	assert_false(ai.madt.present);
	assert_int_equal(ai.madt.cpu_count, 0);
}

/*
 * A reader that refuses a range (the kernel's, for an address outside the
 * memory map) says why through acpi_err() on the acpi_info it is given as
 * its context; the parser then names the table it could not read.
 */
static const void *refusing_read(void *ctx, uint64_t pa, size_t len)
{
	if (pa >= TABLE_PA && pa < TABLE_PA + 0x1000) {
		acpi_err(ctx, "0x%llx (%zu bytes): refused",
			 (unsigned long long)pa, len);
		return NULL;
	}
	return mem_read(NULL, pa, len);
}

static void test_reader_refuses_table(void **state)
{
	(void)state;
	make_machine(2);
	assert_int_equal(acpi_parse(NULL, 0, refusing_read, &ai, &ai), 0);
	assert_int_equal(ai.error_count, 3);
	assert_string_equal(ai.errors[0], "0x7fe1000 (36 bytes): refused");
	assert_string_equal(ai.errors[1],
			    "table at 0x7fe1000: header not readable: skipped");
	expect_error("no usable MADT");
	assert_false(ai.madt.present);
	assert_true(ai.xsdt);
}

/* The header claims more bytes than can be read. */
static void test_table_truncated(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(TABLE_PA)->len -= 4;
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC at 0x7fe1000: length 66 runs past readable memory");
	assert_false(ai.madt.present);
}

static void test_table_bad_length(void **state)
{
	(void)state;
	make_machine(2);
	set32(blob_mut(TABLE_PA)->data + 4, 0);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC at 0x7fe1000: implausible length 0: skipped");
	set32(blob_mut(TABLE_PA)->data + 4, 35);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("implausible length 35");
	set32(blob_mut(TABLE_PA)->data + 4, 0x1000001);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("implausible length 16777217");
	assert_false(ai.madt.present);
}

static void test_table_junk_signature(void **state)
{
	(void)state;
	make_machine(2);
	memcpy(blob_mut(TABLE_PA)->data,
	       "\x00\x01"
	       "AB",
	       4);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("table at 0x7fe1000: signature \"\\x00\\x01AB\": skipped");
	assert_string_equal(ai.tables[1].sig, "??AB");
	/* A root table with the wrong signature is not used either. */
	memcpy(blob_mut(ROOT_PA)->data, "RSDT", 4);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("signature \"RSDT\", expected XSDT");
	assert_false(ai.xsdt);
}

static void test_xsdt_null_entry(void **state)
{
	uint64_t e[3] = {TABLE_PA, 0, TABLE_PA + 0x1000};
	uint8_t r[36];
	struct tb t;

	(void)state;
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 3);
	make_madt(TABLE_PA, 2);
	tb_begin(&t, "HPET", 1);
	tb_u32(&t, 0x8086a201);
	tb_bytes(&t, "\0\0\0\0\0\0\xd0\xfe\0\0\0\0\0\0\0\0", 16);
	tb_end(&t, TABLE_PA + 0x1000);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("XSDT: entry 1 is NULL: skipped");
	assert_int_equal(ai.error_count, 1);
	assert_int_equal(ai.madt.cpu_count, 2);
	expect_hpet();
}

/* ACPI 1.0: a revision 0 RSDP, an RSDT, 32-bit pointers only. */
static void test_rsdt_only(void **state)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];
	struct tb t;

	(void)state;
	make_rsdp(r, 0, (uint32_t)ROOT_PA, 0);
	mem_add(RSDP_PA, r, 20);
	make_root("RSDT", ROOT_PA, e, 1);
	make_madt(TABLE_PA, 4);
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.rsdp_revision, 0);
	assert_false(ai.xsdt);
	assert_int_equal(ai.madt.cpu_count, 4);
	/* Its RSDT ending inside an entry: the whole entries still count. */
	mem_teardown(NULL);
	mem_add(RSDP_PA, r, 20);
	tb_begin(&t, "RSDT", 1);
	tb_u32(&t, TABLE_PA);
	tb_u16(&t, 0);
	tb_end(&t, ROOT_PA);
	make_madt(TABLE_PA, 4);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("RSDT: length 42 ends inside an entry: ignored");
	assert_int_equal(ai.madt.cpu_count, 4);
}

static void test_missing_madt(void **state)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];
	struct tb t;

	(void)state;
	make_rsdp(r, 0, (uint32_t)ROOT_PA, 0);
	mem_add(RSDP_PA, r, 20);
	make_root("RSDT", ROOT_PA, e, 1);
	tb_begin(&t, "WAET", 1);
	tb_u32(&t, 2);
	tb_end(&t, TABLE_PA);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("no usable MADT (APIC table): CPUs unknown");
	assert_int_equal(ai.error_count, 1);
	assert_false(ai.madt.present);
	/* No root table at all is fatal. */
	blob_mut(ROOT_PA)->data[9] ^= 1;
	assert_int_equal(run(NULL, 0), -1);
	expect_error("no usable RSDT or XSDT");
}

#define T(f) cmocka_unit_test_setup_teardown(f, mem_setup, mem_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_built_machine),	       T(test_rsdp_bad_checksum),
		T(test_rsdp_bad_ext_checksum), T(test_rsdp_bad_loader_copy),
		T(test_xsdt_bad_checksum),     T(test_madt_bad_checksum),
		T(test_reader_refuses_table),  T(test_table_truncated),
		T(test_table_bad_length),      T(test_table_junk_signature),
		T(test_xsdt_null_entry),       T(test_rsdt_only),
		T(test_missing_madt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
