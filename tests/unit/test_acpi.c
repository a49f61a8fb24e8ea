// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/acpi*.c: tables captured from QEMU machines
 * (tests/unit/data/acpi/<machine>/, made by tools/capture-acpi.py) served
 * at their original physical addresses, and tables built here byte by
 * byte, well-formed and not.
 *
 * The reader hands out a fresh heap copy of exactly the bytes asked for
 * and frees it on the next call, so ASan catches a parser that reads past
 * what it asked for or keeps a pointer past its next read. Below 1 MiB,
 * memory that no blob covers reads as zeros (the BIOS area exists);
 * above, only ranges wholly inside one blob are readable.
 */
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

static const void *mem_read(void *ctx, uint64_t pa, size_t len)
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

static void mem_add(uint64_t pa, const void *data, size_t len)
{
	struct blob *b = &mem.b[mem.n++];

	assert_true(mem.n <= MAX_BLOBS);
	b->pa = pa;
	b->len = len;
	b->data = malloc(len);
	assert_non_null(b->data);
	memcpy(b->data, data, len);
}

static int mem_setup(void **state)
{
	(void)state;
	memset(&mem, 0, sizeof(mem));
	return 0;
}

static int mem_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < mem.n; i++)
		free(mem.b[i].data);
	free(mem.last);
	memset(&mem, 0, sizeof(mem));
	return 0;
}

/* Parses, then checks what must hold for any input. */
static int run(const uint8_t *copy, size_t copy_len)
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
static void expect_error(const char *s)
{
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++) {
		if (strstr(ai.errors[i], s))
			return;
	}
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++)
		print_message("error %zu: %s\n", i, ai.errors[i]);
	fail_msg("no error contains \"%s\"", s);
}

static void expect_no_errors(void)
{
	for (size_t i = 0; i < ai.error_count && i < ACPI_ERR_MAX; i++)
		print_message("unexpected: %s\n", ai.errors[i]);
	assert_int_equal(ai.error_count, 0);
}

/* --- captured machines ------------------------------------------------ */

/* Loads DIR/manifest.txt's files as blobs; returns the RSDP's address. */
static uint64_t load_capture(const char *machine)
{
	char path[512], line[256], name[128];
	uint64_t rsdp = 0, pa;
	FILE *f, *bf;

	snprintf(path, sizeof(path), "%s/%s/manifest.txt", ACPI_DATA_DIR,
		 machine);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		uint8_t buf[8192];
		size_t n;

		if (line[0] == '#' ||
		    sscanf(line, "%" SCNx64 " %127s", &pa, name) != 2)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", ACPI_DATA_DIR, machine,
			 name);
		bf = fopen(path, "rb");
		if (!bf)
			fail_msg("cannot open %s", path);
		n = fread(buf, 1, sizeof(buf), bf);
		fclose(bf);
		assert_true(n > 0 && n < sizeof(buf));
		mem_add(pa, buf, n);
		if (!strcmp(name, "rsdp.bin"))
			rsdp = pa;
	}
	fclose(f);
	assert_true(rsdp != 0);
	return rsdp;
}

static const struct blob *blob_at(uint64_t pa)
{
	for (size_t i = 0; i < mem.n; i++) {
		if (mem.b[i].pa == pa)
			return &mem.b[i];
	}
	fail_msg("no blob at 0x%" PRIx64, pa);
	return NULL;
}

static void expect_cpu(size_t i, uint32_t apic, uint32_t uid, bool x2apic)
{
	const struct acpi_cpu *c = &ai.madt.cpus[i];

	assert_int_equal(c->apic_id, apic);
	assert_int_equal(c->uid, uid);
	assert_int_equal(c->x2apic, x2apic);
	assert_true(c->enabled);
	assert_false(c->online_capable);
}

/* What every QEMU machine here has: SeaBIOS/OVMF's MADT for QEMU. */
static void expect_qemu_madt(size_t ncpus)
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

static void expect_hpet(void)
{
	assert_true(ai.hpet.present);
	assert_int_equal(ai.hpet.base.space, ACPI_GAS_MEMORY);
	assert_true(ai.hpet.base.addr == 0xfed00000);
	assert_int_equal(ai.hpet.block_id, 0x8086a201);
}

/* q35's FADT (revision 3): PM timer and reset register at 0x608/0xcf9. */
static void expect_q35_fadt(void)
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

static void test_pc4_scan(void **state)
{
	uint64_t rsdp = load_capture("pc-4");

	(void)state;
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_false(ai.rsdp_from_loader);
	assert_true(ai.rsdp_pa == rsdp);
	assert_int_equal(ai.rsdp_revision, 0);
	assert_string_equal(ai.oem_id, "BOCHS ");
	assert_false(ai.xsdt);
	assert_int_equal(ai.table_count, 5);
	assert_string_equal(ai.tables[0].sig, "RSDT");
	assert_non_null(acpi_find_table(&ai, "WAET"));
	assert_null(acpi_find_table(&ai, "SRAT"));
	expect_qemu_madt(4);
	for (uint32_t i = 0; i < 4; i++)
		expect_cpu(i, i, i, false);
	assert_int_equal(ai.madt.max_apic_id, 3);
	/* i440fx: an ACPI 1.0 FADT, so no reset register. */
	assert_true(ai.fadt.present);
	assert_int_equal(ai.fadt.revision, 1);
	assert_int_equal(ai.fadt.length, 116);
	assert_true(ai.fadt.pm_timer);
	assert_true(ai.fadt.pm_timer_reg.addr == 0x608);
	assert_int_equal(ai.fadt.pm_timer_reg.space, ACPI_GAS_IO);
	assert_false(ai.fadt.pm_timer_32bit);
	assert_false(ai.fadt.reset);
	assert_true(ai.fadt.dsdt == 0x1ffe0040);
	expect_hpet();
	assert_false(ai.srat.present);
	assert_int_equal(ai.madt.cpus[0].domain, ACPI_NO_DOMAIN);
}

static void test_q35_4(void **state)
{
	uint64_t rsdp = load_capture("q35-4");

	(void)state;
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_true(ai.rsdp_pa == rsdp);
	assert_int_equal(ai.table_count, 6);
	assert_non_null(acpi_find_table(&ai, "MCFG"));
	expect_qemu_madt(4);
	for (uint32_t i = 0; i < 4; i++)
		expect_cpu(i, i, i, false);
	expect_q35_fadt();
	assert_true(ai.fadt.dsdt == 0x1ffe0040);
	expect_hpet();
}

/* The loader's copy of the same RSDP (multiboot2 tag 14) is used as is. */
static void test_q35_4_loader_copy(void **state)
{
	uint64_t rsdp = load_capture("q35-4");
	const struct blob *b = blob_at(rsdp);

	(void)state;
	assert_int_equal(run(b->data, b->len), 0);
	expect_no_errors();
	assert_true(ai.rsdp_from_loader);
	assert_true(ai.rsdp_pa == 0);
	assert_int_equal(ai.madt.cpu_count, 4);
}

/*
 * QEMU 10, q35, -smp 300 -cpu max: APIC IDs 0-254 in type 0 entries,
 * 255-299 in type 9 (x2APIC) entries, and one x2APIC NMI entry (type 0xA)
 * for all CPUs instead of a type 4.
 */
static void test_q35_300_qemu10(void **state)
{
	(void)state;
	load_capture("q35-300-qemu10");
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.madt.cpu_count, 300);
	assert_int_equal(ai.madt.x2apic_count, 45);
	assert_int_equal(ai.madt.max_apic_id, 299);
	for (uint32_t i = 0; i < 300; i++)
		expect_cpu(i, i, i, i >= 255);
	assert_int_equal(ai.madt.nmi_count, 1);
	assert_true(ai.madt.nmis[0].x2apic);
	assert_int_equal(ai.madt.nmis[0].uid, 0xffffffff);
	assert_int_equal(ai.madt.cpus[299].nmi_lint, 1);
	assert_int_equal(ai.madt.cpus[0].nmi_lint, 1);
	assert_non_null(acpi_find_cpu(&ai, 299));
	assert_null(acpi_find_cpu(&ai, 300));
	expect_q35_fadt();
	/* FORCE_APIC_CLUSTER_MODEL (bit 18), set by QEMU for > 8 CPUs. */
	assert_true(ai.fadt.flags & (1u << 18));
	expect_hpet();
}

/*
 * q35, -cpu EPYC -smp 12,sockets=2,cores=3,threads=2 and one NUMA node
 * per socket: 3 cores take 2 APIC ID bits, so IDs 6, 7 are skipped.
 */
static void test_q35_numa_epyc(void **state)
{
	static const uint32_t ids[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13};

	(void)state;
	load_capture("q35-numa-epyc");
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.madt.cpu_count, 12);
	for (uint32_t i = 0; i < 12; i++) {
		expect_cpu(i, ids[i], i, false);
		assert_int_equal(ai.madt.cpus[i].domain, i / 6);
	}
	assert_true(ai.srat.present);
	assert_int_equal(ai.srat.cpu_count, 12);
	assert_int_equal(acpi_srat_domain(&ai, 13), 1);
	assert_int_equal(acpi_srat_domain(&ai, 6), ACPI_NO_DOMAIN);
	/* Low memory below the VGA hole and above 1 MiB, then node 1; */
	assert_int_equal(ai.srat.mem_count, 3);
	assert_true(ai.srat.mem[0].base == 0 && ai.srat.mem[0].len == 0xa0000);
	assert_true(ai.srat.mem[1].base == 0x100000);
	assert_true(ai.srat.mem[2].base == 0x10000000);
	assert_true(ai.srat.mem[2].len == 0x10000000);
	assert_int_equal(ai.srat.mem[2].domain, 1);
	/* and a disabled placeholder entry that is ignored. */
	assert_int_equal(ai.srat.disabled_count, 1);
}

/* OVMF: an ACPI 2.0 RSDP passed by the loader, and an XSDT. */
static void test_q35_4_uefi(void **state)
{
	uint64_t rsdp = load_capture("q35-4-uefi");
	const struct blob *b = blob_at(rsdp);

	(void)state;
	assert_int_equal(b->len, 36);
	assert_int_equal(run(b->data, b->len), 0);
	expect_no_errors();
	assert_true(ai.rsdp_from_loader);
	assert_int_equal(ai.rsdp_revision, 2);
	assert_true(ai.xsdt);
	assert_string_equal(ai.tables[0].sig, "XSDT");
	expect_qemu_madt(4);
	expect_q35_fadt();
	assert_true(ai.fadt.dsdt == 0x1f779000);
	/* No RSDP in the BIOS area under UEFI: nothing to scan for. */
	assert_int_equal(run(NULL, 0), -1);
	expect_error("no valid RSDP");
}

/* An RSDP in the EBDA is found before one in the BIOS area. */
static void test_ebda_first(void **state)
{
	uint64_t rsdp = load_capture("pc-4");
	const struct blob *b = blob_at(rsdp);
	/* The last paragraph that holds the 20 bytes of a version 1 RSDP. */
	uint64_t ebda = 0x9fc00 + 0x3e0;

	(void)state;
	mem_add(ebda, b->data, b->len);
	assert_int_equal(run(NULL, 0), 0);
	assert_true(ai.rsdp_pa == ebda);
	/* Past the first KiB of the EBDA it is not looked for. */
	mem.b[mem.n - 1].pa = ebda + 0x20;
	assert_int_equal(run(NULL, 0), 0);
	assert_true(ai.rsdp_pa == rsdp);
}

/* --- tables built here -------------------------------------------------- */

#define RSDP_PA	 0xf0000ull
#define ROOT_PA	 0x7fe0000ull
#define TABLE_PA 0x7fe1000ull /* tables follow, 0x1000 apart */

struct tb {
	uint8_t *buf;
	size_t len, cap;
};

static void tb_bytes(struct tb *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2;
		t->buf = realloc(t->buf, t->cap);
		assert_non_null(t->buf);
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

static void tb_u8(struct tb *t, uint8_t v)
{
	tb_bytes(t, &v, 1);
}

static void tb_u16(struct tb *t, uint16_t v)
{
	tb_u8(t, (uint8_t)v);
	tb_u8(t, (uint8_t)(v >> 8));
}

static void tb_u32(struct tb *t, uint32_t v)
{
	tb_u16(t, (uint16_t)v);
	tb_u16(t, (uint16_t)(v >> 16));
}

static void tb_u64(struct tb *t, uint64_t v)
{
	tb_u32(t, (uint32_t)v);
	tb_u32(t, (uint32_t)(v >> 32));
}

static void set32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t csum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return (uint8_t)-s;
}

/* A header whose length and checksum tb_end() fills in. */
static void tb_begin(struct tb *t, const char *sig, uint8_t rev)
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
static void tb_end(struct tb *t, uint64_t pa)
{
	set32(t->buf + 4, (uint32_t)t->len);
	t->buf[9] = 0;
	t->buf[9] = csum(t->buf, t->len);
	mem_add(pa, t->buf, t->len);
	free(t->buf);
}

static void make_rsdp(uint8_t r[36], uint8_t rev, uint32_t rsdt, uint64_t xsdt)
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
static void make_root(const char *sig, uint64_t pa, const uint64_t *e, size_t n)
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

static void madt_begin(struct tb *t)
{
	tb_begin(t, "APIC", 5);
	tb_u32(t, 0xfee00000);
	tb_u32(t, 1);
}

static void madt_lapic(struct tb *t, uint8_t uid, uint8_t id, uint32_t fl)
{
	tb_u8(t, 0);
	tb_u8(t, 8);
	tb_u8(t, uid);
	tb_u8(t, id);
	tb_u32(t, fl);
}

static void madt_x2apic(struct tb *t, uint32_t id, uint32_t fl, uint32_t uid)
{
	tb_u8(t, 9);
	tb_u8(t, 16);
	tb_u16(t, 0);
	tb_u32(t, id);
	tb_u32(t, fl);
	tb_u32(t, uid);
}

static void madt_nmi(struct tb *t, uint8_t uid, uint16_t fl, uint8_t lint)
{
	tb_u8(t, 4);
	tb_u8(t, 6);
	tb_u8(t, uid);
	tb_u16(t, fl);
	tb_u8(t, lint);
}

/* A MADT with n CPUs (APIC ID = uid = i) at pa. */
static void make_madt(uint64_t pa, unsigned int n)
{
	struct tb t;

	madt_begin(&t);
	for (unsigned int i = 0; i < n; i++)
		madt_lapic(&t, (uint8_t)i, (uint8_t)i, 1);
	madt_nmi(&t, 0xff, 5, 1);
	tb_end(&t, pa);
}

/* A well-formed ACPI 2.0 machine: RSDP -> XSDT (and RSDT) -> MADT. */
static void make_machine(unsigned int ncpus)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];

	make_rsdp(r, 2, (uint32_t)(ROOT_PA + 0x800), ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 1);
	make_root("RSDT", ROOT_PA + 0x800, e, 1);
	make_madt(TABLE_PA, ncpus);
}

static struct blob *blob_mut(uint64_t pa)
{
	return (struct blob *)blob_at(pa);
}

static void test_built_machine(void **state)
{
	(void)state;
	make_machine(3);
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_true(ai.rsdp_pa == RSDP_PA);
	assert_true(ai.xsdt);
	assert_true(ai.root_pa == ROOT_PA);
	assert_int_equal(ai.madt.cpu_count, 3);
	assert_int_equal(ai.madt.cpus[2].nmi_flags, 5);
	assert_false(ai.fadt.present);
	assert_false(ai.hpet.present);
}

static void test_rsdp_bad_checksum(void **state)
{
	uint8_t r[36];

	(void)state;
	make_machine(2);
	blob_mut(RSDP_PA)->data[8] ^= 1;
	assert_int_equal(run(NULL, 0), -1);
	expect_error("RSDP at 0xf0000: bad checksum");
	expect_error("no valid RSDP");
	/* A good one further up is still found. */
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(0xffff0 - 16, r, 36);
	assert_int_equal(run(NULL, 0), 0);
	assert_true(ai.rsdp_pa == 0xfffe0);
	expect_error("RSDP at 0xf0000: bad checksum");
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* Revision 2 with a bad extended checksum: only the RSDT is trusted. */
static void test_rsdp_bad_ext_checksum(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(RSDP_PA)->data[32] ^= 1;
	assert_int_equal(run(NULL, 0), 0);
	expect_error("bad extended checksum: XSDT not used");
	assert_false(ai.xsdt);
	assert_true(ai.root_pa == ROOT_PA + 0x800);
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* A bad copy from the loader is reported, then the BIOS area is used. */
static void test_rsdp_bad_loader_copy(void **state)
{
	uint8_t r[36];

	(void)state;
	make_machine(2);
	memcpy(r, blob_at(RSDP_PA)->data, 36);
	r[0] = 'X';
	assert_int_equal(run(r, 36), 0);
	expect_error("RSDP from the loader: no \"RSD PTR \" signature");
	assert_false(ai.rsdp_from_loader);
	r[0] = 'R';
	assert_int_equal(run(r, 19), 0);
	expect_error("RSDP from the loader: only 19 bytes");
	expect_error("scanning the BIOS area for another RSDP");
	assert_int_equal(run(r, 36), 0);
	expect_no_errors();
	assert_true(ai.rsdp_from_loader);
}

static void test_xsdt_bad_checksum(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(ROOT_PA)->data[40] ^= 0x10; /* an entry byte */
	assert_int_equal(run(NULL, 0), 0);
	expect_error("XSDT at 0x7fe0000: bad checksum (its 44 bytes sum to "
		     "0x10, not 0): skipped");
	expect_error("XSDT unusable: using the RSDT");
	assert_false(ai.xsdt);
	assert_int_equal(ai.madt.cpu_count, 2);
	assert_int_equal(ai.table_count, 3); /* XSDT (bad), RSDT, APIC */
	assert_false(ai.tables[0].ok);
	assert_true(ai.tables[1].ok);
}

static void test_madt_bad_checksum(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(TABLE_PA)->data[50] ^= 1;
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC at 0x7fe1000: bad checksum (its 66 bytes sum to "
		     "0x01, not 0): skipped");
	expect_error("no usable MADT");
	assert_false(ai.madt.present);
	assert_int_equal(ai.madt.cpu_count, 0);
}

/*
 * A reader that refuses a range (the kernel's, for an address outside the
 * memory map) says why through acpi_err() on the acpi_info it is given as
 * its context; the parser then names the table it could not read.
 */
static const void *refusing_read(void *ctx, uint64_t pa, size_t len)
{
	if (pa >= TABLE_PA && pa < TABLE_PA + 0x1000) {
		acpi_err(ctx, "0x%llx (%zu bytes): refused",
			 (unsigned long long)pa, len);
		return NULL;
	}
	return mem_read(NULL, pa, len);
}

static void test_reader_refuses_table(void **state)
{
	(void)state;
	make_machine(2);
	assert_int_equal(acpi_parse(NULL, 0, refusing_read, &ai, &ai), 0);
	assert_int_equal(ai.error_count, 3);
	assert_string_equal(ai.errors[0], "0x7fe1000 (36 bytes): refused");
	assert_string_equal(ai.errors[1],
			    "table at 0x7fe1000: header not readable: skipped");
	expect_error("no usable MADT");
	assert_false(ai.madt.present);
	assert_true(ai.xsdt);
}

/* The header claims more bytes than can be read. */
static void test_table_truncated(void **state)
{
	(void)state;
	make_machine(2);
	blob_mut(TABLE_PA)->len -= 4;
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC at 0x7fe1000: length 66 runs past readable memory");
	assert_false(ai.madt.present);
}

static void test_table_bad_length(void **state)
{
	(void)state;
	make_machine(2);
	set32(blob_mut(TABLE_PA)->data + 4, 0);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC at 0x7fe1000: implausible length 0: skipped");
	set32(blob_mut(TABLE_PA)->data + 4, 35);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("implausible length 35");
	set32(blob_mut(TABLE_PA)->data + 4, 0x1000001);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("implausible length 16777217");
	assert_false(ai.madt.present);
}

static void test_table_junk_signature(void **state)
{
	(void)state;
	make_machine(2);
	memcpy(blob_mut(TABLE_PA)->data,
	       "\x00\x01"
	       "AB",
	       4);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("table at 0x7fe1000: signature \"\\x00\\x01AB\": skipped");
	assert_string_equal(ai.tables[1].sig, "??AB");
	/* A root table with the wrong signature is not used either. */
	memcpy(blob_mut(ROOT_PA)->data, "RSDT", 4);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("signature \"RSDT\", expected XSDT");
	assert_false(ai.xsdt);
}

static void test_xsdt_null_entry(void **state)
{
	uint64_t e[3] = {TABLE_PA, 0, TABLE_PA + 0x1000};
	uint8_t r[36];
	struct tb t;

	(void)state;
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 3);
	make_madt(TABLE_PA, 2);
	tb_begin(&t, "HPET", 1);
	tb_u32(&t, 0x8086a201);
	tb_bytes(&t, "\0\0\0\0\0\0\xd0\xfe\0\0\0\0\0\0\0\0", 16);
	tb_end(&t, TABLE_PA + 0x1000);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("XSDT: entry 1 is NULL: skipped");
	assert_int_equal(ai.error_count, 1);
	assert_int_equal(ai.madt.cpu_count, 2);
	expect_hpet();
}

/* ACPI 1.0: a revision 0 RSDP, an RSDT, 32-bit pointers only. */
static void test_rsdt_only(void **state)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];
	struct tb t;

	(void)state;
	make_rsdp(r, 0, (uint32_t)ROOT_PA, 0);
	mem_add(RSDP_PA, r, 20);
	make_root("RSDT", ROOT_PA, e, 1);
	make_madt(TABLE_PA, 4);
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.rsdp_revision, 0);
	assert_false(ai.xsdt);
	assert_int_equal(ai.madt.cpu_count, 4);
	/* Its RSDT ending inside an entry: the whole entries still count. */
	mem_teardown(NULL);
	mem_add(RSDP_PA, r, 20);
	tb_begin(&t, "RSDT", 1);
	tb_u32(&t, TABLE_PA);
	tb_u16(&t, 0);
	tb_end(&t, ROOT_PA);
	make_madt(TABLE_PA, 4);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("RSDT: length 42 ends inside an entry: ignored");
	assert_int_equal(ai.madt.cpu_count, 4);
}

static void test_missing_madt(void **state)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];
	struct tb t;

	(void)state;
	make_rsdp(r, 0, (uint32_t)ROOT_PA, 0);
	mem_add(RSDP_PA, r, 20);
	make_root("RSDT", ROOT_PA, e, 1);
	tb_begin(&t, "WAET", 1);
	tb_u32(&t, 2);
	tb_end(&t, TABLE_PA);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("no usable MADT (APIC table): CPUs unknown");
	assert_int_equal(ai.error_count, 1);
	assert_false(ai.madt.present);
	/* No root table at all is fatal. */
	blob_mut(ROOT_PA)->data[9] ^= 1;
	assert_int_equal(run(NULL, 0), -1);
	expect_error("no usable RSDT or XSDT");
}

/* Builds a machine whose only table is t (finished here). */
static void table_machine(struct tb *t)
{
	uint64_t e[1] = {TABLE_PA};
	uint8_t r[36];

	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 1);
	tb_end(t, TABLE_PA);
}

static void test_madt_duplicates(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 2, 1);
	madt_lapic(&t, 2, 2, 1);    /* same APIC ID as uid 1 */
	madt_x2apic(&t, 0, 1, 7);   /* and as uid 0, via x2APIC */
	madt_lapic(&t, 3, 0xff, 0); /* spare slots, never checked */
	madt_lapic(&t, 4, 0xff, 0);
	madt_lapic(&t, 5, 3, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: APIC ID 0x2 (uid 1) listed again (uid 2): "
		     "first entry kept");
	expect_error("APIC ID 0x0 (uid 0) listed again (uid 7)");
	assert_int_equal(ai.error_count, 2);
	assert_int_equal(ai.madt.cpu_count, 3);
	expect_cpu(1, 2, 1, false);
	expect_cpu(2, 3, 5, false);
	assert_int_equal(ai.madt.disabled_count, 2);
}

static void test_madt_zero_length_entry(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	tb_u8(&t, 0);
	tb_u8(&t, 0); /* length 0: where is the next entry? */
	madt_lapic(&t, 1, 1, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: entry at +0x34 (type 0) has length 0: rest of the "
		     "table ignored");
	assert_int_equal(ai.madt.cpu_count, 1);
}

static void test_madt_entry_past_end(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	madt_x2apic(&t, 5, 1, 5);
	t.len -= 4; /* the x2APIC entry now runs past the table */
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("entry at +0x34 (type 9) has length 16, past the end");
	assert_int_equal(ai.madt.cpu_count, 1);
	/* A lone trailing byte is reported too. */
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	tb_u8(&t, 0);
	mem_teardown(NULL);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: stray byte at +0x34: ignored");
	assert_int_equal(ai.madt.cpu_count, 1);
}

/* Unknown types are skipped by their length; short known ones reported. */
static void test_madt_unknown_and_short(void **state)
{
	static const uint8_t gicc[20] = {0x0b, 20};
	static const uint8_t future[7] = {0x7f, 7, 1, 2, 3, 4, 5};
	static const uint8_t short_lapic[6] = {0, 6, 9, 9, 1, 0};
	struct tb t;

	(void)state;
	madt_begin(&t);
	tb_bytes(&t, gicc, sizeof(gicc));
	madt_lapic(&t, 0, 0, 1);
	tb_bytes(&t, future, sizeof(future));
	tb_bytes(&t, short_lapic, sizeof(short_lapic));
	madt_lapic(&t, 1, 1, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: type 0 entry at +0x4f is 6 bytes, not 8: skipped");
	assert_int_equal(ai.error_count, 1);
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* Enabled CPUs first, then the online-capable ones, each in MADT order. */
static void test_madt_online_capable(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 10, 10, 2);
	madt_lapic(&t, 1, 1, 1);
	madt_x2apic(&t, 300, 2, 300);
	madt_x2apic(&t, 301, 2, 301);
	madt_lapic(&t, 2, 2, 1);
	madt_lapic(&t, 11, 11, 0);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_no_errors();
	assert_int_equal(ai.madt.cpu_count, 3);
	assert_int_equal(ai.madt.hotplug_count, 3);
	assert_int_equal(ai.madt.disabled_count, 1);
	for (uint32_t i = 0; i < 3; i++)
		expect_cpu(i, i, i, false);
	assert_int_equal(ai.madt.cpus[3].apic_id, 10);
	assert_int_equal(ai.madt.cpus[4].apic_id, 300);
	assert_int_equal(ai.madt.cpus[5].apic_id, 301);
	assert_true(ai.madt.cpus[5].online_capable);
	assert_true(ai.madt.cpus[5].x2apic);
	assert_non_null(acpi_find_cpu(&ai, 301));
	assert_int_equal(ai.madt.max_apic_id, 301);
}

static void test_madt_nmi_and_override(void **state)
{
	static const uint8_t ovr[12] = {5, 12, 0, 0, 0, 0, 0xe0, 0xfe, 1};
	static const uint8_t x2nmi[12] = {10, 12, 0x0d, 0, 44, 1, 0, 0, 0};
	struct tb t;

	(void)state;
	madt_begin(&t);
	madt_nmi(&t, 1, 5, 0); /* before the CPU it names */
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 1, 1);
	madt_x2apic(&t, 300, 1, 300);
	tb_bytes(&t, x2nmi, sizeof(x2nmi)); /* uid 300, LINT0 */
	madt_nmi(&t, 0, 0, 2);		    /* there is no LINT2 */
	tb_bytes(&t, ovr, sizeof(ovr));
	tb_bytes(&t, ovr, sizeof(ovr));
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: NMI entry for uid 0x0 names LINT2: ignored");
	expect_error("APIC: second local APIC address override: ignored");
	assert_int_equal(ai.error_count, 2);
	assert_int_equal(ai.madt.cpus[0].nmi_lint, ACPI_NO_NMI);
	assert_int_equal(ai.madt.cpus[1].nmi_lint, 0);
	assert_int_equal(ai.madt.cpus[1].nmi_flags, 5);
	assert_int_equal(ai.madt.cpus[2].nmi_lint, 0);
	assert_int_equal(ai.madt.cpus[2].nmi_flags, 0xd);
	assert_int_equal(ai.madt.nmi_count, 2);
	assert_true(ai.madt.lapic_override);
	assert_true(ai.madt.lapic_addr == 0x1fee00000ull);
}

/* More CPUs than the list holds: the rest are counted, not kept. */
static void test_madt_too_many_cpus(void **state)
{
	struct tb t;

	(void)state;
	madt_begin(&t);
	for (uint32_t i = 0; i < ACPI_MAX_CPUS + 4; i++)
		madt_x2apic(&t, i, 1, i);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("APIC: more than 4096 CPUs: rest ignored");
	assert_int_equal(ai.error_count, 1);
	assert_int_equal(ai.madt.cpu_count, ACPI_MAX_CPUS);
	assert_int_equal(ai.madt.dropped_count, 4);
	assert_int_equal(ai.madt.max_apic_id, ACPI_MAX_CPUS - 1);
}

/* Two MADTs: the first valid one counts. */
static void test_second_madt_ignored(void **state)
{
	uint64_t e[2] = {TABLE_PA, TABLE_PA + 0x1000};
	uint8_t r[36];

	(void)state;
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 2);
	make_madt(TABLE_PA, 2);
	make_madt(TABLE_PA + 0x1000, 3);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("another APIC table at 0x7fe2000: ignored");
	assert_int_equal(ai.madt.cpu_count, 2);
}

/* A FADT of len bytes, all fields zero but those set afterwards. */
static void fadt_begin(struct tb *t, uint8_t rev, size_t len)
{
	tb_begin(t, "FACP", rev);
	while (t->len < len)
		tb_u8(t, 0);
}

static void test_fadt_fields(void **state)
{
	struct tb t;

	(void)state;
	fadt_begin(&t, 6, 276);
	set32(t.buf + 40, 0x1000);		    /* DSDT */
	set32(t.buf + 140, 0x2000);		    /* X_DSDT wins */
	set32(t.buf + 76, 0x408);		    /* PM_TMR_BLK ... */
	t.buf[91] = 4;				    /* ... but */
	memcpy(t.buf + 208, "\x00\x20\x00\x03", 4); /* X_PM_TMR_BLK */
	set32(t.buf + 212, 0xfed80000);		    /* in memory */
	set32(t.buf + 112, (1u << 8) | (1u << 10) | (1u << 20));
	memcpy(t.buf + 116, "\x01\x08\x00\x01\xf9\x0c", 6);
	t.buf[128] = 6;
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("no usable MADT");
	assert_int_equal(ai.error_count, 1);
	assert_true(ai.fadt.dsdt == 0x2000);
	assert_true(ai.fadt.pm_timer);
	assert_int_equal(ai.fadt.pm_timer_reg.space, ACPI_GAS_MEMORY);
	assert_true(ai.fadt.pm_timer_reg.addr == 0xfed80000);
	assert_true(ai.fadt.pm_timer_32bit);
	assert_true(ai.fadt.hw_reduced);
	assert_true(ai.fadt.reset);
	assert_true(ai.fadt.reset_reg.addr == 0xcf9);
	assert_int_equal(ai.fadt.reset_value, 6);
}

static void test_fadt_short(void **state)
{
	struct tb t;

	(void)state;
	/* RESET_REG_SUP in a table that ends before RESET_REG. */
	fadt_begin(&t, 1, 120);
	set32(t.buf + 112, 1u << 10);
	set32(t.buf + 76, 0x608);
	t.buf[91] = 4;
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("FACP: RESET_REG_SUP set but the table is only 120 bytes");
	assert_true(ai.fadt.present);
	assert_false(ai.fadt.reset);
	assert_true(ai.fadt.pm_timer_reg.addr == 0x608);
	/* Shorter than ACPI 1.0's FADT: not used at all. */
	mem_teardown(NULL);
	fadt_begin(&t, 1, 100);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("FACP: 100 bytes, shorter than ACPI 1.0's 116: skipped");
	assert_false(ai.fadt.present);
}

static void test_hpet_short(void **state)
{
	struct tb t;

	(void)state;
	tb_begin(&t, "HPET", 1);
	tb_u32(&t, 1);
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("HPET: 40 bytes, not 56: skipped");
	assert_false(ai.hpet.present);
}

static void test_srat_entries(void **state)
{
	static const uint8_t cpu0[16] = {0, 16, 0x34, 7,    1, 0,
					 0, 0,	0,    0x12, 0, 0};
	static const uint8_t cpu_off[16] = {0, 16, 9, 8, 0};
	static const uint8_t short_x2[20] = {2, 20};
	struct tb t;

	(void)state;
	tb_begin(&t, "SRAT", 3);
	tb_u32(&t, 1);
	tb_u64(&t, 0);
	tb_bytes(&t, cpu0, 16); /* domain 0x1234 for APIC ID 7 */
	tb_bytes(&t, cpu_off, 16);
	tb_u8(&t, 2); /* x2APIC affinity: ID 0x10000 in domain 3 */
	tb_u8(&t, 24);
	tb_u16(&t, 0);
	tb_u32(&t, 3);
	tb_u32(&t, 0x10000);
	tb_u32(&t, 1);
	tb_u64(&t, 0);
	tb_u8(&t, 1); /* memory: 4 GiB at 4 GiB in domain 3, hot-pluggable */
	tb_u8(&t, 40);
	tb_u32(&t, 3);
	tb_u16(&t, 0);
	tb_u64(&t, 1ull << 32);
	tb_u64(&t, 1ull << 32);
	tb_u32(&t, 0);
	tb_u32(&t, 3);
	tb_u64(&t, 0);
	tb_bytes(&t, short_x2, sizeof(short_x2));
	table_machine(&t);
	assert_int_equal(run(NULL, 0), 0);
	expect_error("SRAT: type 2 entry at +0x90 is 20 bytes, not 24");
	assert_int_equal(ai.error_count, 2); /* and no MADT */
	assert_int_equal(ai.srat.cpu_count, 2);
	assert_int_equal(ai.srat.disabled_count, 1);
	assert_int_equal(acpi_srat_domain(&ai, 7), 0x1234);
	assert_int_equal(acpi_srat_domain(&ai, 0x10000), 3);
	assert_true(ai.srat.cpus[1].x2apic);
	assert_int_equal(ai.srat.mem_count, 1);
	assert_true(ai.srat.mem[0].base == 1ull << 32);
	assert_true(ai.srat.mem[0].hotplug);
	assert_false(ai.srat.mem[0].nonvolatile);
}

/* Only the first ACPI_ERR_MAX messages are kept; all are counted. */
static void test_error_overflow(void **state)
{
	uint64_t e[20];
	uint8_t r[36];

	(void)state;
	for (int i = 0; i < 20; i++)
		e[i] = 0;
	e[19] = TABLE_PA;
	make_rsdp(r, 2, 0, ROOT_PA);
	mem_add(RSDP_PA, r, 36);
	make_root("XSDT", ROOT_PA, e, 20);
	make_madt(TABLE_PA, 1);
	assert_int_equal(run(NULL, 0), 0);
	assert_int_equal(ai.error_count, 19);
	assert_string_equal(ai.errors[ACPI_ERR_MAX - 1],
			    "XSDT: entry 15 is NULL: skipped");
	assert_int_equal(ai.madt.cpu_count, 1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, mem_setup, mem_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pc4_scan),
		T(test_q35_4),
		T(test_q35_4_loader_copy),
		T(test_q35_300_qemu10),
		T(test_q35_numa_epyc),
		T(test_q35_4_uefi),
		T(test_ebda_first),
		T(test_built_machine),
		T(test_rsdp_bad_checksum),
		T(test_rsdp_bad_ext_checksum),
		T(test_rsdp_bad_loader_copy),
		T(test_xsdt_bad_checksum),
		T(test_madt_bad_checksum),
		T(test_reader_refuses_table),
		T(test_table_truncated),
		T(test_table_bad_length),
		T(test_table_junk_signature),
		T(test_xsdt_null_entry),
		T(test_rsdt_only),
		T(test_missing_madt),
		T(test_madt_duplicates),
		T(test_madt_zero_length_entry),
		T(test_madt_entry_past_end),
		T(test_madt_unknown_and_short),
		T(test_madt_online_capable),
		T(test_madt_nmi_and_override),
		T(test_madt_too_many_cpus),
		T(test_second_madt_ignored),
		T(test_fadt_fields),
		T(test_fadt_short),
		T(test_hpet_short),
		T(test_srat_entries),
		T(test_error_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
