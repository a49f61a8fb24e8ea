/* SPDX-License-Identifier: MIT */
/* What the shootdown sweep covers, resolved from the command line. */
#ifndef BENCH_SHOOTDOWN_SWEEP_H
#define BENCH_SHOOTDOWN_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/params.h"

struct bench_ctx;

enum strategy {
	S_IPI_PAGE,
	S_IPI_RANGE,
	S_IPI_FULL,
	S_IPI_LINUX,
	S_INVLPGB,
	/* Linux's INVLPGB path: invlpgb up to the ceiling, one full beyond */
	S_INVLPGB_LINUX,
	S_COUNT
};

extern const char *const strategy_names[S_COUNT];

/* Whether s flushes by INVLPGB: no IPI, no handler, gated on CPUID. */
static inline bool strategy_is_invlpgb(int s)
{
	return s == S_INVLPGB || s == S_INVLPGB_LINUX;
}

#define SWEEP_MAX 32

/* What the sweep covers: the command line's lists, resolved. */
struct sd_config {
	unsigned pages[SWEEP_MAX], npages;
	unsigned targets[SWEEP_MAX], ntargets; /* resolved: 1..N-1 */
	bool strategy[S_COUNT];
	unsigned samples, warmup;
	uint64_t seed;
	uint32_t invlpgb_max_pages; /* 0: INVLPGB is not run */
	bool invlpgb_emulated;
	/* A wrong INVLPGB use injected on purpose (invlpgb=...,bug=). */
	enum param_invlpgb_bug bug;
	bool handler_timing; /* handler_timing=on: time every handler */
	/* delay_handler= (test aid): this strategy's handlers wait */
	enum strategy delay_strategy;
	uint64_t delay_cycles; /* 0: no delay */
	bool inject_nmi;       /* selftest=nmi (bench/inject.h) */
	bool inject_oom;       /* selftest=oom */
	struct bench_ctx *ctx; /* records, progress */
};

void shootdown_sweep(const struct sd_config *sw);

/*
 * The name of s's variant on global pages (PTE.G), which the sweep runs
 * beside s ("ipi-full-global"), or NULL if s has none.
 */
const char *shootdown_global_name(enum strategy s);

/* The time budget's pilot (shootdown_sweep.c); false if it could not run. */
bool shootdown_pilot(const struct sd_config *sw, const uint32_t ks[2],
		     uint64_t corner[2][2]);

#endif
