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

static int digit(char c)
{
	static const char abc[] = RC_TL_ALPHABET;

	for (int i = 0; i < 64; i++)
		if (abc[i] == c)
			return i;
	return -1;
}

long rc_tl_decode(const char *s, uint64_t *v, size_t max)
{
	uint64_t prev = 0;
	size_t n = 0;

	while (*s) {
		uint64_t z = 0;
		unsigned shift = 0;
		int c;

		do {
			c = digit(*s);
			if (c < 0 || shift > 60)
				return -1;
			z |= (uint64_t)(c & 31) << shift;
			shift += 5;
			s++;
		} while ((c & 32) && *s);
		if (c & 32)
			return -1; /* cut short */
		prev += (z >> 1) ^ (0 - (z & 1));
		if ((int64_t)prev < 0 || n == max)
			return -1;
		v[n++] = prev;
	}
	return (long)n;
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

/*
 * One window's rate C / T (counts over microseconds, the bins' sums) and
 * its relative variance in 1e-12 units, as a ratio estimator has it:
 * var(R) / R^2 = n sum((c T - C t)^2) / ((n - 1) T^2 C^2). Bins without
 * time are left out: no snapshot closed them (they hold no count).
 */
struct window {
	uint64_t c, t, n;
	unsigned __int128 relvar;
};

static struct window window_of(const uint64_t *c, const uint64_t *t, size_t n)
{
	struct window w = {0};
	unsigned __int128 e = 0;

	for (size_t i = 0; i < n; i++) {
		if (!t[i])
			continue;
		w.c += c[i];
		w.t += t[i];
		w.n++;
	}
	if (w.n < 2 || !w.c)
		return w;
	for (size_t i = 0; i < n; i++) {
		__int128 d;

		if (!t[i])
			continue;
		d = (__int128)((unsigned __int128)c[i] * w.t) -
		    (__int128)((unsigned __int128)w.c * t[i]);
		e += (unsigned __int128)(d < 0 ? -d : d) *
		     (unsigned __int128)(d < 0 ? -d : d);
	}
	/* e 1e12 / (T^2 C^2), a 64-bit factor at a time, scaled as it goes */
	e = div128(e, w.t) * 1000000;
	e = div128(e, w.t) * 1000000;
	e = div128(div128(e, w.c), w.c);
	w.relvar = div128(e * w.n, w.n - 1);
	return w;
}

struct rc_tl_loss rc_tl_loss(const uint64_t *bc, const uint64_t *bt, size_t nb,
			     const uint64_t *dc, const uint64_t *dt, size_t nd)
{
	struct rc_tl_loss r = {0};
	struct window b = window_of(bc, bt, nb), d = window_of(dc, dt, nd);
	unsigned __int128 q;
	uint64_t df;

	if (b.n < 2 || d.n < 2 || !b.c)
		return r;
	/* Q = (Cd / Td) / (Cb / Tb), the ratio of the rates, in millionths */
	q = div128(div128((unsigned __int128)d.c * b.t * 1000000, d.t), b.c);
	r.loss_x100 = 10000 - (int64_t)div128(q + 50, 100);
	/*
	 * var(Q) / Q^2 = var(Rd) / Rd^2 + var(Rb) / Rb^2 (delta method), so
	 * the half-width is t * 100% * Q * sqrt(that), in hundredths.
	 */
	df = (b.n < d.n ? b.n : d.n) - 1;
	r.half_x100 =
		(uint64_t)div128((unsigned __int128)rc_tl_t975_x1000(df) * q *
					 stats_isqrt_round(d.relvar + b.relvar),
				 100000000000ull);
	r.valid = true;
	return r;
}
