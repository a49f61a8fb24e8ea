// SPDX-License-Identifier: MIT
/*
 * String helpers and the kbuf message builder (see kstring.h).
 */
#include "lib/kstring.h"

void *kmemcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *kmemset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int kmemcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x < *y ? -1 : 1;
	}
	return 0;
}

size_t kstrlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t kstrnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int kstrncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			break;
	}
	return 0;
}

int kstrcmp(const char *a, const char *b)
{
	return kstrncmp(a, b, SIZE_MAX);
}

size_t kstrlcpy(char *dst, const char *src, size_t size)
{
	size_t len = kstrlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		kmemcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum kparse_err kparse_u64(const char *s, size_t n, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return KPARSE_INVALID;
	for (; i < n; i++) {
		int d = digit_value(s[i]);

		if (d < 0 || (unsigned int)d >= base)
			return KPARSE_INVALID;
		if (v > (UINT64_MAX - (unsigned int)d) / base)
			return KPARSE_OVERFLOW;
		v = v * base + (unsigned int)d;
	}
	*out = v;
	return KPARSE_OK;
}

void kbuf_init(struct kbuf *b, char *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->full = false;
	if (cap)
		buf[0] = '\0';
}

/* Appends n raw bytes if all of them fit (len < cap stays true). */
static bool kbuf_raw(struct kbuf *b, const char *s, size_t n)
{
	if (b->full || !b->cap || n >= b->cap - b->len) {
		b->full = true;
		return false;
	}
	kmemcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return true;
}

/* Printable form of byte c into out; returns its length (1 or 4). */
static size_t escape_byte(unsigned char c, char out[4])
{
	static const char hex[] = "0123456789abcdef";

	if (kisprint(c)) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

void kbuf_putn(struct kbuf *b, const char *s, size_t n, size_t max)
{
	size_t shown = 0;
	char esc[4];

	for (size_t i = 0; i < n && s[i]; i++) {
		size_t k = escape_byte((unsigned char)s[i], esc);

		if (k > max - shown) {
			kbuf_raw(b, "...", 3);
			return;
		}
		if (!kbuf_raw(b, esc, k))
			return;
		shown += k;
	}
}

void kbuf_puts(struct kbuf *b, const char *s)
{
	kbuf_putn(b, s, SIZE_MAX, SIZE_MAX);
}

void kbuf_u64(struct kbuf *b, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	kbuf_raw(b, tmp + i, sizeof(tmp) - i);
}

void kbuf_hex(struct kbuf *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[18];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = hex[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	kbuf_raw(b, tmp + i, sizeof(tmp) - i);
}
