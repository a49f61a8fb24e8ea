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

#include <stdbool.h>
#include <stdint.h>
#include "bench/plan.h"

struct bench_ctx;

/* Samples of each refill series: few, its working sets are large. */
#define REFILL_SAMPLES PLAN_REFILL_SAMPLES

void refill_run(struct bench_ctx *ctx, unsigned samples);

/*
 * The L2 TLB's 4 KiB entries the working sets are sized by (the time
 * budget's costs too): CPUID 0x80000006, else assumed (*from_cpuid false).
 */
uint32_t refill_l2_tlb(bool *from_cpuid);

#endif
