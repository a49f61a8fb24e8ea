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

/*
 * With invlpgb=emulate on a CPU without INVLPGB, installs the software
 * model: before the tlb: checks, which run INVLPGB through it too.
 */
void bench_invlpgb_init(void);
/* Removes the model if bench_invlpgb_init installed it. */
void bench_invlpgb_fini(void);
/* Whether bench_invlpgb_init installed the INVLPGB software model. */
bool bench_invlpgb_model(void);

/*
 * Pages per INVLPGB for experiment `bench`: the real instruction's maximum
 * (bare metal, CPUID), the software model's under invlpgb=emulate (and
 * *emulated set), or 0 after a SKIP "<bench>: invlpgb" naming the reason.
 */
uint32_t bench_invlpgb(const char *bench, bool *emulated);

/*
 * Whether INVLPGB (the instruction or its model) will run, as
 * bench_invlpgb() will decide, without its verdicts: for the time budget.
 */
bool bench_invlpgb_planned(void);

#endif
