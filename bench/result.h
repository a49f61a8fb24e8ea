/* SPDX-License-Identifier: MIT */
/*
 * The result record: one measured configuration, its statistics computed
 * from raw samples after the timed regions (bench/result.c).
 */
#ifndef BENCH_RESULT_H
#define BENCH_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/ceiling_book.h"
#include "bench/findings.h"
#include "bench/protocol_overhead.h"
#include "bench/role.h"
#include "bench/stats.h"

/* A counter field of a result record. */
struct result_field {
	const char *key;
	uint64_t value;
	bool is_signed; /* value holds an int64_t */
};

/* One measured configuration: statistics of raw samples plus counters. */
struct result {
	const char *bench, *strategy, *ipi_mode; /* ipi_mode may be NULL */
	/* What it is, for its consumers (bench/role.h): its producer's word */
	enum result_role role;
	enum flush_kind flush;
	const char *distance; /* topology class of the target(s), or NULL */
	uint64_t pages, targets;
	uint64_t *samples; /* raw cycles; sorted in place by result_emit */
	size_t n;
	const struct result_field *fields;
	size_t nfields;
	bool emulated;
	/*
	 * Why this record's figure is not the hardware's, or NULL: printed
	 * as "not_hardware" (reclaim's loss where the CPUs took turns).
	 */
	const char *not_hardware;
	bool raw;	 /* the timer's own cost: nothing subtracted */
	struct stats st; /* filled by result_emit */
	/* The median's ~95% order-statistic interval (bench/ceiling.h). */
	uint64_t p50_lo, p50_hi;
};

/*
 * A result of n samples in s with its fields; what else identifies it
 * (distance, ipi_mode, emulated, raw) the caller sets.
 */
static inline struct result result_make(const char *bench, struct result_what w,
					uint64_t pages, uint64_t targets,
					uint64_t *s, size_t n,
					const struct result_field *f, size_t nf)
{
	return (struct result){.bench = bench,
			       .strategy = w.strategy,
			       .role = w.role,
			       .flush = w.flush,
			       .pages = pages,
			       .targets = targets,
			       .samples = s,
			       .n = n,
			       .fields = f,
			       .nfields = nf};
}

/* What result records need from the run, and what they add up to. */
struct result_sink {
	uint64_t overhead; /* the timer's own cost, subtracted */
	bool raw;	   /* raw=on: every sample, in raw records */
	struct protocol_overhead po;
	struct findings_book findings; /* every record, for the findings */
	struct ceiling_book ceiling;   /* what the flush ceiling rests on */
	struct ceiling_decision ceiling_decision; /* ceiling_report()'s */
};

/* Computes the statistics (overhead subtracted) and prints the record. */
void result_emit(struct result_sink *sink, struct result *r);

#endif
