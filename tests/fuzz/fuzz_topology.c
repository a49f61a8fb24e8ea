// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: smp/topology.c's topo_probe() on fuzzed CPUID leaves,
 * through the cpuid_fn callback the unit tests use, then decoding,
 * classifying and summarising fuzzed APIC IDs with the layout it found.
 *
 * Input: four u32 APIC IDs, then the registers (EAX, EBX, ECX, EDX, u32
 * each) of every slot below in order; a slot the input does not reach
 * reads as zeros, as does any leaf or subleaf not listed (what real CPUs
 * answer for an invalid level). The fake CPUID aborts if topo_probe asks
 * for a leaf above the maximum leaf 0 / 0x80000000 report: real CPUs
 * answer those with another leaf's data.
 */
#include "fuzz.h"
#include "smp/topology.h"

/* The leaves smp/topology.c reads; `subs` subleaves of each. */
static const struct {
	uint32_t leaf, subs;
} leaves[] = {
	{0, 1},		  {0x80000000u, 1},  {1, 1},
	{0x80000001u, 1}, {0x80000008u, 1},  {0x8000001eu, 1},
	{0xb, 8},	  {0x1f, 8},	     {0x80000026u, 8},
	{4, 16},	  {0x8000001du, 16},
};

#define SLOTS (6 + 8 * 3 + 16 * 2)
#define NIDS  4

struct cpu {
	struct topo_regs r[SLOTS];
};

static int slot_of(uint32_t leaf, uint32_t sub)
{
	int base = 0;

	for (size_t i = 0; i < ARRAY_SIZE(leaves); i++) {
		if (leaves[i].leaf == leaf) {
			if (leaves[i].subs == 1)
				return base;
			return sub < leaves[i].subs ? base + (int)sub : -1;
		}
		base += (int)leaves[i].subs;
	}
	return -1;
}

static void fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub,
		       struct topo_regs *r)
{
	const struct cpu *c = ctx;
	uint32_t max = leaf & 0x80000000u ? c->r[slot_of(0x80000000u, 0)].eax
					  : c->r[slot_of(0, 0)].eax;
	int s = slot_of(leaf, sub);

	FUZZ_CHECK(leaf == 0 || leaf == 0x80000000u || leaf <= max,
		   "asked for leaf 0x%x above the maximum 0x%x", leaf, max);
	*r = s < 0 ? (struct topo_regs){0} : c->r[s];
}

static void check_ids(const struct topo_layout *t, uint32_t id)
{
	struct topo_ids d;
	uint64_t back;

	topo_decode(t, id, &d);
	/* The fields are the APIC ID's bit fields: they put it together. */
	back = (uint64_t)d.package << t->pkg_shift |
	       (uint64_t)d.die << t->die_shift | (uint64_t)d.l3 << t->l3_shift |
	       (uint64_t)d.core << t->smt_shift | d.thread;
	FUZZ_CHECK(back == id, "0x%x decodes to %u/%u/%u/%u/%u = 0x%llx", id,
		   d.package, d.die, d.l3, d.core, d.thread,
		   (unsigned long long)back);
	FUZZ_CHECK(topo_key(t, id, TOPO_THREAD) == id, "thread key");
	FUZZ_CHECK(topo_key(t, id, TOPO_PACKAGE) == d.package, "package key");
}

/* The class is the lowest level whose keys agree (topology.h). */
static void check_pair(const struct topo_layout *t, uint32_t a, uint32_t b)
{
	enum topo_class c = topo_classify(t, a, b);

	FUZZ_CHECK(c < TOPO_CLASSES, "class %d", c);
	FUZZ_CHECK(c == topo_classify(t, b, a), "not symmetric");
	FUZZ_CHECK((c == TOPO_SAME_CPU) == (a == b), "0x%x, 0x%x: %s", a, b,
		   topo_class_name(c));
	FUZZ_CHECK((c == TOPO_OTHER_PACKAGE) == (topo_key(t, a, TOPO_PACKAGE) !=
						 topo_key(t, b, TOPO_PACKAGE)),
		   "0x%x, 0x%x: %s", a, b, topo_class_name(c));
	if (c >= TOPO_SAME_CCX)
		FUZZ_CHECK(topo_key(t, a, TOPO_CORE) !=
				   topo_key(t, b, TOPO_CORE),
			   "same core, yet %s", topo_class_name(c));
	fuzz_check_printable(topo_class_name(c), 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct topo_layout t;
	struct topo_summary s;
	uint32_t ids[NIDS * 2];
	struct cpu cpu;

	for (size_t i = 0; i < NIDS; i++) {
		ids[i] = fuzz_u32(&in);
		/* Neighbours: likely to share some levels with it. */
		ids[NIDS + i] = ids[i] ^ (1u << (i * 3));
	}
	for (size_t i = 0; i < SLOTS; i++) {
		cpu.r[i].eax = fuzz_u32(&in);
		cpu.r[i].ebx = fuzz_u32(&in);
		cpu.r[i].ecx = fuzz_u32(&in);
		cpu.r[i].edx = fuzz_u32(&in);
	}

	memset(&t, 0x5a, sizeof(t));
	topo_probe(fake_cpuid, &cpu, &t);
	FUZZ_CHECK(t.smt_shift <= t.l3_shift && t.l3_shift <= t.die_shift &&
			   t.die_shift <= t.pkg_shift && t.pkg_shift <= 32,
		   "shifts %u %u %u %u", t.smt_shift, t.l3_shift, t.die_shift,
		   t.pkg_shift);
	FUZZ_CHECK(t.vendor <= TOPO_VENDOR_AMD, "vendor %d", t.vendor);
	FUZZ_CHECK(t.source <= TOPO_SRC_AMD_26, "source %d", t.source);
	fuzz_check_printable(topo_source_name(t.source), 32);
	if (t.source == TOPO_SRC_NONE)
		FUZZ_CHECK(t.pkg_shift == 32 && !t.l3_known && !t.die_known,
			   "nothing known, yet pkg %u l3 %d die %d",
			   t.pkg_shift, t.l3_known, t.die_known);

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		check_ids(&t, ids[i]);
		for (size_t j = 0; j <= i; j++)
			check_pair(&t, ids[i], ids[j]);
	}
	topo_summarize(&t, ids, ARRAY_SIZE(ids), &s);
	FUZZ_CHECK(s.cpus == ARRAY_SIZE(ids), "cpus %u", s.cpus);
	FUZZ_CHECK(
		s.packages >= 1 && s.packages <= s.cores && s.cores <= s.cpus,
		"packages %u, cores %u, cpus %u", s.packages, s.cores, s.cpus);
	FUZZ_CHECK(!t.die_known || (s.dies >= s.packages && s.dies <= s.cores),
		   "dies %u", s.dies);
	FUZZ_CHECK(!t.l3_known || (s.l3s >= s.packages && s.l3s <= s.cores),
		   "l3s %u", s.l3s);
	FUZZ_CHECK(!t.die_known || !t.l3_known || s.dies <= s.l3s,
		   "dies %u > l3s %u", s.dies, s.l3s);
	FUZZ_CHECK(s.max_threads_per_core >= 1 &&
			   s.max_threads_per_core <= s.cpus,
		   "max threads per core %u", s.max_threads_per_core);
	return 0;
}
