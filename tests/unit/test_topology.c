// SPDX-License-Identifier: MIT
/*
 * Host tests of smp/topology.c over CPUID values recorded from real CPUs
 * and from QEMU. Each dump is "LEAF.SUBLEAF: EAX-EBX-ECX-EDX" (hex) as the
 * boot CPU returned it; a leaf listed without a subleaf answers for all.
 * The fake CPUID fails the test if topo_probe asks for a leaf above the
 * maximum leaf 0 / 0x80000000 report (real CPUs answer those with another
 * leaf's data: QEMU returns leaf 0xD's for 0x1F and 0x80000026).
 *
 * Sources (public dumps; facts, not code):
 *  - libcpuid's test data (github.com/anrieff/libcpuid, tests/...), made
 *    with its cpuid_tool on real machines:
 *    zen3/epyc-milan.test (EPYC 7713, 64 cores), zen4/epyc-genoa.test
 *    (EPYC 9124, 16 cores in 4 CCDs), zen5/epyc-turin.test (EPYC 9655,
 *    SMT off), intel/sapphire_rapids/sapphire-rapids-ws-xeon-w7.test
 *    (Xeon w7-2475X, 20 cores).
 *  - QEMU: tools/capture-acpi.py --cpuid epyc-2s2c2t (QEMU 7.2 TCG,
 *    -cpu EPYC -smp 8,sockets=2,cores=2,threads=2), boot CPU only.
 */
#include "unit.h"
#include "smp/topology.h"

#define ANY_SUB 0xffffffffu

struct dump {
	const char *const *lines;
	size_t n;
};

static void fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub,
		       struct topo_regs *r)
{
	const struct dump *d = ctx;
	uint32_t max = 0, l, s, v[4];

	*r = (struct topo_regs){0};
	for (size_t i = 0; i < d->n; i++) {
		int k = sscanf(d->lines[i], "%x.%x: %x-%x-%x-%x", &l, &s, &v[0],
			       &v[1], &v[2], &v[3]);

		if (k != 6) {
			assert_int_equal(sscanf(d->lines[i], "%x: %x-%x-%x-%x",
						&l, &v[0], &v[1], &v[2], &v[3]),
					 5);
			s = ANY_SUB;
		}
		if (l == (leaf & 0x80000000u))
			max = v[0];
		/* A leaf the dump leaves out reads as zeros. */
		if (l == leaf && (s == sub || s == ANY_SUB))
			*r = (struct topo_regs){v[0], v[1], v[2], v[3]};
	}
	if (leaf != 0 && leaf != 0x80000000u && leaf > max)
		fail_msg("asked for leaf 0x%x above the maximum 0x%x", leaf,
			 max);
}

#define DUMP(name)                     \
	{                              \
		name, ARRAY_SIZE(name) \
	}

/* EPYC 7713 (Zen 3, Milan): libcpuid zen3/epyc-milan.test, CPU #0. */
static const char *const milan[] = {
	"0: 00000010-68747541-444D4163-69746E65",
	"1: 00A00F11-00800800-7EDA320B-178BFBFF",
	"B.0: 00000001-00000002-00000100-00000000",
	"B.1: 00000007-00000080-00000201-00000000",
	"80000000: 80000023-68747541-444D4163-69746E65",
	"80000001: 00A00F11-40000000-75C237FF-2FD3FBFF",
	"80000008: 00003030-91BEF75F-0000707F-00010007",
	"8000001D.0: 00004121-01C0003F-0000003F-00000000",
	"8000001D.1: 00004122-01C0003F-0000003F-00000000",
	"8000001D.2: 00004143-01C0003F-000003FF-00000002",
	"8000001D.3: 0003C163-03C0003F-00007FFF-00000001",
	"8000001E: 00000000-00000100-00000000-00000000",
};

/* EPYC 9124 (Zen 4, Genoa): libcpuid zen4/epyc-genoa.test, CPU #0. */
static const char *const genoa[] = {
	"0: 00000010-68747541-444D4163-69746E65",
	"1: 00A10F11-00200800-7EFA320B-178BFBFF",
	"B.0: 00000001-00000002-00000100-00000000",
	"B.1: 00000006-00000020-00000201-00000000",
	"80000000: 80000028-68747541-444D4163-69746E65",
	"80000001: 00A10F11-40000000-75C237FF-2FD3FBFF",
	"80000008: 00003934-79BEF25F-0000601F-00010007",
	"8000001D.0: 00004121-01C0003F-0000003F-00000000",
	"8000001D.1: 00004122-01C0003F-0000003F-00000000",
	"8000001D.2: 00004143-01C0003F-000007FF-00000002",
	"8000001D.3: 0001C163-03C0003F-00003FFF-00000001",
	"8000001E: 00000000-00000100-00000000-00000000",
	"80000026.0: 00000001-00000002-00000100-00000000",
	"80000026.1: 00000004-00000008-00000201-00000000",
	"80000026.2: 00000004-00000008-00000302-00000000",
	"80000026.3: 00000006-00000020-00000403-00000000",
};

/* The same, as if the CPU stopped at Fn8000_0025 (no Fn8000_0026). */
static const char *const genoa_no26[] = {
	"0: 00000010-68747541-444D4163-69746E65",
	"1: 00A10F11-00200800-7EFA320B-178BFBFF",
	"B.0: 00000001-00000002-00000100-00000000",
	"B.1: 00000006-00000020-00000201-00000000",
	"80000000: 80000025-68747541-444D4163-69746E65",
	"80000001: 00A10F11-40000000-75C237FF-2FD3FBFF",
	"80000008: 00003934-79BEF25F-0000601F-00010007",
	"8000001D.0: 00004121-01C0003F-0000003F-00000000",
	"8000001D.1: 00004122-01C0003F-0000003F-00000000",
	"8000001D.2: 00004143-01C0003F-000007FF-00000002",
	"8000001D.3: 0001C163-03C0003F-00003FFF-00000001",
	"8000001E: 00000000-00000100-00000000-00000000",
};

/* EPYC 9655 (Zen 5, Turin), SMT off: libcpuid zen5/epyc-turin.test. */
static const char *const turin[] = {
	"0: 00000010-68747541-444D4163-69746E65",
	"1: 00B00F21-00400800-7EFA320B-178BFBFF",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000007-00000040-00000201-00000000",
	"80000000: 80000028-68747541-444D4163-69746E65",
	"80000001: 00B00F21-40000000-75C237FF-2FD3FBFF",
	"80000008: 00003934-79BEF25F-0000703F-00010007",
	"8000001D.0: 00000121-02C0003F-0000003F-00000000",
	"8000001D.1: 00000122-01C0003F-0000003F-00000000",
	"8000001D.2: 00000143-03C0003F-000003FF-00000002",
	"8000001D.3: 0001C163-03C0003F-00007FFF-00000001",
	"8000001E: 00000000-00000000-00000000-00000000",
	"80000026.0: 00000000-00000001-00000100-00000000",
	"80000026.1: 00000004-00000008-00000201-00000000",
	"80000026.2: 00000004-00000008-00000302-00000000",
	"80000026.3: 00000007-00000040-00000403-00000000",
};

/* Xeon w7-2475X (Sapphire Rapids): libcpuid intel/sapphire_rapids/. */
static const char *const spr[] = {
	"0: 00000020-756E6547-6C65746E-49656E69",
	"1: 000806F8-00800800-7FFEFBFF-BFEBFBFF",
	"4.0: FC004121-02C0003F-0000003F-00000000",
	"4.1: FC004122-01C0003F-0000003F-00000000",
	"4.2: FC004143-03C0003F-000007FF-00000000",
	"4.3: FC1FC163-0380003F-00009FFF-00000004",
	"B.0: 00000001-00000002-00000100-00000000",
	"B.1: 00000007-00000028-00000201-00000000",
	"1F.0: 00000001-00000002-00000100-00000000",
	"1F.1: 00000007-00000028-00000201-00000000",
	"80000000: 80000008-00000000-00000000-00000000",
	"80000001: 00000000-00000000-00000121-2C100000",
	"80000008: 00003934-00000200-00000000-00000000",
};

/*
 * QEMU 7.2 TCG, -cpu EPYC -smp 8,sockets=2,cores=2,threads=2, captured
 * with tools/capture-acpi.py --cpuid epyc-2s2c2t. TCG cannot offer
 * TOPOEXT (Fn8000_0001 ECX bit 22 clear), so Fn8000_001D/1E, although
 * answered, are not to be used.
 */
static const char *const qemu_epyc[] = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00800F12-00040800-F6D8320B-178BFBFD",
	"B.0: 00000001-00000002-00000100-00000000",
	"B.1: 00000002-00000004-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000001E-68747541-444D4163-69746E65",
	"80000001: 00800F12-00000000-00000077-2DD3FBFD",
	"80000008: 00003028-00000000-00002003-00000000",
	"8000001D.0: 00004121-01C0003F-0000003F-00000001",
	"8000001D.1: 00004122-00C0003F-000000FF-00000001",
	"8000001D.2: 00004043-01C0003F-000003FF-00000000",
	"8000001D.3: 0000C163-03C0003F-00001FFF-00000006",
	"8000001E: 00000000-00000100-00000000-00000000",
};

/*
 * Made here from the SDM's encoding, not recorded: a 2-socket Intel part
 * with 2 dies per package in leaf 0x1F (SMT 1 bit, core 5 bits, die 1
 * bit) and an L3 per die (64 addressable IDs).
 */
static const char *const intel_2die[] = {
	"0: 0000001F-756E6547-6C65746E-49656E69",
	"1: 000606A6-00800800-7FFEFBFF-BFEBFBFF",
	"4.0: 00004121-00000000-00000000-00000000",
	"4.1: 000FC163-00000000-00000000-00000000",
	"1F.0: 00000001-00000002-00000100-00000000",
	"1F.1: 00000006-00000040-00000201-00000000",
	"1F.2: 00000007-00000080-00000502-00000000",
	"80000000: 80000008-00000000-00000000-00000000",
};

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

/* Leaf 0xB with shrinking shifts is not trusted: leaf 1/4 counts. */
static const char *const bad_leaf_b[] = {
	"0: 0000000B-756E6547-6C65746E-49656E69",
	"1: 000306C3-00100800-7FFAFBBF-BFEBFBFF",
	"4.0: 1C004121-01C0003F-0000003F-00000000",
	"B.0: 00000004-00000002-00000100-00000000",
	"B.1: 00000002-00000008-00000201-00000000",
	"80000000: 80000008-00000000-00000000-00000000",
};

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

/*
 * QEMU -cpu max (TCG) with the default topology (-smp N: one socket of N
 * cores) and with two sockets, captured with tools/capture-acpi.py
 * --cpuid max-smpN and max-smpN-qemu10 (QEMU 7.2.22 and 10.0.2 answer
 * these leaves alike, but QEMU 10 lists Fn8000_0008 EBX and leaf 1 EAX
 * 0x663). The leaves above the maxima (0x1F, Fn8000_0026) read leaf
 * 0xD's data on both and must not be asked for.
 */
static const char *const qemu_max_smp13[] = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00060FB1-000D0800-F6D8320B-1FCBFBFD",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000004-0000000D-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000000A-68747541-444D4163-69746E65",
	"80000008: 00003928-00000000-0000400C-00000000",
};

/* -smp 4,sockets=2: two cores a package. */
static const char *const qemu_max_2s[] = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00060FB1-00020800-F6D8320B-1FCBFBFD",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000001-00000002-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000000A-68747541-444D4163-69746E65",
	"80000008: 00003928-00000000-00001001-00000000",
};

/* -smp 1, QEMU 10: leaf 1 EDX.HTT clear. */
static const char *const qemu10_max_smp1[] = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00000663-00000800-F6F8320B-0FCBFBFD",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000000-00000001-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000000A-68747541-444D4163-69746E65",
	"80000008: 00003928-00000204-00000000-00000000",
};

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
		cmocka_unit_test(test_package_cpus_hardware),
		cmocka_unit_test(test_package_cpus_qemu),
		cmocka_unit_test(test_package_cpus_legacy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
