// SPDX-License-Identifier: MIT
/*
 * The flush ceiling K* (bench/ceiling.h). Integer arithmetic only, every
 * division of non-negative values rounded down: nothing random, the same
 * records give the same K* on any build.
 */
#include "bench/ceiling.h"
#include "lib/printf.h"

/* floor(sqrt(v)), by bisection: no FPU in the kernel. */
static uint64_t isqrt_floor(uint64_t v)
{
	uint64_t lo = 0, hi = 1ull << 32;

	while (lo + 1 < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (mid * mid <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void ceiling_median_ranks(uint64_t n, uint64_t *lo, uint64_t *hi)
{
	uint64_t d, l;

	if (!n) {
		*lo = *hi = 0;
		return;
	}
	d = isqrt_floor(n * 38416 / 10000);
	l = n > d ? (n - d) / 2 : 0;
	if (l < 1)
		l = 1;
	*lo = l;
	*hi = n + 1 - l;
}

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void ceiling_full_cost(const struct ceiling_full_side *f,
		       struct ceiling_est *out)
{
	out->p50 = f->flush.p50 + sat_sub(f->init_full.p50, f->init_range.p50);
	out->lo = f->flush.lo + sat_sub(f->init_full.lo, f->init_range.hi);
	out->hi = f->flush.hi + sat_sub(f->init_full.hi, f->init_range.lo);
}

static uint64_t value(const struct ceiling_est *e, int which)
{
	return which == 1 ? e->lo : which == 2 ? e->hi : e->p50;
}

struct ceiling_k ceiling_crossing(const struct ceiling_curve *c, int which,
				  uint64_t t)
{
	struct ceiling_k r = {CEILING_BELOW, c->n ? c->k[0] : 0};

	for (unsigned i = 0; i < c->n; i++) {
		uint64_t v = value(&c->cost[i], which), u, dk;

		if (v < t)
			continue;
		if (!i)
			return r;
		/* v_{i-1} < t <= v_i: the line between them reaches t. */
		u = value(&c->cost[i - 1], which);
		dk = c->k[i] - c->k[i - 1];
		r.where = CEILING_AT;
		r.k = c->k[i - 1] + (uint32_t)(dk * (t - u) / (v - u));
		return r;
	}
	r.where = CEILING_ABOVE;
	r.k = c->n ? c->k[c->n - 1] : 0;
	return r;
}

/* A crossing as a number to order by: below k is k, above k is k + 1. */
static uint64_t order(struct ceiling_k k)
{
	return (uint64_t)k.k * 2 + (k.where == CEILING_ABOVE);
}

/* The p50 curve at k, linear between measured K; false outside them. */
static bool curve_at(const struct ceiling_curve *c, uint32_t k, uint64_t *out)
{
	for (unsigned i = 0; i < c->n; i++) {
		uint64_t a, b;

		if (c->k[i] < k)
			continue;
		if (c->k[i] == k) {
			*out = c->cost[i].p50;
			return true;
		}
		if (!i)
			return false;
		a = c->cost[i - 1].p50;
		b = c->cost[i].p50;
		/* Integer, rounded down, whichever way the line slopes. */
		if (b >= a)
			*out = a + (b - a) * (k - c->k[i - 1]) /
					   (c->k[i] - c->k[i - 1]);
		else
			*out = a - ((a - b) * (k - c->k[i - 1]) +
				    (c->k[i] - c->k[i - 1]) - 1) /
					   (c->k[i] - c->k[i - 1]);
		return true;
	}
	return false;
}

bool ceiling_solve(const struct ceiling_curve *c,
		   const struct ceiling_full_side *f,
		   struct ceiling_solution *out)
{
	if (!c->n)
		return false;
	ceiling_full_cost(f, &out->full);
	out->kstar = ceiling_crossing(c, 0, out->full.p50);
	out->lo = ceiling_crossing(c, 2, out->full.lo);
	out->hi = ceiling_crossing(c, 1, out->full.hi);
	/* Noisy curves need not keep the order: the bounds take K* in. */
	if (order(out->lo) > order(out->kstar))
		out->lo = out->kstar;
	if (order(out->hi) < order(out->kstar))
		out->hi = out->kstar;
	out->have33 = curve_at(c, CEILING_LINUX, &out->range33);
	if (!out->have33)
		out->range33 = 0;
	return true;
}

const char *ceiling_k_text(struct ceiling_k k, char *buf, size_t cap)
{
	ksnprintf(buf, cap, "%s%u",
		  k.where == CEILING_BELOW   ? "<="
		  : k.where == CEILING_ABOVE ? ">"
					     : "",
		  k.k);
	return buf;
}

const char *ceiling_where_name(enum ceiling_where w)
{
	return w == CEILING_AT ? "at" : w == CEILING_BELOW ? "below" : "above";
}
