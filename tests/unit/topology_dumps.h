/* SPDX-License-Identifier: MIT */
/*
 * CPUID dumps of real CPUs and of QEMU, and a CPUID that answers from one,
 * for the host tests of smp/topology.c (test_topology.c: the layout and
 * the IDs; test_topology_package.c: the CPUs a package has). Each dump is
 * "LEAF.SUBLEAF: EAX-EBX-ECX-EDX" (hex) as the boot CPU returned it; a leaf
 * listed without a subleaf answers for all. The fake CPUID fails the test
 * if topo_probe asks for a leaf above the maximum leaf 0 / 0x80000000
 * report (real CPUs answer those with another leaf's data: QEMU returns
 * leaf 0xD's for 0x1F and 0x80000026).
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
#ifndef TESTS_UNIT_TOPOLOGY_DUMPS_H
#define TESTS_UNIT_TOPOLOGY_DUMPS_H

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
static const char *const milan[] __attribute__((unused)) = {
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
static const char *const genoa[] __attribute__((unused)) = {
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
static const char *const genoa_no26[] __attribute__((unused)) = {
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
static const char *const turin[] __attribute__((unused)) = {
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
static const char *const spr[] __attribute__((unused)) = {
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
static const char *const qemu_epyc[] __attribute__((unused)) = {
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
static const char *const intel_2die[] __attribute__((unused)) = {
	"0: 0000001F-756E6547-6C65746E-49656E69",
	"1: 000606A6-00800800-7FFEFBFF-BFEBFBFF",
	"4.0: 00004121-00000000-00000000-00000000",
	"4.1: 000FC163-00000000-00000000-00000000",
	"1F.0: 00000001-00000002-00000100-00000000",
	"1F.1: 00000006-00000040-00000201-00000000",
	"1F.2: 00000007-00000080-00000502-00000000",
	"80000000: 80000008-00000000-00000000-00000000",
};

/* Leaf 0xB with shrinking shifts is not trusted: leaf 1/4 counts. */
static const char *const bad_leaf_b[] __attribute__((unused)) = {
	"0: 0000000B-756E6547-6C65746E-49656E69",
	"1: 000306C3-00100800-7FFAFBBF-BFEBFBFF",
	"4.0: 1C004121-01C0003F-0000003F-00000000",
	"B.0: 00000004-00000002-00000100-00000000",
	"B.1: 00000002-00000008-00000201-00000000",
	"80000000: 80000008-00000000-00000000-00000000",
};

/*
 * QEMU -cpu max (TCG) with the default topology (-smp N: one socket of N
 * cores) and with two sockets, captured with tools/capture-acpi.py
 * --cpuid max-smpN and max-smpN-qemu10 (QEMU 7.2.22 and 10.0.2 answer
 * these leaves alike, but QEMU 10 lists Fn8000_0008 EBX and leaf 1 EAX
 * 0x663). The leaves above the maxima (0x1F, Fn8000_0026) read leaf
 * 0xD's data on both and must not be asked for.
 */
static const char *const qemu_max_smp13[] __attribute__((unused)) = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00060FB1-000D0800-F6D8320B-1FCBFBFD",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000004-0000000D-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000000A-68747541-444D4163-69746E65",
	"80000008: 00003928-00000000-0000400C-00000000",
};

/* -smp 4,sockets=2: two cores a package. */
static const char *const qemu_max_2s[] __attribute__((unused)) = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00060FB1-00020800-F6D8320B-1FCBFBFD",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000001-00000002-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000000A-68747541-444D4163-69746E65",
	"80000008: 00003928-00000000-00001001-00000000",
};

/* -smp 1, QEMU 10: leaf 1 EDX.HTT clear. */
static const char *const qemu10_max_smp1[] __attribute__((unused)) = {
	"0: 0000000D-68747541-444D4163-69746E65",
	"1: 00000663-00000800-F6F8320B-0FCBFBFD",
	"B.0: 00000000-00000001-00000100-00000000",
	"B.1: 00000000-00000001-00000201-00000000",
	"B.2: 00000000-00000000-00000002-00000000",
	"80000000: 8000000A-68747541-444D4163-69746E65",
	"80000008: 00003928-00000204-00000000-00000000",
};

#endif
