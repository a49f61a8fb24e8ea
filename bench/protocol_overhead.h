/* SPDX-License-Identifier: MIT */
/*
 * The protocol overhead: what the harness adds to a raw IPI round trip
 * when it flushes one page on one responder (bench/protocol_overhead.c).
 * Both ends are the p50 of a record towards the same CPU: the one of a
 * distance class (the records' `distance`), the nearest class that has
 * both.
 */
#ifndef BENCH_PROTOCOL_OVERHEAD_H
#define BENCH_PROTOCOL_OVERHEAD_H

#include <stdint.h>

struct result;

#define PROTOCOL_OVERHEAD_CLASSES 8

struct protocol_overhead {
	struct {
		const char *distance;
		uint64_t ipi;	/* ipi-roundtrip p50 */
		uint64_t range; /* ipi-range 1 page 1 target p50 */
	} ends[PROTOCOL_OVERHEAD_CLASSES];
};

/* Notes r if it is one of the two ends (result_emit calls it). */
void protocol_overhead_note(struct protocol_overhead *po,
			    const struct result *r);
/* The INFO line and the summary's protocol_overhead, if both were seen. */
void protocol_overhead_report(const struct protocol_overhead *po);

#endif
