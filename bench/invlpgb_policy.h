/* SPDX-License-Identifier: MIT */
/*
 * Whether the experiments run INVLPGB: the instruction (bare metal,
 * CPUID), its software model (invlpgb=emulate), or neither and why
 * (bench/invlpgb_policy.c).
 */
#ifndef BENCH_INVLPGB_POLICY_H
#define BENCH_INVLPGB_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/params.h"

/* What invlpgb= asked for, and what the run made of it. */
struct invlpgb_policy {
	enum param_invlpgb_mode mode;
	bool model_on; /* the software model is installed */
	bool probed;   /* invlpgb=force executed it once, as asked */
};

/*
 * With invlpgb=emulate on a CPU without INVLPGB, installs the software
 * model: before the tlb: checks, which run INVLPGB through it too.
 */
void bench_invlpgb_init(struct invlpgb_policy *pol,
			enum param_invlpgb_mode mode);
/* Removes the model if bench_invlpgb_init installed it. */
void bench_invlpgb_fini(struct invlpgb_policy *pol);

/*
 * Pages per INVLPGB for experiment `bench`: the real instruction's maximum
 * (bare metal, CPUID), the software model's under invlpgb=emulate (and
 * *emulated set), or 0 after a SKIP "<bench>: invlpgb" naming the reason.
 */
uint32_t bench_invlpgb(struct invlpgb_policy *pol, const char *bench,
		       bool *emulated);

/*
 * Whether INVLPGB (the instruction or its model) will run, as
 * bench_invlpgb() will decide, without its verdicts: for the time budget.
 */
bool bench_invlpgb_planned(const struct invlpgb_policy *pol);
/* The pages per INVLPGB that bench_invlpgb() will return, likewise. */
uint32_t bench_invlpgb_planned_pages(const struct invlpgb_policy *pol);

#endif
