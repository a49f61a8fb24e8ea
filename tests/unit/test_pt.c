// SPDX-License-Identifier: MIT
/*
 * Host tests of the page tables (mm/pt.c): map, unmap, protect, split,
 * over the simulated physical memory of tests/unit/pt_sim.h.
 */
#include "pt_sim.h"

static void test_create(void **state)
{
	struct pt_ctx c = pt;

	(void)state;
	assert_int_equal(pt.tables, 1);
	assert_int_equal(mem->live, 1);
	assert_int_equal(pt.root % PG, 0);
	for (int i = 0; i < PT_ENTRIES; i++)
		assert_int_equal(root_table()[i], 0);
	mem->budget = 0;
	assert_int_equal(pt_create(&c), PT_ENOMEM);
	assert_int_equal(c.root, pt.root);
}

static void test_map_4k(void **state)
{
	const uint64_t va = 0x7f0000401000, pa = 0x123456000;
	const uint64_t flags = PTE_P | PTE_W | PTE_NX | PTE_A;
	uint64_t old = 1;
	struct pt_walk w;

	(void)state;
	assert_int_equal(pt_map(&pt, va, pa, PT_4K, flags, &old), PT_OK);
	assert_int_equal(old, 0);
	assert_int_equal(pt.tables, 4);
	assert_int_equal(mem->live, 4);
	w = walk(va + 0x123);
	assert_true(w.mapped);
	assert_int_equal(w.size, PT_4K);
	assert_int_equal(w.level, 1);
	assert_int_equal(w.pa, pa + 0x123);
	assert_int_equal(w.pte, pa | flags);
	assert_int_equal(w.flags, flags);
	assert_true(w.writable);
	assert_false(w.exec);
	assert_false(w.user);
	/* Intermediate entries: P|W only, no U, no NX. */
	for (int l = 4; l >= 2; l--)
		assert_int_equal(w.entries[l] & ~PTE_ADDR_MASK, PTE_P | PTE_W);
	assert_int_equal(w.entries[4] & PTE_ADDR_MASK,
			 root_table()[(va >> 39) & 511] & PTE_ADDR_MASK);
	/* The neighbours are not mapped. */
	w = walk(va + PG);
	assert_false(w.mapped);
	assert_int_equal(w.level, 1);
	assert_false(w.writable);
	w = walk(va - PG);
	assert_false(w.mapped);
	/* Another page under the same tables needs none. */
	assert_int_equal(pt_map(&pt, va + PG, pa, PT_4K, PTE_P, NULL), PT_OK);
	assert_int_equal(pt.tables, 4);
	w = walk(va + PG);
	assert_false(w.writable);
	assert_true(w.exec);
	/* Higher half. */
	assert_int_equal(pt_map(&pt, 0xffffffff80000000, 0x1000, PT_4K,
				PTE_P | PTE_G, NULL),
			 PT_OK);
	w = walk(0xffffffff80000fff);
	assert_true(w.mapped);
	assert_int_equal(w.pa, 0x1fff);
	assert_int_equal(root_table()[511] & PTE_P, PTE_P);
}

/* PAT is bit 7 in the caller's flags; a large leaf keeps it in bit 12. */
static void test_map_large(void **state)
{
	const uint64_t f = PTE_P | PTE_W | PTE_PAT | PTE_PWT | PTE_G | PTE_NX;
	struct pt_walk w;

	(void)state;
	assert_int_equal(pt_map(&pt, 0x40200000, 0x80000000, PT_2M, f, NULL),
			 PT_OK);
	assert_int_equal(pt.tables, 3);
	w = walk(0x40200000 + 0x12345);
	assert_true(w.mapped);
	assert_int_equal(w.size, PT_2M);
	assert_int_equal(w.level, 2);
	assert_int_equal(w.pa, 0x80012345);
	assert_int_equal(w.pte, 0x80000000 | PTE_PS | PTE_PAT_LARGE | PTE_P |
					PTE_W | PTE_PWT | PTE_G | PTE_NX);
	assert_int_equal(w.flags, f);
	assert_int_equal(pt_map(&pt, 0x8000000000, 0x40000000 * 7ull, PT_1G,
				PTE_P | PTE_PAT, NULL),
			 PT_OK);
	assert_int_equal(pt.tables, 4);
	w = walk(0x8000000000 + 0x3fffffff);
	assert_int_equal(w.size, PT_1G);
	assert_int_equal(w.level, 3);
	assert_int_equal(w.pa, 7 * GIB + 0x3fffffff);
	assert_int_equal(w.pte, 7 * GIB | PTE_PS | PTE_PAT_LARGE | PTE_P);
	assert_int_equal(w.flags, PTE_P | PTE_PAT);
	assert_false(w.writable);
	/* Without PAT, bit 12 stays clear (it is not an address bit here). */
	assert_int_equal(
		pt_map(&pt, 0x40400000, 0x80200000, PT_2M, PTE_P, NULL), PT_OK);
	assert_int_equal(walk(0x40400000).pte, 0x80200000 | PTE_PS | PTE_P);
}

static void test_map_arg_errors(void **state)
{
	uint64_t old = 77;

	(void)state;
	assert_int_equal(pt_map(&pt, 0x1000, 0x2000, PT_4K, PTE_P, &old),
			 PT_OK);
	assert_int_equal(pt_map(&pt, 0x1800, 0x2000, PT_4K, PTE_P, NULL),
			 PT_EUNALIGNED);
	assert_int_equal(pt_map(&pt, 0x2000, 0x2800, PT_4K, PTE_P, NULL),
			 PT_EUNALIGNED);
	assert_int_equal(pt_map(&pt, 0x201000, 0x400000, PT_2M, PTE_P, NULL),
			 PT_EUNALIGNED);
	assert_int_equal(pt_map(&pt, 0x400000, 0x401000, PT_2M, PTE_P, NULL),
			 PT_EUNALIGNED);
	assert_int_equal(pt_map(&pt, GIB + 2 * MIB, GIB, PT_1G, PTE_P, NULL),
			 PT_EUNALIGNED);
	assert_int_equal(pt_map(&pt, 0x0000800000000000, 0, PT_4K, PTE_P, NULL),
			 PT_ENONCANON);
	assert_int_equal(pt_map(&pt, 0xffff7ffffffff000, 0, PT_4K, PTE_P, NULL),
			 PT_ENONCANON);
	assert_int_equal(pt_map(&pt, 0x3000, 1ull << 52, PT_4K, PTE_P, NULL),
			 PT_EBADPA);
	assert_int_equal(pt_map(&pt, 0x3000, 0, PT_4K, PTE_W, NULL), PT_EFLAGS);
	assert_int_equal(pt_map(&pt, 0x3000, 0, PT_4K, PTE_P | 0x1000, NULL),
			 PT_EFLAGS);
	assert_int_equal(
		pt_map(&pt, 0x3000, 0, PT_4K, PTE_P | (1ull << 59), NULL),
		PT_EFLAGS);
	assert_int_equal(pt_map(&pt, 0x3000, 0, 0, PTE_P, NULL), PT_ESIZE);
	assert_int_equal(pt_map(&pt, 0x3000, 0, 4, PTE_P, NULL), PT_ESIZE);
	/* Software-available bits are allowed and kept. */
	assert_int_equal(pt_map(&pt, 0x3000, 0x5000, PT_4K,
				PTE_P | (1ull << 9) | (1ull << 52), NULL),
			 PT_OK);
	assert_int_equal(walk(0x3000).pte,
			 0x5000 | PTE_P | (1ull << 9) | (1ull << 52));
	assert_int_equal(pt_walk(&pt, 0x0000800000000000, &(struct pt_walk){0}),
			 PT_ENONCANON);
	/* Only the first call changed anything, and old was written once. */
	assert_int_equal(old, 0);
	assert_int_equal(walk(0x1000).pa, 0x2000);
	assert_false(walk(0x2000).mapped);
}

static void test_map_conflicts(void **state)
{
	const uint64_t x = 0x40000000, y = 0x80000000, z = 0x8000000000;
	uint64_t old = 5;

	(void)state;
	assert_int_equal(pt_map(&pt, x, 0, PT_2M, PTE_P, NULL), PT_OK);
	assert_int_equal(pt_map(&pt, x + PG, 0, PT_4K, PTE_P, &old), PT_ELARGE);
	assert_int_equal(pt_map(&pt, x, 0, PT_2M, PTE_P, &old), PT_EEXIST);
	assert_int_equal(pt_map(&pt, x, 0, PT_1G, PTE_P, &old), PT_ETABLE);
	assert_int_equal(pt_map(&pt, y + 3 * PG, 0, PT_4K, PTE_P, NULL), PT_OK);
	assert_int_equal(pt_map(&pt, y + 3 * PG, 0, PT_4K, PTE_P, &old),
			 PT_EEXIST);
	assert_int_equal(pt_map(&pt, y, 0, PT_2M, PTE_P, &old), PT_ETABLE);
	assert_int_equal(pt_map(&pt, y, 0, PT_1G, PTE_P, &old), PT_ETABLE);
	assert_int_equal(pt_map(&pt, z, 0, PT_1G, PTE_P, NULL), PT_OK);
	assert_int_equal(pt_map(&pt, z + 2 * MIB, 0, PT_2M, PTE_P, &old),
			 PT_ELARGE);
	assert_int_equal(pt_map(&pt, z + GIB - PG, 0, PT_4K, PTE_P, &old),
			 PT_ELARGE);
	assert_int_equal(old, 5);
	/* The failed calls allocated no table. */
	assert_int_equal(pt.tables, mem->live);
	assert_int_equal(pt.tables, 1 + 2 + 1 + 1 + 1);
}

static void test_unmap(void **state)
{
	const uint64_t a = 0x200000000, b = 0x300000000;
	uint64_t old = 0;
	uint64_t tables;

	(void)state;
	assert_int_equal(pt_map(&pt, a, 0x9000, PT_4K, PTE_P | PTE_W, NULL),
			 PT_OK);
	assert_int_equal(pt_map(&pt, b, 0x400000, PT_2M, PTE_P | PTE_D, NULL),
			 PT_OK);
	tables = pt.tables;
	assert_int_equal(pt_unmap(&pt, a, PT_4K, &old), PT_OK);
	assert_int_equal(old, 0x9000 | PTE_P | PTE_W);
	assert_false(walk(a).mapped);
	assert_int_equal(pt_unmap(&pt, a, PT_4K, &old), PT_ENOTMAPPED);
	/* a's 2 MiB region: a table with no present entry left. */
	assert_int_equal(pt_unmap(&pt, a, PT_2M, &old), PT_ENOTMAPPED);
	assert_int_equal(pt_map(&pt, a + PG, 0x9000, PT_4K, PTE_P, NULL),
			 PT_OK);
	assert_int_equal(pt_unmap(&pt, a, PT_2M, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_unmap(&pt, a, PT_1G, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_unmap(&pt, b + PG, PT_4K, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_unmap(&pt, b, PT_1G, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_unmap(&pt, 0x7000000000, PT_4K, &old),
			 PT_ENOTMAPPED);
	assert_int_equal(pt_unmap(&pt, b + PG, PT_2M, &old), PT_EUNALIGNED);
	assert_int_equal(pt_unmap(&pt, 1ull << 47, PT_4K, &old), PT_ENONCANON);
	assert_int_equal(pt_unmap(&pt, b, 9, &old), PT_ESIZE);
	assert_int_equal(old, 0x9000 | PTE_P | PTE_W);
	assert_int_equal(pt_unmap(&pt, b, PT_2M, &old), PT_OK);
	assert_int_equal(old, 0x400000 | PTE_PS | PTE_P | PTE_D);
	assert_false(walk(b + 0x1234).mapped);
	assert_int_equal(walk(b).level, 2);
	/* Tables are not freed by unmap. */
	assert_int_equal(pt.tables, tables);
	assert_int_equal(mem->live, (int)tables);
}

static void test_protect(void **state)
{
	const uint64_t a = 0x10000, b = 0x40000000;
	uint64_t old = 0, before;

	(void)state;
	assert_int_equal(pt_map(&pt, a, 0xa000, PT_4K, PTE_P | PTE_W, NULL),
			 PT_OK);
	assert_int_equal(pt_map(&pt, b, 0x600000, PT_2M, PTE_P | PTE_W, NULL),
			 PT_OK);
	assert_int_equal(pt_protect(&pt, a, PT_4K, PTE_P | PTE_NX, &old),
			 PT_OK);
	assert_int_equal(old, 0xa000 | PTE_P | PTE_W);
	assert_int_equal(walk(a).pte, 0xa000 | PTE_P | PTE_NX);
	assert_false(walk(a).writable);
	assert_int_equal(
		pt_protect(&pt, b, PT_2M, PTE_P | PTE_PAT | PTE_PCD, &old),
		PT_OK);
	assert_int_equal(old, 0x600000 | PTE_PS | PTE_P | PTE_W);
	assert_int_equal(walk(b).pte,
			 0x600000 | PTE_PS | PTE_PAT_LARGE | PTE_P | PTE_PCD);
	assert_int_equal(walk(b).flags, PTE_P | PTE_PAT | PTE_PCD);
	before = walk(b).pte;
	assert_int_equal(pt_protect(&pt, b, PT_2M, PTE_W, &old), PT_EFLAGS);
	assert_int_equal(pt_protect(&pt, b, PT_4K, PTE_P, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_protect(&pt, 0, PT_2M, PTE_P, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_protect(&pt, a + PG, PT_4K, PTE_P, &old),
			 PT_ENOTMAPPED);
	assert_int_equal(pt_protect(&pt, a + 1, PT_4K, PTE_P, &old),
			 PT_EUNALIGNED);
	assert_int_equal(walk(b).pte, before);
	assert_int_equal(old, 0x600000 | PTE_PS | PTE_P | PTE_W);
	/* U on a leaf gives U to the tables above it. */
	assert_false(walk(a).user);
	assert_int_equal(pt_protect(&pt, a, PT_4K, PTE_P | PTE_U, NULL), PT_OK);
	assert_true(walk(a).user);
	assert_int_equal(walk(a).entries[4] & PTE_U, PTE_U);
	assert_false(walk(b).user); /* b's leaf has no U */
}

static void test_user_mapping(void **state)
{
	struct pt_walk w;

	(void)state;
	assert_int_equal(pt_map(&pt, 0x400000, 0x1000, PT_4K,
				PTE_P | PTE_U | PTE_W, NULL),
			 PT_OK);
	w = walk(0x400000);
	assert_true(w.user && w.writable);
	for (int l = 4; l >= 2; l--)
		assert_int_equal(w.entries[l] & PTE_U, PTE_U);
	/* A supervisor page next to it shares the tables and stays so. */
	assert_int_equal(pt_map(&pt, 0x401000, 0x2000, PT_4K, PTE_P, NULL),
			 PT_OK);
	assert_false(walk(0x401000).user);
	assert_int_equal(pt_map(&pt, 0x80000000, 0x2000, PT_4K, PTE_P, NULL),
			 PT_OK);
	assert_int_equal(walk(0x80000000).entries[3] & PTE_U, 0);
	/* A user page under those supervisor tables gives them U. */
	assert_int_equal(
		pt_map(&pt, 0x80001000, 0x3000, PT_4K, PTE_P | PTE_U, NULL),
		PT_OK);
	w = walk(0x80001000);
	assert_true(w.user);
	assert_false(w.writable);
	assert_int_equal(w.entries[3] & PTE_U, PTE_U);
	assert_int_equal(w.entries[2] & PTE_U, PTE_U);
	assert_false(walk(0x80000000).user); /* its own leaf has no U */
}

/* PS in a PML4 entry is reserved: it does not make a 512 GiB page. */
static void test_pml4_ps_ignored(void **state)
{
	struct pt_walk w;

	(void)state;
	assert_int_equal(pt_map(&pt, 0x1000, 0x7000, PT_4K, PTE_P, NULL),
			 PT_OK);
	root_table()[0] |= PTE_PS;
	w = walk(0x1000);
	assert_true(w.mapped);
	assert_int_equal(w.size, PT_4K);
	assert_int_equal(w.pa, 0x7000);
}

static void check_split_2m(uint64_t va, uint64_t pa, uint64_t flags)
{
	for (int i = 0; i < PT_ENTRIES; i++) {
		struct pt_walk w = walk(va + i * PG + 7);

		assert_true(w.mapped);
		assert_int_equal(w.size, PT_4K);
		assert_int_equal(w.pa, pa + i * PG + 7);
		assert_int_equal(w.flags, flags);
		assert_int_equal(w.pte, (pa + i * PG) | flags);
	}
}

static void test_split_2m(void **state)
{
	const uint64_t va = 0x7fffffe00000, pa = 0x123400000;
	const uint64_t f = PTE_P | PTE_W | PTE_G | PTE_PAT | PTE_NX | PTE_A |
			   PTE_D | PTE_U;
	uint64_t old = 0, leaf;

	(void)state;
	assert_int_equal(pt_map(&pt, va, pa, PT_2M, f, NULL), PT_OK);
	leaf = walk(va).pte;
	assert_int_equal(pt_split(&pt, va + 0x5000, PT_2M, &old), PT_OK);
	assert_int_equal(old, leaf);
	assert_int_equal(pt.tables, 4);
	check_split_2m(va, pa, f);
	/* The new table entry: P|W|U, no PS. */
	assert_int_equal(walk(va).entries[2] & ~PTE_ADDR_MASK,
			 PTE_P | PTE_W | PTE_U);
	assert_int_equal(pt_split(&pt, va, PT_2M, &old), PT_EWRONGSIZE);
	assert_int_equal(pt_unmap(&pt, va + PG, PT_4K, &old), PT_OK);
	assert_int_equal(old, (pa + PG) | f);
	assert_int_equal(pt_split(&pt, 0x600000, PT_2M, &old), PT_ENOTMAPPED);
	assert_int_equal(pt_split(&pt, va, PT_4K, &old), PT_ESIZE);
	assert_int_equal(pt_split(&pt, 1ull << 47, PT_2M, &old), PT_ENONCANON);
	assert_int_equal(old, (pa + PG) | f);
}

static void test_split_1g(void **state)
{
	const uint64_t va = 0xffffff8000000000, pa = 5 * GIB;
	const uint64_t f = PTE_P | PTE_PAT | PTE_PWT | PTE_NX;
	uint64_t old = 0;
	struct pt_walk w;

	(void)state;
	assert_int_equal(pt_map(&pt, va, pa, PT_1G, f, NULL), PT_OK);
	assert_int_equal(pt_split(&pt, va + 3 * MIB, PT_2M, &old),
			 PT_EWRONGSIZE);
	assert_int_equal(pt_split(&pt, va + 3 * MIB, PT_1G, &old), PT_OK);
	assert_int_equal(old, pa | PTE_PS | PTE_PAT_LARGE | PTE_P | PTE_PWT |
				      PTE_NX);
	for (int i = 0; i < PT_ENTRIES; i++) {
		w = walk(va + i * 2 * MIB + 0x1234);
		assert_int_equal(w.size, PT_2M);
		assert_int_equal(w.pa, pa + i * 2 * MIB + 0x1234);
		assert_int_equal(w.flags, f);
		assert_int_equal(w.pte, (pa + i * 2 * MIB) | PTE_PS |
						PTE_PAT_LARGE | PTE_P |
						PTE_PWT | PTE_NX);
	}
	/* Down once more, to 4 KiB: PAT moves to bit 7. */
	assert_int_equal(pt_split(&pt, va + 4 * MIB, PT_2M, &old), PT_OK);
	check_split_2m(va + 4 * MIB, pa + 4 * MIB, f);
	assert_int_equal(walk(va + 6 * MIB).size, PT_2M);
	assert_int_equal(pt.tables, 4);
}

/* Copies of the tables in use, to prove a failed call changed nothing. */
static void test_strerror(void **state)
{
	(void)state;
	for (int e = 0; e >= PT_ENOMEM; e--) {
		assert_printable(pt_strerror(e), 80);
		for (int f = 0; f > e; f--)
			assert_string_not_equal(pt_strerror(e), pt_strerror(f));
	}
	assert_string_equal(pt_strerror(PT_ENOMEM - 1), "unknown error");
	assert_int_equal(pt_size_bytes(PT_4K), 4096);
	assert_int_equal(pt_size_bytes(PT_2M), 2 * MIB);
	assert_int_equal(pt_size_bytes(PT_1G), GIB);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_create),		 T(test_map_4k),
		T(test_map_large),	 T(test_map_arg_errors),
		T(test_map_conflicts),	 T(test_unmap),
		T(test_protect),	 T(test_user_mapping),
		T(test_pml4_ps_ignored), T(test_split_2m),
		T(test_split_1g),	 T(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
