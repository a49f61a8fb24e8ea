/* SPDX-License-Identifier: MIT */
/*
 * a * b / c in 128 bits, for every conversion between clocks and for the
 * statistics: one rule for what saturates and how it rounds. The kernel
 * does not link libgcc, so a 128-bit division is written out here instead
 * of calling __udivti3. Portable: no hardware access.
 */
#ifndef LIB_MULDIV_H
#define LIB_MULDIV_H

#include <stdint.h>

/* num / d for a 128-bit num; d must not be 0. */
unsigned __int128 div128(unsigned __int128 num, uint64_t d);

/* a * b / c, rounded down; UINT64_MAX if it does not fit; 0 if c is 0. */
uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c);

/* a * b / c, rounded to the nearest (halves up); saturated as mul_div(). */
uint64_t mul_div_round(uint64_t a, uint64_t b, uint64_t c);

#endif
