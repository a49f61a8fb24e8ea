/* SPDX-License-Identifier: MIT */
/*
 * The page-table tests' simulated physical memory (test_pt.c,
 * test_pt_range.c): a few dozen table frames at MEM_BASE, reached through
 * p2v, with an allocator that can be told to fail so that out-of-memory
 * paths are exercised; setup and teardown make a fresh one per test.
 */
#ifndef TESTS_UNIT_PT_SIM_H
#define TESTS_UNIT_PT_SIM_H

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

static inline void *p2v(void *ctx, uint64_t pa)
{
	assert_ptr_equal(ctx, mem);
	assert_int_equal(pa % PG, 0);
	assert_in_range(pa, MEM_BASE, MEM_BASE + (NPAGES - 1) * PG);
	assert_true(mem->used[(pa - MEM_BASE) / PG]);
	return mem->buf + (pa - MEM_BASE);
}

static inline uint64_t alloc_table(void *ctx)
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

static inline void free_table(void *ctx, uint64_t pa)
{
	size_t i = (pa - MEM_BASE) / PG;

	assert_ptr_equal(ctx, mem);
	assert_int_equal(pa % PG, 0);
	assert_true(i < NPAGES && mem->used[i]);
	memset(mem->buf + i * PG, 0xcc, PG); /* poison: use after free shows */
	mem->used[i] = false;
	mem->live--;
}

static inline int setup(void **state)
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

static inline int teardown(void **state)
{
	(void)state;
	free(mem->buf);
	free(mem);
	return 0;
}

static inline uint64_t *root_table(void)
{
	return p2v(mem, pt.root);
}

static inline struct pt_walk walk(uint64_t va)
{
	struct pt_walk w;

	assert_int_equal(pt_walk(&pt, va, &w), PT_OK);
	return w;
}

#endif
