/* SPDX-License-Identifier: MIT */
/*
 * The reclaim negative control's choice of page to race a worker on
 * (bench/reclaim_pass.c). Portable: the host tests check it.
 *
 * A worker's write is lost, and shows that its TLB kept the translation,
 * only if the worker still holds that translation when the control
 * clears the PTE and copies the page. It does right after a write that
 * went through, and stays on that page for the next one. Any page whose
 * PTE the control already cleared can never be raced again: the
 * worker's next attempt must be on a page still mapped.
 */
#ifndef BENCH_RECLAIM_RACE_H
#define BENCH_RECLAIM_RACE_H

#include <stdbool.h>
#include <stdint.h>

/* Pages of one batch already raced or copied: a bit each. */
static inline bool rc_race_done(const uint64_t *done, uint64_t i)
{
	return done[i / 64] & (1ull << (i % 64));
}

static inline void rc_race_mark(uint64_t *done, uint64_t i)
{
	done[i / 64] |= 1ull << (i % 64);
}

/*
 * Whether to race the worker on page p now: it was on p with seen
 * writes, and is still on p (page_now) with more (writes_now), so its
 * last write went through p's translation; p is in the batch [first,
 * first + n) of at most cap pages, and still mapped (not done).
 */
static inline bool rc_race_target(uint64_t p, uint64_t page_now, uint64_t seen,
				  uint64_t writes_now, uint64_t first,
				  uint64_t n, uint64_t cap,
				  const uint64_t *done)
{
	uint64_t i = p - first;

	if (page_now != p || writes_now == seen)
		return false;
	return p >= first && i < n && i < cap && !rc_race_done(done, i);
}

#endif
