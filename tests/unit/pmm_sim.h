/* SPDX-License-Identifier: MIT */
/*
 * The frame allocator tests' sparse simulated physical memory (test_pmm.c,
 * test_pmm_alloc.c): pages exist only once touched, and every access must
 * fall in memory the map calls usable, outside the reserved ranges, so a
 * metadata write into a hole fails the test; and the checks of what
 * pmm_init made of a map.
 */
#ifndef TESTS_UNIT_PMM_SIM_H
#define TESTS_UNIT_PMM_SIM_H

#include "unit.h"
#include "mm/pmm.h"

#include <stdlib.h>

#define KIB	  1024ull
#define MIB	  (1024 * KIB)
#define GIB	  (1024 * MIB)
#define TIB	  (1024 * GIB)
#define PG	  4096ull
#define SIM_SLOTS (1u << 16)

struct sim {
	const struct boot_region *map, *resv;
	size_t nmap, nresv;
	size_t pages;	/* pages materialised */
	uint64_t ok[4]; /* pages recently found allowed, + 1 */
	unsigned int next_ok;
	uint64_t key[SIM_SLOTS]; /* pfn + 1; 0 = empty slot */
	uint8_t *page[SIM_SLOTS];
};

static struct sim *sim;
static struct pmm *pm;

static inline bool in_ranges(const struct boot_region *r, size_t n, uint64_t pa,
			     uint32_t type)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].type == type && pa >= r[i].base &&
		    pa - r[i].base < r[i].len)
			return true;
	}
	return false;
}

/* Whether any range of r meets the 4 KiB page. */
static inline bool touches(const struct boot_region *r, size_t n, uint64_t page)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].len && page + PG > r[i].base &&
		    page < r[i].base + r[i].len)
			return true;
	}
	return false;
}

/*
 * The page must be wholly inside usable entries and meet no non-usable
 * entry and no reserved range.
 */
static inline bool sim_allowed(uint64_t pa)
{
	uint64_t page = pa & ~(PG - 1);

	for (size_t i = 0; i < ARRAY_SIZE(sim->ok); i++) {
		if (sim->ok[i] == page + 1)
			return true;
	}
	for (size_t i = 0; i < sim->nmap; i++) {
		if (sim->map[i].type != MEM_USABLE &&
		    touches(&sim->map[i], 1, page))
			return false;
	}
	if (!in_ranges(sim->map, sim->nmap, page, MEM_USABLE) ||
	    !in_ranges(sim->map, sim->nmap, page + PG - 1, MEM_USABLE) ||
	    touches(sim->resv, sim->nresv, page))
		return false;
	sim->ok[sim->next_ok++ % ARRAY_SIZE(sim->ok)] = page + 1;
	return true;
}

static inline uint8_t *sim_page(uint64_t pa)
{
	uint64_t key = (pa >> 12) + 1;
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 48);

	for (;; h = (h + 1) % SIM_SLOTS) {
		if (sim->key[h] == key)
			return sim->page[h];
		if (sim->key[h] == 0)
			break;
	}
	assert_true(sim->pages < SIM_SLOTS / 2);
	sim->key[h] = key;
	sim->page[h] = calloc(1, PG);
	assert_non_null(sim->page[h]);
	sim->pages++;
	return sim->page[h];
}

static inline void *sim_p2v(void *ctx, uint64_t pa)
{
	assert_ptr_equal(ctx, sim);
	if (!sim_allowed(pa))
		fail_msg("access to %#llx: not usable RAM",
			 (unsigned long long)pa);
	return sim_page(pa) + (pa & (PG - 1));
}

static inline int setup(void **state)
{
	(void)state;
	sim = calloc(1, sizeof(*sim));
	pm = calloc(1, sizeof(*pm));
	return sim && pm ? 0 : -1;
}

static inline int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < SIM_SLOTS; i++)
		free(sim->page[i]);
	free(sim);
	free(pm);
	return 0;
}

static inline bool in_block(uint64_t pa, uint64_t len, uint64_t base,
			    uint64_t blen)
{
	return pa >= base && len <= blen && pa - base <= blen - len;
}

/*
 * White box: every extent's summaries and bitmap lie inside the metadata
 * block, without overlapping each other, and the block is not managed.
 */
static inline void check_meta_layout(void)
{
	uint64_t mb = pm->meta_base, ml = pm->meta_bytes;
	uint64_t sum_end = mb, bits_end = 0;

	assert_int_equal(mb % PG, 0);
	assert_int_equal(ml % PG, 0);
	for (size_t i = 0; i < pm->count; i++) {
		const struct pmm_extent *e = &pm->ext[i];
		uint64_t frames = (e->end - e->base) / PG;
		uint64_t sum = 4 * ((frames + PMM_CHUNK_FRAMES - 1) /
				    PMM_CHUNK_FRAMES);
		uint64_t bits = 8 * ((frames + 63) / 64);

		assert_true(in_block(e->sum_pa, sum, mb, ml));
		assert_true(in_block(e->bits_pa, bits, mb, ml));
		assert_int_equal(e->bits_pa % 8, 0);
		/* In order, each after the previous one ends. */
		assert_true(e->sum_pa >= sum_end);
		assert_true(e->bits_pa >= bits_end);
		sum_end = e->sum_pa + sum;
		bits_end = e->bits_pa + bits;
		/* The extent itself is outside the block. */
		assert_false(e->base < mb + ml && mb < e->end);
	}
	/* Summaries before bitmaps. */
	assert_true(pm->count == 0 || sum_end <= pm->ext[0].bits_pa);
}

static inline int init(const struct boot_region *map, size_t n,
		       const struct boot_region *resv, size_t nresv,
		       uint64_t limit, bool tramp)
{
	struct pmm_config cfg = {
		.map = map,
		.map_count = n,
		.reserved = resv,
		.reserved_count = nresv,
		.meta_limit = limit,
		.reserve_trampoline = tramp,
		.phys_to_virt = sim_p2v,
		.ctx = sim,
	};

	memset(sim->ok, 0, sizeof(sim->ok));
	sim->map = map;
	sim->nmap = n;
	sim->resv = resv;
	sim->nresv = nresv;
	int err = pmm_init(pm, &cfg);

	if (err == PMM_OK)
		check_meta_layout();
	return err;
}

static inline void expect_extent(size_t i, uint64_t base, uint64_t len)
{
	struct pmm_extent_info info;

	assert_true(pmm_extent(pm, i, &info));
	assert_int_equal(info.base, base);
	assert_int_equal(info.len, len);
}

static inline struct pmm_stats stats(void)
{
	struct pmm_stats st;

	pmm_stats(pm, &st);
	return st;
}

static inline bool in_meta(uint64_t pa)
{
	struct pmm_stats st = stats();

	return pa >= st.meta_base && pa < st.meta_base + st.meta_bytes;
}

#endif
