// SPDX-License-Identifier: MIT
/*
 * Host tests of kernel/smbios_cpu.c: crafted type 4 structures of each
 * size the versions define (2.0 up to the status, 2.5, 3.0, 3.6), the
 * counts' escapes (0 unknown, 0xFF "see Count 2"), disabled and empty
 * sockets, a BIOS that turned SMT or cores off, and whole tables through
 * smbios_parse_table().
 */
#include "unit.h"
#include "kernel/smbios.h"

#define LEN_20		   0x1a /* 2.0: up to Processor Upgrade */
#define LEN_25		   0x28 /* 2.5: Core Count, Core Enabled, Thread Count */
#define LEN_30		   0x30 /* 3.0: their 16-bit forms */
#define LEN_36		   0x32 /* 3.6: Thread Enabled */

#define POPULATED_ENABLED  0x41
#define POPULATED_OFF_BIOS 0x43 /* disabled by the BIOS (POST error) */
#define EMPTY_SOCKET	   0x00

struct t4 {
	uint8_t b[LEN_36];
	size_t len;
};

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* A type 4 of len bytes; the 8-bit counts, and their 16-bit forms when
 * len holds them (the 8-bit value, or the count where it is 0xFF). */
static struct t4 t4(size_t len, uint8_t status, unsigned cores,
		    unsigned cores_en, unsigned threads, unsigned threads_en)
{
	struct t4 t = {.len = len};

	t.b[0] = 4;
	t.b[1] = (uint8_t)len;
	t.b[0x18] = status;
	t.b[0x23] = cores > 0xff ? 0xff : (uint8_t)cores;
	t.b[0x24] = cores_en > 0xff ? 0xff : (uint8_t)cores_en;
	t.b[0x25] = threads > 0xff ? 0xff : (uint8_t)threads;
	put16(t.b + 0x2a, cores);
	put16(t.b + 0x2c, cores_en);
	put16(t.b + 0x2e, threads);
	put16(t.b + 0x30, threads_en);
	return t;
}

static struct smbios_cpus add(struct smbios_cpus c, struct t4 t)
{
	smbios_cpus_add(t.b, t.len, &c);
	return c;
}

/* QEMU's -smp sockets=4,cores=1: four sockets of one core each. */
static void test_four_sockets(void **state)
{
	struct smbios_cpus c = {0};
	char buf[128];

	(void)state;
	for (int i = 0; i < 4; i++)
		c = add(c, t4(LEN_30, POPULATED_ENABLED, 1, 1, 1, 0));
	assert_int_equal(c.structs, 4);
	assert_int_equal(c.sockets, 4);
	assert_int_equal(c.cores, 4);
	assert_int_equal(c.cores_enabled, 4);
	assert_int_equal(c.threads, 4);
	assert_int_equal(c.unknown, SMBIOS_CPU_THREADS_ENABLED);
	assert_int_equal(c.cpus_min, 4);
	assert_int_equal(c.cpus_max, 4);
	assert_false(c.some_off || c.max_unknown);
	smbios_cpus_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "4 populated sockets: cores 4, enabled 4; "
				 "threads 4, enabled not given");
}

/* SMT off in the BIOS: Thread Count 2 per core, Thread Enabled 1 (3.6);
 * before 3.6, only Core Enabled counts, Thread Count never does. */
static void test_smt_off(void **state)
{
	struct smbios_cpus c = {0};

	(void)state;
	c = add(c, t4(LEN_36, POPULATED_ENABLED, 8, 8, 16, 8));
	c = add(c, t4(LEN_36, POPULATED_ENABLED, 8, 8, 16, 8));
	assert_int_equal(c.threads, 32);
	assert_int_equal(c.threads_enabled, 16);
	assert_int_equal(c.unknown, 0);
	assert_int_equal(c.cpus_min, 16);
	assert_int_equal(c.cpus_max, 16);
	assert_true(c.some_off);
	c = (struct smbios_cpus){0};
	c = add(c, t4(LEN_25, POPULATED_ENABLED, 8, 8, 16, 0));
	assert_int_equal(c.cpus_min, 8);
	/* SMT may be on: 2 threads per core at most; nothing says off */
	assert_int_equal(c.cpus_max, 16);
	assert_false(c.some_off);
	/* SMT on, 3.6: every thread is enabled. */
	c = (struct smbios_cpus){0};
	c = add(c, t4(LEN_36, POPULATED_ENABLED, 8, 8, 16, 16));
	assert_int_equal(c.cpus_min, 16);
}

/* Cores turned off: Core Enabled < Core Count, and only the enabled are
 * counted. */
static void test_cores_off(void **state)
{
	struct smbios_cpus c = {0};

	(void)state;
	c = add(c, t4(LEN_30, POPULATED_ENABLED, 16, 4, 32, 0));
	assert_int_equal(c.cores, 16);
	assert_int_equal(c.cores_enabled, 4);
	assert_int_equal(c.cpus_min, 4);
	assert_int_equal(c.cpus_max, 8); /* 4 enabled of 2 threads each */
	assert_true(c.some_off);
}

/* 0xFF: the 16-bit form (3.0) holds the count; without one, unknown. */
static void test_count2(void **state)
{
	struct smbios_cpus c = {0};
	struct t4 t = t4(LEN_30, POPULATED_ENABLED, 300, 300, 600, 0);

	(void)state;
	c = add(c, t);
	assert_int_equal(c.cores, 300);
	assert_int_equal(c.cores_enabled, 300);
	assert_int_equal(c.threads, 600);
	assert_int_equal(c.cpus_min, 300);
	c = (struct smbios_cpus){0};
	t.len = LEN_25;
	t.b[1] = LEN_25;
	c = add(c, t);
	assert_int_equal(c.unknown, SMBIOS_CPU_CORES |
					    SMBIOS_CPU_CORES_ENABLED |
					    SMBIOS_CPU_THREADS |
					    SMBIOS_CPU_THREADS_ENABLED);
	assert_int_equal(c.cpus_min, 1); /* populated, enabled: one at least */
	assert_true(c.max_unknown);
	assert_false(c.some_off);
	/* 0xFFFF in a 16-bit count is reserved: unknown too. */
	c = (struct smbios_cpus){0};
	t = t4(LEN_36, POPULATED_ENABLED, 0xffff, 0xffff, 0xffff, 0xffff);
	c = add(c, t);
	assert_int_equal(c.unknown, SMBIOS_CPU_CORES |
					    SMBIOS_CPU_CORES_ENABLED |
					    SMBIOS_CPU_THREADS |
					    SMBIOS_CPU_THREADS_ENABLED);
	assert_int_equal(c.cpus_min, 1);
}

/* Count 0 is unknown; a status "enabled" still vouches for one CPU, an
 * unknown status for none. */
static void test_unknown(void **state)
{
	struct smbios_cpus c = {0};

	(void)state;
	c = add(c, t4(LEN_30, POPULATED_ENABLED, 0, 0, 0, 0));
	assert_int_equal(c.sockets, 1);
	assert_int_equal(c.cpus_min, 1);
	c = add(c, t4(LEN_30, 0x40, 0, 0, 0, 0)); /* populated, status 0 */
	assert_int_equal(c.sockets, 2);
	assert_int_equal(c.cpus_min, 1);
	/* One known socket and one unknown: the sum is not a count. */
	c = add(c, t4(LEN_30, POPULATED_ENABLED, 2, 2, 2, 0));
	assert_true(c.unknown & SMBIOS_CPU_CORES);
	assert_int_equal(c.cpus_min, 3);
}

/* Empty and disabled sockets, and structures too short for a status. */
static void test_empty_disabled_truncated(void **state)
{
	struct smbios_cpus c = {0};
	char buf[128];

	(void)state;
	c = add(c, t4(LEN_30, EMPTY_SOCKET, 4, 4, 4, 0));
	c = add(c, t4(LEN_30, POPULATED_OFF_BIOS, 4, 4, 4, 0));
	c = add(c, t4(0x18, POPULATED_ENABLED, 4, 4, 4, 0)); /* no status */
	c = add(c, t4(4, POPULATED_ENABLED, 4, 4, 4, 0));
	assert_int_equal(c.structs, 4);
	assert_int_equal(c.sockets, 1);
	assert_int_equal(c.disabled, 1);
	assert_int_equal(c.cores_enabled, 4);
	assert_int_equal(c.cpus_min, 0);
	assert_int_equal(c.cpus_max, 0); /* the disabled socket has none */
	assert_false(c.max_unknown);
	smbios_cpus_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "1 populated socket (1 disabled): cores 4, "
				 "enabled 4; threads 4, enabled not given");
	/* A 2.0 structure: a status, no counts. */
	c = (struct smbios_cpus){0};
	c = add(c, t4(LEN_20, POPULATED_ENABLED, 4, 4, 4, 0));
	assert_int_equal(c.unknown, SMBIOS_CPU_CORES |
					    SMBIOS_CPU_CORES_ENABLED |
					    SMBIOS_CPU_THREADS |
					    SMBIOS_CPU_THREADS_ENABLED);
	assert_int_equal(c.cpus_min, 1);
	c = (struct smbios_cpus){0};
	smbios_cpus_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "0 populated sockets of 0");
}

/* A table of type 4s and their (empty) string sets; the end-of-table. */
static size_t table(uint8_t *out, const struct t4 *t, size_t n)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		memcpy(out + at, t[i].b, t[i].len);
		at += t[i].len;
		out[at++] = 0;
		out[at++] = 0;
	}
	memcpy(out + at, (uint8_t[]){127, 4, 0, 0, 0, 0}, 6);
	return at + 6;
}

static void test_parse_table(void **state)
{
	struct t4 t[2] = {t4(LEN_30, POPULATED_ENABLED, 2, 2, 2, 0),
			  t4(LEN_30, POPULATED_ENABLED, 2, 2, 2, 0)};
	struct smbios_info sm;
	uint8_t buf[256];
	size_t len = table(buf, t, 2);

	(void)state;
	memset(&sm, 0xa5, sizeof(sm));
	assert_true(smbios_parse_table(buf, len, &sm));
	assert_int_equal(sm.cpus.sockets, 2);
	assert_int_equal(sm.cpus.cpus_min, 4);
	/* A table cut inside the second structure: refused, counts zero. */
	assert_false(smbios_parse_table(buf, LEN_30 + 2 + 10, &sm));
	assert_int_equal(sm.cpus.structs, 0);
	assert_int_equal(sm.cpus.cpus_min, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_sockets),
		cmocka_unit_test(test_smt_off),
		cmocka_unit_test(test_cores_off),
		cmocka_unit_test(test_count2),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_empty_disabled_truncated),
		cmocka_unit_test(test_parse_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
