/* SPDX-License-Identifier: MIT */
#ifndef MM_MM_SELFTEST_H
#define MM_MM_SELFTEST_H

#include <stdbool.h>
#include "kernel/config.h"

/* The "mm:" checks: mappings, the stale-TLB control, W^X, accounting. */
void mm_selftest_run(void);

/*
 * The "tlb:" checks: each invalidation primitive, large pages, split.
 * invlpgb_model: INVLPGB and TLBSYNC run through the software model
 * (invlpgb=emulate); without it and without INVLPGB in CPUID, the INVLPGB
 * check SKIPs. cfg->inject == INJECT_INVLPGB_LOCAL breaks that check.
 */
void tlb_selftest_run(const struct config *cfg, bool invlpgb_model);

#endif
