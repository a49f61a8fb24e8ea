/* SPDX-License-Identifier: MIT */
/*
 * ACPI tables built byte by byte for the tests (test_acpi_tables.c,
 * test_acpi_madt.c): an RSDP, root tables, a MADT of n CPUs, a FADT, and a
 * machine of them at fixed addresses in acpi_mem.h's memory.
 */
#ifndef TESTS_UNIT_ACPI_BUILD_H
#define TESTS_UNIT_ACPI_BUILD_H

#include "acpi_mem.h"

#define RSDP_PA	 0xf0000ull
#define ROOT_PA	 0x7fe0000ull
#define TABLE_PA 0x7fe1000ull /* tables follow, 0x1000 apart */

struct tb {
	uint8_t *buf;
	size_t len, cap;
};

static inline void tb_bytes(struct tb *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2;
		t->buf = realloc(t->buf, t->cap);
		assert_non_null(t->buf);
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

static inline void tb_u8(struct tb *t, uint8_t v)
{
	tb_bytes(t, &v, 1);
}

static inline void tb_u16(struct tb *t, uint16_t v)
{
	tb_u8(t, (uint8_t)v);
	tb_u8(t, (uint8_t)(v >> 8));
}

static inline void tb_u32(struct tb *t, uint32_t v)
{
	tb_u16(t, (uint16_t)v);
	tb_u16(t, (uint16_t)(v >> 16));
}

static inline void tb_u64(struct tb *t, uint64_t v)
{
	tb_u32(t, (uint32_t)v);
	tb_u32(t, (uint32_t)(v >> 32));
}

static inline void set32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint8_t csum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return (uint8_t)-s;
}

/* A header whose length and checksum tb_end() fills in. */
static inline void tb_begin(struct tb *t, const char *sig, uint8_t rev)
{
	memset(t, 0, sizeof(*t));
	tb_bytes(t, sig, 4);
	tb_u32(t, 0);
	tb_u8(t, rev);
	tb_u8(t, 0);
	tb_bytes(t, "SHOOTDTESTTABLE ", 14);
	tb_bytes(t, "TEST", 4);
	tb_u32(t, 0);
	tb_u32(t, 1);
}

/* Sets the length, fixes the checksum, adds it at pa, frees the buffer. */
static inline void tb_end(struct tb *t, uint64_t pa)
{
	set32(t->buf + 4, (uint32_t)t->len);
	t->buf[9] = 0;
	t->buf[9] = csum(t->buf, t->len);
	mem_add(pa, t->buf, t->len);
	free(t->buf);
}

static inline void make_rsdp(uint8_t r[36], uint8_t rev, uint32_t rsdt,
			     uint64_t xsdt)
{
	struct tb t = {0};

	tb_bytes(&t, "RSD PTR ", 8);
	tb_u8(&t, 0);
	tb_bytes(&t, "SHOOTD", 6);
	tb_u8(&t, rev);
	tb_u32(&t, rsdt);
	tb_u32(&t, 36);
	tb_u64(&t, xsdt);
	tb_u32(&t, 0);
	t.buf[8] = csum(t.buf, 20);
	t.buf[32] = csum(t.buf, 36);
	memcpy(r, t.buf, 36);
	free(t.buf);
}

/* A root table (RSDT: esize 4, XSDT: 8) listing n addresses. */
static inline void make_root(const char *sig, uint64_t pa, const uint64_t *e,
			     size_t n)
{
	struct tb t;
	unsigned int esize = sig[0] == 'X' ? 8 : 4;

	tb_begin(&t, sig, 1);
	for (size_t i = 0; i < n; i++) {
		if (esize == 8)
			tb_u64(&t, e[i]);
		else
			tb_u32(&t, (uint32_t)e[i]);
	}
	tb_end(&t, pa);
}

static inline void madt_begin(struct tb *t)
{
	tb_begin(t, "APIC", 5);
	tb_u32(t, 0xfee00000);
	tb_u32(t, 1);
}

static inline void madt_lapic(struct tb *t, uint8_t uid, uint8_t id,
			      uint32_t fl)
{
	tb_u8(t, 0);
	tb_u8(t, 8);
	tb_u8(t, uid);
	tb_u8(t, id);
	tb_u32(t, fl);
}

static inline void madt_x2apic(struct tb *t, uint32_t id, uint32_t fl,
			       uint32_t uid)
{
	tb_u8(t, 9);
	tb_u8(t, 16);
	tb_u16(t, 0);
	tb_u32(t, id);
	tb_u32(t, fl);
	tb_u32(t, uid);
}

static inline void madt_nmi(struct tb *t, uint8_t uid, uint16_t fl,
			    uint8_t lint)
{
	tb_u8(t, 4);
	tb_u8(t, 6);
	tb_u8(t, uid);
	tb_u16(t, fl);
	tb_u8(t, lint);
}

/* A MADT with n CPUs (APIC ID = uid = i) at pa. */
static inline void make_madt(uint64_t pa, unsigned int n)
{
	struct tb t;

	madt_begin(&t);
	for (unsigned int i = 0; i < n; i++)
		madt_lapic(&t, (uint8_t)i, (uint8_t)i, 1);
	madt_nmi(&t, 0xff, 5, 1);
	tb_end(&t, pa);
}

/* A well-formed ACPI 2.0 machine: RSDP -> XSDT (and RSDT) -> MADT. */
static inline void make_machine(unsigned int ncpus)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];

	make_rsdp(r, 2, (uint32_t)(ROOT_PA + 0x800), ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 1);
	make_root("RSDT", ROOT_PA + 0x800, e, 1);
	make_madt(TABLE_PA, ncpus);
}

static inline struct blob *blob_mut(uint64_t pa)
{
	return (struct blob *)blob_at(pa);
}

/* Builds a machine whose only table is t (finished here). */
static inline void table_machine(struct tb *t)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];

	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 1);
	tb_end(t, TABLE_PA);
}

/* A FADT of len bytes, all fields zero but those set afterwards. */
static inline void fadt_begin(struct tb *t, uint8_t rev, size_t len)
{
	tb_begin(t, "FACP", rev);
	while (t->len < len)
		tb_u8(t, 0);
}

#endif
