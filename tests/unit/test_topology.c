// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/topology.c: the layout CPUID describes, the IDs it
 * gives an APIC ID, the classes of CPU pairs (tests/unit/topology_dumps.h
 * holds the CPUID dumps they read).
 */
#include "topology_dumps.h"

static struct topo_layout t;

static void probe(const struct dump *d)
{
	topo_probe(fake_cpuid, (void *)d, &t);
	assert_true(t.smt_shift <= t.l3_shift);
	assert_true(t.l3_shift <= t.die_shift);
	assert_true(t.die_shift <= t.pkg_shift);
	assert_true(t.pkg_shift <= 32);
}

static void expect_shifts(int smt, int l3, int die, int pkg)
{
	assert_int_equal(t.smt_shift, smt);
	assert_int_equal(t.l3_shift, l3);
	assert_int_equal(t.die_shift, die);
	assert_int_equal(t.pkg_shift, pkg);
}

static void expect_ids(uint32_t apic, uint32_t pkg, uint32_t die, uint32_t l3,
		       uint32_t core, uint32_t thread)
{
	struct topo_ids id;

	topo_decode(&t, apic, &id);
	assert_int_equal(id.package, pkg);
	assert_int_equal(id.die, die);
	assert_int_equal(id.l3, l3);
	assert_int_equal(id.core, core);
	assert_int_equal(id.thread, thread);
}

static void expect_class(uint32_t a, uint32_t b, enum topo_class c)
{
	assert_int_equal(topo_classify(&t, a, b), c);
	assert_int_equal(topo_classify(&t, b, a), c);
}

static void summarize(const uint32_t *ids, size_t n, uint32_t pkgs,
		      uint32_t dies, uint32_t l3s, uint32_t cores, uint32_t smt)
{
	struct topo_summary s;

	topo_summarize(&t, ids, n, &s);
	assert_int_equal(s.cpus, n);
	assert_int_equal(s.packages, pkgs);
	assert_int_equal(s.dies, dies);
	assert_int_equal(s.l3s, l3s);
	assert_int_equal(s.cores, cores);
	assert_int_equal(s.max_threads_per_core, smt);
}

/* IDs base, base + 1, ... base + n - 1. */
static void range_ids(uint32_t *ids, uint32_t base, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ids[i] = base + i;
}

static void test_milan(void **state)
{
	const struct dump d = DUMP(milan);
	uint32_t ids[128];

	(void)state;
	probe(&d);
	assert_int_equal(t.vendor, TOPO_VENDOR_AMD);
	assert_int_equal(t.family, 0x19);
	assert_int_equal(t.model, 0x01);
	assert_int_equal(t.source, TOPO_SRC_LEAF_B);
	/* 16 threads share an L3 (one CCX of 8 cores); one CCX per CCD. */
	assert_int_equal(t.l3_sharing, 16);
	assert_true(t.l3_known && t.die_known);
	assert_int_equal(t.threads_per_core, 2);
	expect_shifts(1, 4, 4, 7);
	/* CPU #27 of the dump: APIC ID 0x1b, Fn8000_001E core ID 13. */
	assert_int_equal(topo_key(&t, 0x1b, TOPO_CORE), 13);
	expect_ids(0x1b, 0, 1, 0, 5, 1);
	expect_class(0x1b, 0x1a, TOPO_SMT_SIBLING);
	expect_class(0x1b, 0x1c, TOPO_SAME_CCX);
	expect_class(0x1b, 0x0b, TOPO_SAME_PACKAGE);
	expect_class(0x1b, 0x1b, TOPO_SAME_CPU);
	range_ids(ids, 0, 128);
	summarize(ids, 128, 1, 8, 8, 64, 2);
}

static void test_genoa(void **state)
{
	const struct dump d = DUMP(genoa);
	uint32_t ids[32];

	(void)state;
	probe(&d);
	assert_int_equal(t.family, 0x19);
	assert_int_equal(t.model, 0x11);
	assert_int_equal(t.source, TOPO_SRC_AMD_26);
	expect_shifts(1, 4, 4, 6);
	/* 4 of 8 cores per CCD enabled: 8 threads share the L3, but a CCX
	 * spans 16 APIC IDs. */
	assert_int_equal(t.l3_sharing, 8);
	/* CPUs #11, #12 of the dump: APIC IDs 0x13, 0x14, cores 9, 10. */
	assert_int_equal(topo_key(&t, 0x13, TOPO_CORE), 9);
	assert_int_equal(topo_key(&t, 0x14, TOPO_CORE), 10);
	expect_ids(0x13, 0, 1, 0, 1, 1);
	expect_class(0x13, 0x12, TOPO_SMT_SIBLING);
	expect_class(0x13, 0x17, TOPO_SAME_CCX);
	expect_class(0x13, 0x03, TOPO_SAME_PACKAGE);
	for (uint32_t k = 0; k < 4; k++)
		range_ids(ids + 8 * k, 16 * k, 8);
	summarize(ids, 32, 1, 4, 4, 16, 2);
}

/* Without Fn8000_0026 the L3 comes from Fn8000_001D: 8 sharers, 3 bits;
 * the grouping of the present CPUs is the same. */
static void test_genoa_without_26(void **state)
{
	const struct dump d = DUMP(genoa_no26);
	uint32_t ids[32];

	(void)state;
	probe(&d);
	assert_int_equal(t.source, TOPO_SRC_LEAF_B);
	expect_shifts(1, 3, 3, 6);
	for (uint32_t k = 0; k < 4; k++)
		range_ids(ids + 8 * k, 16 * k, 8);
	summarize(ids, 32, 1, 4, 4, 16, 2);
	expect_class(0x13, 0x03, TOPO_SAME_PACKAGE);
}

static void test_turin(void **state)
{
	const struct dump d = DUMP(turin);
	uint32_t ids[64];

	(void)state;
	probe(&d);
	assert_int_equal(t.family, 0x1a);
	assert_int_equal(t.model, 0x02);
	assert_int_equal(t.source, TOPO_SRC_AMD_26);
	assert_int_equal(t.threads_per_core, 1);
	expect_shifts(0, 4, 4, 7);
	expect_ids(0x25, 0, 2, 0, 5, 0);
	expect_class(1, 2, TOPO_SAME_CCX);
	expect_class(0, 16, TOPO_SAME_PACKAGE);
	expect_class(0, 128, TOPO_OTHER_PACKAGE);
	/* 64 logical CPUs (ApicIdSize 7, NC 63), 8 per CCX as dumped. */
	for (uint32_t k = 0; k < 8; k++)
		range_ids(ids + 8 * k, 16 * k, 8);
	summarize(ids, 64, 1, 8, 8, 64, 1);
}

static void test_sapphire_rapids(void **state)
{
	const struct dump d = DUMP(spr);
	uint32_t ids[40];

	(void)state;
	probe(&d);
	assert_int_equal(t.vendor, TOPO_VENDOR_INTEL);
	assert_int_equal(t.family, 6);
	assert_int_equal(t.model, 0x8f);
	assert_int_equal(t.source, TOPO_SRC_LEAF_1F);
	/* L3 "shared by" 128 IDs: the whole package; no die level. */
	assert_int_equal(t.l3_sharing, 128);
	expect_shifts(1, 7, 7, 7);
	expect_class(0, 1, TOPO_SMT_SIBLING);
	expect_class(0, 38, TOPO_SAME_CCX);
	expect_class(0, 128, TOPO_OTHER_PACKAGE);
	range_ids(ids, 0, 40); /* 20 cores, IDs assumed dense */
	summarize(ids, 40, 1, 1, 1, 20, 2);
}

static void test_intel_two_dies(void **state)
{
	const struct dump d = DUMP(intel_2die);
	const uint32_t ids[] = {0, 1, 2, 64, 65, 128, 200};

	(void)state;
	probe(&d);
	assert_int_equal(t.source, TOPO_SRC_LEAF_1F);
	expect_shifts(1, 6, 6, 7);
	expect_ids(0xc5, 1, 1, 0, 2, 1);
	expect_class(0, 2, TOPO_SAME_CCX);
	expect_class(0, 64, TOPO_SAME_PACKAGE);
	expect_class(0, 128, TOPO_OTHER_PACKAGE);
	/* Out of order on purpose. */
	summarize(ids, ARRAY_SIZE(ids), 2, 4, 4, 5, 2);
}

static void test_qemu_epyc(void **state)
{
	const struct dump d = DUMP(qemu_epyc);
	uint32_t ids[8];

	(void)state;
	probe(&d);
	assert_int_equal(t.family, 0x17);
	assert_int_equal(t.source, TOPO_SRC_LEAF_B);
	/* No TOPOEXT: nothing known about L3 sharing or dies. */
	assert_false(t.l3_known);
	assert_false(t.die_known);
	assert_int_equal(t.l3_sharing, 0);
	expect_shifts(1, 1, 1, 2);
	expect_class(0, 1, TOPO_SMT_SIBLING);
	expect_class(0, 2, TOPO_SAME_PACKAGE);
	expect_class(3, 4, TOPO_OTHER_PACKAGE);
	range_ids(ids, 0, 8);
	summarize(ids, 8, 2, 0, 0, 4, 2);
}

static void test_intel_bad_leaf_b(void **state)
{
	const struct dump d = DUMP(bad_leaf_b);

	(void)state;
	probe(&d);
	/* 16 logical per package (4 bits), 8 cores (3 bits): 1 SMT bit. */
	assert_int_equal(t.source, TOPO_SRC_LEGACY);
	expect_shifts(1, 1, 4, 4);
	assert_false(t.l3_known);
	assert_true(t.die_known);
}

static void test_unknown_cpu(void **state)
{
	static const char *const via[] = {
		"0: 00000001-746E6543-48727561-736C7561",
		"1: 000006F2-00000800-00000000-00000000",
		"80000000: 00000000-00000000-00000000-00000000",
	};
	const struct dump d = DUMP(via);
	uint32_t ids[3] = {0, 7, 5000};

	(void)state;
	probe(&d);
	assert_int_equal(t.vendor, TOPO_VENDOR_OTHER);
	assert_int_equal(t.source, TOPO_SRC_NONE);
	assert_int_equal(t.pkg_shift, 32);
	expect_class(0, 5000, TOPO_SAME_PACKAGE);
	expect_class(7, 7, TOPO_SAME_CPU);
	summarize(ids, 3, 1, 0, 0, 3, 1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(topo_class_name(TOPO_SAME_CPU), "same-cpu");
	assert_string_equal(topo_class_name(TOPO_SMT_SIBLING), "smt-sibling");
	assert_string_equal(topo_class_name(TOPO_SAME_CCX), "same-ccx");
	assert_string_equal(topo_class_name(TOPO_SAME_CCD), "same-ccd");
	assert_string_equal(topo_class_name(TOPO_SAME_PACKAGE), "same-package");
	assert_string_equal(topo_class_name(TOPO_OTHER_PACKAGE),
			    "other-package");
	assert_string_equal(topo_class_name(TOPO_CLASSES), "unknown");
	assert_string_equal(topo_source_name(TOPO_SRC_AMD_26), "0x80000026");
	assert_string_equal(topo_source_name(TOPO_SRC_LEAF_1F), "0x1f");
	assert_string_equal(topo_source_name(TOPO_SRC_NONE), "none");
}

/* Two CPUs on different CCDs of one package, where CCD != CCX. */
static void test_same_ccd_class(void **state)
{
	static const char *const zen2ish[] = {
		"0: 00000010-68747541-444D4163-69746E65",
		"1: 00A10F11-00200800-7EFA320B-178BFBFF",
		"80000000: 80000026-68747541-444D4163-69746E65",
		"80000001: 00A10F11-40000000-75C237FF-2FD3FBFF",
		"80000026.0: 00000001-00000002-00000100-00000000",
		"80000026.1: 00000003-00000008-00000201-00000000",
		"80000026.2: 00000004-00000010-00000302-00000000",
		"80000026.3: 00000006-00000040-00000403-00000000",
	};
	const struct dump d = DUMP(zen2ish);

	(void)state;
	/* Made up: two 4-core CCXs per CCD, as on Zen 2. */
	probe(&d);
	expect_shifts(1, 3, 4, 6);
	expect_class(0, 8, TOPO_SAME_CCD);
	expect_class(0, 16, TOPO_SAME_PACKAGE);
	expect_ids(0x2b, 0, 2, 1, 1, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_milan),
		cmocka_unit_test(test_genoa),
		cmocka_unit_test(test_genoa_without_26),
		cmocka_unit_test(test_turin),
		cmocka_unit_test(test_sapphire_rapids),
		cmocka_unit_test(test_intel_two_dies),
		cmocka_unit_test(test_qemu_epyc),
		cmocka_unit_test(test_intel_bad_leaf_b),
		cmocka_unit_test(test_unknown_cpu),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_same_ccd_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
