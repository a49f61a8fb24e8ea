// SPDX-License-Identifier: MIT
/* The reclaim timeline's arithmetic and encoding (bench/rc_timeline.h). */
#include "bench/rc_timeline.h"
#include "bench/stats.h"
#include "lib/muldiv.h"

size_t rc_tl_bins(const uint64_t *cum, size_t n, size_t k, bool from_end,
		  size_t max, uint64_t *out)
{
	size_t bins = k ? n / k : 0, first;

	if (bins > max)
		bins = max;
	/* from_end: the last bin ends at cum[n]; else the first starts at 0 */
	first = from_end ? n - bins * k : 0;
	for (size_t b = 0; b < bins; b++) {
		uint64_t lo = cum[first + b * k], hi = cum[first + (b + 1) * k];

		out[b] = hi > lo ? hi - lo : 0;
	}
	return bins;
}

size_t rc_tl_halve(uint64_t *cum, size_t n)
{
	for (size_t i = 1; i <= n / 2; i++)
		cum[i] = cum[2 * i];
	return n / 2;
}

size_t rc_tl_encode(const uint64_t *v, size_t n, char *out, size_t cap)
{
	static const char abc[] = RC_TL_ALPHABET;
	uint64_t prev = 0;
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t d = (int64_t)(v[i] - prev);
		uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);

		prev = v[i];
		do {
			unsigned c = z & 31;

			z >>= 5;
			if (len + 1 >= cap) {
				if (cap)
					out[0] = '\0';
				return 0;
			}
			out[len++] = abc[c | (z ? 32 : 0)];
		} while (z);
	}
	if (len >= cap) {
		if (cap)
			out[0] = '\0';
		return 0;
	}
	out[len] = '\0';
	return len;
}

uint64_t rc_tl_t975_x1000(size_t df)
{
	static const uint16_t t[] = {
		0,    12706, 4303, 3182, 2776, 2571, 2447, 2365,
		2306, 2262,  2228, 2201, 2179, 2160, 2145, 2131,
		2120, 2110,  2101, 2093, 2086, 2080, 2074, 2069,
		2064, 2060,  2056, 2052, 2048, 2045, 2042,
	};

	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	return df < 60 ? 2000 : df < 120 ? 1980 : 1960;
}

/* |v|, and the sign apart: div128 is unsigned */
static unsigned __int128 mag(__int128 v)
{
	return (unsigned __int128)(v < 0 ? -v : v);
}

/*
 * One window: its rate C / T (counts over microseconds, the timed bins'
 * sums), the lag-1 autocorrelation of its bins' residuals c T - C t, the
 * effective bins and the blocks it is cut into, and the rate's relative
 * variance over the blocks in 1e-12 units, as a ratio estimator has it:
 * var(R) / R^2 = k sum((c T - C t)^2) / ((k - 1) T^2 C^2) over the k
 * blocks' sums. Bins without time are left out: no snapshot closed them
 * (they hold no count).
 */
struct window {
	uint64_t c, t, n, len, blocks, eff;
	int64_t rho_x1000;
	unsigned __int128 relvar;
};

static __int128 residual(uint64_t c, uint64_t t, const struct window *w)
{
	return (__int128)((unsigned __int128)c * w->t) -
	       (__int128)((unsigned __int128)w->c * t);
}

/* Lag-1 autocorrelation of the residuals, in thousandths, below 1000. */
static int64_t lag1_x1000(const uint64_t *c, const uint64_t *t, size_t n,
			  const struct window *w)
{
	unsigned __int128 sq = 0, pos = 0, neg = 0, num;
	__int128 prev = 0;
	bool have = false;
	int64_t r;

	for (size_t i = 0; i < n; i++) {
		__int128 e;

		if (!t[i])
			continue;
		e = residual(c[i], t[i], w);
		sq += mag(e) * mag(e);
		if (have && (e < 0) == (prev < 0))
			pos += mag(e) * mag(prev);
		else if (have)
			neg += mag(e) * mag(prev);
		prev = e;
		have = true;
	}
	num = pos >= neg ? pos - neg : neg - pos;
	/* no 128-bit divisor: both shifted until sq fits (|num| <= sq) */
	while (sq >> 63) {
		sq >>= 1;
		num >>= 1;
	}
	if (!sq)
		return 0;
	r = (int64_t)div128(num * 1000, (uint64_t)sq);
	r = pos >= neg ? r : -r;
	return r > 999 ? 999 : r < -1000 ? -1000 : r;
}

uint64_t rc_tl_block_len(uint64_t n, int64_t rho_x1000)
{
	uint64_t len = 1, tau = 1;

	while ((len + 1) * (len + 1) <= n)
		len++; /* floor(sqrt(n)) */
	/* tau = (1 + rho) / (1 - rho), rounded up; rho <= 0: 1 */
	if (rho_x1000 > 0)
		tau = (uint64_t)(2000 - 1) / (uint64_t)(1000 - rho_x1000);
	return len > tau ? len : tau;
}

uint64_t rc_tl_effective_bins(uint64_t n, int64_t rho_x1000)
{
	if (rho_x1000 <= 0)
		return n; /* no credit for alternation: n at most */
	return n * (uint64_t)(1000 - rho_x1000) / (uint64_t)(1000 + rho_x1000);
}

/*
 * The sum of the blocks' squared residuals: timed bin j is in block
 * j / len, the last block taking the rest.
 */
static unsigned __int128 block_sq(const uint64_t *c, const uint64_t *t,
				  size_t n, const struct window *w)
{
	unsigned __int128 e = 0;
	uint64_t bc = 0, bt = 0, j = 0;

	for (size_t i = 0; i < n; i++) {
		if (!t[i])
			continue;
		bc += c[i];
		bt += t[i];
		j++;
		if (j % w->len || (j / w->len >= w->blocks && j < w->n))
			continue;
		e += mag(residual(bc, bt, w)) * mag(residual(bc, bt, w));
		bc = bt = 0;
	}
	if (bt) /* the rest, after the last full block */
		e += mag(residual(bc, bt, w)) * mag(residual(bc, bt, w));
	return e;
}

static struct window window_of(const uint64_t *c, const uint64_t *t, size_t n)
{
	struct window w = {0};
	unsigned __int128 e;

	for (size_t i = 0; i < n; i++) {
		if (!t[i])
			continue;
		w.c += c[i];
		w.t += t[i];
		w.n++;
	}
	if (w.n < 2)
		return w;
	/* no counts: every residual 0, no spread (rho 0, as many blocks) */
	w.rho_x1000 = w.c ? lag1_x1000(c, t, n, &w) : 0;
	w.eff = rc_tl_effective_bins(w.n, w.rho_x1000);
	w.len = rc_tl_block_len(w.n, w.rho_x1000);
	w.blocks = w.n / w.len;
	if (w.blocks < 2 || !w.c)
		return w;
	e = block_sq(c, t, n, &w);
	/* e 1e12 / (T^2 C^2), a 64-bit factor at a time, scaled as it goes */
	e = div128(e, w.t) * 1000000;
	e = div128(e, w.t) * 1000000;
	e = div128(div128(e, w.c), w.c);
	w.relvar = div128(e * w.blocks, w.blocks - 1);
	return w;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct rc_tl_loss rc_tl_loss(const uint64_t *bc, const uint64_t *bt, size_t nb,
			     const uint64_t *dc, const uint64_t *dt, size_t nd)
{
	struct rc_tl_loss r = {0};
	struct window b = window_of(bc, bt, nb), d = window_of(dc, dt, nd);
	unsigned __int128 q;
	uint64_t df;

	r.blocks = min64(b.blocks, d.blocks);
	r.effective_bins = min64(b.eff, d.eff);
	r.block_bins[0] = b.len;
	r.block_bins[1] = d.len;
	r.rho_x1000[0] = b.rho_x1000;
	r.rho_x1000[1] = d.rho_x1000;
	if (b.n < 2 || d.n < 2 || !b.c)
		return r;
	/* Q = (Cd / Td) / (Cb / Tb), the ratio of the rates, in millionths */
	q = div128(div128((unsigned __int128)d.c * b.t * 1000000, d.t), b.c);
	r.loss_x100 = 10000 - (int64_t)div128(q + 50, 100);
	r.estimated = true;
	/* Fewer blocks than that: no interval (blocks longer than tau) */
	if (r.blocks < RC_TL_MIN_BLOCKS || r.effective_bins < RC_TL_MIN_BLOCKS)
		return r;
	/*
	 * var(Q) / Q^2 = var(Rd) / Rd^2 + var(Rb) / Rb^2 (delta method), so
	 * the half-width is t * 100% * Q * sqrt(that), in hundredths.
	 */
	df = r.blocks - 1;
	r.half_x100 =
		(uint64_t)div128((unsigned __int128)rc_tl_t975_x1000(df) * q *
					 stats_isqrt_round(d.relvar + b.relvar),
				 100000000000ull);
	r.valid = true;
	return r;
}

static int64_t floor_div100(int64_t v)
{
	return v >= 0 ? v / 100 : -((-v + 99) / 100);
}

void rc_tl_interval(int64_t pct_x100, uint64_t half_x100, int64_t *lo,
		    int64_t *hi)
{
	*lo = floor_div100(pct_x100 - (int64_t)half_x100);
	*hi = -floor_div100(-(pct_x100 + (int64_t)half_x100));
	*hi = *hi > 100 ? 100 : *hi;
	*lo = *lo > 100 ? 100 : *lo;
}

int64_t rc_tl_round_pct(int64_t x100)
{
	return floor_div100(x100 + 50);
}

const char *rc_tl_no_interval_why(const struct rc_tl_loss *d)
{
	if (d->valid)
		return NULL;
	if (!d->estimated)
		return "fewer than 2 timed bins a side";
	return d->blocks < RC_TL_MIN_BLOCKS ? "fewer than 5 blocks"
					    : "fewer than 5 effective bins";
}
