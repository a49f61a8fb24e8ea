// SPDX-License-Identifier: MIT
/*
 * APIC IDs read through a layout (see topology.h): the key of each
 * level, the decoded IDs, the class of a pair of CPUs and the names of
 * the classes, and a summary of a set of CPUs. Apart from the CPUID
 * decoding that builds the layout (topology.c): these trust a layout
 * topo_probe() normalised and read no CPUID.
 */
#include "topology.h"

uint64_t topo_key(const struct topo_layout *t, uint32_t apic_id,
		  enum topo_level level)
{
	const uint8_t shift[] = {0, t->smt_shift, t->l3_shift, t->die_shift,
				 t->pkg_shift};

	return (uint64_t)apic_id >> shift[level];
}

static uint32_t field(uint32_t apic_id, uint8_t lo, uint8_t hi)
{
	uint64_t v = (uint64_t)apic_id >> lo;

	return (uint32_t)(v & ((1ull << (hi - lo)) - 1));
}

void topo_decode(const struct topo_layout *t, uint32_t apic_id,
		 struct topo_ids *out)
{
	out->package = (uint32_t)topo_key(t, apic_id, TOPO_PACKAGE);
	out->die = field(apic_id, t->die_shift, t->pkg_shift);
	out->l3 = field(apic_id, t->l3_shift, t->die_shift);
	out->core = field(apic_id, t->smt_shift, t->l3_shift);
	out->thread = field(apic_id, 0, t->smt_shift);
}

enum topo_class topo_classify(const struct topo_layout *t, uint32_t apic_a,
			      uint32_t apic_b)
{
	static const enum topo_class cls[] = {TOPO_SAME_CPU, TOPO_SMT_SIBLING,
					      TOPO_SAME_CCX, TOPO_SAME_CCD,
					      TOPO_SAME_PACKAGE};

	for (int lv = TOPO_THREAD; lv <= TOPO_PACKAGE; lv++) {
		if (topo_key(t, apic_a, lv) == topo_key(t, apic_b, lv))
			return cls[lv];
	}
	return TOPO_OTHER_PACKAGE;
}

const char *topo_class_name(enum topo_class c)
{
	static const char *const names[] = {"same-cpu",	    "smt-sibling",
					    "same-ccx",	    "same-ccd",
					    "same-package", "other-package"};

	return (unsigned int)c < TOPO_CLASSES ? names[c] : "unknown";
}

const char *topo_source_name(enum topo_source s)
{
	static const char *const names[] = {"none", "legacy", "0xb", "0x1f",
					    "0x80000026"};

	return (unsigned int)s <= TOPO_SRC_AMD_26 ? names[s] : "unknown";
}

/*
 * Instances of a level among the IDs, and the most CPUs in one of them:
 * each CPU is compared with those before it, fine for the few hundred
 * CPUs of a machine (and IDs need not be in any order).
 */
static uint32_t count_level(const struct topo_layout *t, const uint32_t *ids,
			    size_t n, enum topo_level lv, uint32_t *max)
{
	uint32_t count = 0, members;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = topo_key(t, ids[i], lv);
		size_t j = 0;

		while (j < i && topo_key(t, ids[j], lv) != k)
			j++;
		if (j < i)
			continue; /* counted with an earlier CPU */
		count++;
		members = 0;
		for (size_t m = i; m < n; m++)
			members += topo_key(t, ids[m], lv) == k;
		if (max && members > *max)
			*max = members;
	}
	return count;
}

void topo_summarize(const struct topo_layout *t, const uint32_t *apic_ids,
		    size_t n, struct topo_summary *out)
{
	*out = (struct topo_summary){.cpus = (uint32_t)n};
	out->cores = count_level(t, apic_ids, n, TOPO_CORE,
				 &out->max_threads_per_core);
	out->packages = count_level(t, apic_ids, n, TOPO_PACKAGE, NULL);
	if (t->l3_known)
		out->l3s = count_level(t, apic_ids, n, TOPO_L3, NULL);
	if (t->die_known)
		out->dies = count_level(t, apic_ids, n, TOPO_DIE, NULL);
}
