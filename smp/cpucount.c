// SPDX-License-Identifier: MIT
/*
 * The bring-up verdict from the firmware's and CPUID's counts (see
 * cpucount.h).
 */
#include "smp/cpucount.h"
#include "lib/printf.h"

unsigned cpucount_firmware(const struct acpi_info *ai, bool parsed,
			   uint32_t boot_apic_id, char *why, size_t cap)
{
	const struct acpi_madt *m = &ai->madt;
	const char *first = ai->error_count ? ai->errors[0] : NULL;
	size_t n, slots;
	bool boot_listed;

	if (!parsed || !m->present) {
		ksnprintf(why, cap, "%s%s%s%s",
			  parsed ? "no usable MADT" : "no usable ACPI tables",
			  first ? " (acpi: " : "", first ? first : "",
			  first ? ")" : "");
		return 0;
	}
	boot_listed = acpi_find_cpu(ai, boot_apic_id) != NULL;
	/* Entries neither enabled nor online-capable are hot-plug slots
	 * where the boot CPU is listed usable (QEMU's -smp 2,maxcpus=4
	 * lists 2 so, and CPUID counts all 4; Linux counts them as
	 * possible CPUs); a MADT that disables the boot CPU itself is wrong,
	 * and its disabled entries account for nothing. */
	slots = boot_listed ? m->disabled_count : 0;
	n = m->cpu_count + m->hotplug_count + slots + !boot_listed;
	ksnprintf(why, cap,
		  "the MADT lists %zu enabled cpu%s, %zu online-capable, %zu "
		  "neither enabled nor online-capable%s%s%s",
		  m->cpu_count, m->cpu_count == 1 ? "" : "s", m->hotplug_count,
		  m->disabled_count, slots ? " (counted: hot-plug slots)" : "",
		  m->dropped_count ? ", and more than it can keep" : "",
		  boot_listed ? "" : "; the boot cpu, not listed, counted");
	return (unsigned)n;
}

/*
 * Whether SMBIOS explains a CPUID count above the firmware's: cores or
 * threads turned off in the setup, and the firmware listing every CPU
 * SMBIOS says may be enabled.
 */
static bool off_explains(const struct cpucount *c)
{
	return c->smbios_off && c->smbios_max && c->firmware >= c->smbios_max;
}

enum cpucount_verdict cpucount_judge(const struct cpucount *c, char *why,
				     size_t cap)
{
	char limit[32] = "";

	if (c->limit)
		ksnprintf(limit, sizeof(limit), " (cpus=%u)", c->limit);
	if (c->online != c->started) {
		ksnprintf(why, cap, "%u of %u online", c->online, c->started);
		return CPUCOUNT_FAIL;
	}
	if (c->package && c->firmware < c->package &&
	    !(c->firmware == 0 && c->package == 1) && !off_explains(c)) {
		ksnprintf(why, cap,
			  "%u of %u online%s, but %s says this package alone "
			  "has %u logical cpus and the firmware tables list "
			  "%u: %s",
			  c->online, c->started, limit, c->package_source,
			  c->package, c->firmware, c->firmware_why);
		return CPUCOUNT_FAIL;
	}
	if (c->smbios > (c->firmware ? c->firmware : 1)) {
		ksnprintf(why, cap,
			  "%u of %u online%s, but SMBIOS type 4 counts %u "
			  "enabled cpus (%s) and the firmware tables list "
			  "%u: %s",
			  c->online, c->started, limit, c->smbios,
			  c->smbios_why ? c->smbios_why : "", c->firmware,
			  c->firmware_why);
		return CPUCOUNT_FAIL;
	}
	if (!c->firmware || (!c->package && c->firmware <= 1)) {
		char cpuid[64];

		if (c->package)
			ksnprintf(cpuid, sizeof(cpuid),
				  "%s says this package has 1 cpu",
				  c->package_source);
		else
			ksnprintf(
				cpuid, sizeof(cpuid),
				"CPUID gives no count of this package's cpus");
		ksnprintf(why, cap,
			  "%u of %u online%s; %s and the firmware tables list "
			  "%u (%s): whether the machine has more cannot be "
			  "known",
			  c->online, c->started, limit, cpuid, c->firmware,
			  c->firmware_why);
		return CPUCOUNT_SKIP;
	}
	return CPUCOUNT_PASS;
}
