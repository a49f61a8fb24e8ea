// SPDX-License-Identifier: MIT
/*
 * Host tests of lib/printf.c. Where C defines the result, the host C
 * library's vsnprintf() is the oracle (thousands of flag, width, precision
 * and length combinations); the rest is spelled out.
 */
#include <limits.h>
#include <sys/types.h>
#include <stdlib.h>
#include "unit.h"
#include "lib/printf.h"

#define BUF 512

static unsigned long compared;
/* NULL that the compiler cannot see through (it warns about a literal). */
static const char *volatile null_str;

static void vcheck(const char *file, int line, const char *fmt, va_list ap)
{
	char want[BUF], got[BUF];
	va_list ap2;
	int nw, ng;

	va_copy(ap2, ap);
	nw = vsnprintf(want, sizeof(want), fmt, ap);
	ng = kvsnprintf(got, sizeof(got), fmt, ap2);
	va_end(ap2);
	compared++;
	if (nw != ng || strcmp(want, got))
		fail_msg("%s:%d: format \"%s\": libc \"%s\" (%d), "
			 "kvsnprintf \"%s\" (%d)",
			 file, line, fmt, want, nw, got, ng);
}

/* Same output and return value as the C library. */
__attribute__((format(printf, 3, 4))) static void
check(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(file, line, fmt, ap);
	va_end(ap);
}

#define CHECK(...) check(__FILE__, __LINE__, __VA_ARGS__)

/* Exactly `want`, as the return value too. */
#define EXPECT(want, ...)                                            \
	do {                                                         \
		char got_[BUF];                                      \
		int n_ = ksnprintf(got_, sizeof(got_), __VA_ARGS__); \
		assert_string_equal(got_, want);                     \
		assert_int_equal(n_, strlen(want));                  \
	} while (0)

static void vcheck_one_str(const char *fmt, const char *s)
{
	check(__FILE__, __LINE__, fmt, s);
}

/* One flags/width/precision combination, for every value. */
static void matrix_one(int flags, const char *width, const char *prec,
		       char conv, const long long *vals, size_t n)
{
	static const char flag_chars[] = "-0+ #";
	char fmt[32], *f = fmt;

	/* '#' with d, i or u is undefined in C: there is nothing to check. */
	if ((flags & 16) && (conv == 'd' || conv == 'i' || conv == 'u'))
		return;
	*f++ = '%';
	for (int b = 0; b < 5; b++)
		if (flags & (1 << b))
			*f++ = flag_chars[b];
	snprintf(f, sizeof(fmt) - (size_t)(f - fmt), "%s%s%c", width, prec,
		 conv);
	for (size_t i = 0; i < n; i++) {
		if (conv == 'd' || conv == 'i')
			check(__FILE__, __LINE__, fmt, (int)vals[i]);
		else
			check(__FILE__, __LINE__, fmt, (unsigned int)vals[i]);
	}
}

static void test_conversions(void **state)
{
	int x = 0;

	(void)state;
	EXPECT("", "%s", "");
	EXPECT("plain text", "plain text");
	EXPECT("42 -42 42", "%d %i %d", 42, -42, +42);
	EXPECT("4294967295", "%u", UINT_MAX);
	EXPECT("ff FF 777", "%x %X %o", 255, 255, 0777);
	EXPECT("a!", "%c%c", 'a', '!');
	EXPECT("str", "%s", "str");
	EXPECT("100%", "%d%%", 100);
	EXPECT("(null)", "%s", null_str);
	EXPECT("    (null)|(null)  |", "%10s|%-8s|", null_str, null_str);
	CHECK("%p", (void *)&x);
	CHECK("%p", (void *)0xffff800000001000u);
	CHECK("%20p|%-20p|", (void *)&x, (void *)&x);
	EXPECT("0x1000", "%p", (void *)0x1000);
	CHECK("%d %s %c %x %u %o %%", -7, "mix", 'z', 0xbeef, 3u, 8);
}

static void test_extremes(void **state)
{
	(void)state;
	EXPECT("-9223372036854775808", "%lld", (long long)INT64_MIN);
	EXPECT("9223372036854775807", "%lld", (long long)INT64_MAX);
	EXPECT("18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
	EXPECT("ffffffffffffffff", "%llx", (unsigned long long)UINT64_MAX);
	EXPECT("1777777777777777777777", "%llo",
	       (unsigned long long)UINT64_MAX);
	EXPECT("-9223372036854775808", "%ld", (long)INT64_MIN);
	EXPECT("-9223372036854775808", "%jd", (intmax_t)INT64_MIN);
	EXPECT("-2147483648 2147483647", "%d %d", INT_MIN, INT_MAX);
	CHECK("%+lld|% lld|%30lld|%-30lld|%030lld", (long long)INT64_MIN,
	      (long long)INT64_MIN, (long long)INT64_MIN, (long long)INT64_MIN,
	      (long long)INT64_MIN);
	CHECK("%#llx|%#llo|%#llX|%.25llu", (unsigned long long)UINT64_MAX,
	      (unsigned long long)UINT64_MAX, (unsigned long long)UINT64_MAX,
	      (unsigned long long)UINT64_MAX);
}

static void test_length_modifiers(void **state)
{
	(void)state;
	EXPECT("-56 200", "%hhd %hhu", 200, 200);
	EXPECT("5 -1", "%hhu %hhd", 261, 255);
	EXPECT("4464 -1 ffff", "%hd %hd %hx", 70000, 65535, -1);
	EXPECT("-1 18446744073709551615", "%ld %lu", -1L, ULONG_MAX);
	EXPECT("-1 18446744073709551615", "%lld %llu", -1LL, ULLONG_MAX);
	EXPECT("18446744073709551615 -3", "%zu %td", SIZE_MAX, (ptrdiff_t)-3);
	EXPECT("18446744073709551615 ffffffffffffffff", "%ju %jx", UINTMAX_MAX,
	       UINTMAX_MAX);
	EXPECT("ab", "%hhx%hhx", 0x10a, 0x20b);
	CHECK("%zx %zd %tx %ti %jo %ji", (size_t)0x1234, (ssize_t)-5,
	      (ptrdiff_t)0x77, (ptrdiff_t)-9, (uintmax_t)8, (intmax_t)-1);
	/* Arguments after a long one are still found. */
	EXPECT("1 2 3 4", "%hhd %lld %hd %d", 1, 2LL, 3, 4);
}

static void test_star(void **state)
{
	(void)state;
	EXPECT("   42|42   |", "%*d|%-*d|", 5, 42, 5, 42);
	EXPECT("42   |", "%*d|", -5, 42); /* negative width: '-' */
	EXPECT("00042", "%.*d", 5, 42);
	EXPECT("42", "%.*d", -3, 42); /* negative precision: none */
	EXPECT("  abc", "%*.*s", 5, 3, "abcdef");
	CHECK("%*.*x|%-*.*o|%0*d", 10, 4, 0xab, 9, 5, 8, 6, -12);
}

static void test_strings_and_chars(void **state)
{
	static const char *const strs[] = {"", "a", "hello", "0123456789"};
	static const char *const fmts[] = {
		"[%s]",	   "[%3s]",   "[%-3s]",	  "[%.0s]",  "[%.2s]",
		"[%.20s]", "[%8.3s]", "[%-8.3s]", "[%-12s]",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		for (size_t f = 0; f < ARRAY_SIZE(fmts); f++)
			vcheck_one_str(fmts[f], strs[i]);
	EXPECT("    x|x    |x", "%5c|%-5c|%c", 'x', 'x', 'x');
	/* Precision reads no further than it needs: "ab" has no NUL. */
	EXPECT("ab", "%.2s", (const char[]){'a', 'b'});
	CHECK("%c", 0);
}

/* Every combination of flags, width, precision and integer conversion. */
static void test_flag_matrix(void **state)
{
	static const char *const widths[] = {"", "1", "6", "24"};
	static const char *const precs[] = {"", ".", ".0", ".1", ".4", ".22"};
	static const char convs[] = "diuxXo";
	static const long long vals[] = {0,   1,    -1,	     7,	      8,     42,
					 255, -255, INT_MAX, INT_MIN, 0x7fff};
	unsigned long before = compared;

	(void)state;
	for (int flags = 0; flags < 32; flags++)
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++)
			for (size_t p = 0; p < ARRAY_SIZE(precs); p++)
				for (size_t c = 0; c < sizeof(convs) - 1; c++)
					matrix_one(flags, widths[w], precs[p],
						   convs[c], vals,
						   ARRAY_SIZE(vals));
	/* Sanity: the loops above really compared that many outputs. */
	assert_true(compared - before > 10000);
}

/* '#' with 0, and with a precision of 0, has rules of its own in C. */
static void test_alt_zero(void **state)
{
	(void)state;
	EXPECT("0", "%#x", 0);
	EXPECT("0", "%#o", 0);
	EXPECT("0", "%#.0o", 0);
	EXPECT("", "%#.0x", 0);
	EXPECT("", "%.0d", 0);
	EXPECT("   ", "%3.0u", 0);
	EXPECT("0x1 0X1 01", "%#x %#X %#o", 1, 1, 1);
	EXPECT("010", "%#o", 8);
	EXPECT("0x0000ff", "%#08x", 255);
	EXPECT("0x00ff", "%#.4x", 255);
}

static void test_unknown_conversions(void **state)
{
	(void)state;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
	EXPECT("a%yb", "a%yb");
	EXPECT("%5.2y", "%5.2y");
	EXPECT("100%", "100%");
	EXPECT("x%l", "x%l");
	EXPECT("%-08q 3", "%-08q %d", 3);
	EXPECT("%Lf", "%Lf");
#pragma GCC diagnostic pop
}

/* ksnprintf: never past size, always terminated, returns the full length. */
static void test_truncation(void **state)
{
	const char *full = "value=-12345 name=shootdown end";
	size_t len = strlen(full);
	char buf[64];

	(void)state;
	for (size_t size = 0; size <= len + 1; size++) {
		int n;

		memset(buf, 0xa5, sizeof(buf));
		n = ksnprintf(buf, size, "value=%d name=%s end", -12345,
			      "shootdown");
		assert_int_equal(n, len);
		for (size_t i = size; i < sizeof(buf); i++)
			assert_int_equal((unsigned char)buf[i], 0xa5);
		if (size) {
			assert_int_equal(strlen(buf), size - 1);
			assert_memory_equal(buf, full, size - 1);
		}
	}
	assert_int_equal(ksnprintf(NULL, 0, "%d", 12345), 5);
	assert_int_equal(ksnprintf(buf, 4, "%300d", 1), 300);
	assert_string_equal(buf, "   ");
}

/* kscnprintf: the bytes written, so that appending never runs past buf. */
static void test_clamped_append(void **state)
{
	char buf[16];
	size_t len = 0;

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	for (int i = 0; i < 10; i++)
		len += kscnprintf(buf + len, sizeof(buf) - len, "%d,",
				  1000 + i);
	assert_int_equal(len, sizeof(buf) - 1);
	assert_string_equal(buf, "1000,1001,1002,");
	assert_int_equal(kscnprintf(buf, 0, "%d", 12345), 0);
	assert_int_equal(kscnprintf(buf, 1, "%d", 12345), 0);
	assert_string_equal(buf, "");
	assert_int_equal(kscnprintf(buf, 6, "%d", 12345), 5);
}

struct collect {
	char buf[BUF];
	size_t len;
	int calls;
};

static void collect_sink(void *ctx, const char *s, size_t n)
{
	struct collect *c = ctx;

	assert_true(c->len + n <= sizeof(c->buf));
	memcpy(c->buf + c->len, s, n);
	c->len += n;
	c->calls++;
}

static int format(struct collect *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	n = kvformat(collect_sink, c, fmt, ap);
	va_end(ap);
	return n;
}

static void test_kvformat_sink(void **state)
{
	struct collect c;

	(void)state;
	assert_int_equal(format(&c, "a%cb%5sc", 0, "x"), 9);
	assert_int_equal(c.len, 9);
	assert_memory_equal(c.buf, "a\0b    xc", 9);
	assert_int_equal(format(&c, "%100d", 1), 100);
	assert_int_equal(c.len, 100);
	assert_int_equal(c.buf[99], '1');
	assert_int_equal(c.buf[0], ' ');
	assert_int_equal(format(&c, ""), 0);
	assert_int_equal(c.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_length_modifiers),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_strings_and_chars),
		cmocka_unit_test(test_flag_matrix),
		cmocka_unit_test(test_alt_zero),
		cmocka_unit_test(test_unknown_conversions),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_clamped_append),
		cmocka_unit_test(test_kvformat_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
