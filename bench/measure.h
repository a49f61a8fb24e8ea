/* SPDX-License-Identifier: MIT */
/* The timer's own cost and sample buffers (bench/measure.c). */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Cost of an empty timed region (back-to-back ordered TSC reads), min;
 * measured anew each call (the runner keeps it in struct bench_ctx).
 */
uint64_t bench_overhead(void);

/* A zeroed buffer of n samples, or NULL (with a FAIL) if memory is out. */
uint64_t *bench_alloc(size_t n);
void bench_free(uint64_t *buf, size_t n);

/*
 * Rounds a primitive series runs and discards before its samples. A
 * series starts cold (its code not yet translated under TCG, its data
 * not cached): with raw=on the first sample of nearly every primitive
 * was its series' maximum, 2 to 224x the median, the second up to 3x,
 * the third about 1.1x. The shootdown sweep has its own (warmup=).
 */
#define BENCH_WARMUP 3

/*
 * Where round i of a series of BENCH_WARMUP + n goes: the warm-up rounds
 * into s[0], which the first kept one then overwrites.
 */
static inline unsigned bench_slot(unsigned i)
{
	return i < BENCH_WARMUP ? 0 : i - BENCH_WARMUP;
}

#endif
