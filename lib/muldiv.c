// SPDX-License-Identifier: MIT
/* 128-bit multiply-divide (see muldiv.h). */
#include "lib/muldiv.h"

typedef unsigned __int128 u128;

/*
 * A 64-bit numerator takes one DIV. A larger one takes binary long
 * division, as a plain u128 '/' would make GCC call __udivti3: 128 steps
 * of shift/compare/subtract, a few hundred cycles, never on a timed path.
 */
u128 div128(u128 num, uint64_t d)
{
	u128 q = 0, rem = 0;

	if (!(num >> 64))
		return (uint64_t)num / d;
	for (int bit = 127; bit >= 0; bit--) {
		/* rem < d < 2^64 before the shift, so it fits in 65 bits. */
		rem = (rem << 1) | ((num >> bit) & 1);
		q <<= 1;
		if (rem >= d) {
			rem -= d;
			q |= 1;
		}
	}
	return q;
}

/* (a * b + bias) / c, saturated; a * b + bias < 2^128 for bias < 2^64. */
static uint64_t mul_add_div(uint64_t a, uint64_t b, uint64_t bias, uint64_t c)
{
	u128 q;

	if (!c)
		return 0;
	q = div128((u128)a * b + bias, c);
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return mul_add_div(a, b, 0, c);
}

uint64_t mul_div_round(uint64_t a, uint64_t b, uint64_t c)
{
	return mul_add_div(a, b, c / 2, c);
}
