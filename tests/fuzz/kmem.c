// SPDX-License-Identifier: MIT
/*
 * kmemset() and kmemcpy() for the fuzz targets: libc's memset() and
 * memcpy(), which ASan intercepts and checks over the whole range at once
 * (overlap included). lib/kstring.c's byte loops, instrumented byte by
 * byte and compared against their count on every step, took most of each
 * ACPI run (acpi_parse() clears a struct of some 200 KiB); fuzz.mk builds
 * kstring.c with its own two renamed out of the way.
 */
#include <string.h>
#include "lib/kstring.h"

void *kmemset(void *dst, int c, size_t n)
{
	return memset(dst, c, n);
}

void *kmemcpy(void *dst, const void *src, size_t n)
{
	return memcpy(dst, src, n);
}
