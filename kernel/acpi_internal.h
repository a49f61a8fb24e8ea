/* SPDX-License-Identifier: MIT */
/*
 * Shared by kernel/acpi*.c only: little-endian field access, error records,
 * and a walker over the (type, length) entries that the MADT and the SRAT
 * are made of.
 */
#ifndef KERNEL_ACPI_INTERNAL_H
#define KERNEL_ACPI_INTERNAL_H

#include "acpi.h"

/* Every ACPI table starts with this 36-byte header (ACPI 5.2.6). */
#define ACPI_HDR_LEN	36
#define ACPI_HDR_SIG	0 /* 4 ASCII characters */
#define ACPI_HDR_LENGTH 4 /* of the whole table, header included */
#define ACPI_HDR_REV	8
#define ACPI_HDR_CSUM	9  /* makes the bytes of the table sum to 0 */
#define ACPI_HDR_OEMID	10 /* 6 characters */
/* Far above any real table: a larger length is a corrupt header. */
#define ACPI_TABLE_MAX (16u << 20)

static inline uint16_t acpi_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t acpi_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t acpi_get64(const uint8_t *p)
{
	return (uint64_t)acpi_get32(p) | (uint64_t)acpi_get32(p + 4) << 32;
}

static inline uint8_t acpi_sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/*
 * Root System Description Pointer (ACPI 5.2.5.3). Revision 0 (ACPI 1.0)
 * is 20 bytes with a checksum over them; revision 2 and later add a
 * length, the 64-bit XSDT address and an extended checksum over `length`
 * bytes (36 so far).
 */
#define RSDP_SIG     "RSD PTR "
#define RSDP_CSUM    8
#define RSDP_OEMID   9
#define RSDP_REV     15
#define RSDP_RSDT    16
#define RSDP_LENGTH  20
#define RSDP_XSDT    24
#define RSDP_V1_LEN  20
#define RSDP_V2_LEN  36
#define RSDP_MAX_LEN 64 /* as much as boot_info keeps of the loader's */

/* One parse: the reader, the output, and the RSDP that was chosen. */
struct acpi_ctx {
	phys_reader rd;
	void *ctx;
	struct acpi_info *ai;
	uint8_t rsdp[RSDP_MAX_LEN];
	size_t rsdp_len;
};

/* The reader's pointer to len bytes at pa, valid until the next read. */
static inline const uint8_t *acpi_read(struct acpi_ctx *c, uint64_t pa,
				       size_t len)
{
	if (!len || pa + len < pa)
		return NULL; /* empty, or wraps around the address space */
	return c->rd(c->ctx, pa, len);
}

/*
 * Puts a valid RSDP into c->rsdp: the loader's copy if it is valid, else
 * the first one found in the EBDA or BIOS area. Returns 2 when the XSDT
 * may be used, 1 when only the RSDT may, 0 when there is none.
 */
int acpi_rsdp_find(struct acpi_ctx *c, const uint8_t *copy, size_t len);

/* Copies n characters, '?' for anything unprintable, and terminates. */
void acpi_text_copy(char *dst, const uint8_t *src, size_t n);

/* Decodes a 12-byte Generic Address Structure. */
void acpi_gas_get(const uint8_t *p, struct acpi_gas *g);

/* Iterates the entries of a MADT or SRAT from offset off. */
struct acpi_walk {
	const uint8_t *t;
	uint32_t len;
	uint32_t off;
	const char *sig; /* names the table in messages */
	bool quiet;	 /* a second pass: the first one reported */
};

/*
 * The next entry (e[0] type, e[1] length) or NULL at the end. An entry of
 * length < 2 or running past the table ends the walk with a message:
 * where the next entry starts can no longer be known.
 */
const uint8_t *acpi_walk_next(struct acpi_info *ai, struct acpi_walk *w);

/* Whether entry e is at least min bytes long; reports it if not. */
bool acpi_entry_fits(struct acpi_info *ai, const struct acpi_walk *w,
		     const uint8_t *e, uint8_t min);

/* Table bodies; t has been validated and is len bytes long. */
void acpi_parse_madt(struct acpi_info *ai, const uint8_t *t, uint32_t len);
void acpi_parse_fadt(struct acpi_info *ai, const uint8_t *t, uint32_t len);
void acpi_parse_hpet(struct acpi_info *ai, const uint8_t *t, uint32_t len);
void acpi_parse_srat(struct acpi_info *ai, const uint8_t *t, uint32_t len);

#endif
