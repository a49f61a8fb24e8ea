// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/topology.c's topo_package_cpus: how many logical CPUs
 * one package has by CPUID, and which leaf said so, over the dumps of
 * tests/unit/topology_dumps.h and a few older CPUs' leaves.
 */
#include "topology_dumps.h"

static void expect_pkg(const struct dump *d, uint32_t cpus, const char *source)
{
	struct topo_pkg_count c;

	topo_package_cpus(fake_cpuid, (void *)d, &c);
	assert_int_equal(c.cpus, cpus);
	assert_string_equal(c.source, source);
}

static void test_package_cpus_hardware(void **state)
{
	const struct dump m = DUMP(milan), g = DUMP(genoa),
			  g25 = DUMP(genoa_no26), tu = DUMP(turin),
			  sp = DUMP(spr), i2 = DUMP(intel_2die);

	(void)state;
	/* 64 cores, 2 threads each; Milan has no Fn8000_0026. */
	expect_pkg(&m, 128, "CPUID 0xb");
	/* EPYC 9124: 16 cores x 2; the socket level of Fn8000_0026. */
	expect_pkg(&g, 32, "CPUID 0x80000026");
	expect_pkg(&g25, 32, "CPUID 0xb");
	/* The Turin dump, SMT off: 64 logical CPUs, one a core. */
	expect_pkg(&tu, 64, "CPUID 0x80000026");
	/* Xeon w7-2475X, 20 cores x 2: leaf 1 would say 128 (IDs). */
	expect_pkg(&sp, 40, "CPUID 0x1f");
	/* The top level listed (the die) counts the whole package. */
	expect_pkg(&i2, 128, "CPUID 0x1f");
}

static void test_package_cpus_qemu(void **state)
{
	const struct dump e = DUMP(qemu_epyc), m13 = DUMP(qemu_max_smp13),
			  m2s = DUMP(qemu_max_2s), m1 = DUMP(qemu10_max_smp1);

	(void)state;
	/* Counts are per package: 8 CPUs in 2 sockets. */
	expect_pkg(&e, 4, "CPUID 0xb");
	expect_pkg(&m13, 13, "CPUID 0xb");
	expect_pkg(&m2s, 2, "CPUID 0xb");
	expect_pkg(&m1, 1, "CPUID 0xb");
}

/* Older CPUs: AMD's NC, leaf 1 with and without HTT, and nothing. */
static void test_package_cpus_legacy(void **state)
{
	/* Made from the APM's encoding: a 4-core family 10h part. */
	static const char *const k10[] = {
		"0: 00000005-68747541-444D4163-69746E65",
		"1: 00100F42-00040800-00802009-178BFBFF",
		"80000000: 8000001B-68747541-444D4163-69746E65",
		"80000001: 00100F42-10001B39-000037FF-EFD3FBFF",
		"80000008: 00003030-00000000-00002003-00000000",
	};
	/* Made up, a Core 2 Quad: no leaf 0xB (maximum 5), leaf 1 says 4. */
	static const char *const core2[] = {
		"0: 00000005-756E6547-6C65746E-49656E69",
		"1: 00010677-00040800-0008E3FD-BFEBFBFF",
		"80000000: 80000008-00000000-00000000-00000000",
	};
	/* Made up, a Pentium M: leaf 1 without HTT, one logical CPU. */
	static const char *const single[] = {
		"0: 00000002-756E6547-6C65746E-49656E69",
		"1: 00000695-00000800-00000000-0383F9FF",
		"80000000: 00000000-00000000-00000000-00000000",
	};
	/* No leaf 1 at all: CPUID cannot say. */
	static const char *const none[] = {
		"0: 00000000-756E6547-6C65746E-49656E69",
		"80000000: 00000000-00000000-00000000-00000000",
	};
	const struct dump k = DUMP(k10), c2 = DUMP(core2), s1 = DUMP(single),
			  n = DUMP(none), bad = DUMP(bad_leaf_b);

	(void)state;
	expect_pkg(&k, 4, "CPUID 0x80000008 ECX[7:0]");
	expect_pkg(&c2, 4, "CPUID 1 EBX[23:16]");
	expect_pkg(&s1, 1, "CPUID 1 (HTT clear)");
	expect_pkg(&n, 0, "none");
	/* Leaf 0xB whose shifts shrink is not used. */
	expect_pkg(&bad, 16, "CPUID 1 EBX[23:16]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_package_cpus_hardware),
		cmocka_unit_test(test_package_cpus_qemu),
		cmocka_unit_test(test_package_cpus_legacy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
