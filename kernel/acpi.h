/* SPDX-License-Identifier: MIT */
/*
 * ACPI tables that the harness needs, parsed into one struct acpi_info:
 * the RSDP (from the loader's copy, or found in the EBDA / BIOS area),
 * the RSDT or XSDT, the MADT (CPUs, IOAPICs, overrides, NMI wiring), the
 * FADT (PM timer, reset register), the HPET and the SRAT (NUMA domains).
 *
 * Portable: physical memory is read only through a phys_reader callback
 * (kernel/multiboot.h), so host tests serve tables captured from QEMU and
 * malformed ones; in the kernel the reader returns identity-mapped
 * pointers. A pointer from the reader is used only until the next call.
 *
 * Nothing is trusted: every table header is checked (signature, length,
 * checksum) before a byte of its body is used, and every entry is kept
 * within its table. A bad table is recorded in errors[] and skipped; a bad
 * entry stops or skips what it must and is recorded; the rest is used.
 *
 * Field offsets quoted in the sources are from the ACPI 6.5 specification
 * (chapter 5.2, "ACPI System Description Tables").
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/multiboot.h" /* phys_reader */

/*
 * x2APIC IDs are 32-bit and servers list thousands of possible CPUs, so
 * the CPU list is sized well past MAX_CPUS (smp/cpumask.h): the kernel
 * brings up what it can, and knows how many it left out.
 */
#define ACPI_MAX_CPUS	    4096u
#define ACPI_MAX_IOAPICS    64u
#define ACPI_MAX_ISOS	    48u /* ISA IRQs 0-15, a few times over */
#define ACPI_MAX_NMIS	    64u /* raw list; each CPU also gets its own */
#define ACPI_MAX_TABLES	    64u
#define ACPI_MAX_MEM_RANGES 64u
#define ACPI_ERR_MAX	    16
#define ACPI_ERR_LEN	    112

#define ACPI_NO_DOMAIN	    0xffffffffu /* no SRAT entry for this CPU */
#define ACPI_NO_NMI	    0xffu	/* no LINT pin is wired to NMI */

/* Generic Address Structure (ACPI 5.2.3.2): 12 bytes in the tables. */
enum { ACPI_GAS_MEMORY = 0, ACPI_GAS_IO = 1 };

struct acpi_gas {
	uint8_t space; /* ACPI_GAS_MEMORY, ACPI_GAS_IO, ... */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;
	uint64_t addr;
};

/* One table the root table points to (or the root table itself). */
struct acpi_table {
	char sig[5];
	char oem_id[7];
	uint8_t revision;
	bool ok; /* header, length and checksum were valid */
	uint32_t length;
	uint64_t pa;
};

struct acpi_cpu {
	uint32_t apic_id;
	uint32_t uid;	 /* ACPI processor UID */
	uint32_t domain; /* SRAT proximity domain, or ACPI_NO_DOMAIN */
	bool enabled;
	bool online_capable; /* disabled, but can be enabled at run time */
	bool x2apic;	     /* listed by a type 9 (x2APIC) entry */
	uint8_t nmi_lint;    /* LINT0/1 wired to NMI, or ACPI_NO_NMI */
	uint16_t nmi_flags;  /* MPS INTI flags (polarity, trigger) of it */
};

struct acpi_ioapic {
	uint8_t id;
	uint32_t addr;
	uint32_t gsi_base;
};

/* An ISA IRQ routed to another GSI or with other polarity/trigger. */
struct acpi_iso {
	uint8_t bus; /* 0: ISA */
	uint8_t irq;
	uint32_t gsi;
	uint16_t flags; /* MPS INTI flags */
};

struct acpi_nmi {
	uint32_t uid; /* 0xff (type 4) or 0xffffffff (type 0xA): all */
	uint16_t flags;
	uint8_t lint;
	bool x2apic; /* from a type 0xA entry */
};

struct acpi_madt {
	bool present;
	uint64_t lapic_addr; /* after a type 5 override, if any */
	bool lapic_override;
	bool pcat_compat; /* flags bit 0: there are 8259s to mask */
	/*
	 * cpus[0 .. cpu_count) are the enabled CPUs (cpu_count is what the
	 * env record calls cpus_madt), then cpus[cpu_count ..
	 * cpu_count + hotplug_count) the online-capable but disabled ones;
	 * each group in MADT order (the boot CPU is meant to be first).
	 */
	size_t cpu_count;
	size_t hotplug_count;
	size_t disabled_count; /* neither: not usable, not listed */
	size_t dropped_count;  /* usable, but the list was full */
	size_t x2apic_count;   /* listed CPUs from type 9 entries */
	uint32_t max_apic_id;  /* over the listed CPUs */
	struct acpi_cpu cpus[ACPI_MAX_CPUS];

	size_t ioapic_count; /* may exceed ACPI_MAX_IOAPICS: rest dropped */
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	size_t iso_count;
	struct acpi_iso isos[ACPI_MAX_ISOS];
	size_t nmi_count;
	struct acpi_nmi nmis[ACPI_MAX_NMIS];
};

struct acpi_fadt {
	bool present;
	uint8_t revision;
	uint32_t length;
	uint32_t flags;	 /* the FADT's Flags field (offset 112) */
	uint64_t dsdt;	 /* X_DSDT when set, else DSDT */
	bool hw_reduced; /* flags bit 20: no PM timer, no legacy blocks */
	/* ACPI PM timer: 3.579545 MHz, 24 or 32 bits wide. */
	bool pm_timer;
	struct acpi_gas pm_timer_reg; /* space is IO for PM_TMR_BLK */
	bool pm_timer_32bit;	      /* flags bit 8, TMR_VAL_EXT */
	/* Writing reset_value to reset_reg resets the machine. */
	bool reset;
	struct acpi_gas reset_reg;
	uint8_t reset_value;
};

struct acpi_hpet {
	bool present;
	struct acpi_gas base;
	uint32_t block_id; /* Event Timer Block ID (vendor, counters) */
	uint8_t number;
	uint16_t min_tick;
};

struct acpi_srat_cpu {
	uint32_t apic_id;
	uint32_t domain;
	bool x2apic; /* from a type 2 entry */
};

struct acpi_mem_range {
	uint64_t base, len;
	uint32_t domain;
	bool hotplug;
	bool nonvolatile;
};

struct acpi_srat {
	bool present;
	size_t cpu_count; /* enabled entries; may exceed the array */
	struct acpi_srat_cpu cpus[ACPI_MAX_CPUS];
	size_t mem_count; /* enabled entries; may exceed the array */
	struct acpi_mem_range mem[ACPI_MAX_MEM_RANGES];
	size_t disabled_count; /* entries without their Enabled flag */
};

struct acpi_info {
	/* The RSDP that was used, and where it came from. */
	bool rsdp_from_loader; /* the copy passed in; else found by a scan */
	uint64_t rsdp_pa;      /* where the scan found it (0 for the copy) */
	uint8_t rsdp_revision;
	char oem_id[7];
	bool xsdt; /* the root table is the XSDT (else the RSDT) */
	uint64_t root_pa;

	size_t table_count; /* may exceed ACPI_MAX_TABLES */
	struct acpi_table tables[ACPI_MAX_TABLES];

	struct acpi_madt madt;
	struct acpi_fadt fadt;
	struct acpi_hpet hpet;
	struct acpi_srat srat;

	/* Printable messages naming the table and the problem, e.g.
	 * "APIC at 0x7fe1000: bad checksum: skipped"; print them after a
	 * prefix such as "acpi: ". */
	size_t error_count; /* how many problems; the first few are kept */
	char errors[ACPI_ERR_MAX][ACPI_ERR_LEN];
};

/*
 * Finds and parses the ACPI tables. rsdp_copy/rsdp_len: the RSDP the
 * loader passed (multiboot2 tags 14/15, boot_info.rsdp), or NULL/0; if it
 * is missing or invalid, the EBDA's first KiB and 0xE0000-0xFFFFF are
 * searched. Returns 0 when a valid RSDT or XSDT was found (errors[] may
 * still list bad tables or entries; madt.present says whether there was a
 * MADT), -1 when there is no usable ACPI at all.
 */
int acpi_parse(const uint8_t *rsdp_copy, size_t rsdp_len, phys_reader rd,
	       void *ctx, struct acpi_info *out);

/*
 * Records a message in out->errors (callers print them after "acpi: ");
 * counts them all, keeps the first ACPI_ERR_MAX. The parser's own, and a
 * reader's: one that refuses a range says why here (pass the acpi_info as
 * its ctx), before the parser says what it could not read.
 */
void acpi_err(struct acpi_info *ai, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The listed CPU (enabled or online-capable) with this APIC ID, or NULL. */
const struct acpi_cpu *acpi_find_cpu(const struct acpi_info *ai,
				     uint32_t apic_id);

/* The SRAT proximity domain of this APIC ID, or ACPI_NO_DOMAIN. */
uint32_t acpi_srat_domain(const struct acpi_info *ai, uint32_t apic_id);

/* The first table with this 4-character signature, or NULL. */
const struct acpi_table *acpi_find_table(const struct acpi_info *ai,
					 const char *sig);

#endif
