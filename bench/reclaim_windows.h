/* SPDX-License-Identifier: MIT */
/*
 * A reclaim pass's worker windows, in quarters of its window (the
 * duration_ms= key): one definition for the pass (bench/reclaim_pass.c),
 * the budget's pilot (bench/reclaim.c) and the plan (bench/plan_cost.c).
 * Portable: no hardware access (tests/unit/test_plan.c).
 */
#ifndef BENCH_RECLAIM_WINDOWS_H
#define BENCH_RECLAIM_WINDOWS_H

#include <stdint.h>

/* Before a measured pass's baseline: its workers' TLBs flushed whole */
#define RC_WARM_QUARTERS 2
/* Then every pass's workers get going */
#define RC_SETTLE_QUARTERS 1
/* The baseline, and the window after the page-out: a window each */
#define RC_BASE_QUARTERS  4
#define RC_AFTER_QUARTERS 4
/* A measured pass's before its page-out, and all of them */
#define RC_BEFORE_QUARTERS \
	(RC_WARM_QUARTERS + RC_SETTLE_QUARTERS + RC_BASE_QUARTERS)
#define RC_PASS_QUARTERS (RC_BEFORE_QUARTERS + RC_AFTER_QUARTERS)

/* q quarters of window (in window's unit) */
static inline uint64_t rc_quarters(uint64_t window, unsigned q)
{
	return window * q / 4;
}

#endif
