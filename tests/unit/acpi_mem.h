/* SPDX-License-Identifier: MIT */
/*
 * The ACPI tests' physical memory (test_acpi*.c): blobs served at their
 * addresses by a reader that hands out a fresh heap copy of exactly the
 * bytes asked for and frees it on the next call, so ASan catches a parser
 * that reads past what it asked for or keeps a pointer past its next read.
 * Below 1 MiB, memory that no blob covers reads as zeros (the BIOS area
 * exists); above, only ranges wholly inside one blob are readable. And the
 * parse, with the checks that hold for any input, and the expectations on
 * QEMU's tables.
 */
#ifndef TESTS_UNIT_ACPI_MEM_H
#define TESTS_UNIT_ACPI_MEM_H

#include <inttypes.h>
#include <stdlib.h>
#include "unit.h"
#include "kernel/acpi.h"

#ifndef ACPI_DATA_DIR
#define ACPI_DATA_DIR "tests/unit/data/acpi"
#endif

#define LOW_MEM	  0x100000ull
#define MAX_BLOBS 32

struct blob {
	uint64_t pa;
	size_t len;
	uint8_t *data;
};

static struct {
	struct blob b[MAX_BLOBS];
	size_t n;
	void *last;
} mem;

static struct acpi_info ai;

static inline const void *mem_read(void *ctx, uint64_t pa, size_t len)
{
	(void)ctx;
	free(mem.last);
	mem.last = NULL;
	assert_true(len > 0 && pa + len > pa);
	if (pa + len <= LOW_MEM) {
		uint8_t *p = calloc(1, len);

		assert_non_null(p);
		for (size_t i = 0; i < mem.n; i++) {
			struct blob *b = &mem.b[i];
			uint64_t lo = b->pa > pa ? b->pa : pa;
			uint64_t hi = b->pa + b->len < pa + len ? b->pa + b->len
								: pa + len;

			if (lo < hi)
				memcpy(p + (lo - pa), b->data + (lo - b->pa),
				       hi - lo);
		}
		return mem.last = p;
	}
	for (size_t i = 0; i < mem.n; i++) {
		struct blob *b = &mem.b[i];

		if (pa >= b->pa && pa + len <= b->pa + b->len) {
			mem.last = malloc(len);
			assert_non_null(mem.last);
			memcpy(mem.last, b->data + (pa - b->pa), len);
			return mem.last;
		}
	}
	return NULL;
}

static inline void mem_add(uint64_t pa, const void *data, size_t len)
{
	struct blob *b = &mem.b[mem.n++];

	assert_true(mem.n <= MAX_BLOBS);
	b->pa = pa;
	b->len = len;
	b->data = malloc(len);
	assert_non_null(b->data);
	memcpy(b->data, data, len);
}

static inline int mem_setup(void **state)
{
	(void)state;
	memset(&mem, 0, sizeof(mem));
	return 0;
}

static inline int mem_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < mem.n; i++)
		free(mem.b[i].data);
	free(mem.last);
	memset(&mem, 0, sizeof(mem));
	return 0;
}

/* Parses, then checks what must hold for any input. */
static inline int run(const uint8_t *copy, size_t copy_len)
{
	int ret;

	memset(&ai, 0x5a, sizeof(ai));
	ret = acpi_parse(copy, copy_len, mem_read, NULL, &ai);
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++)
		assert_printable(ai.errors[i], ACPI_ERR_LEN);
	assert_true(ai.madt.cpu_count + ai.madt.hotplug_count <= ACPI_MAX_CPUS);
	for (size_t i = 0; i < ai.madt.cpu_count + ai.madt.hotplug_count; i++)
		assert_int_equal(ai.madt.cpus[i].enabled,
				 i < ai.madt.cpu_count);
	return ret;
}

/* Fails unless some error message contains s. */
static inline void expect_error(const char *s)
{
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++) {
		if (strstr(ai.errors[i], s))
			return;
	}
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++)
		print_message("error %zu: %s\n", i, ai.errors[i]);
	fail_msg("no error contains \"%s\"", s);
}

static inline void expect_no_errors(void)
{
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++)
		print_message("unexpected: %s\n", ai.errors[i]);
	assert_int_equal(ai.error_count, 0);
}

static inline const struct blob *blob_at(uint64_t pa)
{
	for (size_t i = 0; i < mem.n; i++) {
		if (mem.b[i].pa == pa)
			return &mem.b[i];
	}
	fail_msg("no blob at 0x%" PRIx64, pa);
	return NULL;
}

static inline void expect_cpu(size_t i, uint32_t apic, uint32_t uid,
			      bool x2apic)
{
	const struct acpi_cpu *c = &ai.madt.cpus[i];

	assert_int_equal(c->apic_id, apic);
	assert_int_equal(c->uid, uid);
	assert_int_equal(c->x2apic, x2apic);
	assert_true(c->enabled);
	assert_false(c->online_capable);
}

/* What every QEMU machine here has: SeaBIOS/OVMF's MADT for QEMU. */
static inline void expect_qemu_madt(size_t ncpus)
{
	const struct acpi_madt *m = &ai.madt;
	static const uint8_t irqs[] = {0, 5, 9, 10, 11};

	assert_true(m->present);
	assert_true(m->lapic_addr == 0xfee00000);
	assert_false(m->lapic_override);
	assert_true(m->pcat_compat);
	assert_int_equal(m->cpu_count, ncpus);
	assert_int_equal(m->hotplug_count, 0);
	assert_int_equal(m->ioapic_count, 1);
	assert_int_equal(m->ioapics[0].id, 0);
	assert_int_equal(m->ioapics[0].addr, 0xfec00000);
	assert_int_equal(m->ioapics[0].gsi_base, 0);
	/* IRQ 0 (PIT) is GSI 2; the PCI link IRQs are level, active high. */
	assert_int_equal(m->iso_count, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(m->isos[i].bus, 0);
		assert_int_equal(m->isos[i].irq, irqs[i]);
		assert_int_equal(m->isos[i].gsi, i ? irqs[i] : 2);
		assert_int_equal(m->isos[i].flags, i ? 0xd : 0);
	}
	/* One NMI entry for all CPUs: LINT1. */
	assert_int_equal(m->nmi_count, 1);
	for (size_t i = 0; i < ncpus; i++) {
		assert_int_equal(m->cpus[i].nmi_lint, 1);
		assert_int_equal(m->cpus[i].nmi_flags, 0);
	}
}

static inline void expect_hpet(void)
{
	assert_true(ai.hpet.present);
	assert_int_equal(ai.hpet.base.space, ACPI_GAS_MEMORY);
	assert_true(ai.hpet.base.addr == 0xfed00000);
	assert_int_equal(ai.hpet.block_id, 0x8086a201);
}

/* q35's FADT (revision 3): PM timer and reset register at 0x608/0xcf9. */
static inline void expect_q35_fadt(void)
{
	const struct acpi_fadt *f = &ai.fadt;

	assert_true(f->present);
	assert_int_equal(f->revision, 3);
	assert_int_equal(f->length, 244);
	assert_true(f->pm_timer);
	assert_int_equal(f->pm_timer_reg.space, ACPI_GAS_IO);
	assert_int_equal(f->pm_timer_reg.bit_width, 32);
	assert_true(f->pm_timer_reg.addr == 0x608);
	assert_false(f->pm_timer_32bit); /* TMR_VAL_EXT clear: 24 bits */
	assert_true(f->reset);
	assert_int_equal(f->reset_reg.space, ACPI_GAS_IO);
	assert_int_equal(f->reset_reg.bit_width, 8);
	assert_true(f->reset_reg.addr == 0xcf9);
	assert_int_equal(f->reset_value, 0x0f);
	assert_false(f->hw_reduced);
}

#endif
