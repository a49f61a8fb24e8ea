/* SPDX-License-Identifier: MIT */
/*
 * The reclaim timeline's portable part (bench/rc_timeline.c, tested on the
 * host): cumulative counts taken at bin edges turned into counts per bin,
 * the compact text a record carries them in, and the loss with its
 * interval over blocks of bins. Integer-only: the kernel has no FPU state.
 *
 * Encoding (docs/records.md, "timeline"): a series of counts becomes one
 * string. Each count is taken as its difference from the one before (the
 * first from 0), zigzagged (0, -1, 1, -2 ... to 0, 1, 2, 3 ...) and
 * written five bits at a time, lowest first, one character each from
 * RC_TL_ALPHABET: characters 0-31 end a value, 32-63 say more follow. A
 * steady series costs about one character a bin.
 */
#ifndef BENCH_RC_TIMELINE_H
#define BENCH_RC_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_TL_ALPHABET \
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"

/*
 * Counts per bin of n + 1 cumulative values cum[0..n] taken k edges
 * apart, from the end backwards if from_end (the window before the
 * page-out ends at its start), at most max bins (the ones nearest that
 * end, or the start); bins whose edges are missing are left out. Returns
 * the bins written to out, in time order.
 */
size_t rc_tl_bins(const uint64_t *cum, size_t n, size_t k, bool from_end,
		  size_t max, uint64_t *out);

/*
 * Halves the resolution of n + 1 cumulative values in place: keeps every
 * other one from cum[0]; returns the new n (n / 2).
 */
size_t rc_tl_halve(uint64_t *cum, size_t n);

/*
 * Writes n counts as the encoded string (NUL-terminated) into out;
 * returns its length, or 0 with out empty if it does not fit in cap.
 */
size_t rc_tl_encode(const uint64_t *v, size_t n, char *out, size_t cap);

/*
 * The loss of during against before, as the experiment states it: 100 -
 * 100 * rate(during) / rate(before), each rate a window's counts over its
 * time (c and t: counts and microseconds per bin, n bins), in hundredths
 * of a percent, with the half-width of its 95% interval by batch means.
 * Adjacent bins are correlated (a worker slowed in one bin is likely
 * slowed in the next), so a window's bins are grouped into consecutive
 * blocks, each a ratio estimator's unit: blocks of rc_tl_block_len() bins
 * (the last takes the rest). The half-width is Student's t (df = the
 * fewer blocks less one) times the delta-method standard error of the
 * ratio of the two windows' rates over their blocks. Under
 * RC_TL_MIN_BLOCKS blocks or effective bins in either window there is no
 * interval (valid false): too few independent pieces to say how wide.
 */
#define RC_TL_MIN_BLOCKS 5

struct rc_tl_loss {
	int64_t loss_x100;
	uint64_t half_x100;
	bool estimated; /* loss_x100 holds: 2 timed bins each, before counted */
	bool valid;	/* and half_x100: the interval */
	uint64_t blocks;	 /* the fewer windows' blocks */
	uint64_t effective_bins; /* the fewer windows' effective bins */
	uint64_t block_bins[2];	 /* bins per block: before, during */
	int64_t rho_x1000[2];	 /* lag-1 autocorrelation: before, during */
};

struct rc_tl_loss rc_tl_loss(const uint64_t *bc, const uint64_t *bt, size_t nb,
			     const uint64_t *dc, const uint64_t *dt, size_t nd);

/*
 * pct_x100 -/+ half_x100 (hundredths of a percent), rounded outwards to
 * whole percent into lo and hi; neither above 100 (a loss of more than
 * every read cannot be). The harness's and the Linux side's intervals.
 */
void rc_tl_interval(int64_t pct_x100, uint64_t half_x100, int64_t *lo,
		    int64_t *hi);
/* Hundredths of a percent to the nearest whole percent, halves up. */
int64_t rc_tl_round_pct(int64_t x100);
/* Why a loss has no interval (the timeline's loss_no_interval), or NULL. */
const char *rc_tl_no_interval_why(const struct rc_tl_loss *d);
/*
 * The batch means' fields of a timeline record (loss_blocks, ...,
 * loss_no_interval): bench/rc_timeline_json.c.
 */
struct json;
void rc_tl_loss_json(struct json *j, const struct rc_tl_loss *d);

/*
 * Bins per block for n bins of lag-1 autocorrelation rho: the larger of
 * floor(sqrt(n)) (the usual batch-means rule, which also guards against
 * rho's downward bias on short series) and tau = (1 + rho) / (1 - rho)
 * rounded up, an AR(1) series' integrated autocorrelation time.
 */
uint64_t rc_tl_block_len(uint64_t n, int64_t rho_x1000);
/* n (1 - rho) / (1 + rho), rounded down; n where rho <= 0. */
uint64_t rc_tl_effective_bins(uint64_t n, int64_t rho_x1000);

/* t(0.975, df) in thousandths (df 0: 0). */
uint64_t rc_tl_t975_x1000(size_t df);

#endif
