/* SPDX-License-Identifier: MIT */
/*
 * What a reclaim pass counts. The negative control's record is made of
 * several passes and sums them all: its lost writes, pages, flushes, IPIs
 * and time are those of the same passes (docs/records.md). Portable.
 */
#ifndef BENCH_RECLAIM_COUNTS_H
#define BENCH_RECLAIM_COUNTS_H

#include <stdint.h>

struct rc_counts {
	uint64_t pages, flushes, icr, irqs;
	uint64_t cycles; /* paging out */
	uint64_t ticks;	 /* of them, printing ticks and progress */
	uint64_t lost;	 /* pages whose swap copy lacks the last write */
	/* INVLPGB requests the encoder refused (reported by the caller) */
	uint64_t refused;
};

static inline void rc_counts_add(struct rc_counts *sum,
				 const struct rc_counts *pass)
{
	sum->pages += pass->pages;
	sum->flushes += pass->flushes;
	sum->icr += pass->icr;
	sum->irqs += pass->irqs;
	sum->cycles += pass->cycles;
	sum->ticks += pass->ticks;
	sum->lost += pass->lost;
	sum->refused += pass->refused;
}

#endif
