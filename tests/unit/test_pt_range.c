// SPDX-License-Identifier: MIT
/*
 * Host tests of the page tables when memory runs out part way (every
 * change undone) and of mapping a range in the largest pages that fit
 * (mm/pt_range.c), over the simulated memory of tests/unit/pt_sim.h.
 */
#include "pt_sim.h"

struct snap {
	bool used[NPAGES];
	uint8_t buf[NPAGES * PG];
};

static void take_snap(struct snap *sn)
{
	memcpy(sn->used, mem->used, sizeof(sn->used));
	memcpy(sn->buf, mem->buf, sizeof(sn->buf));
}

static void check_snap(const struct snap *sn)
{
	assert_memory_equal(sn->used, mem->used, sizeof(sn->used));
	for (int i = 0; i < NPAGES; i++) {
		if (sn->used[i])
			assert_memory_equal(sn->buf + i * PG, mem->buf + i * PG,
					    PG);
	}
}

/* Out of table memory leaves the tables exactly as they were. */
static void test_enomem(void **state)
{
	struct snap *sn = malloc(sizeof(*sn));
	const uint64_t va = 0x123400000000;

	(void)state;
	assert_non_null(sn);
	for (int budget = 0; budget < 3; budget++) {
		take_snap(sn);
		mem->budget = budget;
		assert_int_equal(pt_map(&pt, va, 0x1000, PT_4K, PTE_P, NULL),
				 PT_ENOMEM);
		assert_int_equal(mem->live, 1);
		assert_int_equal(pt.tables, 1);
		check_snap(sn);
		assert_false(walk(va).mapped);
	}
	mem->budget = 3;
	assert_int_equal(pt_map(&pt, va, 0x1000, PT_4K, PTE_P, NULL), PT_OK);
	assert_int_equal(
		pt_map(&pt, va + 2 * MIB, 0x200000, PT_2M, PTE_P, NULL), PT_OK);
	take_snap(sn);
	assert_int_equal(pt_split(&pt, va + 2 * MIB, PT_2M, NULL), PT_ENOMEM);
	assert_int_equal(pt_map(&pt, va + GIB, 0, PT_4K, PTE_P, NULL),
			 PT_ENOMEM);
	check_snap(sn);
	assert_int_equal(walk(va + 2 * MIB).size, PT_2M);
	mem->budget = -1;
	assert_int_equal(pt_split(&pt, va + 2 * MIB, PT_2M, NULL), PT_OK);
	assert_int_equal(pt.tables, 5);
	assert_int_equal(mem->live, 5);
	free(sn);
}

/*
 * Walks [va, va + len) page by page, checking the translation, and counts
 * the pages of each size (n[size]).
 */
static void count_pages(uint64_t va, uint64_t pa, uint64_t len, int n[4])
{
	memset(n, 0, 4 * sizeof(n[0]));
	for (uint64_t off = 0; off < len;) {
		struct pt_walk w = walk(va + off);
		uint64_t bytes = pt_size_bytes(w.size);

		assert_true(w.mapped);
		assert_int_equal(w.pa, pa + off);
		assert_int_equal((va + off) & (bytes - 1), 0);
		n[w.size]++;
		off += bytes;
	}
}

static void test_map_range(void **state)
{
	/* 2 pages to a 2 MiB boundary, 1 to a 1 GiB one, then back down. */
	const uint64_t va = GIB - 2 * MIB - 2 * PG;
	const uint64_t pa = 3 * GIB - 2 * MIB - 2 * PG;
	const uint64_t len = 2 * PG + 2 * MIB + GIB + 2 * MIB + PG;
	const unsigned int all = PT_ALLOW_4K | PT_ALLOW_2M | PT_ALLOW_1G;
	uint64_t done = 1;
	int n[4];

	(void)state;
	assert_int_equal(pt_map_range(&pt, va, pa, len, PTE_P, all, &done),
			 PT_OK);
	assert_int_equal(done, len);
	count_pages(va, pa, len, n);
	assert_int_equal(n[PT_1G], 1);
	assert_int_equal(n[PT_2M], 2);
	assert_int_equal(n[PT_4K], 3);
	assert_false(walk(va + len).mapped);
	assert_false(walk(va - PG).mapped);
	/* The same without 1 GiB pages: 2 MiB ones instead. */
	assert_int_equal(pt_map_range(&pt, va + 4 * GIB, pa, len, PTE_P,
				      PT_ALLOW_4K | PT_ALLOW_2M, &done),
			 PT_OK);
	count_pages(va + 4 * GIB, pa, len, n);
	assert_int_equal(n[PT_1G], 0);
	assert_int_equal(n[PT_2M], 514);
	assert_int_equal(n[PT_4K], 3);
	/* Exactly one page of each size. */
	assert_int_equal(pt_map_range(&pt, 64 * GIB, 2 * MIB, 2 * MIB, PTE_P,
				      all, &done),
			 PT_OK);
	assert_int_equal(walk(64 * GIB).size, PT_2M);
	assert_int_equal(
		pt_map_range(&pt, 65 * GIB, GIB, GIB, PTE_P, all, &done),
		PT_OK);
	assert_int_equal(walk(65 * GIB).size, PT_1G);
	assert_int_equal(done, GIB);
	/* Only 4 KiB allowed. */
	assert_int_equal(pt_map_range(&pt, 32 * GIB, 0, 4 * MIB, PTE_P,
				      PT_ALLOW_4K, &done),
			 PT_OK);
	count_pages(32 * GIB, 0, 4 * MIB, n);
	assert_int_equal(n[PT_4K], 1024);
	assert_int_equal(n[PT_2M], 0);
	/* va and pa differently aligned: 4 KiB only. */
	assert_int_equal(pt_map_range(&pt, 16 * GIB + PG, 2 * MIB, 4 * MIB,
				      PTE_P, all, &done),
			 PT_OK);
	assert_int_equal(walk(16 * GIB + 2 * MIB).size, PT_4K);
	assert_int_equal(walk(16 * GIB + 2 * MIB).pa, 4 * MIB - PG);
}

static void test_map_range_errors(void **state)
{
	const unsigned int all = PT_ALLOW_4K | PT_ALLOW_2M | PT_ALLOW_1G;
	uint64_t done = 1;

	(void)state;
	assert_int_equal(pt_map_range(&pt, 0, 0, 0, PTE_P, all, &done), PT_OK);
	assert_int_equal(done, 0);
	assert_int_equal(pt_map_range(&pt, PG, 0, PG, PTE_P, 0, &done),
			 PT_ESIZE);
	assert_int_equal(pt_map_range(&pt, PG, 0, PG, PTE_P, 1u, &done),
			 PT_ESIZE);
	assert_int_equal(pt_map_range(&pt, PG, 0, 100, PTE_P, all, &done),
			 PT_EUNALIGNED);
	assert_int_equal(
		pt_map_range(&pt, 2 * MIB, 0, PG, PTE_P, PT_ALLOW_2M, &done),
		PT_EUNALIGNED);
	assert_int_equal(pt_map_range(&pt, (1ull << 47) - PG, 0, 2 * PG, PTE_P,
				      all, &done),
			 PT_ENONCANON);
	assert_int_equal(
		pt_map_range(&pt, ~0ull - PG + 1, 0, 2 * PG, PTE_P, all, &done),
		PT_ENONCANON);
	assert_int_equal(pt_map_range(&pt, PG, (1ull << 52) - PG, 2 * PG, PTE_P,
				      all, &done),
			 PT_EBADPA);
	assert_int_equal(pt_map_range(&pt, PG, 0, PG, 0, all, &done),
			 PT_EFLAGS);
	assert_int_equal(done, 0);
	assert_int_equal(mem->live, 1);
	/* A conflict in the middle: the part before it stays mapped. */
	assert_int_equal(pt_map(&pt, 0x10000 + 5 * PG, 0, PT_4K, PTE_P, NULL),
			 PT_OK);
	assert_int_equal(
		pt_map_range(&pt, 0x10000, 0, 8 * PG, PTE_P, all, &done),
		PT_EEXIST);
	assert_int_equal(done, 5 * PG);
	assert_true(walk(0x10000 + 4 * PG).mapped);
	assert_false(walk(0x10000 + 6 * PG).mapped);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_enomem),
		T(test_map_range),
		T(test_map_range_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
