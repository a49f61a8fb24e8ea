// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/acpi*.c on tables captured from QEMU machines
 * (tests/unit/data/acpi/<machine>/, made by tools/capture-acpi.py) served
 * at their original physical addresses (acpi_mem.h). Tables built here
 * byte by byte, well-formed and not, are test_acpi_tables.c's (the root
 * tables) and test_acpi_madt.c's (the MADT, FADT, HPET and SRAT).
 */
#include "acpi_mem.h"

/* --- captured machines ------------------------------------------------ */

/* Loads DIR/manifest.txt's files as blobs; returns the RSDP's address. */
static uint64_t load_capture(const char *machine)
{
	char path[512], line[256], name[128];
	uint64_t rsdp = 0, pa;
	FILE *f, *bf;

	snprintf(path, sizeof(path), "%s/%s/manifest.txt", ACPI_DATA_DIR,
		 machine);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		uint8_t buf[8192];
		size_t n;

		if (line[0] == '#' ||
		    sscanf(line, "%" SCNx64 " %127s", &pa, name) != 2)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", ACPI_DATA_DIR, machine,
			 name);
		bf = fopen(path, "rb");
		if (!bf)
			fail_msg("cannot open %s", path);
		n = fread(buf, 1, sizeof(buf), bf);
		fclose(bf);
		assert_true(n > 0 && n < sizeof(buf));
		mem_add(pa, buf, n);
		if (!strcmp(name, "rsdp.bin"))
			rsdp = pa;
	}
	fclose(f);
	assert_true(rsdp != 0);
	return rsdp;
}

static void test_pc4_scan(void **state)
{
	uint64_t rsdp = load_capture("pc-4");

	(void)state;
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_false(ai.rsdp_from_loader);
	assert_true(ai.rsdp_pa == rsdp);
	assert_int_equal(ai.rsdp_revision, 0);
	assert_string_equal(ai.oem_id, "BOCHS ");
	assert_false(ai.xsdt);
	assert_int_equal(ai.table_count, 5);
	assert_string_equal(ai.tables[0].sig, "RSDT");
	assert_non_null(acpi_find_table(&ai, "WAET"));
	assert_null(acpi_find_table(&ai, "SRAT"));
	expect_qemu_madt(4);
	for (uint32_t i = 0; i < 4; i++)
		expect_cpu(i, i, i, false);
	assert_int_equal(ai.madt.max_apic_id, 3);
	/* i440fx: an ACPI 1.0 FADT, so no reset register. */
	assert_true(ai.fadt.present);
	assert_int_equal(ai.fadt.revision, 1);
	assert_int_equal(ai.fadt.length, 116);
	assert_true(ai.fadt.pm_timer);
	assert_true(ai.fadt.pm_timer_reg.addr == 0x608);
	assert_int_equal(ai.fadt.pm_timer_reg.space, ACPI_GAS_IO);
	assert_false(ai.fadt.pm_timer_32bit);
	assert_false(ai.fadt.reset);
	assert_true(ai.fadt.dsdt == 0x1ffe0040);
	expect_hpet();
	assert_false(ai.srat.present);
	assert_int_equal(ai.madt.cpus[0].domain, ACPI_NO_DOMAIN);
}

static void test_q35_4(void **state)
{
	uint64_t rsdp = load_capture("q35-4");

	(void)state;
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_true(ai.rsdp_pa == rsdp);
	assert_int_equal(ai.table_count, 6);
	assert_non_null(acpi_find_table(&ai, "MCFG"));
	expect_qemu_madt(4);
	for (uint32_t i = 0; i < 4; i++)
		expect_cpu(i, i, i, false);
	expect_q35_fadt();
	assert_true(ai.fadt.dsdt == 0x1ffe0040);
	expect_hpet();
}

/* The loader's copy of the same RSDP (multiboot2 tag 14) is used as is. */
static void test_q35_4_loader_copy(void **state)
{
	uint64_t rsdp = load_capture("q35-4");
	const struct blob *b = blob_at(rsdp);

	(void)state;
	assert_int_equal(run(b->data, b->len), 0);
	expect_no_errors();
	assert_true(ai.rsdp_from_loader);
	assert_true(ai.rsdp_pa == 0);
	assert_int_equal(ai.madt.cpu_count, 4);
}

/*
 * QEMU 10, q35, -smp 300 -cpu max: APIC IDs 0-254 in type 0 entries,
 * 255-299 in type 9 (x2APIC) entries, and one x2APIC NMI entry (type 0xA)
 * for all CPUs instead of a type 4.
 */
static void test_q35_300_qemu10(void **state)
{
	(void)state;
	load_capture("q35-300-qemu10");
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.madt.cpu_count, 300);
	assert_int_equal(ai.madt.x2apic_count, 45);
	assert_int_equal(ai.madt.max_apic_id, 299);
	for (uint32_t i = 0; i < 300; i++)
		expect_cpu(i, i, i, i >= 255);
	assert_int_equal(ai.madt.nmi_count, 1);
	assert_true(ai.madt.nmis[0].x2apic);
	assert_int_equal(ai.madt.nmis[0].uid, 0xffffffff);
	assert_int_equal(ai.madt.cpus[299].nmi_lint, 1);
	assert_int_equal(ai.madt.cpus[0].nmi_lint, 1);
	assert_non_null(acpi_find_cpu(&ai, 299));
	assert_null(acpi_find_cpu(&ai, 300));
	expect_q35_fadt();
	/* FORCE_APIC_CLUSTER_MODEL (bit 18), set by QEMU for > 8 CPUs. */
	assert_true(ai.fadt.flags & (1u << 18));
	expect_hpet();
}

/*
 * q35, -cpu EPYC -smp 12,sockets=2,cores=3,threads=2 and one NUMA node
 * per socket: 3 cores take 2 APIC ID bits, so IDs 6, 7 are skipped.
 */
static void test_q35_numa_epyc(void **state)
{
	static const uint32_t ids[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13};

	(void)state;
	load_capture("q35-numa-epyc");
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.madt.cpu_count, 12);
	for (uint32_t i = 0; i < 12; i++) {
		expect_cpu(i, ids[i], i, false);
		assert_int_equal(ai.madt.cpus[i].domain, i / 6);
	}
	assert_true(ai.srat.present);
	assert_int_equal(ai.srat.cpu_count, 12);
	assert_int_equal(acpi_srat_domain(&ai, 13), 1);
	assert_int_equal(acpi_srat_domain(&ai, 6), ACPI_NO_DOMAIN);
	/* Low memory below the VGA hole and above 1 MiB, then node 1; */
	assert_int_equal(ai.srat.mem_count, 3);
	assert_true(ai.srat.mem[0].base == 0 && ai.srat.mem[0].len == 0xa0000);
	assert_true(ai.srat.mem[1].base == 0x100000);
	assert_true(ai.srat.mem[2].base == 0x10000000);
	assert_true(ai.srat.mem[2].len == 0x10000000);
	assert_int_equal(ai.srat.mem[2].domain, 1);
	/* and a disabled placeholder entry that is ignored. */
	assert_int_equal(ai.srat.disabled_count, 1);
}

/* OVMF: an ACPI 2.0 RSDP passed by the loader, and an XSDT. */
static void test_q35_4_uefi(void **state)
{
	uint64_t rsdp = load_capture("q35-4-uefi");
	const struct blob *b = blob_at(rsdp);

	(void)state;
	assert_int_equal(b->len, 36);
	assert_int_equal(run(b->data, b->len), 0);
	expect_no_errors();
	assert_true(ai.rsdp_from_loader);
	assert_int_equal(ai.rsdp_revision, 2);
	assert_true(ai.xsdt);
	assert_string_equal(ai.tables[0].sig, "XSDT");
	expect_qemu_madt(4);
	expect_q35_fadt();
	assert_true(ai.fadt.dsdt == 0x1f779000);
	/* No RSDP in the BIOS area under UEFI: nothing to scan for. */
	assert_int_equal(run(NULL, 0), -1);
	expect_error("no valid RSDP");
}

/* An RSDP in the EBDA is found before one in the BIOS area. */
static void test_ebda_first(void **state)
{
	uint64_t rsdp = load_capture("pc-4");
	const struct blob *b = blob_at(rsdp);
	/* The last paragraph that holds the 20 bytes of a version 1 RSDP. */
	uint64_t ebda = 0x9fc00 + 0x3e0;

	(void)state;
	mem_add(ebda, b->data, b->len);
	assert_int_equal(run(NULL, 0), 0);
	assert_true(ai.rsdp_pa == ebda);
	/* Past the first KiB of the EBDA it is not looked for. */
	mem.b[mem.n - 1].pa = ebda + 0x20;
	assert_int_equal(run(NULL, 0), 0);
	assert_true(ai.rsdp_pa == rsdp);
}

#define T(f) cmocka_unit_test_setup_teardown(f, mem_setup, mem_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pc4_scan),	   T(test_q35_4),
		T(test_q35_4_loader_copy), T(test_q35_300_qemu10),
		T(test_q35_numa_epyc),	   T(test_q35_4_uefi),
		T(test_ebda_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
