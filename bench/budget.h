/* SPDX-License-Identifier: MIT */
/*
 * The time budget in the running kernel (budget_s=): measure what the
 * operations cost here, plan the experiments with bench/plan.c, apply the
 * plan to the sizes the experiments run with (struct bench_sizes) and
 * print it (INFO lines and a `plan` record);
 * afterwards, say how long each experiment took against its plan (a
 * `budget` record and one INFO line that says whether the run fit).
 */
#ifndef BENCH_BUDGET_H
#define BENCH_BUDGET_H

#include <stdbool.h>
#include "bench/bench.h"
#include "bench/plan.h"

/* run[e]: experiment e (plan.h order = the experiment table's) is selected. */
void budget_plan(const struct bench_params *p, const bool run[PLAN_EXPS],
		 struct bench_ctx *ctx);

/* Experiment e took `cycles`. */
void budget_account(enum plan_exp e, uint64_t cycles);

/* The `budget` record and whether the run fit. */
void budget_report(void);

#endif
