// SPDX-License-Identifier: MIT
/* Host tests of lib/kstring.c. */
#include "unit.h"
#include "lib/kstring.h"

static void test_mem(void **state)
{
	char a[8] = "abcdefg", b[8];

	(void)state;
	assert_ptr_equal(kmemcpy(b, a, 8), b);
	assert_memory_equal(a, b, 8);
	assert_ptr_equal(kmemset(b + 1, 'z', 3), b + 1);
	assert_memory_equal(b, "azzzefg", 8);
	assert_int_equal(kmemcmp(a, b, 1), 0);
	assert_int_equal(kmemcmp(a, b, 8), -1);
	assert_int_equal(kmemcmp(b, a, 8), 1);
	assert_int_equal(kmemcmp(a, b, 0), 0);
	/* Bytes compare as unsigned. */
	assert_int_equal(kmemcmp("\x80", "\x01", 1), 1);
}

static void test_str(void **state)
{
	(void)state;
	assert_int_equal(kstrlen(""), 0);
	assert_int_equal(kstrlen("abc"), 3);
	assert_int_equal(kstrnlen("abc", 2), 2);
	assert_int_equal(kstrnlen("abc", 9), 3);
	assert_int_equal(kstrnlen("abc", 0), 0);
	assert_int_equal(kstrcmp("abc", "abc"), 0);
	assert_int_equal(kstrcmp("abc", "abd"), -1);
	assert_int_equal(kstrcmp("abd", "abc"), 1);
	assert_int_equal(kstrcmp("ab", "abc"), -1);
	assert_int_equal(kstrcmp("abc", "ab"), 1);
	assert_int_equal(kstrcmp("\xff", "a"), 1);
	assert_int_equal(kstrncmp("abcx", "abcy", 3), 0);
	assert_int_equal(kstrncmp("abcx", "abcy", 4), -1);
	assert_int_equal(kstrncmp("a", "b", 0), 0);
}

static void test_strlcpy(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(kstrlcpy(buf, "hello", sizeof(buf)), 5);
	assert_string_equal(buf, "hello");
	assert_int_equal(kstrlcpy(buf, "0123456789", 4), 10);
	assert_string_equal(buf, "012");
	assert_int_equal(buf[4], 'o'); /* nothing written past size */
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(kstrlcpy(buf, "abc", 0), 3);
	assert_int_equal(buf[0], 'X');
	assert_int_equal(kstrlcpy(buf, "abc", 1), 3);
	assert_string_equal(buf, "");
}

static void expect_u64(const char *s, enum kparse_err want, uint64_t val)
{
	uint64_t v = 12345;

	assert_int_equal(kparse_u64(s, strlen(s), &v), want);
	assert_true(v == (want == KPARSE_OK ? val : 12345));
}

static void test_parse_u64(void **state)
{
	(void)state;
	expect_u64("0", KPARSE_OK, 0);
	expect_u64("007", KPARSE_OK, 7);
	expect_u64("42", KPARSE_OK, 42);
	expect_u64("0x2f8", KPARSE_OK, 0x2f8);
	expect_u64("0X2F8", KPARSE_OK, 0x2f8);
	expect_u64("0xaBc", KPARSE_OK, 0xabc);
	expect_u64("18446744073709551615", KPARSE_OK, UINT64_MAX);
	expect_u64("18446744073709551616", KPARSE_OVERFLOW, 0);
	expect_u64("99999999999999999999", KPARSE_OVERFLOW, 0);
	expect_u64("0xffffffffffffffff", KPARSE_OK, UINT64_MAX);
	expect_u64("0x00000000000000000001", KPARSE_OK, 1);
	expect_u64("0x10000000000000000", KPARSE_OVERFLOW, 0);
	expect_u64("", KPARSE_INVALID, 0);
	expect_u64("0x", KPARSE_INVALID, 0);
	expect_u64("x1", KPARSE_INVALID, 0);
	expect_u64("-1", KPARSE_INVALID, 0);
	expect_u64("+1", KPARSE_INVALID, 0);
	expect_u64(" 1", KPARSE_INVALID, 0);
	expect_u64("12a", KPARSE_INVALID, 0);
	expect_u64("0xg", KPARSE_INVALID, 0);
	expect_u64("1f", KPARSE_INVALID, 0);
}

static void test_parse_u64_length(void **state)
{
	uint64_t v = 0;

	(void)state;
	/* Only n bytes count: what follows them is not looked at. */
	assert_int_equal(kparse_u64("123junk", 3, &v), KPARSE_OK);
	assert_int_equal(v, 123);
	assert_int_equal(kparse_u64("0x1fz", 4, &v), KPARSE_OK);
	assert_int_equal(v, 0x1f);
}

static void test_kbuf(void **state)
{
	char buf[32];
	struct kbuf b;

	(void)state;
	kbuf_init(&b, buf, sizeof(buf));
	assert_string_equal(buf, "");
	kbuf_puts(&b, "n=");
	kbuf_u64(&b, 0);
	kbuf_puts(&b, ",");
	kbuf_u64(&b, UINT64_MAX);
	assert_string_equal(buf, "n=0,18446744073709551615");
	assert_int_equal(b.len, strlen(buf));

	kbuf_init(&b, buf, sizeof(buf));
	kbuf_hex(&b, 0);
	kbuf_puts(&b, " ");
	kbuf_hex(&b, UINT64_MAX);
	assert_string_equal(buf, "0x0 0xffffffffffffffff");

	kbuf_init(&b, buf, sizeof(buf));
	kbuf_puts(&b, "a\x01\x7f\xff\t\"'\\z");
	assert_string_equal(buf, "a\\x01\\x7f\\xff\\x09\"'\\z");
}

static void test_kbuf_putn(void **state)
{
	char buf[64];
	struct kbuf b;

	(void)state;
	kbuf_init(&b, buf, sizeof(buf));
	kbuf_putn(&b, "abcdef", 3, SIZE_MAX);
	assert_string_equal(buf, "abc");
	kbuf_init(&b, buf, sizeof(buf));
	kbuf_putn(&b, "ab\0cd", 5, SIZE_MAX); /* stops at the NUL */
	assert_string_equal(buf, "ab");
	kbuf_init(&b, buf, sizeof(buf));
	kbuf_putn(&b, "abcdef", 6, 4);
	assert_string_equal(buf, "abcd...");
	kbuf_init(&b, buf, sizeof(buf));
	kbuf_putn(&b, "abcd", 4, 4);
	assert_string_equal(buf, "abcd");
	/* An escape counts 4 towards max and is not cut. */
	kbuf_init(&b, buf, sizeof(buf));
	kbuf_putn(&b, "ab\x01", 3, 5);
	assert_string_equal(buf, "ab...");
}

/* Every cap: never past it, always terminated, escapes whole or absent. */
static void test_kbuf_caps(void **state)
{
	const char *full = "x=\x01\x02y";
	const char *want = "x=\\x01\\x02y 0x1f 99";
	char buf[40];

	(void)state;
	for (size_t cap = 0; cap < sizeof(buf) - 8; cap++) {
		struct kbuf b;
		size_t n;

		memset(buf, 0xa5, sizeof(buf));
		kbuf_init(&b, buf, cap);
		kbuf_puts(&b, full);
		kbuf_puts(&b, " ");
		kbuf_hex(&b, 0x1f);
		kbuf_puts(&b, " ");
		kbuf_u64(&b, 99);
		for (size_t i = cap; i < sizeof(buf); i++)
			assert_int_equal((unsigned char)buf[i], 0xa5);
		if (!cap)
			continue;
		n = strlen(buf);
		assert_true(n < cap);
		assert_int_equal(b.len, n);
		assert_memory_equal(buf, want, n);
		/* A cut never leaves half an escape. */
		assert_true(n < 2 || buf[n - 1] != '\\');
		assert_true(n < 3 || n > 5);
		assert_true(n < 7 || n > 9);
		if (cap > strlen(want))
			assert_string_equal(buf, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_strlcpy),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_u64_length),
		cmocka_unit_test(test_kbuf),
		cmocka_unit_test(test_kbuf_putn),
		cmocka_unit_test(test_kbuf_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
