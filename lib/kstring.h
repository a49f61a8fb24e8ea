/* SPDX-License-Identifier: MIT */
/*
 * Small string and memory helpers for the portable parsers, plus kbuf, a
 * bounded message builder. The k prefix keeps them apart from libc's when
 * the host unit tests link both; lib/string.c gives the kernel the C
 * library's names for the same loops. Portable: no hardware access.
 */
#ifndef LIB_KSTRING_H
#define LIB_KSTRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A macro's value as a string literal: STR_OF_VALUE(33) is "33". */
#define STR_OF(x)	#x
#define STR_OF_VALUE(x) STR_OF(x)

void *kmemcpy(void *dst, const void *src, size_t n);
void *kmemset(void *dst, int c, size_t n);
int kmemcmp(const void *a, const void *b, size_t n);
size_t kstrlen(const char *s);
size_t kstrnlen(const char *s, size_t max);
int kstrcmp(const char *a, const char *b);
int kstrncmp(const char *a, const char *b, size_t n);
/* Copies what fits (always terminated if size > 0); returns kstrlen(src). */
size_t kstrlcpy(char *dst, const char *src, size_t size);

static inline bool kisprint(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

enum kparse_err {
	KPARSE_OK,
	KPARSE_INVALID,	 /* empty, a sign, a bad digit or trailing bytes */
	KPARSE_OVERFLOW, /* does not fit in 64 bits */
};

/* Parses exactly n bytes of s as decimal or 0x-hex (0X too). */
enum kparse_err kparse_u64(const char *s, size_t n, uint64_t *out);

/*
 * A bounded builder for diagnostics: always NUL-terminated, never writes
 * past cap, and whatever is appended comes out as printable ASCII (other
 * bytes become \xNN), so the result can be printed or put into JSON as is.
 * Once something does not fit, nothing more is appended (so a cut message
 * is a prefix of the whole one), and an escape is never cut in half.
 */
struct kbuf {
	char *buf;
	size_t cap;
	size_t len;
	bool full;
};

void kbuf_init(struct kbuf *b, char *buf, size_t cap);
void kbuf_puts(struct kbuf *b, const char *s);
/* At most n bytes of s (stops at a NUL); "..." after `max` output bytes. */
void kbuf_putn(struct kbuf *b, const char *s, size_t n, size_t max);
void kbuf_u64(struct kbuf *b, uint64_t v);
void kbuf_hex(struct kbuf *b, uint64_t v); /* 0x..., lower case */

#endif
