/* SPDX-License-Identifier: MIT */
/*
 * The bring-up verdict, "smp: bringup: all cpus online": every CPU the
 * run meant to start is online, and the firmware's list of CPUs (the
 * MADT) is not shorter than what CPUID says the boot CPU's package alone
 * holds, nor than the enabled CPUs SMBIOS type 4 counts over every socket
 * (CPUID sees one package: a MADT listing socket 0 of 2 fools it). A run
 * that sees one CPU of a machine that has more must not pass: its
 * experiments measured nothing across CPUs (issue 19: iPXE's memory map
 * left the ACPI tables unread, and a 2-CPU run passed on 1).
 *
 * Portable: the counts come in as values (smp/smp.c gathers them from the
 * MADT, CPUID and the bring-up, smp/cpucount_smbios.c reads SMBIOS), the
 * verdict and its words go out.
 */
#ifndef SMP_CPUCOUNT_H
#define SMP_CPUCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/acpi.h"

enum cpucount_verdict { CPUCOUNT_PASS, CPUCOUNT_FAIL, CPUCOUNT_SKIP };

struct cpucount {
	unsigned online;  /* CPUs online after bring-up */
	unsigned started; /* CPUs bring-up meant to have (cpus= may cut) */
	unsigned limit;	  /* cpus=N, or 0 */
	/* CPUs the firmware lists (the boot CPU counted), 0 for none, and
	 * how the tables came to that (cpucount_firmware). */
	unsigned firmware;
	const char *firmware_why;
	/* CPUID: logical CPUs of the boot CPU's package, 0: unknown. */
	unsigned package;
	const char *package_source;
	/* SMBIOS type 4: the fewest enabled logical CPUs of all sockets
	 * (struct smbios_cpus' cpus_min), 0: unknown; and its words. */
	unsigned smbios;
	const char *smbios_why;
	/* And the most they may have enabled (cpus_max; 0: unknown), and
	 * whether they say cores or threads are turned off (some_off). */
	unsigned smbios_max;
	bool smbios_off;
};

/*
 * The CPUs the MADT lists as enabled or online-capable (hot-pluggable:
 * accounted for, if not started), and, where the boot CPU is listed
 * usable, the entries neither enabled nor online-capable (hot-plug slots,
 * as QEMU's maxcpus= lists them); plus the boot CPU where the MADT leaves
 * it out; 0 without a MADT. parsed: acpi_parse()'s result was 0. why
 * (cap bytes) says how the tables came to it, e.g. "no usable MADT
 * (acpi: APIC at 0x...: bad checksum ...)".
 */
unsigned cpucount_firmware(const struct acpi_info *ai, bool parsed,
			   uint32_t boot_apic_id, char *why, size_t cap);

/*
 * PASS, FAIL or SKIP, and for the last two the reason in why (cap
 * bytes):
 *  - FAIL when a CPU meant to start is not online ("2 of 4 online");
 *  - FAIL when CPUID counts more CPUs in this package than the firmware
 *    lists, or the firmware lists none and CPUID counts more than one;
 *    unless SMBIOS says cores or threads are turned off and the firmware
 *    lists all SMBIOS says may be enabled (CPUID may count a package as
 *    shipped);
 *  - FAIL likewise when SMBIOS counts more enabled CPUs than the firmware
 *    lists (the boot CPU accounted for where it lists none); a BIOS that
 *    turned cores or SMT off says so in Core/Thread Enabled, so it passes;
 *  - SKIP when nothing can be known: one CPU and CPUID gives no count,
 *    or the firmware lists none and CPUID says the package has one (other
 *    packages may exist; nothing says so);
 *  - PASS otherwise. cpus= cuts what is started, not what is compared.
 */
enum cpucount_verdict cpucount_judge(const struct cpucount *c, char *why,
				     size_t cap);

struct smbios_info;

/*
 * SMBIOS as the firmware gives it, read once through the firmware
 * mappings (smp/cpucount_smbios.c); the env record's smbios and
 * cpus_smbios fields print the same.
 */
const struct smbios_info *cpucount_smbios_info(void);

#endif
