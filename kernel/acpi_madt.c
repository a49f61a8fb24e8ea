// SPDX-License-Identifier: MIT
/*
 * MADT ("APIC", ACPI 5.2.12): the CPUs, IOAPICs, ISA interrupt overrides
 * and the LINT pins wired to NMI.
 *
 * Two passes over the entries: the first collects everything but the NMI
 * entries, the second applies each NMI entry to the CPUs it names by ACPI
 * processor UID. Firmware often lists one NMI entry per CPU, after the
 * CPUs; a second pass needs no list of them and no ordering assumption.
 */
#include "acpi_internal.h"
#include "lib/kstring.h"

/* Fixed fields after the header (ACPI 5.2.12). */
#define MADT_LAPIC_ADDR 36 /* 32-bit local APIC address */
#define MADT_FLAGS	40 /* bit 0: PCAT_COMPAT, dual 8259s present */
#define MADT_ENTRIES	44

/* Interrupt controller structure types, their sizes and fields. */
enum {
	MADT_LAPIC = 0,	 /* 8: uid u8 @2, APIC ID u8 @3, flags u32 @4 */
	MADT_IOAPIC = 1, /* 12: id @2, address u32 @4, GSI base u32 @8 */
	MADT_ISO = 2,	 /* 10: bus @2, source @3, GSI u32 @4, flags u16 @8 */
	MADT_LAPIC_NMI = 4, /* 6: uid u8 @2 (0xff all), flags u16 @3, LINT @5 */
	MADT_LAPIC_ADDR_OVR = 5, /* 12: 64-bit local APIC address @4 */
	MADT_X2APIC = 9, /* 16: x2APIC ID u32 @4, flags u32 @8, uid u32 @12 */
	MADT_X2APIC_NMI = 10, /* 12: flags u16 @2, uid u32 @4, LINT @8 */
};

/*
 * Local APIC flags (5.2.12.2), the same for x2APIC entries: bit 0
 * Enabled; bit 1 Online Capable (ACPI 6.3+), "If the Enabled bit is set,
 * this bit is reserved and must be zero. Otherwise, if this bit is set,
 * system hardware supports enabling this processor during OS runtime."
 */
#define LAPIC_ENABLED	     (1u << 0)
#define LAPIC_ONLINE_CAPABLE (1u << 1)

#define NMI_ALL_8	     0xffu
#define NMI_ALL_32	     0xffffffffu

struct madt_walk {
	struct acpi_info *ai;
	struct acpi_madt *m;
	size_t hot_top; /* hotplug CPUs fill cpus[] from the end down */
	bool full_reported;
};

static struct acpi_cpu *cpu_lookup(struct madt_walk *mw, uint32_t apic_id)
{
	struct acpi_madt *m = mw->m;

	for (size_t i = 0; i < m->cpu_count; i++) {
		if (m->cpus[i].apic_id == apic_id)
			return &m->cpus[i];
	}
	for (size_t i = mw->hot_top; i < ACPI_MAX_CPUS; i++) {
		if (m->cpus[i].apic_id == apic_id)
			return &m->cpus[i];
	}
	return NULL;
}

static void cpu_add(struct madt_walk *mw, uint32_t apic_id, uint32_t uid,
		    uint32_t flags, bool x2apic)
{
	struct acpi_madt *m = mw->m;
	bool enabled = flags & LAPIC_ENABLED;
	struct acpi_cpu *c;

	/* A processor that can never run: firmware lists spare slots so. */
	if (!enabled && !(flags & LAPIC_ONLINE_CAPABLE)) {
		m->disabled_count++;
		return;
	}
	c = cpu_lookup(mw, apic_id);
	if (c) {
		acpi_err(mw->ai,
			 "APIC: APIC ID 0x%x (uid %u) listed again "
			 "(uid %u): first entry kept",
			 apic_id, c->uid, uid);
		return;
	}
	if (m->cpu_count + (ACPI_MAX_CPUS - mw->hot_top) == ACPI_MAX_CPUS) {
		if (!mw->full_reported)
			acpi_err(mw->ai,
				 "APIC: more than %u CPUs: rest ignored",
				 ACPI_MAX_CPUS);
		mw->full_reported = true;
		m->dropped_count++;
		return;
	}
	c = enabled ? &m->cpus[m->cpu_count++] : &m->cpus[--mw->hot_top];
	c->apic_id = apic_id;
	c->uid = uid;
	c->domain = ACPI_NO_DOMAIN;
	c->enabled = enabled;
	c->online_capable = !enabled;
	c->x2apic = x2apic;
	c->nmi_lint = ACPI_NO_NMI;
	c->nmi_flags = 0;
	m->x2apic_count += x2apic;
	if (apic_id > m->max_apic_id)
		m->max_apic_id = apic_id;
}

static void ioapic_add(struct acpi_madt *m, const uint8_t *e)
{
	struct acpi_ioapic *io;

	if (m->ioapic_count++ >= ACPI_MAX_IOAPICS)
		return;
	io = &m->ioapics[m->ioapic_count - 1];
	io->id = e[2];
	io->addr = acpi_get32(e + 4);
	io->gsi_base = acpi_get32(e + 8);
}

static void iso_add(struct acpi_madt *m, const uint8_t *e)
{
	struct acpi_iso *iso;

	if (m->iso_count++ >= ACPI_MAX_ISOS)
		return;
	iso = &m->isos[m->iso_count - 1];
	iso->bus = e[2];
	iso->irq = e[3];
	iso->gsi = acpi_get32(e + 4);
	iso->flags = acpi_get16(e + 8);
}

static void lapic_override(struct madt_walk *mw, const uint8_t *e)
{
	if (mw->m->lapic_override) {
		acpi_err(mw->ai, "APIC: second local APIC address override: "
				 "ignored");
		return;
	}
	mw->m->lapic_override = true;
	mw->m->lapic_addr = acpi_get64(e + 4);
}

/* First pass: one entry (the walker checked it fits in the table). */
static void entry_add(struct madt_walk *mw, const struct acpi_walk *w,
		      const uint8_t *e)
{
	struct acpi_info *ai = mw->ai;

	switch (e[0]) {
	case MADT_LAPIC:
		if (acpi_entry_fits(ai, w, e, 8))
			cpu_add(mw, e[3], e[2], acpi_get32(e + 4), false);
		break;
	case MADT_X2APIC:
		if (acpi_entry_fits(ai, w, e, 16))
			cpu_add(mw, acpi_get32(e + 4), acpi_get32(e + 12),
				acpi_get32(e + 8), true);
		break;
	case MADT_IOAPIC:
		if (acpi_entry_fits(ai, w, e, 12))
			ioapic_add(mw->m, e);
		break;
	case MADT_ISO:
		if (acpi_entry_fits(ai, w, e, 10))
			iso_add(mw->m, e);
		break;
	case MADT_LAPIC_ADDR_OVR:
		if (acpi_entry_fits(ai, w, e, 12))
			lapic_override(mw, e);
		break;
	default:
		break; /* NMIs: second pass; others: not used here */
	}
}

/* Applies an NMI entry to the CPUs with that UID (or all of them). */
static void nmi_apply(struct madt_walk *mw, const struct acpi_nmi *n)
{
	struct acpi_madt *m = mw->m;
	uint32_t all = n->x2apic ? NMI_ALL_32 : NMI_ALL_8;

	if (n->lint > 1) {
		acpi_err(mw->ai,
			 "APIC: NMI entry for uid 0x%x names LINT%u: "
			 "ignored",
			 n->uid, n->lint);
		return;
	}
	for (size_t i = 0; i < m->cpu_count + m->hotplug_count; i++) {
		struct acpi_cpu *c = &m->cpus[i];

		if (n->uid != all && c->uid != n->uid)
			continue;
		c->nmi_lint = n->lint;
		c->nmi_flags = n->flags;
	}
	/* One for a UID that is not listed is normal (spare slots). */
	if (m->nmi_count++ < ACPI_MAX_NMIS)
		m->nmis[m->nmi_count - 1] = *n;
}

/* Second pass: the NMI entries. */
static void entry_nmi(struct madt_walk *mw, const struct acpi_walk *w,
		      const uint8_t *e)
{
	struct acpi_nmi n = {0};

	if (e[0] == MADT_LAPIC_NMI && acpi_entry_fits(mw->ai, w, e, 6)) {
		n.uid = e[2];
		n.flags = acpi_get16(e + 3);
		n.lint = e[5];
	} else if (e[0] == MADT_X2APIC_NMI &&
		   acpi_entry_fits(mw->ai, w, e, 12)) {
		n.uid = acpi_get32(e + 4);
		n.flags = acpi_get16(e + 2);
		n.lint = e[8];
		n.x2apic = true;
	} else {
		return;
	}
	nmi_apply(mw, &n);
}

/*
 * The hotplug CPUs were stored from the end of cpus[] down: put them in
 * MADT order, then right after the enabled ones (moving down is safe:
 * cpu_count <= hot_top).
 */
static void cpus_pack(struct madt_walk *mw)
{
	struct acpi_madt *m = mw->m;
	size_t n = ACPI_MAX_CPUS - mw->hot_top;
	struct acpi_cpu tmp;

	for (size_t i = 0; i < n / 2; i++) {
		tmp = m->cpus[mw->hot_top + i];
		m->cpus[mw->hot_top + i] = m->cpus[ACPI_MAX_CPUS - 1 - i];
		m->cpus[ACPI_MAX_CPUS - 1 - i] = tmp;
	}
	for (size_t i = 0; i < n; i++)
		m->cpus[m->cpu_count + i] = m->cpus[mw->hot_top + i];
	m->hotplug_count = n;
}

void acpi_parse_madt(struct acpi_info *ai, const uint8_t *t, uint32_t len)
{
	struct madt_walk mw = {.ai = ai, .m = &ai->madt};
	struct acpi_walk w = {.t = t, .len = len, .sig = "APIC"};
	const uint8_t *e;

	kmemset(mw.m, 0, sizeof(*mw.m));
	mw.hot_top = ACPI_MAX_CPUS;
	if (len < MADT_ENTRIES) {
		acpi_err(ai,
			 "APIC: %u bytes, too short for its fields: "
			 "skipped",
			 len);
		return;
	}
	mw.m->present = true;
	mw.m->lapic_addr = acpi_get32(t + MADT_LAPIC_ADDR);
	mw.m->pcat_compat = acpi_get32(t + MADT_FLAGS) & 1;

	w.off = MADT_ENTRIES;
	while ((e = acpi_walk_next(ai, &w)))
		entry_add(&mw, &w, e);
	cpus_pack(&mw);

	w.off = MADT_ENTRIES;
	w.quiet = true;
	while ((e = acpi_walk_next(ai, &w)))
		entry_nmi(&mw, &w, e);
	if (mw.m->ioapic_count > ACPI_MAX_IOAPICS)
		acpi_err(ai, "APIC: %zu IOAPICs, only %u kept",
			 mw.m->ioapic_count, ACPI_MAX_IOAPICS);
	if (mw.m->iso_count > ACPI_MAX_ISOS)
		acpi_err(ai, "APIC: %zu interrupt overrides, only %u kept",
			 mw.m->iso_count, ACPI_MAX_ISOS);
}
