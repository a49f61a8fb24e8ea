/* SPDX-License-Identifier: MIT */
/*
 * The refill measurement (bench/refill.c), run by primitives: what
 * re-touching a working set of W pages costs after a full flush against
 * after a flush of 33 pages beside it, on this CPU and on a responder, and
 * what INVLPG of K adjacent pages costs here: the inputs of the flush
 * ceiling (bench/ceiling_run.h).
 */
#ifndef BENCH_REFILL_H
#define BENCH_REFILL_H

#include <stdint.h>

struct bench_ctx;
struct plan_costs;

/* Samples of each refill series: few, its working sets are large. */
#define REFILL_SAMPLES 25

void refill_run(struct bench_ctx *ctx, unsigned samples);

/* Its estimate for the time budget, in cycles. */
uint64_t refill_plan_cycles(unsigned samples, const struct plan_costs *c);

#endif
