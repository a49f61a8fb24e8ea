// SPDX-License-Identifier: MIT
/*
 * Host tests of what each flush strategy does (bench/flush_how.c): Linux's
 * two rules at the single-page ceiling, and the INVLPGB encoding of the
 * INVLPGB strategies: invlpgb in CPUID-max chunks whatever the range,
 * invlpgb-linux in chunks up to the ceiling and one full flush of every
 * non-global entry (VA-valid clear, ASID-valid with ASID 0: the bare-metal
 * form) beyond it, as Linux's broadcast_tlb_flush() does. Registers are
 * written as literals against the APM's layout (rAX bit 0 VA valid, bit 2
 * ASID valid, bit 3 global; ECX[15:0] additional pages).
 */
#include "unit.h"
#include "bench/flush_how.h"

#define VA 0x100400000000ull

static const struct invlpgb_caps zen4 = {.max_pages = 8};

/* how over `pages` 4 KiB pages at VA into out[]; the instruction count. */
static size_t encode(enum flush_how how, uint32_t pages, bool global,
		     struct invlpgb_regs *out, size_t cap)
{
	struct invlpgb_req range = {
		.va = VA, .pages = pages, .include_global = global};
	size_t n = 77;

	assert_int_equal(flush_encode_invlpgb(how, &range, &zen4, out, cap, &n),
			 INVLPGB_OK);
	return n;
}

/* Chunks of 8 from VA, the last one short, ASID 0 only. */
static void assert_chunks(const struct invlpgb_regs *r, size_t n,
			  uint32_t pages, uint64_t flags)
{
	assert_int_equal(n, (pages + 7) / 8);
	for (size_t i = 0; i < n; i++) {
		uint32_t left = pages - 8 * (uint32_t)i;

		assert_int_equal(r[i].rax, (VA + i * 8 * 4096) | flags);
		assert_int_equal(r[i].ecx, (left < 8 ? left : 8) - 1);
		assert_int_equal(r[i].edx, 0);
	}
}

static void test_resolve(void **state)
{
	(void)state;
	assert_int_equal(FLUSH_SINGLE_PAGE_CEILING, 33); /* Linux's value */
	assert_int_equal(flush_resolve(FLUSH_IPI_LINUX, 1), FLUSH_IPI_RANGE);
	assert_int_equal(flush_resolve(FLUSH_IPI_LINUX, 33), FLUSH_IPI_RANGE);
	assert_int_equal(flush_resolve(FLUSH_IPI_LINUX, 34), FLUSH_IPI_FULL);
	assert_int_equal(flush_resolve(FLUSH_INVLPGB_LINUX, 1), FLUSH_INVLPGB);
	assert_int_equal(flush_resolve(FLUSH_INVLPGB_LINUX, 33), FLUSH_INVLPGB);
	assert_int_equal(flush_resolve(FLUSH_INVLPGB_LINUX, 34),
			 FLUSH_INVLPGB_ALL);
	assert_int_equal(flush_resolve(FLUSH_INVLPGB_LINUX, 512),
			 FLUSH_INVLPGB_ALL);
	/* The others do what they say at any size. */
	assert_int_equal(flush_resolve(FLUSH_INVLPGB, 512), FLUSH_INVLPGB);
	assert_int_equal(flush_resolve(FLUSH_IPI_RANGE, 512), FLUSH_IPI_RANGE);
	assert_int_equal(flush_resolve(FLUSH_IPI_FULL, 1), FLUSH_IPI_FULL);
	assert_true(flush_is_invlpgb(FLUSH_INVLPGB_LINUX));
	assert_true(flush_is_invlpgb(FLUSH_INVLPGB_ALL));
	assert_true(flush_is_invlpgb(FLUSH_INVLPGB));
	assert_false(flush_is_invlpgb(FLUSH_IPI_LINUX));
	assert_false(flush_is_invlpgb(FLUSH_IPI_LOCAL_ONLY));
}

/* Up to the ceiling invlpgb-linux is invlpgb: chunks, nothing else. */
static void test_linux_chunks(void **state)
{
	static const uint32_t ks[] = {1, 8, 9, 32, 33};
	struct invlpgb_regs a[64], b[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
		size_t n = encode(FLUSH_INVLPGB_LINUX, ks[i], false, a, 64);

		assert_chunks(a, n, ks[i], 0x1 | 0x4);
		assert_int_equal(encode(FLUSH_INVLPGB, ks[i], false, b, 64), n);
		assert_memory_equal(a, b, n * sizeof(*a));
	}
	/* 33 pages at 8 a piece: five instructions, the last of one page. */
	assert_int_equal(encode(FLUSH_INVLPGB_LINUX, 33, false, a, 64), 5);
	assert_int_equal(a[4].ecx, 0);
}

/* Beyond it: one INVLPGB of every non-global entry, where invlpgb chunks. */
static void test_linux_full(void **state)
{
	static const uint32_t ks[] = {34, 64, 512};
	struct invlpgb_regs r[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
		assert_int_equal(
			encode(FLUSH_INVLPGB_LINUX, ks[i], false, r, 1), 1);
		assert_int_equal(r[0].rax, 0x4); /* VA-valid clear, ASID 0 */
		assert_int_equal(r[0].ecx, 0);
		assert_int_equal(r[0].edx, 0);
		assert_chunks(r, encode(FLUSH_INVLPGB, ks[i], false, r, 64),
			      ks[i], 0x1 | 0x4);
	}
	/* The invlpgb-global form, should a caller ask: include-global. */
	encode(FLUSH_INVLPGB_LINUX, 512, true, r, 1);
	assert_int_equal(r[0].rax, 0x4 | 0x8);
	/* What the model decodes it as: every address, non-global only. */
	encode(FLUSH_INVLPGB_LINUX, 512, false, r, 1);
	struct invlpgb_req d;

	assert_int_equal(invlpgb_decode(&r[0], &zen4, &d), INVLPGB_OK);
	assert_true(d.all_va);
	assert_false(d.include_global || d.pcid_valid || d.all_asids);
	assert_int_equal(d.asid, 0);
}

/* The encoder's refusals come through, and nothing is left in *n. */
static void test_errors(void **state)
{
	struct invlpgb_req range = {.va = VA, .pages = 33};
	struct invlpgb_regs r[8];
	size_t n = 77;

	(void)state;
	/* 33 pages need 5 instructions: 4 are too few. */
	assert_int_equal(flush_encode_invlpgb(FLUSH_INVLPGB_LINUX, &range,
					      &zen4, r, 4, &n),
			 INVLPGB_ENOSPACE);
	assert_int_equal(n, 0);
	range.pages = 34; /* one instruction fits where 5 chunks would not */
	assert_int_equal(flush_encode_invlpgb(FLUSH_INVLPGB_LINUX, &range,
					      &zen4, r, 1, &n),
			 INVLPGB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(
		flush_encode_invlpgb(FLUSH_IPI_LINUX, &range, &zen4, r, 8, &n),
		INVLPGB_ENOTSUP);
	assert_int_equal(n, 0);
	assert_int_equal(flush_encode_invlpgb(FLUSH_INVLPGB_LINUX, &range,
					      &(struct invlpgb_caps){0}, r, 8,
					      &n),
			 INVLPGB_ENOTSUP);
	/* A 2 MiB stride over 4 KiB pages is refused below the ceiling. */
	range.pages = 9;
	range.stride = INVLPGB_2M;
	assert_int_equal(flush_encode_invlpgb(FLUSH_INVLPGB_LINUX, &range,
					      &zen4, r, 8, &n),
			 INVLPGB_ESTRIDE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_linux_chunks),
		cmocka_unit_test(test_linux_full),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
