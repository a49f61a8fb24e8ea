/* SPDX-License-Identifier: MIT */
/*
 * The parts of the time budget's estimates (plan_cost.c) that its
 * reductions (plan.c) use beyond bench/plan.h. Portable.
 */
#ifndef BENCH_PLAN_COST_H
#define BENCH_PLAN_COST_H

#include <stdint.h>
#include "bench/plan.h"

/* TSC cycles in ms milliseconds. */
uint64_t plan_ms_cycles(const struct plan_costs *c, uint64_t ms);

/* reclaim: paging the cold region out once per strategy (cut by it). */
uint64_t plan_rc_paging_cycles(const struct plan_reclaim *rc,
			       const struct plan_costs *c);

/* reclaim: the workers' windows and setting up (not cut by it). */
uint64_t plan_rc_fixed_cycles(const struct plan_reclaim *rc,
			      const struct plan_costs *c);

#endif
