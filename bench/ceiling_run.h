/* SPDX-License-Identifier: MIT */
/*
 * The flush ceiling of this run (bench/ceiling_run.c): the result records
 * it rests on are noted as they are printed; after the experiments,
 * ceiling_report() solves K* (bench/ceiling.h) for each way measured and
 * each working set, prints the `ceiling` records (docs/output.md) and
 * keeps the one answer that ceiling_answer() gives.
 */
#ifndef BENCH_CEILING_RUN_H
#define BENCH_CEILING_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/ceiling.h"

struct result;

/*
 * The run's one answer: the way that shootdowns flush a range (unicast,
 * else local where no responder measured), for the largest working set
 * that fits in the L2 TLB (a full flush then drops what Linux's ceiling
 * weighs: the whole TLB's worth of entries).
 */
struct ceiling_answer {
	bool have;	     /* false: why_not says why */
	const char *why_not; /* !have */
	const char *way;     /* "local", "unicast", "broadcast" */
	uint32_t w, targets;
	struct ceiling_solution s;
	/*
	 * Why it is not a hardware answer (enum findings_caveat bits, 0: it
	 * is); findings_caveats_text() words them, for every figure.
	 */
	unsigned int caveats;
};

/* Whether the ceiling rests on r (its record gets p50_lo, p50_hi). */
bool ceiling_uses(const struct result *r);
/* Notes r if the ceiling rests on it (result_emit calls it). */
void ceiling_note(const struct result *r);
/* The L2 TLB size the working sets were chosen by, and whence. */
void ceiling_set_l2(uint32_t entries, bool from_cpuid);
/* The records, the INFO line; after every experiment. */
void ceiling_report(void);
/* A crossing as a record's KEY and its WKEY ("at", "below", "above"). */
struct json;
void ceiling_json_k(struct json *j, const char *key, const char *wkey,
		    struct ceiling_k k);
/* The answer ceiling_report() found (have false before it). */
const struct ceiling_answer *ceiling_answer(void);

#endif
