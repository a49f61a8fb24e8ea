/* SPDX-License-Identifier: MIT */
/*
 * printf-style formatting, portable (no hardware access), so the host unit
 * tests compile it as is. The kernel's console printf is built on kvformat().
 *
 * Supported: %d %i %u %x %X %o %c %s %p %%; flags '-', '0', '+', ' ', '#';
 * width and precision (also '*'); length modifiers hh h l ll z t j.
 * Unknown conversions are printed literally so that a bad format is visible.
 */
#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

/* Receives n bytes of output at a time (not NUL-terminated). */
typedef void (*fmt_sink)(void *ctx, const char *s, size_t n);

/* Formats to a sink; returns the number of bytes produced. */
int kvformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap);

/*
 * Like C's vsnprintf: writes at most size bytes including the NUL, always
 * terminates when size > 0, returns the length the full output would have.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Like Linux's scnprintf: the same writes, but returns the bytes written
 * (NUL excluded), never more than size - 1, so that `len += kscnprintf(buf
 * + len, size - len, ...)` can be repeated and never runs past buf.
 */
int kscnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
