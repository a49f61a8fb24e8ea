/* SPDX-License-Identifier: MIT */
#ifndef BENCH_INVLPGB_EMUL_H
#define BENCH_INVLPGB_EMUL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Pages per emulated instruction: the model takes any count, but a small
 * maximum makes the chunking run as on Zen 4 (8 pages).
 */
#define INVLPGB_EMUL_MAX_PAGES 8

/* Catches INVLPGB/TLBSYNC's #UD and emulates them; false if the CPU has
 * the real instruction (then nothing is emulated). */
bool invlpgb_emul_enable(void);
void invlpgb_emul_disable(void);
/* INVLPGB instructions emulated so far. */
uint64_t invlpgb_emul_count(void);

#endif
