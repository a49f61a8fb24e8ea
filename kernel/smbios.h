/* SPDX-License-Identifier: MIT */
/*
 * SMBIOS (DMTF DSP0134): who made the machine and its firmware, for the env
 * record: type 0 (BIOS vendor and version) and type 1 (system manufacturer
 * and product name); and type 4, one per processor socket, whose core and
 * thread counts the bring-up verdict holds the MADT's CPU list against
 * (smp/cpucount.h). Portable: physical memory is read only through a
 * phys_reader, and only where the firmware's memory map says there is RAM
 * or reserved memory (the BIOS ROM area is reserved in E820), so host tests
 * run it on captured tables (tests/unit/data/smbios).
 *
 * Where the entry point is:
 *   - BIOS boot: the anchor "_SM3_" (3.x, 64-bit entry point) or "_SM_"
 *     (2.x, 32-bit) on a 16-byte boundary in 0xF0000-0xFFFFF; 3.x is
 *     preferred when both are there, as Linux's dmi_scan does.
 *   - UEFI boot: the EFI system table's configuration table, the entries
 *     with the SMBIOS3 or SMBIOS GUID.
 * Every length is bounded: the structure table by the entry point's length
 * (2.x) or maximum size (3.x) and SMBIOS_TABLE_MAX, each structure and its
 * strings by the table. A bad checksum or a malformed table leaves every
 * field empty and says why in `error`.
 */
#ifndef KERNEL_SMBIOS_H
#define KERNEL_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "multiboot.h"

#define SMBIOS_STR_MAX	 64	    /* bytes kept of a string, with NUL */
#define SMBIOS_TABLE_MAX (1u << 20) /* a structure table larger is refused */
#define SMBIOS_EFI_MAX	 256	    /* configuration table entries looked at */
#define SMBIOS_SCAN_LO	 0xf0000u
#define SMBIOS_SCAN_HI	 0x100000u

/*
 * What the type 4 (processor) structures say, one per socket. Counts are
 * sums over the populated sockets; a field any of them leaves unknown
 * (0, or 0xFF with no 3.0 "Count 2" field to read, or a structure too
 * short to hold it) has its bit in `unknown`, and its sum means nothing.
 */
#define SMBIOS_CPU_CORES	   (1u << 0)
#define SMBIOS_CPU_CORES_ENABLED   (1u << 1)
#define SMBIOS_CPU_THREADS	   (1u << 2)
#define SMBIOS_CPU_THREADS_ENABLED (1u << 3)

struct smbios_cpus {
	unsigned structs;  /* type 4 structures in the table */
	unsigned sockets;  /* of them, sockets the status calls populated */
	unsigned disabled; /* of those, the status says disabled (BIOS/user) */
	unsigned cores, cores_enabled, threads, threads_enabled;
	unsigned unknown; /* SMBIOS_CPU_* bits */
	/*
	 * The fewest logical CPUs the firmware says are enabled: per
	 * populated socket not disabled, Thread Enabled (3.6), else Core
	 * Enabled (each enabled core has a thread; SMT may be off), else 1
	 * if its status says enabled or idle. 0: the table cannot tell.
	 */
	unsigned cpus_min;
	/*
	 * The most logical CPUs they may have enabled: per socket not
	 * disabled, Thread Enabled, else Core Enabled times the threads per
	 * core (Thread Count / Core Count, rounded up); 0 where a socket
	 * leaves that unknown. And whether any socket says cores or threads
	 * are off (Core Enabled < Core Count, Thread Enabled < Thread Count):
	 * CPUID may count those (Intel's leaf 0xB gives the package as
	 * shipped), the MADT will not.
	 */
	unsigned cpus_max;
	bool some_off;
	bool max_unknown; /* a socket left cpus_max unknown */
};

struct smbios_info {
	bool found; /* an entry point was found */
	bool ok;    /* and its table parsed: the strings below are valid */
	unsigned major, minor; /* the entry point's version */
	uint64_t entry_pa, table_pa;
	uint32_t table_len;
	/* Empty when the structure or string is absent. */
	char bios_vendor[SMBIOS_STR_MAX], bios_version[SMBIOS_STR_MAX];
	char sys_vendor[SMBIOS_STR_MAX], product[SMBIOS_STR_MAX];
	struct smbios_cpus cpus; /* type 4 (zero unless ok) */
	char error[96]; /* why not ok (empty if ok, or if nothing was found) */
};

/*
 * Whether [pa, pa + len) lies in one region of the map that is usable RAM
 * or reserved (firmware ROM and tables); false for anything else, for an
 * empty map and for a range that wraps.
 */
bool smbios_range_ok(const struct boot_info *bi, uint64_t pa, uint64_t len);

/*
 * Finds the entry point (the EFI configuration table when efi_systab is
 * not 0, else the BIOS area scan) and parses the table into *out. Every
 * read goes through rd, after smbios_range_ok() on bi's map.
 */
void smbios_read(const struct boot_info *bi, uint64_t efi_systab,
		 phys_reader rd, void *ctx, struct smbios_info *out);

/*
 * Parses a structure table of len bytes already read into *out (the
 * strings of type 0 and 1, the first of each type counting; every type 4
 * into out->cpus). Returns false
 * (with out->error) if it is malformed.
 */
bool smbios_parse_table(const uint8_t *t, size_t len, struct smbios_info *out);

/*
 * Adds one type 4 structure of len bytes (its formatted part, header
 * included; len >= 4) to *acc (kernel/smbios_cpu.c).
 */
void smbios_cpus_add(const uint8_t *s, size_t len, struct smbios_cpus *acc);

/*
 * Says what *c holds in words ("2 populated sockets: 4 cores, 4 enabled;
 * 4 threads, enabled: not given") into buf (cap bytes).
 */
void smbios_cpus_describe(const struct smbios_cpus *c, char *buf, size_t cap);

#endif
