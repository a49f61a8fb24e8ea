/* SPDX-License-Identifier: MIT */
/* reclaim: records and verdicts of its runs (bench/reclaim_report.c). */
#ifndef BENCH_RECLAIM_REPORT_H
#define BENCH_RECLAIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/reclaim_pass.h"
#include "kernel/report.h"

struct bench_ctx;

/* r's record (samples[0..n)) and its row of the table. */
void rc_emit(struct bench_ctx *ctx, const struct rc_run *r, uint64_t *samples,
	     uint64_t n);

/* Exact counts: one IPI per other CPU per flush, one interrupt each. */
void rc_check_counts(const struct rc_run *r);
/* A lost write always fails; none proves the flush as ctl decides. */
void rc_check_lost(const struct rc_run *r, bool writers,
		   const struct report_control *ctl);
/*
 * The seed's claim, over the runs that ran (found by strategy and
 * batch): per-page sends 512x the IPIs of batch 512.
 */
void rc_check_ratio(const struct rc_run *runs, size_t n);
/* A FAIL if the encoder refused any of r's INVLPGB requests. */
void rc_report_refused(const struct rc_run *r);
/*
 * The negative control r (of at most max_passes passes) into ctl: shown
 * only where it lost a write of every worker that wrote.
 */
void rc_control_verdict(const struct rc_run *r, unsigned max_passes,
			struct report_control *ctl);

#endif
