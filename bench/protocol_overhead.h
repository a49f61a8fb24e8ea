/* SPDX-License-Identifier: MIT */
/*
 * The protocol overhead: what the harness adds to a raw IPI round trip
 * when it flushes one page on one responder, from two result records
 * (bench/protocol_overhead.c).
 */
#ifndef BENCH_PROTOCOL_OVERHEAD_H
#define BENCH_PROTOCOL_OVERHEAD_H

#include "bench/result.h"

/* Notes r if it is one of the two ends (result_emit calls it). */
void protocol_overhead_note(const struct result *r);
/* The INFO line and the summary's protocol_overhead, if both were seen. */
void protocol_overhead_report(void);

#endif
