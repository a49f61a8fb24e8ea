// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/cpucount.c: the bring-up verdict from the firmware's
 * count, CPUID's and SMBIOS's. The run (iPXE, 2 CPUs, the ACPI tables
 * unread) passed on 1 CPU; it must fail, naming both counts.
 */
#include "unit.h"
#include "smp/cpucount.h"

static char why[512];

static enum cpucount_verdict judge(unsigned online, unsigned started,
				   unsigned limit, unsigned firmware,
				   unsigned package)
{
	const struct cpucount c = {
		.online = online,
		.started = started,
		.limit = limit,
		.firmware = firmware,
		.firmware_why = "FWWHY",
		.package = package,
		.package_source = package ? "CPUID 0xb" : "none",
	};

	why[0] = '\0';
	return cpucount_judge(&c, why, sizeof(why));
}

static void test_ipxe_run_fails(void **state)
{
	(void)state;
	assert_int_equal(judge(1, 1, 0, 0, 2), CPUCOUNT_FAIL);
	assert_string_equal(why, "1 of 1 online, but CPUID 0xb says this "
				 "package alone has 2 logical cpus and the "
				 "firmware tables list 0: FWWHY");
}

static void test_fewer_than_cpuid_fails(void **state)
{
	(void)state;
	/* The MADT lists the boot CPU only; CPUID counts 2. */
	assert_int_equal(judge(1, 1, 0, 1, 2), CPUCOUNT_FAIL);
	assert_non_null(strstr(why, "has 2 logical cpus"));
	assert_non_null(strstr(why, "list 1: FWWHY"));
	/* cpus= cuts what is started, not what is compared. */
	assert_int_equal(judge(1, 1, 1, 1, 2), CPUCOUNT_FAIL);
	assert_non_null(strstr(why, "1 of 1 online (cpus=1), but"));
}

static void test_passes(void **state)
{
	(void)state;
	/* -smp 1 */
	assert_int_equal(judge(1, 1, 0, 1, 1), CPUCOUNT_PASS);
	/* -smp 2, 4, 13, 64 */
	assert_int_equal(judge(2, 2, 0, 2, 2), CPUCOUNT_PASS);
	assert_int_equal(judge(64, 64, 0, 64, 64), CPUCOUNT_PASS);
	/* -smp 4,sockets=2: CPUID counts one package */
	assert_int_equal(judge(4, 4, 0, 4, 2), CPUCOUNT_PASS);
	/* cpus=1 of a machine the firmware lists in full */
	assert_int_equal(judge(1, 1, 1, 2, 2), CPUCOUNT_PASS);
	/* CPUID cannot say, but the firmware lists several */
	assert_int_equal(judge(4, 4, 0, 4, 0), CPUCOUNT_PASS);
}

static void test_missing_cpu_fails(void **state)
{
	(void)state;
	/* The firmware-madt-absent-cpus case's words. */
	assert_int_equal(judge(2, 4, 0, 4, 2), CPUCOUNT_FAIL);
	assert_string_equal(why, "2 of 4 online");
}

static void test_unknowable_skips(void **state)
{
	(void)state;
	/* No firmware list, and CPUID says this package has 1. */
	assert_int_equal(judge(1, 1, 0, 0, 1), CPUCOUNT_SKIP);
	assert_string_equal(why, "1 of 1 online; CPUID 0xb says this package "
				 "has 1 cpu and the firmware tables list 0 "
				 "(FWWHY): whether the machine has more "
				 "cannot be known");
	/* One CPU listed, and no CPUID count. */
	assert_int_equal(judge(1, 1, 0, 1, 0), CPUCOUNT_SKIP);
	assert_non_null(strstr(why, "CPUID gives no count"));
	assert_int_equal(judge(1, 1, 0, 0, 0), CPUCOUNT_SKIP);
}

static enum cpucount_verdict judge_sm(unsigned online, unsigned firmware,
				      unsigned package, unsigned smbios)
{
	const struct cpucount c = {
		.online = online,
		.started = online,
		.firmware = firmware,
		.firmware_why = "FWWHY",
		.package = package,
		.package_source = "CPUID 0xb",
		.smbios = smbios,
		.smbios_why = "SMWHY",
	};

	why[0] = '\0';
	return cpucount_judge(&c, why, sizeof(why));
}

/* The review's runs: CPUID sees one package, SMBIOS sees every socket. */
static void test_hidden_sockets_fail(void **state)
{
	(void)state;
	/* -smp 4,sockets=4,cores=1 and a MADT of the boot CPU alone */
	assert_int_equal(judge_sm(1, 1, 1, 4), CPUCOUNT_FAIL);
	assert_string_equal(why, "1 of 1 online, but SMBIOS type 4 counts 4 "
				 "enabled cpus (SMWHY) and the firmware "
				 "tables list 1: FWWHY");
	/* 2 sockets x 2 cores, the MADT listing socket 0 */
	assert_int_equal(judge_sm(2, 2, 2, 4), CPUCOUNT_FAIL);
	assert_non_null(strstr(why, "2 of 2 online, but SMBIOS"));
	/* no MADT at all, SMBIOS counting 2: the boot CPU is not enough */
	assert_int_equal(judge_sm(1, 0, 1, 2), CPUCOUNT_FAIL);
	assert_non_null(strstr(why, "list 0: FWWHY"));
	/* CPUID's own shortfall is said first, as before */
	assert_int_equal(judge_sm(1, 1, 2, 4), CPUCOUNT_FAIL);
	assert_non_null(strstr(why, "this package alone has 2"));
}

static void test_smbios_agrees(void **state)
{
	(void)state;
	/* the same machines with a full MADT */
	assert_int_equal(judge_sm(4, 4, 1, 4), CPUCOUNT_PASS);
	assert_int_equal(judge_sm(4, 4, 2, 4), CPUCOUNT_PASS);
	/* SMT off: 8 cores enabled of 8, 16 threads, 8 listed */
	assert_int_equal(judge_sm(8, 8, 8, 8), CPUCOUNT_PASS);
	/* hot-plug slots (-smp 2,maxcpus=4): counted in the MADT's 4 */
	assert_int_equal(judge_sm(2, 4, 4, 4), CPUCOUNT_PASS);
	/* SMBIOS unknown: the old verdicts */
	assert_int_equal(judge_sm(2, 2, 2, 0), CPUCOUNT_PASS);
	/* no MADT, one CPU by SMBIOS and CPUID: cannot be known, still */
	assert_int_equal(judge_sm(1, 0, 1, 1), CPUCOUNT_SKIP);
	assert_null(strstr(why, "SMBIOS"));
}

/* A BIOS that turned cores or SMT off: CPUID (Intel's leaf 0xB gives the
 * package as shipped) counts more than the MADT lists, SMBIOS says why. */
static void test_cores_off_pass(void **state)
{
	struct cpucount c = {
		.online = 8,
		.started = 8,
		.firmware = 8,
		.firmware_why = "FWWHY",
		.package = 16,
		.package_source = "CPUID 0xb",
		.smbios = 8,
		.smbios_why = "SMWHY",
		.smbios_max = 8,
		.smbios_off = true,
	};

	(void)state;
	assert_int_equal(cpucount_judge(&c, why, sizeof(why)), CPUCOUNT_PASS);
	/* nothing off by SMBIOS: CPUID's shortfall stands */
	c.smbios_off = false;
	assert_int_equal(cpucount_judge(&c, why, sizeof(why)), CPUCOUNT_FAIL);
	assert_non_null(strstr(why, "this package alone has 16"));
	/* off, but the firmware lists fewer than SMBIOS may have enabled */
	c.smbios_off = true;
	c.smbios_max = 12;
	assert_int_equal(cpucount_judge(&c, why, sizeof(why)), CPUCOUNT_FAIL);
	/* off, and how many are enabled unknown */
	c.smbios_max = 0;
	assert_int_equal(cpucount_judge(&c, why, sizeof(why)), CPUCOUNT_FAIL);
}

static struct acpi_info ai;

static void test_firmware_count(void **state)
{
	char w[160];

	(void)state;
	memset(&ai, 0, sizeof(ai));
	/* acpi_parse() found nothing at all */
	acpi_err(&ai, "no valid RSDP (EBDA, 0xe0000-0xfffff)");
	assert_int_equal(cpucount_firmware(&ai, false, 0, w, sizeof(w)), 0);
	assert_string_equal(w, "no usable ACPI tables (acpi: no valid RSDP "
			       "(EBDA, 0xe0000-0xfffff))");
	/* tables, but no MADT */
	memset(&ai, 0, sizeof(ai));
	assert_int_equal(cpucount_firmware(&ai, true, 0, w, sizeof(w)), 0);
	assert_string_equal(w, "no usable MADT");
	/* a MADT of one enabled CPU, one online-capable, one disabled */
	ai.madt.present = true;
	ai.madt.cpu_count = 1;
	ai.madt.hotplug_count = 1;
	ai.madt.disabled_count = 1;
	ai.madt.cpus[0].apic_id = 0;
	ai.madt.cpus[1].apic_id = 1;
	/* the disabled one is a hot-plug slot (-smp 2,maxcpus=3) */
	assert_int_equal(cpucount_firmware(&ai, true, 0, w, sizeof(w)), 3);
	assert_string_equal(w, "the MADT lists 1 enabled cpu, 1 online-"
			       "capable, 1 neither enabled nor online-"
			       "capable (counted: hot-plug slots)");
	/* the boot CPU is not among them: counted all the same, and the
	 * disabled entry (perhaps the boot CPU's own) accounts for nothing */
	assert_int_equal(cpucount_firmware(&ai, true, 7, w, sizeof(w)), 3);
	assert_string_equal(w, "the MADT lists 1 enabled cpu, 1 online-"
			       "capable, 1 neither enabled nor online-"
			       "capable; the boot cpu, not listed, counted");
	/* firmware-madt-no-cpu: every entry disabled, the boot CPU's too */
	ai.madt.cpu_count = ai.madt.hotplug_count = 0;
	ai.madt.disabled_count = 2;
	assert_int_equal(cpucount_firmware(&ai, true, 0, w, sizeof(w)), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipxe_run_fails),
		cmocka_unit_test(test_fewer_than_cpuid_fails),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_missing_cpu_fails),
		cmocka_unit_test(test_unknowable_skips),
		cmocka_unit_test(test_firmware_count),
		cmocka_unit_test(test_hidden_sockets_fail),
		cmocka_unit_test(test_smbios_agrees),
		cmocka_unit_test(test_cores_off_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
