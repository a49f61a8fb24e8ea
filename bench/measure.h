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

#endif
