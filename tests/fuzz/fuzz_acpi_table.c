// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: one ACPI table body at a time (the MADT, SRAT, FADT
 * and HPET parsers of kernel/acpi_madt.c and kernel/acpi_tables.c), without the
 * header checks acpi_parse() does first, so every mutation reaches the
 * entry walkers. The table is a heap block of exactly the length the
 * parser is given: a read past it is an ASan report.
 *
 * Input: u8 which parser (MADT, SRAT, FADT, HPET, by value mod 4), then
 * the table. What acpi_parse() guarantees a parser is kept: the table is
 * at least a header long (zeros are added), its signature is the one of
 * the parser and its length field says how long it is (the checksum is
 * not looked at again).
 */
#include "acpi_check.h"
#include "kernel/acpi_internal.h"

static const struct {
	const char *sig;
	void (*parse)(struct acpi_info *ai, const uint8_t *t, uint32_t len);
} parsers[] = {
	{"APIC", acpi_parse_madt},
	{"SRAT", acpi_parse_srat},
	{"FACP", acpi_parse_fadt},
	{"HPET", acpi_parse_hpet},
};

static struct acpi_info ai;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	size_t which = fuzz_u8(&in) % ARRAY_SIZE(parsers), len;
	const uint8_t *body = fuzz_bytes(&in, in.n, &len);
	size_t tlen = len < ACPI_HDR_LEN ? ACPI_HDR_LEN : len;
	uint8_t *t;

	if (tlen > ACPI_TABLE_MAX)
		return 0; /* acpi_parse() refuses such a length */
	t = calloc(1, tlen);
	FUZZ_CHECK(t, "out of memory");
	memcpy(t, body, len);
	memcpy(t, parsers[which].sig, 4);
	fuzz_put32(t + ACPI_HDR_LENGTH, (uint32_t)tlen);

	/* acpi_parse() zeroes the struct; the rest is the parser's. */
	memset(&ai, 0, sizeof(ai));
	parsers[which].parse(&ai, t, (uint32_t)tlen);
	acpi_check_info(&ai);
	free(t);
	return 0;
}
