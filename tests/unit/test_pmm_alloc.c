// SPDX-License-Identifier: MIT
/*
 * Host tests of the frame allocator's grants (mm/pmm.c): running out and
 * recovering, bad frees, aligned runs, zeroed frames, limited grants and
 * the trampoline's frame, over the simulated memory of tests/unit/pmm_sim.h.
 */
#include "pmm_sim.h"

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

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_exhaustion_and_recovery),
		T(test_free_errors),
		T(test_aligned_runs),
		T(test_zeroing),
		T(test_limited_grants),
		T(test_trampoline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
