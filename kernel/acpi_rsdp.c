// SPDX-License-Identifier: MIT
/*
 * Finding the RSDP: the copy the loader passed (multiboot2 ACPI tags), or
 * a search of the places a legacy BIOS leaves it. Each candidate is read
 * into a private copy first, so that its checks and its use see the same
 * bytes whatever the reader does with its pointers.
 */
#include "acpi_internal.h"
#include "lib/kstring.h"
#include "lib/printf.h"

/*
 * Where a legacy BIOS leaves it (ACPI 5.2.5.1): on a 16-byte boundary in
 * the first KiB of the EBDA, whose real-mode segment is the 16-bit word at
 * 0x40E of the BIOS Data Area, or in the read-only BIOS area
 * 0xE0000-0xFFFFF.
 */
#define BDA_EBDA_SEG 0x40e
#define EBDA_SCAN    1024
#define BIOS_LO	     0xe0000
#define BIOS_HI	     0x100000
#define LOW_MEM_TOP  0xa0000 /* the EBDA is below the VGA hole */

/*
 * Checks the RSDP in c->rsdp; `where` names it in messages. Returns 2 when
 * the XSDT may be used, 1 when only the RSDT may, 0 when it is invalid.
 */
static int rsdp_check(struct acpi_ctx *c, const char *where)
{
	const uint8_t *r = c->rsdp;
	uint32_t len;

	if (c->rsdp_len < RSDP_V1_LEN) {
		acpi_err(c->ai, "RSDP %s: only %zu bytes", where, c->rsdp_len);
		return 0;
	}
	if (kmemcmp(r, RSDP_SIG, 8)) {
		acpi_err(c->ai, "RSDP %s: no \"RSD PTR \" signature", where);
		return 0;
	}
	if (acpi_sum(r, RSDP_V1_LEN)) {
		acpi_err(c->ai, "RSDP %s: bad checksum", where);
		return 0;
	}
	if (r[RSDP_REV] < 2)
		return 1;
	len = c->rsdp_len >= RSDP_V2_LEN ? acpi_get32(r + RSDP_LENGTH) : 0;
	if (len < RSDP_V2_LEN || len > c->rsdp_len) {
		acpi_err(c->ai,
			 "RSDP %s: revision %u, length %u of %zu bytes: "
			 "XSDT not used",
			 where, r[RSDP_REV], len, c->rsdp_len);
		return 1;
	}
	if (acpi_sum(r, len)) {
		acpi_err(c->ai, "RSDP %s: bad extended checksum: XSDT not used",
			 where);
		return 1;
	}
	return 2;
}

/* Copies the RSDP candidate at pa (v1 part, then the rest) to c->rsdp. */
static void rsdp_fetch(struct acpi_ctx *c, uint64_t pa)
{
	const uint8_t *p = acpi_read(c, pa, RSDP_V1_LEN);
	uint32_t len;

	c->rsdp_len = 0;
	if (!p)
		return;
	kmemcpy(c->rsdp, p, RSDP_V1_LEN);
	c->rsdp_len = RSDP_V1_LEN;
	if (acpi_sum(c->rsdp, RSDP_V1_LEN) || c->rsdp[RSDP_REV] < 2)
		return;
	p = acpi_read(c, pa, RSDP_V2_LEN);
	if (!p)
		return;
	kmemcpy(c->rsdp, p, RSDP_V2_LEN);
	c->rsdp_len = RSDP_V2_LEN;
	len = acpi_get32(c->rsdp + RSDP_LENGTH);
	if (len <= RSDP_V2_LEN || len > RSDP_MAX_LEN)
		return;
	p = acpi_read(c, pa, len);
	if (p) {
		kmemcpy(c->rsdp, p, len);
		c->rsdp_len = len;
	}
}

/* Looks at every 16-byte boundary in [lo, hi); returns the level found. */
static int rsdp_scan(struct acpi_ctx *c, uint64_t lo, uint64_t hi)
{
	char where[32];
	int level;

	for (uint64_t pa = lo; pa + RSDP_V1_LEN <= hi; pa += 16) {
		const uint8_t *p = acpi_read(c, pa, 8);

		if (!p || kmemcmp(p, RSDP_SIG, 8))
			continue;
		rsdp_fetch(c, pa);
		ksnprintf(where, sizeof(where), "at 0x%llx",
			  (unsigned long long)pa);
		level = rsdp_check(c, where);
		if (level) {
			c->ai->rsdp_pa = pa;
			return level;
		}
	}
	return 0;
}

/* The EBDA's first KiB, then the BIOS area. */
static int rsdp_search(struct acpi_ctx *c)
{
	const uint8_t *p = acpi_read(c, BDA_EBDA_SEG, 2);
	uint64_t ebda = p ? (uint64_t)acpi_get16(p) << 4 : 0;
	int level = 0;

	if (ebda >= 0x400 && ebda < LOW_MEM_TOP)
		level = rsdp_scan(c, ebda, ebda + EBDA_SCAN);
	if (!level)
		level = rsdp_scan(c, BIOS_LO, BIOS_HI);
	return level;
}

int acpi_rsdp_find(struct acpi_ctx *c, const uint8_t *copy, size_t len)
{
	int level;

	if (copy && len) {
		c->rsdp_len = len < RSDP_MAX_LEN ? len : RSDP_MAX_LEN;
		kmemcpy(c->rsdp, copy, c->rsdp_len);
		level = rsdp_check(c, "from the loader");
		if (level) {
			c->ai->rsdp_from_loader = true;
			return level;
		}
		acpi_err(c->ai, "scanning the BIOS area for another RSDP");
	}
	level = rsdp_search(c);
	if (!level)
		acpi_err(c->ai, "no valid RSDP (EBDA, 0xe0000-0xfffff)");
	return level;
}
