// SPDX-License-Identifier: MIT
/*
 * Host tests of the frame allocator (mm/pmm.c, mm/pmm_map.c) over a sparse
 * simulated physical memory: pages exist only once touched, and every
 * access must fall in memory the map calls usable, outside the reserved
 * ranges, so a metadata write into a hole fails the test.
 */
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

static bool in_ranges(const struct boot_region *r, size_t n, uint64_t pa,
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
static bool touches(const struct boot_region *r, size_t n, uint64_t page)
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
static bool sim_allowed(uint64_t pa)
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

static uint8_t *sim_page(uint64_t pa)
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

static void *sim_p2v(void *ctx, uint64_t pa)
{
	assert_ptr_equal(ctx, sim);
	if (!sim_allowed(pa))
		fail_msg("access to %#llx: not usable RAM",
			 (unsigned long long)pa);
	return sim_page(pa) + (pa & (PG - 1));
}

static int setup(void **state)
{
	(void)state;
	sim = calloc(1, sizeof(*sim));
	pm = calloc(1, sizeof(*pm));
	return sim && pm ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < SIM_SLOTS; i++)
		free(sim->page[i]);
	free(sim);
	free(pm);
	return 0;
}

static bool in_block(uint64_t pa, uint64_t len, uint64_t base, uint64_t blen)
{
	return pa >= base && len <= blen && pa - base <= blen - len;
}

/*
 * White box: every extent's summaries and bitmap lie inside the metadata
 * block, without overlapping each other, and the block is not managed.
 */
static void check_meta_layout(void)
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

static int init(const struct boot_region *map, size_t n,
		const struct boot_region *resv, size_t nresv, uint64_t limit,
		bool tramp)
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

static void expect_extent(size_t i, uint64_t base, uint64_t len)
{
	struct pmm_extent_info info;

	assert_true(pmm_extent(pm, i, &info));
	assert_int_equal(info.base, base);
	assert_int_equal(info.len, len);
}

static struct pmm_stats stats(void)
{
	struct pmm_stats st;

	pmm_stats(pm, &st);
	return st;
}

static bool in_meta(uint64_t pa)
{
	struct pmm_stats st = stats();

	return pa >= st.meta_base && pa < st.meta_base + st.meta_bytes;
}

static void test_init_errors(void **state)
{
	static const struct boot_region one[] = {{0x100000, PG, 1}};
	static const struct boot_region none[] = {
		{0x100000, 16 * MIB, 2},
		{0x2000000, 800, 1},
		{0x3000800, PG, 1}, /* no whole frame */
		{0x4000000, 0, 1},
	};
	static const struct boot_region ok[] = {{16 * MIB, 16 * MIB, 1}};
	static const struct boot_region all[] = {{0, 64 * MIB, 2}};
	struct pmm_config cfg = {.map = ok, .map_count = 1};

	(void)state;
	assert_int_equal(pmm_init(pm, &cfg), PMM_ERR_INVAL); /* no callback */
	cfg.phys_to_virt = sim_p2v;
	cfg.map = NULL;
	assert_int_equal(pmm_init(pm, &cfg), PMM_ERR_INVAL);
	assert_int_equal(init(NULL, 0, NULL, 0, 0, false), PMM_ERR_NO_USABLE);
	assert_int_equal(init(none, ARRAY_SIZE(none), NULL, 0, 0, false),
			 PMM_ERR_NO_USABLE);
	/* The metadata would take the only frame. */
	assert_int_equal(init(one, 1, NULL, 0, 0, false), PMM_ERR_NO_META);
	/* Usable memory, but none below the metadata limit. */
	assert_int_equal(init(ok, 1, NULL, 0, 16 * MIB, false),
			 PMM_ERR_NO_META);
	/* Reserved ranges eat everything. */
	assert_int_equal(init(ok, 1, all, 1, 0, false), PMM_ERR_NO_USABLE);
	assert_int_equal(init(ok, 1, NULL, 0, 0, false), PMM_OK);
}

/*
 * Overlapping, unsorted, unaligned and empty entries, where the non-usable
 * type wins and two half-page usable entries make a whole page.
 */
static void test_messy_map(void **state)
{
	static const struct boot_region map[] = {
		{0x300000, 0x100000, 1}, /* overlapped by the ACPI below */
		{0x100800, 0xff800, 1},
		{0x100000, 0x800, 1},	/* with the one above: from 1 MiB */
		{0x150000, 1, 2},	/* one byte reserved: one frame lost */
		{0x180000, 0, 2},	/* empty: ignored */
		{0x2f0000, 0x20000, 3}, /* overlaps the usable 3 MiB */
		{0x400123, 0x2edc, 1},	/* only 0x401000 is whole */
		{0x1f0000, 0x10000, 1}, /* duplicate of part of the second */
	};
	struct pmm_stats st;

	(void)state;
	assert_int_equal(init(map, ARRAY_SIZE(map), NULL, 0, 0, false), PMM_OK);
	st = stats();
	/* The metadata fits in one page, at the top of the highest extent. */
	assert_int_equal(st.meta_bytes, PG);
	assert_int_equal(st.meta_base, 0x401000);
	assert_int_equal(pmm_extent_count(pm), 3);
	expect_extent(0, 0x100000, 0x50000);
	expect_extent(1, 0x151000, 0x200000 - 0x151000);
	expect_extent(2, 0x310000, 0xf0000);
	assert_int_equal(st.total_frames, (0x50000 + 0xaf000 + 0xf0000) / PG);
	assert_int_equal(st.free_frames, st.total_frames);
	assert_false(pmm_extent(pm, 3, &(struct pmm_extent_info){0}));
	assert_int_equal(pmm_frame_state(pm, 0x150000), PMM_FRAME_UNMANAGED);
	assert_int_equal(pmm_frame_state(pm, 0x300000), PMM_FRAME_UNMANAGED);
	assert_int_equal(pmm_frame_state(pm, 0x401000), PMM_FRAME_UNMANAGED);
	assert_int_equal(pmm_frame_state(pm, 0x14f000), PMM_FRAME_FREE);
	assert_int_equal(pmm_alloc(pm, 0), 0x100000);
	assert_int_equal(pmm_frame_state(pm, 0x100000), PMM_FRAME_USED);
}

/* The same entries in any order give the same extents. */
static void test_unsorted_same_result(void **state)
{
	struct boot_region fwd[40], rev[40];
	struct pmm_extent_info a[40], b;
	size_t n, i;

	(void)state;
	for (i = 0; i < 40; i++) {
		fwd[i] = (struct boot_region){(i + 1) * 16 * MIB + i * 0x123,
					      (8 + i) * MIB, i % 5 ? 1 : 2};
		rev[39 - i] = fwd[i];
	}
	assert_int_equal(init(fwd, 40, NULL, 0, 0, false), PMM_OK);
	n = pmm_extent_count(pm);
	assert_true(n > 10);
	for (i = 0; i < n; i++)
		assert_true(pmm_extent(pm, i, &a[i]));
	assert_int_equal(init(rev, 40, NULL, 0, 0, false), PMM_OK);
	assert_int_equal(pmm_extent_count(pm), n);
	for (i = 0; i < n; i++) {
		assert_true(pmm_extent(pm, i, &b));
		assert_int_equal(b.base, a[i].base);
		assert_int_equal(b.len, a[i].len);
		assert_int_equal(b.base % PG, 0);
		assert_int_equal(b.len % PG, 0);
	}
}

static void test_tiny(void **state)
{
	static const struct boot_region map[] = {{0x7000, 2 * PG, 1}};
	uint64_t pa;

	(void)state;
	assert_int_equal(init(map, 1, NULL, 0, 0, false), PMM_OK);
	assert_int_equal(stats().total_frames, 1);
	assert_int_equal(stats().meta_base, 0x8000);
	pa = pmm_alloc(pm, PMM_ZERO);
	assert_int_equal(pa, 0x7000);
	assert_int_equal(pmm_alloc(pm, 0), PMM_NO_FRAME);
	assert_int_equal(stats().failures, 1);
	assert_int_equal(stats().free_frames, 0);
	assert_int_equal(pmm_free(pm, pa), PMM_OK);
	assert_int_equal(pmm_free(pm, pa), PMM_ERR_NOT_ALLOCATED);
	assert_int_equal(pmm_alloc(pm, 0), 0x7000);
}

static void test_reserved_and_page0(void **state)
{
	static const struct boot_region map[] = {{0, 0x9fc00, 1},
						 {0x100000, 7 * MIB, 1}};
	static const struct boot_region resv[] = {
		{0x100000, 0x123456, 0}, /* "kernel": up to 0x224000 */
		{0x300010, 16, 0},	 /* "multiboot info": one frame */
		{0x1000, 0x1000, 0},
	};
	uint64_t pa, n = 0;

	(void)state;
	assert_int_equal(init(map, 2, resv, 3, 0, false), PMM_OK);
	assert_int_equal(pmm_extent_count(pm), 3);
	expect_extent(0, 0x2000, 0x9f000 - 0x2000);
	expect_extent(1, 0x224000, 0x300000 - 0x224000);
	assert_int_equal(pmm_frame_state(pm, 0), PMM_FRAME_UNMANAGED);
	assert_int_equal(pmm_frame_state(pm, 0x300000), PMM_FRAME_UNMANAGED);
	while ((pa = pmm_alloc(pm, 0)) != PMM_NO_FRAME) {
		assert_false(touches(resv, 3, pa));
		assert_false(in_meta(pa));
		assert_true(pa >= 0x2000);
		n++;
	}
	assert_int_equal(n, stats().total_frames);
}

static void test_exhaustion_and_recovery(void **state)
{
	static const struct boot_region map[] = {{0x10000, 200 * PG, 1}};
	static uint64_t got[200];
	uint64_t total, n = 0, i, j;

	(void)state;
	assert_int_equal(init(map, 1, NULL, 0, 0, false), PMM_OK);
	total = stats().total_frames;
	assert_int_equal(total, 199);
	for (int round = 0; round < 2; round++) {
		for (n = 0; n < 200; n++) {
			got[n] = pmm_alloc(pm, 0);
			if (got[n] == PMM_NO_FRAME)
				break;
			assert_false(in_meta(got[n]));
		}
		assert_int_equal(n, total);
		assert_int_equal(stats().free_frames, 0);
		assert_int_equal(pmm_alloc_run(pm, 1, 0, 0), PMM_NO_FRAME);
		for (i = 0; i < n; i++) {
			for (j = 0; j < i; j++)
				assert_int_not_equal(got[i], got[j]);
		}
		for (i = 0; i < n; i++)
			assert_int_equal(pmm_free(pm, got[(i * 7) % n]),
					 PMM_OK);
		assert_int_equal(stats().free_frames, total);
	}
	assert_int_equal(stats().failures, 4);
}

static void test_free_errors(void **state)
{
	static const struct boot_region map[] = {{0x100000, MIB, 1},
						 {0x400000, MIB, 1}};
	uint64_t a, free_before;

	(void)state;
	assert_int_equal(init(map, 2, NULL, 0, 0, false), PMM_OK);
	a = pmm_alloc_run(pm, 4, 0, 0);
	assert_int_equal(a, 0x100000);
	free_before = stats().free_frames;
	assert_int_equal(pmm_free(pm, a + 1), PMM_ERR_UNALIGNED);
	assert_int_equal(pmm_free(pm, 0), PMM_ERR_NOT_MANAGED);
	assert_int_equal(pmm_free(pm, 0x300000), PMM_ERR_NOT_MANAGED);
	assert_int_equal(pmm_free(pm, stats().meta_base), PMM_ERR_NOT_MANAGED);
	assert_int_equal(pmm_free(pm, 1ull << 60), PMM_ERR_NOT_MANAGED);
	assert_int_equal(pmm_free(pm, a + 4 * PG), PMM_ERR_NOT_ALLOCATED);
	assert_int_equal(pmm_free_run(pm, a, 0), PMM_ERR_INVAL);
	/* Partly allocated: nothing is freed. */
	assert_int_equal(pmm_free_run(pm, a, 5), PMM_ERR_NOT_ALLOCATED);
	/* Running past the end of the extent. */
	assert_int_equal(pmm_free_run(pm, a, 257), PMM_ERR_NOT_MANAGED);
	assert_int_equal(pmm_free_run(pm, a, ~0ull), PMM_ERR_NOT_MANAGED);
	assert_int_equal(stats().free_frames, free_before);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pmm_frame_state(pm, a + i * PG),
				 PMM_FRAME_USED);
	assert_int_equal(pmm_free_run(pm, a + PG, 2), PMM_OK);
	assert_int_equal(pmm_free_run(pm, a, 4), PMM_ERR_NOT_ALLOCATED);
	assert_int_equal(pmm_frame_state(pm, a), PMM_FRAME_USED);
	assert_int_equal(pmm_frame_state(pm, a + PG), PMM_FRAME_FREE);
	assert_int_equal(stats().free_frames, free_before + 2);
}

static void test_aligned_runs(void **state)
{
	static const struct boot_region map[] = {{0x100000, 63 * MIB, 1}};
	uint64_t a, r1, r2, r3;

	(void)state;
	assert_int_equal(init(map, 1, NULL, 0, 0, false), PMM_OK);
	a = pmm_alloc(pm, 0);
	assert_int_equal(a, 0x100000);
	r1 = pmm_alloc_run(pm, 512, 2 * MIB, 0);
	assert_int_equal(r1, 2 * MIB);
	r2 = pmm_alloc_run(pm, 512, 2 * MIB, 0);
	assert_int_equal(r2, 4 * MIB);
	r3 = pmm_alloc_run(pm, 3, 0, 0);
	assert_int_equal(r3, 0x101000);
	/* A hole of one frame does not fit a run of two. */
	assert_int_equal(pmm_free(pm, 0x101000), PMM_OK);
	assert_int_equal(pmm_alloc_run(pm, 2, 0, 0), 0x104000);
	assert_int_equal(pmm_alloc_run(pm, 1, 16 * KIB, 0), 0x108000);
	assert_int_equal(pmm_alloc(pm, 0), 0x101000);
	/* Bad arguments and impossible requests. */
	assert_int_equal(pmm_alloc_run(pm, 0, 0, 0), PMM_NO_FRAME);
	assert_int_equal(pmm_alloc_run(pm, 1, 3 * PG, 0), PMM_NO_FRAME);
	assert_int_equal(pmm_alloc_run(pm, 1, 2048, 0), PMM_NO_FRAME);
	assert_int_equal(pmm_alloc_run(pm, 1, 1ull << 62, 0), PMM_NO_FRAME);
	assert_int_equal(pmm_alloc_run(pm, 1, 1 * GIB, 0), PMM_NO_FRAME);
	assert_int_equal(pmm_alloc_run(pm, 64 * 256, 0, 0), PMM_NO_FRAME);
	assert_int_equal(stats().failures, 6);
	/* Freed runs are found again. */
	assert_int_equal(pmm_free_run(pm, r1, 512), PMM_OK);
	assert_int_equal(pmm_alloc_run(pm, 512, 2 * MIB, 0), r1);
	assert_int_equal(pmm_alloc_run(pm, 2048, 8 * MIB, 0), 8 * MIB);
}

/* Extents of several bitmap chunks, with a partial last word. */
static void test_chunk_boundaries(void **state)
{
	const uint64_t frames = 2 * PMM_CHUNK_FRAMES + 1000 + 37;
	static struct boot_region map[] = {{0x1000000, 0, 1}};
	uint64_t total, pa, last = 0, n = 0, run;

	(void)state;
	map[0].len = (frames + 8) * PG;
	assert_int_equal(init(map, 1, NULL, 0, 0, false), PMM_OK);
	total = stats().total_frames;
	/* A run straddling the first chunk boundary. */
	run = pmm_alloc_run(pm, PMM_CHUNK_FRAMES + 5, 0, 0);
	assert_int_equal(run, 0x1000000);
	assert_int_equal(pmm_frame_state(pm, run + PMM_CHUNK_FRAMES * PG),
			 PMM_FRAME_USED);
	assert_int_equal(pmm_frame_state(pm, run + (PMM_CHUNK_FRAMES + 5) * PG),
			 PMM_FRAME_FREE);
	assert_int_equal(pmm_free_run(pm, run, PMM_CHUNK_FRAMES + 5), PMM_OK);
	while ((pa = pmm_alloc(pm, 0)) != PMM_NO_FRAME) {
		assert_true(pa > last);
		last = pa;
		n++;
	}
	assert_int_equal(n, total);
	assert_int_equal(last, 0x1000000 + (total - 1) * PG);
	assert_int_equal(pmm_free(pm, last), PMM_OK);
	assert_int_equal(pmm_alloc(pm, 0), last);
	assert_int_equal(pmm_free_run(pm, 0x1000000, total), PMM_OK);
	assert_int_equal(stats().free_frames, total);
}

static void test_zeroing(void **state)
{
	static const struct boot_region map[] = {{0x100000, MIB, 1}};
	uint64_t a, b;
	uint8_t *p;

	(void)state;
	assert_int_equal(init(map, 1, NULL, 0, 0, false), PMM_OK);
	a = pmm_alloc_run(pm, 2, 0, 0);
	memset(sim_p2v(sim, a), 0xaa, PG);
	memset(sim_p2v(sim, a + PG), 0xbb, PG);
	assert_int_equal(pmm_free_run(pm, a, 2), PMM_OK);
	/* Without PMM_ZERO the contents stay. */
	b = pmm_alloc(pm, 0);
	assert_int_equal(b, a);
	assert_int_equal(*(uint8_t *)sim_p2v(sim, b + 100), 0xaa);
	assert_int_equal(pmm_free(pm, b), PMM_OK);
	b = pmm_alloc_run(pm, 2, 0, PMM_ZERO);
	assert_int_equal(b, a);
	for (int f = 0; f < 2; f++) {
		p = sim_p2v(sim, b + f * PG);
		for (int i = 0; i < (int)PG; i++)
			assert_int_equal(p[i], 0);
	}
}

/*
 * selftest=oom: after n grants every request fails, with frames free;
 * lifting the limit makes them succeed again, and frees always work.
 */
static void test_limited_grants(void **state)
{
	static const struct boot_region map[] = {{0x100000, MIB, 1}};
	uint64_t a, b, c, failures;

	(void)state;
	assert_int_equal(init(map, 1, NULL, 0, 0, false), PMM_OK);
	pmm_limit_grants(pm, 2);
	a = pmm_alloc(pm, 0);
	b = pmm_alloc_run(pm, 4, 0, 0);
	assert_int_not_equal(a, PMM_NO_FRAME);
	assert_int_not_equal(b, PMM_NO_FRAME);
	failures = stats().failures;
	assert_int_equal(pmm_alloc(pm, 0), PMM_NO_FRAME);
	assert_int_equal(pmm_alloc_run(pm, 1, 0, PMM_ZERO), PMM_NO_FRAME);
	assert_int_equal(stats().failures, failures + 2);
	assert_true(stats().free_frames > 0);
	/* A refused request does not use up a grant it never got. */
	assert_int_equal(pmm_free(pm, a), PMM_OK);
	assert_int_equal(pmm_free_run(pm, b, 4), PMM_OK);
	assert_int_equal(pmm_alloc(pm, 0), PMM_NO_FRAME);
	pmm_limit_grants(pm, PMM_GRANTS_UNLIMITED);
	c = pmm_alloc(pm, 0);
	assert_int_not_equal(c, PMM_NO_FRAME);
	assert_int_equal(pmm_free(pm, c), PMM_OK);
	/* A grant is spent only by a request that succeeds. */
	pmm_limit_grants(pm, 1);
	assert_int_equal(pmm_alloc_run(pm, 1u << 20, 0, 0), PMM_NO_FRAME);
	c = pmm_alloc(pm, 0);
	assert_int_not_equal(c, PMM_NO_FRAME);
	assert_int_equal(pmm_alloc(pm, 0), PMM_NO_FRAME);
}

static void test_trampoline(void **state)
{
	static const struct boot_region low[] = {{0, 0x9fc00, 1},
						 {0x100000, 4 * MIB, 1}};
	static const struct boot_region low2[] = {
		{0, 0xa0000, 1}, {0, 0x10000, 2}, {0x100000, 4 * MIB, 1}};
	static const struct boot_region high[] = {{0x100000, 4 * MIB, 1}};
	static const struct boot_region resv[] = {{0, 0x8000, 0}};
	uint64_t pa;

	(void)state;
	assert_int_equal(init(low, 2, NULL, 0, 0, true), PMM_OK);
	assert_int_equal(stats().trampoline, 0x1000);
	assert_int_equal(pmm_frame_state(pm, 0x1000), PMM_FRAME_UNMANAGED);
	while ((pa = pmm_alloc(pm, 0)) != PMM_NO_FRAME)
		assert_int_not_equal(pa, 0x1000);
	assert_int_equal(init(low, 2, resv, 1, 0, true), PMM_OK);
	assert_int_equal(stats().trampoline, 0x8000);
	assert_int_equal(init(low2, 3, NULL, 0, 0, true), PMM_OK);
	assert_int_equal(stats().trampoline, 0x10000);
	assert_int_equal(init(low2, 3, NULL, 0, 0, false), PMM_OK);
	assert_int_equal(stats().trampoline, PMM_NO_FRAME);
	assert_int_equal(pmm_frame_state(pm, 0x10000), PMM_FRAME_FREE);
	assert_int_equal(init(high, 1, NULL, 0, 0, true), PMM_OK);
	assert_int_equal(stats().trampoline, PMM_NO_FRAME);
}

/* RAM above 4 GiB with the metadata held below a limit. */
static void test_above_4g(void **state)
{
	static const struct boot_region map[] = {
		{0x100000, 2 * GIB - 0x100000, 1},
		{2 * GIB, 2 * GIB, 2}, /* PCI hole */
		{4 * GIB, 60 * GIB, 1},
	};
	struct pmm_stats st;
	uint64_t frames = (2 * GIB - 0x100000 + 60 * GIB) / PG, big;

	(void)state;
	assert_int_equal(init(map, 3, NULL, 0, 1 * GIB, false), PMM_OK);
	st = stats();
	assert_true(st.meta_base + st.meta_bytes <= 1 * GIB);
	assert_int_equal(st.meta_base + st.meta_bytes, 1 * GIB);
	/* About one bit per frame. */
	assert_true(st.meta_bytes >= frames / 8);
	assert_true(st.meta_bytes <= frames / 8 + 4 * PG);
	assert_int_equal(st.total_frames, frames - st.meta_bytes / PG);
	assert_int_equal(pmm_extent_count(pm), 3);
	expect_extent(2, 4 * GIB, 60 * GIB);
	/* 1 GiB aligned, 1 GiB long: the first fit is the low extent's top. */
	assert_int_equal(pmm_alloc_run(pm, GIB / PG, GIB, 0), 1 * GIB);
	big = pmm_alloc_run(pm, 3 * GIB / PG, 2 * MIB, 0);
	assert_int_equal(big, 4 * GIB);
	assert_int_equal(pmm_frame_state(pm, big + 3 * GIB - PG),
			 PMM_FRAME_USED);
	assert_int_equal(pmm_frame_state(pm, big + 3 * GIB), PMM_FRAME_FREE);
	assert_int_equal(pmm_free_run(pm, big, 3 * GIB / PG), PMM_OK);
}

/*
 * 2 TiB in 256 extents of 8 GiB, with reserved holes. The metadata (64 MiB
 * of bitmap) is reserved but only the touched parts exist in the sparse
 * memory: init writes the chunk summaries alone.
 */
static void test_2tib_sparse(void **state)
{
	static struct boot_region map[512];
	uint64_t expect = 0, pa, first, n;
	size_t i, pages;

	(void)state;
	for (i = 0; i < 256; i++) {
		map[2 * i] = (struct boot_region){4 * GIB + i * 8 * GIB,
						  8 * GIB - 64 * MIB, 1};
		map[2 * i + 1] = (struct boot_region){
			4 * GIB + i * 8 * GIB + 8 * GIB - 64 * MIB, 64 * MIB,
			2};
		expect += (8 * GIB - 64 * MIB) / PG;
	}
	assert_int_equal(init(map, 512, NULL, 0, 0, false), PMM_OK);
	pages = sim->pages;
	assert_true(pages <= 64); /* 16 pages of summaries, and the spill */
	assert_int_equal(pmm_extent_count(pm), 256);
	assert_int_equal(stats().total_frames,
			 expect - stats().meta_bytes / PG);
	/* One bit per frame, plus the summaries: 64 MiB for 2 TiB. */
	assert_true(stats().meta_bytes >= expect / 8);
	assert_true(stats().meta_bytes < expect / 8 + 128 * KIB);
	assert_true(expect * PG > 2 * TIB - 20 * GIB);
	/* The metadata sits at the top of the last extent. */
	assert_int_equal(stats().meta_base + stats().meta_bytes,
			 map[510].base + map[510].len);
	/* Fill the first extent, then the allocator moves on. */
	first = pmm_alloc_run(pm, map[0].len / PG, 0, 0);
	assert_int_equal(first, 4 * GIB);
	pa = pmm_alloc(pm, PMM_ZERO);
	assert_int_equal(pa, map[2].base);
	for (n = 0; n < 100000; n++)
		assert_int_equal(pmm_alloc(pm, 0), map[2].base + (n + 1) * PG);
	pa = pmm_alloc_run(pm, 512 * 512, GIB, 0);
	assert_int_equal(pa, map[2].base + GIB);
	assert_true(sim->pages - pages < 256);
	assert_int_equal(pmm_free_run(pm, first, map[0].len / PG), PMM_OK);
	assert_int_equal(pmm_alloc(pm, 0), 4 * GIB);
	assert_int_equal(stats().free_frames,
			 stats().total_frames - 1 - 100001 - 512 * 512);
}

/* More extents than the allocator has slots: the rest is counted lost. */
static void test_too_many_extents(void **state)
{
	static struct boot_region map[600];
	static const struct boot_region resv[] = {{0x100000 + 2 * PG, 1, 0}};
	size_t i;

	(void)state;
	for (i = 0; i < 600; i++)
		map[i] =
			(struct boot_region){0x100000 + i * 16 * PG, 8 * PG, 1};
	assert_int_equal(init(map, 600, NULL, 0, 0, false), PMM_OK);
	assert_int_equal(pmm_extent_count(pm), PMM_MAX_EXTENTS);
	assert_int_equal(stats().lost_frames, 88 * 8);
	assert_int_equal(stats().total_frames,
			 512 * 8 - stats().meta_bytes / PG);
	/* No slot to split into: the larger piece of extent 0 stays. */
	assert_int_equal(init(map, 512, resv, 1, 0, false), PMM_OK);
	assert_int_equal(stats().lost_frames, 2);
	expect_extent(0, 0x100000 + 3 * PG, 5 * PG);
}

static void test_strerror(void **state)
{
	(void)state;
	for (int e = 0; e >= PMM_ERR_NOT_ALLOCATED; e--) {
		assert_printable(pmm_strerror(e), 80);
		for (int f = 0; f > e; f--)
			assert_string_not_equal(pmm_strerror(e),
						pmm_strerror(f));
	}
	assert_string_equal(pmm_strerror(-99), "unknown error");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_init_errors),
		T(test_messy_map),
		T(test_unsorted_same_result),
		T(test_tiny),
		T(test_reserved_and_page0),
		T(test_exhaustion_and_recovery),
		T(test_free_errors),
		T(test_aligned_runs),
		T(test_chunk_boundaries),
		T(test_zeroing),
		T(test_limited_grants),
		T(test_trampoline),
		T(test_above_4g),
		T(test_2tib_sparse),
		T(test_too_many_extents),
		T(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
