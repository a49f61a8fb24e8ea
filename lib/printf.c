// SPDX-License-Identifier: MIT
/*
 * A small printf engine (portable; see printf.h for what it supports).
 * Everything goes through one sink so that the console, fixed buffers and
 * the host tests share the same code.
 */
#include <stdint.h>
#include <stdbool.h>
#include "lib/printf.h"

struct spec {
	bool left;     /* '-' */
	bool zero;     /* '0' */
	bool plus;     /* '+' */
	bool space;    /* ' ' */
	bool alt;      /* '#' */
	int width;     /* -1: none */
	int precision; /* -1: none */
	int length;    /* 0, 'H' (hh), 'h', 'l', 'L' (ll), 'z', 't', 'j' */
};

struct out {
	fmt_sink sink;
	void *ctx;
	int count;
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (n) {
		o->sink(o->ctx, s, n);
		o->count += (int)n;
	}
}

static void pad(struct out *o, char c, int n)
{
	char buf[16];
	int i;

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = c;
	while (n > 0) {
		int k = n < (int)sizeof(buf) ? n : (int)sizeof(buf);

		emit(o, buf, (size_t)k);
		n -= k;
	}
}

static size_t str_len(const char *s, int max)
{
	size_t n = 0;

	while ((max < 0 || n < (size_t)max) && s[n])
		n++;
	return n;
}

/* Emits body with sign/prefix, honouring width, '-' and '0'. */
static void emit_number(struct out *o, const struct spec *sp,
			const char *prefix, const char *digits, int ndigits)
{
	int plen = (int)str_len(prefix, -1);
	int zeros = 0, total;

	if (sp->precision >= 0 && sp->precision > ndigits)
		zeros = sp->precision - ndigits;
	total = plen + zeros + ndigits;
	if (!sp->left && sp->zero && sp->precision < 0 && sp->width > total)
		zeros += sp->width - total, total = sp->width;
	if (!sp->left && sp->width > total)
		pad(o, ' ', sp->width - total);
	emit(o, prefix, (size_t)plen);
	pad(o, '0', zeros);
	emit(o, digits, (size_t)ndigits);
	if (sp->left && sp->width > total)
		pad(o, ' ', sp->width - total);
}

static void format_unsigned(struct out *o, const struct spec *sp, uint64_t v,
			    unsigned base, bool upper, const char *sign)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[24], prefix[4] = {0};
	int n = sizeof(digits);
	bool zero = v == 0;

	/* C: precision 0 with value 0 prints no digits. */
	if (!(v == 0 && sp->precision == 0)) {
		do {
			digits[--n] = set[v % base];
			v /= base;
		} while (v);
	}
	prefix[0] = sign[0];
	if (sp->alt && base == 16 && (!zero || sp->length == 'p')) {
		int p = sign[0] ? 1 : 0;

		prefix[p] = '0';
		prefix[p + 1] = upper ? 'X' : 'x';
	} else if (sp->alt && base == 8 &&
		   (n == (int)sizeof(digits) || digits[n] != '0')) {
		digits[--n] = '0';
	}
	emit_number(o, sp, prefix, digits + n, (int)sizeof(digits) - n);
}

static uint64_t get_unsigned(const struct spec *sp, va_list *ap)
{
	switch (sp->length) {
	case 'H':
		return (unsigned char)va_arg(*ap, unsigned int);
	case 'h':
		return (unsigned short)va_arg(*ap, unsigned int);
	case 'l':
		return va_arg(*ap, unsigned long);
	case 'L':
		return va_arg(*ap, unsigned long long);
	case 'z':
		return va_arg(*ap, size_t);
	case 't':
		return (uint64_t)va_arg(*ap, ptrdiff_t);
	case 'j':
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static int64_t get_signed(const struct spec *sp, va_list *ap)
{
	switch (sp->length) {
	case 'H':
		return (signed char)va_arg(*ap, int);
	case 'h':
		return (short)va_arg(*ap, int);
	case 'l':
		return va_arg(*ap, long);
	case 'L':
		return va_arg(*ap, long long);
	case 'z':
		return (int64_t)va_arg(*ap, size_t);
	case 't':
		return va_arg(*ap, ptrdiff_t);
	case 'j':
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

static void format_signed(struct out *o, const struct spec *sp, int64_t v)
{
	/* Negate in unsigned arithmetic so that INT64_MIN works. */
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	const char *sign = v < 0 ? "-" : sp->plus ? "+" : sp->space ? " " : "";

	format_unsigned(o, sp, mag, 10, false, sign);
}

static void format_string(struct out *o, const struct spec *sp, const char *s)
{
	int n;

	if (!s)
		s = "(null)";
	n = (int)str_len(s, sp->precision);
	if (!sp->left && sp->width > n)
		pad(o, ' ', sp->width - n);
	emit(o, s, (size_t)n);
	if (sp->left && sp->width > n)
		pad(o, ' ', sp->width - n);
}

/* Parses flags, width, precision and length; returns the conversion char. */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){.width = -1, .precision = -1};
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '+')
			sp->plus = true;
		else if (*f == ' ')
			sp->space = true;
		else if (*f == '#')
			sp->alt = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0)
			sp->left = true, sp->width = -sp->width;
		f++;
	} else {
		for (sp->width = *f >= '0' && *f <= '9' ? 0 : -1;
		     *f >= '0' && *f <= '9'; f++)
			sp->width = sp->width * 10 + (*f - '0');
	}
	if (*f == '.') {
		f++;
		if (*f == '*') {
			sp->precision = va_arg(*ap, int);
			if (sp->precision < 0)
				sp->precision = -1;
			f++;
		} else {
			for (sp->precision = 0; *f >= '0' && *f <= '9'; f++)
				sp->precision = sp->precision * 10 + (*f - '0');
		}
	}
	if (f[0] == 'h' && f[1] == 'h')
		sp->length = 'H', f += 2;
	else if (f[0] == 'l' && f[1] == 'l')
		sp->length = 'L', f += 2;
	else if (*f == 'h' || *f == 'l' || *f == 'z' || *f == 't' || *f == 'j')
		sp->length = *f++;
	return f;
}

/* Handles one conversion at *f (after the spec); returns false if unknown. */
static bool convert(struct out *o, const struct spec *sp, char c, va_list *ap)
{
	struct spec p = *sp;
	char ch;

	switch (c) {
	case 'd':
	case 'i':
		format_signed(o, sp, get_signed(sp, ap));
		return true;
	case 'u':
		format_unsigned(o, sp, get_unsigned(sp, ap), 10, false, "");
		return true;
	case 'x':
	case 'X':
		format_unsigned(o, sp, get_unsigned(sp, ap), 16, c == 'X', "");
		return true;
	case 'o':
		format_unsigned(o, sp, get_unsigned(sp, ap), 8, false, "");
		return true;
	case 'p':
		p.alt = true;
		p.length = 'p'; /* "0x" even for NULL */
		format_unsigned(o, &p, (uintptr_t)va_arg(*ap, void *), 16,
				false, "");
		return true;
	case 'c':
		ch = (char)va_arg(*ap, int);
		p.precision = -1;
		if (!p.left && p.width > 1)
			pad(o, ' ', p.width - 1);
		emit(o, &ch, 1);
		if (p.left && p.width > 1)
			pad(o, ' ', p.width - 1);
		return true;
	case 's':
		format_string(o, sp, va_arg(*ap, const char *));
		return true;
	case '%':
		emit(o, "%", 1);
		return true;
	default:
		return false;
	}
}

int kvformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap)
{
	struct out o = {.sink = sink, .ctx = ctx};
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt, *conv;
		struct spec sp;

		while (*fmt && *fmt != '%')
			fmt++;
		emit(&o, start, (size_t)(fmt - start));
		if (!*fmt)
			break;
		conv = parse_spec(fmt + 1, &sp, &args);
		if (*conv && convert(&o, &sp, *conv, &args)) {
			fmt = conv + 1;
		} else {
			/* Unknown: print it as written so the bug shows. */
			emit(&o, fmt, (size_t)(conv - fmt) + (*conv ? 1 : 0));
			fmt = *conv ? conv + 1 : conv;
		}
	}
	va_end(args);
	return o.count;
}

struct buf_sink {
	char *buf;
	size_t size;
	size_t len;
};

static void buf_put(void *ctx, const char *s, size_t n)
{
	struct buf_sink *b = ctx;
	size_t i;

	for (i = 0; i < n; i++, b->len++)
		if (b->size && b->len < b->size - 1)
			b->buf[b->len] = s[i];
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_sink b = {.buf = buf, .size = size};
	int n = kvformat(buf_put, &b, fmt, ap);

	if (size)
		buf[b.len < size ? b.len : size - 1] = '\0';
	return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int kscnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (size == 0)
		return 0;
	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < (int)size ? n : (int)size - 1;
}
