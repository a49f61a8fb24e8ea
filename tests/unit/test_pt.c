// SPDX-License-Identifier: MIT
/*
 * Host tests of the page tables (mm/pt.c, mm/pt_range.c) over a simulated
 * physical memory of a few dozen table frames, with an allocator that can
 * be told to fail so that out-of-memory paths are exercised.
 */
#include "unit.h"
#include "mm/pt.h"

#include <stdlib.h>

#define PG	 4096ull
#define MIB	 (1024 * 1024ull)
#define GIB	 (1024 * MIB)
#define NPAGES	 64
#define MEM_BASE 0x5000000ull /* physical address of the first sim page */

struct mem {
	uint8_t *buf;
	bool used[NPAGES];
	int live;   /* tables allocated and not freed */
	int budget; /* allocations left before failing; < 0: unlimited */
};

static struct mem *mem;
static struct pt_ctx pt;

static void *p2v(void *ctx, uint64_t pa)
{
	assert_ptr_equal(ctx, mem);
	assert_int_equal(pa % PG, 0);
	assert_in_range(pa, MEM_BASE, MEM_BASE + (NPAGES - 1) * PG);
	assert_true(mem->used[(pa - MEM_BASE) / PG]);
	return mem->buf + (pa - MEM_BASE);
}

static uint64_t alloc_table(void *ctx)
{
	assert_ptr_equal(ctx, mem);
	if (mem->budget == 0)
		return 0;
	if (mem->budget > 0)
		mem->budget--;
	for (int i = 0; i < NPAGES; i++) {
		if (!mem->used[i]) {
			mem->used[i] = true;
			mem->live++;
			memset(mem->buf + i * PG, 0, PG);
			return MEM_BASE + i * PG;
		}
	}
	return 0;
}

static void free_table(void *ctx, uint64_t pa)
{
	size_t i = (pa - MEM_BASE) / PG;

	assert_ptr_equal(ctx, mem);
	assert_int_equal(pa % PG, 0);
	assert_true(i < NPAGES && mem->used[i]);
	memset(mem->buf + i * PG, 0xcc, PG); /* poison: use after free shows */
	mem->used[i] = false;
	mem->live--;
}

static int setup(void **state)
{
	(void)state;
	mem = calloc(1, sizeof(*mem));
	if (!mem)
		return -1;
	mem->buf = aligned_alloc(PG, NPAGES * PG);
	if (!mem->buf)
		return -1;
	memset(mem->buf, 0xee, NPAGES * PG);
	mem->budget = -1;
	pt = (struct pt_ctx){.phys_to_virt = p2v,
			     .alloc_table = alloc_table,
			     .free_table = free_table,
			     .ctx = mem};
	return pt_create(&pt) == PT_OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(mem->buf);
	free(mem);
	return 0;
}

static uint64_t *root_table(void)
{
	return p2v(mem, pt.root);
}

static struct pt_walk walk(uint64_t va)
{
	struct pt_walk w;

	assert_int_equal(pt_walk(&pt, va, &w), PT_OK);
	return w;
}

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
		T(test_split_1g),	 T(test_enomem),
		T(test_map_range),	 T(test_map_range_errors),
		T(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
