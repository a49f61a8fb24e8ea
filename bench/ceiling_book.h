/* SPDX-License-Identifier: MIT */
/*
 * The flush ceiling's book (bench/ceiling_book.c): what the run's result
 * records give the ceiling, noted as they are printed, and the decision
 * made from it once, after the experiments: every way's K*(W), the run's
 * answer and the 3,000 ns cap. Deciding is one call on the whole book, so
 * nothing depends on the order in which the records are printed later.
 *
 * Portable: no hardware access, tested on the host
 * (tests/unit/test_ceiling.c).
 */
#ifndef BENCH_CEILING_BOOK_H
#define BENCH_CEILING_BOOK_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/ceiling.h"
#include "bench/role.h"

#define CEILING_MAX_W 4 /* working sets noted */

enum ceiling_way {
	CEILING_UNICAST, /* in the records' order: the answer's way first */
	CEILING_LOCAL,
	CEILING_BROADCAST,
	CEILING_INVLPGB,
	CEILING_WAYS
};

/* What the ceiling needs of one result record (result_emit fills it). */
struct ceiling_obs {
	const char *bench, *ipi_mode; /* ipi_mode may be NULL */
	enum result_role role;	      /* what the record is, by its producer */
	enum flush_kind flush;
	uint64_t pages, targets, n, delay_cycles;
	bool emulated;
	struct ceiling_est e; /* p50, p50_lo, p50_hi */
};

struct ceiling_noted {
	bool have;
	struct ceiling_est e;
};

/* Each the first of its kind (the main sweep's, not the repeats). */
struct ceiling_book {
	uint32_t l2;
	bool l2_cpuid;
	struct ceiling_curve curve[CEILING_WAYS]; /* the range flush vs K */
	struct ceiling_noted full[CEILING_WAYS];  /* the full flush */
	uint32_t targets[CEILING_WAYS];
	uint32_t w[CEILING_MAX_W], nw;
	/* CPU 0's refill of w[i]: [i][0] after a full, [i][1] a range flush */
	struct ceiling_noted refill[CEILING_MAX_W][2];
	bool delayed;  /* a noted record had delay_cycles */
	bool emulated; /* an INVLPGB record noted was the model's */
};

/* One working set's K* in one way. */
struct ceiling_point {
	uint32_t w;
	struct ceiling_solution s;
};

struct ceiling_way_result {
	uint32_t targets;
	struct ceiling_point pt[CEILING_MAX_W]; /* in the book's W order */
	unsigned npt;
	const char *why_not; /* npt == 0: why */
	/* The most pages one by one under CEILING_CAP_NS (local, unicast). */
	bool have_cap;
	struct ceiling_k k_cap;
};

struct ceiling_decision {
	struct ceiling_way_result way[CEILING_WAYS];
	uint64_t cap_cycles; /* CEILING_CAP_NS at the TSC rate; 0: unknown */
	bool have;	     /* an answer; else why_not */
	const char *why_not;
	enum ceiling_way answer_way; /* unicast, else local */
	unsigned answer_pt;	     /* the point at the answer's W */
	uint32_t answer_w;	     /* the largest W within the L2 TLB */
	/* enum findings_caveat bits, set by the caller (bench/ceiling_run.c) */
	unsigned int caveats, caveats_model;
};

/* Whether the ceiling rests on a record like o (it gets p50_lo, p50_hi). */
bool ceiling_uses(const struct ceiling_obs *o);
/* Notes o in b if the ceiling rests on it. */
void ceiling_book_note(struct ceiling_book *b, const struct ceiling_obs *o);
/* The L2 TLB size the working sets were chosen by, and whence. */
void ceiling_book_set_l2(struct ceiling_book *b, uint32_t entries,
			 bool from_cpuid);
/*
 * Decides everything from the whole book; tsc_khz 0: no cap. Leaves the
 * caveat bits 0.
 */
void ceiling_decide(const struct ceiling_book *b, uint64_t tsc_khz,
		    struct ceiling_decision *out);
/* "unicast", "local", "broadcast", "invlpgb". */
const char *ceiling_way_name(enum ceiling_way w);

#endif
