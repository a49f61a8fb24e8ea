// SPDX-License-Identifier: MIT
/*
 * ACPI: validating the RSDT/XSDT and each table they point to, and handing
 * the tables the harness uses to their parsers (acpi_madt.c,
 * acpi_tables.c). Finding the RSDP is in acpi_rsdp.c. See acpi.h.
 *
 * The reader's pointer is used only until the next read, so a table is
 * checked and parsed from one read of its full length, and the root
 * table's entries are read one at a time between tables.
 */
#include <stdarg.h>

#include "acpi_internal.h"
#include "lib/kstring.h"
#include "lib/printf.h"

/* A signature as printable text: "APIC", or "\x00\x01AB" for junk. */
#define SIG_STR_LEN 17

void acpi_err(struct acpi_info *ai, const char *fmt, ...)
{
	va_list ap;

	if (ai->error_count < ACPI_ERR_MAX) {
		va_start(ap, fmt);
		kvsnprintf(ai->errors[ai->error_count], ACPI_ERR_LEN, fmt, ap);
		va_end(ap);
	}
	ai->error_count++;
}

void acpi_gas_get(const uint8_t *p, struct acpi_gas *g)
{
	g->space = p[0];
	g->bit_width = p[1];
	g->bit_offset = p[2];
	g->access_size = p[3];
	g->addr = acpi_get64(p + 4);
}

static void sig_str(const uint8_t *p, char out[SIG_STR_LEN])
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (int i = 0; i < 4; i++) {
		if (kisprint(p[i])) {
			out[n++] = (char)p[i];
			continue;
		}
		out[n++] = '\\';
		out[n++] = 'x';
		out[n++] = hex[p[i] >> 4];
		out[n++] = hex[p[i] & 15];
	}
	out[n] = '\0';
}

/* Copies n characters, '?' for anything unprintable, and terminates. */
void acpi_text_copy(char *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = kisprint(src[i]) ? (char)src[i] : '?';
	dst[n] = '\0';
}

static struct acpi_table *table_record(struct acpi_info *ai, const uint8_t *h,
				       uint64_t pa)
{
	struct acpi_table *t;

	if (ai->table_count++ >= ACPI_MAX_TABLES)
		return NULL;
	t = &ai->tables[ai->table_count - 1];
	acpi_text_copy(t->sig, h + ACPI_HDR_SIG, 4);
	acpi_text_copy(t->oem_id, h + ACPI_HDR_OEMID, 6);
	t->revision = h[ACPI_HDR_REV];
	t->length = acpi_get32(h + ACPI_HDR_LENGTH);
	t->pa = pa;
	t->ok = false;
	return t;
}

static bool sig_ok(const uint8_t *h, const char *want)
{
	if (want)
		return !kmemcmp(h, want, 4);
	for (int i = 0; i < 4; i++) {
		if (!kisprint(h[i]) || h[i] == ' ')
			return false;
	}
	return true;
}

/*
 * Validates the table at pa (its signature must be `want` unless NULL)
 * and returns all *lenp bytes of it, or NULL after reporting why not.
 */
static const uint8_t *table_get(struct acpi_ctx *c, uint64_t pa,
				const char *want, uint32_t *lenp)
{
	struct acpi_info *ai = c->ai;
	const uint8_t *t = acpi_read(c, pa, ACPI_HDR_LEN);
	unsigned long long a = pa;
	struct acpi_table *rec;
	char sig[SIG_STR_LEN];
	uint32_t len;

	if (!t) {
		acpi_err(ai, "%s at 0x%llx: header not readable: skipped",
			 want ? want : "table", a);
		return NULL;
	}
	sig_str(t, sig);
	rec = table_record(ai, t, pa);
	len = acpi_get32(t + ACPI_HDR_LENGTH);
	if (!sig_ok(t, want)) {
		acpi_err(ai, "table at 0x%llx: signature \"%s\"%s%s: skipped",
			 a, sig, want ? ", expected " : "", want ? want : "");
		return NULL;
	}
	if (len < ACPI_HDR_LEN || len > ACPI_TABLE_MAX) {
		acpi_err(ai, "%s at 0x%llx: implausible length %u: skipped",
			 sig, a, len);
		return NULL;
	}
	t = acpi_read(c, pa, len);
	if (!t) {
		acpi_err(ai,
			 "%s at 0x%llx: length %u runs past readable memory",
			 sig, a, len);
		return NULL;
	}
	if (acpi_sum(t, len)) {
		/* "the entire table, including the checksum field, must add
		 * to zero to be considered valid" (ACPI 5.2.6) */
		acpi_err(ai,
			 "%s at 0x%llx: bad checksum (its %u bytes sum to "
			 "0x%02x, not 0): skipped",
			 sig, a, len, acpi_sum(t, len));
		return NULL;
	}
	if (rec)
		rec->ok = true;
	*lenp = len;
	return t;
}

typedef void (*table_parser)(struct acpi_info *, const uint8_t *, uint32_t);

/* The parser of a table the harness uses, and its `present` flag. */
static table_parser parser_of(struct acpi_info *ai, const uint8_t *sig,
			      bool **present)
{
	if (!kmemcmp(sig, "APIC", 4)) {
		*present = &ai->madt.present;
		return acpi_parse_madt;
	}
	if (!kmemcmp(sig, "FACP", 4)) {
		*present = &ai->fadt.present;
		return acpi_parse_fadt;
	}
	if (!kmemcmp(sig, "HPET", 4)) {
		*present = &ai->hpet.present;
		return acpi_parse_hpet;
	}
	if (!kmemcmp(sig, "SRAT", 4)) {
		*present = &ai->srat.present;
		return acpi_parse_srat;
	}
	return NULL;
}

static void table_visit(struct acpi_ctx *c, uint64_t pa)
{
	uint32_t len;
	const uint8_t *t = table_get(c, pa, NULL, &len);
	table_parser parse;
	bool *present;

	if (!t)
		return;
	parse = parser_of(c->ai, t, &present);
	if (!parse)
		return;
	if (*present) {
		acpi_err(c->ai, "another %.4s table at 0x%llx: ignored",
			 (const char *)t, (unsigned long long)pa);
		return;
	}
	parse(c->ai, t, len);
}

/* Visits each table of the RSDT (esize 4) or XSDT (esize 8). */
static void root_walk(struct acpi_ctx *c, uint32_t len, unsigned int esize)
{
	struct acpi_info *ai = c->ai;
	const char *name = esize == 8 ? "XSDT" : "RSDT";
	size_t n = (len - ACPI_HDR_LEN) / esize;

	if ((len - ACPI_HDR_LEN) % esize)
		acpi_err(ai, "%s: length %u ends inside an entry: ignored",
			 name, len);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = acpi_read(
			c, ai->root_pa + ACPI_HDR_LEN + i * esize, esize);
		uint64_t pa;

		if (!e) {
			acpi_err(ai, "%s: entry %zu not readable", name, i);
			return;
		}
		pa = esize == 8 ? acpi_get64(e) : acpi_get32(e);
		if (!pa) {
			acpi_err(ai, "%s: entry %zu is NULL: skipped", name, i);
			continue;
		}
		table_visit(c, pa);
	}
}

/* Prefers the XSDT (64-bit addresses) when the RSDP allows it. */
static int root_find(struct acpi_ctx *c, int level)
{
	struct acpi_info *ai = c->ai;
	uint64_t xsdt = level == 2 ? acpi_get64(c->rsdp + RSDP_XSDT) : 0;
	uint32_t rsdt = acpi_get32(c->rsdp + RSDP_RSDT);
	uint32_t len;

	if (level == 2 && !xsdt)
		acpi_err(ai, "RSDP revision %u has no XSDT address",
			 c->rsdp[RSDP_REV]);
	if (xsdt && table_get(c, xsdt, "XSDT", &len)) {
		ai->xsdt = true;
		ai->root_pa = xsdt;
		root_walk(c, len, 8);
		return 0;
	}
	if (xsdt && rsdt)
		acpi_err(ai, "XSDT unusable: using the RSDT");
	if (rsdt && table_get(c, rsdt, "RSDT", &len)) {
		ai->root_pa = rsdt;
		root_walk(c, len, 4);
		return 0;
	}
	acpi_err(ai, "no usable RSDT or XSDT");
	return -1;
}

/* SRAT affinity of each listed CPU, now that both tables are parsed. */
static void cpus_add_domains(struct acpi_info *ai)
{
	struct acpi_madt *m = &ai->madt;

	for (size_t i = 0; i < m->cpu_count + m->hotplug_count; i++)
		m->cpus[i].domain = acpi_srat_domain(ai, m->cpus[i].apic_id);
}

int acpi_parse(const uint8_t *rsdp_copy, size_t rsdp_len, phys_reader rd,
	       void *ctx, struct acpi_info *out)
{
	struct acpi_ctx c = {.rd = rd, .ctx = ctx, .ai = out};
	int level;

	kmemset(out, 0, sizeof(*out));
	level = acpi_rsdp_find(&c, rsdp_copy, rsdp_len);
	if (!level)
		return -1;
	out->rsdp_revision = c.rsdp[RSDP_REV];
	acpi_text_copy(out->oem_id, c.rsdp + RSDP_OEMID, 6);
	if (root_find(&c, level) < 0)
		return -1;
	if (!out->madt.present)
		acpi_err(out, "no usable MADT (APIC table): CPUs unknown");
	cpus_add_domains(out);
	return 0;
}

const struct acpi_cpu *acpi_find_cpu(const struct acpi_info *ai,
				     uint32_t apic_id)
{
	const struct acpi_madt *m = &ai->madt;

	for (size_t i = 0; i < m->cpu_count + m->hotplug_count; i++) {
		if (m->cpus[i].apic_id == apic_id)
			return &m->cpus[i];
	}
	return NULL;
}

uint32_t acpi_srat_domain(const struct acpi_info *ai, uint32_t apic_id)
{
	const struct acpi_srat *s = &ai->srat;
	size_t n = s->cpu_count < ACPI_MAX_CPUS ? s->cpu_count : ACPI_MAX_CPUS;

	for (size_t i = 0; i < n; i++) {
		if (s->cpus[i].apic_id == apic_id)
			return s->cpus[i].domain;
	}
	return ACPI_NO_DOMAIN;
}

const struct acpi_table *acpi_find_table(const struct acpi_info *ai,
					 const char *sig)
{
	size_t n = ai->table_count < ACPI_MAX_TABLES ? ai->table_count
						     : ACPI_MAX_TABLES;

	for (size_t i = 0; i < n; i++) {
		if (!kmemcmp(ai->tables[i].sig, sig, 4))
			return &ai->tables[i];
	}
	return NULL;
}
