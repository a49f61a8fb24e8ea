// SPDX-License-Identifier: MIT
/* Host tests of lib/json.c. */
#include <stdio.h>
#include <stdlib.h>
#include "unit.h"
#include "lib/json.h"

#define CANARY 0xa5

static char big[8192];

static const char *finish_big(struct json *j)
{
	const char *s = json_finish(j);

	assert_non_null(s);
	assert_ptr_equal(s, big);
	return s;
}

static void test_scalars(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	json_u64(&j, "u0", 0);
	json_u64(&j, "umax", UINT64_MAX);
	json_i64(&j, "i0", 0);
	json_i64(&j, "ineg", -5);
	json_i64(&j, "im1", -1);
	json_i64(&j, "imin", INT64_MIN);
	json_i64(&j, "imax", INT64_MAX);
	json_hex(&j, "h0", 0);
	json_hex(&j, "h", 0xdeadBEEF);
	json_hex(&j, "hmax", UINT64_MAX);
	json_bool(&j, "t", true);
	json_bool(&j, "f", false);
	json_null(&j, "n");
	json_str(&j, "s", "text");
	json_str(&j, "snull", NULL);
	json_str(&j, "empty", "");
	json_x100(&j, "x0", 0);
	json_x100(&j, "x", 157);
	json_x100(&j, "xs", 5);
	json_x100(&j, "xmax", UINT64_MAX);
	json_end_object(&j);
	assert_string_equal(
		finish_big(&j),
		"{\"u0\":0,\"umax\":18446744073709551615,"
		"\"i0\":0,\"ineg\":-5,\"im1\":-1,\"imin\":-9223372036854775808,"
		"\"imax\":9223372036854775807,\"h0\":\"0x0\","
		"\"h\":\"0xdeadbeef\",\"hmax\":\"0xffffffffffffffff\","
		"\"t\":true,\"f\":false,\"n\":null,\"s\":\"text\","
		"\"snull\":null,\"empty\":\"\",\"x0\":0.00,\"x\":1.57,"
		"\"xs\":0.05,\"xmax\":184467440737095516.15}");
}

static void test_empty_doc(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, big, sizeof(big));
	assert_string_equal(finish_big(&j), "");
	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	json_end_object(&j);
	assert_string_equal(finish_big(&j), "{}");
}

static void test_nesting_and_commas(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	json_str(&j, "type", "result");
	json_begin_array(&j, "a");
	json_u64(&j, NULL, 1);
	json_begin_object(&j, NULL);
	json_end_object(&j);
	json_begin_array(&j, NULL);
	json_end_array(&j);
	json_begin_object(&j, NULL);
	json_bool(&j, "x", true);
	json_begin_array(&j, "y");
	json_null(&j, NULL);
	json_null(&j, NULL);
	json_end_array(&j);
	json_end_object(&j);
	json_u64(&j, NULL, 2);
	json_end_array(&j);
	json_begin_object(&j, "o");
	json_end_object(&j);
	json_u64(&j, "z", 3);
	json_end_object(&j);
	assert_string_equal(finish_big(&j),
			    "{\"type\":\"result\",\"a\":[1,{},[],{\"x\":true,"
			    "\"y\":[null,null]},2],\"o\":{},\"z\":3}");
}

/* The escaped form of byte c, written out from json.h's rules. */
static void expected_escape(unsigned char c, char *out)
{
	if (c == '"')
		strcpy(out, "\\\"");
	else if (c == '\\')
		strcpy(out, "\\\\");
	else if (c == '\n')
		strcpy(out, "\\n");
	else if (c == '\r')
		strcpy(out, "\\r");
	else if (c == '\t')
		strcpy(out, "\\t");
	else if (c < 0x20 || c > 0x7e)
		sprintf(out, "\\u%04x", c);
	else
		sprintf(out, "%c", c);
}

static void test_escape_every_byte(void **state)
{
	char all[256], want[256 * 6 + 3], *w = want;
	const char *s;
	struct json j;

	(void)state;
	for (int c = 0; c < 256; c++)
		all[c] = (char)c;
	*w++ = '"';
	for (int c = 0; c < 256; c++) {
		expected_escape((unsigned char)c, w);
		w += strlen(w);
	}
	strcpy(w, "\"");
	json_init(&j, big, sizeof(big));
	json_strn(&j, NULL, all, sizeof(all));
	s = finish_big(&j);
	assert_string_equal(s, want);
	assert_printable(s, sizeof(big));
	/* Spot checks of the table above, independent of it. */
	assert_non_null(strstr(s, "\\u0000\\u0001"));
	assert_non_null(strstr(s, "\\u001f !\\\"#"));
	assert_non_null(strstr(s, "[\\\\]"));
	assert_non_null(strstr(s, "}~\\u007f\\u0080"));
	assert_non_null(strstr(s, "\\u00ff\""));
}

static void test_escape_keys_and_str(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	json_str(&j, "k\"\n", "a\tb\rc\x1b\xe9");
	/* json_str stops at the NUL; json_strn does not. */
	json_str(&j, "c", "x\0y");
	json_strn(&j, "n", "x\0y", 3);
	json_strn(&j, "z", "ignored", 0);
	json_end_object(&j);
	assert_string_equal(finish_big(&j),
			    "{\"k\\\"\\n\":\"a\\tb\\rc\\u001b\\u00e9\","
			    "\"c\":\"x\",\"n\":\"x\\u0000y\",\"z\":\"\"}");
}

/* A document using every call; returns how it ended. */
static const char *build(struct json *j)
{
	json_begin_object(j, NULL);
	json_str(j, "type", "env");
	json_u64(j, "seq", 18446744073709551615u);
	json_i64(j, "neg", INT64_MIN);
	json_hex(j, "rip", 0xffffffff80001234u);
	json_begin_array(j, "list");
	json_bool(j, NULL, true);
	json_bool(j, NULL, false);
	json_null(j, NULL);
	json_strn(j, NULL, "a\0\"\\\x7f", 5);
	json_begin_object(j, NULL);
	json_str(j, "e\t", NULL);
	json_end_object(j);
	json_end_array(j);
	json_end_object(j);
	return json_finish(j);
}

/*
 * At every cap below the full length the writer must fail, write nothing
 * at or past cap, and leave a terminated prefix of the full document.
 */
static void test_every_cap(void **state)
{
	char full[512], *buf;
	size_t len;
	struct json j;

	(void)state;
	json_init(&j, full, sizeof(full));
	assert_non_null(build(&j));
	len = strlen(full);
	assert_true(len > 100);
	buf = malloc(len + 1 + 64);
	assert_non_null(buf);
	for (size_t cap = 0; cap <= len + 1; cap++) {
		const char *r;

		memset(buf, CANARY, len + 1 + 64);
		json_init(&j, buf, cap);
		r = build(&j);
		for (size_t i = cap; i < len + 1 + 64; i++)
			assert_int_equal((unsigned char)buf[i], CANARY);
		if (cap == len + 1) {
			assert_ptr_equal(r, buf);
			assert_string_equal(buf, full);
			continue;
		}
		assert_null(r);
		if (cap) {
			size_t n = strnlen(buf, cap);

			assert_true(n < cap);
			assert_memory_equal(buf, full, n);
		}
	}
	free(buf);
}

static void test_cap_zero_writes_nothing(void **state)
{
	char c = (char)CANARY;
	struct json j;

	(void)state;
	json_init(&j, &c, 0);
	assert_null(json_finish(&j));
	json_u64(&j, NULL, 1);
	assert_null(json_finish(&j));
	assert_int_equal((unsigned char)c, CANARY);
}

static void test_unbalanced(void **state)
{
	struct json j;

	(void)state;
	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	assert_null(json_finish(&j));

	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	json_begin_array(&j, "a");
	json_end_array(&j);
	assert_null(json_finish(&j));

	json_init(&j, big, sizeof(big));
	json_end_object(&j);
	assert_null(json_finish(&j));

	/* An extra end fails even though the depth returns to 0 after. */
	json_init(&j, big, sizeof(big));
	json_begin_object(&j, NULL);
	json_end_object(&j);
	json_end_object(&j);
	json_begin_object(&j, NULL);
	json_end_object(&j);
	assert_null(json_finish(&j));
}

static void test_max_depth(void **state)
{
	char want[2 * JSON_MAX_DEPTH + 1];
	struct json j;
	int ok = JSON_MAX_DEPTH - 1;

	(void)state;
	/* JSON_MAX_DEPTH - 1 levels fit... */
	json_init(&j, big, sizeof(big));
	for (int i = 0; i < ok; i++)
		json_begin_array(&j, NULL);
	for (int i = 0; i < ok; i++)
		json_end_array(&j);
	memset(want, '[', (size_t)ok);
	memset(want + ok, ']', (size_t)ok);
	want[2 * ok] = '\0';
	assert_string_equal(finish_big(&j), want);
	/* ...one more is refused, and the error sticks. */
	json_init(&j, big, sizeof(big));
	for (int i = 0; i <= ok; i++)
		json_begin_array(&j, NULL);
	for (int i = 0; i <= ok; i++)
		json_end_array(&j);
	assert_null(json_finish(&j));
}

static void test_error_is_sticky(void **state)
{
	char buf[8];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	json_begin_array(&j, NULL);
	json_u64(&j, NULL, UINT64_MAX); /* 20 digits go in one piece */
	json_u64(&j, NULL, 1);		/* would fit, but must not appear */
	json_end_array(&j);
	assert_null(json_finish(&j));
	assert_string_equal(buf, "[");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_empty_doc),
		cmocka_unit_test(test_nesting_and_commas),
		cmocka_unit_test(test_escape_every_byte),
		cmocka_unit_test(test_escape_keys_and_str),
		cmocka_unit_test(test_every_cap),
		cmocka_unit_test(test_cap_zero_writes_nothing),
		cmocka_unit_test(test_unbalanced),
		cmocka_unit_test(test_max_depth),
		cmocka_unit_test(test_error_is_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
