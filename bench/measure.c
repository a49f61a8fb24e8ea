// SPDX-License-Identifier: MIT
/*
 * What every measurement needs around its timed regions: the timer's own
 * cost, and sample buffers allocated before them (bench/measure.h).
 */
#include "bench/measure.h"
#include "kernel/report.h"
#include "kernel/x86.h"
#include "lib/memops.h"
#include "mm/vm.h"

#define OVERHEAD_ROUNDS 1000

uint64_t bench_overhead(void)
{
	uint64_t overhead = UINT64_MAX;

	for (int i = 0; i < OVERHEAD_ROUNDS; i++) {
		uint64_t t0 = rdtsc_ordered(), t1 = rdtsc_ordered();

		if (t1 - t0 < overhead)
			overhead = t1 - t0;
	}
	return overhead;
}

uint64_t *bench_alloc(size_t n)
{
	uint64_t frames = (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t pa = frames ? frame_alloc_run(frames, PAGE_SIZE) : 0;

	if (!pa) {
		report_fail("bench: memory", "no room for %zu samples", n);
		return NULL;
	}
	mem_zero(phys_to_virt(pa), n * 8); /* as bench.h promises */
	return phys_to_virt(pa);
}

void bench_free(uint64_t *buf, size_t n)
{
	uint64_t frames = (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE;

	if (buf && frames)
		frame_free_run((uint64_t)buf - DIRECT_MAP_BASE, frames);
}
