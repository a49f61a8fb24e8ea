// SPDX-License-Identifier: MIT
/*
 * The C library's names for lib/kstring.c's loops, which the host tests
 * check: one implementation of each. The kernel needs these names because
 * GCC may emit calls to memcpy, memset, memmove and memcmp on its own
 * (struct copies, large initialisers). Not on a timed path.
 */
#include <stdint.h>
#include "lib/kstring.h"
#include "lib/string.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	return kmemcpy(dst, src, n);
}

/* The one loop of its own: nothing portable needs an overlapping copy. */
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if ((uintptr_t)d < (uintptr_t)s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	return kmemset(dst, c, n);
}

int memcmp(const void *a, const void *b, size_t n)
{
	return kmemcmp(a, b, n);
}

size_t strlen(const char *s)
{
	return kstrlen(s);
}

int strncmp(const char *a, const char *b, size_t n)
{
	return kstrncmp(a, b, n);
}

int strcmp(const char *a, const char *b)
{
	return kstrcmp(a, b);
}
