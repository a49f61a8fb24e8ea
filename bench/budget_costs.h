/* SPDX-License-Identifier: MIT */
/* The time budget's costs, measured on this machine (bench/budget_costs.c). */
#ifndef BENCH_BUDGET_COSTS_H
#define BENCH_BUDGET_COSTS_H

#include <stdint.h>
#include "bench/plan.h"

/*
 * What an IPI round (to one responder, to all, to all while they read
 * memory), a TLB-missing read, a CR3 reload, an INVLPG and a page copy
 * cost here, less `over` (the timer's own cost) each, into *costs.
 */
void budget_measure_costs(uint64_t over, struct plan_costs *costs);

#endif
