// SPDX-License-Identifier: MIT
/*
 * Host tests of the frame allocator (mm/pmm.c, mm/pmm_map.c): what it
 * makes of a firmware memory map, odd ones included, over the simulated
 * memory of tests/unit/pmm_sim.h.
 */
#include "pmm_sim.h"

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
		T(test_chunk_boundaries),
		T(test_above_4g),
		T(test_2tib_sparse),
		T(test_too_many_extents),
		T(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
