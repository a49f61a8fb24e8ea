// SPDX-License-Identifier: MIT
/*
 * The smaller tables: FADT (PM timer, reset register), HPET and SRAT
 * (NUMA proximity domains), and the entry walker shared with the MADT.
 */
#include "acpi_internal.h"
#include "lib/kstring.h"

const uint8_t *acpi_walk_next(struct acpi_info *ai, struct acpi_walk *w)
{
	const uint8_t *e = w->t + w->off;
	uint32_t left = w->len - w->off;

	if (w->off >= w->len)
		return NULL;
	if (left < 2 || e[1] < 2 || e[1] > left) {
		if (!w->quiet && left < 2)
			acpi_err(ai, "%s: stray byte at +0x%x: ignored", w->sig,
				 w->off);
		else if (!w->quiet)
			acpi_err(ai,
				 "%s: entry at +0x%x (type %u) has length "
				 "%u%s: rest of the table ignored",
				 w->sig, w->off, e[0], e[1],
				 e[1] < 2 ? "" : ", past the end");
		w->off = w->len;
		return NULL;
	}
	w->off += e[1];
	return e;
}

bool acpi_entry_fits(struct acpi_info *ai, const struct acpi_walk *w,
		     const uint8_t *e, uint8_t min)
{
	if (e[1] >= min)
		return true;
	acpi_err(ai, "%s: type %u entry at +0x%x is %u bytes, not %u: skipped",
		 w->sig, e[0], (unsigned int)(e - w->t), e[1], min);
	return false;
}

/*
 * FADT ("FACP", ACPI 5.2.9): the offsets used. Revision 1
 * tables (ACPI 1.0, QEMU's i440fx "pc") end at 116, before RESET_REG;
 * the X_ fields (ACPI 2.0+) follow at 132.
 */
#define FADT_DSDT	 40  /* u32 */
#define FADT_PM_TMR_BLK	 76  /* u32 I/O port */
#define FADT_PM_TMR_LEN	 91  /* u8: 4 when the timer exists */
#define FADT_FLAGS	 112 /* u32 */
#define FADT_RESET_REG	 116 /* GAS */
#define FADT_RESET_VALUE 128 /* u8 */
#define FADT_X_DSDT	 140 /* u64 */
#define FADT_X_PM_TMR	 208 /* GAS */
#define FADT_V1_LEN	 116
#define GAS_LEN		 12

/* FADT Fixed Feature Flags (5.2.9.1) that matter here. */
#define FADT_TMR_VAL_EXT   (1u << 8) /* the PM timer is 32 bits, not 24 */
#define FADT_RESET_REG_SUP (1u << 10)
#define FADT_HW_REDUCED	   (1u << 20)

static bool fits(uint32_t len, uint32_t off, uint32_t size)
{
	return off + size <= len;
}

/* X_PM_TMR_BLK when it is there and set, else the I/O port PM_TMR_BLK. */
static void fadt_pm_timer(struct acpi_fadt *f, const uint8_t *t, uint32_t len)
{
	if (fits(len, FADT_X_PM_TMR, GAS_LEN)) {
		acpi_gas_get(t + FADT_X_PM_TMR, &f->pm_timer_reg);
		if (f->pm_timer_reg.addr) {
			f->pm_timer = true;
			return;
		}
	}
	if (acpi_get32(t + FADT_PM_TMR_BLK) && t[FADT_PM_TMR_LEN] >= 4) {
		f->pm_timer = true;
		f->pm_timer_reg = (struct acpi_gas){
			.space = ACPI_GAS_IO,
			.bit_width = 32,
			.addr = acpi_get32(t + FADT_PM_TMR_BLK),
		};
	}
}

static void fadt_reset(struct acpi_info *ai, const uint8_t *t, uint32_t len)
{
	struct acpi_fadt *f = &ai->fadt;

	if (!(f->flags & FADT_RESET_REG_SUP))
		return;
	if (!fits(len, FADT_RESET_VALUE, 1)) {
		acpi_err(ai,
			 "FACP: RESET_REG_SUP set but the table is only "
			 "%u bytes: no reset register",
			 len);
		return;
	}
	acpi_gas_get(t + FADT_RESET_REG, &f->reset_reg);
	f->reset_value = t[FADT_RESET_VALUE];
	f->reset = f->reset_reg.addr != 0;
}

void acpi_parse_fadt(struct acpi_info *ai, const uint8_t *t, uint32_t len)
{
	struct acpi_fadt *f = &ai->fadt;

	kmemset(f, 0, sizeof(*f));
	if (len < FADT_V1_LEN) {
		acpi_err(ai,
			 "FACP: %u bytes, shorter than ACPI 1.0's %u: "
			 "skipped",
			 len, FADT_V1_LEN);
		return;
	}
	f->present = true;
	f->revision = t[ACPI_HDR_REV];
	f->length = len;
	f->flags = acpi_get32(t + FADT_FLAGS);
	f->hw_reduced = f->flags & FADT_HW_REDUCED;
	f->pm_timer_32bit = f->flags & FADT_TMR_VAL_EXT;
	f->dsdt = acpi_get32(t + FADT_DSDT);
	if (fits(len, FADT_X_DSDT, 8) && acpi_get64(t + FADT_X_DSDT))
		f->dsdt = acpi_get64(t + FADT_X_DSDT);
	fadt_pm_timer(f, t, len);
	fadt_reset(ai, t, len);
}

/*
 * HPET (IA-PC HPET specification 1.0a, 3.2.4): Event Timer Block ID at
 * 36, base address (GAS) at 40, HPET number at 52, minimum clock tick at
 * 53; 56 bytes.
 */
void acpi_parse_hpet(struct acpi_info *ai, const uint8_t *t, uint32_t len)
{
	struct acpi_hpet *h = &ai->hpet;

	kmemset(h, 0, sizeof(*h));
	if (len < 56) {
		acpi_err(ai, "HPET: %u bytes, not 56: skipped", len);
		return;
	}
	h->present = true;
	h->block_id = acpi_get32(t + 36);
	acpi_gas_get(t + 40, &h->base);
	h->number = t[52];
	h->min_tick = acpi_get16(t + 53);
}

/*
 * SRAT (ACPI 5.2.16): 12 reserved bytes after the header, then entries.
 * Type 0, processor local APIC affinity (16 bytes): proximity domain
 * bits 7:0 @2, APIC ID @3, flags u32 @4, bits 31:8 of the domain @9..11.
 * Type 1, memory affinity (40): domain u32 @2, base u64 @8, length u64
 * @16, flags u32 @28. Type 2, x2APIC affinity (24): domain u32 @4,
 * x2APIC ID u32 @8, flags u32 @12. Flags bit 0: Enabled, "If clear, the
 * OSPM ignores the contents of the ... Affinity Structure"; memory flags
 * bit 1: hot-pluggable, bit 2: non-volatile.
 */
#define SRAT_ENTRIES 48

static void srat_cpu(struct acpi_srat *s, uint32_t apic, uint32_t domain,
		     bool x2apic)
{
	struct acpi_srat_cpu *c;

	if (s->cpu_count++ >= ACPI_MAX_CPUS)
		return;
	c = &s->cpus[s->cpu_count - 1];
	c->apic_id = apic;
	c->domain = domain;
	c->x2apic = x2apic;
}

static void srat_mem(struct acpi_srat *s, const uint8_t *e)
{
	struct acpi_mem_range *r;
	uint32_t flags = acpi_get32(e + 28);

	if (s->mem_count++ >= ACPI_MAX_MEM_RANGES)
		return;
	r = &s->mem[s->mem_count - 1];
	r->domain = acpi_get32(e + 2);
	r->base = acpi_get64(e + 8);
	r->len = acpi_get64(e + 16);
	r->hotplug = flags & 2;
	r->nonvolatile = flags & 4;
}

static void srat_entry(struct acpi_info *ai, const struct acpi_walk *w,
		       const uint8_t *e)
{
	/* Size and offset of the flags of entry types 0, 1 and 2. */
	static const uint8_t min[] = {16, 40, 24}, flags[] = {4, 28, 12};
	struct acpi_srat *s = &ai->srat;
	uint32_t dom;

	if (e[0] > 2 || !acpi_entry_fits(ai, w, e, min[e[0]]))
		return; /* other types: GICC, ITS, generic initiators */
	if (!(acpi_get32(e + flags[e[0]]) & 1)) {
		s->disabled_count++;
		return;
	}
	switch (e[0]) {
	case 0:
		dom = e[2] | (uint32_t)e[9] << 8 | (uint32_t)e[10] << 16 |
		      (uint32_t)e[11] << 24;
		srat_cpu(s, e[3], dom, false);
		break;
	case 1:
		srat_mem(s, e);
		break;
	case 2:
		srat_cpu(s, acpi_get32(e + 8), acpi_get32(e + 4), true);
		break;
	}
}

void acpi_parse_srat(struct acpi_info *ai, const uint8_t *t, uint32_t len)
{
	struct acpi_walk w = {.t = t, .len = len, .sig = "SRAT"};
	struct acpi_srat *s = &ai->srat;
	const uint8_t *e;

	kmemset(s, 0, sizeof(*s));
	if (len < SRAT_ENTRIES) {
		acpi_err(ai, "SRAT: %u bytes, too short: skipped", len);
		return;
	}
	s->present = true;
	w.off = SRAT_ENTRIES;
	while ((e = acpi_walk_next(ai, &w)))
		srat_entry(ai, &w, e);
	if (s->cpu_count > ACPI_MAX_CPUS)
		acpi_err(ai, "SRAT: %zu CPU entries, only %u kept",
			 s->cpu_count, ACPI_MAX_CPUS);
	if (s->mem_count > ACPI_MAX_MEM_RANGES)
		acpi_err(ai, "SRAT: %zu memory ranges, only %u kept",
			 s->mem_count, ACPI_MAX_MEM_RANGES);
}
