// SPDX-License-Identifier: MIT
/*
 * A tiny JSON writer (see json.h). One byte of the buffer is always held
 * back for the terminating NUL, so buf[len] is writable whenever cap > 0 and
 * json_finish() can terminate even a failed document. Errors (no room,
 * too deep, an end without a begin) are sticky in j->overflow: once set,
 * nothing more is written and json_finish() returns NULL.
 */
#include "lib/json.h"

static const char hex_digits[] = "0123456789abcdef";

static void put(struct json *j, const char *s, size_t n)
{
	if (j->overflow)
		return;
	if (!j->cap || n >= j->cap - j->len) {
		j->overflow = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		j->buf[j->len++] = s[i];
}

static void put_c(struct json *j, char c)
{
	put(j, &c, 1);
}

static void put_s(struct json *j, const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	put(j, s, n);
}

/* Writes one byte of string content, escaped so that it is printable. */
static void put_escaped(struct json *j, unsigned char c)
{
	char u[6] = {
		'\\', 'u', '0', '0', hex_digits[c >> 4], hex_digits[c & 15]};

	switch (c) {
	case '"':
		put(j, "\\\"", 2);
		break;
	case '\\':
		put(j, "\\\\", 2);
		break;
	case '\n':
		put(j, "\\n", 2);
		break;
	case '\r':
		put(j, "\\r", 2);
		break;
	case '\t':
		put(j, "\\t", 2);
		break;
	default:
		if (c >= 0x20 && c <= 0x7e)
			put_c(j, (char)c);
		else
			put(j, u, sizeof(u));
	}
}

static void put_quoted(struct json *j, const char *s, size_t n)
{
	put_c(j, '"');
	for (size_t i = 0; i < n; i++)
		put_escaped(j, (unsigned char)s[i]);
	put_c(j, '"');
}

/* The comma and `"key":` that go in front of every value. */
static void prefix(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		put_c(j, ',');
	j->need_comma[j->depth] = true;
	if (key) {
		size_t n = 0;

		while (key[n])
			n++;
		put_quoted(j, key, n);
		put_c(j, ':');
	}
}

void json_init(struct json *j, char *buf, size_t cap)
{
	j->buf = buf;
	j->cap = cap;
	j->len = 0;
	j->overflow = false;
	j->depth = 0;
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		j->need_comma[i] = false;
	if (cap)
		buf[0] = '\0';
}

static void begin(struct json *j, const char *key, char open)
{
	prefix(j, key);
	put_c(j, open);
	/* need_comma[] has a slot per level; refuse to go deeper than that. */
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->overflow = true;
		return;
	}
	j->depth++;
	j->need_comma[j->depth] = false;
}

static void end(struct json *j, char close)
{
	if (j->depth == 0) {
		j->overflow = true;
		return;
	}
	j->depth--;
	put_c(j, close);
}

void json_begin_object(struct json *j, const char *key)
{
	begin(j, key, '{');
}

void json_end_object(struct json *j)
{
	end(j, '}');
}

void json_begin_array(struct json *j, const char *key)
{
	begin(j, key, '[');
}

void json_end_array(struct json *j)
{
	end(j, ']');
}

void json_strn(struct json *j, const char *key, const char *val, size_t n)
{
	prefix(j, key);
	put_quoted(j, val, n);
}

void json_str(struct json *j, const char *key, const char *val)
{
	size_t n = 0;

	if (!val) {
		json_null(j, key);
		return;
	}
	while (val[n])
		n++;
	json_strn(j, key, val, n);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + val % 10);
		val /= 10;
	} while (val);
	prefix(j, key);
	put(j, tmp + i, sizeof(tmp) - i);
}

void json_x100(struct json *j, const char *key, uint64_t hundredths)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	for (int d = 0; d < 2; d++, hundredths /= 10)
		tmp[--i] = (char)('0' + hundredths % 10);
	tmp[--i] = '.';
	do {
		tmp[--i] = (char)('0' + hundredths % 10);
		hundredths /= 10;
	} while (hundredths);
	prefix(j, key);
	put(j, tmp + i, sizeof(tmp) - i);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	/* Negate in unsigned arithmetic: -INT64_MIN does not fit an int64_t. */
	uint64_t mag = val < 0 ? 0 - (uint64_t)val : (uint64_t)val;
	char tmp[21];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag);
	if (val < 0)
		tmp[--i] = '-';
	prefix(j, key);
	put(j, tmp + i, sizeof(tmp) - i);
}

void json_hex(struct json *j, const char *key, uint64_t val)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	tmp[--i] = '"';
	do {
		tmp[--i] = hex_digits[val & 15];
		val >>= 4;
	} while (val);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	tmp[--i] = '"';
	prefix(j, key);
	put(j, tmp + i, sizeof(tmp) - i);
}

void json_bool(struct json *j, const char *key, bool val)
{
	prefix(j, key);
	put_s(j, val ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	put_s(j, "null");
}

const char *json_finish(struct json *j)
{
	if (!j->cap)
		return NULL;
	j->buf[j->len] = '\0';
	if (j->overflow || j->depth != 0)
		return NULL;
	return j->buf;
}
