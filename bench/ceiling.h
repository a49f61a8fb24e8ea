/* SPDX-License-Identifier: MIT */
/*
 * The flush ceiling K*: the page count at which flushing K pages one by
 * one costs as much as flushing everything and refilling the working set
 * of W pages that the full flush dropped (Linux's
 * tlb_single_page_flush_ceiling is 33; bench/ceiling.c).
 *
 * Every cost is a median with its distribution-free interval (the order
 * statistics at the ranks ceiling_median_ranks() gives), so that the host
 * tool (tools/results/ceiling.py) can redo every number from the records'
 * p50, p50_lo and p50_hi alone, with the same integer arithmetic: no
 * resampling, nothing random, the guest and the host agree to the cycle.
 *
 * Portable: no hardware access, tested on the host.
 */
#ifndef BENCH_CEILING_H
#define BENCH_CEILING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CEILING_LINUX 33 /* tlb_single_page_flush_ceiling */
#define CEILING_MAX_K 16 /* page counts of one curve */

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
 * The full flush's side for one working set: the full flush itself, and
 * what refilling W pages costs after it over after a range flush that
 * left them, on the initiator and on each of `targets` responders (0
 * responders: a local flush).
 */
struct ceiling_full_side {
	struct ceiling_est flush;
	struct ceiling_est init_full, init_range; /* refill, initiator */
	struct ceiling_est resp_full, resp_range; /* refill, a responder */
	uint32_t targets;
};

enum ceiling_pos {
	CEILING_33_BELOW,  /* 33 < K*'s interval: Linux flushes all too soon */
	CEILING_33_INSIDE, /* within it: cannot tell */
	CEILING_33_ABOVE, /* 33 > K*'s interval: Linux flushes 1 by 1 too long */
};

struct ceiling_solution {
	struct ceiling_est full;	/* flush + refill, the whole side */
	struct ceiling_k kstar, lo, hi; /* lo <= kstar <= hi */
	enum ceiling_pos linux_pos;
	/* At K = 33, p50s: page by page, and the full flush + refill. */
	uint64_t range33, full33;
	bool have33; /* 33 is within the curve's K range */
};

/*
 * The full side's total: flush + extra refill on the initiator + targets
 * x the extra refill on a responder, where an extra refill is the refill
 * after a full flush less that after a range flush, at least 0. The
 * interval's ends combine the ends that make the total smallest (lo) or
 * largest (hi): full refill lo less range refill hi, and so on.
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
 * K*, its interval and where 33 stands, for a curve (n >= 1) and a full
 * side: K* is the p50 curve's crossing of the full p50; its low end the hi
 * curve's crossing of the full lo (range costs at their highest, the full
 * flush at its lowest: the earliest K* the intervals allow), its high end
 * the lo curve's of the full hi. The interval is a bound from the
 * per-median intervals, not a joint 95% one. Returns false if the curve
 * is empty.
 */
bool ceiling_solve(const struct ceiling_curve *c,
		   const struct ceiling_full_side *f,
		   struct ceiling_solution *out);

/* "at", "below", "above". */
const char *ceiling_where_name(enum ceiling_where w);
/* "below", "inside", "above". */
const char *ceiling_pos_name(enum ceiling_pos p);

#endif
