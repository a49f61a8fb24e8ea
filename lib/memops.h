/* SPDX-License-Identifier: MIT */
/*
 * Zeroing and copying whole frames: one REP STOSQ / REP MOVSQ instead of a
 * byte loop (lib/kstring.c's are byte-at-a-time). It matters where every
 * guest instruction is expensive: kvm-pvm runs CPL-0 code through its
 * instruction emulator, about a microsecond an instruction, so zeroing a
 * 4 KiB frame byte by byte costs ~13 ms there and REP STOSQ ~0.3 ms (bare
 * metal: both well under a microsecond). Portable C where it is not x86-64
 * (the host tests build this too).
 */
#ifndef LIB_MEMOPS_H
#define LIB_MEMOPS_H

#include <stddef.h>
#include <stdint.h>

/* Zeroes n bytes at dst; dst and n need no particular alignment. */
static inline void mem_zero(void *dst, size_t n)
{
	unsigned char *d = dst;

#if defined(__x86_64__)
	size_t words = n / 8;

	if (words && !((uintptr_t)d & 7)) {
		asm volatile("rep stosq"
			     : "+D"(d), "+c"(words)
			     : "a"(0ull)
			     : "memory");
		n &= 7;
	}
#endif
	while (n--)
		*d++ = 0;
}

/* Copies n bytes (8-byte aligned, a multiple of 8) from src to dst. */
static inline void mem_copy_words(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
	size_t words = n / 8;

	asm volatile("rep movsq"
		     : "+D"(dst), "+S"(src), "+c"(words)
		     :
		     : "memory");
#else
	uint64_t *d = dst;
	const uint64_t *s = src;

	for (size_t i = 0; i < n / 8; i++)
		d[i] = s[i];
#endif
}

#endif
