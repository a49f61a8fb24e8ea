/* SPDX-License-Identifier: MIT */
/*
 * CPU topology from CPUID: which CPUs are SMT siblings, share an L3 cache
 * (an AMD CCX), sit on the same die (an AMD CCD), or in the same package.
 *
 * Portable: CPUID is read through a callback, so the host tests feed it
 * values recorded from real CPUs and QEMU; in the kernel the callback
 * executes CPUID on the boot CPU.
 *
 * x86 encodes the topology in the bits of the APIC ID: each level owns a
 * field, and an ID shifted right by a level's shift is the number of that
 * level's instance (unique in the machine). CPUID gives the shifts, the
 * same for every CPU of a machine, so they are probed once (topo_probe)
 * and any APIC ID is then decoded without asking its CPU.
 *
 * Sources, most specific first:
 *   AMD:   Fn8000_0026 (extended CPU topology: core, complex = CCX, die =
 *          CCD, socket; Zen 4 and later), else leaf 0xB (SMT, package)
 *          with Fn8000_001D (which logical CPUs share the L3) and
 *          Fn8000_001E (threads per core, nodes per package), else
 *          Fn8000_0008 ECX (ApicIdSize, NC).
 *   Intel: leaf 0x1F (SMT, core, module, tile, die, ...), else leaf 0xB,
 *          else leaf 1 and leaf 4; leaf 4 for the L3's sharing.
 */
#ifndef SMP_TOPOLOGY_H
#define SMP_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct topo_regs {
	uint32_t eax, ebx, ecx, edx;
};

/*
 * Fills *r with CPUID(leaf, subleaf) of the CPU being probed. topo_probe
 * never asks for a leaf above the maximum that leaf 0 / 0x80000000
 * report: real CPUs (and QEMU) answer such a leaf with another leaf's
 * data.
 */
typedef void (*cpuid_fn)(void *ctx, uint32_t leaf, uint32_t subleaf,
			 struct topo_regs *r);

enum topo_vendor {
	TOPO_VENDOR_OTHER,
	TOPO_VENDOR_INTEL,
	TOPO_VENDOR_AMD, /* also Hygon, whose CPUs are Zen */
};

/* Where the package/core levels came from. */
enum topo_source {
	TOPO_SRC_NONE,	 /* nothing usable: one package, no sharing known */
	TOPO_SRC_LEGACY, /* leaf 1 counts, leaf 4 or Fn8000_0008 */
	TOPO_SRC_LEAF_B,
	TOPO_SRC_LEAF_1F,
	TOPO_SRC_AMD_26, /* Fn8000_0026 */
};

enum topo_level {
	TOPO_THREAD, /* the APIC ID itself */
	TOPO_CORE,
	TOPO_L3,
	TOPO_DIE,
	TOPO_PACKAGE,
};

/*
 * The bit layout of the APIC IDs. smt <= l3 <= die <= pkg always hold
 * (shifts up to 32). A level that CPUID does not describe is folded into
 * its neighbour and marked unknown: no L3 information means the L3 domain
 * is the core (nothing is claimed to share one); no die means the die is
 * the package on Intel (one die as far as software can tell) and the L3
 * domain on AMD Zen 3 and later (one CCX per CCD), and unknown otherwise.
 */
struct topo_layout {
	enum topo_vendor vendor;
	enum topo_source source;
	uint32_t family, model; /* display family/model from leaf 1 */
	uint8_t smt_shift;
	uint8_t l3_shift;
	uint8_t die_shift;
	uint8_t pkg_shift;
	bool l3_known;
	bool die_known;
	uint32_t l3_sharing; /* logical CPUs per L3 per the cache leaf; 0 */
	uint32_t threads_per_core; /* as CPUID says (at most 1 << smt_shift) */
};

/*
 * One CPU's position, each field relative to its parent: thread within
 * its core, core within its L3 domain, L3 domain within its die, die
 * within its package. They are APIC ID fields, not dense numbers: a part
 * with cores fused off skips some.
 */
struct topo_ids {
	uint32_t package, die, l3, core, thread;
};

/* How close two CPUs are: the nearest level they share. */
enum topo_class {
	TOPO_SAME_CPU,
	TOPO_SMT_SIBLING,
	TOPO_SAME_CCX, /* share an L3 cache */
	TOPO_SAME_CCD, /* same die, different L3 */
	TOPO_SAME_PACKAGE,
	TOPO_OTHER_PACKAGE,
	TOPO_CLASSES,
};

/* Counts per level over a set of CPUs; 0 for a level that is unknown. */
struct topo_summary {
	uint32_t cpus;
	uint32_t packages;
	uint32_t dies;
	uint32_t l3s;
	uint32_t cores;
	uint32_t max_threads_per_core;
};

/*
 * The logical CPUs of the probed CPU's package as CPUID counts them, the
 * cross-check of the firmware's CPU list (docs/output.md, "Bring-up").
 * cpus is 0 when CPUID cannot say; source names the leaf that said it.
 */
struct topo_pkg_count {
	uint32_t cpus;
	const char *source; /* "CPUID 0xb", ...; "none" when cpus is 0 */
};

/*
 * Sources, most exact first: AMD Fn8000_0026's socket level, then leaf
 * 0x1F (Intel) or 0xB: EBX[15:0] of the highest level listed, the logical
 * CPUs of the package (SDM: "across all instances of this domain within
 * the next higher-scoped domain"); then AMD Fn8000_0008 ECX[7:0] + 1 (NC,
 * threads in the package); then leaf 1 EBX[23:16] where EDX.HTT is set
 * (addressable IDs, on the CPUs without leaf 0xB their count), and 1
 * where it is clear ("only a single logical processor in the package").
 * Level leaves whose shifts shrink are not used, as in topo_probe.
 */
void topo_package_cpus(cpuid_fn fn, void *ctx, struct topo_pkg_count *out);

/* Reads the layout from the probed CPU's CPUID. Always fills *t. */
void topo_probe(cpuid_fn fn, void *ctx, struct topo_layout *t);

/* The machine-wide number of apic_id's instance of a level. */
uint64_t topo_key(const struct topo_layout *t, uint32_t apic_id,
		  enum topo_level level);

void topo_decode(const struct topo_layout *t, uint32_t apic_id,
		 struct topo_ids *out);

enum topo_class topo_classify(const struct topo_layout *t, uint32_t apic_a,
			      uint32_t apic_b);

/* "same-cpu", "smt-sibling", "same-ccx", ... (for records). */
const char *topo_class_name(enum topo_class c);

/* "none", "legacy", "0xb", "0x1f", "0x80000026". */
const char *topo_source_name(enum topo_source s);

/* Counts the instances of each level among n APIC IDs. */
void topo_summarize(const struct topo_layout *t, const uint32_t *apic_ids,
		    size_t n, struct topo_summary *out);

#endif
