// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: acpi_parse() as the kernel calls it, from the RSDP
 * (the loader's copy, or found by the EBDA / BIOS-area scan) through the
 * RSDT or XSDT to the MADT, FADT, HPET and SRAT, over a simulated memory
 * (fuzz.h) that serves exact-size copies, so a read past a table's stated
 * length is an ASan report.
 *
 * A checksum is one byte that mutations almost never get right, so the
 * harness builds the frame and can fix checksums and lengths; flags in
 * the first byte choose what it builds and what the input gives raw:
 *
 *   u8 flags     F_CSUM: fix every checksum (tables, RSDP)
 *                F_LEN: set each table's length field to its blob's size
 *                F_XSDT: an ACPI 2.0 RSDP and an XSDT, else 1.0 and RSDT
 *                F_SCAN: no loader copy: the RSDP is in low memory, found
 *                        by the scan (F_EBDA: in the EBDA, else at
 *                        0xe0000), 16-byte slot `slot`
 *                F_RAW_ROOT: blob 0 is the root table as it is (its
 *                        entries point at TABLE_PA + i * TABLE_STEP)
 *                F_RAW_RSDP: the next 36 bytes are the RSDP
 *                F_TWICE: the built root lists every table twice
 *   u8 slot
 *   [36 bytes RSDP, with F_RAW_RSDP]
 *   then blobs, each u16 size and its bytes: blob i is at
 *   TABLE_PA + i * TABLE_STEP
 */
#include "acpi_check.h"

#define F_CSUM	   0x01
#define F_LEN	   0x02
#define F_XSDT	   0x04
#define F_SCAN	   0x08
#define F_EBDA	   0x10
#define F_RAW_ROOT 0x20
#define F_RAW_RSDP 0x40
#define F_TWICE	   0x80

#define ROOT_PA	   0x7fd0000ull
#define TABLE_PA   0x7fe0000ull
#define TABLE_STEP 0x10000ull
#define EBDA_SEG   0x9fc0u
#define BIOS_LO	   0xe0000ull
#define MAX_TABLES (FUZZ_MAX_BLOBS - 4)

static struct acpi_info ai;

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/* Makes the first n bytes sum to 0 through the byte at `at`. */
static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	if (at < n)
		p[at] = (uint8_t)(p[at] - sum(p, n));
}

/* A table's checksum over what its length field says, if that fits. */
static void fix_table(uint8_t *t, size_t size, uint8_t flags)
{
	uint32_t len;

	if (size < 10)
		return;
	if ((flags & F_LEN) && size >= 8)
		fuzz_put32(t + 4, (uint32_t)size);
	len = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 |
	      (uint32_t)t[7] << 24;
	if (flags & F_CSUM)
		fix_sum(t, len < size ? len : size, 9);
}

static void header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, 36);
	memcpy(t, sig, 4);
	fuzz_put32(t + 4, len);
	t[8] = 1;
	memcpy(t + 10, "FUZZ  ", 6);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t root[36 + 2 * 8 * MAX_TABLES], rsdp[36], bda[2];
	struct fuzz_in in = {data, size};
	struct fuzz_mem mem = {.low_zeros = true};
	uint8_t *blobs[MAX_TABLES];
	size_t sizes[MAX_TABLES], nblobs = 0, esize, rsdp_len, len;
	uint8_t flags = fuzz_u8(&in), slot = fuzz_u8(&in);
	const uint8_t *p;
	uint64_t rsdp_pa;
	int ret;

	memset(rsdp, 0, sizeof(rsdp));
	if (flags & F_RAW_RSDP) {
		p = fuzz_bytes(&in, sizeof(rsdp), &len);
		memcpy(rsdp, p, len);
	} else {
		memcpy(rsdp, "RSD PTR ", 8);
		memcpy(rsdp + 9, "FUZZ  ", 6);
		rsdp[15] = flags & F_XSDT ? 2 : 0;
		fuzz_put32(rsdp + 20, 36);
		if (flags & F_XSDT)
			fuzz_put64(rsdp + 24, ROOT_PA);
		else
			fuzz_put32(rsdp + 16, (uint32_t)ROOT_PA);
	}
	if (flags & F_CSUM) {
		fix_sum(rsdp, 20, 8);
		fix_sum(rsdp, 36, 32);
	}
	rsdp_len = rsdp[15] >= 2 ? 36 : 20;

	while (in.n >= 2 && nblobs < MAX_TABLES) {
		size_t want = fuzz_u16(&in);

		p = fuzz_bytes(&in, want, &len);
		blobs[nblobs] = malloc(len ? len : 1);
		FUZZ_CHECK(blobs[nblobs], "out of memory");
		memcpy(blobs[nblobs], p, len);
		sizes[nblobs] = len;
		fix_table(blobs[nblobs], len, flags);
		fuzz_mem_add(&mem, TABLE_PA + nblobs * TABLE_STEP,
			     blobs[nblobs], len);
		nblobs++;
	}

	/* The root table: blob 0 as it is, or one listing every blob. */
	if (flags & F_RAW_ROOT) {
		if (nblobs)
			fuzz_mem_add(&mem, ROOT_PA, blobs[0], sizes[0]);
	} else {
		size_t n = 0, reps = flags & F_TWICE ? 2 : 1;

		esize = flags & F_XSDT ? 8 : 4;
		for (size_t r = 0; r < reps; r++) {
			for (size_t i = 0; i < nblobs; i++, n++) {
				uint64_t pa = TABLE_PA + i * TABLE_STEP;

				if (esize == 8)
					fuzz_put64(root + 36 + n * 8, pa);
				else
					fuzz_put32(root + 36 + n * 4,
						   (uint32_t)pa);
			}
		}
		header(root, esize == 8 ? "XSDT" : "RSDT",
		       (uint32_t)(36 + n * esize));
		fix_sum(root, 36 + n * esize, 9);
		fuzz_mem_add(&mem, ROOT_PA, root, 36 + n * esize);
	}

	/* With F_SCAN the kernel finds the RSDP in low memory. */
	if (flags & F_SCAN) {
		if (flags & F_EBDA) {
			bda[0] = (uint8_t)EBDA_SEG;
			bda[1] = (uint8_t)(EBDA_SEG >> 8);
			fuzz_mem_add(&mem, 0x40e, bda, 2);
			rsdp_pa = (uint64_t)EBDA_SEG * 16 + (slot & 63) * 16;
		} else {
			rsdp_pa = BIOS_LO + (uint64_t)slot * 16;
		}
		fuzz_mem_add(&mem, rsdp_pa, rsdp, sizeof(rsdp));
	}

	memset(&ai, 0x5a, sizeof(ai));
	ret = (flags & F_SCAN)
		      ? acpi_parse(NULL, 0, fuzz_mem_read, &mem, &ai)
		      : acpi_parse(rsdp, rsdp_len, fuzz_mem_read, &mem, &ai);
	fuzz_mem_done(&mem);

	FUZZ_CHECK(ret == 0 || ret == -1, "returned %d", ret);
	FUZZ_CHECK(ret == 0 || ai.error_count, "failed without saying why");
	if (ret == 0)
		FUZZ_CHECK(ai.root_pa, "parsed, yet no root table");
	FUZZ_CHECK(!(flags & F_SCAN) || !ai.rsdp_from_loader,
		   "RSDP from the loader, though it gave none");
	acpi_check_info(&ai);
	for (size_t i = 0; i < nblobs; i++)
		free(blobs[i]);
	return 0;
}
