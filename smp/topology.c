// SPDX-License-Identifier: MIT
/*
 * CPU topology from CPUID (see topology.h). Field layouts are from the
 * Intel SDM vol. 2A (CPUID leaves 1, 4, 0xB, 0x1F) and AMD's APM vol. 3
 * appendix E and family 17h/19h/1Ah PPRs (Fn8000_0008, Fn8000_001D,
 * Fn8000_001E, Fn8000_0026). What a layout says about an APIC ID is in
 * topology_ids.c.
 */
#include "topology.h"

/* Leaf 0's vendor string is EBX, EDX, ECX: "AuthenticAMD" and so on. */
#define SIG(a, b, c, d)                                             \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
	 (uint32_t)(d) << 24)

/*
 * Level types. Intel 0xB/0x1F ECX[15:8]: 1 SMT, 2 core, 3 module, 4 tile,
 * 5 die, 6 die group; EAX[4:0] at a level is the shift that yields the ID
 * of the *next* level up, so the last level's shift is the package's.
 * AMD Fn8000_0026 ECX[15:8]: 1 core, 2 complex (CCX), 3 die (CCD), 4
 * socket; EAX[4:0] is the shift that yields the ID *of that level* (on an
 * EPYC 9124 they read 1, 4, 4, 6).
 */
#define INTEL_LVL_SMT 1
#define INTEL_LVL_DIE 5
#define AMD_LVL_CORE  1
#define AMD_LVL_CCX   2
#define AMD_LVL_CCD   3
#define AMD_LVL_SOCK  4
#define MAX_LEVELS    8

#define AMD_TOPOEXT   (1u << 22) /* Fn8000_0001 ECX: 0x8000001D/1E valid */
#define LEAF1_HTT     (1u << 28) /* leaf 1 EDX: EBX[23:16] is valid */

struct probe {
	cpuid_fn fn;
	void *ctx;
	uint32_t max_basic, max_ext;
	bool smt_known;
	struct topo_layout *t;
};

/* CPUID, or false and zeros when the leaf is beyond the CPU's maximum. */
static bool leaf(struct probe *p, uint32_t lf, uint32_t sub,
		 struct topo_regs *r)
{
	uint32_t max = lf & 0x80000000u ? p->max_ext : p->max_basic;

	*r = (struct topo_regs){0};
	if (lf > max)
		return false;
	p->fn(p->ctx, lf, sub, r);
	return true;
}

/* Bits needed to number n things: ceil(log2(n)), 0 for n <= 1. */
static uint8_t order(uint32_t n)
{
	uint8_t s = 0;

	while (s < 32 && (1ull << s) < n)
		s++;
	return s;
}

static void ident(struct probe *p)
{
	struct topo_layout *t = p->t;
	struct topo_regs r;
	uint32_t base;

	p->fn(p->ctx, 0, 0, &r);
	p->max_basic = r.eax;
	if (r.ebx == SIG('G', 'e', 'n', 'u') &&
	    r.edx == SIG('i', 'n', 'e', 'I'))
		t->vendor = TOPO_VENDOR_INTEL;
	else if ((r.ebx == SIG('A', 'u', 't', 'h') &&
		  r.edx == SIG('e', 'n', 't', 'i')) ||
		 (r.ebx == SIG('H', 'y', 'g', 'o') &&
		  r.edx == SIG('n', 'G', 'e', 'n')))
		t->vendor = TOPO_VENDOR_AMD;
	p->fn(p->ctx, 0x80000000u, 0, &r);
	p->max_ext = r.eax & 0x80000000u ? r.eax : 0;
	if (!leaf(p, 1, 0, &r))
		return;
	/* Display family/model: the extended fields count from 0xF / 6. */
	base = (r.eax >> 8) & 0xf;
	t->family = base == 0xf ? base + ((r.eax >> 20) & 0xff) : base;
	t->model = (r.eax >> 4) & 0xf;
	if (base == 0xf || base == 6)
		t->model |= ((r.eax >> 16) & 0xf) << 4;
}

/* Intel semantics (leaf 0xB or 0x1F); also AMD's leaf 0xB. */
static bool intel_levels(struct probe *p, uint32_t lf)
{
	struct topo_layout *t = p->t;
	uint8_t prev = 0, smt = 0, die = 0xff;
	struct topo_regs r;
	uint32_t sub;

	for (sub = 0; sub < MAX_LEVELS; sub++) {
		uint8_t type, shift;

		if (!leaf(p, lf, sub, &r))
			return false;
		type = (r.ecx >> 8) & 0xff;
		shift = r.eax & 0x1f;
		/* "If ECX contains an invalid level number, EAX and EBX will
		 * return 0": type 0, or no processors at the level. */
		if (!type || !(r.ebx & 0xffff))
			break;
		if (shift < prev)
			return false;
		if (type == INTEL_LVL_SMT) {
			smt = shift;
			t->threads_per_core = r.ebx & 0xffff;
		}
		if (type == INTEL_LVL_DIE)
			die = prev; /* the die's ID is above the level below */
		prev = shift;
	}
	if (!sub)
		return false;
	t->smt_shift = smt;
	t->pkg_shift = prev;
	if (die != 0xff) {
		t->die_shift = die;
		t->die_known = true;
	}
	p->smt_known = true;
	return true;
}

/* AMD Fn8000_0026: needs at least the core and socket levels. */
static bool amd_levels(struct probe *p)
{
	struct topo_layout *t = p->t;
	uint8_t sh[AMD_LVL_SOCK + 1] = {0}, prev = 0;
	bool seen[AMD_LVL_SOCK + 1] = {false};
	struct topo_regs r;

	for (uint32_t sub = 0; sub < MAX_LEVELS; sub++) {
		uint8_t type, shift;

		if (!leaf(p, 0x80000026u, sub, &r))
			return false;
		type = (r.ecx >> 8) & 0xff;
		shift = r.eax & 0x1f;
		if (!type)
			break;
		if (type > AMD_LVL_SOCK || shift < prev)
			return false;
		if (type == AMD_LVL_CORE)
			t->threads_per_core = r.ebx & 0xffff;
		sh[type] = shift;
		seen[type] = true;
		prev = shift;
	}
	if (!seen[AMD_LVL_CORE] || !seen[AMD_LVL_SOCK])
		return false;
	t->smt_shift = sh[AMD_LVL_CORE];
	t->pkg_shift = sh[AMD_LVL_SOCK];
	t->l3_known = seen[AMD_LVL_CCX];
	t->l3_shift = sh[AMD_LVL_CCX];
	t->die_known = seen[AMD_LVL_CCD];
	t->die_shift = sh[AMD_LVL_CCD];
	p->smt_known = true;
	return true;
}

/*
 * Intel leaf 4 / AMD Fn8000_001D, one subleaf per cache: EAX[4:0] type
 * (0: no more), EAX[7:5] level, EAX[25:14] + 1 logical processors share
 * it (Intel: "maximum number of addressable IDs", so a power of two is
 * the field width; AMD: "NumSharingCache", an actual count).
 */
static void cache_leaf(struct probe *p, uint32_t lf)
{
	struct topo_layout *t = p->t;
	struct topo_regs r;

	for (uint32_t sub = 0; sub < 16; sub++) {
		if (!leaf(p, lf, sub, &r) || !(r.eax & 0x1f))
			return;
		if (((r.eax >> 5) & 7) != 3)
			continue;
		t->l3_sharing = ((r.eax >> 14) & 0xfff) + 1;
		if (!t->l3_known) {
			t->l3_shift = order(t->l3_sharing);
			t->l3_known = true;
		}
		return;
	}
}

/* Without 0xB: the logical processor count of leaf 1 (if HTT). */
static bool leaf1_package(struct probe *p)
{
	struct topo_regs r;

	if (!leaf(p, 1, 0, &r) || !(r.edx & LEAF1_HTT))
		return false;
	p->t->pkg_shift = order((r.ebx >> 16) & 0xff);
	p->t->source = TOPO_SRC_LEGACY;
	return true;
}

/*
 * Fn8000_0008 ECX: [15:12] ApicIdSize, the APIC ID bits that number the
 * logical processor within the package (0: use NC); [7:0] NC, logical
 * processors in the package minus 1.
 */
static void amd_legacy(struct probe *p)
{
	struct topo_regs r;
	uint32_t size;

	if (!leaf(p, 0x80000008u, 0, &r)) {
		leaf1_package(p);
		return;
	}
	size = (r.ecx >> 12) & 0xf;
	p->t->pkg_shift = size ? (uint8_t)size : order((r.ecx & 0xff) + 1);
	p->t->source = TOPO_SRC_LEGACY;
}

/*
 * Fn8000_001E: EBX[15:8] threads per core - 1; ECX[10:8] nodes per
 * processor - 1. On family 17h before Zen 2 a node is a die (Zeppelin),
 * and the dies take the top bits of the package's APIC ID field.
 */
static void amd_ext_ids(struct probe *p)
{
	struct topo_layout *t = p->t;
	struct topo_regs r;
	uint32_t threads, nodes;

	if (!leaf(p, 0x8000001eu, 0, &r))
		return;
	threads = ((r.ebx >> 8) & 0xff) + 1;
	nodes = ((r.ecx >> 8) & 7) + 1;
	if (!p->smt_known) {
		t->smt_shift = order(threads);
		p->smt_known = true;
	}
	if (!t->threads_per_core)
		t->threads_per_core = threads;
	if (!t->die_known && nodes > 1 &&
	    (t->family == 0x17 || t->family == 0x18) &&
	    order(nodes) <= t->pkg_shift) {
		t->die_shift = t->pkg_shift - order(nodes);
		t->die_known = true;
	}
}

static void probe_amd(struct probe *p)
{
	struct topo_layout *t = p->t;
	struct topo_regs r;
	bool topoext = leaf(p, 0x80000001u, 0, &r) && (r.ecx & AMD_TOPOEXT);

	if (amd_levels(p))
		t->source = TOPO_SRC_AMD_26;
	else if (intel_levels(p, 0xb))
		t->source = TOPO_SRC_LEAF_B;
	else
		amd_legacy(p);
	if (topoext) {
		cache_leaf(p, 0x8000001du);
		amd_ext_ids(p);
	}
	/* From Zen 3 on, each CCD holds one CCX. */
	if (!t->die_known && t->l3_known && t->family >= 0x19) {
		t->die_shift = t->l3_shift;
		t->die_known = true;
	}
}

/* Leaf 4 EAX[31:26] + 1: addressable core IDs in the package. */
static void intel_legacy(struct probe *p)
{
	struct topo_layout *t = p->t;
	struct topo_regs r;
	uint8_t cores;

	if (!leaf1_package(p))
		return;
	leaf(p, 4, 0, &r);
	cores = order(((r.eax >> 26) & 0x3f) + 1);
	t->smt_shift = cores <= t->pkg_shift ? t->pkg_shift - cores : 0;
}

static void probe_intel(struct probe *p)
{
	struct topo_layout *t = p->t;

	if (intel_levels(p, 0x1f))
		t->source = TOPO_SRC_LEAF_1F;
	else if (intel_levels(p, 0xb))
		t->source = TOPO_SRC_LEAF_B;
	else
		intel_legacy(p);
	cache_leaf(p, 4);
	/* No die level enumerated: one die per package, as far as software
	 * can tell. */
	if (!t->die_known && t->source != TOPO_SRC_NONE) {
		t->die_shift = t->pkg_shift;
		t->die_known = true;
	}
}

static uint8_t clamp(uint8_t v, uint8_t lo, uint8_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Makes smt <= l3 <= die <= pkg <= 32 hold, folding unknown levels. */
static void normalize(struct topo_layout *t)
{
	if (t->source == TOPO_SRC_NONE) {
		*t = (struct topo_layout){.vendor = t->vendor,
					  .family = t->family,
					  .model = t->model};
		t->pkg_shift = 32; /* all one package */
		return;
	}
	t->pkg_shift = clamp(t->pkg_shift, 0, 32);
	t->smt_shift = clamp(t->smt_shift, 0, t->pkg_shift);
	if (!t->l3_known)
		t->l3_shift = t->smt_shift;
	t->l3_shift = clamp(t->l3_shift, t->smt_shift, t->pkg_shift);
	if (!t->die_known)
		t->die_shift = t->l3_shift;
	t->die_shift = clamp(t->die_shift, t->l3_shift, t->pkg_shift);
}

void topo_probe(cpuid_fn fn, void *ctx, struct topo_layout *t)
{
	struct probe p = {.fn = fn, .ctx = ctx, .t = t};

	*t = (struct topo_layout){0};
	ident(&p);
	if (t->vendor == TOPO_VENDOR_AMD)
		probe_amd(&p);
	else if (t->vendor == TOPO_VENDOR_INTEL)
		probe_intel(&p);
	else if (intel_levels(&p, 0xb))
		t->source = TOPO_SRC_LEAF_B;
	normalize(t);
}

/*
 * EBX[15:0] of the highest level of leaf 0xB or 0x1F (0 if the leaf is
 * absent or malformed). AMD Fn8000_0026 has the same layout, its levels
 * counted from the core up; want is then the socket's type, where it
 * stops.
 */
static uint32_t level_count(struct probe *p, uint32_t lf, uint8_t want)
{
	uint32_t count = 0, sub;
	uint8_t prev = 0;
	struct topo_regs r;

	for (sub = 0; sub < MAX_LEVELS; sub++) {
		uint8_t type, shift;

		if (!leaf(p, lf, sub, &r))
			return 0;
		type = (r.ecx >> 8) & 0xff;
		shift = r.eax & 0x1f;
		if (!type || !(r.ebx & 0xffff))
			break;
		if (shift < prev)
			return 0;
		prev = shift;
		count = r.ebx & 0xffff;
		if (want && type == want)
			return count;
	}
	return want ? 0 : count;
}

void topo_package_cpus(cpuid_fn fn, void *ctx, struct topo_pkg_count *out)
{
	struct topo_layout t = {0};
	struct probe p = {.fn = fn, .ctx = ctx, .t = &t};
	struct topo_regs r;
	bool amd;

	ident(&p);
	amd = t.vendor == TOPO_VENDOR_AMD;
	*out = (struct topo_pkg_count){0, "none"};
	if (amd && (out->cpus = level_count(&p, 0x80000026u, AMD_LVL_SOCK)))
		out->source = "CPUID 0x80000026";
	else if (!amd && (out->cpus = level_count(&p, 0x1f, 0)))
		out->source = "CPUID 0x1f";
	else if ((out->cpus = level_count(&p, 0xb, 0)))
		out->source = "CPUID 0xb";
	else if (amd && leaf(&p, 0x80000008u, 0, &r)) {
		out->cpus = (r.ecx & 0xff) + 1;
		out->source = "CPUID 0x80000008 ECX[7:0]";
	} else if (leaf(&p, 1, 0, &r)) {
		out->cpus = r.edx & LEAF1_HTT ? (r.ebx >> 16) & 0xff : 1;
		out->source = r.edx & LEAF1_HTT ? "CPUID 1 EBX[23:16]"
						: "CPUID 1 (HTT clear)";
		if (!out->cpus)
			out->source = "none";
	}
}
