// SPDX-License-Identifier: MIT
/*
 * From the firmware's CPU list to every CPU online: ACPI, the APIC, which
 * CPUs to start (cpus=, APIC ID limits), bring-up, and the TSC offsets.
 */
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "lib/json.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "kernel/tsc.h"
#include "mm/vm.h"
#include "smp/apic.h"
#include "smp/idle.h"
#include "smp/initwait.h"
#include "smp/percpu.h"
#include "smp/concurrency.h"
#include "smp/smp.h"

struct acpi_info acpi;
struct smp_stats smp_stats;
struct topo_layout topo;
static uint64_t unmasked_ioapic; /* one the MADT lists that was not masked */

static void cpuid_here(void *ctx, uint32_t leaf, uint32_t subleaf,
		       struct topo_regs *r)
{
	struct cpuid_regs x = cpuid_count(leaf, subleaf);

	(void)ctx;
	*r = (struct topo_regs){x.eax, x.ebx, x.ecx, x.edx};
}

unsigned smp_cpu_in_class(enum topo_class c)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online)
		if (cpu &&
		    topo_classify(&topo, cpu_apic_id[0], cpu_apic_id[cpu]) == c)
			return cpu;
	return 0;
}

unsigned smp_classes_present(void)
{
	unsigned n = 0;

	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++)
		n += smp_cpu_in_class((enum topo_class)k) != 0;
	return n;
}

void smp_env_topology(struct json *j)
{
	static uint32_t ids[MAX_CPUS];
	struct topo_summary s;
	size_t n = 0;
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online)
		ids[n++] = cpu_apic_id[cpu];
	topo_summarize(&topo, ids, n, &s);
	json_begin_object(j, "topology");
	json_str(j, "source", topo_source_name(topo.source));
	json_u64(j, "packages", s.packages);
	json_u64(j, "dies", s.dies);
	json_u64(j, "l3s", s.l3s);
	json_u64(j, "cores", s.cores);
	json_u64(j, "threads_per_core", s.max_threads_per_core);
	json_begin_object(j, "classes");
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++) {
		unsigned count = 0;

		for_each_cpu(cpu, &cpus_online)
			count += cpu && topo_classify(&topo, cpu_apic_id[0],
						      cpu_apic_id[cpu]) ==
						(enum topo_class)k;
		json_u64(j, topo_class_name((enum topo_class)k), count);
	}
	json_end_object(j);
	json_end_object(j);
}

/*
 * A table at an address no firmware data can be at is named, not read;
 * one in memory the map does not list is read (kernel/fwread.h), and
 * smp_report() says so.
 */
static const void *acpi_reader(void *ctx, uint64_t pa, size_t len)
{
	const char *why;

	if (firmware_read_class(pa, len, &why) == FW_READ_REFUSED) {
		acpi_err(ctx, "0x%llx (%zu bytes): %s: not read",
			 (unsigned long long)pa, len, why);
		return NULL;
	}
	return phys_map_firmware(pa, len);
}

static void read_acpi(void)
{
	const uint8_t *rsdp = boot_info.rsdp_len ? boot_info.rsdp : NULL;

	/* Problems end up in acpi.errors (smp_report); no MADT: one CPU. */
	smp_stats.acpi_parsed = !acpi_parse(rsdp, boot_info.rsdp_len,
					    acpi_reader, &acpi, &acpi);
	if (acpi.madt.present)
		smp_stats.cpus_madt = (unsigned)acpi.madt.cpu_count;
	if (acpi.fadt.reset) {
		const struct acpi_gas *g = &acpi.fadt.reset_reg;
		bool io = g->space == ACPI_GAS_IO;

		if (io || g->space == ACPI_GAS_MEMORY)
			exit_set_reset_register(
				io, g->addr, io ? NULL : mmio_map(g->addr, 1),
				acpi.fadt.reset_value);
	}
}

/* cpu_apic_id[1..]: the MADT's enabled CPUs other than this one. */
static unsigned list_cpus(void)
{
	unsigned n = 1;

	for (size_t i = 0; i < acpi.madt.cpu_count; i++) {
		uint32_t id = acpi.madt.cpus[i].apic_id;

		if (id == cpu_apic_id[0])
			continue;
		if (id > apic_max_id()) {
			report_info(
				"smp: cpu with apic id %u cannot be reached "
				"in %s mode: left out",
				id, apic_mode_name());
			continue;
		}
		if (n == MAX_CPUS) {
			report_info("smp: more than %u cpus: the rest are left "
				    "out",
				    MAX_CPUS);
			break;
		}
		cpu_apic_id[n++] = id;
	}
	return n;
}

/*
 * The CPUs that cpus= leaves out get INIT alone: they then wait for a
 * STARTUP IPI that never comes, instead of running whatever loop the
 * firmware left them in. OVMF parks its APs in an MWAIT loop, which TCG
 * runs as a busy loop; on hardware a spinning CPU takes time from its SMT
 * sibling.
 */
static void park_left_out(unsigned listed)
{
	for (unsigned cpu = nr_cpus; cpu < listed; cpu++)
		if (apic_send(cpu_apic_id[cpu],
			      ICR_INIT | ICR_ASSERT | ICR_LEVEL))
			smp_stats.cpus_parked++;
}

static void choose_cpus(uint64_t max_cpus)
{
	unsigned listed = acpi.madt.present ? list_cpus() : 1, n = listed;

	if (max_cpus > n)
		report_info("smp: cpus=%llu asks for more cpus than the %u "
			    "found: using %u",
			    (unsigned long long)max_cpus, n, n);
	else if (max_cpus)
		n = (unsigned)max_cpus;
	nr_cpus = n;
	smp_stats.cpus_wanted = n;
	park_left_out(listed);
}

void smp_init(const struct config *cfg)
{
	const struct idle_cpu idle_cpu = {
		.monitor = cpu_info.monitor,
		.hypervisor = cpu_info.hypervisor,
		.hv_dedicated = cpu_info.hv_dedicated,
	};
	const char *why = NULL;
	uint64_t t0;

	read_acpi();
	if (!apic_setup(acpi.madt.lapic_addr, &why)) {
		report_fail("smp: apic", "%s; running on the boot cpu only",
			    why);
		return;
	}
	for (size_t i = 0; i < acpi.madt.ioapic_count && i < ACPI_MAX_IOAPICS;
	     i++)
		if (!ioapic_mask_all(acpi.madt.ioapics[i].addr))
			unmasked_ioapic = acpi.madt.ioapics[i].addr;
	xcall_init();
	apic_init_cpu();
	cpu_apic_id[0] = apic_read_id();
	percpu[0]->apic_id = cpu_apic_id[0];
	choose_cpus(cfg->cpus);
	smp_stats.init_wait =
		smp_init_wait(cfg->init_wait, cpu_info.vendor, cpu_info.family,
			      cpu_info.hypervisor, &smp_stats.init_wait_why);
	smp_stats.idle_requested = cfg->idle;
	smp_stats.idle =
		smp_idle_choose(cfg->idle, &idle_cpu, &smp_stats.idle_why);
	t0 = rdtsc_ordered();
	if (!smp_start_aps(mm_stats.trampoline, smp_stats.init_wait, &why))
		report_fail("smp: bringup", "%s; running on the boot cpu only",
			    why);
	smp_stats.bringup_cycles = rdtsc_ordered() - t0;
	xcall_install_stop();
	topo_probe(cpuid_here, NULL, &topo);
	topo_package_cpus(cpuid_here, NULL, &smp_stats.cpus_package);
	smp_stats.cpus_limit = (unsigned)cfg->cpus;
	smp_measure_tsc();
	smp_probe_concurrency(
		CONCURRENCY_BRINGUP); /* before anything uses it */
}

/*
 * ACPI tables that lie in memory the memory map does not list, as under
 * iPXE, whose map lists usable RAM only: read all the same (fwread.h).
 */
static void report_unlisted_tables(void)
{
	size_t n = acpi.table_count < ACPI_MAX_TABLES ? acpi.table_count
						      : ACPI_MAX_TABLES;
	unsigned count = 0, valid = 0, usable = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	const char *why;

	for (size_t i = 0; i < n; i++) {
		const struct acpi_table *t = &acpi.tables[i];
		uint64_t len = t->ok ? t->length : 36;

		if (firmware_read_class(t->pa, len, &why) != FW_READ_UNLISTED)
			continue;
		count++;
		valid += t->ok;
		lo = t->pa < lo ? t->pa : lo;
		hi = t->pa + len > hi ? t->pa + len : hi;
	}
	if (!count)
		return;
	for (size_t i = 0; i < boot_info.mmap_count; i++)
		usable += boot_info.mmap[i].type == MEM_USABLE;
	report_info("smp: acpi: %u table%s (%u valid) at %#llx-%#llx lie in "
		    "memory the memory map does not list (%zu entries, %u of "
		    "them usable RAM): read all the same, as the RSDP points: "
		    "below the %u-bit physical address width, each checked "
		    "by signature, length and checksum, through read-only "
		    "mappings; never written, never given to the allocator",
		    count, count == 1 ? "" : "s", valid, (unsigned long long)lo,
		    (unsigned long long)hi - 1, boot_info.mmap_count, usable,
		    cpu_info.phys_bits);
}

void smp_report(void)
{
	for (size_t i = 0; i < acpi.error_count && i < ACPI_ERR_MAX; i++)
		report_info("smp: acpi: %s", acpi.errors[i]);
	report_unlisted_tables();
	if (!acpi.madt.present)
		report_info(
			"smp: no usable MADT: running on the boot cpu only");
	else if (!acpi.madt.cpu_count)
		report_info("smp: the MADT lists no usable cpu (%zu entries "
			    "neither enabled nor online-capable, %zu only "
			    "online-capable): running on the boot cpu only",
			    acpi.madt.disabled_count, acpi.madt.hotplug_count);
	else if (!acpi_find_cpu(&acpi, cpu_apic_id[0]))
		report_info("smp: the boot cpu (APIC ID %u) is not in the "
			    "MADT: it runs all the same",
			    cpu_apic_id[0]);
	if (unmasked_ioapic)
		report_info("smp: the MADT's IOAPIC at %#llx could not be "
			    "mapped (see mm:): left alone, its inputs not "
			    "masked",
			    (unsigned long long)unmasked_ioapic);
	/* Of the CPUs the MADT lists, or of the boot CPU where it lists none */
	report_info("smp: %u of %u cpus online in %s mode; bring-up took %llu "
		    "us",
		    cpumask_count(&cpus_online),
		    smp_stats.cpus_madt ? smp_stats.cpus_madt : nr_cpus,
		    apic_mode_name(),
		    (unsigned long long)(tsc_to_ns(smp_stats.bringup_cycles) /
					 1000));
	if (smp_stats.cpus_parked)
		report_info("smp: cpus=%u leaves %u cpus out: they got INIT "
			    "alone and wait for a STARTUP IPI",
			    nr_cpus, smp_stats.cpus_parked);
	if (nr_cpus > 1)
		report_info("smp: bring-up %s the 10 ms wait after INIT (%s); "
			    "%u STARTUP IPIs to %u cpus",
			    smp_stats.init_wait ? "with" : "without",
			    smp_stats.init_wait_why, smp_stats.sipis,
			    nr_cpus - 1);
	if (nr_cpus > 1)
		report_info("smp: idle cpus wait in %s (%s)",
			    smp_idle_name(smp_stats.idle), smp_stats.idle_why);
	report_info("smp: largest TSC offset from cpu 0: %lld cycles; %s",
		    (long long)smp_stats.tsc_max_offset,
		    smp_stats.tsc_trusted
			    ? "cross-cpu TSC comparisons can be trusted"
			    : "cross-cpu TSC comparisons cannot be trusted "
			      "(TSC not invariant, or offsets too large)");
}
