/* SPDX-License-Identifier: MIT */
/*
 * What must hold for any struct acpi_info the parsers of kernel/acpi*.c
 * fill, whatever the tables said: shared by fuzz_acpi.c (the whole parse)
 * and fuzz_acpi_table.c (one table body at a time).
 */
#ifndef TESTS_FUZZ_ACPI_CHECK_H
#define TESTS_FUZZ_ACPI_CHECK_H

#include "fuzz.h"
#include "kernel/acpi.h"

static inline size_t acpi_kept(size_t count, size_t max)
{
	return count < max ? count : max;
}

static inline void acpi_check_madt(const struct acpi_info *ai)
{
	const struct acpi_madt *m = &ai->madt;
	size_t listed = m->cpu_count + m->hotplug_count, x2 = 0;
	uint32_t max_id = 0;

	FUZZ_CHECK(listed <= ACPI_MAX_CPUS, "%zu + %zu CPUs", m->cpu_count,
		   m->hotplug_count);
	FUZZ_CHECK(!m->dropped_count || listed == ACPI_MAX_CPUS,
		   "%zu CPUs dropped with room left", m->dropped_count);
	for (size_t i = 0; i < listed; i++) {
		const struct acpi_cpu *c = &m->cpus[i];

		FUZZ_CHECK(c->enabled == (i < m->cpu_count),
			   "cpu %zu: enabled %d", i, c->enabled);
		FUZZ_CHECK(c->online_capable == !c->enabled,
			   "cpu %zu: online_capable %d", i, c->online_capable);
		FUZZ_CHECK(c->nmi_lint == ACPI_NO_NMI || c->nmi_lint <= 1,
			   "cpu %zu: LINT%u", i, c->nmi_lint);
		/* The kernel brings CPUs up by APIC ID: never twice. */
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(m->cpus[j].apic_id != c->apic_id,
				   "APIC ID 0x%x listed twice", c->apic_id);
		FUZZ_CHECK(acpi_find_cpu(ai, c->apic_id) == c,
			   "acpi_find_cpu(0x%x)", c->apic_id);
		x2 += c->x2apic;
		if (c->apic_id > max_id)
			max_id = c->apic_id;
	}
	FUZZ_CHECK(x2 == m->x2apic_count, "x2apic_count %zu, %zu listed",
		   m->x2apic_count, x2);
	FUZZ_CHECK(max_id == m->max_apic_id, "max_apic_id 0x%x, 0x%x listed",
		   m->max_apic_id, max_id);
	for (size_t i = 0; i < acpi_kept(m->nmi_count, ACPI_MAX_NMIS); i++)
		FUZZ_CHECK(m->nmis[i].lint <= 1, "nmi %zu: LINT%u", i,
			   m->nmis[i].lint);
	if (!m->present)
		FUZZ_CHECK(!listed && !m->ioapic_count && !m->iso_count,
			   "no MADT, yet CPUs or IOAPICs");
}

static inline void acpi_check_info(const struct acpi_info *ai)
{
	for (size_t i = 0; i < acpi_kept(ai->error_count, ACPI_ERR_MAX); i++)
		fuzz_check_printable(ai->errors[i], ACPI_ERR_LEN);
	fuzz_check_printable(ai->oem_id, sizeof(ai->oem_id));
	for (size_t i = 0; i < acpi_kept(ai->table_count, ACPI_MAX_TABLES);
	     i++) {
		const struct acpi_table *t = &ai->tables[i];

		fuzz_check_printable(t->sig, sizeof(t->sig));
		fuzz_check_printable(t->oem_id, sizeof(t->oem_id));
		FUZZ_CHECK(!t->ok || t->length >= 36, "table %zu ok, %u bytes",
			   i, t->length);
	}
	acpi_check_madt(ai);
	if (ai->fadt.present)
		FUZZ_CHECK(ai->fadt.length >= 116, "FADT of %u bytes",
			   ai->fadt.length);
	if (ai->fadt.reset)
		FUZZ_CHECK(ai->fadt.reset_reg.addr, "reset to address 0");
	if (ai->fadt.pm_timer)
		FUZZ_CHECK(ai->fadt.pm_timer_reg.addr, "PM timer at 0");
	for (size_t i = 0; i < acpi_kept(ai->srat.cpu_count, ACPI_MAX_CPUS);
	     i++) {
		uint32_t id = ai->srat.cpus[i].apic_id;
		size_t first = 0;

		/* The first entry for an APIC ID is the one that counts. */
		while (ai->srat.cpus[first].apic_id != id)
			first++;
		FUZZ_CHECK(
			acpi_srat_domain(ai, id) == ai->srat.cpus[first].domain,
			"SRAT: APIC ID 0x%x: domain %u, first entry %u", id,
			acpi_srat_domain(ai, id), ai->srat.cpus[first].domain);
	}
}

#endif
