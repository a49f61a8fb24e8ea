/* SPDX-License-Identifier: MIT */
/*
 * Common includes and helpers of the host unit tests. cmocka needs
 * <stdarg.h>, <stddef.h>, <stdint.h> and <setjmp.h> before <cmocka.h>.
 */
#ifndef TESTS_UNIT_UNIT_H
#define TESTS_UNIT_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Fails unless s is NUL-terminated within max bytes and printable ASCII. */
static inline void assert_printable(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	assert_true(n < max);
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] > 0x7e)
			fail_msg("byte %zu of \"%s\" is 0x%02x", i, s,
				 (unsigned char)s[i]);
	}
}

/*
 * Fails unless the list of n numbers v holds exactly the want numbers
 * that follow (unsigned ints): the option lists of lib/cmdline.h and
 * bench/params.h alike.
 */
static inline void assert_u32_items(uint32_t n, const uint32_t *v, size_t want,
				    ...)
{
	va_list ap;

	assert_int_equal(n, want);
	va_start(ap, want);
	for (size_t i = 0; i < want; i++)
		assert_int_equal(v[i], va_arg(ap, unsigned int));
	va_end(ap);
}

#endif
