/* SPDX-License-Identifier: MIT */
/*
 * The flush ceiling K*: the page count at which flushing K pages one by
 * one costs as much as flushing everything and refilling the working set
 * of W pages that the full flush dropped (Linux's
 * tlb_single_page_flush_ceiling is 33; bench/ceiling.c).
 *
 * Every cost is a median with its distribution-free interval (the order
 * statistics at the ranks ceiling_median_ranks() gives). The guest alone
 * decides each run's K* (bench/ceiling_book.c notes and decides,
 * bench/ceiling_run.c prints); the host tool (tools/results/ceiling.py)
 * reads the `ceiling` records and only pools runs.
 *
 * Portable: no hardware access, tested on the host.
 */
#ifndef BENCH_CEILING_H
#define BENCH_CEILING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/flush_how.h"
#include "lib/kstring.h"

/* Linux's tlb_single_page_flush_ceiling, the K the ceiling is held to. */
#define CEILING_LINUX	   FLUSH_SINGLE_PAGE_CEILING
#define CEILING_LINUX_TEXT STR_OF_VALUE(FLUSH_SINGLE_PAGE_CEILING)
#define CEILING_MAX_K	   16 /* page counts of one curve */
/* What the ceiling records say of 33 against K*: one boot decides none. */
#define CEILING_ONE_RUN "not determined: one run"
/* Both sides are cycles on the initiating CPU (bench/ceiling.h). */
#define CEILING_CURRENCY "initiator"
/* Linux's comment on 33: it caps one-by-one flushing at about 3,000 ns. */
#define CEILING_CAP_NS 3000

/*
 * The 1-based ranks of the order statistics that bound the median of n
 * sorted samples with about 95% confidence, whatever the distribution:
 * lo = max(1, floor((n - d) / 2)), hi = n + 1 - lo, with d =
 * floor(sqrt(floor(n * 38416 / 10000))), i.e. 1.96 sqrt(n) (the normal
 * approximation to the binomial(n, 1/2) count below the median). Below
 * n = 6 that is [1, n], and covers less than 95%. n = 0: both 0.
 */
void ceiling_median_ranks(uint64_t n, uint64_t *lo, uint64_t *hi);

/* A median and its interval, in cycles. */
struct ceiling_est {
	uint64_t p50, lo, hi;
};

/* A cost against K: K ascending, each with its median and interval. */
struct ceiling_curve {
	uint32_t k[CEILING_MAX_K];
	struct ceiling_est cost[CEILING_MAX_K];
	unsigned n;
};

/* Where a crossing is, against the curve's measured K range. */
enum ceiling_where {
	CEILING_AT,    /* at k (interpolated between two measured K) */
	CEILING_BELOW, /* at or below the fewest K measured (k is it) */
	CEILING_ABOVE, /* beyond the most K measured (k is it) */
};

struct ceiling_k {
	enum ceiling_where where;
	uint32_t k;
};

/*
 * The full side for one working set, in the initiator's cycles (the one
 * currency of both sides, CEILING_CURRENCY): the full flush's latency,
 * and what refilling W pages costs CPU 0 after it over after a range
 * flush that left them. The responders' handler time and refill are on
 * neither side: shootdown records carry no handler time by default.
 */
struct ceiling_full_side {
	struct ceiling_est flush;
	struct ceiling_est init_full, init_range; /* refill, initiator */
};

struct ceiling_solution {
	struct ceiling_est full;	/* flush + refill, the whole side */
	struct ceiling_k kstar, lo, hi; /* lo <= kstar <= hi, within the run */
	/* At K = 33, the one-by-one p50 (a figure, no verdict). */
	uint64_t range33;
	bool have33; /* 33 is within the curve's K range */
};

/*
 * The full side's total: flush + the extra refill on the initiator, the
 * refill after a full flush less that after a range flush, at least 0.
 * The interval's ends combine the ends that make the total smallest (lo)
 * or largest (hi): full refill lo less range refill hi, and so on.
 */
void ceiling_full_cost(const struct ceiling_full_side *f,
		       struct ceiling_est *out);

/*
 * The first K at which the curve's values reach `t`: linear between the
 * two measured K around it, rounded down. which: 0 the p50s, 1 the lo
 * ends, 2 the hi ends.
 */
struct ceiling_k ceiling_crossing(const struct ceiling_curve *c, int which,
				  uint64_t t);

/*
 * K* and its within-run interval, for a curve (n >= 1) and a full side:
 * K* is the p50 curve's crossing of the full p50; its low end the hi
 * curve's crossing of the full lo (range costs at their highest, the full
 * flush at its lowest: the earliest K* the intervals allow), its high end
 * the lo curve's of the full hi. The interval is a bound from the
 * per-median intervals of one boot, not a joint 95% one, and describes
 * that boot only: where 33 stands is for the host to decide over runs.
 * Returns false if the curve is empty.
 */
bool ceiling_solve(const struct ceiling_curve *c,
		   const struct ceiling_full_side *f,
		   struct ceiling_solution *out);

/* "K", "<=K" or ">K" into buf (at most cap bytes): where k is; returns buf. */
const char *ceiling_k_text(struct ceiling_k k, char *buf, size_t cap);
/* "at", "below", "above". */
const char *ceiling_where_name(enum ceiling_where w);

#endif
