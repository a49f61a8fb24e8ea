// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/acpi_madt.c and kernel/acpi_tables.c on tables
 * built here (acpi_build.h): the MADT's odd entries and too many CPUs, the
 * FADT's fields, a short HPET, the SRAT's entries, and the error list's
 * limit.
 */
#include "acpi_build.h"

static void test_madt_duplicates(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 2, 1);
	madt_lapic(&t, 2, 2, 1);    /* same APIC ID as uid 1 */
	madt_x2apic(&t, 0, 1, 7);   /* and as uid 0, via x2APIC */
	madt_lapic(&t, 3, 0xff, 0); /* spare slots, never checked */
	madt_lapic(&t, 4, 0xff, 0);
	madt_lapic(&t, 5, 3, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: APIC ID 0x2 (uid 1) listed again (uid 2): "
		     "first entry kept");
	expect_error("APIC ID 0x0 (uid 0) listed again (uid 7)");
	assert_int_equal(ai.error_count, 2);
	assert_int_equal(ai.madt.cpu_count, 3);
	expect_cpu(1, 2, 1, false);
	expect_cpu(2, 3, 5, false);
	assert_int_equal(ai.madt.disabled_count, 2);
}

static void test_madt_zero_length_entry(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	tb_u8(&t, 0);
	tb_u8(&t, 0); /* length 0: where is the next entry? */
	madt_lapic(&t, 1, 1, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: entry at +0x34 (type 0) has length 0: rest of the "
		     "table ignored");
	assert_int_equal(ai.madt.cpu_count, 1);
}

static void test_madt_entry_past_end(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	madt_x2apic(&t, 5, 1, 5);
	t.len -= 4; /* the x2APIC entry now runs past the table */
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("entry at +0x34 (type 9) has length 16, past the end");
	assert_int_equal(ai.madt.cpu_count, 1);
	/* A lone trailing byte is reported too. */
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	tb_u8(&t, 0);
	mem_teardown(NULL);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: stray byte at +0x34: ignored");
	assert_int_equal(ai.madt.cpu_count, 1);
}

/* Unknown types are skipped by their length; short known ones reported. */
static void test_madt_unknown_and_short(void **state)
{
	static const uint8_t gicc[20] = {0x0b, 20};
	static const uint8_t future[7] = {0x7f, 7, 1, 2, 3, 4, 5};
	static const uint8_t short_lapic[6] = {0, 6, 9, 9, 1, 0};
	struct tb t;

	(void)state;
	madt_begin(&t);
	tb_bytes(&t, gicc, sizeof(gicc));
	madt_lapic(&t, 0, 0, 1);
	tb_bytes(&t, future, sizeof(future));
	tb_bytes(&t, short_lapic, sizeof(short_lapic));
	madt_lapic(&t, 1, 1, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: type 0 entry at +0x4f is 6 bytes, not 8: skipped");
	assert_int_equal(ai.error_count, 1);
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* Enabled CPUs first, then the online-capable ones, each in MADT order. */
static void test_madt_online_capable(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 10, 10, 2);
	madt_lapic(&t, 1, 1, 1);
	madt_x2apic(&t, 300, 2, 300);
	madt_x2apic(&t, 301, 2, 301);
	madt_lapic(&t, 2, 2, 1);
	madt_lapic(&t, 11, 11, 0);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.madt.cpu_count, 3);
	assert_int_equal(ai.madt.hotplug_count, 3);
	assert_int_equal(ai.madt.disabled_count, 1);
	for (uint32_t i = 0; i < 3; i++)
		expect_cpu(i, i, i, false);
	assert_int_equal(ai.madt.cpus[3].apic_id, 10);
	assert_int_equal(ai.madt.cpus[4].apic_id, 300);
	assert_int_equal(ai.madt.cpus[5].apic_id, 301);
	assert_true(ai.madt.cpus[5].online_capable);
	assert_true(ai.madt.cpus[5].x2apic);
	assert_non_null(acpi_find_cpu(&ai, 301));
	assert_int_equal(ai.madt.max_apic_id, 301);
}

static void test_madt_nmi_and_override(void **state)
{
	static const uint8_t ovr[12] = {5, 12, 0, 0, 0, 0, 0xe0, 0xfe, 1};
	static const uint8_t x2nmi[12] = {10, 12, 0x0d, 0, 44, 1, 0, 0, 0};
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_nmi(&t, 1, 5, 0); /* before the CPU it names */
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 1, 1);
	madt_x2apic(&t, 300, 1, 300);
	tb_bytes(&t, x2nmi, sizeof(x2nmi)); /* uid 300, LINT0 */
	madt_nmi(&t, 0, 0, 2);		    /* there is no LINT2 */
	tb_bytes(&t, ovr, sizeof(ovr));
	tb_bytes(&t, ovr, sizeof(ovr));
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: NMI entry for uid 0x0 names LINT2: ignored");
	expect_error("APIC: second local APIC address override: ignored");
	assert_int_equal(ai.error_count, 2);
	assert_int_equal(ai.madt.cpus[0].nmi_lint, ACPI_NO_NMI);
	assert_int_equal(ai.madt.cpus[1].nmi_lint, 0);
	assert_int_equal(ai.madt.cpus[1].nmi_flags, 5);
	assert_int_equal(ai.madt.cpus[2].nmi_lint, 0);
	assert_int_equal(ai.madt.cpus[2].nmi_flags, 0xd);
	assert_int_equal(ai.madt.nmi_count, 2);
	assert_true(ai.madt.lapic_override);
	assert_true(ai.madt.lapic_addr == 0x1fee00000ull);
}

/* More CPUs than the list holds: the rest are counted, not kept. */
static void test_madt_too_many_cpus(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	for (uint32_t i = 0; i < ACPI_MAX_CPUS + 4; i++)
		madt_x2apic(&t, i, 1, i);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: more than 4096 CPUs: rest ignored");
	assert_int_equal(ai.error_count, 1);
	assert_int_equal(ai.madt.cpu_count, ACPI_MAX_CPUS);
	assert_int_equal(ai.madt.dropped_count, 4);
	assert_int_equal(ai.madt.max_apic_id, ACPI_MAX_CPUS - 1);
}

/* Two MADTs: the first valid one counts. */
static void test_second_madt_ignored(void **state)
{
	uint64_t e[2] = {TABLE_PA, TABLE_PA + 0x1000};
	uint8_t r[36];

	(void)state;
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 2);
	make_madt(TABLE_PA, 2);
	make_madt(TABLE_PA + 0x1000, 3);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("another APIC table at 0x7fe2000: ignored");
	assert_int_equal(ai.madt.cpu_count, 2);
}

static void test_fadt_fields(void **state)
{
	struct tb t;

	(void)state;
	fadt_begin(&t, 6, 276);
	set32(t.buf + 40, 0x1000);		    /* DSDT */
	set32(t.buf + 140, 0x2000);		    /* X_DSDT wins */
	set32(t.buf + 76, 0x408);		    /* PM_TMR_BLK ... */
	t.buf[91] = 4;				    /* ... but */
	memcpy(t.buf + 208, "\x00\x20\x00\x03", 4); /* X_PM_TMR_BLK */
	set32(t.buf + 212, 0xfed80000);		    /* in memory */
	set32(t.buf + 112, (1u << 8) | (1u << 10) | (1u << 20));
	memcpy(t.buf + 116, "\x01\x08\x00\x01\xf9\x0c", 6);
	t.buf[128] = 6;
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("no usable MADT");
	assert_int_equal(ai.error_count, 1);
	assert_true(ai.fadt.dsdt == 0x2000);
	assert_true(ai.fadt.pm_timer);
	assert_int_equal(ai.fadt.pm_timer_reg.space, ACPI_GAS_MEMORY);
	assert_true(ai.fadt.pm_timer_reg.addr == 0xfed80000);
	assert_true(ai.fadt.pm_timer_32bit);
	assert_true(ai.fadt.hw_reduced);
	assert_true(ai.fadt.reset);
	assert_true(ai.fadt.reset_reg.addr == 0xcf9);
	assert_int_equal(ai.fadt.reset_value, 6);
}

static void test_fadt_short(void **state)
{
	struct tb t;

	(void)state;
	/* RESET_REG_SUP in a table that ends before RESET_REG. */
	fadt_begin(&t, 1, 120);
	set32(t.buf + 112, 1u << 10);
	set32(t.buf + 76, 0x608);
	t.buf[91] = 4;
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("FACP: RESET_REG_SUP set but the table is only 120 bytes");
	assert_true(ai.fadt.present);
	assert_false(ai.fadt.reset);
	assert_true(ai.fadt.pm_timer_reg.addr == 0x608);
	/* Shorter than ACPI 1.0's FADT: not used at all. */
	mem_teardown(NULL);
	fadt_begin(&t, 1, 100);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("FACP: 100 bytes, shorter than ACPI 1.0's 116: skipped");
	assert_false(ai.fadt.present);
}

static void test_hpet_short(void **state)
{
	struct tb t;

	(void)state;
	tb_begin(&t, "HPET", 1);
	tb_u32(&t, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("HPET: 40 bytes, not 56: skipped");
	assert_false(ai.hpet.present);
}

static void test_srat_entries(void **state)
{
	static const uint8_t cpu0[16] = {0, 16, 0x34, 7,    1, 0,
					 0, 0,	0,    0x12, 0, 0};
	static const uint8_t cpu_off[16] = {0, 16, 9, 8, 0};
	static const uint8_t short_x2[20] = {2, 20};
	struct tb t;

	(void)state;
	tb_begin(&t, "SRAT", 3);
	tb_u32(&t, 1);
	tb_u64(&t, 0);
	tb_bytes(&t, cpu0, 16); /* domain 0x1234 for APIC ID 7 */
	tb_bytes(&t, cpu_off, 16);
	tb_u8(&t, 2); /* x2APIC affinity: ID 0x10000 in domain 3 */
	tb_u8(&t, 24);
	tb_u16(&t, 0);
	tb_u32(&t, 3);
	tb_u32(&t, 0x10000);
	tb_u32(&t, 1);
	tb_u64(&t, 0);
	tb_u8(&t, 1); /* memory: 4 GiB at 4 GiB in domain 3, hot-pluggable */
	tb_u8(&t, 40);
	tb_u32(&t, 3);
	tb_u16(&t, 0);
	tb_u64(&t, 1ull << 32);
	tb_u64(&t, 1ull << 32);
	tb_u32(&t, 0);
	tb_u32(&t, 3);
	tb_u64(&t, 0);
	tb_bytes(&t, short_x2, sizeof(short_x2));
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("SRAT: type 2 entry at +0x90 is 20 bytes, not 24");
	assert_int_equal(ai.error_count, 2); /* and no MADT */
	assert_int_equal(ai.srat.cpu_count, 2);
	assert_int_equal(ai.srat.disabled_count, 1);
	assert_int_equal(acpi_srat_domain(&ai, 7), 0x1234);
	assert_int_equal(acpi_srat_domain(&ai, 0x10000), 3);
	assert_true(ai.srat.cpus[1].x2apic);
	assert_int_equal(ai.srat.mem_count, 1);
	assert_true(ai.srat.mem[0].base == 1ull << 32);
	assert_true(ai.srat.mem[0].hotplug);
	assert_false(ai.srat.mem[0].nonvolatile);
}

/* Only the first ACPI_ERR_MAX messages are kept; all are counted. */
static void test_error_overflow(void **state)
{
	uint64_t e[20];
	uint8_t r[36];

	(void)state;
	for (int i = 0; i < 20; i++)
		e[i] = 0;
	e[19] = TABLE_PA;
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 20);
	make_madt(TABLE_PA, 1);
	assert_int_equal(run(NULL, 0), 0);
	assert_int_equal(ai.error_count, 19);
	assert_string_equal(ai.errors[ACPI_ERR_MAX - 1],
			    "XSDT: entry 15 is NULL: skipped");
	assert_int_equal(ai.madt.cpu_count, 1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, mem_setup, mem_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_madt_duplicates),     T(test_madt_zero_length_entry),
		T(test_madt_entry_past_end), T(test_madt_unknown_and_short),
		T(test_madt_online_capable), T(test_madt_nmi_and_override),
		T(test_madt_too_many_cpus),  T(test_second_madt_ignored),
		T(test_fadt_fields),	     T(test_fadt_short),
		T(test_hpet_short),	     T(test_srat_entries),
		T(test_error_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
