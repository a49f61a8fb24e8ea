/* SPDX-License-Identifier: MIT */
#ifndef BENCH_INVLPGB_EMUL_H
#define BENCH_INVLPGB_EMUL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Pages per emulated instruction, the CPUID limit the model enforces (a
 * larger count is refused): as on Zen 4, so that the chunking runs.
 */
#define INVLPGB_EMUL_MAX_PAGES 8

/*
 * Catches INVLPGB/TLBSYNC's #UD and carries them out as the hardware
 * would (invlpgb_emul.c: the invalidation happens at TLBSYNC; encodings
 * the hardware would refuse are FAILs); false if the CPU has the real
 * instruction (then nothing is emulated) or memory ran out.
 */
bool invlpgb_emul_enable(void);
/*
 * An INFO line of what the model did since the last one ("invlpgb model
 * (during): ..."; during may be NULL), whose counts then restart: so the
 * experiments' line leaves out what the tlb: check did before them.
 * INVLPGBs still queued are counted as never carried out.
 */
void invlpgb_emul_report(const char *during);
/* Stops catching them; the last invlpgb_emul_report(). */
void invlpgb_emul_disable(void);

#endif
